#include "git/local_remote.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string_view>
#include <thread>

namespace docwright::git {

std::unique_ptr<LocalRemote> LocalRemote::Open(const std::string& url) {
  // What libgit2 itself takes for a local repository: file:///path or
  // file://localhost/path, or a path. Other hosts, and escaped URLs, are left to
  // the transport, which refuses or decodes them.
  std::string dir;
  for (std::string_view prefix : {"file:///", "file://localhost/"}) {
    if (url.starts_with(prefix)) dir = url.substr(prefix.size() - 1);
  }
  if (dir.empty() && url.find("://") == std::string::npos) dir = url;
  if (dir.empty() || dir.find('%') != std::string::npos) return nullptr;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return nullptr;
  EnsureLibrary();
  git_repository* r = nullptr;
  if (git_repository_open_ext(&r, dir.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) != 0) {
    git_error_clear();
    return nullptr;
  }
  RepoPtr repo(r);
  // libgit2 does not push to a repository with a working tree: the transport
  // says so.
  if (!git_repository_is_bare(repo.get())) return nullptr;
  return std::unique_ptr<LocalRemote>(new LocalRemote(std::move(repo)));
}

Result<std::optional<std::map<std::string, std::optional<std::string>>>> LocalRemote::Heads(
    git_repository* mirror, const std::vector<std::string>& branches) {
  using Heads = std::map<std::string, std::optional<std::string>>;
  git_odb* o = nullptr;
  int rc = git_repository_odb(&o, mirror);
  if (rc != 0) return Fail("cannot open the mirror's objects", rc);
  OdbPtr odb(o);
  Heads heads;
  for (const std::string& branch : branches) {
    git_oid head;
    std::string ref = "refs/heads/" + branch;
    rc = git_reference_name_to_id(&head, repo_.get(), ref.c_str());
    if (rc == GIT_ENOTFOUND) {
      git_error_clear();
      heads[branch] = std::nullopt;
      continue;
    }
    if (rc != 0) return Fail("cannot read " + branch + " from the remote", rc);
    if (!git_odb_exists(odb.get(), &head)) return std::optional<Heads>();
    heads[branch] = Hex(head);
  }
  return std::optional<Heads>(std::move(heads));
}

Status LocalRemote::CopyObjects(git_repository* mirror, const git_oid& commit) {
  git_odb *f = nullptr, *t = nullptr;
  int rc = git_repository_odb(&f, mirror);
  if (rc != 0) return Fail("cannot open the mirror's objects", rc);
  OdbPtr from(f);
  rc = git_repository_odb(&t, repo_.get());
  if (rc != 0) return Fail("cannot open the remote's objects", rc);
  OdbPtr to(t);
  // The object directories were read when the remote was opened, for this push:
  // a miss needs no re-read.
  auto remote_has = [&](const git_oid& id) {
    return git_odb_exists_ext(to.get(), &id, GIT_ODB_LOOKUP_NO_REFRESH) == 1;
  };
  // Depth first, without recursion (a history the remote lacks can be long): an
  // object is written once everything it refers to has been.
  struct Pending {
    git_oid id;
    bool expanded;
  };
  std::vector<Pending> stack{{commit, false}};
  std::set<std::string> seen;
  while (!stack.empty()) {
    Pending top = stack.back();
    if (top.expanded) {
      git_odb_object* raw = nullptr;
      rc = git_odb_read(&raw, from.get(), &top.id);
      if (rc != 0) return Fail("cannot read object " + Hex(top.id), rc);
      OdbObjectPtr object(raw);
      git_oid written;
      // Loose objects, as git itself stores a small push.
      rc = git_odb_write(&written, to.get(), git_odb_object_data(object.get()),
                         git_odb_object_size(object.get()), git_odb_object_type(object.get()));
      if (rc != 0) return Fail("cannot write to the remote", rc);
      if (!git_oid_equal(&written, &top.id)) {
        return Status::Internal("object " + Hex(top.id) + " is corrupt in the mirror");
      }
      stack.pop_back();
      continue;
    }
    if (!seen.insert(Hex(top.id)).second || remote_has(top.id)) {
      stack.pop_back();
      continue;
    }
    stack.back().expanded = true;
    git_object* raw = nullptr;
    rc = git_object_lookup(&raw, mirror, &top.id, GIT_OBJECT_ANY);
    if (rc != 0) return Fail("cannot read object " + Hex(top.id), rc);
    ObjectPtr object(raw);
    switch (git_object_type(raw)) {
      case GIT_OBJECT_COMMIT: {
        auto* c = reinterpret_cast<git_commit*>(raw);
        stack.push_back({*git_commit_tree_id(c), false});
        for (unsigned i = 0; i < git_commit_parentcount(c); ++i) {
          stack.push_back({*git_commit_parent_id(c, i), false});
        }
        break;
      }
      case GIT_OBJECT_TREE: {
        auto* tree = reinterpret_cast<git_tree*>(raw);
        for (size_t i = 0; i < git_tree_entrycount(tree); ++i) {
          const git_tree_entry* e = git_tree_entry_byindex(tree, i);
          // A submodule's commit lives in another repository.
          if (git_tree_entry_type(e) == GIT_OBJECT_COMMIT) continue;
          stack.push_back({*git_tree_entry_id(e), false});
        }
        break;
      }
      case GIT_OBJECT_TAG:
        stack.push_back({*git_tag_target_id(reinterpret_cast<git_tag*>(raw)), false});
        break;
      default:
        break;  // a blob refers to nothing
    }
  }
  return Status();
}

std::optional<git_oid> LocalRemote::Head(const std::string& ref) {
  git_oid head;
  if (git_reference_name_to_id(&head, repo_.get(), ref.c_str()) != 0) {
    git_error_clear();
    return std::nullopt;
  }
  return head;
}

Status LocalRemote::Push(git_repository* mirror, const git_oid& commit, const std::string& branch,
                         const std::optional<git_oid>& expected) {
  std::string target = "refs/heads/" + branch;
  auto conflict = [&] {
    return Status::Conflict("the remote branch " + branch +
                            " has changed since this turn started; fetch and try again");
  };
  // Never a forced update, as with `git push` without `+`.
  if (expected && !git_oid_equal(&commit, &*expected)) {
    int descends = git_graph_descendant_of(mirror, &commit, &*expected);
    if (descends < 0) return Fail("cannot push " + branch, descends);
    if (descends == 0) {
      return Status::Unavailable("the remote refused the push of " + branch +
                                 ": not a fast-forward");
    }
  }
  // A lease lost already costs no copying (the update below checks again).
  auto now = Head(target);
  if (expected ? (!now || !git_oid_equal(&*now, &*expected)) : now.has_value()) return conflict();

  Status copied = CopyObjects(mirror, commit);
  if (!copied.ok()) return copied;

  // The lease is the ref update itself: libgit2 takes git's lock on the ref
  // (`<ref>.lock`) and compares the old value under it. A zero old value means
  // "must not exist yet", also checked under the lock.
  git_oid old{};
  if (expected) old = *expected;
  const char* log = "docwright: push";
  // Another writer holds the lock for as long as one update takes: wait a
  // little, as git does (core.filesRefLockTimeout), then say what is in the way.
  //
  // The lock taken here is noted in the mirror first. The mirror is locked
  // across processes for the whole push, so a note found on the next push was
  // left by a process that died while it pushed (a worker killed mid-push): the
  // lock it names is removed, as git's own message advises, so the re-run of its
  // turn can push; but only if the lock is younger than the note (a lock older
  // than it was someone else's, held while the dead process waited). The branch
  // is the job's own, so another writer holding that very lock at that moment
  // is a person pushing to the job's branch during a crash's recovery.
  const std::string lock_path = git_repository_path(repo_.get()) + target + ".lock";
  const std::string note = std::string(git_repository_path(mirror)) + "docwright-remote-lock";
  {
    std::ifstream in(note);
    std::string left;
    std::error_code ec, ec2;
    if (std::getline(in, left) && !left.empty()) {
      auto noted = std::filesystem::last_write_time(note, ec);
      auto locked = std::filesystem::last_write_time(left, ec2);
      if (!ec && !ec2 && locked >= noted) std::filesystem::remove(left, ec);
    }
  }
  std::ofstream(note, std::ios::trunc) << lock_path << "\n";
  constexpr int kLockAttempts = 50;
  int rc = 0;
  for (int attempt = 0;; ++attempt) {
    git_reference* out = nullptr;
    git_error_clear();
    rc = git_reference_create_matching(&out, repo_.get(), target.c_str(), &commit, /*force=*/1,
                                       &old, log);
    RefPtr updated(out);
    if (rc != GIT_ELOCKED || attempt == kLockAttempts) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  {
    std::error_code ec;
    std::filesystem::remove(note, ec);
  }
  if (rc == 0) return Status();
  if (rc == GIT_ELOCKED) {
    return Status::Unavailable("the remote refused the push of " + branch +
                               ": the branch is locked (" + target +
                               ".lock); if no git process is updating it, remove that file");
  }
  if (rc == GIT_EMODIFIED || rc == GIT_ENOTFOUND) {
    git_reference* found = nullptr;
    if (git_reference_lookup(&found, repo_.get(), target.c_str()) == 0) {
      RefPtr ref(found);
      if (git_reference_type(ref.get()) == GIT_REFERENCE_SYMBOLIC) {
        return Status::Unavailable("the remote branch " + branch +
                                   " is a symbolic reference; docwright does not push to one");
      }
    }
    git_error_clear();
    return conflict();
  }
  if (rc == GIT_EEXISTS) {  // docwright/a/b while docwright/a exists, say
    return Status::Unavailable("the remote refused the push of " + branch + ": " + LastError());
  }
  return Fail("cannot push " + branch, rc);
}

}  // namespace docwright::git
