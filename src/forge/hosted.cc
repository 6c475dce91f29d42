// The hosted forges: GitHub (REST v3), GitLab (merge requests, API v4) and Gitea
// or Forgejo (API v1). Each finds the open pull request of the branch first and
// creates one only when there is none; a create that races another (the forge
// says it exists) looks again, so a retried request never makes a second one.
// An account's permission and comments on a pull request go through each
// forge's REST API too; a comment, like every request, is retried on 5xx and
// rate limits (a comment a forge stored before failing may then show twice).
#include "forge/hosted.h"

#include <cctype>

#include <algorithm>

#include "core/text.h"
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

// The web address of the repository `where` names ("https://host/owner/repo"):
// where its commits' pages are. An SSH remote's pages are served over https.
std::string WebBase(const RepositoryLocation& where) {
  std::string scheme = where.scheme == "http" ? "http" : "https";
  return scheme + "://" + where.host + "/" + where.path;
}

// A commit id as the forges name one: 40 (SHA-1) or 64 (SHA-256) hex digits.
bool IsCommitId(const std::string& sha) {
  if (sha.size() != 40 && sha.size() != 64) return false;
  for (char c : sha) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// A string field of a reply, "" when absent or of another type.
std::string Text(const json& reply, const char* field) {
  if (!reply.is_object()) return "";
  auto it = reply.find(field);
  return it != reply.end() && it->is_string() ? it->get<std::string>() : "";
}

// A pull request's state from GitHub's and Gitea's fields: `merged`, and
// `state` ("open" or "closed").
Result<PullRequestStatus> PullStatus(const RestReply& reply, const std::string& forge,
                                     int64_t number) {
  if (reply.status == 404) {
    return Status::NotFound(forge + " has no pull request #" + std::to_string(number));
  }
  const json& pr = reply.body;
  std::string state = Text(pr, "state");
  if (state != "open" && state != "closed") {
    return Status::Unavailable(forge + " answered without the pull request's state");
  }
  auto merged = pr.find("merged");
  if (merged != pr.end() && merged->is_boolean() && merged->get<bool>()) {
    return PullRequestStatus{"merged", Text(pr, "merge_commit_sha")};
  }
  return PullRequestStatus{state, ""};
}

// The number of a pull request in a path.
std::string Number(int64_t number) { return std::to_string(number); }

// The outcome of a merge the forge refused with `refusal` (its status and
// text): a merge that went through on an earlier attempt (a retry after a
// lost reply is refused as "not mergeable") is a success; anything else is
// Conflict, in the forge's words.
Result<MergeResult> RefusedMerge(Forge& forge, const std::string& name, int64_t number,
                                 const RestReply& refusal) {
  auto now = forge.State(number);
  if (now.ok() && now->state == "merged" && !now->merge_commit.empty()) {
    return MergeResult{now->merge_commit, forge.CommitUrl(now->merge_commit)};
  }
  std::string why;
  if (refusal.body.is_object()) {
    for (const char* field : {"message", "error"}) {
      auto it = refusal.body.find(field);
      if (it == refusal.body.end()) continue;
      why = it->is_string() ? it->get<std::string>() : it->dump();
      break;
    }
  }
  if (why.size() > 400) why = why.substr(0, 400) + "...";
  return Status::Conflict(name + " refused to merge pull request #" + Number(number) + " (" +
                          std::to_string(refusal.status) + (why.empty() ? "" : ": " + why) + ")");
}

// A login as a path segment or query value: 1 to 255 bytes without control
// characters (PercentEncode takes care of the rest). The forges' own rules are
// narrower; this only keeps what comes from a webhook from shaping a request.
Status CheckLogin(const std::string& login, const std::string& forge) {
  if (login.empty() || login.size() > 255 || HasControlCharacter(ScrubUtf8(login), false)) {
    return Status::InvalidArgument("not an account name " + forge + " could know");
  }
  return Status();
}

// The most bytes of a comment docwright posts: below GitHub's limit of 65536
// characters, the lowest of the forges'.
constexpr size_t kMaxCommentBytes = 60000;

json CommentPayload(const std::string& body) {
  std::string text(CutUtf8(ScrubUtf8(body), kMaxCommentBytes));
  return json{{"body", text}};
}

// Whether the reply's "permission" (GitHub's and Gitea's collaborator
// permission) is one of `writers`.
Result<bool> PermissionWrites(const json& reply, std::initializer_list<const char*> writers,
                              const std::string& forge) {
  auto it = reply.is_object() ? reply.find("permission") : reply.end();
  if (!reply.is_object() || it == reply.end() || !it->is_string()) {
    return Status::Unavailable(forge + " answered without the account's permission");
  }
  const std::string permission = it->get<std::string>();
  for (const char* w : writers) {
    if (permission == w) return true;
  }
  return false;
}

bool AllDigits(const std::string& s) {
  return !s.empty() && s.size() <= 20 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// --- GitHub -----------------------------------------------------------------------

class GithubForge final : public Forge {
 public:
  GithubForge(std::string owner, std::string repo, std::string web, std::unique_ptr<RestClient> api)
      : owner_(std::move(owner)),
        repo_(std::move(repo)),
        web_(std::move(web)),
        api_(std::move(api)) {}

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

  Result<PullRequestStatus> State(int64_t number) override {
    auto got = api_->Call("GET", Repo() + "/pulls/" + Number(number), std::nullopt, {404});
    if (!got.ok()) return got.status();
    return PullStatus(*got, "GitHub", number);
  }

  Result<MergeResult> Merge(int64_t number, const std::string& head_commit) override {
    // 405: not mergeable (conflicts, required checks or reviews, closed);
    // 409: the head is no longer `sha`.
    json merge{{"sha", head_commit}, {"merge_method", "merge"}};
    auto merged =
        api_->Call("PUT", Repo() + "/pulls/" + Number(number) + "/merge", merge, {405, 409});
    if (!merged.ok()) return merged.status();
    if (merged->status != 200) return RefusedMerge(*this, "GitHub", number, *merged);
    std::string sha = Text(merged->body, "sha");
    if (sha.empty()) return Status::Unavailable("GitHub answered a merge without its commit");
    return MergeResult{sha, CommitUrl(sha)};
  }

  std::string CommitUrl(const std::string& sha) const override {
    return IsCommitId(sha) ? web_ + "/commit/" + sha : "";
  }

  // GET /repos/{owner}/{repo}/collaborators/{username}/permission: "admin",
  // "maintain" and "write" may push; "triage", "read" and "none" may not. 404
  // for an account GitHub does not know.
  Result<bool> CanWrite(const std::string& login) override {
    if (Status s = CheckLogin(login, "GitHub"); !s.ok()) return s;
    auto reply =
        api_->Call("GET", Repo() + "/collaborators/" + PercentEncode(login) + "/permission",
                   std::nullopt, {404});
    if (!reply.ok()) return reply.status();
    if (reply->status == 404) return Status::NotFound("GitHub knows no account " + login);
    return PermissionWrites(reply->body, {"admin", "maintain", "write"}, "GitHub");
  }

  // A reply in a review comment's thread (POST .../pulls/{n}/comments/{id}/replies),
  // else a comment on the pull request's conversation (POST .../issues/{n}/comments:
  // a pull request is an issue). A thread whose comment is gone (404) gets the
  // reply on the conversation instead.
  Status Comment(int64_t number, const std::string& body,
                 const std::optional<std::string>& in_reply_to) override {
    json payload = CommentPayload(body);
    const std::string n = std::to_string(number);
    if (in_reply_to && AllDigits(*in_reply_to)) {
      auto replied =
          api_->Call("POST", Repo() + "/pulls/" + n + "/comments/" + *in_reply_to + "/replies",
                     payload, {404});
      if (!replied.ok()) return replied.status();
      if (replied->status != 404) return Status();
    }
    return api_->Call("POST", Repo() + "/issues/" + n + "/comments", payload).status();
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

  std::string owner_, repo_, web_;
  std::unique_ptr<RestClient> api_;
};

// --- GitLab -----------------------------------------------------------------------

class GitlabForge final : public Forge {
 public:
  // GitLab's access level of a Developer, the least that may push.
  static constexpr int64_t kDeveloperAccess = 30;

  GitlabForge(std::string project_path, std::string web, std::unique_ptr<RestClient> api)
      : project_(PercentEncode(project_path)), web_(std::move(web)), api_(std::move(api)) {}

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

  Result<PullRequestStatus> State(int64_t number) override {
    auto got =
        api_->Call("GET", Project() + "/merge_requests/" + Number(number), std::nullopt, {404});
    if (!got.ok()) return got.status();
    if (got->status == 404) {
      return Status::NotFound("GitLab has no merge request !" + Number(number));
    }
    return StateOf(got->body);
  }

  Result<MergeResult> Merge(int64_t number, const std::string& head_commit) override {
    // 405: not mergeable now (draft, closed, a pipeline required); 406 and
    // 422: conflicts; 409: the source branch's head is no longer `sha`.
    json merge{{"sha", head_commit}};
    auto merged = api_->Call("PUT", Project() + "/merge_requests/" + Number(number) + "/merge",
                             merge, {405, 406, 409, 422});
    if (!merged.ok()) return merged.status();
    if (merged->status != 200) return RefusedMerge(*this, "GitLab", number, *merged);
    auto now = StateOf(merged->body);
    if (!now.ok()) return now.status();
    if (now->state != "merged" || now->merge_commit.empty()) {
      // Accepted, but merged later (a merge train, a pipeline to wait for).
      return Status::Conflict("GitLab accepted merge request !" + Number(number) +
                              " but has not merged it yet");
    }
    return MergeResult{now->merge_commit, CommitUrl(now->merge_commit)};
  }

  std::string CommitUrl(const std::string& sha) const override {
    return IsCommitId(sha) ? web_ + "/-/commit/" + sha : "";
  }

  // The account's id (GET /users?username=), then its membership of the
  // project, inherited ones included (GET /projects/:id/members/all/:user_id):
  // Developer (30) and above may push. Not a member (404): false.
  Result<bool> CanWrite(const std::string& login) override {
    if (Status s = CheckLogin(login, "GitLab"); !s.ok()) return s;
    auto users = api_->Call("GET", "/users?username=" + PercentEncode(login), std::nullopt);
    if (!users.ok()) return users.status();
    if (!users->body.is_array()) return Status::Unavailable("GitLab answered a list with no list");
    std::optional<int64_t> id;
    for (const json& u : users->body) {
      if (!u.is_object() || !u.contains("id") || !u["id"].is_number_integer()) continue;
      auto name = u.find("username");
      if (name == u.end() || !name->is_string() ||
          Lower(name->get<std::string>()) != Lower(login)) {
        continue;
      }
      id = u["id"].get<int64_t>();
      break;
    }
    if (!id) return Status::NotFound("GitLab knows no account " + login);
    auto member =
        api_->Call("GET", Project() + "/members/all/" + std::to_string(*id), std::nullopt, {404});
    if (!member.ok()) return member.status();
    if (member->status == 404) return false;
    auto level = member->body.is_object() ? member->body.find("access_level") : member->body.end();
    if (!member->body.is_object() || level == member->body.end() || !level->is_number_integer()) {
      return Status::Unavailable("GitLab answered without the member's access_level");
    }
    return level->get<int64_t>() >= kDeveloperAccess;
  }

  // A note on the merge request (POST /projects/:id/merge_requests/:iid/notes):
  // replies in a discussion's thread need its discussion id, which a note's
  // webhook does not reliably give, so the reply is on the merge request.
  Status Comment(int64_t number, const std::string& body,
                 const std::optional<std::string>& in_reply_to) override {
    return api_
        ->Call("POST", Project() + "/merge_requests/" + std::to_string(number) + "/notes",
               CommentPayload(body))
        .status();
  }

 private:
  std::string Project() const { return "/projects/" + project_; }

  // A merge request's state: "opened" (and "locked", open while being
  // merged), "closed", "merged".
  static Result<PullRequestStatus> StateOf(const json& mr) {
    std::string state = Text(mr, "state");
    if (state == "merged") {
      std::string commit = Text(mr, "merge_commit_sha");
      if (commit.empty()) commit = Text(mr, "squash_commit_sha");
      return PullRequestStatus{"merged", commit};
    }
    if (state == "closed") return PullRequestStatus{"closed", ""};
    if (state == "opened" || state == "locked") return PullRequestStatus{"open", ""};
    return Status::Unavailable("GitLab answered without the merge request's state");
  }

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

  std::string project_, web_;
  std::unique_ptr<RestClient> api_;
};

// --- Gitea and Forgejo ------------------------------------------------------------

class GiteaForge final : public Forge {
 public:
  // Open pull requests are listed a page at a time, newest activity first; the
  // branch's own is looked for in at most this many pages.
  static constexpr int kPageSize = 50;
  static constexpr int kMaxPages = 20;

  GiteaForge(std::string owner, std::string repo, std::string web, std::unique_ptr<RestClient> api)
      : owner_(std::move(owner)),
        repo_(std::move(repo)),
        web_(std::move(web)),
        api_(std::move(api)) {}

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

  Result<PullRequestStatus> State(int64_t number) override {
    auto got = api_->Call("GET", Repo() + "/pulls/" + Number(number), std::nullopt, {404});
    if (!got.ok()) return got.status();
    return PullStatus(*got, "Gitea", number);
  }

  Result<MergeResult> Merge(int64_t number, const std::string& head_commit) override {
    // 405: not mergeable (conflicts, checks, closed); 409: the head is no
    // longer `head_commit_id`. A merge answers with no body: the commit is
    // read from the pull request.
    json merge{{"Do", "merge"}, {"head_commit_id", head_commit}};
    auto merged =
        api_->Call("POST", Repo() + "/pulls/" + Number(number) + "/merge", merge, {405, 409});
    if (!merged.ok()) return merged.status();
    if (merged->status / 100 != 2) return RefusedMerge(*this, "Gitea", number, *merged);
    auto now = State(number);
    if (!now.ok()) return now.status();
    if (now->state != "merged") {
      return Status::Conflict("Gitea accepted the merge of pull request #" + Number(number) +
                              " but has not merged it yet");
    }
    return MergeResult{now->merge_commit, CommitUrl(now->merge_commit)};
  }

  std::string CommitUrl(const std::string& sha) const override {
    return IsCommitId(sha) ? web_ + "/commit/" + sha : "";
  }

  // GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission:
  // "write", "admin" and "owner" may push; "read" and "none" may not. 404 for
  // an account Gitea does not know.
  Result<bool> CanWrite(const std::string& login) override {
    if (Status s = CheckLogin(login, "Gitea"); !s.ok()) return s;
    auto reply =
        api_->Call("GET", Repo() + "/collaborators/" + PercentEncode(login) + "/permission",
                   std::nullopt, {404});
    if (!reply.ok()) return reply.status();
    if (reply->status == 404) return Status::NotFound("Gitea knows no account " + login);
    return PermissionWrites(reply->body, {"write", "admin", "owner"}, "Gitea");
  }

  // A comment on the pull request (POST /repos/{o}/{r}/issues/{index}/comments):
  // Gitea's API has no replies in a review comment's thread.
  Status Comment(int64_t number, const std::string& body,
                 const std::optional<std::string>& in_reply_to) override {
    return api_
        ->Call("POST", Repo() + "/issues/" + std::to_string(number) + "/comments",
               CommentPayload(body))
        .status();
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

  std::string owner_, repo_, web_;
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
          names->first, names->second, WebBase(*where),
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
          where->path, WebBase(*where),
          std::make_unique<RestClient>("GitLab", ApiBase(project, *where, "/api/v4"),
                                       std::move(headers), context)));
    }
    case docwright::ForgeKind::kGitea: {
      auto names = OwnerAndRepo(*where, "Gitea");
      if (!names.ok()) return names.status();
      std::vector<std::pair<std::string, std::string>> headers{{"User-Agent", "docwright"}};
      if (!token.empty()) headers.emplace_back("Authorization", "token " + token);
      return std::unique_ptr<Forge>(std::make_unique<GiteaForge>(
          names->first, names->second, WebBase(*where),
          std::make_unique<RestClient>("Gitea", ApiBase(project, *where, "/api/v1"),
                                       std::move(headers), context)));
    }
    case docwright::ForgeKind::kLocal:
      break;
  }
  return Status::InvalidArgument("not a hosted forge");
}

}  // namespace docwright::forge
