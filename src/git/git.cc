#include "git/git.h"

#include <git2.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <limits>
#include <mutex>

#include "git/file_lock.h"
#include "git/libgit2.h"
#include "git/local_remote.h"
#include "git/remote_session.h"
#include "git/socket_stream.h"

namespace docwright::git {
namespace {

// The same rule libgit2 applies to stored blobs, so written or moved content is
// judged as the base's is.
bool LooksBinary(const std::string& content) {
  return git_blob_data_is_binary(content.data(), content.size());
}

bool IsBlobMode(git_filemode_t mode) {
  return mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE;
}

EntryKind KindOf(git_filemode_t mode) {
  switch (mode) {
    case GIT_FILEMODE_TREE: return EntryKind::kDirectory;
    case GIT_FILEMODE_LINK: return EntryKind::kSymlink;
    case GIT_FILEMODE_COMMIT: return EntryKind::kSubmodule;
    default: return EntryKind::kFile;
  }
}

}  // namespace

namespace {
// A directory argument: "" (also "." or "/") for the root, else a checked path.
Result<std::string> CheckDir(const std::string& dir) {
  if (dir.empty() || dir == "." || dir == "/") return std::string();
  return CheckPath(dir);
}
}  // namespace

// --- Snapshot ----------------------------------------------------------------------

struct Snapshot::Impl {
  RepoPtr repo;
  TreePtr root;
  // Directories already looked up, by path: reading many files of one folder
  // (a site map reads hundreds) loads its tree once, not once per file.
  mutable std::map<std::string, TreePtr, std::less<>> trees;
  static constexpr size_t kMaxCachedTrees = 4096;

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
    const git_tree_entry* e = git_tree_entry_byname(parent, name.c_str());
    if (!e || git_tree_entry_filemode(e) != GIT_FILEMODE_TREE) {
      *error = Status::NotFound("no such file or directory: " + std::string(dir));
      return nullptr;
    }
    git_tree* t = nullptr;
    int rc = git_tree_lookup(&t, repo.get(), git_tree_entry_id(e));
    if (rc != 0) {
      *error = Fail("cannot read " + std::string(dir), rc);
      return nullptr;
    }
    if (trees.size() >= kMaxCachedTrees) trees.clear();
    return trees.emplace(std::string(dir), TreePtr(t)).first->second.get();
  }

  // The entry at `path`; NotFound if none.
  Result<EntryPtr> Entry(const std::string& path) const {
    size_t slash = path.rfind('/');
    Status error;
    const git_tree* dir =
        DirTree(slash == std::string::npos ? std::string_view() : std::string_view(path).substr(0, slash), &error);
    if (!dir) return error;
    const git_tree_entry* e =
        git_tree_entry_byname(dir, slash == std::string::npos ? path.c_str() : path.c_str() + slash + 1);
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
    git_tree* t = nullptr;
    int rc = git_tree_lookup(&t, repo.get(), git_tree_entry_id(entry->get()));
    if (rc != 0) return Fail("cannot read " + dir, rc);
    return TreePtr(t);
  }

  // Paths of every non-directory entry under `dir` ("" for the root), files only
  // if `files_only`; at most `limit`.
  Result<std::vector<std::string>> Leaves(const std::string& dir, size_t limit,
                                          bool files_only) const {
    auto tree = Tree(dir);
    if (!tree.ok()) return tree.status();
    struct Walk {
      std::string prefix;
      size_t limit;
      bool files_only;
      std::vector<std::string> paths;
    } walk{dir.empty() ? "" : dir + "/", limit, files_only, {}};
    int rc = git_tree_walk(
        tree->get(), GIT_TREEWALK_PRE,
        [](const char* root, const git_tree_entry* e, void* payload) -> int {
          auto* w = static_cast<Walk*>(payload);
          git_filemode_t mode = git_tree_entry_filemode(e);
          if (mode == GIT_FILEMODE_TREE || (w->files_only && !IsBlobMode(mode))) return 0;
          if (w->paths.size() >= w->limit) return GIT_EUSER;  // enough: stop
          w->paths.push_back(w->prefix + root + git_tree_entry_name(e));
          return 0;
        },
        &walk);
    if (rc < 0 && rc != GIT_EUSER) return Fail("cannot list " + (dir.empty() ? "the root" : dir), rc);
    std::sort(walk.paths.begin(), walk.paths.end());
    return std::move(walk.paths);
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

Snapshot::Snapshot(std::unique_ptr<Impl> impl, std::string commit)
    : impl_(std::move(impl)), commit_(std::move(commit)) {}
Snapshot::~Snapshot() = default;

Result<FileContent> Snapshot::Read(const std::string& path) const {
  auto p = CheckPath(path);
  if (!p.ok()) return p.status();
  bool binary = false;
  auto raw = impl_->Raw(*p, kMaxReadBytes, &binary);
  if (!raw.ok()) return raw.status();
  if (binary) return FileContent{"", true};
  return FileContent{std::move(*raw), false};
}

Result<std::vector<DirEntry>> Snapshot::List(const std::string& dir) const {
  auto checked = CheckDir(dir);
  if (!checked.ok()) return checked.status();
  const std::string& d = *checked;
  auto tree = impl_->Tree(d);
  if (!tree.ok()) return tree.status();
  std::vector<DirEntry> out;
  size_t n = git_tree_entrycount(tree->get());
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const git_tree_entry* e = git_tree_entry_byindex(tree->get(), i);
    out.push_back(DirEntry{git_tree_entry_name(e), KindOf(git_tree_entry_filemode(e))});
  }
  std::sort(out.begin(), out.end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  return out;
}

Result<std::vector<std::string>> Snapshot::Walk(const std::string& dir, size_t limit) const {
  auto checked = CheckDir(dir);
  if (!checked.ok()) return checked.status();
  return impl_->Leaves(*checked, limit, /*files_only=*/true);
}

std::optional<EntryKind> Snapshot::KindAt(const std::string& path) const {
  auto p = CheckPath(path);
  if (!p.ok()) return std::nullopt;
  auto e = impl_->Entry(*p);
  if (!e.ok()) return std::nullopt;
  return KindOf(git_tree_entry_filemode(e->get()));
}

std::string Snapshot::BlobIdAt(const std::string& path) const {
  auto p = CheckPath(path);
  if (!p.ok()) return "";
  auto file = impl_->FileAt(*p);
  return file.ok() ? Hex(file->first) : "";
}

bool Snapshot::IsFile(const std::string& path) const {
  auto p = CheckPath(path);
  if (!p.ok()) return false;
  auto e = impl_->Entry(*p);
  return e.ok() && IsBlobMode(git_tree_entry_filemode(e->get()));
}

// --- Workspace ---------------------------------------------------------------------

Result<FileContent> Workspace::Read(const std::string& path) const {
  auto p = CheckPath(path);
  if (!p.ok()) return p.status();
  auto it = edits_.find(*p);
  if (it == edits_.end()) return base_.Read(*p);
  const Change& c = it->second;
  switch (c.kind) {
    case Change::Kind::kDelete:
      return Status::NotFound("no such file or directory: " + *p);
    case Change::Kind::kWrite:
      if (LooksBinary(c.content)) return FileContent{"", true};
      return FileContent{c.content, false};
    case Change::Kind::kCopy: {
      auto id = ParseOid(c.blob);
      if (!id.ok()) return id.status();
      bool binary = false;
      auto raw = base_.impl_->RawById(*id, *p, kMaxReadBytes, &binary);
      if (!raw.ok()) return raw.status();
      if (binary) return FileContent{"", true};
      return FileContent{std::move(*raw), false};
    }
  }
  return Status::Internal("unknown change");
}

bool Workspace::IsFile(const std::string& path) const {
  auto p = CheckPath(path);
  if (!p.ok()) return false;
  if (auto it = edits_.find(*p); it != edits_.end()) return it->second.kind != Change::Kind::kDelete;
  return base_.IsFile(*p);
}

Result<std::vector<DirEntry>> Workspace::List(const std::string& dir) const {
  auto checked = CheckDir(dir);
  if (!checked.ok()) return checked.status();
  const std::string& d = *checked;
  std::string prefix = d.empty() ? "" : d + "/";
  auto first_below = edits_.lower_bound(prefix);
  bool edited_below = first_below != edits_.end() && first_below->first.rfind(prefix, 0) == 0;
  std::map<std::string, EntryKind> entries;
  auto base = base_.List(d);
  if (base.ok()) {
    for (auto& e : *base) entries[e.name] = e.kind;
  } else if (!edited_below) {
    return base.status();  // not found, or not a directory
  }
  for (auto e = edits_.lower_bound(prefix); e != edits_.end() && e->first.rfind(prefix, 0) == 0; ++e) {
    std::string rest = e->first.substr(prefix.size());
    size_t slash = rest.find('/');
    std::string name = rest.substr(0, slash);
    bool present = e->second.kind != Change::Kind::kDelete;
    if (slash != std::string::npos) {
      if (present) entries[name] = EntryKind::kDirectory;
    } else if (present) {
      entries[name] = EntryKind::kFile;
    } else {
      entries.erase(name);
    }
  }
  // A directory whose every entry was deleted disappears, as it would in git.
  for (auto it = entries.begin(); it != entries.end();) {
    bool gone = it->second == EntryKind::kDirectory && !HasContent(prefix + it->first);
    it = gone ? entries.erase(it) : std::next(it);
  }
  if (entries.empty() && !d.empty()) return Status::NotFound("no such file or directory: " + d);
  std::vector<DirEntry> out;
  for (auto& [name, kind] : entries) out.push_back(DirEntry{name, kind});
  return out;
}

bool Workspace::HasContent(const std::string& dir) const {
  std::string sub = dir + "/";
  for (auto e = edits_.lower_bound(sub); e != edits_.end() && e->first.rfind(sub, 0) == 0; ++e) {
    if (e->second.kind != Change::Kind::kDelete) return true;  // something put below
  }
  auto leaves = base_.impl_->Leaves(dir, std::numeric_limits<size_t>::max(), /*files_only=*/false);
  if (!leaves.ok()) return false;
  for (const auto& leaf : *leaves) {
    if (edits_.find(leaf) == edits_.end()) return true;  // an entry nobody deleted
  }
  return false;
}

Status Workspace::CheckWritable(const std::string& p) const {
  // Links and submodules are never changed or entered; directories are not
  // files; files are not directories.
  auto kind = base_.KindAt(p);
  if (kind == EntryKind::kSymlink) {
    return Status::InvalidArgument(p + " is a symbolic link; links are not changed");
  }
  if (kind == EntryKind::kSubmodule) {
    return Status::InvalidArgument(p + " is a submodule; submodules are not changed");
  }
  if (List(p).ok()) return Status::InvalidArgument(p + " is a directory");
  for (size_t slash = p.find('/'); slash != std::string::npos; slash = p.find('/', slash + 1)) {
    std::string parent = p.substr(0, slash);
    auto parent_kind = base_.KindAt(parent);
    if (parent_kind == EntryKind::kSymlink || parent_kind == EntryKind::kSubmodule) {
      return Status::InvalidArgument(parent + " is a symbolic link or submodule, not a directory");
    }
    if (IsFile(parent)) return Status::InvalidArgument(parent + " is a file, not a directory");
  }
  return Status();
}

Status Workspace::Write(const std::string& path, std::string content) {
  auto p = CheckPath(path);
  if (!p.ok()) return p.status();
  if (content.size() > kMaxReadBytes) {
    return Status::InvalidArgument("the content is too large: " + std::to_string(content.size()) +
                                   " bytes, the limit is " + std::to_string(kMaxReadBytes));
  }
  Status writable = CheckWritable(*p);
  if (!writable.ok()) return writable;
  // An executable stays executable when rewritten.
  bool executable = false;
  if (auto it = edits_.find(*p); it != edits_.end()) {
    executable = it->second.kind != Change::Kind::kDelete && it->second.executable;
  } else if (auto file = base_.impl_->FileAt(*p); file.ok()) {
    executable = file->second;
  }
  edits_[*p] = Change{Change::Kind::kWrite, std::move(content), "", executable};
  return Status();
}

Status Workspace::Delete(const std::string& path) {
  auto p = CheckPath(path);
  if (!p.ok()) return p.status();
  if (!IsFile(*p)) return Status::NotFound("no such file: " + *p);
  if (base_.IsFile(*p)) {
    edits_[*p] = Change{Change::Kind::kDelete};
  } else {
    edits_.erase(*p);
  }
  return Status();
}

Status Workspace::Move(const std::string& from, const std::string& to) {
  auto f = CheckPath(from);
  if (!f.ok()) return f.status();
  auto t = CheckPath(to);
  if (!t.ok()) return t.status();
  if (*f == *t) return Status();
  if (!IsFile(*f)) return Status::NotFound("no such file: " + *f);
  if (IsFile(*t)) return Status::Conflict(*t + " already exists");
  Change moved;
  if (auto it = edits_.find(*f); it != edits_.end()) {
    moved = it->second;
  } else {
    // A base file moves as the same blob: no size limit, binary or not, mode kept.
    auto file = base_.impl_->FileAt(*f);
    if (!file.ok()) return file.status();
    moved = Change{Change::Kind::kCopy, "", Hex(file->first), file->second};
  }
  Status writable = CheckWritable(*t);
  if (!writable.ok()) return writable;
  edits_[*t] = std::move(moved);
  return Delete(*f);
}

std::map<std::string, Change> Workspace::Changes() const {
  std::map<std::string, Change> out;
  for (const auto& [path, change] : edits_) {
    if (change.kind != Change::Kind::kDelete && base_.IsFile(path)) {
      auto before = base_.impl_->FileAt(path);
      if (change.kind == Change::Kind::kCopy && before.ok() && Hex(before->first) == change.blob &&
          before->second == change.executable) {
        continue;  // moved back where it was
      }
      if (change.kind == Change::Kind::kWrite) {
        auto bytes = base_.impl_->Raw(path, kMaxReadBytes, nullptr);
        if (bytes.ok() && *bytes == change.content) continue;  // written back as it was
      }
    }
    out.emplace(path, change);
  }
  return out;
}

// --- Mirror -----------------------------------------------------------------------

namespace {

// A mutex that can be waited on with a timeout, made of a mutex and a condition
// variable. Not std::timed_mutex: libstdc++ implements its timed wait with
// pthread_mutex_clocklock, which ThreadSanitizer (clang 14) does not know, so
// every unlock looked like one of an unlocked mutex.
class TimedMutex {
 public:
  void lock() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return !held_; });
    held_ = true;
  }
  bool try_lock() {
    std::lock_guard lock(mu_);
    if (held_) return false;
    held_ = true;
    return true;
  }
  template <typename Rep, typename Period>
  bool try_lock_for(std::chrono::duration<Rep, Period> d) {
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, d, [&] { return !held_; })) return false;
    held_ = true;
    return true;
  }
  void unlock() {
    {
      std::lock_guard lock(mu_);
      held_ = false;
    }
    cv_.notify_one();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool held_ = false;
};

}  // namespace

struct Mirror::Impl {
  // Serialises the methods; timed, so that one stuck behind another's transfer
  // gives up after the lock timeout instead of waiting with it.
  TimedMutex mu;
  std::string path;
  std::string url;
  RepoPtr repo;
  // Replaced between operations without waiting for one under way; each
  // operation works with a copy.
  mutable std::mutex settings_mu;
  Credentials credentials;
  TransferLimits limits;

  Credentials CredentialsNow() const {
    std::lock_guard lock(settings_mu);
    return credentials;
  }
  TransferLimits LimitsNow() const {
    std::lock_guard lock(settings_mu);
    return limits;
  }

  // The mirror for one operation: this process's turn, then (with `files`) the
  // lock shared with other processes, within the lock timeout in all.
  struct Hold {
    std::unique_lock<TimedMutex> guard;
    std::optional<FileLock> file;
  };
  Result<Hold> Take(const TransferLimits& limits, const std::function<bool()>& cancelled,
                    bool files) {
    auto until = std::chrono::steady_clock::now() + limits.lock_timeout;
    Hold hold{std::unique_lock<TimedMutex>(mu, std::defer_lock), std::nullopt};
    // In slices, to ask the cancel check between them.
    while (!hold.guard.try_lock_for(std::chrono::milliseconds(100))) {
      if (cancelled && cancelled()) return Status::Unavailable("cancelled");
      if (std::chrono::steady_clock::now() >= until) {
        return Status::Unavailable("the mirror is busy: another operation on it has run for over " +
                                   FormatSeconds(limits.lock_timeout));
      }
    }
    if (files) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          until - std::chrono::steady_clock::now());
      auto file = FileLock::Acquire(LockPath(), std::max(left, std::chrono::milliseconds(0)),
                                    cancelled);
      if (!file.ok()) return file.status();
      hold.file.emplace(std::move(*file));
    }
    return hold;
  }

  Result<RemotePtr> Remote() {
    // Anonymous: the URL (which may carry credentials) is never written to config.
    git_remote* r = nullptr;
    int rc = git_remote_create_anonymous(&r, repo.get(), url.c_str());
    if (rc != 0) return RemoteFail("invalid remote URL", rc);
    return RemotePtr(r);
  }
  std::string LockPath() const { return path + "/docwright.lock"; }

  // Removes lock files libgit2 left for `refs` (and packed-refs) when a process
  // died while updating them. Call only while holding the mirror's FileLock:
  // then no one else can be writing them, and a lock file there is stale.
  void RemoveStaleLocks(const std::vector<std::string>& refs) const {
    std::error_code ec;
    for (const std::string& ref : refs) std::filesystem::remove(path + "/" + ref + ".lock", ec);
    std::filesystem::remove(path + "/packed-refs.lock", ec);
  }

};

Mirror::Mirror(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Mirror::~Mirror() = default;

Result<std::unique_ptr<Mirror>> Mirror::Open(const std::string& path, const std::string& remote_url,
                                             Credentials credentials, TransferLimits limits) {
  if (Status ready = EnsureLibrary(); !ready.ok()) return ready;
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->url = remote_url;
  impl->credentials = std::move(credentials);
  impl->limits = limits;
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) return Status::Unavailable("cannot create " + path + ": " + ec.message());
  auto lock = FileLock::Acquire(impl->LockPath(), limits.lock_timeout);
  if (!lock.ok()) return lock.status();
  git_repository* r = nullptr;
  int rc = git_repository_open_bare(&r, path.c_str());
  if (rc == GIT_ENOTFOUND) rc = git_repository_init(&r, path.c_str(), /*is_bare=*/1);
  if (rc != 0) return Fail("cannot open the mirror at " + path, rc);
  impl->repo.reset(r);
  return std::unique_ptr<Mirror>(new Mirror(std::move(impl)));
}

Result<std::string> Mirror::FetchBranch(const std::string& branch) {
  auto heads = FetchBranches({branch});
  if (!heads.ok()) return heads.status();
  if (!heads->at(branch)) {
    return Status::NotFound("the remote has no branch " + branch +
                            " (is the repository empty, or the branch misnamed?)");
  }
  return *heads->at(branch);
}

Result<std::map<std::string, std::optional<std::string>>> Mirror::FetchBranches(
    const std::vector<std::string>& branches, const std::function<bool()>& cancelled) {
  for (const std::string& branch : branches) {
    Status valid = CheckBranch(branch);
    if (!valid.ok()) return valid;
  }
  const TransferLimits limits = impl_->LimitsNow();
  auto hold = impl_->Take(limits, cancelled, /*files=*/true);
  if (!hold.ok()) return Status::Unavailable("cannot fetch: " + hold.status().message());
  if (cancelled && cancelled()) return Status::Unavailable("the fetch was cancelled");
  // Opened for each use: a handle kept open would not notice the remote being
  // repacked, pruned or replaced.
  if (auto local = LocalRemote::Open(impl_->url)) {
    auto heads = local->Heads(impl_->repo.get(), branches);
    if (!heads.ok()) return heads.status();
    if (*heads) return std::move(**heads);
  }
  // Before the remote, so that it outlives the remote's connections.
  TransferScope scope(limits, cancelled);
  auto remote = impl_->Remote();
  if (!remote.ok()) return remote.status();
  std::vector<std::string> specs, tracking;
  for (const std::string& branch : branches) {
    specs.push_back("+refs/heads/" + branch + ":refs/remotes/origin/" + branch);
    tracking.push_back("refs/remotes/origin/" + branch);
  }
  impl_->RemoveStaleLocks(tracking);
  std::vector<char*> spec_ptrs;
  for (std::string& spec : specs) spec_ptrs.push_back(spec.data());
  git_strarray refspecs{spec_ptrs.data(), spec_ptrs.size()};
  git_fetch_options opts = GIT_FETCH_OPTIONS_INIT;
  RemoteSession session{impl_->CredentialsNow(), impl_->url, &cancelled, &scope};
  opts.callbacks = Callbacks(&session);
  opts.prune = GIT_FETCH_PRUNE;
  opts.update_fetchhead = 0;  // nobody reads FETCH_HEAD: not writing it saves a file per fetch
  opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
  git_error_clear();
  int rc = git_remote_fetch(remote->get(), &refspecs, &opts, nullptr);
  std::string names = branches.empty() ? "" : branches.front();
  for (size_t i = 1; i < branches.size(); ++i) names += " and " + branches[i];
  if (rc != 0) return SessionFail(session, "cannot fetch " + names + " from the remote", rc);
  std::map<std::string, std::optional<std::string>> heads;
  for (const std::string& branch : branches) {
    git_oid head;
    std::string ref = "refs/remotes/origin/" + branch;
    rc = git_reference_name_to_id(&head, impl_->repo.get(), ref.c_str());
    if (rc == GIT_ENOTFOUND) {
      heads[branch] = std::nullopt;
    } else if (rc != 0) {
      return Fail("cannot resolve " + branch, rc);
    } else {
      heads[branch] = Hex(head);
    }
  }
  return heads;
}

void Mirror::Forget(const std::string& branch) {
  if (!CheckBranch(branch).ok()) return;
  auto hold = impl_->Take(impl_->LimitsNow(), {}, /*files=*/true);
  if (!hold.ok()) return;  // the ref stays: it costs time later, nothing else
  git_reference* ref = nullptr;
  std::string name = "refs/remotes/origin/" + branch;
  impl_->RemoveStaleLocks({name});
  if (git_reference_lookup(&ref, impl_->repo.get(), name.c_str()) == 0) {
    RefPtr owned(ref);
    git_reference_delete(owned.get());
  }
}

void Mirror::SetCredentials(Credentials credentials) {
  std::lock_guard lock(impl_->settings_mu);
  impl_->credentials = std::move(credentials);
}

void Mirror::SetLimits(const TransferLimits& limits) {
  std::lock_guard lock(impl_->settings_mu);
  impl_->limits = limits;
}

Result<std::optional<std::string>> Mirror::FindCommitMessage(const std::string& head,
                                                             std::string_view needle,
                                                             int max_commits) {
  auto oid = ParseOid(head);
  if (!oid.ok()) return oid.status();
  auto hold = impl_->Take(impl_->LimitsNow(), {}, /*files=*/false);
  if (!hold.ok()) return hold.status();
  git_oid at = *oid;
  for (int i = 0; i < max_commits; ++i) {
    git_commit* c = nullptr;
    int rc = git_commit_lookup(&c, impl_->repo.get(), &at);
    if (rc != 0) return Fail("no such commit " + Hex(at), rc);
    CommitPtr commit(c);
    const char* message = git_commit_message(commit.get());
    if (message && std::string_view(message).find(needle) != std::string_view::npos) {
      return std::optional<std::string>(message);
    }
    if (git_commit_parentcount(commit.get()) == 0) break;
    at = *git_commit_parent_id(commit.get(), 0);
  }
  return std::optional<std::string>();
}

Result<std::unique_ptr<Snapshot>> Mirror::OpenSnapshot(const std::string& commit) {
  auto oid = ParseOid(commit);
  if (!oid.ok()) return oid.status();
  // A handle of its own: snapshots are read from other threads than the mirror's.
  git_repository* r = nullptr;
  int rc = git_repository_open_bare(&r, impl_->path.c_str());
  if (rc != 0) return Fail("cannot open the mirror", rc);
  auto impl = std::make_unique<Snapshot::Impl>();
  impl->repo.reset(r);
  git_commit* c = nullptr;
  rc = git_commit_lookup(&c, impl->repo.get(), &*oid);
  if (rc != 0) return Fail("no such commit " + commit, rc);
  CommitPtr commit_ptr(c);
  git_tree* t = nullptr;
  rc = git_commit_tree(&t, commit_ptr.get());
  if (rc != 0) return Fail("cannot read the tree of " + commit, rc);
  impl->root.reset(t);
  return std::unique_ptr<Snapshot>(new Snapshot(std::move(impl), commit));
}

Result<std::string> Mirror::Commit(const Workspace& work, const Identity& author,
                                   const std::string& message) {
  auto changes = work.Changes();
  if (changes.empty()) return Status::InvalidArgument("there are no changes to commit");
  auto hold = impl_->Take(impl_->LimitsNow(), {}, /*files=*/false);
  if (!hold.ok()) return hold.status();
  git_repository* repo = impl_->repo.get();
  auto parent_oid = ParseOid(work.base().commit());
  if (!parent_oid.ok()) return parent_oid.status();
  git_commit* pc = nullptr;
  int rc = git_commit_lookup(&pc, repo, &*parent_oid);
  if (rc != 0) return Fail("cannot find the base commit", rc);
  CommitPtr parent(pc);
  git_tree* bt = nullptr;
  rc = git_commit_tree(&bt, parent.get());
  if (rc != 0) return Fail("cannot read the base tree", rc);
  TreePtr base_tree(bt);

  std::vector<git_tree_update> updates;
  updates.reserve(changes.size());
  for (const auto& [path, change] : changes) {
    git_tree_update u{};
    u.path = path.c_str();
    if (change.kind == Change::Kind::kDelete) {
      u.action = GIT_TREE_UPDATE_REMOVE;
    } else if (change.kind == Change::Kind::kCopy) {
      u.action = GIT_TREE_UPDATE_UPSERT;
      auto id = ParseOid(change.blob);
      if (!id.ok()) return id.status();
      u.id = *id;
      u.filemode = change.executable ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
    } else {
      u.action = GIT_TREE_UPDATE_UPSERT;
      rc = git_blob_create_from_buffer(&u.id, repo, change.content.data(), change.content.size());
      if (rc != 0) return Fail("cannot store " + path, rc);
      u.filemode = change.executable ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
    }
    updates.push_back(u);
  }
  // Removals first, then additions on the result: libgit2 checks each update's
  // path against the tree it starts from, so a file replaced by a directory of
  // the same name needs the file gone first.
  std::vector<git_tree_update> removals, upserts;
  for (const auto& u : updates) (u.action == GIT_TREE_UPDATE_REMOVE ? removals : upserts).push_back(u);
  TreePtr new_tree;
  for (const auto* pass : {&removals, &upserts}) {
    if (pass->empty()) continue;
    git_oid tree_oid;
    git_tree* from = new_tree ? new_tree.get() : base_tree.get();
    rc = git_tree_create_updated(&tree_oid, repo, from, pass->size(), pass->data());
    if (rc != 0) return Fail("cannot build the new tree", rc);
    git_tree* built = nullptr;
    rc = git_tree_lookup(&built, repo, &tree_oid);
    if (rc != 0) return Fail("cannot read the new tree", rc);
    new_tree.reset(built);
  }
  git_signature* s = nullptr;
  rc = git_signature_now(&s, author.name.c_str(), author.email.c_str());
  if (rc != 0) return Fail("invalid author identity", rc);
  SigPtr sig(s);
  const git_commit* parents[] = {parent.get()};
  git_oid commit_oid;
  rc = git_commit_create(&commit_oid, repo, nullptr, sig.get(), sig.get(), "UTF-8",
                         message.c_str(), new_tree.get(), 1, parents);
  if (rc != 0) return Fail("cannot create the commit", rc);
  return Hex(commit_oid);
}

namespace {

Result<TreePtr> TreeOf(git_repository* repo, const git_oid& commit) {
  git_commit* c = nullptr;
  int rc = git_commit_lookup(&c, repo, &commit);
  if (rc != 0) return Fail("no such commit " + Hex(commit), rc);
  CommitPtr owned(c);
  git_tree* t = nullptr;
  rc = git_commit_tree(&t, owned.get());
  if (rc != 0) return Fail("cannot read the tree of " + Hex(commit), rc);
  return TreePtr(t);
}

struct PatchSink {
  DiffText* out;
  size_t max_bytes;
};

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

}  // namespace

Result<DiffText> Mirror::Diff(const std::string& base, const std::string& head,
                              size_t max_bytes) {
  auto base_oid = ParseOid(base);
  if (!base_oid.ok()) return base_oid.status();
  auto head_oid = ParseOid(head);
  if (!head_oid.ok()) return head_oid.status();
  auto hold = impl_->Take(impl_->LimitsNow(), {}, /*files=*/false);
  if (!hold.ok()) return hold.status();
  git_repository* repo = impl_->repo.get();
  git_oid fork_point;
  TreePtr old_tree;  // none if the histories are unrelated: everything is new
  if (git_merge_base(&fork_point, repo, &*base_oid, &*head_oid) == 0) {
    auto tree = TreeOf(repo, fork_point);
    if (!tree.ok()) return tree.status();
    old_tree = std::move(*tree);
  }
  auto new_tree = TreeOf(repo, *head_oid);
  if (!new_tree.ok()) return new_tree.status();
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  git_diff* d = nullptr;
  int rc = git_diff_tree_to_tree(&d, repo, old_tree.get(), new_tree->get(), &opts);
  if (rc != 0) return Fail("cannot compare the branches", rc);
  DiffPtr diff(d);
  git_diff_find_options find = GIT_DIFF_FIND_OPTIONS_INIT;
  find.flags = GIT_DIFF_FIND_RENAMES;
  git_diff_find_similar(diff.get(), &find);
  DiffText out;
  for (size_t i = 0, n = git_diff_num_deltas(diff.get()); i < n; ++i) {
    const git_diff_delta* delta = git_diff_get_delta(diff.get(), i);
    out.files.push_back(delta->new_file.path ? delta->new_file.path : delta->old_file.path);
  }
  PatchSink sink{&out, max_bytes};
  rc = git_diff_print(diff.get(), GIT_DIFF_FORMAT_PATCH, AppendLine, &sink);
  if (rc != 0 && !out.truncated) return Fail("cannot print the diff", rc);
  return out;
}

Status Mirror::Push(const std::string& commit, const std::string& branch,
                    const std::optional<std::string>& expected_head,
                    const std::function<bool()>& cancelled) {
  Status valid = CheckBranch(branch);
  if (!valid.ok()) return valid;
  auto oid = ParseOid(commit);
  if (!oid.ok()) return oid.status();
  std::optional<git_oid> expected;
  if (expected_head) {
    auto e = ParseOid(*expected_head);
    if (!e.ok()) return e.status();
    expected = *e;
  }
  const TransferLimits limits = impl_->LimitsNow();
  auto hold = impl_->Take(limits, cancelled, /*files=*/true);
  if (!hold.ok()) return Status::Unavailable("cannot push " + branch + ": " + hold.status().message());
  if (cancelled && cancelled()) return Status::Unavailable("the push was cancelled");
  if (auto local = LocalRemote::Open(impl_->url)) {
    return local->Push(impl_->repo.get(), *oid, branch, expected);
  }
  git_repository* repo = impl_->repo.get();
  // libgit2 pushes references, not bare commits: point a private ref at it.
  std::string local = "refs/docwright/push/" + branch;
  impl_->RemoveStaleLocks({local, "refs/remotes/origin/" + branch});
  git_reference* ref = nullptr;
  int rc = git_reference_create(&ref, repo, local.c_str(), &*oid, /*force=*/1, nullptr);
  if (rc != 0) return Fail("cannot prepare the push", rc);
  RefPtr ref_ptr(ref);

  TransferScope scope(limits, cancelled);  // before the remote: it outlives its connections
  auto remote = impl_->Remote();
  if (!remote.ok()) return remote.status();
  const Credentials credentials = impl_->CredentialsNow();
  RemoteSession state{credentials, impl_->url, &cancelled, &scope};
  git_remote_callbacks callbacks = Callbacks(&state);
  callbacks.push_update_reference = [](const char*, const char* status, void* payload) {
    if (status) static_cast<RemoteSession*>(payload)->rejected = status;
    return 0;
  };

  // The lease: read the branch's head on the connection the push will use. The
  // push then tells the server that old value, and the server refuses the update
  // if the branch moved in between.
  git_error_clear();
  rc = git_remote_connect(remote->get(), GIT_DIRECTION_PUSH, &callbacks, nullptr, nullptr);
  if (rc != 0) return SessionFail(state, "cannot push " + branch, rc);
  const git_remote_head** heads = nullptr;
  size_t n = 0;
  rc = git_remote_ls(&heads, &n, remote->get());
  if (rc != 0) return SessionFail(state, "cannot push " + branch, rc);
  std::string target = "refs/heads/" + branch;
  const git_oid* current = nullptr;
  for (size_t i = 0; i < n; ++i) {
    if (target == heads[i]->name) current = &heads[i]->oid;
  }
  bool as_expected = expected ? (current && git_oid_equal(current, &*expected)) : current == nullptr;
  if (!as_expected) {
    return Status::Conflict("the remote branch " + branch +
                            " has changed since this turn started; fetch and try again");
  }

  std::string spec = local + ":" + target;  // no '+': never a forced update
  char* specs[] = {spec.data()};
  git_strarray refspecs{specs, 1};
  git_push_options opts = GIT_PUSH_OPTIONS_INIT;
  opts.callbacks = callbacks;
  rc = git_remote_push(remote->get(), &refspecs, &opts);
  if (rc == GIT_ENONFASTFORWARD || (rc == 0 && !state.rejected.empty())) {
    // The server refused the update. If the branch moved after the check above
    // (its words for that vary: "failed to update ref", "cannot lock ref", ...),
    // it is the lease that failed: say so, so the caller starts from the new head.
    git_remote_disconnect(remote->get());
    RemoteSession again{credentials, impl_->url, nullptr, &scope};
    git_remote_callbacks recheck = Callbacks(&again);
    if (git_remote_connect(remote->get(), GIT_DIRECTION_FETCH, &recheck, nullptr, nullptr) == 0 &&
        git_remote_ls(&heads, &n, remote->get()) == 0) {
      current = nullptr;
      for (size_t i = 0; i < n; ++i) {
        if (target == heads[i]->name) current = &heads[i]->oid;
      }
      bool moved = expected ? (!current || !git_oid_equal(current, &*expected)) : current != nullptr;
      bool ours = current && git_oid_equal(current, &*oid);
      if (moved && !ours) {
        return Status::Conflict("the remote branch " + branch +
                                " has changed since this turn started; fetch and try again");
      }
    }
    if (rc == GIT_ENONFASTFORWARD) rc = 0;
    if (state.rejected.empty()) state.rejected = "not a fast-forward";
  }
  if (rc != 0) return SessionFail(state, "cannot push " + branch, rc);
  if (!state.rejected.empty()) {
    return Status::Unavailable("the remote refused the push of " + branch + ": " +
                               RedactCredentials(state.rejected));
  }
  // The private ref has served; the mirror now knows the remote's new head.
  git_reference_delete(ref_ptr.get());
  std::string tracking = "refs/remotes/origin/" + branch;
  git_reference* t = nullptr;
  if (git_reference_create(&t, repo, tracking.c_str(), &*oid, 1, nullptr) == 0) {
    git_reference_free(t);
  }
  return Status();
}

}  // namespace docwright::git
