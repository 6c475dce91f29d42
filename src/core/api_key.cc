#include "core/api_key.h"

#include "core/ids.h"
#include "core/time.h"

namespace docwright {

GeneratedApiKey GenerateApiKey(const std::string& org_id, const std::string& name) {
  GeneratedApiKey k;
  k.secret = std::string(kApiKeyMarker) + RandomBase62(kApiKeySecretChars);
  k.record.id = NewId();
  k.record.org_id = org_id;
  k.record.name = name;
  k.record.prefix = k.secret.substr(0, kApiKeyMarker.size() + 6);
  k.record.secret_hash = HashApiKey(k.secret);
  k.record.created_at = NowMillis();
  return k;
}

bool LooksLikeApiKey(std::string_view s) {
  if (s.size() != kApiKeyMarker.size() + kApiKeySecretChars) return false;
  if (s.substr(0, kApiKeyMarker.size()) != kApiKeyMarker) return false;
  for (char c : s.substr(kApiKeyMarker.size())) {
    bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!ok) return false;
  }
  return true;
}

std::string HashApiKey(std::string_view secret) { return Sha256Hex(secret); }

}  // namespace docwright
