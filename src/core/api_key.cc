#include "core/api_key.h"

#include <algorithm>

#include "core/ids.h"
#include "core/time.h"

namespace docwright {
namespace {

bool IsBase62(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  });
}

}  // namespace

GeneratedApiKey GenerateApiKey(const std::string& org_id, const std::string& name, KeyRole role,
                               std::optional<std::vector<std::string>> projects) {
  GeneratedApiKey k;
  k.secret = std::string(kApiKeyMarker) + RandomBase62(kApiKeySecretChars);
  k.record.id = NewId();
  k.record.org_id = org_id;
  k.record.name = name;
  k.record.prefix = k.secret.substr(0, kApiKeyMarker.size() + 6);
  k.record.secret_hash = HashApiKey(k.secret);
  k.record.role = role;
  k.record.projects = std::move(projects);
  k.record.created_at = NowMillis();
  return k;
}

bool LooksLikeApiKey(std::string_view s) {
  if (s.size() != kApiKeyMarker.size() + kApiKeySecretChars) return false;
  if (s.substr(0, kApiKeyMarker.size()) != kApiKeyMarker) return false;
  return IsBase62(s.substr(kApiKeyMarker.size()));
}

std::string HashApiKey(std::string_view secret) { return Sha256Hex(secret); }

std::string_view ToString(KeyRole role) { return role == KeyRole::kMember ? "member" : "admin"; }

std::optional<KeyRole> ParseKeyRole(std::string_view s) {
  if (s == "admin") return KeyRole::kAdmin;
  if (s == "member") return KeyRole::kMember;
  return std::nullopt;
}

bool KeySeesProject(const ApiKey& key, std::string_view project_id) {
  if (!key.projects) return true;
  return std::find(key.projects->begin(), key.projects->end(), project_id) != key.projects->end();
}

bool KeyMayGrant(const ApiKey& holder, KeyRole role,
                 const std::optional<std::vector<std::string>>& projects) {
  if (holder.role != KeyRole::kAdmin) return false;
  if (!holder.projects) return true;
  if (!projects) return false;
  return std::all_of(projects->begin(), projects->end(),
                     [&](const std::string& p) { return KeySeesProject(holder, p); });
}

NewSession GenerateSession(const ApiKey& key, UnixMillis now, int64_t lifetime_ms) {
  NewSession s;
  s.token = std::string(kSessionMarker) + RandomBase62(kSessionTokenChars);
  s.record.token_hash = HashSessionToken(s.token);
  s.record.key_id = key.id;
  s.record.org_id = key.org_id;
  s.record.csrf_token = RandomBase62(kSessionTokenChars);
  s.record.created_at = now;
  s.record.expires_at = now + lifetime_ms;
  return s;
}

bool LooksLikeSessionToken(std::string_view s) {
  if (s.size() != kSessionMarker.size() + kSessionTokenChars) return false;
  if (s.substr(0, kSessionMarker.size()) != kSessionMarker) return false;
  return IsBase62(s.substr(kSessionMarker.size()));
}

std::string HashSessionToken(std::string_view token) { return Sha256Hex(token); }

}  // namespace docwright
