// Admin API keys: "dw_" followed by 43 base62 characters (256 random bits).
// Only the SHA-256 of a key is stored; the key itself is shown once, at creation.
#pragma once

#include <string>
#include <string_view>

#include "core/job.h"

namespace docwright {

inline constexpr std::string_view kApiKeyMarker = "dw_";
inline constexpr size_t kApiKeySecretChars = 43;

struct GeneratedApiKey {
  ApiKey record;       // what the store keeps
  std::string secret;  // what the user gets, once
};

GeneratedApiKey GenerateApiKey(const std::string& org_id, const std::string& name);

// True if `s` has the shape of a key (it may still be unknown or revoked).
bool LooksLikeApiKey(std::string_view s);

std::string HashApiKey(std::string_view secret);

}  // namespace docwright
