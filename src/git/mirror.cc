// Mirror: a project's bare repository on disk, fetched from and pushed to its
// remote under locks with deadlines; commits and diffs are made here.
#include "git/git.h"

#include <git2.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <limits>
#include <memory>

#include "core/crash_point.h"
#include "core/metrics.h"
#include "core/mutex.h"
#include "git/file_lock.h"
#include "git/libgit2.h"
#include "git/local_remote.h"
#include "git/remote_session.h"
#include "git/snapshot_impl.h"
#include "git/socket_stream.h"
#include "git/tree_diff.h"

namespace docwright::git {

namespace {

// A mutex that can be waited on with a timeout, made of a mutex and a condition
// variable. Not std::timed_mutex: libstdc++ implements its timed wait with
// pthread_mutex_clocklock, which ThreadSanitizer (clang 14) does not know, so
// every unlock looked like one of an unlocked mutex.
class TimedMutex {
 public:
  template <typename Rep, typename Period>
  bool try_lock_for(std::chrono::duration<Rep, Period> d) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    const auto deadline = std::chrono::steady_clock::now() + d;
    while (held_ && lock.WaitUntil(cv_, deadline)) {
    }
    if (held_) return false;
    held_ = true;
    return true;
  }
  void unlock() EXCLUDES(mu_) {
    {
      MutexLock lock(mu_);
      held_ = false;
    }
    cv_.notify_one();
  }

 private:
  Mutex mu_;
  std::condition_variable cv_;
  bool held_ GUARDED_BY(mu_) = false;
};

// A TimedMutex taken, released when this ends; movable, so it can be returned.
struct TimedUnlock {
  void operator()(TimedMutex* mu) const { mu->unlock(); }
};
using TimedHold = std::unique_ptr<TimedMutex, TimedUnlock>;

}  // namespace

struct Mirror::Impl {
  // Serialises the methods; timed, so that one stuck behind another's transfer
  // gives up after the lock timeout instead of waiting with it. It guards the
  // members below down to snapshot_handles, but is held through a Hold that
  // Take returns (in a Result), which Clang's analysis cannot follow: they are
  // not annotated.
  TimedMutex mu;
  std::string path;
  std::string url;
  RepoPtr repo;
  // The remote's heads, when it is a bare repository on this machine: kept
  // between fetches (opening it reads its config and the user's, most of a
  // fetch's time), used under the mirror's hold, opened again once its folder
  // is replaced. Pushes open their own (LocalRemote).
  std::unique_ptr<LocalRemote> heads_remote;
  // Shared with the snapshots, which give their handles back as they end,
  // possibly after the mirror.
  std::shared_ptr<SnapshotHandles> snapshot_handles;
  // Replaced between operations without waiting for one under way; each
  // operation works with a copy.
  mutable Mutex settings_mu;
  Credentials credentials GUARDED_BY(settings_mu);
  TransferLimits limits GUARDED_BY(settings_mu);

  Credentials CredentialsNow() const EXCLUDES(settings_mu) {
    MutexLock lock(settings_mu);
    return credentials;
  }
  TransferLimits LimitsNow() const EXCLUDES(settings_mu) {
    MutexLock lock(settings_mu);
    return limits;
  }

  // The mirror for one operation: this process's turn, then (with `files`) the
  // lock shared with other processes, within the lock timeout in all.
  struct Hold {
    TimedHold guard;
    std::optional<FileLock> file;
  };
  Result<Hold> Take(const TransferLimits& limits, const std::function<bool()>& cancelled,
                    bool files) {
    auto until = std::chrono::steady_clock::now() + limits.lock_timeout;
    // In slices, to ask the cancel check between them.
    while (!mu.try_lock_for(std::chrono::milliseconds(100))) {
      if (cancelled && cancelled()) return Status::Unavailable("cancelled");
      if (std::chrono::steady_clock::now() >= until) {
        return Status::Unavailable("the mirror is busy: another operation on it has run for over " +
                                   FormatSeconds(limits.lock_timeout));
      }
    }
    Hold hold{TimedHold(&mu), std::nullopt};
    if (files) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          until - std::chrono::steady_clock::now());
      auto file =
          FileLock::Acquire(LockPath(), std::max(left, std::chrono::milliseconds(0)), cancelled);
      if (!file.ok()) return file.status();
      if (file->previous_holder_died()) ClearAfterCrash();
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

  // What a process killed while it held the mirror's FileLock may have left
  // half-written: git's lock files on the mirror's refs, packed refs and config,
  // and the temporary files of a pack it was receiving (a pack becomes part of
  // the repository only when renamed to pack-<id>.*). Call only just after
  // taking the FileLock from a holder that died: nothing else writes these
  // while the lock is held, and a commit's loose objects (written without it)
  // are not touched.
  void ClearAfterCrash() const {
    namespace fs = std::filesystem;
    std::error_code ec;
    auto is_lock = [](const fs::path& p) { return p.extension() == ".lock"; };
    for (auto it = fs::recursive_directory_iterator(path + "/refs", ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec) && is_lock(it->path())) fs::remove(it->path(), ec);
    }
    for (const char* name : {"packed-refs.lock", "HEAD.lock", "config.lock", "shallow.lock"}) {
      fs::remove(path + "/" + name, ec);
    }
    for (auto it = fs::directory_iterator(path + "/objects/pack", ec);
         !ec && it != fs::directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec) && !it->path().filename().string().starts_with("pack-")) {
        fs::remove(it->path(), ec);
      }
    }
  }

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
  {
    MutexLock lock(impl->settings_mu);  // not shared yet: for the analysis
    impl->credentials = std::move(credentials);
    impl->limits = limits;
  }
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) return Status::Unavailable("cannot create " + path + ": " + ec.message());
  auto lock = FileLock::Acquire(impl->LockPath(), limits.lock_timeout);
  if (!lock.ok()) return lock.status();
  if (lock->previous_holder_died()) impl->ClearAfterCrash();
  git_repository* r = nullptr;
  int rc = git_repository_open_bare(&r, path.c_str());
  if (rc == GIT_ENOTFOUND) rc = git_repository_init(&r, path.c_str(), /*is_bare=*/1);
  if (rc != 0) return Fail("cannot open the mirror at " + path, rc);
  impl->repo.reset(r);
  impl->snapshot_handles = std::make_shared<SnapshotHandles>(path);
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
  // Timed once the mirror is ours: waiting for another turn's use is not the remote's.
  const auto started = std::chrono::steady_clock::now();
  auto fetched = [&]() -> Result<std::map<std::string, std::optional<std::string>>> {
    if (!impl_->heads_remote || impl_->heads_remote->Replaced()) {
      impl_->heads_remote = LocalRemote::Open(impl_->url);
    }
    if (LocalRemote* local = impl_->heads_remote.get()) {
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
  }();
  metrics::RecordGitOperation("fetch", fetched.ok(), metrics::SecondsSince(started));
  return fetched;
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
  MutexLock lock(impl_->settings_mu);
  impl_->credentials = std::move(credentials);
}

void Mirror::SetLimits(const TransferLimits& limits) {
  MutexLock lock(impl_->settings_mu);
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
    auto looked_up = LookupCommit(impl_->repo.get(), at, "the commit " + Hex(at));
    if (!looked_up.ok()) return looked_up.status();
    CommitPtr commit = std::move(*looked_up);
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
  RepoPtr repo;
  int rc = impl_->snapshot_handles->Take(&repo);
  if (rc != 0) return Fail("cannot open the mirror", rc);
  auto impl = std::make_unique<Snapshot::Impl>();
  impl->repo = SnapshotRepo(std::move(repo), impl_->snapshot_handles);
  auto commit_ptr = LookupCommit(impl->repo.get(), *oid, "the commit " + commit);
  if (!commit_ptr.ok()) return commit_ptr.status();
  auto root = LookupTree(impl->repo.get(), *git_commit_tree_id(commit_ptr->get()),
                         "the root folder of " + commit);
  if (!root.ok()) return root.status();
  impl->root = std::move(*root);
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
  for (const auto& u : updates)
    (u.action == GIT_TREE_UPDATE_REMOVE ? removals : upserts).push_back(u);
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
  rc = git_commit_create(&commit_oid, repo, nullptr, sig.get(), sig.get(), "UTF-8", message.c_str(),
                         new_tree.get(), 1, parents);
  if (rc != 0) return Fail("cannot create the commit", rc);
  CrashPoint("commit.written");
  return Hex(commit_oid);
}

namespace {

Result<TreePtr> TreeOf(git_repository* repo, const git_oid& commit) {
  auto owned = LookupCommit(repo, commit, "the commit " + Hex(commit));
  if (!owned.ok()) return owned.status();
  return LookupTree(repo, *git_commit_tree_id(owned->get()), "the root folder of " + Hex(commit));
}

}  // namespace

Status Mirror::WithRepository(const std::function<Status(git_repository*)>& work) {
  auto hold = impl_->Take(impl_->LimitsNow(), {}, /*files=*/false);
  if (!hold.ok()) return hold.status();
  return work(impl_->repo.get());
}

Result<std::string> Mirror::DefaultBranch() {
  // Asked of the remote as `project create` asks it: one listing of its refs,
  // within the connect and idle timeouts, without the mirror's lock (nothing of
  // the mirror is read or written).
  auto probe = ProbeRemote(impl_->url, impl_->CredentialsNow(), impl_->LimitsNow());
  if (!probe.ok()) return probe.status();
  if (!probe->default_branch) {
    return Status::NotFound("the repository's HEAD names no branch: name the branch to read");
  }
  return *probe->default_branch;
}

Result<DiffText> Mirror::Diff(const std::string& base, const std::string& head, size_t max_bytes,
                              WorkBudget* budget) {
  auto base_oid = ParseOid(base);
  if (!base_oid.ok()) return base_oid.status();
  auto head_oid = ParseOid(head);
  if (!head_oid.ok()) return head_oid.status();
  auto hold = impl_->Take(impl_->LimitsNow(), {}, /*files=*/false);
  if (!hold.ok()) return hold.status();
  git_repository* repo = impl_->repo.get();
  git_oid fork_point;
  TreePtr old_tree;  // none if the histories are unrelated: everything is new
  std::string merge_base;
  if (git_merge_base(&fork_point, repo, &*base_oid, &*head_oid) == 0) {
    auto tree = TreeOf(repo, fork_point);
    if (!tree.ok()) return tree.status();
    old_tree = std::move(*tree);
    merge_base = Hex(fork_point);
  }
  auto new_tree = TreeOf(repo, *head_oid);
  if (!new_tree.ok()) return new_tree.status();
  auto diff = DiffTrees(repo, old_tree.get(), new_tree->get(), max_bytes, budget);
  if (diff.ok()) diff->merge_base = std::move(merge_base);
  return diff;
}

namespace {

// The head of `target` among the `n` heads a remote listed, if it has one.
const git_oid* HeadOf(const git_remote_head** heads, size_t n, const std::string& target) {
  const git_oid* current = nullptr;
  for (size_t i = 0; i < n; ++i) {
    if (target == heads[i]->name) current = &heads[i]->oid;
  }
  return current;
}

// One push of `commit` to `branch` over a remote: the private ref `local` points
// at the commit, and the branch's head is to be `expected` (none: no branch).
struct RemotePush {
  git_remote* remote;
  const Credentials& credentials;
  const std::string& url;
  const std::function<bool()>& cancelled;
  const TransferScope& scope;
  const std::string& branch;
  const std::string& local;
  const git_oid& commit;
  const std::optional<git_oid>& expected;
};

// After the server refused the update: true if the branch moved after the
// lease was taken (to something other than the commit pushed), read on a
// connection of its own. False when that cannot be told.
bool LeaseBroken(const RemotePush& p, const std::string& target) {
  git_remote_disconnect(p.remote);
  RemoteSession again{p.credentials, p.url, nullptr, &p.scope};
  git_remote_callbacks recheck = Callbacks(&again);
  const git_remote_head** heads = nullptr;
  size_t n = 0;
  if (git_remote_connect(p.remote, GIT_DIRECTION_FETCH, &recheck, nullptr, nullptr) == 0 &&
      git_remote_ls(&heads, &n, p.remote) == 0) {
    const git_oid* current = HeadOf(heads, n, target);
    bool moved =
        p.expected ? (!current || !git_oid_equal(current, &*p.expected)) : current != nullptr;
    bool ours = current && git_oid_equal(current, &p.commit);
    return moved && !ours;
  }
  return false;
}

// Pushes as `p` says, under a lease: the branch's head is read on the connection
// the push will use, the push then tells the server that old value, and the
// server refuses the update if the branch moved in between.
Status PushToRemote(const RemotePush& p) {
  RemoteSession state{p.credentials, p.url, &p.cancelled, &p.scope};
  git_remote_callbacks callbacks = Callbacks(&state);
  callbacks.push_update_reference = [](const char*, const char* status, void* payload) {
    if (status) static_cast<RemoteSession*>(payload)->rejected = status;
    return 0;
  };

  git_error_clear();
  int rc = git_remote_connect(p.remote, GIT_DIRECTION_PUSH, &callbacks, nullptr, nullptr);
  if (rc != 0) return SessionFail(state, "cannot push " + p.branch, rc);
  const git_remote_head** heads = nullptr;
  size_t n = 0;
  rc = git_remote_ls(&heads, &n, p.remote);
  if (rc != 0) return SessionFail(state, "cannot push " + p.branch, rc);
  std::string target = "refs/heads/" + p.branch;
  const git_oid* current = HeadOf(heads, n, target);
  bool as_expected =
      p.expected ? (current && git_oid_equal(current, &*p.expected)) : current == nullptr;
  if (!as_expected) {
    return Status::Conflict("the remote branch " + p.branch +
                            " has changed since this turn started; fetch and try again");
  }

  std::string spec = p.local + ":" + target;  // no '+': never a forced update
  char* specs[] = {spec.data()};
  git_strarray refspecs{specs, 1};
  git_push_options opts = GIT_PUSH_OPTIONS_INIT;
  opts.callbacks = callbacks;
  rc = git_remote_push(p.remote, &refspecs, &opts);
  if (rc == GIT_ENONFASTFORWARD || (rc == 0 && !state.rejected.empty())) {
    // The server refused the update. If the branch moved after the check above
    // (its words for that vary: "failed to update ref", "cannot lock ref", ...),
    // it is the lease that failed: say so, so the caller starts from the new head.
    if (LeaseBroken(p, target)) {
      return Status::Conflict("the remote branch " + p.branch +
                              " has changed since this turn started; fetch and try again");
    }
    if (rc == GIT_ENONFASTFORWARD) rc = 0;
    if (state.rejected.empty()) state.rejected = "not a fast-forward";
  }
  if (rc != 0) return SessionFail(state, "cannot push " + p.branch, rc);
  if (!state.rejected.empty()) {
    return Status::Unavailable("the remote refused the push of " + p.branch + ": " +
                               RedactCredentials(state.rejected));
  }
  return Status();
}

}  // namespace

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
  if (!hold.ok())
    return Status::Unavailable("cannot push " + branch + ": " + hold.status().message());
  if (cancelled && cancelled()) return Status::Unavailable("the push was cancelled");
  const auto started = std::chrono::steady_clock::now();  // as for a fetch: once held
  Status pushed = [&]() -> Status {
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
    Status done = PushToRemote({.remote = remote->get(),
                                .credentials = credentials,
                                .url = impl_->url,
                                .cancelled = cancelled,
                                .scope = scope,
                                .branch = branch,
                                .local = local,
                                .commit = *oid,
                                .expected = expected});
    if (!done.ok()) return done;
    // The private ref has served; the mirror now knows the remote's new head.
    git_reference_delete(ref_ptr.get());
    std::string tracking = "refs/remotes/origin/" + branch;
    git_reference* t = nullptr;
    if (git_reference_create(&t, repo, tracking.c_str(), &*oid, 1, nullptr) == 0) {
      git_reference_free(t);
    }
    return Status();
  }();
  metrics::RecordGitOperation("push", pushed.ok(), metrics::SecondsSince(started));
  return pushed;
}

}  // namespace docwright::git
