// Authentication of the API's requests: an API key from the Bearer header, or
// the key of a browser's sign-in session from its cookie; the CSRF rule for a
// session's writes; what a key's role and projects allow (docs/api.md,
// "Authentication", "Key roles").
#include <algorithm>
#include <cctype>
#include <string_view>

#include "api/api.h"
#include "api/call.h"
#include "api/views.h"
#include "core/api_key.h"
#include "core/ids.h"
#include "core/text.h"
#include "core/time.h"
#include "core/url.h"
#include "http/cookie.h"

namespace docwright {
namespace {

constexpr std::string_view kSessionCookie = "dw_session";

// The routes a member key may use: jobs (v2 and v1), the projects it sees, its
// own session, and the local forge's pull requests (whose route checks the
// organisation and project), but for AdminOnly's writes. Everything else (keys)
// is an admin's.
bool MemberMayUse(std::string_view pattern) {
  for (std::string_view prefix : {"/v2/agent/", "/v1/agent/", "/v2/session", "/pulls/"}) {
    if (pattern.starts_with(prefix)) return true;
  }
  return pattern == "/v2/projects";
}

bool IsRead(std::string_view method) { return method == "GET" || method == "HEAD"; }

// The writes under /v2/agent/ that are an admin's: a project's context
// repositories and workflow definitions (a member may run a workflow by hand).
bool AdminOnly(std::string_view pattern, std::string_view method) {
  if (IsRead(method)) return false;
  for (std::string_view admin :
       {"/v2/agent/{projectId}/context", "/v2/agent/{projectId}/context/{name}",
        "/v2/agent/{projectId}/workflows", "/v2/agent/{projectId}/workflows/{name}"}) {
    if (pattern == admin) return true;
  }
  return false;
}

HttpResponse CsrfRefusal(std::string_view why) { return ErrorResponse(403, why, "csrf"); }

// "scheme://host[:port]" as a browser sends it in Origin: the port only when it
// is not the scheme's default; nullopt if `url` is no http(s) URL.
std::optional<std::string> OriginOf(std::string_view url) {
  std::optional<Url> u = ParseUrl(url);
  if (!u || (u->scheme != "http" && u->scheme != "https")) return std::nullopt;
  std::string host = u->host.find(':') != std::string::npos ? "[" + u->host + "]" : u->host;
  int default_port = u->scheme == "https" ? 443 : 80;
  std::string origin = u->scheme + "://" + host;
  if (u->explicit_port && u->port != default_port) origin += ":" + std::to_string(u->port);
  return origin;
}

}  // namespace

bool Api::FromOwnOrigin(const HttpRequest& req) const {
  if (req.origin.empty()) return true;
  const std::string origin = Lower(req.origin);
  if (!options_.public_url.empty()) return OriginOf(options_.public_url) == origin;
  // No public URL: the host the request was sent to, either scheme (a proxy in
  // front may end TLS).
  const std::string host = Lower(TrimSpace(req.host));
  return !host.empty() && (origin == "http://" + host || origin == "https://" + host);
}

std::optional<ApiKey> Api::SessionKey(const HttpRequest& req) {
  std::string_view token = CookieValue(req.cookie, kSessionCookie);
  if (!LooksLikeSessionToken(token)) return std::nullopt;
  auto found = store_.FindSession(HashSessionToken(token), NowMillis());
  if (!found.ok()) return std::nullopt;
  return std::move(found->key);
}

std::optional<HttpResponse> Api::Authenticate(HttpRequest& req, Call& call) {
  constexpr std::string_view kBearer = "Bearer ";
  std::string_view auth = req.authorization;
  std::string_view cookie = CookieValue(req.cookie, kSessionCookie);
  if (!auth.empty() || cookie.empty()) {
    // A Bearer header wins over a cookie.
    if (auth.size() < kBearer.size() ||
        !std::equal(kBearer.begin(), kBearer.end(), auth.begin(),
                    [](char a, char b) { return std::tolower(a) == std::tolower(b); })) {
      return ResponseFromStatus(Status::Unauthenticated(
          "missing or malformed Authorization header; expected 'Bearer <API key>' (or a "
          "session cookie from POST /v2/session)"));
    }
    std::string_view secret = Trim(auth.substr(kBearer.size()), " ");
    if (!LooksLikeApiKey(secret)) {
      return ResponseFromStatus(Status::Unauthenticated("invalid API key"));
    }
    std::string hash = HashApiKey(secret);
    auto key = store_.FindActiveApiKey(hash);
    if (!key.ok()) {
      if (key.status().code() == Code::kNotFound) {
        return ResponseFromStatus(Status::Unauthenticated("invalid or revoked API key"));
      }
      return ResponseFromStatus(key.status());
    }
    if (!ConstantTimeEquals(key->secret_hash, hash)) {
      return ResponseFromStatus(Status::Unauthenticated("invalid or revoked API key"));
    }
    call.key = std::move(*key);
  } else {
    const Status ended =
        Status::Unauthenticated("the session ended or expired; sign in again (POST /v2/session)");
    if (!LooksLikeSessionToken(cookie)) return ResponseFromStatus(ended);
    std::string hash = HashSessionToken(cookie);
    auto found = store_.FindSession(hash, NowMillis());
    if (!found.ok()) {
      return ResponseFromStatus(found.status().code() == Code::kNotFound ? ended : found.status());
    }
    if (!ConstantTimeEquals(found->session.token_hash, hash)) return ResponseFromStatus(ended);
    // A browser sends the cookie with any site's request: a write must prove it
    // comes from the page (its CSRF token, and the service's own origin).
    if (!IsRead(req.method)) {
      if (req.csrf_token.empty() ||
          !ConstantTimeEquals(req.csrf_token, found->session.csrf_token)) {
        return CsrfRefusal(
            "a write authenticated by the session cookie needs the header X-Docwright-CSRF with "
            "the session's csrfToken");
      }
      if (!FromOwnOrigin(req)) {
        return CsrfRefusal("the request's Origin is not this service's");
      }
    }
    call.key = std::move(found->key);
    call.session = std::move(found->session);
  }
  req.principal = call.key.id;
  key_uses_.Note(call.key.id);
  // Resolve named the route's pattern in req.route.
  if (call.key.role != KeyRole::kAdmin &&
      (!MemberMayUse(req.route) || AdminOnly(req.route, req.method))) {
    return ErrorResponse(403, "this API key is a member's: only an admin key may do this",
                         "forbidden");
  }

  const auto& seg = call.target.segments;
  call.scope.org_id = call.key.org_id;
  bool has_project = false, has_job = false;
  // A job's {id} is in the agent routes only (a pull request's page names its own).
  const bool agent_route =
      req.route.starts_with("/v2/agent/") || req.route.starts_with("/v1/agent/");
  const auto& parts = Segments(*call.route);
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i] == "{projectId}") has_project = true, call.scope.project_id = seg[i];
    if (parts[i] == "{id}" && agent_route) has_job = true, call.job_id = seg[i];
  }
  // Ids have one shape; anything else cannot exist, and needs no lookup. A
  // project outside the key's limits is answered as one that does not exist.
  if (has_project &&
      (!LooksLikeId(call.scope.project_id) || !KeySeesProject(call.key, call.scope.project_id))) {
    return ErrorResponse(404, "project not found", "not_found");
  }
  if (has_job && !LooksLikeId(call.job_id)) {
    if (has_project) {
      auto project = store_.GetProject(call.scope);
      if (!project.ok()) return ResponseFromStatus(project.status());
    }
    return ErrorResponse(404, "job not found", "not_found");
  }
  return std::nullopt;
}

}  // namespace docwright
