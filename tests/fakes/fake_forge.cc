#include "fakes/fake_forge.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

namespace docwright::testing {
namespace {

using nlohmann::json;

struct Target {
  std::string path;  // still percent-encoded
  std::map<std::string, std::string> query;
};

std::string Decode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(s[i] == '+' ? ' ' : s[i]);
    }
  }
  return out;
}

Target Split(const std::string& target) {
  Target t;
  size_t q = target.find('?');
  t.path = target.substr(0, q);
  if (q == std::string::npos) return t;
  std::string rest = target.substr(q + 1);
  while (!rest.empty()) {
    size_t amp = rest.find('&');
    std::string pair = rest.substr(0, amp);
    size_t eq = pair.find('=');
    t.query[Decode(pair.substr(0, eq))] =
        eq == std::string::npos ? "" : Decode(pair.substr(eq + 1));
    rest = amp == std::string::npos ? "" : rest.substr(amp + 1);
  }
  return t;
}

LoopbackResponse Reply(int status, const json& body) {
  return LoopbackResponse{status, {{"Content-Type", "application/json"}}, body.dump()};
}

}  // namespace

struct FakeForge::Impl {
  Kind kind;
  std::string token;
  mutable std::mutex mu;
  std::vector<FakePull> pulls;
  struct Account {
    int64_t id = 0;  // GitLab's user id
    std::string permission;
  };
  std::map<std::string, Account> accounts;  // by login
  std::vector<FakeComment> comments;
  std::vector<std::string> violations;
  std::vector<LoopbackRequest> requests;
  std::deque<LoopbackResponse> faults;
  bool race_next_create = false;
  std::unique_ptr<LoopbackHttpServer> server;  // last: stops first

  void Violation(const LoopbackRequest& req, const std::string& what) {
    violations.push_back(req.method + " " + req.target + ": " + what);
  }

  std::string Header(const LoopbackRequest& req, const std::string& name) {
    auto it = req.headers.find(name);
    return it == req.headers.end() ? "" : it->second;
  }

  bool Authorized(const LoopbackRequest& req) {
    switch (kind) {
      case Kind::kGithub:
        return Header(req, "authorization") == "Bearer " + token ||
               Header(req, "authorization") == "token " + token;
      case Kind::kGitlab:
        return Header(req, "private-token") == token ||
               Header(req, "authorization") == "Bearer " + token;
      case Kind::kGitea:
        return Header(req, "authorization") == "token " + token ||
               Header(req, "authorization") == "Bearer " + token;
    }
    return false;
  }

  // The JSON object of a request body whose fields are all in `allowed` with
  // the documented types, and has every one of `required`.
  json Body(const LoopbackRequest& req, const std::map<std::string, std::string>& allowed,
            const std::vector<std::string>& required) {
    if (Header(req, "content-type").rfind("application/json", 0) != 0) {
      Violation(req, "the body is not declared as application/json");
    }
    json body = json::parse(req.body, nullptr, false);
    if (!body.is_object()) {
      Violation(req, "the body is not a JSON object");
      return json::object();
    }
    for (const auto& [key, value] : body.items()) {
      auto it = allowed.find(key);
      if (it == allowed.end()) {
        Violation(req, "undocumented field " + key);
        continue;
      }
      bool typed = (it->second == "string" && value.is_string()) ||
                   (it->second == "boolean" && value.is_boolean());
      if (!typed) Violation(req, "field " + key + " must be a " + it->second);
    }
    for (const auto& key : required) {
      if (!body.contains(key)) Violation(req, "missing required field " + key);
    }
    return body;
  }

  FakePull* Find(int64_t number) {
    for (auto& p : pulls) {
      if (p.number == number) return &p;
    }
    return nullptr;
  }

  FakePull* OpenFor(const std::string& head, const std::string& base) {
    for (auto& p : pulls) {
      if (p.open && !p.from_fork && p.head == head && (base.empty() || p.base == base)) return &p;
    }
    return nullptr;
  }

  int64_t NextNumber() const { return static_cast<int64_t>(pulls.size()) + 1; }

  std::string WebUrl(int64_t number) const {
    std::string base = "http://127.0.0.1:" + std::to_string(server->port()) + "/acme/docs/";
    return base + (kind == Kind::kGitlab ? "-/merge_requests/" : "pull/") + std::to_string(number);
  }

  json View(const FakePull& p) const {
    switch (kind) {
      case Kind::kGithub: {
        // A whole pull request as GitHub's description requires it, from a
        // template with every required field.
        json pr = GithubTemplate();
        pr["id"] = 1000 + p.number;
        pr["number"] = p.number;
        pr["html_url"] = WebUrl(p.number);
        pr["state"] = p.open ? "open" : "closed";
        pr["merged"] = p.merged;
        pr["merge_commit_sha"] = p.merged ? json(p.merge_commit) : json(nullptr);
        pr["title"] = p.title;
        pr["body"] = p.body;
        pr["draft"] = p.draft;
        pr["head"]["ref"] = p.head;
        pr["head"]["label"] = (p.from_fork ? "forker:" : "acme:") + p.head;
        pr["base"]["ref"] = p.base;
        pr["base"]["label"] = "acme:" + p.base;
        return pr;
      }
      case Kind::kGitlab:
        return json{{"id", 1000 + p.number},
                    {"iid", p.number},
                    {"project_id", 7},
                    {"title", p.title},
                    {"description", p.body},
                    {"state", p.merged ? "merged"
                              : p.open ? "opened"
                                       : "closed"},
                    {"sha", p.head_sha.empty() ? json(nullptr) : json(p.head_sha)},
                    {"merge_commit_sha", p.merged ? json(p.merge_commit) : json(nullptr)},
                    {"source_branch", p.head},
                    {"target_branch", p.base},
                    {"source_project_id", p.from_fork ? 8 : 7},
                    {"target_project_id", 7},
                    {"web_url", WebUrl(p.number)},
                    {"draft", p.title.starts_with("Draft: ")}};
      case Kind::kGitea:
        return json{
            {"id", 1000 + p.number},
            {"number", p.number},
            {"html_url", WebUrl(p.number)},
            {"state", p.open ? "open" : "closed"},
            {"merged", p.merged},
            {"merge_commit_sha", p.merged ? json(p.merge_commit) : json(nullptr)},
            {"title", p.title},
            {"body", p.body},
            {"head", {{"ref", p.head}, {"label", p.head}, {"repo_id", p.from_fork ? 8 : 7}}},
            {"base", {{"ref", p.base}, {"label", p.base}, {"repo_id", 7}}}};
    }
    return json();
  }

  LoopbackResponse Serve(const LoopbackRequest& req) {
    std::lock_guard lock(mu);
    requests.push_back(req);
    if (!faults.empty()) {
      LoopbackResponse r = faults.front();
      faults.pop_front();
      return r;
    }
    if (!Authorized(req)) {
      return Reply(
          401, json{{"message", kind == Kind::kGithub ? "Bad credentials" : "401 Unauthorized"}});
    }
    if (Header(req, "user-agent").empty()) Violation(req, "no User-Agent");
    Target t = Split(req.target);
    switch (kind) {
      case Kind::kGithub:
        return Github(req, t);
      case Kind::kGitlab:
        return Gitlab(req, t);
      case Kind::kGitea:
        return Gitea(req, t);
    }
    return Reply(500, json{});
  }

  static const json& GithubTemplate() {
    static const json kTemplate = [] {
      std::ifstream in(DOCWRIGHT_GITHUB_OPENAPI_DIR "/pull_request_template.json");
      std::stringstream text;
      text << in.rdbuf();
      return json::parse(text.str());
    }();
    return kTemplate;
  }

  LoopbackResponse Github(const LoopbackRequest& req, const Target& t) {
    if (Header(req, "accept") != "application/vnd.github+json" &&
        Header(req, "accept").find("application/vnd.github+json") == std::string::npos) {
      Violation(req, "Accept is not application/vnd.github+json");
    }
    if (Header(req, "x-github-api-version") != "2022-11-28") {
      Violation(req, "X-GitHub-Api-Version is not 2022-11-28");
    }
    // Served at the root (api.github.com) or under /api/v3 (GitHub Enterprise).
    std::string path = t.path.starts_with("/api/v3/") ? t.path.substr(7) : t.path;
    if (auto served = GithubAccess(req, path)) return *served;
    const std::string prefix = "/repos/acme/docs/pulls";
    if (!path.starts_with(prefix)) return Reply(404, json{{"message", "Not Found"}});
    std::string rest = path.substr(prefix.size());
    if (auto one = OnePull(req, rest)) return *one;
    if (req.method == "GET" && rest.empty()) {
      for (const auto& [k, v] : t.query) {
        if (k != "state" && k != "head" && k != "base" && k != "per_page" && k != "page" &&
            k != "sort" && k != "direction") {
          Violation(req, "undocumented query parameter " + k);
        }
      }
      std::string head = t.query.count("head") ? t.query.at("head") : "";
      if (!head.empty() && !head.starts_with("acme:")) {
        Violation(req, "head must be user:ref-name");
      }
      json list = json::array();
      for (const auto& p : pulls) {
        if (t.query.count("state") && t.query.at("state") == "open" && !p.open) continue;
        if (!head.empty() && (p.from_fork ? "forker:" : "acme:") + p.head != head) continue;
        if (t.query.count("base") && t.query.at("base") != p.base) continue;
        list.push_back(View(p));
      }
      return Reply(200, list);
    }
    if (req.method == "POST" && rest.empty()) {
      json b = Body(req,
                    {{"title", "string"},
                     {"head", "string"},
                     {"head_repo", "string"},
                     {"base", "string"},
                     {"body", "string"},
                     {"maintainer_can_modify", "boolean"},
                     {"draft", "boolean"},
                     {"issue", "integer"}},
                    {"head", "base"});
      bool draft = b.value("draft", false);
      return Create(
          req, b.value("head", ""), b.value("base", ""), b.value("title", ""), b.value("body", ""),
          draft,
          Reply(422, json{{"message", "Validation Failed"},
                          {"documentation_url",
                           "https://docs.github.com/rest/pulls/pulls#create-a-pull-request"},
                          {"errors",
                           json::array({{{"resource", "PullRequest"},
                                         {"code", "custom"},
                                         {"message", "A pull request already exists for acme:" +
                                                         b.value("head", "") + "."}}})}}),
          201);
    }
    if (req.method == "PATCH" && rest.size() > 1) {
      json b = Body(req,
                    {{"title", "string"},
                     {"body", "string"},
                     {"state", "string"},
                     {"base", "string"},
                     {"maintainer_can_modify", "boolean"}},
                    {});
      return Update(req, rest.substr(1), b.value("title", ""), b.value("body", ""), 200);
    }
    return Reply(404, json{{"message", "Not Found"}});
  }

  LoopbackResponse Gitlab(const LoopbackRequest& req, const Target& t) {
    // The project is named by its URL-encoded path.
    if (auto served = GitlabAccess(req, t)) return *served;
    const std::string prefix = "/api/v4/projects/acme%2Fdocs/merge_requests";
    if (!t.path.starts_with(prefix)) return Reply(404, json{{"message", "404 Project Not Found"}});
    std::string rest = t.path.substr(prefix.size());
    if (auto one = OnePull(req, rest)) return *one;
    if (req.method == "GET" && rest.empty()) {
      static const std::vector<std::string> kKnown{
          "state", "source_branch", "target_branch", "page", "per_page", "order_by", "sort"};
      for (const auto& [k, v] : t.query) {
        if (std::find(kKnown.begin(), kKnown.end(), k) == kKnown.end()) {
          Violation(req, "undocumented query parameter " + k);
        }
      }
      if (t.query.count("state") && t.query.at("state") != "opened" &&
          t.query.at("state") != "closed" && t.query.at("state") != "merged" &&
          t.query.at("state") != "locked" && t.query.at("state") != "all") {
        Violation(req, "state must be opened, closed, locked, merged or all");
      }
      json list = json::array();
      for (const auto& p : pulls) {
        if (t.query.count("state") && t.query.at("state") == "opened" && !p.open) continue;
        if (t.query.count("source_branch") && t.query.at("source_branch") != p.head) continue;
        if (t.query.count("target_branch") && t.query.at("target_branch") != p.base) continue;
        list.push_back(View(p));
      }
      return Reply(200, list);
    }
    if (req.method == "POST" && rest.empty()) {
      json b = Body(req,
                    {{"source_branch", "string"},
                     {"target_branch", "string"},
                     {"title", "string"},
                     {"description", "string"},
                     {"remove_source_branch", "boolean"},
                     {"squash", "boolean"}},
                    {"source_branch", "target_branch", "title"});
      std::string head = b.value("source_branch", "");
      return Create(
          req, head, b.value("target_branch", ""), b.value("title", ""), b.value("description", ""),
          false,
          Reply(409, json{{"message", json::array({"Another open merge request already exists for "
                                                   "this source branch: !1"})}}),
          201);
    }
    if (req.method == "PUT" && rest.size() > 1) {
      json b = Body(req,
                    {{"title", "string"},
                     {"description", "string"},
                     {"target_branch", "string"},
                     {"state_event", "string"}},
                    {});
      return Update(req, rest.substr(1), b.value("title", ""), b.value("description", ""), 200);
    }
    return Reply(404, json{{"message", "404 Not found"}});
  }

  LoopbackResponse Gitea(const LoopbackRequest& req, const Target& t) {
    if (auto served = GiteaAccess(req, t)) return *served;
    const std::string prefix = "/api/v1/repos/acme/docs/pulls";
    if (!t.path.starts_with(prefix)) return Reply(404, json{{"message", "Not Found"}});
    std::string rest = t.path.substr(prefix.size());
    if (auto one = OnePull(req, rest)) return *one;
    if (req.method == "GET" && rest.empty()) {
      static const std::vector<std::string> kKnown{"state", "sort",  "milestone", "labels",
                                                   "page",  "limit", "poster"};
      for (const auto& [k, v] : t.query) {
        if (std::find(kKnown.begin(), kKnown.end(), k) == kKnown.end()) {
          Violation(req, "undocumented query parameter " + k);
        }
      }
      int page = t.query.count("page") ? std::stoi(t.query.at("page")) : 1;
      int limit = t.query.count("limit") ? std::stoi(t.query.at("limit")) : 30;
      if (limit > 50) Violation(req, "limit over the server's maximum page size (50)");
      std::vector<const FakePull*> matching;
      for (const auto& p : pulls) {
        if (t.query.count("state") && t.query.at("state") == "open" && !p.open) continue;
        matching.push_back(&p);
      }
      // recentupdate: the newest first, as the fake never reorders on update.
      std::reverse(matching.begin(), matching.end());
      json list = json::array();
      for (size_t i = (page - 1) * limit; i < matching.size() && i < size_t(page * limit); ++i) {
        list.push_back(View(*matching[i]));
      }
      return Reply(200, list);
    }
    if (req.method == "POST" && rest.empty()) {
      json b = Body(req,
                    {{"head", "string"},
                     {"base", "string"},
                     {"title", "string"},
                     {"body", "string"},
                     {"assignee", "string"},
                     {"due_date", "string"}},
                    {});
      return Create(req, b.value("head", ""), b.value("base", ""), b.value("title", ""),
                    b.value("body", ""), false,
                    Reply(409, json{{"message", "pull request already exists for these targets"}}),
                    201);
    }
    if (req.method == "PATCH" && rest.size() > 1) {
      json b = Body(req,
                    {{"title", "string"},
                     {"body", "string"},
                     {"base", "string"},
                     {"state", "string"},
                     {"assignee", "string"}},
                    {});
      return Update(req, rest.substr(1), b.value("title", ""), b.value("body", ""), 201);
    }
    return Reply(404, json{{"message", "Not Found"}});
  }

  // One pull request's routes, `rest` being what follows ".../pulls" (or
  // ".../merge_requests"): GET "/N" (its state) and the merge, "/N/merge" (PUT
  // on GitHub and GitLab, POST on Gitea), each as the forge documents it.
  std::optional<LoopbackResponse> OnePull(const LoopbackRequest& req, const std::string& rest) {
    size_t end = rest.find('/', 1);
    std::string tail = end == std::string::npos ? "" : rest.substr(end);
    bool merge = tail == "/merge";
    bool get = req.method == "GET" && tail.empty() && rest.size() > 1;
    if (!get && !merge) return std::nullopt;
    FakePull* p = nullptr;
    try {
      p = Find(std::stoll(rest.substr(1, end == std::string::npos ? rest.npos : end - 1)));
    } catch (...) {
    }
    if (!p)
      return Reply(404, json{{"message", kind == Kind::kGitlab ? "404 Not found" : "Not Found"}});
    if (get) return Reply(200, View(*p));
    std::string sha;
    switch (kind) {
      case Kind::kGithub: {
        if (req.method != "PUT") return Reply(404, json{{"message", "Not Found"}});
        json b = Body(req,
                      {{"commit_title", "string"},
                       {"commit_message", "string"},
                       {"sha", "string"},
                       {"merge_method", "string"}},
                      {});
        std::string method = b.value("merge_method", "merge");
        if (method != "merge" && method != "squash" && method != "rebase") {
          Violation(req, "merge_method must be merge, squash or rebase");
        }
        sha = b.value("sha", "");
        if (!p->open || !p->mergeable) {
          return Reply(405, json{{"message", "Pull Request is not mergeable"}});
        }
        if (!sha.empty() && !p->head_sha.empty() && sha != p->head_sha) {
          return Reply(409, json{{"message",
                                  "Head branch was modified. Review and try the merge "
                                  "again."}});
        }
        Merged(*p);
        return Reply(200, json{{"sha", p->merge_commit},
                               {"merged", true},
                               {"message", "Pull Request successfully merged"}});
      }
      case Kind::kGitlab: {
        if (req.method != "PUT") return Reply(404, json{{"message", "404 Not found"}});
        json b = Body(req,
                      {{"merge_commit_message", "string"},
                       {"squash_commit_message", "string"},
                       {"squash", "boolean"},
                       {"should_remove_source_branch", "boolean"},
                       {"merge_when_pipeline_succeeds", "boolean"},
                       {"auto_merge", "boolean"},
                       {"sha", "string"}},
                      {});
        sha = b.value("sha", "");
        if (!p->open) return Reply(405, json{{"message", "405 Method Not Allowed"}});
        if (!sha.empty() && !p->head_sha.empty() && sha != p->head_sha) {
          return Reply(
              409, json{{"message", "SHA does not match HEAD of source branch: " + p->head_sha}});
        }
        if (!p->mergeable) return Reply(406, json{{"message", "Branch cannot be merged"}});
        Merged(*p);
        return Reply(200, View(*p));
      }
      case Kind::kGitea: {
        if (req.method != "POST") return Reply(404, json{{"message", "Not Found"}});
        json b = Body(req,
                      {{"Do", "string"},
                       {"MergeCommitID", "string"},
                       {"MergeMessageField", "string"},
                       {"MergeTitleField", "string"},
                       {"delete_branch_after_merge", "boolean"},
                       {"force_merge", "boolean"},
                       {"head_commit_id", "string"},
                       {"merge_when_checks_succeed", "boolean"}},
                      {"Do"});
        static const std::vector<std::string> kStyles{
            "merge", "rebase", "rebase-merge", "squash", "fast-forward-only", "manually-merged"};
        if (std::find(kStyles.begin(), kStyles.end(), b.value("Do", "")) == kStyles.end()) {
          Violation(req,
                    "Do must be one of merge, rebase, rebase-merge, squash, "
                    "fast-forward-only, manually-merged");
        }
        sha = b.value("head_commit_id", "");
        if (!p->open || !p->mergeable)
          return Reply(405, json{{"message", "Please try again later"}});
        if (!sha.empty() && !p->head_sha.empty() && sha != p->head_sha) {
          return Reply(409, json{{"message", "head out of date"}});
        }
        Merged(*p);
        return LoopbackResponse{200, {}, ""};  // documented: an empty reply
      }
    }
    return std::nullopt;
  }

  // Closes `p` as merged, with a made-up merge commit.
  static void Merged(FakePull& p) {
    char id[41];
    std::snprintf(id, sizeof id, "%040llx", 0xfeed0000ULL + static_cast<uint64_t>(p.number));
    p.open = false;
    p.merged = true;
    p.merge_commit = id;
  }

  // --- Permissions and comments ---

  // The number `text` names, if it is one.
  static std::optional<int64_t> Number(const std::string& text) {
    if (text.empty() || text.size() > 18 ||
        text.find_first_not_of("0123456789") != std::string::npos) {
      return std::nullopt;
    }
    return std::stoll(text);
  }

  // `path` is `prefix` + one segment + `suffix`: that segment, decoded.
  static std::optional<std::string> Segment(const std::string& path, const std::string& prefix,
                                            const std::string& suffix) {
    if (!path.starts_with(prefix) || !path.ends_with(suffix) ||
        path.size() <= prefix.size() + suffix.size()) {
      return std::nullopt;
    }
    std::string segment = path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
    if (segment.find('/') != std::string::npos) return std::nullopt;
    return Decode(segment);
  }

  // A comment's body, as the forges take it: {"body": "..."}, nothing else.
  LoopbackResponse AddComment(const LoopbackRequest& req, const std::string& number,
                              std::optional<std::string> in_reply_to) {
    json b = Body(req, {{"body", "string"}}, {"body"});
    auto n = Number(number);
    if (!n || !Find(*n)) return Reply(404, json{{"message", "Not Found"}});
    if (b.value("body", "").empty()) return Reply(422, json{{"message", "Validation Failed"}});
    comments.push_back(FakeComment{*n, b.value("body", ""), std::move(in_reply_to)});
    int64_t id = 5000 + static_cast<int64_t>(comments.size());
    return Reply(201, json{{"id", id}, {"body", comments.back().body}});
  }

  std::optional<LoopbackResponse> GithubAccess(const LoopbackRequest& req,
                                               const std::string& path) {
    const std::string repo = "/repos/acme/docs";
    if (auto login = Segment(path, repo + "/collaborators/", "/permission")) {
      if (req.method != "GET") return Reply(404, json{{"message", "Not Found"}});
      auto it = accounts.find(*login);
      if (it == accounts.end()) return Reply(404, json{{"message", "Not Found"}});
      // The documented "repository-collaborator-permission" shape.
      return Reply(200, json{{"permission", it->second.permission},
                             {"role_name", it->second.permission},
                             {"user", {{"login", *login}, {"id", 77}, {"type", "User"}}}});
    }
    if (auto number = Segment(path, repo + "/issues/", "/comments")) {
      if (req.method != "POST") return Reply(404, json{{"message", "Not Found"}});
      return AddComment(req, *number, std::nullopt);
    }
    const std::string pulls = repo + "/pulls/";
    if (path.starts_with(pulls) && path.ends_with("/replies") && req.method == "POST") {
      // /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies
      std::string rest = path.substr(pulls.size());
      size_t slash = rest.find("/comments/");
      if (slash == std::string::npos) return Reply(404, json{{"message", "Not Found"}});
      auto id = Segment(rest.substr(slash), "/comments/", "/replies");
      if (!id || !Number(*id)) {
        Violation(req, "comment_id must be an integer");
        return Reply(404, json{{"message", "Not Found"}});
      }
      return AddComment(req, rest.substr(0, slash), *id);
    }
    return std::nullopt;
  }

  std::optional<LoopbackResponse> GitlabAccess(const LoopbackRequest& req, const Target& t) {
    if (t.path == "/api/v4/users" && req.method == "GET") {
      for (const auto& [k, v] : t.query) {
        if (k != "username" && k != "search" && k != "page" && k != "per_page" && k != "active") {
          Violation(req, "undocumented query parameter " + k);
        }
      }
      json list = json::array();
      if (!t.query.count("username")) return Reply(200, list);
      auto it = accounts.find(t.query.at("username"));
      if (it != accounts.end()) {
        list.push_back(json{{"id", it->second.id},
                            {"username", it->first},
                            {"name", it->first},
                            {"state", "active"},
                            {"web_url", "http://127.0.0.1/" + it->first}});
      }
      return Reply(200, list);
    }
    const std::string members = "/api/v4/projects/acme%2Fdocs/members/all/";
    if (t.path.starts_with(members) && req.method == "GET") {
      auto id = Number(t.path.substr(members.size()));
      if (!id) {
        Violation(req, "user_id must be an integer");
        return Reply(404, json{{"message", "404 Not found"}});
      }
      for (const auto& [login, account] : accounts) {
        if (account.id != *id) continue;
        if (account.permission == "none") break;
        return Reply(200, json{{"id", account.id},
                               {"username", login},
                               {"name", login},
                               {"state", "active"},
                               {"access_level", std::stoi(account.permission)}});
      }
      return Reply(404, json{{"message", "404 Not found"}});
    }
    if (auto number = Segment(t.path, "/api/v4/projects/acme%2Fdocs/merge_requests/", "/notes")) {
      if (req.method != "POST") return Reply(404, json{{"message", "404 Not found"}});
      return AddComment(req, *number, std::nullopt);
    }
    return std::nullopt;
  }

  std::optional<LoopbackResponse> GiteaAccess(const LoopbackRequest& req, const Target& t) {
    const std::string repo = "/api/v1/repos/acme/docs";
    if (auto login = Segment(t.path, repo + "/collaborators/", "/permission")) {
      if (req.method != "GET") return Reply(404, json{{"message", "Not Found"}});
      auto it = accounts.find(*login);
      if (it == accounts.end()) return Reply(404, json{{"message", "user does not exist"}});
      return Reply(200, json{{"permission", it->second.permission},
                             {"role_name", it->second.permission},
                             {"user", {{"login", *login}, {"id", 77}}}});
    }
    if (auto number = Segment(t.path, repo + "/issues/", "/comments")) {
      if (req.method != "POST") return Reply(404, json{{"message", "Not Found"}});
      return AddComment(req, *number, std::nullopt);
    }
    return std::nullopt;
  }

  LoopbackResponse Create(const LoopbackRequest& req, const std::string& head,
                          const std::string& base, const std::string& title,
                          const std::string& body, bool draft, const LoopbackResponse& exists,
                          int created) {
    if (head.empty() || base.empty() || title.empty()) {
      return Reply(422, json{{"message", "Validation Failed: head, base and title are required"}});
    }
    if (race_next_create) {
      race_next_create = false;
      pulls.push_back(FakePull{NextNumber(), head, base, title, body, true, draft});
      return exists;
    }
    if (OpenFor(head, base)) return exists;
    pulls.push_back(FakePull{NextNumber(), head, base, title, body, true, draft});
    return Reply(created, View(pulls.back()));
  }

  LoopbackResponse Update(const LoopbackRequest& req, const std::string& number,
                          const std::string& title, const std::string& body, int status) {
    FakePull* p = nullptr;
    try {
      p = Find(std::stoll(number));
    } catch (...) {
    }
    if (!p) return Reply(404, json{{"message", "Not Found"}});
    if (!title.empty()) p->title = title;
    p->body = body;
    return Reply(status, View(*p));
  }
};

FakeForge::FakeForge(Kind kind, std::string token) : impl_(std::make_unique<Impl>()) {
  impl_->kind = kind;
  impl_->token = std::move(token);
  impl_->server = std::make_unique<LoopbackHttpServer>(
      [impl = impl_.get()](const LoopbackRequest& req) { return impl->Serve(req); });
}

FakeForge::~FakeForge() { impl_->server.reset(); }

uint16_t FakeForge::port() const { return impl_->server->port(); }

std::string FakeForge::ApiUrl() const {
  switch (impl_->kind) {
    case Kind::kGithub:
      return impl_->server->Url("/api/v3");
    case Kind::kGitlab:
      return impl_->server->Url("/api/v4");
    case Kind::kGitea:
      return impl_->server->Url("/api/v1");
  }
  return "";
}

std::string FakeForge::WebUrl(int64_t number) const { return impl_->WebUrl(number); }

std::vector<FakePull> FakeForge::Pulls() const {
  std::lock_guard lock(impl_->mu);
  return impl_->pulls;
}

void FakeForge::AddPull(FakePull pull) {
  std::lock_guard lock(impl_->mu);
  pull.number = impl_->NextNumber();
  impl_->pulls.push_back(std::move(pull));
}

void FakeForge::SetBase(int64_t number, const std::string& base) {
  std::lock_guard lock(impl_->mu);
  if (FakePull* p = impl_->Find(number)) p->base = base;
}

void FakeForge::Change(int64_t number, const std::function<void(FakePull&)>& edit) {
  std::lock_guard lock(impl_->mu);
  if (FakePull* p = impl_->Find(number)) edit(*p);
}

void FakeForge::SetPermission(const std::string& login, const std::string& permission) {
  std::lock_guard lock(impl_->mu);
  auto& account = impl_->accounts[login];
  if (account.id == 0) account.id = 100 + static_cast<int64_t>(impl_->accounts.size());
  account.permission = permission;
}

std::vector<FakeComment> FakeForge::Comments() const {
  std::lock_guard lock(impl_->mu);
  return impl_->comments;
}

std::vector<std::string> FakeForge::Violations() const {
  std::lock_guard lock(impl_->mu);
  return impl_->violations;
}

std::vector<LoopbackRequest> FakeForge::Requests() const {
  std::lock_guard lock(impl_->mu);
  return impl_->requests;
}

void FakeForge::FailNext(int count, LoopbackResponse response) {
  std::lock_guard lock(impl_->mu);
  for (int i = 0; i < count; ++i) impl_->faults.push_back(response);
}

void FakeForge::RaceNextCreate() {
  std::lock_guard lock(impl_->mu);
  impl_->race_next_create = true;
}

}  // namespace docwright::testing
