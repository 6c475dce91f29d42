// The git engine (libgit2): a bare mirror of a project's repository, snapshots
// read straight from git objects, an in-memory overlay of edits, commits built
// from the base tree plus the overlay, and pushes.
//
// No working tree is ever checked out: starting a job costs a fetch and a tree
// lookup, whatever the size of the repository.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/job.h"
#include "core/status.h"
#include "core/text.h"
#include "core/work_budget.h"

struct git_repository;  // libgit2's, for Mirror's engine-internal access

namespace docwright::git {

// How to authenticate to the remote. Secrets never appear in logs or errors.
struct Credentials {
  std::optional<std::string> token;  // HTTPS: sent as the password of a Basic login
  std::string token_user = "x-access-token";
  // SSH: a private key file without a passphrase (OpenSSH or PEM format), and the
  // known_hosts file the server's host key must be listed in; a host that is not
  // listed, or listed with another key, is refused.
  std::optional<std::string> ssh_key_path;
  std::string ssh_known_hosts_path;
};

// The credentials a project's settings give: its forge token (user oauth2 on
// GitLab, x-access-token elsewhere), its SSH key and known_hosts file.
Credentials CredentialsFor(const Project& project);

// Whether `host_key` (the key blob of the SSH wire format) is listed for `host`
// (and `port`, when not 22) in the known_hosts text `known_hosts`. Hashed host
// names ("|1|salt|hash"), patterns with * and ?, negated patterns and @revoked
// lines are understood; @cert-authority lines are ignored.
bool KnownHostsAccepts(std::string_view known_hosts, const std::string& host, int port,
                       std::string_view host_key);

// Time limits of a mirror's dealings with its remote, so that a remote that goes
// silent, or another process holding the mirror, cannot pin a worker. A breach
// fails the operation with Unavailable saying which limit was reached; the mirror
// keeps what it had. The defaults suit a real forge; tests shorten them.
struct TransferLimits {
  // To open a TCP connection, for each address the host name resolves to.
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(10)};
  // With nothing received from or taken by the remote while waiting for it.
  std::chrono::milliseconds idle_timeout{std::chrono::seconds(60)};
  // One fetch or push as a whole, from connecting to the last byte.
  std::chrono::milliseconds transfer_timeout{std::chrono::minutes(10)};
  // To take the mirror's locks (in this process and across processes), held by
  // another operation on the same mirror.
  std::chrono::milliseconds lock_timeout{std::chrono::minutes(2)};
};

struct Identity {
  std::string name = "docwright";
  std::string email = "docwright@localhost";
};

// A repository path: repo-relative, '/'-separated, no "." or ".." segments, not
// inside ".git" (in any case or disguise), no backslashes or control characters.
// Returns the normalised form ("a/b.md"), or InvalidArgument with a message fit
// to show the model.
// Git's rules for disguised names apply on every platform: NTFS's trailing dots
// and spaces, stream names (".git::$INDEX_ALLOCATION") and 8.3 short names
// ("GIT~1"), and the code points HFS+ ignores (".g\u200cit"). Invalid UTF-8 is
// refused.
Result<std::string> CheckPath(std::string_view path);

// The name some file system may take one path segment for, to compare with a
// protected name such as ".git" or ".gitmodules": lowercase ASCII, HFS+'s
// ignored code points dropped, an NTFS stream suffix (":...") and trailing dots
// and spaces removed; every other non-ASCII character becomes '\x80'.
std::string ComparableName(std::string_view segment);

enum class EntryKind { kFile, kDirectory, kSymlink, kSubmodule };

struct DirEntry {
  std::string name;
  EntryKind kind = EntryKind::kFile;
};

// One file's content as the agent may see it.
struct FileContent {
  std::string text;
  bool binary = false;  // true: `text` is empty; binary files are never read
};

inline constexpr size_t kMaxReadBytes = 1 << 20;  // larger files are refused
inline constexpr size_t kWalkVisitsPerPath = 16;  // see Snapshot::Walk
// A repository path longer than this is never read, listed or compared (no
// file system takes it; CheckPath refuses it).
inline constexpr size_t kMaxPathBytes = 4096;
// What one workspace may hold of edits: the bytes written and the paths changed.
inline constexpr size_t kMaxChangedBytes = 64u << 20;
inline constexpr size_t kMaxChangedPaths = 10000;
// A file over this size (either side) is named in a diff as a large file
// changed, with its sizes, and never compared line by line.
inline constexpr size_t kMaxDiffFileBytes = 1 << 20;
// A diff of more files than this lists none of them, only their number.
inline constexpr size_t kMaxDiffFiles = 100000;

class Mirror;

// One path a branch changes, as DiffText lists it.
struct DiffFile {
  enum class Kind { kAdded, kModified, kDeleted, kRenamed };
  // "added", "modified", "deleted" or "renamed": how reviews and prompts name it.
  static std::string_view KindName(Kind kind);
  Kind kind = Kind::kModified;
  std::string path;                 // where it is on the head (on the base, if deleted)
  std::optional<std::string> from;  // kRenamed: where it was on the base
  // Lines, for the files the patch shows (a file past the cut, a large file, a
  // link or submodule counts 0).
  int64_t additions = 0;
  int64_t deletions = 0;
};

// How a branch is merged into another (Mirror::Merge).
enum class MergeMethod {
  kMerge,        // always a merge commit with both heads as parents, as a forge's merge button
  kFastForward,  // the base moves to the branch's head; refused unless the base is in it
};

// What a merge did, or would do (Mirror::PrepareMerge).
struct MergeOutcome {
  std::string base_before;  // the base's head it was made on
  std::string commit;       // the base's head after it: the merge commit, or the branch's head
  bool fast_forward = false;
  // The branch's head was in the base already: nothing was made or pushed, and
  // `commit` is the base's head.
  bool already_merged = false;
};

// The most conflicting paths a refused merge names; it says how many more there are.
inline constexpr size_t kMaxConflictsNamed = 20;

// What a branch changes, as `git diff base...head` shows it.
struct DiffText {
  std::string patch;               // unified diff
  std::vector<std::string> files;  // the changed paths
  bool truncated = false;          // `patch` was cut at a line to fit the limit
  std::vector<DiffFile> changes;   // one for each of `files`, in their order
  std::string merge_base;          // what the head is compared with ("": unrelated histories)
};

// One commit of a branch's history (Mirror::Log).
struct CommitSummary {
  std::string sha;
  std::string subject;    // the message's first line, at most kMaxCommitSubjectBytes
  std::string message;    // the whole message, at most kMaxCommitMessageBytes
  bool is_merge = false;  // more than one parent
};
// Cut before a character, never inside one; a commit's text is the author's
// and may be anything (it is made well-formed UTF-8 first).
inline constexpr size_t kMaxCommitSubjectBytes = 1000;
inline constexpr size_t kMaxCommitMessageBytes = 4096;
// The most commits one Log lists, whatever its caller asks.
inline constexpr size_t kMaxLogCommits = 10000;

// A read-only view of one commit's tree, read from git objects. Use it from one
// thread at a time; open one snapshot per thread.
//
// A snapshot of a turn charges the turn's WorkBudget (SetBudget) for every tree
// entry it visits, whatever the entry's type, and every byte it reads; once the
// budget is spent, its reads and listings fail with ResourceExhausted and its
// walks stop.
class Snapshot {
 public:
  ~Snapshot();
  const std::string& commit() const { return commit_; }

  // Charges `budget` from now on (nullptr: nothing is charged). The budget must
  // outlive the snapshot's use, or be replaced first.
  void SetBudget(WorkBudget* budget);
  WorkBudget* budget() const;

  // NotFound if there is no such file; InvalidArgument for a directory, a
  // symlink or submodule (never followed), or a file over kMaxReadBytes.
  Result<FileContent> Read(const std::string& path) const;
  // The bytes of the file at `path` whatever they are (an image, say): errors as
  // Read's, with `max_bytes` (at most kMaxReadBytes) as the limit.
  Result<std::string> ReadBytes(const std::string& path, size_t max_bytes) const;
  // Entries of a directory ("" for the root), sorted by name.
  Result<std::vector<DirEntry>> List(const std::string& dir) const;
  // Every file path under `dir` (recursively), sorted; at most `limit`. The walk
  // visits at most kWalkVisitsPerPath * `limit` entries of any kind (a tree of
  // links or submodules has many entries and no files) and stops when the
  // budget is spent; `*cut`, if given, says whether it stopped before the end.
  Result<std::vector<std::string>> Walk(const std::string& dir, size_t limit,
                                        bool* cut = nullptr) const;
  bool IsFile(const std::string& path) const;
  // The id of the file's blob (hex), "" if `path` is not a file: a moved file's
  // Change::blob names the blob it was moved from.
  std::string BlobIdAt(const std::string& path) const;
  // What is at `path` in this tree, if anything.
  std::optional<EntryKind> KindAt(const std::string& path) const;
  // How many reads, listings and lookups so far failed for a reason other than
  // the path (no such file, not a file) or the budget: the object database
  // could not be read (a pack unreadable, descriptors or memory short). The
  // calls above that answer "absent" on any failure count it too, so a caller
  // can tell an answer made from a repository it could not read whole.
  uint64_t failed_reads() const;

 private:
  friend class Mirror;
  friend class Workspace;
  struct Impl;
  Snapshot(std::unique_ptr<Impl> impl, std::string commit);
  std::unique_ptr<Impl> impl_;
  std::string commit_;
};

// One path's change in a workspace.
struct Change {
  enum class Kind { kWrite, kDelete, kCopy };
  Kind kind = Kind::kWrite;
  std::string content;      // kWrite: the new bytes
  std::string blob;         // kCopy: an existing blob (a moved file), by id
  bool executable = false;  // the file's mode: kept from the file it replaces or moves
};

// The id git gives a blob holding `content` (hex, as `git hash-object` prints
// it): a kWrite's content named the way a kCopy's blob is, so that the same
// bytes have the same name however they came. "" if libgit2 cannot hash it.
std::string BlobIdOf(std::string_view content);

// Edits over a snapshot, kept in memory. Reads see the edits.
class Workspace {
 public:
  explicit Workspace(const Snapshot& base) : base_(base) {}
  Workspace(const Snapshot&&) = delete;  // the snapshot must outlive the workspace

  Result<FileContent> Read(const std::string& path) const;
  Result<std::vector<DirEntry>> List(const std::string& dir) const;
  bool IsFile(const std::string& path) const;
  // The base's blob id (hex) of a file the workspace has not changed; "" for a
  // changed path or one that is not a file of the base. Files with one blob id
  // hold the same bytes: work over them is done once.
  std::string UnchangedBlobId(const std::string& path) const;

  // Refused with a clear error, before anything is committed: a path that is a
  // directory, a symbolic link or a submodule in the tree, or under one of those
  // or under a file; past kMaxChangedBytes written or kMaxChangedPaths changed.
  // Binary content (by git's rule) is stored, never read back.
  Status Write(const std::string& path, std::string content);
  Status Delete(const std::string& path);
  // Moves a file as it is, whatever its size or content, keeping its mode.
  Status Move(const std::string& from, const std::string& to);
  // Makes `path` what it is in `other` (a snapshot of the same mirror): its file
  // there as it is, whatever its size or content, keeping its mode; deleted if
  // `other` has no file there. So a workspace over a branch's base can hold the
  // branch's changes, for the checks. Refused as Write refuses.
  Status Take(const Snapshot& other, const std::string& path);

  // The changes by path. Edits that restore what the base has are dropped.
  std::map<std::string, Change> Changes() const;
  const Snapshot& base() const { return base_; }

 private:
  // True if directory `dir` still has an entry once the edits are applied.
  bool HasContent(const std::string& dir) const;
  // Whether a file may be put at `path` (a checked path).
  Status CheckWritable(const std::string& path) const;
  // Whether `path` may take `bytes` more of written content (and be one more
  // changed path if it is not one yet).
  Status CheckRoom(const std::string& path, size_t bytes) const;

  const Snapshot& base_;
  std::map<std::string, Change> edits_;
};

// A bare mirror of one remote repository, on disk. One Mirror object per process
// and path; its methods are serialised internally, and wait at most the limits'
// lock_timeout for one another (Unavailable, "the mirror is busy", after that). A remote that is a
// bare repository on this machine is read and written directly instead of through a transport, with
// the same results and the same lease.
class Mirror {
 public:
  // Opens the bare repository at `path`, creating it if needed, for `remote_url`
  // (a local path, file://, http(s)://, ssh:// or scp-like user@host:path).
  static Result<std::unique_ptr<Mirror>> Open(const std::string& path,
                                              const std::string& remote_url,
                                              Credentials credentials, TransferLimits limits = {});
  ~Mirror();

  // Fetches `branch` from the remote (incrementally) and returns its head commit.
  // NotFound if the remote has no such branch (or is empty); Unauthenticated for
  // refused credentials; Unavailable when the remote cannot be reached.
  Result<std::string> FetchBranch(const std::string& branch);
  // Fetches several branches over one connection; each one's head, or nullopt if
  // the remote has no such branch. `cancelled`, if set, is asked before the
  // fetch, as data arrives, and about every 250 ms while the remote is awaited:
  // true abandons it (Unavailable, "cancelled"; the mirror keeps what it had).
  // Over SSH it is also asked from a watchdog thread (libssh2 waits on the
  // socket where no check can run), so it must be thread-safe and quick. The transfer keeps to the
  // mirror's TransferLimits: a remote silent for idle_timeout fails it.
  Result<std::map<std::string, std::optional<std::string>>> FetchBranches(
      const std::vector<std::string>& branches, const std::function<bool()>& cancelled = {});

  // Replaces the credentials later operations use (a token or key was rotated).
  // Never waits for an operation under way.
  void SetCredentials(Credentials credentials);
  // Replaces the limits later operations keep to. Never waits either.
  void SetLimits(const TransferLimits& limits);

  Result<std::unique_ptr<Snapshot>> OpenSnapshot(const std::string& commit);

  // The message of the newest commit, among `head` and its first parents (at most
  // `max_commits` of them), whose message contains `needle`; nullopt if none does.
  Result<std::optional<std::string>> FindCommitMessage(const std::string& head,
                                                       std::string_view needle, int max_commits);

  // The commits reachable from `to` and not from `from`, newest first, at most
  // `max` (and kMaxLogCommits); `from` "" lists `to` and its first parents. Both
  // commits must be in the mirror (fetched). NotFound for a commit it lacks.
  // The walk visits the commits between the two, so it is bounded by the
  // history the mirror holds; it is made under the mirror's lock (git/history.cc).
  Result<std::vector<CommitSummary>> Log(const std::string& from, const std::string& to,
                                         size_t max);

  // The branch the remote's HEAD names (its default branch), asked of the
  // remote within the mirror's limits. NotFound if HEAD names none (a remote
  // without a symbolic HEAD); Unavailable / Unauthenticated as FetchBranch.
  Result<std::string> DefaultBranch();

  // A commit whose tree is the base's with the workspace's changes applied (only
  // the changed paths' trees are rewritten) and whose parent is the base commit.
  // InvalidArgument when there are no changes.
  Result<std::string> Commit(const Workspace& work, const Identity& author,
                             const std::string& message);

  // Drops the mirror's copy of `branch`'s head (the objects stay). A mirror that
  // keeps a ref for every branch it ever fetched makes each later fetch and push
  // slower: libgit2 walks all of them.
  void Forget(const std::string& branch);

  // The changes of `head` since it forked from `base` (their merge base), at most
  // `max_bytes` of patch. Both commits must be in the mirror (fetched). A file
  // over kMaxDiffFileBytes is shown as "large file changed" with its sizes. The
  // comparison charges `budget`, if given, an entry per path compared and the
  // bytes of every file compared, and stops (ResourceExhausted) once it is spent.
  Result<DiffText> Diff(const std::string& base, const std::string& head, size_t max_bytes,
                        WorkBudget* budget = nullptr);

  // Sets the remote's `branch` to `commit`, as a lease: only if the branch points
  // at `expected_head` now (nullopt: only if it does not exist yet). The check and
  // the update use one connection, and the server re-checks the old value, so
  // nothing pushed meanwhile is overwritten. Conflict otherwise: fetch, rebuild on
  // the new head, and try again.
  // `cancelled` and the limits, as for FetchBranches: a push abandoned or timed
  // out before the remote has all of its objects updates no branch.
  Status Push(const std::string& commit, const std::string& branch,
              const std::optional<std::string>& expected_head,
              const std::function<bool()>& cancelled = {});

  // Merges branch `head` into branch `base` on the remote (git/merge.cc):
  // fetches both, makes the merge (PrepareMerge) and pushes `base` under a lease
  // on the head it was made on, each transfer within the mirror's limits and
  // `cancelled` as for FetchBranches. NotFound when the remote lacks either
  // branch; Conflict, with nothing pushed, when the branches conflict (naming
  // the paths), when a fast-forward is asked for and is not possible, or when
  // `base` moved on the remote meanwhile (never overwritten: try again), or
  // when `expected_head` is given and the branch's head on the remote is another
  // commit (what was reviewed is not what would be merged).
  Result<MergeOutcome> Merge(const std::string& head, const std::string& base, MergeMethod method,
                             const Identity& committer, const std::function<bool()>& cancelled = {},
                             const std::string& expected_head = {});

  // The merge of commit `head_commit` (branch `head`) into `base_commit`
  // (branch `base`), both already in the mirror, without the network: for
  // kMerge a commit "Merge branch 'HEAD' into 'BASE'" by `committer` whose
  // parents are the base's and the branch's heads and whose tree is libgit2's
  // three-way merge of theirs from their merge base (renames found); for
  // kFastForward the branch's head. Conflict as Merge; InvalidArgument for
  // commits without a common history.
  Result<MergeOutcome> PrepareMerge(const std::string& base_commit, const std::string& head_commit,
                                    const std::string& head, const std::string& base,
                                    MergeMethod method, const Identity& committer);

 private:
  struct Impl;
  explicit Mirror(std::unique_ptr<Impl> impl);
  // Runs `work` on the mirror's repository, serialised with the mirror's other
  // methods (within the lock timeout); for the engine's own files (merge.cc).
  Status WithRepository(const std::function<Status(git_repository*)>& work);
  std::unique_ptr<Impl> impl_;
};

// What a repository is, as `project create` and `project update` check it
// before storing a project (see ProbeRemote).
struct RemoteProbe {
  std::string url;                            // as given, or, for a local path, made absolute
  std::optional<std::string> default_branch;  // the branch HEAD names; nullopt if none
  std::vector<std::string> branches;          // sorted; at most kMaxProbedBranches
  size_t branch_count = 0;                    // all of them
  bool HasBranch(const std::string& name) const;
};
inline constexpr size_t kMaxProbedBranches = 100000;

// Reaches the repository `url` names, within `limits` (connect and idle
// timeouts), as a project's turns will: a path (relative ones are made absolute),
// file://, http(s)://, ssh:// or scp-like user@host:path, with `credentials`.
// A path must be a bare repository on this machine (pushes to a checked-out
// branch are refused by git, after a turn has been paid for). Errors, each
// saying what to do: InvalidArgument for a path that does not exist, is not a
// git repository or is not bare, or a URL no transport takes; Unauthenticated
// for refused credentials or host key; Unavailable for a remote that cannot be
// reached. An empty repository is OK (no branches).
Result<RemoteProbe> ProbeRemote(const std::string& url, const Credentials& credentials,
                                const TransferLimits& limits);

}  // namespace docwright::git
