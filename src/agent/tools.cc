#include "agent/tools.h"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <deque>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

#include "core/text.h"

namespace docwright::agent {
namespace {

using nlohmann::json;

ToolOutcome Error(std::string message) { return ToolOutcome{std::move(message), true}; }

constexpr size_t kMaxLineBytes = 4096;  // of one line of read_file

// Output cut to the tool limit, at a character, with a note saying so.
std::string Bounded(std::string text, const std::string& note) {
  if (text.size() <= kMaxToolOutputBytes) return text;
  std::string cut(CutUtf8(text, kMaxToolOutputBytes));
  if (size_t nl = cut.rfind('\n'); nl != std::string::npos) cut.resize(nl + 1);
  return cut + "[output cut at " + std::to_string(kMaxToolOutputBytes / 1024) + " KiB: " + note +
         "]\n";
}

// Reads the model's arguments: an object whose fields have the expected types.
class Args {
 public:
  static std::optional<Args> Parse(const std::string& text, std::string* error) {
    json parsed = json::parse(text.empty() ? "{}" : text, nullptr, false);
    if (parsed.is_discarded()) {
      *error = "the arguments are not valid JSON; send a JSON object";
      return std::nullopt;
    }
    if (!parsed.is_object()) {
      *error = "the arguments must be a JSON object";
      return std::nullopt;
    }
    return Args(std::move(parsed));
  }

  // A required string (or optional, when `required` is false and absent).
  std::optional<std::string> String(const char* name, bool required, std::string* error) const {
    auto it = j_.find(name);
    if (it == j_.end() || it->is_null()) {
      if (required) *error = std::string("missing required argument \"") + name + "\"";
      return std::nullopt;
    }
    if (!it->is_string()) {
      *error = std::string("argument \"") + name + "\" must be a string";
      return std::nullopt;
    }
    return it->get<std::string>();
  }
  std::optional<int64_t> Int(const char* name, std::string* error) const {
    auto it = j_.find(name);
    if (it == j_.end() || it->is_null()) return std::nullopt;
    if (!it->is_number_integer()) {
      *error = std::string("argument \"") + name + "\" must be an integer";
      return std::nullopt;
    }
    return it->get<int64_t>();
  }
  // Whether the model gave `name` at all (null counts as not given).
  bool Has(const char* name) const {
    auto it = j_.find(name);
    return it != j_.end() && !it->is_null();
  }
  std::optional<bool> Bool(const char* name, std::string* error) const {
    auto it = j_.find(name);
    if (it == j_.end() || it->is_null()) return std::nullopt;
    if (!it->is_boolean()) {
      *error = std::string("argument \"") + name + "\" must be true or false";
      return std::nullopt;
    }
    return it->get<bool>();
  }

 private:
  explicit Args(json j) : j_(std::move(j)) {}
  json j_;
};

// A directory argument: "" (or ".", "/") for the root, else a checked path.
std::optional<std::string> Dir(const std::optional<std::string>& arg, std::string* error) {
  if (!arg || arg->empty() || *arg == "." || *arg == "/" || *arg == "./") return std::string();
  std::string d = *arg;
  while (!d.empty() && d.back() == '/') d.pop_back();
  auto checked = git::CheckPath(d);
  if (!checked.ok()) {
    *error = checked.status().message();
    return std::nullopt;
  }
  return *checked;
}

ToolOutcome ListFiles(git::Workspace& ws, const Args& args) {
  std::string error;
  auto dir = Dir(args.String("path", false, &error), &error);
  if (!error.empty()) return Error(error);
  auto entries = ws.List(*dir);
  if (!entries.ok()) return Error(entries.status().message());
  std::string out;
  size_t shown = 0;
  for (const auto& e : *entries) {
    if (shown == kMaxListEntries) {
      out += "[" + std::to_string(entries->size() - shown) + " more entries not shown]\n";
      break;
    }
    std::string path = dir->empty() ? e.name : *dir + "/" + e.name;
    switch (e.kind) {
      case git::EntryKind::kDirectory:
        out += path + "/\n";
        break;
      case git::EntryKind::kSymlink:
        out += path + " (symbolic link, not followed)\n";
        break;
      case git::EntryKind::kSubmodule:
        out += path + " (submodule, not followed)\n";
        break;
      case git::EntryKind::kFile:
        out += path + "\n";
        break;
    }
    ++shown;
  }
  if (out.empty()) out = "(empty directory)\n";
  return ToolOutcome{Bounded(std::move(out), "list a subfolder")};
}

ToolOutcome ReadFile(git::Workspace& ws, const Args& args) {
  std::string error;
  auto path = args.String("path", true, &error);
  auto offset = args.Int("offset", &error);
  auto limit = args.Int("limit", &error);
  if (!error.empty()) return Error(error);
  auto checked = git::CheckPath(*path);
  if (!checked.ok()) return Error(checked.status().message());
  auto content = ws.Read(*checked);
  if (!content.ok()) return Error(content.status().message());
  if (content->binary) return Error(*checked + " is a binary file; it cannot be read as text");
  int64_t first = std::clamp<int64_t>(offset.value_or(1), 1, 1'000'000'000);
  int64_t count = std::clamp<int64_t>(limit.value_or(kDefaultReadLines), 1, 2000);
  const std::string& text = content->text;
  std::string out;
  int64_t line = 1, total = 0, last_shown = 0;
  size_t start = 0;
  bool cut = false;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    ++total;
    if (line >= first && line < first + count && !cut) {
      // A very long line (minified JSON, an inline SVG) is cut, not skipped.
      std::string_view content(text.data() + start, end - start);
      std::string row = std::to_string(line) + "\t" + std::string(CutUtf8(content, kMaxLineBytes)) +
                        (content.size() > kMaxLineBytes ? " [line cut at 4 KiB]" : "") + "\n";
      if (out.size() + row.size() > kMaxToolOutputBytes) {
        cut = true;
      } else {
        out += row;
        last_shown = line;
      }
    }
    ++line;
    start = end + 1;
  }
  if (total == 0) return ToolOutcome{"(empty file)\n"};
  if (first > total) {
    return Error("offset " + std::to_string(first) + " is past the end: the file has " +
                 std::to_string(total) + " lines");
  }
  if (last_shown < total) {
    out += "[lines " + std::to_string(first) + "-" + std::to_string(last_shown) + " of " +
           std::to_string(total) +
           "; call read_file with offset=" + std::to_string(last_shown + 1) + " for more]\n";
  }
  return ToolOutcome{std::move(out)};
}

// Files whose name says they are images, fonts, media or archives: binary, so
// never searched, and not read to find that out (a docs site can hold hundreds
// of megabytes of them).
bool LooksLikeMedia(std::string_view path) {
  size_t dot = path.rfind('.');
  if (dot == std::string_view::npos || path.size() - dot > 6) return false;
  std::string ext(path.substr(dot + 1));
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static constexpr std::string_view kMedia[] = {
      "png", "jpg", "jpeg", "gif", "webp", "avif", "ico", "bmp",  "tif",    "tiff", "pdf",
      "zip", "gz",  "tgz",  "bz2", "xz",   "7z",   "jar", "woff", "woff2",  "ttf",  "otf",
      "eot", "mp4", "webm", "mov", "mp3",  "wav",  "ogg", "psd",  "sketch", "fig"};
  for (std::string_view m : kMedia) {
    if (ext == m) return true;
  }
  return false;
}

// Files under `dir`, sorted: at most kMaxSearchFiles of them, taken breadth
// first (a huge folder deep down cannot hide the files near the top), visiting
// at most kMaxSearchVisits entries of any kind (a tree of links or submodules
// has entries and no files). False if the walk was cut short.
bool Walk(const git::Workspace& ws, const std::string& dir, std::vector<std::string>* out) {
  std::deque<std::string> folders{dir};
  size_t visits = 0, queued_bytes = 0;
  constexpr size_t kMaxQueuedBytes = 16u << 20;  // a path may be 4 KiB
  bool whole = true;
  while (!folders.empty() && whole) {
    std::string folder = std::move(folders.front());
    folders.pop_front();
    queued_bytes -= std::min(queued_bytes, folder.size());
    auto entries = ws.List(folder);
    if (!entries.ok()) {
      // A folder too large to read, or the budget spent: the walk is not whole.
      if (entries.status().code() != Code::kNotFound) whole = false;
      continue;
    }
    for (const auto& e : *entries) {
      if (out->size() >= kMaxSearchFiles || ++visits > kMaxSearchVisits) {
        whole = false;
        break;
      }
      std::string path = folder.empty() ? e.name : folder + "/" + e.name;
      if (path.size() > git::kMaxPathBytes) {
        whole = false;  // no tool can name it
      } else if (e.kind == git::EntryKind::kDirectory) {
        if (queued_bytes > kMaxQueuedBytes) {
          whole = false;
          break;
        }
        queued_bytes += path.size();
        folders.push_back(std::move(path));
      } else if (e.kind == git::EntryKind::kFile && !LooksLikeMedia(path)) {
        out->push_back(std::move(path));
      }
    }
  }
  std::sort(out->begin(), out->end());
  return whole;
}

struct SearchHit {
  int line;
  std::string text;  // the line, cut at 300 bytes
};

// The first `max` lines of `text` that `re` matches.
std::vector<SearchHit> MatchingLines(const std::string& text, const RE2& re, size_t max) {
  std::vector<SearchHit> hits;
  size_t start = 0;
  for (int line = 1; start < text.size() && hits.size() < max; ++line) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view row(text.data() + start, end - start);
    if (RE2::PartialMatch(row, re)) hits.push_back({line, std::string(CutUtf8(row, 300))});
    start = end + 1;
  }
  return hits;
}

ToolOutcome Search(git::Workspace& ws, const Args& args) {
  std::string error;
  auto pattern = args.String("pattern", true, &error);
  auto dir = Dir(args.String("path", false, &error), &error);
  if (!error.empty()) return Error(error);
  if (pattern->empty() || pattern->size() > 1000)
    return Error("pattern must be 1 to 1000 characters");
  RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(8 << 20);
  RE2 re(*pattern, options);
  if (!re.ok()) return Error("invalid regular expression: " + re.error());
  std::vector<std::string> files;
  bool walked_all = true;
  if (ws.IsFile(*dir)) {
    files.push_back(*dir);
  } else {
    walked_all = Walk(ws, *dir, &files);
  }
  WorkBudget* budget = ws.base().budget();
  // Paths to one blob hold the same bytes: each blob is searched once.
  std::unordered_map<std::string, std::vector<SearchHit>> by_blob;
  std::string out;
  size_t hits = 0, searched_bytes = 0;
  bool more = false, out_of_bytes = false;
  for (const std::string& file : files) {
    std::string blob = ws.UnchangedBlobId(file);
    auto known = blob.empty() ? by_blob.end() : by_blob.find(blob);
    std::vector<SearchHit> fresh;
    if (known == by_blob.end()) {
      auto content = ws.Read(file);
      if (!content.ok()) {
        if (content.status().code() == Code::kResourceExhausted) break;
        continue;
      }
      const std::string& text = content->text;
      if (!content->binary) {
        if (searched_bytes + text.size() > kMaxSearchBytes) {
          out_of_bytes = true;
          break;
        }
        searched_bytes += text.size();
        if (budget && !budget->Charge(WorkBudget::Meter::kBytesSearched, text.size())) break;
        fresh = MatchingLines(text, re, kMaxSearchResults + 1);
      }  // a binary blob has no lines: remembered as such, never read again
      if (!blob.empty()) known = by_blob.emplace(blob, std::move(fresh)).first;
    }
    const std::vector<SearchHit>& found = known == by_blob.end() ? fresh : known->second;
    for (const SearchHit& hit : found) {
      if (hits == kMaxSearchResults) {
        more = true;
        break;
      }
      out += file + ":" + std::to_string(hit.line) + ": " + hit.text + "\n";
      ++hits;
    }
    if (more) break;
  }
  if (budget && budget->spent()) return Error("search stopped: " + budget->status().message());
  if (hits == 0 && !out_of_bytes && walked_all) return ToolOutcome{"no matches\n"};
  if (hits == 0) out = "no matches so far\n";
  if (more) {
    out += "[only the first " + std::to_string(kMaxSearchResults) +
           " matches are shown; narrow the pattern or the path]\n";
  }
  if (out_of_bytes) {
    out += "[the search stopped after " + std::to_string(kMaxSearchBytes >> 20) +
           " MiB of text; narrow the path]\n";
  }
  if (!walked_all) {
    out += "[only the first " + std::to_string(files.size()) +
           " files were searched; narrow the path]\n";
  }
  return ToolOutcome{Bounded(std::move(out), "narrow the pattern or the path")};
}

// A path the model may change: checked, and allowed by the policy if there is one.
Result<std::string> Writable(const std::string& path, const WritePolicy* policy) {
  auto checked = git::CheckPath(path);
  if (!checked.ok() || !policy) return checked;
  Status allowed = policy->Check(*checked);
  if (!allowed.ok()) return allowed;
  return checked;
}

ToolOutcome WriteFile(git::Workspace& ws, const Args& args, const WritePolicy* policy) {
  std::string error;
  auto path = args.String("path", true, &error);
  auto content = args.String("content", true, &error);
  if (!error.empty()) return Error(error);
  auto checked = Writable(*path, policy);
  if (!checked.ok()) return Error(checked.status().message());
  if (content->size() > kMaxWriteBytes) return Error("content over 1 MiB is refused");
  bool existed = ws.IsFile(*checked);
  Status s = ws.Write(*checked, std::move(*content));
  if (!s.ok()) return Error(s.message());
  return ToolOutcome{(existed ? "overwrote " : "created ") + *checked + "\n"};
}

ToolOutcome EditFile(git::Workspace& ws, const Args& args, const WritePolicy* policy) {
  std::string error;
  auto path = args.String("path", true, &error);
  auto old_text = args.String("old_text", true, &error);
  auto new_text = args.String("new_text", true, &error);
  auto replace_all = args.Bool("replace_all", &error);
  if (!error.empty()) return Error(error);
  auto checked = Writable(*path, policy);
  if (!checked.ok()) return Error(checked.status().message());
  if (old_text->empty()) return Error("old_text must not be empty");
  auto content = ws.Read(*checked);
  if (!content.ok()) return Error(content.status().message());
  if (content->binary) return Error(*checked + " is a binary file");
  std::string text = std::move(content->text);
  // Linear whatever the texts hold (a plain find from each match is quadratic
  // on text such as "aaaa…").
  std::vector<size_t> found = FindAll(text, *old_text);
  size_t count = found.size();
  if (new_text->size() > kMaxWriteBytes) return Error("new_text over 1 MiB is refused");
  if (count == 0)
    return Error("old_text was not found in " + *checked +
                 "; read the file and copy the text exactly");
  if (count > 1 && !replace_all.value_or(false)) {
    return Error("old_text was found " + std::to_string(count) + " times in " + *checked +
                 "; add context to make it unique, or set replace_all");
  }
  size_t replaced = replace_all.value_or(false) ? count : 1;
  if (new_text->size() > old_text->size() &&
      text.size() + replaced * (new_text->size() - old_text->size()) > kMaxWriteBytes) {
    return Error("the edited file would be over 1 MiB");
  }
  std::string out;
  out.reserve(text.size());
  size_t from = 0;
  for (size_t i = 0; i < replaced; ++i) {
    out.append(text, from, found[i] - from);
    out += *new_text;
    from = found[i] + old_text->size();
  }
  out.append(text, from, std::string::npos);
  if (out.size() > kMaxWriteBytes) return Error("the edited file would be over 1 MiB");
  Status s = ws.Write(*checked, std::move(out));
  if (!s.ok()) return Error(s.message());
  return ToolOutcome{"replaced " + std::to_string(count) + " occurrence" + (count == 1 ? "" : "s") +
                     " in " + *checked + "\n"};
}

ToolOutcome DeleteFile(git::Workspace& ws, const Args& args, const WritePolicy* policy) {
  std::string error;
  auto path = args.String("path", true, &error);
  if (!error.empty()) return Error(error);
  auto checked = Writable(*path, policy);
  if (!checked.ok()) return Error(checked.status().message());
  Status s = ws.Delete(*checked);
  if (!s.ok()) return Error(s.message());
  return ToolOutcome{"deleted " + *checked + "\n"};
}

ToolOutcome MoveFile(git::Workspace& ws, const Args& args, const WritePolicy* policy) {
  std::string error;
  auto from = args.String("from", true, &error);
  auto to = args.String("to", true, &error);
  if (!error.empty()) return Error(error);
  auto from_checked = Writable(*from, policy);
  if (!from_checked.ok()) return Error(from_checked.status().message());
  auto to_checked = Writable(*to, policy);
  if (!to_checked.ok()) return Error(to_checked.status().message());
  Status s = ws.Move(*from_checked, *to_checked);
  if (!s.ok()) return Error(s.message());
  return ToolOutcome{"moved " + *from_checked + " to " + *to_checked + "\n"};
}

ToolOutcome Finish(const Args& args) {
  std::string error;
  auto summary = args.String("summary", true, &error);
  auto title = args.String("title", false, &error);
  if (!error.empty()) return Error(error);
  if (IsBlank(*summary)) return Error("summary must not be empty");
  ToolOutcome out{"finished\n"};
  out.finished = true;
  out.summary = std::string(CutUtf8(*summary, 20000));
  out.title = title ? std::string(CutUtf8(*title, 300)) : "";
  return out;
}

}  // namespace

namespace {

std::vector<llm::ToolSpec> BuildSpecs() {
  auto object = [](json properties, json required) {
    return json{{"type", "object"},
                {"properties", std::move(properties)},
                {"required", std::move(required)},
                {"additionalProperties", false}}
        .dump();
  };
  json path_prop{{"type", "string"}, {"description", "repository-relative path"}};
  json repository_prop{{"type", "string"},
                       {"description",
                        "a context repository's name, to read it instead of the docs repository "
                        "(read-only); omit for the docs repository"}};
  return {
      {"list_files",
       "List the files and folders in a folder of the repository (default: the root). Folders end "
       "with '/'.",
       object({{"path",
                {{"type", "string"},
                 {"description", "folder, repository-relative; omit for the root"}}},
               {"repository", repository_prop}},
              json::array())},
      {"read_file",
       "Read a text file as numbered lines. Long files come a page at a time: use offset and "
       "limit.",
       object({{"path", path_prop},
               {"offset",
                {{"type", "integer"},
                 {"minimum", 1},
                 {"description", "first line to show (1-based)"}}},
               {"limit",
                {{"type", "integer"},
                 {"minimum", 1},
                 {"description", "how many lines (default 400)"}}},
               {"repository", repository_prop}},
              {"path"})},
      {"search",
       "Search text files with a regular expression (RE2 syntax). Returns path:line: text rows, at "
       "most 100.",
       object({{"pattern", {{"type", "string"}, {"description", "regular expression"}}},
               {"path",
                {{"type", "string"}, {"description", "folder or file to search; omit for all"}}},
               {"repository", repository_prop}},
              {"pattern"})},
      {"write_file", "Create a file, or overwrite it with the full new content.",
       object({{"path", path_prop},
               {"content", {{"type", "string"}, {"description", "the whole file"}}}},
              {"path", "content"})},
      {"edit_file",
       "Replace exact text in a file. Fails if old_text is absent, or appears more than once "
       "without replace_all.",
       object({{"path", path_prop},
               {"old_text",
                {{"type", "string"}, {"description", "text to find, exactly as in the file"}}},
               {"new_text", {{"type", "string"}, {"description", "replacement"}}},
               {"replace_all", {{"type", "boolean"}, {"description", "replace every occurrence"}}}},
              {"path", "old_text", "new_text"})},
      {"delete_file", "Delete a file.", object({{"path", path_prop}}, {"path"})},
      {"move_file", "Rename or move a file.",
       object({{"from", path_prop}, {"to", path_prop}}, {"from", "to"})},
      {"finish",
       "End the turn once the instruction is carried out. The summary goes to the job and the pull "
       "request.",
       object(
           {{"summary",
             {{"type", "string"}, {"description", "what you changed and why, for the reviewer"}}},
            {"title",
             {{"type", "string"},
              {"description", "pull request title, imperative, under 72 characters"}}}},
           {"summary"})},
  };
}

}  // namespace

std::vector<llm::ToolSpec> Toolbox::Specs() {
  static const std::vector<llm::ToolSpec> specs = BuildSpecs();  // every turn sends them
  return specs;
}

Toolbox::Toolbox(git::Workspace& workspace, const WritePolicy* policy,
                 const std::vector<ContextSnapshot>& context)
    : workspace_(workspace), policy_(policy) {
  for (const ContextSnapshot& repo : context) {
    if (repo.snapshot) context_.try_emplace(repo.name, *repo.snapshot);
  }
}

git::Workspace* Toolbox::ReadTarget(const std::optional<std::string>& repository,
                                    std::string* error) {
  if (!repository) return &workspace_;
  if (auto it = context_.find(*repository); it != context_.end()) return &it->second;
  std::string names;
  for (const auto& [name, unused] : context_) names += (names.empty() ? "" : ", ") + name;
  // The name is the model's: cut, so a long one cannot flood the conversation.
  *error = "there is no context repository named \"" + std::string(CutUtf8(*repository, 100)) +
           "\"; " +
           (names.empty() ? std::string("this turn has none: omit \"repository\" to read the "
                                        "docs repository")
                          : "the context repositories are: " + names);
  return nullptr;
}

ToolOutcome Toolbox::Call(const std::string& name, const std::string& arguments) {
  std::string error;
  auto args = Args::Parse(arguments, &error);
  if (!args) return Error(error);
  if (name == "list_files" || name == "read_file" || name == "search") {
    auto repository = args->String("repository", false, &error);
    if (!error.empty()) return Error(error);
    git::Workspace* target = ReadTarget(repository, &error);
    if (!target) return Error(error);
    if (name == "list_files") return ListFiles(*target, *args);
    if (name == "read_file") return ReadFile(*target, *args);
    return Search(*target, *args);
  }
  bool writes =
      name == "write_file" || name == "edit_file" || name == "delete_file" || name == "move_file";
  if (writes && args->Has("repository")) {
    // Not in the writing tools' schemas: a model that sends it anyway means
    // another repository, and must not have the docs repository changed instead.
    return Error("context repositories are read-only: " + std::string(CutUtf8(name, 100)) +
                 " changes the docs repository only; call it without \"repository\"");
  }
  if (name == "write_file") return WriteFile(workspace_, *args, policy_);
  if (name == "edit_file") return EditFile(workspace_, *args, policy_);
  if (name == "delete_file") return DeleteFile(workspace_, *args, policy_);
  if (name == "move_file") return MoveFile(workspace_, *args, policy_);
  if (name == "finish") return Finish(*args);
  return Error("unknown tool \"" + std::string(CutUtf8(name, 100)) +
               "\"; the tools are list_files, read_file, search, write_file, edit_file, "
               "delete_file, move_file and finish");
}

}  // namespace docwright::agent
