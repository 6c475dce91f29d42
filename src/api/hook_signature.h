// How a forge's webhook delivery proves it knows the project's hook secret
// (docs/api.md, "Forge webhooks"): GitHub, Gitea and Forgejo sign the raw
// body with HMAC-SHA256 keyed by the secret, GitLab sends the secret itself.
// Pure functions, safe from any thread; every comparison takes time that
// depends only on the lengths, never on where the values differ.
#pragma once

#include <string>
#include <string_view>

namespace docwright {

// The HMAC-SHA256 of `data` keyed with `key`, as lower-case hex (64 characters).
std::string HmacSha256Hex(std::string_view key, std::string_view data);

// GitHub's X-Hub-Signature-256 (also sent by Gitea and Forgejo):
// "sha256=<hex HMAC-SHA256(secret, body)>", hex in either case.
bool HubSignatureValid(std::string_view secret, std::string_view header, std::string_view body);

// Gitea's X-Gitea-Signature (Forgejo's X-Forgejo-Signature): the hex
// HMAC-SHA256(secret, body), without a prefix, in either case.
bool HexSignatureValid(std::string_view secret, std::string_view header, std::string_view body);

// GitLab's X-Gitlab-Token: the secret itself.
bool TokenValid(std::string_view secret, std::string_view header);

// A new hook secret: 40 characters of base62 from the system's CSPRNG (about
// 238 bits), fit for every forge's secret field.
std::string NewHookSecret();

}  // namespace docwright
