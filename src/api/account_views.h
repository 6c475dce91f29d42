// The response bodies of sign-in sessions, keys and projects (docs/api.md,
// "Sessions", "Keys", "Projects"), rendered with the one JSON writer of the
// responses. Free functions without state, callable from any thread. A key's
// secret hash and a project's forge token are never rendered.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/api_key.h"
#include "core/job.h"
#include "http/server.h"
#include "store/store.h"

namespace docwright {

// KeyRecord: {"id", "name", "prefix", "role", "projects", "createdAt",
// "lastUsedAt", "revokedAt"}, and "key" (the secret) when `secret` is given.
std::string KeyRecordJson(const ApiKey& key, const std::string* secret = nullptr);

// {"keys": [KeyRecord...]} in the order given.
HttpResponse KeyListResponse(const std::vector<ApiKey>& keys);

// SessionInfo: {"org": {"id", "name"}, "key": KeyRecord, "csrfToken",
// "expiresAt"}; the last two null without a session (a Bearer key). Not to be
// cached: it carries the session's CSRF token.
HttpResponse SessionInfoResponse(const Org& org, const ApiKey& key, const Session* session);

// {"projects": [{"id", "repository", "ref", "forge", "model", "createdAt",
// "archivedAt", "jobs": {"active", "completed", "failed", "archived"}}]}: each of
// `projects` with its counts from `counts` (none: zeros).
HttpResponse ProjectListResponse(const std::vector<Project>& projects,
                                 const std::vector<ProjectJobCounts>& counts);

}  // namespace docwright
