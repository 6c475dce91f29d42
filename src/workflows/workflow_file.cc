#include "workflows/workflow_file.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <optional>
#include <sstream>
#include <string>

#include "core/cron.h"
#include "core/job.h"
#include "core/text.h"

namespace docwright::workflows {
namespace {

// Values quoted in errors are cut: an error is one line of a listing.
constexpr size_t kMaxQuotedBytes = 80;

std::string Quote(std::string_view value) {
  return "\"" + OneLogLine(value, kMaxQuotedBytes) + "\"";
}

// A problem, at a line of the file (0: none known).
struct FileError {
  int line = 0;
  std::string message;
};

std::string ErrorText(const FileError& e) {
  return e.line > 0 ? "line " + std::to_string(e.line) + ": " + e.message : e.message;
}

std::string_view Stem(std::string_view path) {
  size_t slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (name.ends_with(".md")) name.remove_suffix(3);
  return name;
}

// One line of `text` from `pos` (without its "\n"); `*next` is where the next
// one starts.
std::string_view LineAt(std::string_view text, size_t pos, size_t* next) {
  size_t end = text.find('\n', pos);
  if (end == std::string_view::npos) {
    *next = text.size();
    return text.substr(pos);
  }
  *next = end + 1;
  return text.substr(pos, end - pos);
}

bool IsDelimiter(std::string_view line) { return TrimRight(line, " \t\r") == "---"; }

struct Parts {
  std::string_view yaml;
  std::string_view body;
  int body_line = 0;
};

// The front matter and the prompt of `text`, or why they cannot be told apart.
std::optional<FileError> SplitFile(std::string_view text, Parts& parts) {
  size_t next = 0;
  if (text.empty() || !IsDelimiter(LineAt(text, 0, &next))) {
    return FileError{1,
                     "a workflow file starts with its settings: a line ---, the settings "
                     "(on: ..., at least), another line ---, then the prompt"};
  }
  size_t start = next;
  int line = 2;
  for (size_t p = start; p < text.size(); ++line) {
    size_t after = 0;
    std::string_view l = LineAt(text, p, &after);
    if (IsDelimiter(l)) {
      parts.yaml = text.substr(start, p - start);
      parts.body = text.substr(after);
      parts.body_line = line + 1;
      return std::nullopt;
    }
    p = after;
  }
  return FileError{1, "the settings are not closed: add a line --- after them"};
}

// Finds the first anchor or alias, without building a tree: a tree of aliases
// is small, but whatever walks it may follow them exponentially often, so a
// file that uses them is refused outright.
class AnchorFinder final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { Check(mark, anchor); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { Found(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string&) override {
    Check(mark, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Check(mark, anchor);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Check(mark, anchor);
  }
  void OnMapEnd() override {}

  std::optional<YAML::Mark> found;

 private:
  void Check(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor) Found(mark);
  }
  void Found(const YAML::Mark& mark) {
    if (!found) found = mark;
  }
};

// Reads the front matter's keys into a Workflow. Every step returns false
// after setting `error`.
class SettingsReader {
 public:
  SettingsReader(Workflow& workflow, int first_line,
                 const std::vector<ContextRepository>& context_repositories,
                 std::string_view docs_repository)
      : workflow_(workflow),
        first_line_(first_line),
        context_repositories_(context_repositories),
        docs_repository_(docs_repository) {}

  std::optional<FileError> Read(std::string_view yaml) {
    if (!CheckEvents(yaml)) return error_;
    YAML::Node root;
    try {
      root = YAML::Load(std::string(yaml));
    } catch (const YAML::Exception& e) {
      return FileError{LineOf(e.mark), Cut(e.msg)};
    }
    try {
      if (!ReadRoot(root)) return error_;
    } catch (const YAML::Exception& e) {
      // A node of an unexpected shape that a check above missed.
      return FileError{LineOf(e.mark), Cut(e.msg)};
    }
    return std::nullopt;
  }

 private:
  static std::string Cut(const std::string& message) { return OneLogLine(message, 200); }

  int LineOf(const YAML::Mark& mark) const { return mark.line >= 0 ? first_line_ + mark.line : 0; }
  int LineOf(const YAML::Node& node) const {
    try {
      return LineOf(node.Mark());
    } catch (const YAML::Exception&) {
      return 0;
    }
  }

  bool Fail(const YAML::Node& at, std::string message) {
    error_ = FileError{LineOf(at), std::move(message)};
    return false;
  }

  // Parses events only: syntax errors with their line, anchors and aliases,
  // more than one document.
  bool CheckEvents(std::string_view yaml) {
    std::istringstream in{std::string(yaml)};
    try {
      YAML::Parser parser(in);
      AnchorFinder finder;
      parser.HandleNextDocument(finder);
      if (finder.found) {
        error_ = FileError{LineOf(*finder.found),
                           "anchors and aliases (& and *) are not allowed in a workflow file "
                           "(a value that starts with * is quoted: cron: \"*/15 * * * *\")"};
        return false;
      }
      if (parser.HandleNextDocument(finder)) {
        error_ = FileError{0, "the settings are one YAML document (a line ... ends them)"};
        return false;
      }
    } catch (const YAML::Exception& e) {
      error_ = FileError{LineOf(e.mark), Cut(e.msg)};
      return false;
    }
    return true;
  }

  // The value of the first of `keys` that `map` has (an undefined node if none).
  static YAML::Node Get(const YAML::Node& map, std::initializer_list<const char*> keys) {
    for (const char* key : keys) {
      YAML::Node value = map[key];
      if (value.IsDefined()) return value;
    }
    return YAML::Node(YAML::NodeType::Undefined);
  }
  static bool Absent(const YAML::Node& node) { return !node.IsDefined() || node.IsNull(); }

  bool Text(const YAML::Node& node, std::string_view key, std::string& out) {
    if (!node.IsScalar()) return Fail(node, std::string(key) + ": a text, not a list or a map");
    out = node.Scalar();
    return true;
  }
  bool Bool(const YAML::Node& node, std::string_view key, bool& out) {
    if (node.IsScalar()) {
      try {
        out = node.as<bool>();
        return true;
      } catch (const YAML::Exception&) {
      }
    }
    return Fail(node, std::string(key) + ": true or false");
  }

  bool ReadRoot(const YAML::Node& root) {
    if (Absent(root)) {
      return Fail(root, "the settings are empty: a workflow names its trigger (on: ...)");
    }
    if (!root.IsMap()) {
      return Fail(root, "the settings are YAML `key: value` lines (name:, on:, context:, ...)");
    }
    if (YAML::Node name = root["name"]; !Absent(name)) {
      if (!Text(name, "name", workflow_.title)) return false;
    }
    if (!ReadOn(root, root["on"])) return false;
    if (!ReadContext(root["context"])) return false;
    if (YAML::Node automerge = root["automerge"]; !Absent(automerge)) {
      bool on = false;
      if (!Bool(automerge, "automerge", on)) return false;
      if (on) workflow_.publish = PublishMode::kAutomerge;
    }
    if (YAML::Node publish = root["publish"]; !Absent(publish)) {
      std::string text;
      if (!Text(publish, "publish", text)) return false;
      auto mode = ParsePublishMode(text);
      if (!mode) {
        return Fail(publish,
                    "publish: " + Quote(text) + " is not one of pull_request, push, automerge");
      }
      workflow_.publish = *mode;
    }
    if (YAML::Node model = root["model"]; !Absent(model)) {
      std::string text;
      if (!Text(model, "model", text)) return false;
      workflow_.model = std::move(text);
    }
    if (YAML::Node runs = Get(root, {"runsPerDay", "runs_per_day"}); !Absent(runs)) {
      int64_t n = 0;
      try {
        n = runs.as<int64_t>();
      } catch (const YAML::Exception&) {
        return Fail(runs, "runsPerDay: a whole number");
      }
      if (n < 1 || n > kMaxWorkflowRunsPerDay) {
        return Fail(runs,
                    "runsPerDay: from 1 to " + std::to_string(kMaxWorkflowRunsPerDay) + " a day");
      }
      workflow_.runs_per_day = n;
    }
    if (YAML::Node enabled = root["enabled"]; !Absent(enabled)) {
      if (!Bool(enabled, "enabled", workflow_.enabled)) return false;
    }
    return true;
  }

  bool ReadOn(const YAML::Node& root, const YAML::Node& on) {
    workflow_.trigger = WorkflowTrigger{};
    // Required, though "by hand" could be its default: unknown keys are
    // ignored, and a misspelt trigger must not pass for none.
    if (!on.IsDefined()) {
      return Fail(root, "on: is missing: a workflow names its trigger (cron, push or manual)");
    }
    if (on.IsScalar() && on.Scalar() == "manual") return true;
    if (!on.IsMap()) {
      return Fail(on, "on: one trigger, as a map: cron: \"...\", push: {...} or manual: true");
    }
    YAML::Node cron = on["cron"], push = on["push"], manual = on["manual"];
    int triggers = cron.IsDefined() + push.IsDefined() + manual.IsDefined();
    if (triggers > 1) return Fail(on, "a workflow has one trigger (cron, push or manual)");
    if (triggers == 0) return Fail(on, "on: names no trigger (cron, push or manual)");
    if (cron.IsDefined()) return ReadCron(on, cron);
    if (push.IsDefined()) return ReadPush(push);
    bool by_hand = false;
    if (!Bool(manual, "on.manual", by_hand)) return false;
    if (!by_hand) return Fail(manual, "on.manual: true (or another trigger)");
    return true;
  }

  bool ReadCron(const YAML::Node& on, const YAML::Node& cron) {
    WorkflowTrigger& trigger = workflow_.trigger;
    trigger.kind = TriggerKind::kSchedule;
    if (!Text(cron, "on.cron", trigger.cron)) return false;
    trigger.cron = std::string(Trim(trigger.cron, " \t"));
    YAML::Node zone = Get(on, {"timezone", "timeZone", "time_zone"});
    if (!Absent(zone)) {
      if (!Text(zone, "on.timezone", trigger.time_zone)) return false;
      trigger.time_zone = std::string(Trim(trigger.time_zone, " \t"));
    }
    if (trigger.cron.size() > kMaxCronChars) {
      return Fail(cron, "on.cron: at most " + std::to_string(kMaxCronChars) + " characters");
    }
    if (trigger.time_zone.size() > kMaxTimeZoneChars || !IsKnownTimeZone(trigger.time_zone)) {
      return Fail(zone.IsDefined() ? zone : cron,
                  "on.timezone: " + Quote(trigger.time_zone) +
                      " is not a time zone this server knows (an IANA name, such as "
                      "Europe/Berlin)");
    }
    auto parsed = CronSchedule::Parse(trigger.cron, trigger.time_zone);
    if (!parsed.ok()) return Fail(cron, "on.cron: " + parsed.status().message());
    return true;
  }

  bool ReadPush(const YAML::Node& push_node) {
    WorkflowTrigger& trigger = workflow_.trigger;
    trigger.kind = TriggerKind::kPush;
    // The reference's shape: a list of one {repo, branch}.
    if (push_node.IsSequence() && push_node.size() != 1) {
      return Fail(push_node, "on.push: one repository (a workflow has one trigger)");
    }
    const YAML::Node push = push_node.IsSequence() ? push_node[0] : push_node;
    if (Absent(push)) return true;  // the docs repository's base branch
    if (!push.IsMap()) return Fail(push, "on.push: a map: {branch: main} or {repo: sdk}");
    if (YAML::Node branch = push["branch"]; !Absent(branch)) {
      if (!Text(branch, "on.push.branch", trigger.branch)) return false;
      trigger.branch = std::string(Trim(trigger.branch, " \t"));
      if (Status s = CheckBranchName(trigger.branch); !s.ok()) {
        return Fail(branch, "on.push.branch: " + s.message());
      }
    }
    YAML::Node repo = push["repo"];
    if (Absent(repo)) return true;
    std::string value;
    if (!Text(repo, "on.push.repo", value)) return false;
    std::optional<std::string> name;
    if (!Resolve(repo, "on.push.repo", value, name)) return false;
    if (name) {
      trigger.kind = TriggerKind::kMerge;
      trigger.repository = *name;
    }
    return true;
  }

  bool ReadContext(const YAML::Node& context) {
    if (Absent(context)) return true;
    if (context.IsScalar()) return ReadContextEntry(context);
    if (!context.IsSequence()) {
      return Fail(context, "context: a list of repositories: [sdk] or [{repo: org/name}]");
    }
    if (context.size() > kMaxContextRepositories) {
      return Fail(context,
                  "context: at most " + std::to_string(kMaxContextRepositories) + " repositories");
    }
    for (const YAML::Node& item : context) {
      if (!ReadContextEntry(item)) return false;
    }
    return true;
  }

  bool ReadContextEntry(const YAML::Node& item) {
    // Bound once: assigning to a YAML::Node writes into the node it refers to.
    const YAML::Node repo = item.IsMap() ? item["repo"] : item;
    if (Absent(repo)) return Fail(item, "context: each entry names a repository: {repo: sdk}");
    std::string value;
    if (!Text(repo, "context", value)) return false;
    std::optional<std::string> name;
    if (!Resolve(repo, "context", value, name)) return false;
    if (!name) return true;  // the docs repository: always read
    if (std::find(workflow_.context.begin(), workflow_.context.end(), *name) ==
        workflow_.context.end()) {
      workflow_.context.push_back(*name);
    }
    return true;
  }

  // A URL or path made comparable: lowercase, without a trailing "/" or ".git".
  static std::string Comparable(std::string_view url) {
    std::string s = Lower(Trim(url, " \t"));
    while (!s.empty() && s.back() == '/') s.pop_back();
    if (s.ends_with(".git")) s.resize(s.size() - 4);
    while (!s.empty() && s.back() == '/') s.pop_back();
    return s;
  }
  // Whether `url` names the repository `value` ("org/name", or the URL itself).
  static bool UrlNames(std::string_view url, const std::string& value) {
    std::string u = Comparable(url);
    if (u.empty() || value.empty()) return false;
    if (u == value) return true;
    if (u.size() <= value.size() || !u.ends_with(value)) return false;
    char before = u[u.size() - value.size() - 1];
    return before == '/' || before == ':';
  }

  // `*name`: the context repository `value` names; nullopt for the docs
  // repository.
  bool Resolve(const YAML::Node& at, std::string_view key, std::string_view raw,
               std::optional<std::string>& name) {
    std::string_view value = Trim(raw, " \t");
    for (const ContextRepository& repo : context_repositories_) {
      if (repo.name == value) {
        name = repo.name;
        return true;
      }
    }
    if (value.find('/') == std::string_view::npos && value.find(':') == std::string_view::npos) {
      name = std::string(value);  // a name; whether the project has it is the store's to say
      return true;
    }
    std::string wanted = Comparable(value);
    while (!wanted.empty() && wanted.front() == '/') wanted.erase(0, 1);
    if (UrlNames(docs_repository_, wanted)) {
      name.reset();
      return true;
    }
    for (const ContextRepository& repo : context_repositories_) {
      if (UrlNames(repo.repository, wanted)) {
        name = repo.name;
        return true;
      }
    }
    return Fail(at, std::string(key) + ": " + Quote(value) +
                        " is none of the project's context repositories (add it with "
                        "`docwright project context add`, or name one)");
  }

  Workflow& workflow_;
  int first_line_;
  const std::vector<ContextRepository>& context_repositories_;
  std::string_view docs_repository_;
  FileError error_;
};

// The workflow of a file that cannot be used: its name, path and why.
Workflow Refused(std::string name, std::string_view path, const std::string& error) {
  Workflow w;
  w.source = WorkflowSource::kFile;
  w.name = std::move(name);
  w.file_path = OneLogLine(path, git::kMaxPathBytes);
  // Shown in listings and terminals: one printable line, whatever the file
  // or the checks quoted from it.
  w.error = OneLogLine(error, 1000);
  return w;
}

}  // namespace

Workflow ParseWorkflowFile(std::string_view path, std::string_view content,
                           const std::vector<ContextRepository>& context_repositories,
                           std::string_view docs_repository) {
  // A name that is no valid name is still shown: made printable and short.
  std::string name = OneLogLine(Stem(path), 4 * kMaxWorkflowNameChars);
  if (Status s = CheckWorkflowName(Stem(path)); !s.ok()) {
    return Refused(name, path, "the file's name: " + s.message());
  }
  if (content.size() > kMaxWorkflowFileBytes) {
    return Refused(name, path,
                   "the file is over " + std::to_string(kMaxWorkflowFileBytes / 1024) + " KiB (" +
                       std::to_string(content.size()) + " bytes)");
  }
  if (!Utf8Length(content)) return Refused(name, path, "the file is not UTF-8 text");
  if (content.find('\0') != std::string_view::npos) {
    return Refused(name, path, "the file holds NUL bytes: it is not text");
  }
  if (content.starts_with("\xEF\xBB\xBF")) content.remove_prefix(3);

  Parts parts;
  if (auto e = SplitFile(content, parts)) return Refused(name, path, ErrorText(*e));

  Workflow w;
  w.source = WorkflowSource::kFile;
  w.name = name;
  w.file_path = std::string(path);
  SettingsReader reader(w, /*first_line=*/2, context_repositories, docs_repository);
  if (auto e = reader.Read(parts.yaml)) return Refused(name, path, ErrorText(*e));

  w.prompt = std::string(Trim(parts.body, " \t\r\n"));
  if (w.prompt.empty()) {
    return Refused(name, path,
                   ErrorText({parts.body_line,
                              "the prompt (the text after the settings) is "
                              "empty"}));
  }
  w.title = std::string(Trim(w.title, " \t"));
  if (Status s = CheckWorkflow(w); !s.ok()) return Refused(name, path, s.message());
  return w;
}

Result<std::vector<Workflow>> ReadWorkflowFiles(
    const git::Snapshot& snapshot, const std::vector<ContextRepository>& context_repositories,
    std::string_view docs_repository) {
  std::vector<Workflow> out;
  // Stems of the folders read before, and where each was found.
  std::vector<std::pair<std::string, std::string>> seen;
  for (std::string_view folder : kWorkflowFolders) {
    auto entries = snapshot.List(std::string(folder));
    if (!entries.ok()) {
      // No such folder, or not a folder (a file, a link): nothing to read there.
      Code code = entries.status().code();
      if (code == Code::kNotFound || code == Code::kInvalidArgument) continue;
      return entries.status();
    }
    for (const git::DirEntry& entry : *entries) {
      if (out.size() >= kMaxWorkflowsPerProject) return out;
      if (entry.kind == git::EntryKind::kDirectory || entry.kind == git::EntryKind::kSubmodule ||
          !entry.name.ends_with(".md")) {
        continue;
      }
      std::string path = std::string(folder) + "/" + entry.name;
      std::string stem(Stem(entry.name));
      auto earlier =
          std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == stem; });
      if (earlier != seen.end()) {
        out.push_back(Refused(
            OneLogLine(path, git::kMaxPathBytes), path,
            "also defined in " + earlier->second + ", which is the one used; remove one of them"));
        out.back().file_commit = snapshot.commit();
        continue;
      }
      seen.emplace_back(stem, path);
      Workflow w;
      if (Status s = CheckWorkflowName(stem); !s.ok()) {
        // Not read: its path may be no path git::CheckPath takes.
        w = Refused(OneLogLine(stem, 4 * kMaxWorkflowNameChars), path,
                    "the file's name: " + s.message());
      } else if (entry.kind == git::EntryKind::kSymlink) {
        w = Refused(stem, path, "a symbolic link; a workflow file is a file");
      } else {
        auto bytes = snapshot.ReadBytes(path, kMaxWorkflowFileBytes);
        if (bytes.ok()) {
          w = ParseWorkflowFile(path, *bytes, context_repositories, docs_repository);
        } else if (bytes.status().code() == Code::kInvalidArgument) {
          // A file of a valid name that cannot be read is one too large.
          w = Refused(stem, path,
                      "the file is over " + std::to_string(kMaxWorkflowFileBytes / 1024) + " KiB");
        } else {
          return bytes.status();
        }
      }
      w.file_commit = snapshot.commit();
      out.push_back(std::move(w));
    }
  }
  return out;
}

}  // namespace docwright::workflows
