// What the checks report: problems collected by kind, sorted by severity and
// cut at a cap with a count of the rest, and the comparison with the base that
// keeps for repair only what the edits made worse.
#include <algorithm>
#include <cctype>
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

// Whether `needle` occurs in `text`: Knuth-Morris-Pratt, linear in the two
// whatever they hold.
bool Contains(std::string_view text, std::string_view needle) {
  if (needle.empty()) return true;
  std::vector<size_t> fallback(needle.size(), 0);
  for (size_t i = 1, k = 0; i < needle.size(); ++i) {
    while (k > 0 && needle[i] != needle[k]) k = fallback[k - 1];
    if (needle[i] == needle[k]) ++k;
    fallback[i] = k;
  }
  for (size_t i = 0, k = 0; i < text.size(); ++i) {
    while (k > 0 && text[i] != needle[k]) k = fallback[k - 1];
    if (text[i] == needle[k]) ++k;
    if (k == needle.size()) return true;
  }
  return false;
}

// Which lines the edits wrote: a line of the new text whose content the old text
// does not have. Files are read once, each line judged once.
class TouchedLines {
 public:
  // `sources`: the path a moved file had in the base. Looking for a line inside
  // the old text spends from `budget`.
  TouchedLines(const git::Workspace& now, const git::Snapshot& base,
               const std::map<std::string, std::string>& sources, Budget& budget)
      : now_(now), was_(base), sources_(sources), budget_(budget) {}

  // Whether the edits wrote the line of `p`. A line the old text has, as it is
  // or spaces aside (re-indented), is not written. With `moved`, neither is a
  // line whose words, spaces aside, the old text holds anywhere (a paragraph
  // re-wrapped, a JSON file re-formatted): asked only for a problem the base
  // had, where the answer decides between a note and a repeated request, so
  // when that search cannot be paid for the line counts as not written.
  bool Written(const Problem& p, bool moved) {
    if (p.line <= 0) return false;
    Entry& e = Load(p.path);
    if (static_cast<size_t>(p.line) > e.lines.size()) return false;
    Line& line = e.lines[p.line - 1];
    if (line.in_old_lines) return false;
    if (!moved) return true;
    if (!line.searched) {
      line.searched = true;
      std::string said = Squeezed(line.text);
      line.in_old_text = !budget_.Spend((said.size() + e.old_squeezed.size()) / 64 + 1) ||
                         Contains(e.old_squeezed, said);
    }
    return !line.in_old_text;
  }

 private:
  struct Line {
    std::string_view text;
    bool in_old_lines = false;  // as it is, or spaces aside
    bool searched = false;
    bool in_old_text = false;  // spaces aside, anywhere in the old text
  };
  struct Entry {
    std::string now_text, old_text, old_squeezed;
    std::vector<Line> lines;
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
    std::unordered_set<std::string> old_lines;
    for (size_t pos = 0; pos < e.old_text.size();) {
      old_lines.insert(Squeezed(LineFrom(e.old_text, pos, &pos)));
    }
    for (size_t pos = 0; pos < e.now_text.size();) {
      std::string_view text = LineFrom(e.now_text, pos, &pos);
      std::string said = Squeezed(text);
      e.lines.push_back(Line{text, said.empty() || old_lines.count(said) > 0});
    }
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
    if (was_there) {
      old = p.kind == ProblemKind::kNavigation || !touched.Written(p, /*moved=*/true);
    } else if (!base_whole) {
      // Not found in a base checked only in part: it may be old all the same,
      // unless it sits on a line the edits wrote.
      old = p.line > 0 && files.base().IsFile(p.path) && !touched.Written(p, /*moved=*/false);
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
    if (it != note_keys.end() && it->second > 0 && !touched.Written(p, /*moved=*/true)) {
      --it->second;
      continue;  // an old remark on style is not worth repeating
    }
    out.notes.Add(std::move(p));
  }
  return out;
}

std::vector<Problem> Problems::Take(size_t max, CheckReport* report) {
  std::stable_sort(list_.begin(), list_.end(), [&](const Problem& a, const Problem& b) {
    if (report && a.kind != b.kind) return a.kind < b.kind;
    return std::tie(a.path, a.line) < std::tie(b.path, b.line);
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
