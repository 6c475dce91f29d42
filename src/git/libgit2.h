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

}  // namespace docwright::git
