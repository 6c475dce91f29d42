#include "git/local_remote.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string_view>
#include <thread>

#include "core/crash_point.h"
#include "git/ref_lock.h"

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
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return nullptr;
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
  return std::unique_ptr<LocalRemote>(
      new LocalRemote(std::move(repo), std::move(dir), st.st_dev, st.st_ino));
}

bool LocalRemote::Replaced() const {
  struct stat st {};
  return ::stat(dir_.c_str(), &st) != 0 || st.st_dev != device_ || st.st_ino != inode_;
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

Status LocalRemote::RefNameIsFree(const std::string& ref) {
  // Every ref that would be a folder of this one...
  for (size_t slash = ref.find('/', 5); slash != std::string::npos;
       slash = ref.find('/', slash + 1)) {
    if (Head(ref.substr(0, slash))) {
      return Status::Unavailable("a branch named " + ref.substr(11, slash - 11) + " exists");
    }
  }
  // ...and every ref inside it.
  git_reference_iterator* it = nullptr;
  std::string glob = ref + "/*";
  if (git_reference_iterator_glob_new(&it, repo_.get(), glob.c_str()) != 0) {
    return Fail("cannot read the remote's branches", -1);
  }
  git_reference* inside = nullptr;
  int rc = git_reference_next(&inside, it);
  git_reference_iterator_free(it);
  if (rc == 0) {
    std::string name = git_reference_name(inside);
    git_reference_free(inside);
    return Status::Unavailable("a branch named " + name.substr(11) + " exists");
  }
  git_error_clear();
  return Status();
}

void LocalRemote::AppendReflog(const std::string& ref, const git_oid& old_id,
                               const git_oid& new_id) {
  // As git: a ref's log is written if it has one, or if core.logAllRefUpdates
  // asks for it (unset in a bare repository: no logs).
  std::string log = std::string(git_repository_path(repo_.get())) + "logs/" + ref;
  std::error_code ec;
  bool has_log = std::filesystem::exists(log, ec);
  if (!has_log) {
    git_config* c = nullptr;
    if (git_repository_config_snapshot(&c, repo_.get()) != 0) return git_error_clear();
    git_buf value = GIT_BUF_INIT;
    bool wanted = false;
    if (git_config_get_string_buf(&value, c, "core.logAllRefUpdates") == 0) {
      std::string v = value.ptr;
      wanted = v == "always" || v == "true" || v == "yes" || v == "on" || v == "1";
    }
    git_buf_dispose(&value);
    git_config_free(c);
    git_error_clear();
    if (!wanted) return;
    std::filesystem::create_directories(std::filesystem::path(log).parent_path(), ec);
  }
  git_signature* s = nullptr;
  if (git_signature_default(&s, repo_.get()) != 0) {
    git_error_clear();
    if (git_signature_now(&s, "docwright", "docwright@localhost") != 0) return git_error_clear();
  }
  SigPtr sig(s);
  char offset[16];
  int minutes = std::abs(sig->when.offset) % (24 * 60);
  std::snprintf(offset, sizeof offset, "%c%02d%02d", sig->when.offset < 0 ? '-' : '+', minutes / 60,
                minutes % 60);
  std::string line = Hex(old_id) + " " + Hex(new_id) + " " + sig->name + " <" + sig->email + "> " +
                     std::to_string(sig->when.time) + " " + offset + "\tdocwright: push\n";
  // One append, as git writes its log lines.
  std::ofstream(log, std::ios::app) << line;
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

  CrashPoint("push.objects-copied");

  // The lease is the ref update itself, made under git's own lock on the ref
  // (`<ref>.lock`): the branch is read again under it and moved only if it is
  // where the turn expects. A lock another writer holds is waited for as git
  // does (core.filesRefLockTimeout), then reported; one a docwright process
  // left when it was killed is cleared (see RefLock).
  auto lock = RefLock::Acquire(git_repository_path(repo_.get()), target, Hex(commit),
                               std::chrono::seconds(1));
  if (!lock.ok()) {
    return Status::Unavailable("the remote refused the push of " + branch + ": " +
                               lock.status().message());
  }
  CrashPoint("push.ref-locked");
  git_reference* found = nullptr;
  int rc = git_reference_lookup(&found, repo_.get(), target.c_str());
  RefPtr current_ref(found);
  if (rc != 0 && rc != GIT_ENOTFOUND) return Fail("cannot read " + branch + " from the remote", rc);
  git_error_clear();
  if (current_ref && git_reference_type(current_ref.get()) == GIT_REFERENCE_SYMBOLIC) {
    return Status::Unavailable("the remote branch " + branch +
                               " is a symbolic reference; docwright does not push to one");
  }
  const git_oid* current = current_ref ? git_reference_target(current_ref.get()) : nullptr;
  if (expected ? (!current || !git_oid_equal(current, &*expected)) : current != nullptr) {
    return conflict();
  }
  if (!expected) {
    // A new branch must not be a folder of branches, nor inside a branch, as
    // git refuses (docwright/a/b while docwright/a exists, say).
    if (Status free = RefNameIsFree(target); !free.ok()) {
      return Status::Unavailable("the remote refused the push of " + branch + ": " +
                                 free.message());
    }
  }
  Status moved = lock->Commit();
  if (!moved.ok()) {
    return Status::Unavailable("the remote refused the push of " + branch + ": " + moved.message());
  }
  AppendReflog(target, current ? *current : git_oid{}, commit);
  return Status();
}

}  // namespace docwright::git
