// Internal to git/: the libgit2 side of a Snapshot, shared by the snapshot
// itself, the workspace over it and the mirror that opens it. Not for use
// outside git/.
#pragma once

#include <git2.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/mutex.h"
#include "git/git.h"
#include "git/libgit2.h"

namespace docwright::git {

// The same rule libgit2 applies to stored blobs, so written or moved content is
// judged as the base's is.
inline bool LooksBinary(const std::string& content) {
  return git_blob_data_is_binary(content.data(), content.size());
}

inline bool IsBlobMode(git_filemode_t mode) {
  return mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE;
}

inline EntryKind KindOf(git_filemode_t mode) {
  switch (mode) {
    case GIT_FILEMODE_TREE:
      return EntryKind::kDirectory;
    case GIT_FILEMODE_LINK:
      return EntryKind::kSymlink;
    case GIT_FILEMODE_COMMIT:
      return EntryKind::kSubmodule;
    default:
      return EntryKind::kFile;
  }
}

// A directory argument: "" (also "." or "/") for the root, else a checked path.
inline Result<std::string> CheckDir(const std::string& dir) {
  if (dir.empty() || dir == "." || dir == "/") return std::string();
  return CheckPath(dir);
}

// A mirror's handles for its snapshots: a snapshot's handle is kept when the
// snapshot ends, for the next one (opening a handle reads the repository's
// config and the user's, and its first read the pack indexes: most of a
// snapshot's opening). At most kMaxIdle are kept, and none idle for over
// kMaxIdleTime: a kept handle holds the pack files it read open, removed ones
// included. A kept handle reads what was fetched since (libgit2 reads the pack
// folder again when an object is missing). Thread-safe; a handle is used by one
// snapshot at a time.
class SnapshotHandles {
 public:
  static constexpr size_t kMaxIdle = 4;
  static constexpr std::chrono::seconds kMaxIdleTime{30};

  explicit SnapshotHandles(std::string path) : path_(std::move(path)) {}

  // A kept handle, or one opened now. libgit2's error code if it cannot be
  // opened.
  int Take(RepoPtr* out) EXCLUDES(mu_) {
    std::vector<Idle> expired;  // freed outside the lock
    {
      MutexLock lock(mu_);
      expired = TakeExpired();
      if (!idle_.empty()) {
        *out = std::move(idle_.back().repo);
        idle_.pop_back();
        return 0;
      }
    }
    git_repository* r = nullptr;
    int rc = git_repository_open_bare(&r, path_.c_str());
    out->reset(r);
    return rc;
  }

  // `repo`'s objects must all have been freed.
  void GiveBack(RepoPtr repo) EXCLUDES(mu_) {
    std::vector<Idle> expired;
    MutexLock lock(mu_);
    idle_.push_back(Idle{std::move(repo), std::chrono::steady_clock::now()});
    expired = TakeExpired();
  }

 private:
  struct Idle {
    RepoPtr repo;
    std::chrono::steady_clock::time_point since;
  };
  // The handles idle too long, and the oldest beyond kMaxIdle.
  std::vector<Idle> TakeExpired() REQUIRES(mu_) {
    const auto oldest = std::chrono::steady_clock::now() - kMaxIdleTime;
    size_t n = 0;
    while (n < idle_.size() && (idle_[n].since < oldest || idle_.size() - n > kMaxIdle)) ++n;
    std::vector<Idle> out(std::make_move_iterator(idle_.begin()),
                          std::make_move_iterator(idle_.begin() + n));
    idle_.erase(idle_.begin(), idle_.begin() + n);
    return out;
  }

  const std::string path_;
  Mutex mu_;
  std::vector<Idle> idle_ GUARDED_BY(mu_);  // oldest first
};

// A snapshot's handle on its mirror's repository, given back to the mirror's
// SnapshotHandles when the snapshot ends (after its trees: declared first in
// Snapshot::Impl, it is destroyed last).
class SnapshotRepo {
 public:
  SnapshotRepo() = default;
  SnapshotRepo(RepoPtr repo, std::shared_ptr<SnapshotHandles> from)
      : repo_(std::move(repo)), from_(std::move(from)) {}
  ~SnapshotRepo() { Release(); }
  SnapshotRepo(SnapshotRepo&&) = default;
  SnapshotRepo& operator=(SnapshotRepo&& other) noexcept {
    if (this != &other) {
      Release();
      repo_ = std::move(other.repo_);
      from_ = std::move(other.from_);
    }
    return *this;
  }
  SnapshotRepo(const SnapshotRepo&) = delete;
  SnapshotRepo& operator=(const SnapshotRepo&) = delete;

  git_repository* get() const { return repo_.get(); }
  // The handle is freed, not kept, when the snapshot ends (a read failed
  // through it: it may be what failed).
  void Discard() { from_.reset(); }

 private:
  void Release() {
    if (repo_ && from_) from_->GiveBack(std::move(repo_));
    repo_.reset();
  }

  RepoPtr repo_;
  std::shared_ptr<SnapshotHandles> from_;
};

// A commit's tree, read through libgit2. Used by one turn at a time: its
// directory cache is not locked.
struct Snapshot::Impl {
  ~Impl() {
    if (failed_reads > 0) repo.Discard();
  }

  SnapshotRepo repo;
  TreePtr root;
  // Directories already looked up, by path: reading many files of one folder
  // (a site map reads hundreds) loads its tree once, not once per file.
  // Bounded by count and by bytes: a tree holds its whole object.
  mutable std::map<std::string, TreePtr, std::less<>> trees;
  mutable size_t cached_bytes = 0;
  static constexpr size_t kMaxCachedTrees = 4096;
  static constexpr size_t kMaxCachedTreeBytes = 64u << 20;
  WorkBudget* budget = nullptr;       // the turn's, charged by every primitive below
  mutable uint64_t failed_reads = 0;  // Snapshot::failed_reads

  // Counts `s` if the object database, not the path or the budget, failed it.
  void Note(const Status& s) const {
    if (s.code() == Code::kInternal || s.code() == Code::kUnavailable) ++failed_reads;
  }

  // Takes `amount` from the budget, if any; false once it is spent.
  bool Charge(WorkBudget::Meter meter, uint64_t amount) const {
    return !budget || budget->Charge(meter, amount);
  }
  Status Spent() const { return budget ? budget->status() : Status(); }

  // Loads tree `id` (named `what` in errors): refused over kMaxTreeObjectBytes,
  // and its bytes charged as read. `*size` is set to what holding it costs.
  Result<TreePtr> LoadTree(const git_oid& id, const std::string& what, size_t* size) const {
    auto tree = LookupTree(repo.get(), id, what, size);
    if (!tree.ok()) return tree;
    if (!Charge(WorkBudget::Meter::kBytesRead, *size)) return Spent();
    return tree;
  }

  // The tree of directory `dir` ("" for the root), borrowed from the cache;
  // nullptr (with `*error` set) if there is no such directory.
  const git_tree* DirTree(std::string_view dir, Status* error) const {
    if (dir.empty()) return root.get();
    if (auto it = trees.find(dir); it != trees.end()) return it->second.get();
    size_t slash = dir.rfind('/');
    std::string_view parent_dir = slash == std::string_view::npos ? "" : dir.substr(0, slash);
    std::string name(slash == std::string_view::npos ? dir : dir.substr(slash + 1));
    const git_tree* parent = DirTree(parent_dir, error);
    if (!parent) return nullptr;
    if (!Charge(WorkBudget::Meter::kEntries, 1)) {
      *error = Spent();
      return nullptr;
    }
    const git_tree_entry* e = git_tree_entry_byname(parent, name.c_str());
    if (!e || git_tree_entry_filemode(e) != GIT_FILEMODE_TREE) {
      *error = Status::NotFound("no such file or directory: " + std::string(dir));
      return nullptr;
    }
    size_t size = 0;
    auto t = LoadTree(*git_tree_entry_id(e), "the folder " + std::string(dir), &size);
    if (!t.ok()) {
      *error = t.status();
      return nullptr;
    }
    if (trees.size() >= kMaxCachedTrees || cached_bytes + size > kMaxCachedTreeBytes) {
      trees.clear();  // `parent` is not used past this point
      cached_bytes = 0;
    }
    cached_bytes += size;
    return trees.emplace(std::string(dir), std::move(*t)).first->second.get();
  }

  // The entry at `path`; NotFound if none.
  Result<EntryPtr> Entry(const std::string& path) const {
    size_t slash = path.rfind('/');
    Status error;
    const git_tree* dir = DirTree(
        slash == std::string::npos ? std::string_view() : std::string_view(path).substr(0, slash),
        &error);
    if (!dir) return error;
    const git_tree_entry* e = git_tree_entry_byname(
        dir, slash == std::string::npos ? path.c_str() : path.c_str() + slash + 1);
    if (!e) return Status::NotFound("no such file or directory: " + path);
    git_tree_entry* copy = nullptr;
    if (git_tree_entry_dup(&copy, e) != 0) return Fail("cannot read " + path, -1);
    return EntryPtr(copy);
  }

  // The tree of directory `dir` ("" for the root).
  Result<TreePtr> Tree(const std::string& dir) const {
    if (dir.empty()) {
      git_tree* copy = nullptr;
      if (git_tree_dup(&copy, root.get()) != 0) return Fail("cannot read the root", -1);
      return TreePtr(copy);
    }
    auto entry = Entry(dir);
    if (!entry.ok()) return entry.status();
    if (git_tree_entry_filemode(entry->get()) != GIT_FILEMODE_TREE) {
      return Status::InvalidArgument("not a directory: " + dir);
    }
    size_t size = 0;
    return LoadTree(*git_tree_entry_id(entry->get()), "the folder " + dir, &size);
  }

  // Paths of every non-directory entry under `dir` ("" for the root), files only
  // if `files_only`; at most `limit`, visiting at most `max_visits` entries of
  // any kind, each charged to the budget. Breadth first, so a huge folder deep
  // down cannot hide the files near the top; a folder is loaded when its turn
  // comes (the queue holds ids, not trees), and one repeated under many names
  // is loaded once while the trees kept for that stay under kMaxSeenTreeBytes.
  // A path over kMaxPathBytes or a folder too large to read is passed over.
  // `*cut` says whether the walk stopped before the end or passed anything
  // over; ResourceExhausted only if the budget was spent before anything was
  // found.
  Result<std::vector<std::string>> Leaves(const std::string& dir, size_t limit, bool files_only,
                                          size_t max_visits, bool* cut = nullptr) const {
    auto top = Tree(dir);
    if (!top.ok()) return top.status();
    std::vector<std::string> paths;
    bool stopped = false, passed_over = false;
    struct OidLess {
      bool operator()(const git_oid& a, const git_oid& b) const { return git_oid_cmp(&a, &b) < 0; }
    };
    constexpr size_t kMaxSeenTreeBytes = 32u << 20;
    std::map<git_oid, TreePtr, OidLess> seen;
    size_t seen_bytes = 0;
    // Folders still to read, by prefix and id; bounded by the visits, and in
    // bytes (a path may be 4 KiB).
    std::deque<std::pair<std::string, git_oid>> queue;
    constexpr size_t kMaxQueuedBytes = 16u << 20;
    size_t queued_bytes = 0;
    size_t visits = 0;
    TreePtr current = std::move(*top);
    std::string prefix = dir.empty() ? "" : dir + "/";
    for (;;) {
      const size_t n = current ? git_tree_entrycount(current.get()) : 0;
      for (size_t i = 0; i < n && !stopped; ++i) {
        if (visits == max_visits || !Charge(WorkBudget::Meter::kEntries, 1)) {
          stopped = true;
          break;
        }
        ++visits;
        const git_tree_entry* e = git_tree_entry_byindex(current.get(), i);
        const char* name = git_tree_entry_name(e);
        if (prefix.size() + std::strlen(name) + 1 > kMaxPathBytes) {
          passed_over = true;  // no path check takes it: nothing could read it
          continue;
        }
        git_filemode_t mode = git_tree_entry_filemode(e);
        if (mode == GIT_FILEMODE_TREE) {
          if (queued_bytes > kMaxQueuedBytes) {
            stopped = true;  // folders of long names enough to fill memory
            break;
          }
          queue.emplace_back(prefix + name + "/", *git_tree_entry_id(e));
          queued_bytes += queue.back().first.size();
          continue;
        }
        if (files_only && !IsBlobMode(mode)) continue;
        if (paths.size() >= limit) {
          stopped = true;  // enough
          break;
        }
        paths.push_back(prefix + name);
      }
      if (stopped || queue.empty()) break;
      auto [next_prefix, id] = std::move(queue.front());
      queue.pop_front();
      queued_bytes -= next_prefix.size();
      prefix = std::move(next_prefix);
      if (auto known = seen.find(id); known != seen.end()) {
        git_tree* copy = nullptr;
        if (git_tree_dup(&copy, known->second.get()) != 0) return Fail("cannot read", -1);
        current.reset(copy);
        continue;
      }
      size_t size = 0;
      std::string folder = prefix.substr(0, prefix.size() - 1);
      auto loaded = LoadTree(id, "the folder " + folder, &size);
      if (!loaded.ok()) {
        if (budget && budget->spent()) {
          stopped = true;
          break;
        }
        if (loaded.status().code() != Code::kInvalidArgument) return loaded.status();
        passed_over = true;  // too large to read: its files are not listed
        current.reset();
        continue;
      }
      current = std::move(*loaded);
      git_tree* kept = nullptr;
      if (seen_bytes + size <= kMaxSeenTreeBytes && git_tree_dup(&kept, current.get()) == 0) {
        seen.emplace(id, TreePtr(kept));
        seen_bytes += size;
      }
    }
    if (stopped && paths.empty() && budget && budget->spent()) return Spent();
    if (cut) *cut = stopped || passed_over;
    std::sort(paths.begin(), paths.end());
    return paths;
  }

  // The raw bytes of the blob at `path`, up to `limit`.
  Result<std::string> Raw(const std::string& path, size_t limit, bool* binary) const {
    auto entry = Entry(path);
    if (!entry.ok()) return entry.status();
    git_filemode_t mode = git_tree_entry_filemode(entry->get());
    if (mode == GIT_FILEMODE_TREE) return Status::InvalidArgument(path + " is a directory");
    if (mode == GIT_FILEMODE_LINK) {
      return Status::InvalidArgument(path + " is a symbolic link; links are not followed");
    }
    if (mode == GIT_FILEMODE_COMMIT) {
      return Status::InvalidArgument(path + " is a submodule; submodules are not read");
    }
    return RawById(*git_tree_entry_id(entry->get()), path, limit, binary);
  }

  // The bytes of blob `id` (named `what` in errors), up to `limit`.
  Result<std::string> RawById(const git_oid& id, const std::string& what, size_t limit,
                              bool* binary) const {
    // Check the size from the object header before loading the object.
    git_odb* raw_odb = nullptr;
    if (git_repository_odb(&raw_odb, repo.get()) != 0) return Fail("cannot read " + what, -1);
    OdbPtr odb(raw_odb);
    size_t size = 0;
    git_object_t type;
    int rc = git_odb_read_header(&size, &type, odb.get(), &id);
    if (rc != 0) return Fail("cannot read " + what, rc);
    if (size > limit) {
      return Status::InvalidArgument(what + " is too large to read: " + std::to_string(size) +
                                     " bytes, the limit is " + std::to_string(limit));
    }
    if (!Charge(WorkBudget::Meter::kBytesRead, size)) return Spent();
    git_blob* b = nullptr;
    rc = git_blob_lookup(&b, repo.get(), &id);
    if (rc != 0) return Fail("cannot read " + what, rc);
    BlobPtr blob(b);
    if (binary) *binary = git_blob_is_binary(blob.get());
    return std::string(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                       static_cast<size_t>(git_blob_rawsize(blob.get())));
  }

  // The blob id and executable bit of the regular file at `path`.
  Result<std::pair<git_oid, bool>> FileAt(const std::string& path) const {
    auto entry = Entry(path);
    if (!entry.ok()) return entry.status();
    git_filemode_t mode = git_tree_entry_filemode(entry->get());
    if (!IsBlobMode(mode)) return Status::InvalidArgument(path + " is not a regular file");
    return std::make_pair(*git_tree_entry_id(entry->get()), mode == GIT_FILEMODE_BLOB_EXECUTABLE);
  }
};

}  // namespace docwright::git
