#include "git/tree_diff.h"

#include <algorithm>
#include <map>
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

// The comparison of two trees: what changed, within the limits.
class Comparison {
 public:
  Comparison(git_repository* repo, WorkBudget* budget) : repo_(repo), budget_(budget) {}

  // Compares `a` with `b` (either may be null) under `prefix` ("" or "dir/").
  Status Compare(const git_tree* a, const git_tree* b, const std::string& prefix) {
    if (a && b && git_oid_equal(git_tree_id(a), git_tree_id(b))) return Status();
    if (a) {
      for (size_t i = 0, n = git_tree_entrycount(a); i < n; ++i) {
        const git_tree_entry* ea = git_tree_entry_byindex(a, i);
        const git_tree_entry* eb = b ? git_tree_entry_byname(b, git_tree_entry_name(ea)) : nullptr;
        if (Status s = Entry(ea, eb, prefix); !s.ok() || too_many_) return s;
      }
    }
    if (b) {
      for (size_t i = 0, n = git_tree_entrycount(b); i < n; ++i) {
        const git_tree_entry* eb = git_tree_entry_byindex(b, i);
        if (a && git_tree_entry_byname(a, git_tree_entry_name(eb))) continue;  // compared above
        if (Status s = Entry(nullptr, eb, prefix); !s.ok() || too_many_) return s;
      }
    }
    return Status();
  }

  bool too_many() const { return too_many_; }
  std::vector<FileChange>& changes() { return changes_; }

 private:
  Status Charge() {
    if (budget_ && !budget_->Charge(WorkBudget::Meter::kEntries, 1)) return budget_->status();
    return Status();
  }

  Result<TreePtr> Subtree(const git_tree_entry* e) {
    return LookupTree(repo_, *git_tree_entry_id(e),
                      std::string("the folder ") + git_tree_entry_name(e));
  }

  // One name, on either side or both.
  Status Entry(const git_tree_entry* ea, const git_tree_entry* eb, const std::string& prefix) {
    if (Status s = Charge(); !s.ok()) return s;
    const char* name = git_tree_entry_name(ea ? ea : eb);
    if (ea && eb && git_tree_entry_filemode(ea) == git_tree_entry_filemode(eb) &&
        git_oid_equal(git_tree_entry_id(ea), git_tree_entry_id(eb))) {
      return Status();  // the same: nothing below differs
    }
    const std::string path = prefix + name;
    bool a_tree = ea && git_tree_entry_filemode(ea) == GIT_FILEMODE_TREE;
    bool b_tree = eb && git_tree_entry_filemode(eb) == GIT_FILEMODE_TREE;
    if (a_tree || b_tree) {
      TreePtr ta, tb;
      if (a_tree) {
        auto t = Subtree(ea);
        if (!t.ok()) return t.status();
        ta = std::move(*t);
      }
      if (b_tree) {
        auto t = Subtree(eb);
        if (!t.ok()) return t.status();
        tb = std::move(*t);
      }
      if (Status s = Compare(ta.get(), tb.get(), path + "/"); !s.ok() || too_many_) return s;
    }
    // What is not a folder on each side is a file (or link, or submodule).
    FileChange change;
    if (ea && !a_tree) change.before = {path, *git_tree_entry_id(ea), git_tree_entry_filemode(ea)};
    if (eb && !b_tree) change.after = {path, *git_tree_entry_id(eb), git_tree_entry_filemode(eb)};
    if (!change.before.present() && !change.after.present()) return Status();
    if (changes_.size() >= kMaxDiffFiles) {
      too_many_ = true;
      return Status();
    }
    changes_.push_back(std::move(change));
    return Status();
  }

  git_repository* repo_;
  WorkBudget* budget_;
  std::vector<FileChange> changes_;
  bool too_many_ = false;
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

std::string Header(const FileChange& c) {
  return "diff --git a/" + (c.before.present() ? c.before.path : c.after.path) + " b/" +
         (c.after.present() ? c.after.path : c.before.path) + "\n";
}

}  // namespace

Result<DiffText> DiffTrees(git_repository* repo, const git_tree* old_tree, const git_tree* new_tree,
                           size_t max_bytes, WorkBudget* budget) {
  Comparison comparison(repo, budget);
  if (Status s = comparison.Compare(old_tree, new_tree, ""); !s.ok()) return s;
  DiffText out;
  if (comparison.too_many()) {
    out.patch = "[the changes are not shown: more than " + std::to_string(kMaxDiffFiles) +
                " files changed]\n";
    out.truncated = true;
    return out;
  }
  std::vector<FileChange>& changes = comparison.changes();
  PairRenames(changes);
  for (const FileChange& c : changes) out.files.push_back(c.path());

  git_odb* raw_odb = nullptr;
  if (git_repository_odb(&raw_odb, repo) != 0) return Fail("cannot read the objects", -1);
  OdbPtr odb(raw_odb);
  PatchSink sink{&out, max_bytes};
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  for (const FileChange& c : changes) {
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
    if (!IsBlob(c.before) && !IsBlob(c.after)) {
      if (!Append(sink, Header(c) + "submodule changed\n")) break;
      continue;
    }
    if (before > kMaxDiffFileBytes || after > kMaxDiffFileBytes) {
      if (!Append(sink, Header(c) + "large file changed: " + std::to_string(before) +
                            " bytes before, " + std::to_string(after) +
                            " bytes after; not shown\n"))
        break;
      continue;
    }
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
    rc = git_patch_print(patch.get(), AppendLine, &sink);
    if (out.truncated) break;
    if (rc != 0) return Fail("cannot print the diff", rc);
  }
  return out;
}

}  // namespace docwright::git
