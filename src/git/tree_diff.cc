#include "git/tree_diff.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "git/libgit2.h"

namespace docwright::git {
namespace {

// One side of a changed path: absent when `mode` is 0.
struct Side {
  std::string path;
  git_oid id{};
  git_filemode_t mode = static_cast<git_filemode_t>(0);
  bool present() const { return mode != 0; }
};

struct FileChange {
  Side before, after;
  const std::string& path() const { return after.present() ? after.path : before.path; }
};

// The comparison of two trees: what changed, within the limits. Without
// recursion (a branch can nest folders thousands deep): folders that differ wait
// on a stack by id, so at most two trees are held at once, and the paths that
// wait are bounded in bytes.
class Comparison {
 public:
  Comparison(git_repository* repo, WorkBudget* budget) : repo_(repo), budget_(budget) {}

  Status Run(const git_tree* old_tree, const git_tree* new_tree) {
    if (Status s = Compare(old_tree, new_tree, ""); !s.ok() || stopped()) return s;
    while (!pending_.empty()) {
      Folder f = std::move(pending_.back());
      pending_.pop_back();
      pending_bytes_ -= f.prefix.size() + sizeof(Folder);
      TreePtr a, b;
      if (f.a) {
        auto t = Load(*f.a, f.prefix);
        if (!t.ok()) return t.status();
        a = std::move(*t);
      }
      if (f.b) {
        auto t = Load(*f.b, f.prefix);
        if (!t.ok()) return t.status();
        b = std::move(*t);
      }
      if (Status s = Compare(a.get(), b.get(), f.prefix); !s.ok() || stopped()) return s;
    }
    return Status();
  }

  // Why the comparison stopped short of the end ("" if it did not).
  const std::string& stopped_because() const { return stopped_because_; }
  std::vector<FileChange>& changes() { return changes_; }

 private:
  // A folder on either side or both that differs, waiting to be compared.
  struct Folder {
    std::string prefix;  // "dir/"
    std::optional<git_oid> a, b;
  };
  // What the paths waiting and the paths changed may hold; past either, the
  // changes are too many to show.
  static constexpr size_t kMaxPathBytesHeld = 32u << 20;

  bool stopped() const { return !stopped_because_.empty(); }
  void Stop(std::string why) {
    if (stopped_because_.empty()) stopped_because_ = std::move(why);
  }

  Result<TreePtr> Load(const git_oid& id, const std::string& prefix) {
    size_t size = 0;
    auto tree = LookupTree(repo_, id, "the folder " + prefix.substr(0, prefix.size() - 1), &size);
    if (!tree.ok()) return tree;
    if (budget_ && !budget_->Charge(WorkBudget::Meter::kBytesRead, size)) {
      return budget_->status();
    }
    return tree;
  }

  // Compares `a` with `b` (either may be null) under `prefix` ("" or "dir/").
  Status Compare(const git_tree* a, const git_tree* b, const std::string& prefix) {
    if (a && b && git_oid_equal(git_tree_id(a), git_tree_id(b))) return Status();
    if (a) {
      for (size_t i = 0, n = git_tree_entrycount(a); i < n; ++i) {
        const git_tree_entry* ea = git_tree_entry_byindex(a, i);
        const git_tree_entry* eb = b ? git_tree_entry_byname(b, git_tree_entry_name(ea)) : nullptr;
        if (Status s = Entry(ea, eb, prefix); !s.ok() || stopped()) return s;
      }
    }
    if (b) {
      for (size_t i = 0, n = git_tree_entrycount(b); i < n; ++i) {
        const git_tree_entry* eb = git_tree_entry_byindex(b, i);
        if (a && git_tree_entry_byname(a, git_tree_entry_name(eb))) continue;  // compared above
        if (Status s = Entry(nullptr, eb, prefix); !s.ok() || stopped()) return s;
      }
    }
    return Status();
  }

  // One name, on either side or both.
  Status Entry(const git_tree_entry* ea, const git_tree_entry* eb, const std::string& prefix) {
    if (budget_ && !budget_->Charge(WorkBudget::Meter::kEntries, 1)) return budget_->status();
    if (ea && eb && git_tree_entry_filemode(ea) == git_tree_entry_filemode(eb) &&
        git_oid_equal(git_tree_entry_id(ea), git_tree_entry_id(eb))) {
      return Status();  // the same: nothing below differs
    }
    const char* name = git_tree_entry_name(ea ? ea : eb);
    if (prefix.size() + std::strlen(name) + 1 > kMaxPathBytes) {
      Stop("a path is longer than " + std::to_string(kMaxPathBytes) + " bytes");
      return Status();
    }
    const std::string path = prefix + name;
    bool a_tree = ea && git_tree_entry_filemode(ea) == GIT_FILEMODE_TREE;
    bool b_tree = eb && git_tree_entry_filemode(eb) == GIT_FILEMODE_TREE;
    if (a_tree || b_tree) {
      Folder f{path + "/", std::nullopt, std::nullopt};
      if (a_tree) f.a = *git_tree_entry_id(ea);
      if (b_tree) f.b = *git_tree_entry_id(eb);
      pending_bytes_ += f.prefix.size() + sizeof(Folder);
      pending_.push_back(std::move(f));
    }
    // What is not a folder on each side is a file (or link, or submodule).
    FileChange change;
    if (ea && !a_tree) change.before = {path, *git_tree_entry_id(ea), git_tree_entry_filemode(ea)};
    if (eb && !b_tree) change.after = {path, *git_tree_entry_id(eb), git_tree_entry_filemode(eb)};
    if (change.before.present() || change.after.present()) {
      changed_bytes_ += path.size() + sizeof(FileChange);
      changes_.push_back(std::move(change));
    }
    if (changes_.size() > kMaxDiffFiles || changed_bytes_ + pending_bytes_ > kMaxPathBytesHeld) {
      Stop("more than " + std::to_string(kMaxDiffFiles) + " files changed");
    }
    return Status();
  }

  git_repository* repo_;
  WorkBudget* budget_;
  std::vector<FileChange> changes_;
  std::vector<Folder> pending_;
  size_t pending_bytes_ = 0, changed_bytes_ = 0;
  std::string stopped_because_;
};

// A file deleted and one added with the same content and kind: a rename, as git
// shows it.
void PairRenames(std::vector<FileChange>& changes) {
  std::multimap<std::string, size_t> deleted;  // by blob id and mode
  auto key = [](const Side& s) {
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof hex, &s.id);
    return std::string(hex) + std::to_string(s.mode);
  };
  for (size_t i = 0; i < changes.size(); ++i) {
    if (changes[i].before.present() && !changes[i].after.present()) {
      deleted.emplace(key(changes[i].before), i);
    }
  }
  std::vector<bool> gone(changes.size(), false);
  for (FileChange& c : changes) {
    if (c.before.present() || !c.after.present()) continue;
    auto it = deleted.find(key(c.after));
    if (it == deleted.end()) continue;
    c.before = changes[it->second].before;
    gone[it->second] = true;
    deleted.erase(it);
  }
  size_t kept = 0;
  for (size_t i = 0; i < changes.size(); ++i) {
    if (gone[i]) continue;
    if (kept != i) changes[kept] = std::move(changes[i]);
    ++kept;
  }
  changes.resize(kept);
  std::sort(changes.begin(), changes.end(),
            [](const FileChange& x, const FileChange& y) { return x.path() < y.path(); });
}

struct PatchSink {
  DiffText* out;
  size_t max_bytes;
  std::string file_lines;  // "--- a/x\n+++ b/x\n": written before the first hunk
};

// Appends `text` if it fits; else marks the diff cut.
bool Append(PatchSink& sink, const std::string& text) {
  if (sink.out->patch.size() + text.size() > sink.max_bytes) {
    sink.out->truncated = true;
    return false;
  }
  sink.out->patch += text;
  return true;
}

int AppendLine(const git_diff_delta*, const git_diff_hunk*, const git_diff_line* line,
               void* payload) {
  auto* sink = static_cast<PatchSink*>(payload);
  std::string& patch = sink->out->patch;
  // The header is written from the modes (Header); libgit2's from blobs has none.
  if (line->origin == GIT_DIFF_LINE_FILE_HDR) return 0;
  if (line->origin == GIT_DIFF_LINE_HUNK_HDR && !sink->file_lines.empty()) {
    if (!Append(*sink, sink->file_lines)) return 1;
    sink->file_lines.clear();
  }
  bool prefixed = line->origin == GIT_DIFF_LINE_CONTEXT || line->origin == GIT_DIFF_LINE_ADDITION ||
                  line->origin == GIT_DIFF_LINE_DELETION;
  if (patch.size() + line->content_len + 1 > sink->max_bytes) {
    sink->out->truncated = true;
    return 1;  // stops the walk
  }
  if (prefixed) patch.push_back(line->origin);
  patch.append(line->content, line->content_len);
  return 0;
}

bool IsBlob(const Side& s) {
  return s.mode == GIT_FILEMODE_BLOB || s.mode == GIT_FILEMODE_BLOB_EXECUTABLE ||
         s.mode == GIT_FILEMODE_LINK;
}

// The size of a side's blob, from the object header; 0 if absent or not a blob.
size_t SizeOf(git_odb* odb, const Side& s) {
  if (!IsBlob(s)) return 0;
  size_t size = 0;
  git_object_t type;
  return git_odb_read_header(&size, &type, odb, &s.id) == 0 ? size : 0;
}

Result<BlobPtr> LoadBlob(git_repository* repo, const Side& s) {
  if (!IsBlob(s)) return BlobPtr();
  git_blob* b = nullptr;
  int rc = git_blob_lookup(&b, repo, &s.id);
  if (rc != 0) return Fail("cannot read " + s.path, rc);
  return BlobPtr(b);
}

std::string Mode(const Side& s) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%06o", static_cast<unsigned>(s.mode));
  return buf;
}

// The lines git starts a file's diff with: its paths, and what became of its
// mode (new, deleted, changed).
std::string Header(const FileChange& c) {
  std::string h = "diff --git a/" + (c.before.present() ? c.before.path : c.after.path) + " b/" +
                  (c.after.present() ? c.after.path : c.before.path) + "\n";
  if (!c.before.present()) {
    h += "new file mode " + Mode(c.after) + "\n";
  } else if (!c.after.present()) {
    h += "deleted file mode " + Mode(c.before) + "\n";
  } else if (c.before.mode != c.after.mode) {
    h += "old mode " + Mode(c.before) + "\nnew mode " + Mode(c.after) + "\n";
  }
  return h;
}

// A submodule side as git shows it: the commit it names.
std::string SubprojectLines(const FileChange& c) {
  auto line = [](char sign, const Side& s) {
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof hex, &s.id);
    return std::string(1, sign) + "Subproject commit " + hex + "\n";
  };
  std::string out;
  if (c.before.mode == GIT_FILEMODE_COMMIT) out += line('-', c.before);
  if (c.after.mode == GIT_FILEMODE_COMMIT) out += line('+', c.after);
  return out;
}

}  // namespace

Result<DiffText> DiffTrees(git_repository* repo, const git_tree* old_tree, const git_tree* new_tree,
                           size_t max_bytes, WorkBudget* budget) {
  Comparison comparison(repo, budget);
  if (Status s = comparison.Run(old_tree, new_tree); !s.ok()) return s;
  DiffText out;
  if (!comparison.stopped_because().empty()) {
    out.patch = "[the changes are not shown: " + comparison.stopped_because() + "]\n";
    out.truncated = true;
    return out;
  }
  std::vector<FileChange>& changes = comparison.changes();
  PairRenames(changes);
  for (const FileChange& c : changes) {
    out.files.push_back(c.path());
    DiffFile& f = out.changes.emplace_back();
    f.path = c.path();
    if (!c.before.present()) {
      f.kind = DiffFile::Kind::kAdded;
    } else if (!c.after.present()) {
      f.kind = DiffFile::Kind::kDeleted;
    } else if (c.before.path != c.after.path) {
      f.kind = DiffFile::Kind::kRenamed;
      f.from = c.before.path;
    }
  }

  git_odb* raw_odb = nullptr;
  if (git_repository_odb(&raw_odb, repo) != 0) return Fail("cannot read the objects", -1);
  OdbPtr odb(raw_odb);
  PatchSink sink{&out, max_bytes};
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  for (size_t i = 0; i < changes.size(); ++i) {
    const FileChange& c = changes[i];
    size_t before = SizeOf(odb.get(), c.before), after = SizeOf(odb.get(), c.after);
    if (budget && !budget->Charge(WorkBudget::Meter::kBytesRead,
                                  std::min(before, kMaxDiffFileBytes + 1) +
                                      std::min(after, kMaxDiffFileBytes + 1))) {
      return budget->status();
    }
    bool renamed = c.before.present() && c.after.present() && c.before.path != c.after.path;
    if (renamed) {
      // Only a file moved unchanged is paired (PairRenames).
      if (!Append(sink, Header(c) + "similarity index 100%\nrename from " + c.before.path +
                            "\nrename to " + c.after.path + "\n"))
        break;
      continue;
    }
    if ((c.before.present() && !IsBlob(c.before)) || (c.after.present() && !IsBlob(c.after))) {
      if (!Append(sink, Header(c) + SubprojectLines(c))) break;
      continue;
    }
    if (before > kMaxDiffFileBytes || after > kMaxDiffFileBytes) {
      if (!Append(sink, Header(c) + "large file changed: " + std::to_string(before) +
                            " bytes before, " + std::to_string(after) +
                            " bytes after; not shown\n"))
        break;
      continue;
    }
    if (!Append(sink, Header(c))) break;
    sink.file_lines =
        (c.before.present() ? "--- a/" + c.before.path : std::string("--- /dev/null")) + "\n" +
        (c.after.present() ? "+++ b/" + c.after.path : std::string("+++ /dev/null")) + "\n";
    auto old_blob = LoadBlob(repo, c.before);
    if (!old_blob.ok()) return old_blob.status();
    auto new_blob = LoadBlob(repo, c.after);
    if (!new_blob.ok()) return new_blob.status();
    git_patch* p = nullptr;
    int rc = git_patch_from_blobs(
        &p, old_blob->get(), c.before.present() ? c.before.path.c_str() : nullptr, new_blob->get(),
        c.after.present() ? c.after.path.c_str() : nullptr, &opts);
    if (rc != 0) return Fail("cannot compare " + c.path(), rc);
    PatchPtr patch(p);
    size_t additions = 0, deletions = 0;
    if (git_patch_line_stats(nullptr, &additions, &deletions, patch.get()) == 0) {
      out.changes[i].additions = static_cast<int64_t>(additions);
      out.changes[i].deletions = static_cast<int64_t>(deletions);
    }
    rc = git_patch_print(patch.get(), AppendLine, &sink);
    if (out.truncated) break;
    if (rc != 0) return Fail("cannot print the diff", rc);
  }
  return out;
}

std::string_view DiffFile::KindName(Kind kind) {
  switch (kind) {
    case Kind::kAdded:
      return "added";
    case Kind::kDeleted:
      return "deleted";
    case Kind::kRenamed:
      return "renamed";
    case Kind::kModified:
      break;
  }
  return "modified";
}

}  // namespace docwright::git
