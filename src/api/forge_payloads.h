// The payloads of forges' webhook deliveries (POST /hooks/{forge}/{project
// id}), reduced to a ForgeEvent (core/forge_event.h): GitHub's push,
// pull_request, issue_comment (on a pull request), pull_request_review and
// pull_request_review_comment; GitLab's Push Hook, Merge Request Hook and Note
// Hook (on a merge request); Gitea's (and Forgejo's) push, pull_request,
// issue_comment and pull request reviews, whose shapes are GitHub's.
//
// The body is verified before it is parsed, but it is still bytes from the
// network: every value kept is bounded (comment text to kMaxForgeCommentBytes,
// valid UTF-8; names, ids and URLs to the limits below, without control
// characters) and a value of the wrong type counts as absent. Pure functions,
// safe from any thread; fuzzed by fuzz/forge_payloads.cc.
#pragma once

#include <string>
#include <string_view>

#include "core/forge_event.h"
#include "core/job.h"

namespace docwright {

inline constexpr size_t kMaxForgeNameBytes = 255;  // a login, a branch, an action
inline constexpr size_t kMaxForgeUrlBytes = 2048;
inline constexpr size_t kMaxForgeIdBytes = 100;  // a comment's id
inline constexpr size_t kMaxForgeDeliveryIdBytes = 255;
inline constexpr size_t kMaxForgeRepositoryUrls = 4;

// What a delivery is.
struct ParsedForgeHook {
  enum class Outcome {
    kEvent,    // `event` is what docwright acts on
    kPing,     // the forge checks the hook works: nothing to do
    kIgnored,  // an event docwright does not act on; `reason` says which
    kInvalid   // not a JSON object: `reason` says so
  };
  Outcome outcome = Outcome::kIgnored;
  // kEvent: everything but id, project_id and received_at (the store's and the
  // route's), delivery_id always set.
  ForgeEvent event;
  std::string reason;  // kIgnored, kInvalid: for the sender, never payload text
};

// Parses the delivery of `forge` (kGithub, kGitlab, kGitea; kLocal ignores
// everything) whose event header is `event_name` (X-GitHub-Event,
// X-Gitlab-Event, X-Gitea-Event) and delivery header `delivery_id`. A
// delivery id that is not 1 to kMaxForgeDeliveryIdBytes printable ASCII
// characters is replaced by "sha256:<hex of the body>": the same body
// delivered twice is then still one delivery.
ParsedForgeHook ParseForgeHook(ForgeKind forge, std::string_view event_name,
                               std::string_view delivery_id, std::string_view body);

}  // namespace docwright
