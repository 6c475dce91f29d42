// GET /v2/agent/{projectId}/job/{id}/review: what a reviewer reads about a
// job's branch (core/review.h), as the runner last recorded it. Its HTML fields
// were sanitised when they were rendered (docs/preview.h); here they are only
// passed on as JSON strings. A slow read (Api::Handle bounds them per key): a
// review holds up to kMaxReviewDiffBytes of diff and kMaxReviewPreviewBytes of
// previews.
#include "api/api.h"
#include "api/call.h"
#include "api/views.h"
#include "core/json_writer.h"
#include "core/review_json.h"
#include "core/time.h"

namespace docwright {
namespace {

// The review's JSON (docs/api.md, "Review of a job's branch"); `recorded` false
// is the shape before the job's first push: no head commit, empty lists.
std::string ReviewJson(const Review& r, bool recorded) {
  std::string body;
  body.reserve(1024 + r.diff.size() + r.pull_request_body_html.size());
  JsonWriter w(&body);
  w.BeginObject();
  w.Key("branch").String(r.branch);
  w.Key("base").String(r.base);
  w.Key("baseCommit").String(r.base_commit);
  w.Key("headCommit");
  // A review cleared because it could not be made (the runner's TellStory)
  // has no head commit either.
  if (recorded && !r.head_commit.empty()) {
    w.String(r.head_commit);
  } else {
    w.Null();
  }
  w.Key("updatedAt");
  if (recorded) {
    w.String(FormatRfc3339(r.updated_at));
  } else {
    w.Null();
  }
  w.Key("files");
  WriteReviewFiles(r.files, w);
  w.Key("diff").String(r.diff);
  w.Key("diffTruncated").Bool(r.diff_truncated);
  w.Key("problems");
  WriteStringList(r.problems, w);
  w.Key("notes");
  WriteStringList(r.notes, w);
  w.Key("pullRequestBodyHtml").String(r.pull_request_body_html);
  w.EndObject();
  return body;
}

}  // namespace

HttpResponse Api::JobReview(const Call& call, HttpRequest& req) {
  auto review = store_.GetReview(call.scope, call.job_id);
  bool recorded = review.ok();
  if (!recorded) {
    if (review.status().code() != Code::kNotFound) return ResponseFromStatus(review.status());
    // No review yet, or no such job in scope: the job says which.
    auto job = store_.GetJob(call.scope, call.job_id);
    if (!job.ok()) return ResponseFromStatus(job.status());
    Review empty;
    empty.job_id = job->id;
    empty.project_id = job->project_id;
    empty.branch = job->ref;
    review = std::move(empty);
  }
  HttpResponse r;
  r.body = ReviewJson(*review, recorded);
  r.headers.emplace_back("Cache-Control", "private, no-cache");
  return r;
}

}  // namespace docwright
