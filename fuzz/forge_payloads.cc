// A forge's webhook payload is bytes from the network (verified, but a secret
// can leak). Input: one byte choosing the forge and the event's name, one the
// delivery id, then the body. Whatever they are, the parser returns without
// crashing, and an event it keeps is bounded: comment text at most
// kMaxForgeCommentBytes of valid UTF-8, names and URLs valid, bounded and
// free of control characters, at most kMaxForgeRepositoryUrls URLs, a push's
// branch a usable branch name, a delivery id always set.
#include <string>

#include "api/forge_payloads.h"
#include "core/text.h"
#include "fuzz_check.h"

namespace {

using namespace docwright;

bool Bounded(const std::string& s, size_t max) {
  return s.size() <= max && Utf8Length(s).has_value() && !HasControlCharacter(s, false);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  static constexpr const char* kNames[] = {"push",
                                           "pull_request",
                                           "issue_comment",
                                           "pull_request_review",
                                           "pull_request_review_comment",
                                           "Push Hook",
                                           "Merge Request Hook",
                                           "Note Hook",
                                           "pull_request_rejected",
                                           "ping",
                                           "Tag Push Hook",
                                           "star"};
  static constexpr ForgeKind kForges[] = {ForgeKind::kGithub, ForgeKind::kGitlab,
                                          ForgeKind::kGitea};
  const ForgeKind forge = kForges[data[0] % 3];
  const char* name = kNames[(data[0] / 3) % std::size(kNames)];
  const std::string delivery =
      data[1] % 2 ? "72d3162e-cc78-11e3-81ab-4c9367dc0958" : std::string(data[1] % 7, '\n');
  std::string_view body = fuzz::AsText(data + 2, size - 2);

  ParsedForgeHook p = ParseForgeHook(forge, name, delivery, body);
  if (p.outcome != ParsedForgeHook::Outcome::kEvent) {
    FUZZ_CHECK(p.outcome == ParsedForgeHook::Outcome::kPing || !p.reason.empty());
    return 0;
  }
  const ForgeEvent& e = p.event;
  FUZZ_CHECK(e.forge == forge);
  FUZZ_CHECK(!e.delivery_id.empty() && e.delivery_id.size() <= kMaxForgeDeliveryIdBytes);
  FUZZ_CHECK(e.comment_body.size() <= kMaxForgeCommentBytes);
  FUZZ_CHECK(Utf8Length(e.comment_body).has_value());
  FUZZ_CHECK(e.repository_urls.size() <= kMaxForgeRepositoryUrls);
  for (const std::string& url : e.repository_urls) {
    FUZZ_CHECK(!url.empty() && Bounded(url, kMaxForgeUrlBytes));
  }
  for (const std::string* s : {&e.sender, &e.pr_head, &e.pr_base, &e.pr_action, &e.review_state,
                               &e.comment_kind, &e.branch}) {
    FUZZ_CHECK(Bounded(*s, kMaxForgeNameBytes));
  }
  FUZZ_CHECK(Bounded(e.pr_url, kMaxForgeUrlBytes) && Bounded(e.comment_url, kMaxForgeUrlBytes));
  FUZZ_CHECK(Bounded(e.comment_path, kMaxForgeUrlBytes));
  FUZZ_CHECK(e.comment_id.size() <= kMaxForgeIdBytes + kMaxForgeDeliveryIdBytes + 32);
  if (e.kind == ForgeEventKind::kPush) {
    FUZZ_CHECK(CheckBranchName(e.branch).ok());
    FUZZ_CHECK(e.after.size() == 40 || e.after.size() == 64);
    FUZZ_CHECK(!e.repository_urls.empty());
  } else {
    FUZZ_CHECK(e.pr_number > 0);
  }
  if (e.kind == ForgeEventKind::kComment) FUZZ_CHECK(!e.comment_id.empty());
  return 0;
}
