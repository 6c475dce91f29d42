// Shared by the git engine's own files, not part of its interface: ownership of
// libgit2 handles, and libgit2 errors turned into Status values.
#pragma once

#include <git2.h>

#include <memory>
#include <string>

#include "core/status.h"
#include "core/text.h"
#include "git/socket_stream.h"

namespace docwright::git {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const {
    if (p) Free(p);
  }
};
using RepoPtr = std::unique_ptr<git_repository, Deleter<git_repository, git_repository_free>>;
using RemotePtr = std::unique_ptr<git_remote, Deleter<git_remote, git_remote_free>>;
using ObjectPtr = std::unique_ptr<git_object, Deleter<git_object, git_object_free>>;
using CommitPtr = std::unique_ptr<git_commit, Deleter<git_commit, git_commit_free>>;
using TreePtr = std::unique_ptr<git_tree, Deleter<git_tree, git_tree_free>>;
using EntryPtr = std::unique_ptr<git_tree_entry, Deleter<git_tree_entry, git_tree_entry_free>>;
using BlobPtr = std::unique_ptr<git_blob, Deleter<git_blob, git_blob_free>>;
using SigPtr = std::unique_ptr<git_signature, Deleter<git_signature, git_signature_free>>;
using RefPtr = std::unique_ptr<git_reference, Deleter<git_reference, git_reference_free>>;
using OdbPtr = std::unique_ptr<git_odb, Deleter<git_odb, git_odb_free>>;
using OdbObjectPtr = std::unique_ptr<git_odb_object, Deleter<git_odb_object, git_odb_object_free>>;
using DiffPtr = std::unique_ptr<git_diff, Deleter<git_diff, git_diff_free>>;
using PatchPtr = std::unique_ptr<git_patch, Deleter<git_patch, git_patch_free>>;

// libgit2 needs one process-wide initialisation; it is never undone. Not OK if
// the socket stream with time limits could not be installed: without it a
// silent remote would hold a transfer forever.
inline const Status& EnsureLibrary() {
  static const Status once = [] {
    git_libgit2_init();
    // Objects are checked when they arrive (the indexer hashes every fetched
    // object); re-hashing each one on every read would double the cost of reads.
    git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
    return RegisterSocketStream();
  }();
  return once;
}

// libgit2's last error message, without any credentials it may quote.
inline std::string LastError() {
  const git_error* e = git_error_last();
  return RedactCredentials(e && e->message ? e->message : "unknown error");
}

// A failure talking to the remote: refused credentials or host key, or else the
// remote could not be reached or used (never NotFound: that is for refs).
inline Status RemoteFail(const std::string& what, int rc) {
  if (rc == GIT_EAUTH)
    return Status::Unauthenticated(what + ": the remote refused the credentials");
  if (rc == GIT_ECERTIFICATE) return Status::Unauthenticated(what + ": " + LastError());
  return Status::Unavailable(what + ": " + LastError());
}

// Any other failure: NotFound for a missing object or ref, Unavailable for the
// network and the file system, Internal otherwise.
inline Status Fail(const std::string& what, int rc) {
  std::string message = what + ": " + LastError();
  if (rc == GIT_EAUTH)
    return Status::Unauthenticated(what + ": the remote refused the credentials");
  if (rc == GIT_ENOTFOUND) return Status::NotFound(message);
  const git_error* e = git_error_last();
  if (e && (e->klass == GIT_ERROR_NET || e->klass == GIT_ERROR_OS || e->klass == GIT_ERROR_SSL ||
            e->klass == GIT_ERROR_HTTP || e->klass == GIT_ERROR_SSH)) {
    return Status::Unavailable(message);
  }
  return Status::Internal(message);
}

inline std::string Hex(const git_oid& oid) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof buf, &oid);
  return buf;
}

inline Result<git_oid> ParseOid(const std::string& hex) {
  git_oid oid;
  if (hex.size() != GIT_OID_HEXSZ || git_oid_fromstr(&oid, hex.c_str()) != 0) {
    return Status::InvalidArgument("not a commit id: " + hex);
  }
  return oid;
}

inline Status CheckBranch(const std::string& branch) {
  int valid = 0;
  std::string ref = "refs/heads/" + branch;
  if (branch.empty() || git_reference_name_is_valid(&valid, ref.c_str()) != 0 || !valid) {
    return Status::InvalidArgument("not a valid branch name: " + branch);
  }
  return Status();
}

// The largest tree and commit objects read: a folder of a few hundred thousand
// entries, a commit message of a mebibyte. A repository can hold a far larger
// object in little space (repeated content compresses well), and reading one
// costs its whole size and more; its size is checked from its header first.
inline constexpr size_t kMaxTreeObjectBytes = 16u << 20;
inline constexpr size_t kMaxCommitObjectBytes = 1u << 20;

// Whether object `id` is at most `max_bytes`, from its header (cheap, also for a
// delta in a pack); InvalidArgument naming `what` if it is larger. `*size`, if
// given, is set to its size.
inline Status CheckObjectSize(git_repository* repo, const git_oid& id, size_t max_bytes,
                              const std::string& what, size_t* size_out = nullptr) {
  git_odb* raw = nullptr;
  if (git_repository_odb(&raw, repo) != 0) return Fail("cannot read " + what, -1);
  std::unique_ptr<git_odb, Deleter<git_odb, git_odb_free>> odb(raw);
  size_t size = 0;
  git_object_t type;
  int rc = git_odb_read_header(&size, &type, odb.get(), &id);
  if (rc != 0) return Fail("cannot read " + what, rc);
  if (size_out) *size_out = size;
  if (size > max_bytes) {
    return Status::InvalidArgument(what + " is too large to read: " + std::to_string(size) +
                                   " bytes, the limit is " + std::to_string(max_bytes));
  }
  return Status();
}

// The tree `id`, if it is not over kMaxTreeObjectBytes; `*size`, if given, is
// set to its size (what holding it costs).
inline Result<TreePtr> LookupTree(git_repository* repo, const git_oid& id, const std::string& what,
                                  size_t* size = nullptr) {
  if (Status s = CheckObjectSize(repo, id, kMaxTreeObjectBytes, what, size); !s.ok()) return s;
  git_tree* t = nullptr;
  int rc = git_tree_lookup(&t, repo, &id);
  if (rc != 0) return Fail("cannot read " + what, rc);
  return TreePtr(t);
}

// The commit `id`, if it is not over kMaxCommitObjectBytes.
inline Result<CommitPtr> LookupCommit(git_repository* repo, const git_oid& id,
                                      const std::string& what) {
  if (Status s = CheckObjectSize(repo, id, kMaxCommitObjectBytes, what); !s.ok()) return s;
  git_commit* c = nullptr;
  int rc = git_commit_lookup(&c, repo, &id);
  if (rc != 0) return Fail("cannot read " + what, rc);
  return CommitPtr(c);
}

}  // namespace docwright::git
