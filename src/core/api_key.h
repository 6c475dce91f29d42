// Admin API keys: "dw_" followed by 43 base62 characters (256 random bits).
// Only the SHA-256 of a key is stored; the key itself is shown once, at creation.
// Also what a key may do (its role and projects) and the sign-in sessions a key
// opens for a browser. Pure functions, safe from any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/job.h"

namespace docwright {

inline constexpr std::string_view kApiKeyMarker = "dw_";
inline constexpr size_t kApiKeySecretChars = 43;

struct GeneratedApiKey {
  ApiKey record;       // what the store keeps
  std::string secret;  // what the user gets, once
};

// An admin key of the whole organisation unless `role` and `projects` say less.
GeneratedApiKey GenerateApiKey(const std::string& org_id, const std::string& name,
                               KeyRole role = KeyRole::kAdmin,
                               std::optional<std::vector<std::string>> projects = std::nullopt);

// True if `s` has the shape of a key (it may still be unknown or revoked).
bool LooksLikeApiKey(std::string_view s);

std::string HashApiKey(std::string_view secret);

std::string_view ToString(KeyRole role);  // "admin", "member"
std::optional<KeyRole> ParseKeyRole(std::string_view s);

// Whether `key` reaches the project `project_id` of its organisation.
bool KeySeesProject(const ApiKey& key, std::string_view project_id);

// Whether a key with `role` and `projects` has no right `holder` lacks: a
// member holder grants nothing; an admin limited to projects grants only keys
// limited to a subset of them.
bool KeyMayGrant(const ApiKey& holder, KeyRole role,
                 const std::optional<std::vector<std::string>>& projects);

// A browser's sign-in: the key it signed in with, until `expires_at`. The token
// the browser holds (its cookie) is stored only as its hash.
struct Session {
  std::string token_hash;  // HashSessionToken of the cookie's token
  std::string key_id;
  std::string org_id;
  std::string csrf_token;  // sent back by the page on every write (X-Docwright-CSRF)
  UnixMillis created_at = 0;
  UnixMillis expires_at = 0;
};

// A session with the key it stands for (active: unexpired, the key unrevoked).
struct ActiveSession {
  Session session;
  ApiKey key;
};

inline constexpr std::string_view kSessionMarker = "dws_";
inline constexpr size_t kSessionTokenChars = 43;

struct NewSession {
  Session record;     // what the store keeps
  std::string token;  // the cookie's value
};

// A new session of `key` from `now` for `lifetime_ms`, with fresh random token
// and CSRF token (256 bits each).
NewSession GenerateSession(const ApiKey& key, UnixMillis now, int64_t lifetime_ms);

// True if `s` has the shape of a session token.
bool LooksLikeSessionToken(std::string_view s);

std::string HashSessionToken(std::string_view token);

}  // namespace docwright
