#include "api/forge_payloads.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "core/ids.h"
#include "core/text.h"

namespace docwright {
namespace {

using Json = nlohmann::json;
using Outcome = ParsedForgeHook::Outcome;

// The largest integer a forge's number may be (JSON's exact doubles).
constexpr int64_t kMaxNumber = int64_t{1} << 53;

// `key` of the object `j`, or null when `j` is no object or has none.
const Json* Member(const Json* j, const char* key) {
  if (!j || !j->is_object()) return nullptr;
  auto it = j->find(key);
  return it == j->end() || it->is_null() ? nullptr : &*it;
}

// The member at `path` (keys, one per level), or null.
const Json* At(const Json& j, std::initializer_list<const char*> path) {
  const Json* at = &j;
  for (const char* key : path) {
    at = Member(at, key);
    if (!at) return nullptr;
  }
  return at;
}

// A string member as text fit for one line: valid UTF-8, at most `max` bytes,
// "" when absent, not a string, or holding a control character.
std::string Name(const Json& j, std::initializer_list<const char*> path,
                 size_t max = kMaxForgeNameBytes) {
  const Json* v = At(j, path);
  if (!v || !v->is_string()) return "";
  std::string text = ScrubUtf8(v->get_ref<const std::string&>());
  if (HasControlCharacter(text, false)) return "";
  return std::string(CutUtf8(text, max));
}

// A URL member: as Name, and "" when it has a space or is longer than the limit
// (a URL cut short would name another page).
std::string UrlOf(const Json& j, std::initializer_list<const char*> path) {
  const Json* v = At(j, path);
  if (!v || !v->is_string()) return "";
  const std::string& url = v->get_ref<const std::string&>();
  if (url.empty() || url.size() > kMaxForgeUrlBytes || !Utf8Length(url) ||
      HasControlCharacter(url, false) || url.find(' ') != std::string::npos) {
    return "";
  }
  return url;
}

// A comment's text: valid UTF-8 (line breaks kept), at most kMaxForgeCommentBytes.
std::string Body(const Json& j, std::initializer_list<const char*> path) {
  const Json* v = At(j, path);
  if (!v || !v->is_string()) return "";
  std::string text = ScrubUtf8(v->get_ref<const std::string&>());
  return std::string(CutUtf8(text, kMaxForgeCommentBytes));
}

// A positive integer member (a number, or a string of digits), or 0.
int64_t Number(const Json& j, std::initializer_list<const char*> path) {
  const Json* v = At(j, path);
  if (!v) return 0;
  if (v->is_number_unsigned()) {
    uint64_t n = v->get<uint64_t>();
    return n <= static_cast<uint64_t>(kMaxNumber) ? static_cast<int64_t>(n) : 0;
  }
  if (v->is_number_integer()) {
    int64_t n = v->get<int64_t>();
    return n > 0 && n <= kMaxNumber ? n : 0;
  }
  if (v->is_string()) {
    const std::string& s = v->get_ref<const std::string&>();
    if (s.empty() || s.size() > 15 ||
        !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return 0;
    return std::stoll(s);
  }
  return 0;
}

// An id member (a number or a short string of [A-Za-z0-9_:.-]) as text, or "".
std::string IdOf(const Json& j, std::initializer_list<const char*> path) {
  const Json* v = At(j, path);
  if (!v) return "";
  if (v->is_number_integer() || v->is_number_unsigned()) {
    int64_t n = Number(j, path);
    return n > 0 ? std::to_string(n) : "";
  }
  if (!v->is_string()) return "";
  const std::string& s = v->get_ref<const std::string&>();
  bool ok =
      !s.empty() && s.size() <= kMaxForgeIdBytes && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == ':' ||
               c == '.';
      });
  return ok ? s : "";
}

bool Flag(const Json& j, std::initializer_list<const char*> path) {
  const Json* v = At(j, path);
  return v && v->is_boolean() && v->get<bool>();
}

// A commit id as given (40 or 64 hex digits, lower case), else "".
std::string Sha(const Json& j, const char* key) {
  std::string s = Lower(Name(j, {key}, 64));
  bool ok = (s.size() == 40 || s.size() == 64) &&
            std::all_of(s.begin(), s.end(), [](char c) { return HexDigitValue(c) >= 0; });
  return ok ? s : "";
}

bool IsZeroSha(const std::string& sha) {
  return !sha.empty() && std::all_of(sha.begin(), sha.end(), [](char c) { return c == '0'; });
}

std::string DeliveryId(std::string_view given, std::string_view body) {
  given = TrimSpace(given);
  bool ok = !given.empty() && given.size() <= kMaxForgeDeliveryIdBytes &&
            std::all_of(given.begin(), given.end(), [](char c) { return c > 0x20 && c < 0x7f; });
  return ok ? std::string(given) : "sha256:" + Sha256Hex(body);
}

ParsedForgeHook Ignored(std::string reason) {
  ParsedForgeHook p;
  p.outcome = Outcome::kIgnored;
  p.reason = std::move(reason);
  return p;
}

// The repository's URLs under `repository` (GitHub, Gitea: clone, ssh, git and
// web) or `project` (GitLab), each once, at most kMaxForgeRepositoryUrls.
std::vector<std::string> RepositoryUrls(const Json& j, const char* object,
                                        std::initializer_list<const char*> keys) {
  std::vector<std::string> urls;
  for (const char* key : keys) {
    std::string url = UrlOf(j, {object, key});
    if (url.empty() || std::find(urls.begin(), urls.end(), url) != urls.end()) continue;
    if (urls.size() == kMaxForgeRepositoryUrls) break;
    urls.push_back(std::move(url));
  }
  return urls;
}

// A push to `ref` from `before` to `after`: a branch's, or ignored.
ParsedForgeHook Push(ForgeEvent e, const Json& j, std::string ref) {
  constexpr std::string_view kHeads = "refs/heads/";
  if (ref.starts_with("refs/tags/")) return Ignored("a tag push");
  if (!ref.starts_with(kHeads)) return Ignored("not a push to a branch");
  e.branch = ref.substr(kHeads.size());
  if (!CheckBranchName(e.branch).ok()) return Ignored("not a push to a branch");
  e.before = Sha(j, "before");
  e.after = Sha(j, "after");
  if (e.after.empty()) return Ignored("the push names no commit");
  if (IsZeroSha(e.after)) return Ignored("a branch deleted");
  if (e.repository_urls.empty()) return Ignored("the push names no repository");
  e.kind = ForgeEventKind::kPush;
  ParsedForgeHook p;
  p.outcome = Outcome::kEvent;
  p.event = std::move(e);
  return p;
}

ParsedForgeHook Event(ForgeEvent e) {
  ParsedForgeHook p;
  p.outcome = Outcome::kEvent;
  p.event = std::move(e);
  return p;
}

// The pull request object of GitHub and Gitea into `e`.
void PullRequestOf(ForgeEvent& e, const Json& j) {
  e.pr_number = Number(j, {"pull_request", "number"});
  if (e.pr_number == 0) e.pr_number = Number(j, {"number"});
  e.pr_url = UrlOf(j, {"pull_request", "html_url"});
  e.pr_head = Name(j, {"pull_request", "head", "ref"});
  e.pr_base = Name(j, {"pull_request", "base", "ref"});
}

// GitHub, and Gitea whose payloads are shaped as GitHub's.
ParsedForgeHook GithubLike(ForgeEvent e, std::string_view name, const Json& j) {
  const bool gitea = e.forge == ForgeKind::kGitea;
  e.repository_urls =
      RepositoryUrls(j, "repository", {"clone_url", "ssh_url", "html_url", "git_url"});
  e.sender = Name(j, {"sender", "login"});
  if (e.sender.empty()) e.sender = Name(j, {"sender", "username"});
  const std::string action = Name(j, {"action"});

  if (name == "push") {
    if (e.sender.empty()) e.sender = Name(j, {"pusher", gitea ? "login" : "name"});
    return Push(std::move(e), j, Name(j, {"ref"}));
  }
  if (name == "pull_request" || (gitea && name == "pull_request_sync")) {
    PullRequestOf(e, j);
    if (e.pr_number == 0) return Ignored("the pull request has no number");
    e.kind = ForgeEventKind::kPullRequest;
    e.pr_action = action;
    e.pr_merged = Flag(j, {"pull_request", "merged"});
    return Event(std::move(e));
  }
  if (name == "issue_comment") {
    // Issues and pull requests share comments: only a pull request's count.
    if (!At(j, {"issue", "pull_request"}) && !Flag(j, {"is_pull"})) {
      return Ignored("a comment on an issue, not on a pull request");
    }
    e.kind = ForgeEventKind::kComment;
    e.pr_number = Number(j, {"issue", "number"});
    e.pr_url = UrlOf(j, {"issue", "pull_request", "html_url"});
    if (e.pr_url.empty()) e.pr_url = UrlOf(j, {"issue", "html_url"});
    if (e.pr_number == 0) return Ignored("the pull request has no number");
    e.comment_kind = "comment";
    e.comment_id = IdOf(j, {"comment", "id"});
    e.comment_body = Body(j, {"comment", "body"});
    e.comment_url = UrlOf(j, {"comment", "html_url"});
    e.comment_created = action == "created";
    if (e.comment_id.empty()) return Ignored("the comment has no id");
    return Event(std::move(e));
  }
  if (!gitea && name == "pull_request_review") {
    PullRequestOf(e, j);
    if (e.pr_number == 0) return Ignored("the pull request has no number");
    e.kind = ForgeEventKind::kComment;
    e.comment_kind = "review";
    e.comment_id = IdOf(j, {"review", "id"});
    e.comment_body = Body(j, {"review", "body"});
    e.comment_url = UrlOf(j, {"review", "html_url"});
    e.review_state = Lower(Name(j, {"review", "state"}));
    e.comment_created = action == "submitted";
    if (e.comment_id.empty()) return Ignored("the review has no id");
    return Event(std::move(e));
  }
  if (!gitea && name == "pull_request_review_comment") {
    PullRequestOf(e, j);
    if (e.pr_number == 0) return Ignored("the pull request has no number");
    e.kind = ForgeEventKind::kComment;
    e.comment_kind = "review_comment";
    e.comment_id = IdOf(j, {"comment", "id"});
    e.comment_body = Body(j, {"comment", "body"});
    e.comment_url = UrlOf(j, {"comment", "html_url"});
    e.comment_path = Name(j, {"comment", "path"}, kMaxForgeUrlBytes);
    int64_t line = Number(j, {"comment", "line"});
    if (line == 0) line = Number(j, {"comment", "original_line"});
    if (line > 0) e.comment_line = line;
    e.comment_created = action == "created";
    if (e.comment_id.empty()) return Ignored("the comment has no id");
    return Event(std::move(e));
  }
  // Gitea's reviews: "pull_request_approved", "pull_request_rejected",
  // "pull_request_comment" (also named with "_review_"), with the review's
  // type and text, and no id of its own.
  if (gitea && name.starts_with("pull_request_") &&
      (name.ends_with("_approved") || name.ends_with("_rejected") || name.ends_with("_comment"))) {
    PullRequestOf(e, j);
    if (e.pr_number == 0) return Ignored("the pull request has no number");
    e.kind = ForgeEventKind::kComment;
    e.comment_kind = "review";
    e.comment_body = Body(j, {"review", "content"});
    e.review_state = name.ends_with("_approved")   ? "approved"
                     : name.ends_with("_rejected") ? "changes_requested"
                                                   : "commented";
    e.comment_id = "review:" + std::to_string(e.pr_number) + ":" + e.delivery_id;
    e.comment_url = e.pr_url;
    e.comment_created = action.empty() || action == "reviewed" || action == "submitted";
    return Event(std::move(e));
  }
  return Ignored("docwright does not act on this event");
}

ParsedForgeHook Gitlab(ForgeEvent e, std::string_view name, const Json& j) {
  e.repository_urls = RepositoryUrls(j, "project", {"git_http_url", "git_ssh_url", "web_url"});
  if (e.repository_urls.empty()) {
    e.repository_urls =
        RepositoryUrls(j, "repository", {"git_http_url", "git_ssh_url", "homepage"});
  }
  e.sender = Name(j, {"user", "username"});

  if (name == "Push Hook") {
    e.sender = Name(j, {"user_username"});
    return Push(std::move(e), j, Name(j, {"ref"}));
  }
  if (name == "Tag Push Hook") return Ignored("a tag push");
  if (name == "Merge Request Hook") {
    e.kind = ForgeEventKind::kPullRequest;
    e.pr_number = Number(j, {"object_attributes", "iid"});
    if (e.pr_number == 0) return Ignored("the merge request has no number");
    e.pr_url = UrlOf(j, {"object_attributes", "url"});
    e.pr_head = Name(j, {"object_attributes", "source_branch"});
    e.pr_base = Name(j, {"object_attributes", "target_branch"});
    const std::string action = Name(j, {"object_attributes", "action"});
    const std::string state = Name(j, {"object_attributes", "state"});
    // GitLab's actions in GitHub's words, where docwright acts on them.
    if (action == "merge" || (action.empty() && state == "merged")) {
      e.pr_action = "closed";
      e.pr_merged = true;
    } else if (action == "close") {
      e.pr_action = "closed";
    } else if (action == "reopen") {
      e.pr_action = "reopened";
    } else if (action == "open") {
      e.pr_action = "opened";
    } else {
      e.pr_action = action;
    }
    return Event(std::move(e));
  }
  if (name == "Note Hook") {
    if (Name(j, {"object_attributes", "noteable_type"}) != "MergeRequest") {
      return Ignored("a comment on something else than a merge request");
    }
    if (Flag(j, {"object_attributes", "system"})) return Ignored("a note GitLab wrote itself");
    e.kind = ForgeEventKind::kComment;
    e.pr_number = Number(j, {"merge_request", "iid"});
    if (e.pr_number == 0) return Ignored("the merge request has no number");
    e.pr_url = UrlOf(j, {"merge_request", "url"});
    e.pr_head = Name(j, {"merge_request", "source_branch"});
    e.pr_base = Name(j, {"merge_request", "target_branch"});
    e.comment_id = IdOf(j, {"object_attributes", "id"});
    if (e.comment_id.empty()) return Ignored("the comment has no id");
    e.comment_body = Body(j, {"object_attributes", "note"});
    e.comment_url = UrlOf(j, {"object_attributes", "url"});
    const bool on_line = Name(j, {"object_attributes", "type"}) == "DiffNote";
    e.comment_kind = on_line ? "review_comment" : "comment";
    if (on_line) {
      e.comment_path = Name(j, {"object_attributes", "position", "new_path"}, kMaxForgeUrlBytes);
      int64_t line = Number(j, {"object_attributes", "position", "new_line"});
      if (line > 0) e.comment_line = line;
    }
    // Before GitLab 16.11 a note hook was sent for new notes only, without an action.
    const std::string action = Name(j, {"object_attributes", "action"});
    e.comment_created = action.empty() || action == "create";
    return Event(std::move(e));
  }
  return Ignored("docwright does not act on this event");
}

}  // namespace

ParsedForgeHook ParseForgeHook(ForgeKind forge, std::string_view event_name,
                               std::string_view delivery_id, std::string_view body) {
  event_name = TrimSpace(event_name);
  if (event_name == "ping") {
    ParsedForgeHook p;
    p.outcome = Outcome::kPing;
    return p;
  }
  if (forge == ForgeKind::kLocal) return Ignored("the local forge sends no webhooks");
  Json j = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    ParsedForgeHook p;
    p.outcome = Outcome::kInvalid;
    p.reason = "the body is not a JSON object";
    return p;
  }
  ForgeEvent e;
  e.forge = forge;
  e.delivery_id = DeliveryId(delivery_id, body);
  return forge == ForgeKind::kGitlab ? Gitlab(std::move(e), event_name, j)
                                     : GithubLike(std::move(e), event_name, j);
}

}  // namespace docwright
