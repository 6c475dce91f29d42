#include "git/mirror_pool.h"

#include <filesystem>
#include <system_error>
#include <utility>

namespace docwright::git {
namespace {

// A project id or context repository name is one segment of a path under the
// pool's directory: nothing in it may reach another folder.
bool SafeSegment(const std::string& s) {
  if (s.empty() || s.size() > 200 || s == "." || s == "..") return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

MirrorPool::MirrorPool(std::string dir, TransferLimits limits)
    : dir_(std::move(dir)), limits_(limits) {}

Result<std::shared_ptr<Mirror>> MirrorPool::ForProject(const Project& project) {
  if (!SafeSegment(project.id)) return Status::InvalidArgument("invalid project id");
  return Get(project.id, dir_ + "/" + project.id + ".git", project.repository,
             CredentialsFor(project));
}

Result<std::shared_ptr<Mirror>> MirrorPool::ForContext(const Project& project,
                                                       const ContextRepository& repo) {
  if (!SafeSegment(project.id)) return Status::InvalidArgument("invalid project id");
  if (!SafeSegment(repo.name)) {
    return Status::InvalidArgument("invalid context repository name");
  }
  std::string folder = dir_ + "/context/" + project.id;
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) {
    return Status::Unavailable("cannot create the folder of context repository mirrors: " +
                               ec.message());
  }
  // A key no project id can take ('/' is not in one).
  return Get("context/" + project.id + "/" + repo.name, folder + "/" + repo.name + ".git",
             repo.repository, CredentialsFor(project));
}

Result<std::shared_ptr<Mirror>> MirrorPool::Get(const std::string& key, const std::string& path,
                                                const std::string& url, Credentials credentials) {
  std::shared_ptr<Slot> slot;
  {
    MutexLock lock(mu_);
    auto& entry = slots_[key];
    if (!entry) entry = std::make_shared<Slot>();
    slot = entry;
  }
  // Opening may wait on another process's lock on this mirror: only the users
  // of this mirror wait with it, not the pool's other users.
  MutexLock open_lock(slot->mu);
  if (!slot->mirror || slot->url != url) {  // the repository was changed (`project update`)
    auto opened = Mirror::Open(path, url, std::move(credentials), limits_);
    if (!opened.ok()) return opened.status();
    slot->mirror = std::move(*opened);
    slot->url = url;
  } else {
    slot->mirror->SetCredentials(std::move(credentials));  // they may have changed
  }
  return slot->mirror;
}

}  // namespace docwright::git
