// The hosted forges: GitHub (REST v3), GitLab (merge requests, API v4) and Gitea
// or Forgejo (API v1). Each finds the open pull request of the branch first and
// creates one only when there is none; a create that races another (the forge
// says it exists) looks again, so a retried request never makes a second one.
#include "forge/hosted.h"

#include "core/url.h"

#include "forge/rest_client.h"

namespace docwright::forge {
namespace {

using nlohmann::json;

std::string ApiBase(const Project& project, const RepositoryLocation& where,
                    const std::string& default_path) {
  if (project.forge_api_url && !project.forge_api_url->empty()) return *project.forge_api_url;
  std::string scheme = where.scheme == "http" ? "http" : "https";
  return scheme + "://" + where.host + default_path;
}

// "owner/repo" into its two parts; InvalidArgument for anything else.
Result<std::pair<std::string, std::string>> OwnerAndRepo(const RepositoryLocation& where,
                                                         const std::string& forge) {
  size_t slash = where.path.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == where.path.size() ||
      where.path.find('/', slash + 1) != std::string::npos) {
    return Status::InvalidArgument("the repository URL must name " + forge +
                                   "'s owner/repository, got path \"" + where.path + "\"");
  }
  return std::make_pair(where.path.substr(0, slash), where.path.substr(slash + 1));
}

Result<PullRequest> FromReply(const json& pr, const char* url_field, const char* number_field,
                              const std::string& forge) {
  if (!pr.is_object() || !pr.contains(url_field) || !(*pr.find(url_field)).is_string() ||
      !pr.contains(number_field) || !(*pr.find(number_field)).is_number_integer()) {
    return Status::Unavailable(forge + " answered without the pull request's " + url_field);
  }
  return PullRequest{pr[url_field].get<std::string>(), pr[number_field].get<int64_t>()};
}

// "/repos/{owner}/{repo}": GitHub's path of a repository, which Gitea's API follows.
std::string ReposPath(const std::string& owner, const std::string& repo) {
  return "/repos/" + PercentEncode(owner) + "/" + PercentEncode(repo);
}

// Sets the title and description of the pull request `found` under `repo_path`
// (GitHub and Gitea alike); returns it.
Result<PullRequest> UpdatePull(RestClient& api, const std::string& repo_path,
                               const PullRequest& found, const std::string& title,
                               const std::string& body) {
  json update{{"title", title}, {"body", body}};
  auto updated = api.Call("PATCH", repo_path + "/pulls/" + std::to_string(found.number), update);
  if (!updated.ok()) return updated.status();
  return found;
}

// --- GitHub -----------------------------------------------------------------------

class GithubForge final : public Forge {
 public:
  GithubForge(std::string owner, std::string repo, std::unique_ptr<RestClient> api)
      : owner_(std::move(owner)), repo_(std::move(repo)), api_(std::move(api)) {}

  Result<PullRequest> Ensure(const PullRequestSpec& spec) override {
    auto found = Find(spec);
    if (!found.ok()) return found.status();
    if (!*found) {
      json create{{"title", spec.title},
                  {"body", spec.body},
                  {"head", spec.head},
                  {"base", spec.base},
                  {"draft", spec.draft}};
      auto created = api_->Call("POST", Repo() + "/pulls", create, {422});
      if (!created.ok()) return created.status();
      if (created->status != 422) return FromReply(created->body, "html_url", "number", "GitHub");
      // 422: it exists already (an earlier attempt got through), or a real refusal.
      found = Find(spec);
      if (!found.ok()) return found.status();
      if (!*found) {
        return Status::InvalidArgument("GitHub refused to open the pull request: " +
                                       created->body.dump().substr(0, 400));
      }
      return **found;
    }
    return UpdatePull(*api_, Repo(), **found, spec.title, spec.body);
  }

 private:
  std::string Repo() const { return ReposPath(owner_, repo_); }

  Result<std::optional<PullRequest>> Find(const PullRequestSpec& spec) {
    // By head only: the branch has at most one open pull request, whatever base a
    // reviewer may have moved it to. "owner:branch" leaves out forks' branches.
    auto listed =
        api_->Call("GET",
                   Repo() + "/pulls?state=open&head=" + PercentEncode(owner_ + ":" + spec.head) +
                       "&per_page=10",
                   std::nullopt);
    if (!listed.ok()) return listed.status();
    if (!listed->body.is_array()) return Status::Unavailable("GitHub answered a list with no list");
    for (const json& pr : listed->body) {
      auto head = pr.find("head");
      if (head == pr.end() || !head->is_object() || head->value("ref", "") != spec.head) continue;
      auto parsed = FromReply(pr, "html_url", "number", "GitHub");
      if (!parsed.ok()) return parsed.status();
      return std::optional<PullRequest>(*parsed);
    }
    return std::optional<PullRequest>();
  }

  std::string owner_, repo_;
  std::unique_ptr<RestClient> api_;
};

// --- GitLab -----------------------------------------------------------------------

class GitlabForge final : public Forge {
 public:
  GitlabForge(std::string project_path, std::unique_ptr<RestClient> api)
      : project_(PercentEncode(project_path)), api_(std::move(api)) {}

  Result<PullRequest> Ensure(const PullRequestSpec& spec) override {
    std::string title = spec.draft ? "Draft: " + spec.title : spec.title;
    auto found = Find(spec);
    if (!found.ok()) return found.status();
    if (!*found) {
      json create{{"source_branch", spec.head},
                  {"target_branch", spec.base},
                  {"title", title},
                  {"description", spec.body}};
      // 409: another open merge request has this source branch already.
      auto created = api_->Call("POST", Project() + "/merge_requests", create, {409});
      if (!created.ok()) return created.status();
      if (created->status != 409) return FromReply(created->body, "web_url", "iid", "GitLab");
      found = Find(spec);
      if (!found.ok()) return found.status();
      if (!*found) return Status::InvalidArgument("GitLab refused to open the merge request (409)");
      return **found;
    }
    json update{{"title", title}, {"description", spec.body}};
    auto updated = api_->Call(
        "PUT", Project() + "/merge_requests/" + std::to_string((*found)->number), update);
    if (!updated.ok()) return updated.status();
    return **found;
  }

 private:
  std::string Project() const { return "/projects/" + project_; }

  Result<std::optional<PullRequest>> Find(const PullRequestSpec& spec) {
    // By source branch only (a reviewer may have retargeted it), and only merge
    // requests from this project itself, not from forks with a same-named branch.
    auto listed = api_->Call(
        "GET", Project() + "/merge_requests?state=opened&source_branch=" + PercentEncode(spec.head),
        std::nullopt);
    if (!listed.ok()) return listed.status();
    if (!listed->body.is_array()) return Status::Unavailable("GitLab answered a list with no list");
    for (const json& mr : listed->body) {
      if (!mr.is_object() || mr.value("source_branch", "") != spec.head) continue;
      if (mr.contains("source_project_id") && mr.contains("target_project_id") &&
          mr["source_project_id"] != mr["target_project_id"]) {
        continue;
      }
      auto parsed = FromReply(mr, "web_url", "iid", "GitLab");
      if (!parsed.ok()) return parsed.status();
      return std::optional<PullRequest>(*parsed);
    }
    return std::optional<PullRequest>();
  }

  std::string project_;
  std::unique_ptr<RestClient> api_;
};

// --- Gitea and Forgejo ------------------------------------------------------------

class GiteaForge final : public Forge {
 public:
  // Open pull requests are listed a page at a time, newest activity first; the
  // branch's own is looked for in at most this many pages.
  static constexpr int kPageSize = 50;
  static constexpr int kMaxPages = 20;

  GiteaForge(std::string owner, std::string repo, std::unique_ptr<RestClient> api)
      : owner_(std::move(owner)), repo_(std::move(repo)), api_(std::move(api)) {}

  Result<PullRequest> Ensure(const PullRequestSpec& spec) override {
    // Gitea marks drafts by the title's prefix.
    std::string title = spec.draft ? "WIP: " + spec.title : spec.title;
    auto found = Find(spec);
    if (!found.ok()) return found.status();
    if (!*found) {
      json create{{"head", spec.head}, {"base", spec.base}, {"title", title}, {"body", spec.body}};
      // 409: a pull request for these branches exists already.
      auto created = api_->Call("POST", Repo() + "/pulls", create, {409});
      if (!created.ok()) return created.status();
      if (created->status != 409) return FromReply(created->body, "html_url", "number", "Gitea");
      found = Find(spec);
      if (!found.ok()) return found.status();
      if (!*found) return Status::InvalidArgument("Gitea refused to open the pull request (409)");
      return **found;
    }
    return UpdatePull(*api_, Repo(), **found, title, spec.body);
  }

 private:
  std::string Repo() const { return ReposPath(owner_, repo_); }

  Result<std::optional<PullRequest>> Find(const PullRequestSpec& spec) {
    for (int page = 1; page <= kMaxPages; ++page) {
      auto listed =
          api_->Call("GET",
                     Repo() + "/pulls?state=open&sort=recentupdate&page=" + std::to_string(page) +
                         "&limit=" + std::to_string(kPageSize),
                     std::nullopt);
      if (!listed.ok()) return listed.status();
      if (!listed->body.is_array())
        return Status::Unavailable("Gitea answered a list with no list");
      for (const json& pr : listed->body) {
        if (!pr.is_object()) continue;
        // The branch's own, whatever its base now, and not a fork's branch of the
        // same name.
        auto head = pr.find("head");
        auto base = pr.find("base");
        if (head == pr.end() || base == pr.end() || !head->is_object() || !base->is_object() ||
            head->value("ref", "") != spec.head) {
          continue;
        }
        if (head->contains("repo_id") && base->contains("repo_id") &&
            (*head)["repo_id"] != (*base)["repo_id"]) {
          continue;
        }
        auto parsed = FromReply(pr, "html_url", "number", "Gitea");
        if (!parsed.ok()) return parsed.status();
        return std::optional<PullRequest>(*parsed);
      }
      if (listed->body.size() < kPageSize) break;
    }
    return std::optional<PullRequest>();
  }

  std::string owner_, repo_;
  std::unique_ptr<RestClient> api_;
};

}  // namespace

Result<std::unique_ptr<Forge>> MakeHostedForge(const Project& project,
                                               const ForgeContext& context) {
  auto where = ParseRepositoryUrl(project.repository);
  if (!where.ok()) return where.status();
  std::string token = project.forge_token.value_or("");
  switch (project.forge) {
    case docwright::ForgeKind::kGithub: {
      auto names = OwnerAndRepo(*where, "GitHub");
      if (!names.ok()) return names.status();
      std::string api = ApiBase(project, *where, "/api/v3");  // GitHub Enterprise
      bool dotcom = where->host == "github.com" &&
                    !(project.forge_api_url && !project.forge_api_url->empty());
      if (dotcom) api = "https://api.github.com";
      std::vector<std::pair<std::string, std::string>> headers{
          {"Accept", "application/vnd.github+json"},
          {"X-GitHub-Api-Version", "2022-11-28"},
          {"User-Agent", "docwright"}};
      if (!token.empty()) headers.emplace_back("Authorization", "Bearer " + token);
      return std::unique_ptr<Forge>(std::make_unique<GithubForge>(
          names->first, names->second,
          std::make_unique<RestClient>("GitHub", api, std::move(headers), context)));
    }
    case docwright::ForgeKind::kGitlab: {
      if (where->path.find('/') == std::string::npos) {
        return Status::InvalidArgument(
            "the repository URL must name GitLab's group/project, got \"" + where->path + "\"");
      }
      std::vector<std::pair<std::string, std::string>> headers{{"User-Agent", "docwright"}};
      if (!token.empty()) headers.emplace_back("PRIVATE-TOKEN", token);
      return std::unique_ptr<Forge>(std::make_unique<GitlabForge>(
          where->path, std::make_unique<RestClient>("GitLab", ApiBase(project, *where, "/api/v4"),
                                                    std::move(headers), context)));
    }
    case docwright::ForgeKind::kGitea: {
      auto names = OwnerAndRepo(*where, "Gitea");
      if (!names.ok()) return names.status();
      std::vector<std::pair<std::string, std::string>> headers{{"User-Agent", "docwright"}};
      if (!token.empty()) headers.emplace_back("Authorization", "token " + token);
      return std::unique_ptr<Forge>(std::make_unique<GiteaForge>(
          names->first, names->second,
          std::make_unique<RestClient>("Gitea", ApiBase(project, *where, "/api/v1"),
                                       std::move(headers), context)));
    }
    case docwright::ForgeKind::kLocal:
      break;
  }
  return Status::InvalidArgument("not a hosted forge");
}

}  // namespace docwright::forge
