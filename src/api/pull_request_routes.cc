// The local forge's routes: a pull request's page (GET /pulls/{id}, no key:
// its unguessable id is the grant) and its merge (POST /pulls/{id}/merge, a
// key of its organisation). See docs/api.md, "Local pull requests".
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include "api/api.h"
#include "api/call.h"
#include "api/pull_request_page.h"
#include "api/request_body.h"
#include "api/routes.h"
#include "api/views.h"
#include "core/json_writer.h"
#include "core/time.h"

namespace docwright {
namespace {

HttpResponse PullRequestNotFound() {
  return ErrorResponse(404, "pull request not found", "not_found");
}

struct MergeBody {
  std::string method = "merge";
  std::string head_commit;  // empty: whatever the branch's head is
};

bool IsCommitId(std::string_view s) {
  if (s.size() != 40 && s.size() != 64) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// A merge's body: {"method": "merge" | "fast-forward", "headCommit": "<sha>"},
// each member optional ("merge", any head); InvalidArgument otherwise. The
// body is at most the server's body cap, parsed once.
Result<MergeBody> ParseMergeBody(std::string_view body) {
  MergeBody out;
  if (body.empty()) return out;
  auto parsed = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return Status::InvalidArgument("the body must be a JSON object: {\"method\": \"merge\"}");
  }
  auto it = parsed.find("method");
  if (it != parsed.end() && !it->is_null()) {
    if (!it->is_string() || (*it != "merge" && *it != "fast-forward")) {
      return Status::InvalidArgument("method must be \"merge\" or \"fast-forward\"");
    }
    out.method = it->get<std::string>();
  }
  it = parsed.find("headCommit");
  if (it != parsed.end() && !it->is_null()) {
    if (!it->is_string() || !IsCommitId(it->get_ref<const std::string&>())) {
      return Status::InvalidArgument("headCommit must be a commit id (40 or 64 lowercase hex)");
    }
    out.head_commit = it->get<std::string>();
  }
  return out;
}

// At most this many merges run at once in a process, one a project: each holds
// a write thread for a fetch, a merge and a push.
constexpr size_t kMaxMergesInFlight = 2;

// What a merge that failed in git or in the store answers: 409 for anything
// about the pull request's or the repository's state (conflicts, a base that
// moved, a branch that is gone, merged or closed meanwhile), 503 when the
// repository cannot be reached or refuses docwright's credentials (not 401:
// the caller's key is fine).
HttpResponse MergeFailed(const Status& s) {
  switch (s.code()) {
    case Code::kConflict:
    case Code::kNotFound:
    case Code::kInvalidArgument:
      return ErrorResponse(409, s.message(), "conflict");
    case Code::kUnauthenticated:
    case Code::kUnavailable: {
      spdlog::warn("merge failed: {}", s.message());
      HttpResponse r = ErrorResponse(
          503, "the repository cannot be reached or refused docwright; try again later",
          "unavailable");
      r.headers.emplace_back("Retry-After", "5");
      return r;
    }
    default:
      return ResponseFromStatus(s);
  }
}

}  // namespace

std::span<const Api::Route> Api::Route::PullRequests() {
  static const Route kRows[] = {
      {.method = "GET",
       .pattern = "/pulls/{id}",
       .needs_key = false,
       .quick = false,
       .serve = &Api::PullRequestPage},
      {.method = "POST",
       .pattern = "/pulls/{pullId}/merge",
       .needs_key = true,
       .quick = false,
       .serve = &Api::MergePullRequest},
  };
  return kRows;
}

HttpResponse Api::PullRequestPage(const Call& call, HttpRequest& req) {
  const std::string& id = call.target.segments[1];
  auto pr = LooksLikePullRequestId(id) ? store_.GetPullRequest(id)
                                       : Result<LocalPullRequest>(Status::NotFound(""));
  if (!pr.ok()) {
    if (pr.status().code() == Code::kNotFound) return PullRequestNotFound();
    return ResponseFromStatus(pr.status());
  }
  PullRequestPageView view;
  std::optional<Review> review;
  if (!pr->archived_at) {
    auto read = store_.GetReviewByBranch(pr->project_id, pr->head);
    if (!read.ok() && read.status().code() != Code::kNotFound) {
      return ResponseFromStatus(read.status());
    }
    // The branch's review describes the branch as it is now: for a merged pull
    // request, only if it was written before the merge (later work is the next
    // pull request's).
    if (read.ok() && (!pr->merged_at || read->updated_at <= *pr->merged_at)) {
      review = std::move(*read);
      view.review = &*review;
    }
    if (!pr->merged_at) {
      if (auto key = SessionKey(req)) {
        view.can_merge = KeySeesProject(*key, pr->project_id) &&
                         store_.GetProject(Scope{key->org_id, pr->project_id}).ok();
      }
    }
  }
  HttpResponse r;
  r.content_type = "text/html; charset=utf-8";
  r.status = pr->archived_at && !pr->merged_at ? 410 : 200;
  r.body = RenderPullRequestPage(*pr, view);
  r.headers.emplace_back("Content-Security-Policy", std::string(kPullRequestPagePolicy));
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  r.headers.emplace_back("Referrer-Policy", "no-referrer");
  // Who asks decides whether the merge button is shown: never shared.
  r.headers.emplace_back("Cache-Control", "private, no-cache");
  r.headers.emplace_back("Vary", "Cookie");
  return r;
}

HttpResponse Api::MergePullRequest(const Call& call, HttpRequest& req) {
  if (!req.body.empty() && !IsJsonContentType(req.content_type)) return UnsupportedMediaType();
  const std::string& id = call.target.segments[1];
  if (!LooksLikePullRequestId(id)) return PullRequestNotFound();
  auto pr = store_.GetPullRequest(id);
  if (!pr.ok()) {
    if (pr.status().code() == Code::kNotFound) return PullRequestNotFound();
    return ResponseFromStatus(pr.status());
  }
  // A pull request of another organisation's project, or of a project the key
  // is not given, does not exist for this key.
  if (!KeySeesProject(call.key, pr->project_id)) return PullRequestNotFound();
  auto project = store_.GetProject(Scope{call.scope.org_id, pr->project_id});
  if (!project.ok()) {
    if (project.status().code() == Code::kNotFound) return PullRequestNotFound();
    return ResponseFromStatus(project.status());
  }
  auto body = ParseMergeBody(req.body);
  if (!body.ok()) return ResponseFromStatus(body.status());
  if (pr->merged_at) {
    return ErrorResponse(409, "the pull request is merged already", "conflict");
  }
  if (pr->archived_at) {
    return ErrorResponse(409, "the pull request is closed: its job was archived", "conflict");
  }
  if (!hooks_.merge_pull_request) {
    return ErrorResponse(503, "pull requests are not merged by this process", "unavailable");
  }
  {
    MutexLock lock(merges_mu_);
    if (merging_projects_.size() >= kMaxMergesInFlight ||
        merging_projects_.contains(pr->project_id)) {
      HttpResponse busy =
          ErrorResponse(429, "another merge is under way; try again shortly", "rate_limited");
      busy.headers.emplace_back("Retry-After", "2");
      return busy;
    }
    merging_projects_.insert(pr->project_id);
  }
  auto merged = hooks_.merge_pull_request(*pr, body->method, body->head_commit);
  {
    MutexLock lock(merges_mu_);
    merging_projects_.erase(pr->project_id);
  }
  if (!merged.ok()) return MergeFailed(merged.status());
  HttpResponse r;
  JsonWriter w(&r.body);
  w.BeginObject()
      .Key("state")
      .String("merged")
      .Key("mergeCommit")
      .String(merged->merge_commit)
      .Key("mergedAt")
      .String(FormatRfc3339(merged->merged_at))
      .EndObject();
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

}  // namespace docwright
