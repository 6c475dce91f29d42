#include "core/forge_event.h"

namespace docwright {

std::string_view ToString(ForgeEventKind k) {
  switch (k) {
    case ForgeEventKind::kPush:
      return "push";
    case ForgeEventKind::kPullRequest:
      return "pull_request";
    case ForgeEventKind::kComment:
      return "comment";
  }
  return "push";
}

std::optional<ForgeEventKind> ParseForgeEventKind(std::string_view s) {
  if (s == "push") return ForgeEventKind::kPush;
  if (s == "pull_request") return ForgeEventKind::kPullRequest;
  if (s == "comment") return ForgeEventKind::kComment;
  return std::nullopt;
}

}  // namespace docwright
