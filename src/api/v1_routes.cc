// The reference's deprecated v1 endpoints, for clients written against them: a
// v1 job is a job like any other (visible through v2), created from the v1 body
// and shown in the v1 shapes. The mapping choices are in docs/api.md, "v1
// endpoints".
#include <spdlog/spdlog.h>

#include "api/api.h"
#include "api/call.h"
#include "api/request_body.h"
#include "api/request_target.h"
#include "api/routes.h"
#include "api/v1_stream.h"
#include "api/v1_views.h"
#include "api/views.h"
#include "core/text.h"
#include "events/event_streams.h"

namespace docwright {
namespace {

// The reference's default model name: naming it is as naming none.
constexpr std::string_view kV1DefaultModel = "sonnet";
// The v1 listing's skip and take: the reference's bounds, and a bound of ours
// on skip, so no request makes the database walk past more jobs than this.
constexpr int kV1MaxSkip = 100000;
constexpr int kV1MaxTake = 100;
constexpr int kV1DefaultTake = 12;
// The events a v1 create answers with at most: a new job has one or two.
constexpr int kV1MaxReplayedEvents = 100;

// The model a v1 `model` name stands for (nullopt: the project's or the
// server's default), or InvalidArgument naming the names this server knows.
Result<std::optional<std::string>> MapV1Model(
    const std::vector<std::pair<std::string, std::string>>& models,
    const std::optional<std::string>& name) {
  std::string_view wanted = name ? std::string_view(*name) : kV1DefaultModel;
  for (const auto& [n, model] : models) {
    if (n == wanted) return std::optional<std::string>(model);
  }
  if (wanted == kV1DefaultModel) return std::optional<std::string>();
  std::string known;
  for (const auto& [n, model] : models) known += (known.empty() ? "" : ", ") + n;
  if (known.empty()) {
    return Status::InvalidArgument(
        "model \"" + std::string(CutUtf8(wanted, 100)) +
        "\" is not known here: this server maps no v1 model names (only \"sonnet\", its "
        "default model, may be named)");
  }
  return Status::InvalidArgument("model \"" + std::string(CutUtf8(wanted, 100)) +
                                 "\" is not known here; known: " + known);
}

// The v1 stream's framing over the event stream: the job's events as data
// stream parts, ending with the job (V1StreamEnds), or at its lifetime's end
// with an "unknown" finish.
class V1Framing final : public EventFraming {
 public:
  explicit V1Framing(Job job) : job_(std::move(job)) {}
  std::string Start() override { return V1StreamStart(job_); }
  std::string Event(const JobEvent& event) override { return V1StreamEvent(event); }
  // An empty data part: an AI SDK client appends nothing for it.
  std::string Heartbeat() override { return "2:[]\n"; }
  bool EndsAfter(const JobEvent& event) override { return V1StreamEnds(event); }
  std::string End() override { return V1StreamEnd(job_); }

 private:
  const Job job_;  // as created: still active
};

}  // namespace

std::span<const Api::Route> Api::Route::V1() {
  static const Route kRows[] = {
      {.method = "POST",
       .pattern = "/v1/agent/{projectId}/job",
       .needs_key = true,
       .quick = false,
       .serve = &Api::V1CreateJob},
      {.method = "GET",
       .pattern = "/v1/agent/{projectId}/job/{id}",
       .needs_key = true,
       .quick = false,
       .serve = &Api::V1GetJob},
      {.method = "GET",
       .pattern = "/v1/agent/{projectId}/jobs",
       .needs_key = true,
       .quick = false,
       .serve = &Api::V1ListJobs},
  };
  return kRows;
}

HttpResponse Api::V1CreateJob(const Call& call, HttpRequest& req) {
  if (!IsJsonContentType(req.content_type)) return UnsupportedMediaType();
  auto body = ParseV1JobBody(req.body);
  if (!body.ok()) return ResponseFromStatus(body.status());
  auto model = MapV1Model(options_.v1_models, body->model);
  if (!model.ok()) return ResponseFromStatus(model.status());
  NewJob nj{.prompt = std::move(body->prompt),
            .requested_model = std::move(*model),
            .default_model = options_.default_model,
            .draft = body->draft,
            .ref = std::move(body->branch)};
  auto job = store_.CreateJob(call.scope, nj);
  if (!job.ok()) return ResponseFromStatus(job.status());

  // The reference answers 200 with the job's stream, to its end: the job's
  // events as they happen, up to its end or the stream's lifetime (the turn's
  // deadline).
  HttpResponse r;
  r.status = 200;
  r.content_type = kV1StreamContentType;
  r.headers = V1StreamHeaders(*job);
  if (streams_ != nullptr) {
    auto stream = streams_->Open(
        StreamRequest{.scope = call.scope,
                      .job_id = job->id,
                      .after = 0,
                      .key_id = req.principal,
                      .session_hash = call.session ? call.session->token_hash : std::string(),
                      .framing = std::make_unique<V1Framing>(*job),
                      .lifetime = options_.v1_stream_lifetime});
    if (stream.ok()) {
      r.stream = std::move(*stream);
      return r;
    }
    // The job is made (its id is in the headers): it is not refused for this.
    // The answer then holds what is recorded, and the client polls.
    spdlog::warn("v1 create: job {} gets no live stream: {}", job->id, stream.status().message());
  }
  r.body = V1StreamStart(*job);
  auto events = store_.ListEvents(call.scope, job->id, 0, kV1MaxReplayedEvents);
  if (!events.ok()) {
    // The job is made and its id is in the headers: it is not refused for this.
    spdlog::warn("v1 create: cannot read the events of job {}: {}", job->id,
                 events.status().message());
    return r;
  }
  for (const JobEvent& e : *events) {
    r.body += V1StreamEvent(e);
    if (V1StreamEnds(e)) break;
  }
  return r;
}

HttpResponse Api::V1GetJob(const Call& call, HttpRequest& req) {
  auto job = store_.GetJob(call.scope, call.job_id);
  if (!job.ok()) return ResponseFromStatus(job.status());
  auto heads = store_.ListMessageHeads(call.scope, {job->id}, kV1TodoMessages, kV1PromptChars);
  if (!heads.ok()) return ResponseFromStatus(heads.status());
  return V1JobResponse(*job, heads->front());
}

HttpResponse Api::V1ListJobs(const Call& call, HttpRequest& req) {
  JobQuery query;
  query.limit = kV1DefaultTake;
  for (const auto& [k, v] : call.target.query) {
    int n = 0;
    if (k == "skip") {
      if (!ParseIntParam(v, 0, kV1MaxSkip, &n)) {
        return ErrorResponse(400, "skip must be an integer from 0 to 100000", "invalid_request");
      }
      query.offset = n;
    } else if (k == "take") {
      if (!ParseIntParam(v, 1, kV1MaxTake, &n)) {
        return ErrorResponse(400, "take must be an integer from 1 to 100", "invalid_request");
      }
      query.limit = n;
    }
  }
  auto page = store_.ListJobs(call.scope, query);
  if (!page.ok()) return ResponseFromStatus(page.status());
  std::vector<std::string> ids;
  ids.reserve(page->jobs.size());
  for (const Job& j : page->jobs) ids.push_back(j.id);
  auto heads = store_.ListMessageHeads(call.scope, ids, kV1TodoMessages, kV1PromptChars);
  if (!heads.ok()) return ResponseFromStatus(heads.status());
  return V1JobListResponse(page->jobs, *heads);
}

}  // namespace docwright
