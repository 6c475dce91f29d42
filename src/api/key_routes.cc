// An organisation's API keys and projects as its keys see them (docs/api.md,
// "Keys", "Projects"): keys are an admin's, and no key grants more than its
// holder has; the projects are those the key reaches.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/account_views.h"
#include "api/api.h"
#include "api/call.h"
#include "api/request_body.h"
#include "api/routes.h"
#include "api/views.h"
#include "core/api_key.h"
#include "core/ids.h"
#include "core/text.h"
#include "events/event_streams.h"

namespace docwright {
namespace {

constexpr size_t kMaxKeyNameChars = 100;

struct NewKeyBody {
  std::string name;
  KeyRole role = KeyRole::kMember;
  std::optional<std::vector<std::string>> projects;  // distinct ids, in the order given
};

// {"name": string 1..100, "role": "admin"|"member", "projects": [ids] | null};
// other members are ignored.
Result<NewKeyBody> ParseNewKeyBody(std::string_view body) {
  if (!Utf8Length(body)) return Status::InvalidArgument("the request body is not valid UTF-8");
  auto json = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return Status::InvalidArgument("the request body must be a JSON object");
  }
  NewKeyBody out;
  auto name = json.find("name");
  if (name == json.end() || !name->is_string()) {
    return Status::InvalidArgument("name is required: a string of 1 to 100 characters");
  }
  out.name = name->get<std::string>();
  size_t chars = Utf8Length(out.name).value_or(0);
  if (TrimSpace(out.name).empty() || chars > kMaxKeyNameChars ||
      HasControlCharacter(out.name, /*allow_line_breaks=*/false)) {
    return Status::InvalidArgument(
        "name must be 1 to 100 characters, not blank, without control characters");
  }
  auto role = json.find("role");
  if (role != json.end() && !role->is_null()) {
    auto parsed = role->is_string() ? ParseKeyRole(role->get_ref<const std::string&>())
                                    : std::optional<KeyRole>();
    if (!parsed) return Status::InvalidArgument("role must be admin or member");
    out.role = *parsed;
  }
  auto projects = json.find("projects");
  if (projects != json.end() && !projects->is_null()) {
    if (!projects->is_array() || projects->size() > kMaxKeyProjects) {
      return Status::InvalidArgument("projects must be null or an array of at most " +
                                     std::to_string(kMaxKeyProjects) + " project ids");
    }
    std::vector<std::string> ids;
    std::set<std::string> seen;
    for (const auto& p : *projects) {
      if (!p.is_string() || !LooksLikeId(p.get_ref<const std::string&>())) {
        return Status::InvalidArgument("projects must hold project ids");
      }
      if (seen.insert(p.get<std::string>()).second) ids.push_back(p.get<std::string>());
    }
    out.projects = std::move(ids);
  }
  return out;
}

}  // namespace

std::span<const Api::Route> Api::Route::KeysAndProjects() {
  static const Route kRows[] = {
      {.method = "GET", .pattern = "/v2/keys", .serve = &Api::ListKeys},
      {.method = "POST", .pattern = "/v2/keys", .serve = &Api::CreateKey},
      {.method = "POST", .pattern = "/v2/keys/{keyId}/revoke", .serve = &Api::RevokeKey},
      {.method = "GET", .pattern = "/v2/projects", .serve = &Api::ListProjects},
  };
  return kRows;
}

HttpResponse Api::ListKeys(const Call& call, HttpRequest& req) {
  key_uses_.Flush();  // the listing shows this very request's use
  auto keys = store_.ListApiKeys(call.scope.org_id);
  if (!keys.ok()) return ResponseFromStatus(keys.status());
  std::reverse(keys->begin(), keys->end());  // ids are time-ordered: newest first
  // An admin limited to projects sees only the keys within its limits (its own
  // among them): the others would name projects it must not know of.
  if (call.key.projects) {
    std::erase_if(*keys, [&](const ApiKey& k) {
      return k.id != call.key.id && !KeyMayGrant(call.key, k.role, k.projects);
    });
  }
  return KeyListResponse(*keys);
}

HttpResponse Api::CreateKey(const Call& call, HttpRequest& req) {
  if (!IsJsonContentType(req.content_type)) return UnsupportedMediaType();
  auto body = ParseNewKeyBody(req.body);
  if (!body.ok()) return ResponseFromStatus(body.status());
  if (!KeyMayGrant(call.key, body->role, body->projects)) {
    return ErrorResponse(403,
                         "a key may not have more rights than the key creating it: this key is "
                         "limited to some projects, so the new key must be limited to them too",
                         "forbidden");
  }
  if (body->projects) {
    auto known = store_.ListProjects(call.scope.org_id);
    if (!known.ok()) return ResponseFromStatus(known.status());
    for (const std::string& id : *body->projects) {
      bool found =
          std::any_of(known->begin(), known->end(), [&](const Project& p) { return p.id == id; });
      if (!found) return ErrorResponse(400, "unknown project " + id, "invalid_request");
    }
  }
  GeneratedApiKey k =
      GenerateApiKey(call.scope.org_id, body->name, body->role, std::move(body->projects));
  if (Status s = store_.CreateApiKey(k.record); !s.ok()) return ResponseFromStatus(s);
  HttpResponse r;
  r.status = 201;
  r.body = KeyRecordJson(k.record, &k.secret);
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

HttpResponse Api::RevokeKey(const Call& call, HttpRequest& req) {
  if (!req.body.empty() && !IsJsonContentType(req.content_type)) return UnsupportedMediaType();
  const std::string& key_id = call.target.segments[2];
  auto keys = LooksLikeId(key_id) ? store_.ListApiKeys(call.scope.org_id)
                                  : Result<std::vector<ApiKey>>(std::vector<ApiKey>{});
  if (!keys.ok()) return ResponseFromStatus(keys.status());
  auto it =
      std::find_if(keys->begin(), keys->end(), [&](const ApiKey& k) { return k.id == key_id; });
  if (it == keys->end()) return ErrorResponse(404, "API key not found", "not_found");
  // Revoking takes a key's rights away from whoever holds it: only a key with
  // all of them may (an admin limited to projects revokes only keys within them).
  if (!KeyMayGrant(call.key, it->role, it->projects)) {
    return ErrorResponse(403, "this key may not revoke a key with rights beyond its own",
                         "forbidden");
  }
  if (Status s = store_.RevokeApiKey(key_id); !s.ok()) return ResponseFromStatus(s);
  // Its streams (its sessions' too) send nothing more from now on.
  if (streams_ != nullptr) streams_->EndStreamsOf(key_id);
  keys = store_.ListApiKeys(call.scope.org_id);
  if (!keys.ok()) return ResponseFromStatus(keys.status());
  it = std::find_if(keys->begin(), keys->end(), [&](const ApiKey& k) { return k.id == key_id; });
  if (it == keys->end()) return ErrorResponse(404, "API key not found", "not_found");
  HttpResponse r;
  r.body = KeyRecordJson(*it);
  return r;
}

HttpResponse Api::ListProjects(const Call& call, HttpRequest& req) {
  auto projects = store_.ListProjects(call.scope.org_id);
  if (!projects.ok()) return ResponseFromStatus(projects.status());
  std::erase_if(*projects, [&](const Project& p) { return !KeySeesProject(call.key, p.id); });
  auto counts = store_.CountJobs(call.scope.org_id);
  if (!counts.ok()) return ResponseFromStatus(counts.status());
  return ProjectListResponse(*projects, *counts);
}

}  // namespace docwright
