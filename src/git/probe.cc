// ProbeRemote: what a repository is, checked before a project is stored.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "core/url.h"
#include "git/git.h"
#include "git/libgit2.h"
#include "git/remote_session.h"

namespace docwright::git {
namespace {

constexpr std::string_view kHeadsPrefix = "refs/heads/";

void AddBranch(RemoteProbe& probe, std::string_view ref) {
  if (ref.substr(0, kHeadsPrefix.size()) != kHeadsPrefix) return;
  ++probe.branch_count;
  if (probe.branches.size() < kMaxProbedBranches) {
    probe.branches.emplace_back(ref.substr(kHeadsPrefix.size()));
  }
}

std::optional<std::string> BranchOf(std::string_view ref) {
  if (ref.substr(0, kHeadsPrefix.size()) != kHeadsPrefix) return std::nullopt;
  return std::string(ref.substr(kHeadsPrefix.size()));
}

// A repository on this machine, by path: opened directly, so that what it is
// (missing, not a repository, not bare) is told plainly.
Result<RemoteProbe> ProbePath(const std::string& given) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path path = fs::absolute(given, ec);
  if (ec) return Status::InvalidArgument("cannot resolve the path " + given);
  path = path.lexically_normal();
  std::string shown = path.string();
  if (shown.size() > 1 && shown.back() == '/') shown.pop_back();
  struct stat st {};
  if (stat(shown.c_str(), &st) != 0) {
    return Status::InvalidArgument(
        "no such repository: " + shown +
        " does not exist (give the path of a bare git repository, or its URL)");
  }
  if (!S_ISDIR(st.st_mode)) {
    return Status::InvalidArgument(shown + " is not a git repository (it is not a directory)");
  }
  git_repository* raw = nullptr;
  int rc = git_repository_open_ext(&raw, shown.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr);
  RepoPtr repo(raw);
  if (rc != 0) {
    return Status::InvalidArgument(
        shown + " is not a git repository (make one with: git init --bare " + shown + ")");
  }
  if (!git_repository_is_bare(repo.get())) {
    return Status::InvalidArgument(
        shown +
        " is not a bare repository: docwright pushes each job's branch to it, and git refuses "
        "pushes into a checked-out repository. Make a bare copy and use that: git clone --bare " +
        shown + " " + shown + ".git");
  }
  RemoteProbe probe;
  probe.url = shown;
  git_reference* head = nullptr;
  if (git_reference_lookup(&head, repo.get(), "HEAD") == 0) {
    RefPtr held(head);
    if (git_reference_type(head) == GIT_REFERENCE_SYMBOLIC) {
      probe.default_branch = BranchOf(git_reference_symbolic_target(head));
    }
  }
  git_branch_iterator* it = nullptr;
  if (git_branch_iterator_new(&it, repo.get(), GIT_BRANCH_LOCAL) == 0) {
    git_reference* ref = nullptr;
    git_branch_t type;
    while (git_branch_next(&ref, &type, it) == 0) {
      AddBranch(probe, git_reference_name(ref));
      git_reference_free(ref);
    }
    git_branch_iterator_free(it);
  }
  // A HEAD naming a branch that does not exist (an empty repository's) names
  // the branch its first push will make: still the default.
  return probe;
}

// Any other URL: through the transport the turns will use, with their limits.
Result<RemoteProbe> ProbeUrl(const std::string& url, const Credentials& credentials,
                             const TransferLimits& limits) {
  const std::string shown = RedactCredentials(url);
  TransferScope scope(limits, {});  // before the remote: it outlives its connections
  git_remote* raw = nullptr;
  int rc = git_remote_create_detached(&raw, url.c_str());
  RemotePtr remote(raw);
  if (rc != 0) {
    return Status::InvalidArgument("not a repository URL: " + shown + " (" + LastError() + ")");
  }
  RemoteSession session{credentials, url, nullptr, &scope};
  git_remote_callbacks callbacks = Callbacks(&session);
  git_error_clear();
  rc = git_remote_connect(remote.get(), GIT_DIRECTION_FETCH, &callbacks, nullptr, nullptr);
  if (rc != 0) {
    Status s = SessionFail(session, "cannot reach " + shown, rc);
    if (s.code() == Code::kInternal) return Status::Unavailable(s.message());
    return s;
  }
  const git_remote_head** heads = nullptr;
  size_t n = 0;
  rc = git_remote_ls(&heads, &n, remote.get());
  if (rc != 0) return SessionFail(session, "cannot list the branches of " + shown, rc);
  RemoteProbe probe;
  probe.url = url;
  for (size_t i = 0; i < n; ++i) {
    std::string_view name = heads[i]->name;
    if (name == "HEAD" && heads[i]->symref_target) {
      probe.default_branch = BranchOf(heads[i]->symref_target);
    }
    AddBranch(probe, name);
  }
  git_remote_disconnect(remote.get());
  return probe;
}

bool IsUrl(const std::string& repository) {
  return ParseUrl(repository).has_value() || repository.rfind("file:", 0) == 0;
}

}  // namespace

Credentials CredentialsFor(const Project& project) {
  Credentials credentials;
  credentials.token = project.forge_token;
  if (project.forge == ForgeKind::kGitlab) credentials.token_user = "oauth2";
  credentials.ssh_key_path = project.ssh_key_path;
  credentials.ssh_known_hosts_path = project.ssh_known_hosts_path.value_or("");
  return credentials;
}

bool RemoteProbe::HasBranch(const std::string& name) const {
  return std::find(branches.begin(), branches.end(), name) != branches.end();
}

Result<RemoteProbe> ProbeRemote(const std::string& url, const Credentials& credentials,
                                const TransferLimits& limits) {
  if (const Status& ready = EnsureLibrary(); !ready.ok()) return ready;
  auto probe = IsUrl(url) ? ProbeUrl(url, credentials, limits) : ProbePath(url);
  if (probe.ok()) std::sort(probe->branches.begin(), probe->branches.end());
  return probe;
}

}  // namespace docwright::git
