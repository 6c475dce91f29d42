// What the checks report: problems collected by kind, sorted by severity and
// cut at a cap with a count of the rest, and the comparison with the base that
// keeps for repair only what the edits made worse.
#include <algorithm>
#include <cctype>
#include <functional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "docs/internal.h"

namespace docwright::docs {
namespace {

// "broken links", for a count of them.
std::string_view Plural(ProblemKind kind) {
  switch (kind) {
    case ProblemKind::kNavigation:
      return "navigation entries";
    case ProblemKind::kRemoved:
      return "links to removed pages";
    case ProblemKind::kSyntax:
      return "syntax errors";
    case ProblemKind::kLink:
      return "broken links";
    case ProblemKind::kImport:
      return "broken imports";
    case ProblemKind::kAnchor:
      return "broken anchors";
    case ProblemKind::kImage:
      return "broken images";
    case ProblemKind::kRemark:
      break;
  }
  return "remarks";
}

std::string Counted(size_t n, ProblemKind kind) {
  return std::to_string(n) + " " + std::string(n == 1 ? ToString(kind) : Plural(kind));
}

// Counts `p` in `counts` (kept in the order kinds come) and its file in `files`.
void Count(std::vector<KindCount>& counts,
           std::set<std::pair<ProblemKind, std::string_view>>& files, const Problem& p) {
  if (counts.empty() || counts.back().kind != p.kind) counts.push_back({p.kind, 0, 0});
  ++counts.back().problems;
  if (files.emplace(p.kind, p.path).second) ++counts.back().files;
}

// The problem's identity across the base and the edits, whatever line it is on:
// its kind, its file and what it names; for a problem that names nothing, its
// message with the line numbers it names blurred (they move when lines are
// added above).
std::string KeyOf(const Problem& p) {
  std::string key = std::to_string(static_cast<int>(p.kind)) + '\n' + p.path + '\n';
  if (!p.subject.empty()) return key + p.subject;
  const std::string& m = p.message;
  for (size_t i = 0; i < m.size();) {
    if (m.compare(i, 5, "line ") == 0) {
      key += "line ";
      i += 5;
      size_t digits = i;
      while (i < m.size() && std::isdigit(static_cast<unsigned char>(m[i]))) ++i;
      if (i > digits) key += '#';
      continue;
    }
    key += m[i++];
  }
  return key;
}

// `text` without ASCII whitespace: what a line says, however it is indented,
// wrapped or spaced.
std::string Squeezed(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') out += c;
  }
  return out;
}

// Longer lines are compared whole: what they say is not looked for inside the
// old text.
constexpr size_t kMaxMovedLineBytes = 4096;

// Which lines the edits wrote: a line of the new text whose content the old text
// does not have, neither as a line nor, spaces aside, as a part of its text (a
// line re-indented, a paragraph re-wrapped, a JSON file re-formatted say what
// they said). Files are read once.
class TouchedLines {
 public:
  // `sources`: the path a moved file had in the base. Looking for a line inside
  // the old text spends from `budget`; once it is spent, lines are compared
  // whole.
  TouchedLines(const git::Workspace& now, const git::Snapshot& base,
               const std::map<std::string, std::string>& sources, Budget& budget)
      : now_(now), was_(base), sources_(sources), budget_(budget) {}

  bool Touched(const Problem& p) {
    if (p.line <= 0) return false;
    Entry& e = Load(p.path);
    if (static_cast<size_t>(p.line) > e.lines.size()) return false;
    std::string_view line = e.lines[p.line - 1];
    if (e.old_lines.count(line)) return false;
    std::string said = Squeezed(line);
    if (said.empty()) return false;
    if (said.size() > kMaxMovedLineBytes || !budget_.Spend(e.old_squeezed.size() / 64 + 1)) {
      return true;
    }
    // Boyer-Moore with the good-suffix rule: linear in the old text.
    std::boyer_moore_searcher searcher(said.begin(), said.end());
    return std::search(e.old_squeezed.begin(), e.old_squeezed.end(), searcher) ==
           e.old_squeezed.end();
  }

 private:
  struct Entry {
    std::string now_text, old_text, old_squeezed;
    std::vector<std::string_view> lines;
    std::unordered_set<std::string_view> old_lines;
  };
  Entry& Load(const std::string& path) {
    auto [it, fresh] = entries_.try_emplace(path);
    Entry& e = it->second;
    if (!fresh) return e;
    e.now_text = ReadText(now_, path).value_or("");
    git::Workspace was(was_);
    auto source = sources_.find(path);
    e.old_text = ReadText(was, source == sources_.end() ? path : source->second).value_or("");
    e.old_squeezed = Squeezed(e.old_text);
    for (size_t pos = 0; pos < e.now_text.size();)
      e.lines.push_back(LineFrom(e.now_text, pos, &pos));
    for (size_t pos = 0; pos < e.old_text.size();)
      e.old_lines.insert(LineFrom(e.old_text, pos, &pos));
    return e;
  }
  const git::Workspace& now_;
  const git::Snapshot& was_;
  const std::map<std::string, std::string>& sources_;
  Budget& budget_;
  std::unordered_map<std::string, Entry> entries_;
};

// How many times each problem of `list` occurs, by KeyOf.
std::unordered_map<std::string, int> KeyCounts(Problems& list) {
  std::unordered_map<std::string, int> keys;
  for (const Problem& p : list.list()) ++keys[KeyOf(p)];
  return keys;
}

}  // namespace

Findings NewFindings(const git::Workspace& files, const std::map<std::string, std::string>& sources,
                     bool base_whole, Budget& budget, Findings& then, Findings& now) {
  Findings out;
  TouchedLines touched(files, files.base(), sources, budget);
  auto problem_keys = KeyCounts(then.problems);
  for (Problem& p : now.problems.list()) {
    auto it = problem_keys.find(KeyOf(p));
    bool was_there = it != problem_keys.end() && it->second > 0;
    bool old = false;
    if (was_there && p.kind == ProblemKind::kNavigation) {
      old = true;
    } else {
      bool written = touched.Touched(p);
      bool untouched_in_old_file = p.line > 0 && files.base().IsFile(p.path) && !written;
      old = (was_there || (!base_whole && untouched_in_old_file)) && !written;
    }
    if (old) {
      if (was_there) --it->second;
      p.message = "already before these changes: " + p.message;
      out.notes.Add(std::move(p));
    } else {
      out.problems.Add(std::move(p));
    }
  }
  auto note_keys = KeyCounts(then.notes);
  for (Problem& p : now.notes.list()) {
    auto it = note_keys.find(KeyOf(p));
    if (it != note_keys.end() && it->second > 0 && !touched.Touched(p)) {
      --it->second;
      continue;  // an old remark on style is not worth repeating
    }
    out.notes.Add(std::move(p));
  }
  return out;
}

std::vector<Problem> Problems::Take(size_t max, CheckReport* report) {
  std::stable_sort(list_.begin(), list_.end(), [](const Problem& a, const Problem& b) {
    return std::tie(a.kind, a.path, a.line) < std::tie(b.kind, b.path, b.line);
  });
  std::vector<Problem> out;
  std::set<std::tuple<std::string_view, int, std::string_view>> seen;
  std::set<std::pair<ProblemKind, std::string_view>> files, left_files;
  std::vector<KindCount> left;
  for (const Problem& p : list_) {
    if (!seen.emplace(p.path, p.line, p.message).second) continue;
    if (report) Count(report->counts, files, p);
    if (out.size() < max) {
      out.push_back(p);
    } else {
      Count(left, left_files, p);
    }
  }
  if (report && !left.empty()) {
    size_t total = 0;
    std::string parts;
    for (const KindCount& c : left) {
      total += c.problems;
      if (!parts.empty()) parts += ", ";
      parts += Counted(c.problems, c.kind) + " in " + std::to_string(c.files) +
               (c.files == 1 ? " file" : " files");
    }
    report->more_problems = "and " + std::to_string(total) + " more not listed: " + parts;
  }
  return out;
}

std::map<std::string, std::string> MovedFrom(const git::Workspace& files, const Changes& changes) {
  std::map<std::string, std::string> sources;
  std::map<std::string, std::string> deleted_blobs;  // blob -> path
  for (const auto& [path, change] : changes) {
    if (change.kind == git::Change::Kind::kDelete && deleted_blobs.size() < kMaxCheckedFiles) {
      deleted_blobs.emplace(files.base().BlobIdAt(path), path);
    }
  }
  for (const auto& [path, change] : changes) {
    if (change.kind != git::Change::Kind::kCopy) continue;
    auto from = deleted_blobs.find(change.blob);
    if (from != deleted_blobs.end()) sources.emplace(path, from->second);
  }
  // A file moved and then edited is a new file: its source is the one deleted
  // file of the same name, when there is exactly one.
  std::map<std::string_view, std::vector<std::string_view>> deleted_by_name;
  for (const auto& [blob, path] : deleted_blobs) deleted_by_name[Basename(path)].push_back(path);
  for (const auto& [path, change] : changes) {
    if (change.kind == git::Change::Kind::kDelete || sources.count(path) ||
        files.base().IsFile(path)) {
      continue;
    }
    auto same = deleted_by_name.find(Basename(path));
    if (same != deleted_by_name.end() && same->second.size() == 1) {
      sources.emplace(path, std::string(same->second.front()));
    }
  }
  return sources;
}

std::string_view ToString(ProblemKind kind) {
  switch (kind) {
    case ProblemKind::kNavigation:
      return "navigation entry";
    case ProblemKind::kRemoved:
      return "link to a removed page";
    case ProblemKind::kSyntax:
      return "syntax error";
    case ProblemKind::kLink:
      return "broken link";
    case ProblemKind::kImport:
      return "broken import";
    case ProblemKind::kAnchor:
      return "broken anchor";
    case ProblemKind::kImage:
      return "broken image";
    case ProblemKind::kRemark:
      break;
  }
  return "remark";
}

std::string ToText(const Problem& p) {
  if (p.path.empty()) return p.message;
  return p.path + (p.line > 0 ? ":" + std::to_string(p.line) : "") + ": " + p.message;
}

std::string CheckReport::Summary() const {
  size_t total = 0;
  std::string parts;
  for (const KindCount& c : counts) {
    total += c.problems;
    if (!parts.empty()) parts += ", ";
    parts += Counted(c.problems, c.kind);
  }
  if (total == 0) return "";
  return std::to_string(total) + (total == 1 ? " problem: " : " problems: ") + parts;
}

std::vector<std::string> CheckReport::ProblemLines() const {
  std::vector<std::string> lines;
  for (const Problem& p : problems) lines.push_back(ToText(p));
  if (!more_problems.empty()) lines.push_back(more_problems);
  return lines;
}

}  // namespace docwright::docs
