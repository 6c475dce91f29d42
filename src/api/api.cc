#include "api/api.h"

#include <algorithm>
#include <any>
#include <cctype>
#include <cstdint>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "api/call.h"
#include "api/etag.h"
#include "api/job_renderings.h"
#include "api/openapi.h"
#include "api/request_body.h"
#include "api/request_target.h"
#include "api/routes.h"
#include "api/views.h"
#include "core/api_key.h"
#include "core/ids.h"
#include "core/text.h"
#include "events/event_streams.h"

namespace docwright {
namespace {

// --- Request parsing ---------------------------------------------------------------

constexpr int kMaxPageSize = 100;

// --- Idempotent POSTs and conditional polling -----------------------------------

constexpr size_t kMaxIdempotencyKeyChars = 255;

// An Idempotency-Key's refusal: 1 to 255 printable ASCII characters. An empty
// header is no key.
std::optional<HttpResponse> CheckIdempotencyKey(std::string_view key) {
  bool ok = key.size() <= kMaxIdempotencyKeyChars &&
            std::all_of(key.begin(), key.end(), [](char c) { return c >= 0x20 && c <= 0x7e; });
  if (ok) return std::nullopt;
  return ErrorResponse(400, "Idempotency-Key must be 1 to 255 printable ASCII characters",
                       "invalid_idempotency_key");
}

// The request `req` names with its key: `route` and the SHA-256 of its raw
// body; a success answers `status` with the job.
IdempotentRequest Keyed(const HttpRequest& req, std::string route, int status,
                        const std::string& currency) {
  return IdempotentRequest{.key = req.idempotency_key,
                           .route = std::move(route),
                           .body_sha256 = Sha256Hex(req.body),
                           .status = status,
                           .render = [status, currency](const Job& job) {
                             return JobResponse(status, job, currency).body;
                           }};
}

// The answer to a keyed write: the stored response (marked when it is a
// replay), or why the key cannot be used now.
HttpResponse KeyedResponse(IdempotentWrite w) {
  using Outcome = IdempotentWrite::Outcome;
  switch (w.outcome) {
    case Outcome::kDone:
    case Outcome::kReplayed: {
      HttpResponse r;
      r.status = w.status;
      r.body = std::move(w.body);
      if (w.outcome == Outcome::kReplayed) r.headers.emplace_back("Idempotent-Replayed", "true");
      return r;
    }
    case Outcome::kKeyReused:
      return ErrorResponse(422,
                           "this Idempotency-Key was used in the last 24 hours for another "
                           "request (another endpoint, job or body); use a new key",
                           "idempotency_key_reused");
    case Outcome::kInProgress:
      break;
  }
  HttpResponse r =
      ErrorResponse(409, "a request with this Idempotency-Key is still in progress; retry shortly",
                    "idempotency_key_in_use");
  r.headers.emplace_back("Retry-After", "1");
  return r;
}

// A 200 with the job and its ETag (JobRenderings: rendered again only when the
// job changed); 304 without a body if the client's If-None-Match names it.
HttpResponse JobWithEntityTag(const Job& job, std::string_view currency, const HttpRequest& req) {
  const RenderedJob& rendered = JobRenderings::Of(job, currency);
  HttpResponse r;
  if (!req.if_none_match.empty() && IfNoneMatchMatches(req.if_none_match, rendered.tag)) {
    r.status = 304;
  } else {
    r.body = rendered.body;
  }
  r.headers.emplace_back("ETag", rendered.tag);
  return r;
}

}  // namespace

Api::Api(Store& store, ApiOptions options, ApiHooks hooks, EventStreams* streams)
    : store_(store), options_(std::move(options)), hooks_(std::move(hooks)), streams_(streams) {}

// --- Routing and authentication --------------------------------------------------

// The rooms' tables, joined once. Their order is the whole table's (routes.h).
std::span<const Api::Route> Api::Routes() {
  static const std::vector<Route> kRoutes = [] {
    std::vector<Route> all;
    for (std::span<const Route> room :
         {Route::Service(), Route::PullRequests(), Route::ProjectJobs(), Route::V1(),
          Route::JobById(), Route::Sessions(), Route::KeysAndProjects(), Route::Workflows(),
          Route::Hooks()}) {
      all.insert(all.end(), room.begin(), room.end());
    }
    return all;
  }();
  return kRoutes;
}

namespace {

// A route pattern's segments ("/v2/agent/{projectId}/jobs": v2, agent,
// {projectId}, jobs).
std::vector<std::string_view> SplitPattern(std::string_view pattern) {
  std::vector<std::string_view> out;
  for (size_t pos = 1; pos <= pattern.size();) {
    size_t slash = pattern.find('/', pos);
    if (slash == std::string_view::npos) slash = pattern.size();
    out.push_back(pattern.substr(pos, slash - pos));
    pos = slash + 1;
  }
  return out;
}

bool IsParameter(std::string_view segment) { return !segment.empty() && segment.front() == '{'; }

}  // namespace

// Each route's segments, split once: matching is on the polling fast path.
const std::vector<std::string_view>& Api::Segments(const Route& route) {
  static const std::vector<std::vector<std::string_view>> kSegments = [] {
    std::vector<std::vector<std::string_view>> all;
    for (const Route& r : Routes()) all.push_back(SplitPattern(r.pattern));
    return all;
  }();
  return kSegments[static_cast<size_t>(&route - Routes().data())];
}

const Api::Route* Api::Match(const RequestTarget& target, std::string_view method,
                             std::string* allow) {
  // HEAD is GET without the body (the HTTP server drops it).
  if (method == "HEAD") method = "GET";
  const auto& seg = target.segments;
  for (const Route& route : Routes()) {
    const auto& parts = Segments(route);
    if (route.rest ? seg.size() < parts.size() : parts.size() != seg.size()) continue;
    bool same = true;
    for (size_t i = 0; i < parts.size() && same; ++i) {
      same = IsParameter(parts[i]) || parts[i] == seg[i];
    }
    if (!same) continue;
    if (route.method == method) return &route;
    if (!allow->empty()) *allow += ", ";
    *allow += route.method == "GET" ? "GET, HEAD" : route.method;
  }
  return nullptr;
}

std::variant<HttpResponse, Api::Call> Api::Resolve(HttpRequest& req) {
  Call call;
  call.target = ParseTarget(req.target);
  if (!call.target.ok) return ErrorResponse(400, "malformed request target", "invalid_request");
  std::string allow;
  call.route = Match(call.target, req.method, &allow);
  if (!call.route) {
    if (allow.empty()) return ErrorResponse(404, "no such endpoint", "not_found");
    return MethodNotAllowed(allow);
  }
  req.route = call.route->pattern;
  if (!call.route->needs_key) return call;

  // Authenticate before anything about the project or job is looked at.
  if (auto refused = Authenticate(req, call)) return std::move(*refused);
  return call;
}

std::optional<HttpResponse> Api::Precheck(HttpRequest& req) {
  auto resolved = Resolve(req);
  if (auto* refusal = std::get_if<HttpResponse>(&resolved)) return std::move(*refusal);
  // Handle gets the same request once its body is read: the key is not
  // resolved a second time.
  req.context = std::move(std::get<Call>(resolved));
  return std::nullopt;
}

bool Api::IsQuick(const HttpRequest& req) {
  RequestTarget target = ParseTarget(req.target);
  std::string allow;
  const Route* route = target.ok ? Match(target, req.method, &allow) : nullptr;
  return route && route->quick;
}

bool Api::EnterRead(const std::string& key_id) {
  MutexLock lock(reads_mu_);
  int& n = reads_in_flight_[key_id];
  if (n >= options_.max_reads_per_key) return false;
  ++n;
  return true;
}

void Api::LeaveRead(const std::string& key_id) {
  MutexLock lock(reads_mu_);
  auto it = reads_in_flight_.find(key_id);
  if (it != reads_in_flight_.end() && --it->second <= 0) reads_in_flight_.erase(it);
}

HttpResponse Api::Handle(HttpRequest& req) {
  std::optional<Call> resolved_here;
  const Call* call = std::any_cast<Call>(&req.context);
  if (!call) {
    auto resolved = Resolve(req);
    if (auto* refusal = std::get_if<HttpResponse>(&resolved)) return std::move(*refusal);
    call = &resolved_here.emplace(std::move(std::get<Call>(resolved)));
  }
  const Route& route = *call->route;
  if (route.method != "GET" || route.quick) return (this->*route.serve)(*call, req);
  // A slow read: at most a few per key at once, or, for the pages opened
  // without a key (a pull request's), per client address.
  const std::string key_id = route.needs_key ? req.principal : "address " + req.client;
  if (!EnterRead(key_id)) {
    HttpResponse r = ErrorResponse(429,
                                   std::string("too many reads in flight for this ") +
                                       (route.needs_key ? "API key" : "client address") +
                                       " (at most " + std::to_string(options_.max_reads_per_key) +
                                       " at once); retry in a second",
                                   "too_many_requests");
    r.headers.emplace_back("Retry-After", "1");
    return r;
  }
  struct Leave {
    Api* api;
    const std::string& key;
    ~Leave() { api->LeaveRead(key); }
  } leave{this, key_id};
  return (this->*route.serve)(*call, req);
}

// --- The routes ------------------------------------------------------------------

std::span<const Api::Route> Api::Route::ProjectJobs() {
  static const Route kRows[] = {
      {.method = "POST",
       .pattern = "/v2/agent/{projectId}/job",
       .needs_key = true,
       .quick = false,
       .serve = &Api::CreateJob},
      {.method = "GET",
       .pattern = "/v2/agent/{projectId}/jobs",
       .needs_key = true,
       .quick = false,
       .serve = &Api::ListJobs},
      {.method = "GET",
       .pattern = "/v2/agent/{projectId}/job/{id}",
       .needs_key = true,
       .quick = true,
       .serve = &Api::GetJob},
      {.method = "POST",
       .pattern = "/v2/agent/{projectId}/job/{id}/message",
       .needs_key = true,
       .quick = false,
       .serve = &Api::AddMessage},
      {.method = "GET",
       .pattern = "/v2/agent/{projectId}/job/{id}/messages",
       .needs_key = true,
       .quick = false,
       .serve = &Api::Transcript},
      {.method = "POST",
       .pattern = "/v2/agent/{projectId}/job/{id}/archive",
       .needs_key = true,
       .quick = false,
       .serve = &Api::ArchiveJob},
      // Extension: end the running turn after its current step, keeping its work.
      {.method = "POST",
       .pattern = "/v2/agent/{projectId}/job/{id}/stop",
       .needs_key = true,
       .quick = false,
       .serve = &Api::StopJob},
      // Extension: the job's events as they happen (Server-Sent Events). Quick:
      // it reads the job as a poll does, and hands the stream to the hub (which
      // bounds the streams per key) without reading the store.
      {.method = "GET",
       .pattern = "/v2/agent/{projectId}/job/{id}/events",
       .needs_key = true,
       .quick = true,
       .serve = &Api::JobEvents},
      // Extension: the job's branch as a reviewer reads it (api/review_routes.cc).
      {.method = "GET",
       .pattern = "/v2/agent/{projectId}/job/{id}/review",
       .needs_key = true,
       .quick = false,
       .serve = &Api::JobReview},
  };
  return kRows;
}

std::span<const Api::Route> Api::Route::JobById() {
  // Extension: a job by its id alone, in any project the key's organisation has.
  static const Route kRows[] = {
      {.method = "GET",
       .pattern = "/v2/agent/job/{id}",
       .needs_key = true,
       .quick = false,
       .serve = &Api::GetJobById},
  };
  return kRows;
}

HttpResponse Api::Health(const Call& call, HttpRequest& req) {
  Status s = store_.Ping();
  if (!s.ok()) return ErrorResponse(503, "the store is unavailable", "unavailable");
  return HealthResponse();
}

HttpResponse Api::OpenApiDocument(const Call& call, HttpRequest& req) {
  // The document changes only with the binary: a client revalidates after a
  // few minutes, and gets a 304 while it is the same.
  static const std::string kTag = EntityTag(OpenApiJson());
  HttpResponse r;
  r.headers.emplace_back("ETag", kTag);
  r.headers.emplace_back("Cache-Control", "public, max-age=300");
  if (!req.if_none_match.empty() && IfNoneMatchMatches(req.if_none_match, kTag)) {
    r.status = 304;
    return r;
  }
  r.body = std::string(OpenApiJson());
  return r;
}

HttpResponse Api::CreateJob(const Call& call, HttpRequest& req) {
  if (!IsJsonContentType(req.content_type)) return UnsupportedMediaType();
  if (auto refused = CheckIdempotencyKey(req.idempotency_key)) return std::move(*refused);
  auto body = ParsePromptBody(req.body, /*allow_create_fields=*/true);
  if (!body.ok()) return ResponseFromStatus(body.status());
  NewJob nj{.prompt = std::move(body->prompt),
            .requested_model = std::move(body->model),
            .default_model = options_.default_model,
            .draft = body->draft};
  // The runner takes the turn (claimed in the write for an idle worker, or a
  // worker woken: store/wakeups.h) as soon as it can be claimed, while the
  // store makes the job durable; the answer waits for that.
  if (!req.idempotency_key.empty()) {
    auto written = store_.CreateJobWithKey(call.scope, nj, Keyed(req, "create", 201, currency_));
    if (!written.ok()) return ResponseFromStatus(written.status());
    return KeyedResponse(std::move(*written));
  }
  auto job = store_.CreateJob(call.scope, nj);
  if (!job.ok()) return ResponseFromStatus(job.status());
  return JobResponse(201, *job, currency_);
}

HttpResponse Api::ListJobs(const Call& call, HttpRequest& req) {
  JobQuery query;
  for (const auto& [k, v] : call.target.query) {
    if (k == "status") {
      if (v.empty()) continue;
      auto s = ParseJobStatus(v);
      if (!s) {
        return ErrorResponse(400, "status must be one of active, completed, archived, failed",
                             "invalid_request");
      }
      query.status = s;
    } else if (k == "limit") {
      if (!ParseIntParam(v, 1, kMaxPageSize, &query.limit)) {
        return ErrorResponse(400, "limit must be an integer from 1 to 100", "invalid_request");
      }
    } else if (k == "cursor") {
      if (v.empty()) continue;
      if (!LooksLikeId(v)) return ErrorResponse(400, "invalid cursor", "invalid_request");
      query.after_id = v;
    }
  }
  auto page = store_.ListJobs(call.scope, query);
  if (!page.ok()) return ResponseFromStatus(page.status());
  return JobListResponse(*page, currency_);
}

HttpResponse Api::GetJob(const Call& call, HttpRequest& req) {
  auto job = store_.GetJob(call.scope, call.job_id);
  if (!job.ok()) return ResponseFromStatus(job.status());
  return JobWithEntityTag(*job, currency_, req);
}

HttpResponse Api::GetJobById(const Call& call, HttpRequest& req) {
  auto job = store_.FindJob(call.scope.org_id, call.job_id);
  if (!job.ok()) return ResponseFromStatus(job.status());
  if (!KeySeesProject(call.key, job->project_id)) {
    return ErrorResponse(404, "job not found", "not_found");  // as if it were not there
  }
  return JobWithEntityTag(*job, currency_, req);
}

HttpResponse Api::AddMessage(const Call& call, HttpRequest& req) {
  if (!IsJsonContentType(req.content_type)) return UnsupportedMediaType();
  if (auto refused = CheckIdempotencyKey(req.idempotency_key)) return std::move(*refused);
  auto body = ParsePromptBody(req.body, /*allow_create_fields=*/false);
  if (!body.ok()) return ResponseFromStatus(body.status());
  NewMessage message{.prompt = std::move(body->prompt),
                     .requested_model = std::move(body->model),
                     .default_model = options_.default_model};
  if (!req.idempotency_key.empty()) {
    auto written = store_.AddMessageWithKey(call.scope, call.job_id, message,
                                            Keyed(req, "message " + call.job_id, 200, currency_));
    if (!written.ok()) return ResponseFromStatus(written.status());
    return KeyedResponse(std::move(*written));
  }
  auto job = store_.AddMessage(call.scope, call.job_id, message);
  if (!job.ok()) return ResponseFromStatus(job.status());
  return JobResponse(200, *job, currency_);
}

HttpResponse Api::Transcript(const Call& call, HttpRequest& req) {
  MessageQuery query;
  for (const auto& [k, v] : call.target.query) {
    if (k == "limit" && !ParseIntParam(v, 1, kMaxPageSize, &query.limit)) {
      return ErrorResponse(400, "limit must be an integer from 1 to 100", "invalid_request");
    }
    if (k == "cursor" && !v.empty() && !ParseIntParam(v, 1, INT32_MAX, &query.after_seq)) {
      return ErrorResponse(400, "invalid cursor", "invalid_request");
    }
  }
  auto page = store_.ListMessages(call.scope, call.job_id, query);
  if (!page.ok()) return ResponseFromStatus(page.status());
  auto usage = store_.JobUsage(call.scope, call.job_id);
  if (!usage.ok()) return ResponseFromStatus(usage.status());
  if (page->messages.empty()) {
    return TranscriptResponse(call.job_id, *usage, *page, {}, currency_);
  }
  // The steps of the page in one read, bounded by the page's size: the messages
  // whose steps are left out go to the next page. The view gives each message
  // its own steps.
  auto steps =
      store_.ListSteps(call.scope, call.job_id, page->messages.front().seq,
                       page->messages.back().seq, static_cast<int64_t>(kMaxTranscriptPageBytes));
  if (!steps.ok()) return ResponseFromStatus(steps.status());
  if (steps->through_seq < page->messages.back().seq &&
      steps->through_seq >= page->messages.front().seq) {
    std::erase_if(page->messages, [&](const Message& m) { return m.seq > steps->through_seq; });
    page->next_after_seq = steps->through_seq;
  }
  return TranscriptResponse(call.job_id, *usage, *page, steps->steps, currency_);
}

HttpResponse Api::JobEvents(const Call& call, HttpRequest& req) {
  // Where to resume: Last-Event-ID (what an EventSource sends when it
  // reconnects), else ?after=; from the job's first event without either.
  int64_t after = 0;
  std::string_view given = req.last_event_id;
  for (const auto& [k, v] : call.target.query) {
    if (k == "after" && given.empty()) given = v;
  }
  given = TrimSpace(given);
  if (!given.empty()) {
    int value = 0;
    if (!ParseIntParam(given, 0, INT32_MAX, &value)) {
      return ErrorResponse(400,
                           "Last-Event-ID (or after) must be the id of an event of the job, an "
                           "integer from 0",
                           "invalid_request");
    }
    after = value;
  }
  auto job = store_.GetJob(call.scope, call.job_id);
  if (!job.ok()) return ResponseFromStatus(job.status());
  if (streams_ == nullptr) {
    return ErrorResponse(503, "event streams are not served by this process", "unavailable");
  }
  auto stream = streams_->Open(
      StreamRequest{.scope = call.scope,
                    .job_id = call.job_id,
                    .after = after,
                    .key_id = req.principal,
                    .session_hash = call.session ? call.session->token_hash : std::string(),
                    .framing = ServerSentEventFraming()});
  if (!stream.ok()) return ResponseFromStatus(stream.status());
  HttpResponse r;
  r.content_type = kServerSentEventsType;
  r.headers.emplace_back("Cache-Control", "no-store");
  r.headers.emplace_back("X-Accel-Buffering", "no");  // a proxy passes each event on at once
  r.stream = std::move(*stream);
  return r;
}

HttpResponse Api::ArchiveJob(const Call& call, HttpRequest& req) {
  if (!req.body.empty() && !IsJsonContentType(req.content_type)) {
    return UnsupportedMediaType();
  }
  auto job = store_.ArchiveJob(call.scope, call.job_id);
  if (!job.ok()) return ResponseFromStatus(job.status());
  if (hooks_.job_archived) hooks_.job_archived(job->id);
  return JobResponse(200, *job, currency_);
}

HttpResponse Api::StopJob(const Call& call, HttpRequest& req) {
  if (!req.body.empty() && !IsJsonContentType(req.content_type)) {
    return UnsupportedMediaType();
  }
  auto job = store_.StopJob(call.scope, call.job_id);
  if (!job.ok()) return ResponseFromStatus(job.status());
  if (hooks_.job_stopped) hooks_.job_stopped(job->id);
  return JobResponse(200, *job, currency_);
}

}  // namespace docwright
