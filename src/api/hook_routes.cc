// POST /hooks/{github|gitlab|gitea}/{projectId}: a forge's webhook delivery
// (docs/api.md, "Forge webhooks"). No API key: the delivery proves it knows
// the project's hook secret (api/hook_signature.h). A project that does not
// exist, has no hook secret, or is on another forge is answered 404 alike, so
// the route tells nothing about projects to whoever does not hold a secret. A
// delivery whose signature does not hold is answered 401, logged (never with
// its body or the secret), and never acted on. A verified delivery docwright
// acts on is recorded once (Store::RecordForgeEvent) for the workflows'
// engine, which handles it on its next round.
#include <spdlog/spdlog.h>

#include "api/api.h"
#include "api/call.h"
#include "api/forge_payloads.h"
#include "api/hook_signature.h"
#include "api/request_body.h"
#include "api/routes.h"
#include "api/views.h"
#include "core/ids.h"
#include "core/json_writer.h"
#include "core/metrics.h"
#include "core/text.h"
#include "core/time.h"

namespace docwright {
namespace {

HttpResponse HookAnswer(int status, std::string_view state, std::string_view reason = {}) {
  HttpResponse r;
  r.status = status;
  JsonWriter w(&r.body);
  w.BeginObject().Key("status").String(state);
  if (!reason.empty()) w.Key("reason").String(reason);
  w.EndObject();
  return r;
}

HttpResponse NoSuchHook() { return ErrorResponse(404, "not found", "not_found"); }

// The headers of `forge`'s deliveries: its event, its delivery id, and
// whether the delivery proves it knows `secret`.
struct HookHeaders {
  std::string_view event;
  std::string_view delivery;
  bool verified = false;
};

HookHeaders ReadHookHeaders(ForgeKind forge, const HttpRequest& req, const std::string& secret) {
  HookHeaders h;
  switch (forge) {
    case ForgeKind::kGithub:
      h.event = HookHeader(req, "x-github-event");
      h.delivery = HookHeader(req, "x-github-delivery");
      h.verified = HubSignatureValid(secret, HookHeader(req, "x-hub-signature-256"), req.body);
      break;
    case ForgeKind::kGitlab:
      h.event = HookHeader(req, "x-gitlab-event");
      h.delivery = HookHeader(req, "x-gitlab-event-uuid");
      if (h.delivery.empty()) h.delivery = req.idempotency_key;
      h.verified = TokenValid(secret, HookHeader(req, "x-gitlab-token"));
      break;
    case ForgeKind::kGitea: {
      // Forgejo names its headers its own way, and both also send GitHub's.
      h.event = HookHeader(req, "x-gitea-event");
      if (h.event.empty()) h.event = HookHeader(req, "x-forgejo-event");
      h.delivery = HookHeader(req, "x-gitea-delivery");
      if (h.delivery.empty()) h.delivery = HookHeader(req, "x-forgejo-delivery");
      std::string_view hex = HookHeader(req, "x-gitea-signature");
      if (hex.empty()) hex = HookHeader(req, "x-forgejo-signature");
      std::string_view hub = HookHeader(req, "x-hub-signature-256");
      h.verified = (!hex.empty() && HexSignatureValid(secret, hex, req.body)) ||
                   (!hub.empty() && HubSignatureValid(secret, hub, req.body));
      break;
    }
    case ForgeKind::kLocal:
      break;
  }
  return h;
}

}  // namespace

// No key: the delivery is signed with the project's hook secret, checked by
// the route.
std::span<const Api::Route> Api::Route::Hooks() {
  static const Route kRows[] = {
      {.method = "POST",
       .pattern = "/hooks/{forge}/{projectId}",
       .needs_key = false,
       .serve = &Api::ForgeHook},
  };
  return kRows;
}

HttpResponse Api::ForgeHook(const Call& call, HttpRequest& req) {
  // Every delivery is counted once: "refused" unless it was taken.
  std::string_view outcome = "refused";
  HttpResponse answer = [&]() -> HttpResponse {
    const auto& seg = call.target.segments;  // hooks, {forge}, {projectId}
    std::optional<ForgeKind> forge = ParseForge(seg[1]);
    // "forgejo" is Gitea's kind too; the path names the three the forges' settings use.
    if (!forge || *forge == ForgeKind::kLocal || seg[1] == "forgejo") return NoSuchHook();
    const std::string project_id(seg[2]);
    if (!LooksLikeId(project_id)) return NoSuchHook();
    auto project = store_.GetProjectById(project_id);
    if (!project.ok()) {
      if (project.status().code() == Code::kNotFound) return NoSuchHook();
      return ResponseFromStatus(project.status());
    }
    if (project->forge != *forge || !project->hook_secret || project->hook_secret->empty()) {
      return NoSuchHook();
    }
    req.principal = "hook " + std::string(seg[1]);

    HookHeaders headers = ReadHookHeaders(*forge, req, *project->hook_secret);
    if (!headers.verified) {
      spdlog::warn(
          "hooks: refused a {} delivery for project {} (delivery {}, from {}): its signature or "
          "token does not match the project's hook secret",
          seg[1], project_id, OneLogLine(headers.delivery, 100), OneLogLine(req.client, 100));
      return ErrorResponse(401, "the delivery's signature does not match the project's hook secret",
                           "unauthorized");
    }
    if (!req.body.empty() && !IsJsonContentType(req.content_type)) {
      return ErrorResponse(415, "send application/json (the hook's content type on the forge)",
                           "unsupported_media_type");
    }

    ParsedForgeHook parsed = ParseForgeHook(*forge, headers.event, headers.delivery, req.body);
    switch (parsed.outcome) {
      case ParsedForgeHook::Outcome::kPing:
        outcome = "accepted";
        return HookAnswer(200, "pong");
      case ParsedForgeHook::Outcome::kInvalid:
        return ErrorResponse(400, parsed.reason, "invalid_request");
      case ParsedForgeHook::Outcome::kIgnored:
        outcome = "accepted";
        return HookAnswer(202, "ignored", parsed.reason);
      case ParsedForgeHook::Outcome::kEvent:
        break;
    }
    outcome = "accepted";  // from here on, the delivery was taken (or is known)
    if (project->archived_at) return HookAnswer(202, "ignored", "the project is archived");
    parsed.event.project_id = project_id;
    auto recorded = store_.RecordForgeEvent(std::move(parsed.event));
    if (!recorded.ok()) {
      outcome = "refused";  // not recorded: the forge delivers it again
      return ResponseFromStatus(recorded.status());
    }
    if (!*recorded) {
      outcome = "duplicate";
      return HookAnswer(200, "already received");
    }
    return HookAnswer(202, "accepted");
  }();
  metrics::RecordWebhookDelivery("in", outcome);
  return answer;
}

}  // namespace docwright
