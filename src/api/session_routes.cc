// The sign-in sessions of browsers (docs/api.md, "Sessions"): POST /v2/session
// trades an API key for a session cookie, GET /v2/session says who is signed
// in, POST /v2/session/end signs out.
#include <nlohmann/json.hpp>
#include <string>

#include "api/account_views.h"
#include "api/api.h"
#include "api/call.h"
#include "api/request_body.h"
#include "api/routes.h"
#include "api/views.h"
#include "core/api_key.h"
#include "core/ids.h"
#include "core/text.h"
#include "core/time.h"
#include "core/url.h"
#include "events/event_streams.h"

namespace docwright {
namespace {

// The key of a sign-in body {"key": "dw_..."}; other members are ignored.
Result<std::string> ParseSignInBody(std::string_view body) {
  if (!Utf8Length(body)) return Status::InvalidArgument("the request body is not valid UTF-8");
  auto json = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return Status::InvalidArgument("the request body must be a JSON object: {\"key\": \"dw_...\"}");
  }
  auto key = json.find("key");
  if (key == json.end() || !key->is_string() || key->get_ref<const std::string&>().empty()) {
    return Status::InvalidArgument("key is required: the API key to sign in with");
  }
  return key->get<std::string>();
}

// The Set-Cookie of a session: sent only to this service, never readable by a
// script, never sent along with another site's request.
std::string SessionCookie(std::string_view value, int64_t max_age_s, bool secure) {
  std::string c = "dw_session=" + std::string(value) +
                  "; Path=/; HttpOnly; SameSite=Strict; Max-Age=" + std::to_string(max_age_s);
  if (secure) c += "; Secure";
  return c;
}

}  // namespace

std::span<const Api::Route> Api::Route::Sessions() {
  static const Route kRows[] = {
      // No key: signing in is what trades one for the cookie.
      {.method = "POST", .pattern = "/v2/session", .needs_key = false, .serve = &Api::SignIn},
      {.method = "GET", .pattern = "/v2/session", .serve = &Api::GetSession},
      {.method = "POST", .pattern = "/v2/session/end", .serve = &Api::SignOut},
  };
  return kRows;
}

HttpResponse Api::SignIn(const Call& call, HttpRequest& req) {
  // A sign-in from another site's page would sign the browser in as the
  // attacker's key (login CSRF).
  if (!FromOwnOrigin(req)) {
    return ErrorResponse(403, "the request's Origin is not this service's", "csrf");
  }
  if (int wait = sign_ins_.Admit(req.client); wait > 0) {
    HttpResponse r = ErrorResponse(
        429, "too many sign-in attempts from this address; retry in " + std::to_string(wait) + " s",
        "rate_limited");
    r.headers.emplace_back("Retry-After", std::to_string(wait));
    return r;
  }
  if (!IsJsonContentType(req.content_type)) return UnsupportedMediaType();
  auto secret = ParseSignInBody(req.body);
  if (!secret.ok()) return ResponseFromStatus(secret.status());
  const Status refused = Status::Unauthenticated("invalid or revoked API key");
  if (!LooksLikeApiKey(*secret)) return ResponseFromStatus(refused);
  std::string hash = HashApiKey(*secret);
  auto key = store_.FindActiveApiKey(hash);
  if (!key.ok()) {
    return ResponseFromStatus(key.status().code() == Code::kNotFound ? refused : key.status());
  }
  if (!ConstantTimeEquals(key->secret_hash, hash)) return ResponseFromStatus(refused);
  req.principal = key->id;
  key_uses_.Note(key->id);
  auto org = store_.GetOrg(key->org_id);
  if (!org.ok()) return ResponseFromStatus(org.status());
  const int64_t lifetime_s = options_.session_lifetime.count();
  NewSession session = GenerateSession(*key, NowMillis(), lifetime_s * 1000);
  if (Status s = store_.CreateSession(session.record); !s.ok()) {
    // Revoked since it was found.
    return ResponseFromStatus(s.code() == Code::kNotFound ? refused : s);
  }
  HttpResponse r = SessionInfoResponse(*org, *key, &session.record);
  auto public_url = ParseUrl(options_.public_url);
  r.headers.emplace_back("Set-Cookie", SessionCookie(session.token, lifetime_s,
                                                     public_url && public_url->scheme == "https"));
  return r;
}

HttpResponse Api::GetSession(const Call& call, HttpRequest& req) {
  auto org = store_.GetOrg(call.key.org_id);
  if (!org.ok()) return ResponseFromStatus(org.status());
  return SessionInfoResponse(*org, call.key, call.session ? &*call.session : nullptr);
}

HttpResponse Api::SignOut(const Call& call, HttpRequest& req) {
  if (call.session) {
    if (Status s = store_.DeleteSession(call.session->token_hash); !s.ok()) {
      return ResponseFromStatus(s);
    }
    // The session's event streams end with it.
    if (streams_ != nullptr) streams_->EndSession(call.session->token_hash);
  }
  HttpResponse r;
  r.status = 204;
  r.headers.emplace_back("Set-Cookie", "dw_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict");
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

}  // namespace docwright
