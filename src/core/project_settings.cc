#include "core/project_settings.h"

#include <algorithm>
#include <charconv>

#include "core/text.h"
#include "core/url.h"
#include "core/usage.h"

namespace docwright {
namespace {

bool HasDotDotSegment(std::string_view path) {
  while (!path.empty()) {
    size_t slash = path.find('/');
    if (path.substr(0, slash) == "..") return true;
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return false;
}

std::string TooMany(const char* what) {
  return "at most " + std::to_string(kMaxProjectListEntries) + " " + what + " are allowed";
}

}  // namespace

Status CheckForgeToken(std::string_view token) {
  for (char c : token) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) {
      return Status::InvalidArgument("--forge-token must not contain spaces or control characters");
    }
  }
  return Status();
}

Status CheckWriteRules(const std::vector<std::string>& rules) {
  if (rules.size() > kMaxProjectListEntries)
    return Status::InvalidArgument(TooMany("--write-paths rules"));
  for (const std::string& rule : rules) {
    std::string_view body = rule;
    if (!body.empty() && body.front() == '!') body.remove_prefix(1);
    bool bad = body.empty() || rule.size() > kMaxProjectListEntryChars || !Utf8Length(rule) ||
               HasControlCharacter(rule, false) || rule.find('\\') != std::string::npos ||
               HasDotDotSegment(body);
    if (bad) {
      return Status::InvalidArgument(
          "invalid --write-paths rule (a gitignore-style pattern of at most " +
          std::to_string(kMaxProjectListEntryChars) +
          " characters, no '..', backslashes or control characters): " +
          std::string(CutUtf8(rule, 80)));
    }
  }
  return Status();
}

Status CheckSiteRoot(std::string& site_root) {
  while (!site_root.empty() && site_root.back() == '/') {
    site_root.pop_back();
  }
  if (site_root.empty()) return Status();
  bool bad = site_root.size() > kMaxSiteRootChars || !Utf8Length(site_root) ||
             HasControlCharacter(site_root, false) || site_root.find('\\') != std::string::npos ||
             site_root.front() == '/';
  for (std::string_view rest = site_root; !bad;) {
    size_t slash = rest.find('/');
    std::string_view part = rest.substr(0, slash);
    bad = part.empty() || part == "." || part == "..";
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  if (bad) {
    return Status::InvalidArgument(
        "--site-root must be a folder of the repository: a relative path of at most " +
        std::to_string(kMaxSiteRootChars) +
        " characters, no '.' or '..' parts, backslashes or control characters (\"\" to find "
        "the site by its configuration file): " +
        std::string(CutUtf8(site_root, 80)));
  }
  return Status();
}

Status CheckMaxActive(const std::optional<int64_t>& max_active) {
  if (max_active && (*max_active < 1 || *max_active > kMaxActiveCap)) {
    return Status::InvalidArgument("--max-active must be from 1 to " +
                                   std::to_string(kMaxActiveCap) + " (0: no cap)");
  }
  return Status();
}

Status CheckBudget(const MonthlyBudget& budget) {
  if (budget.tokens && (*budget.tokens < 1 || *budget.tokens > kMaxTokenBudget)) {
    return Status::InvalidArgument("--token-budget must be from 1 to " +
                                   std::to_string(kMaxTokenBudget) + " tokens, or none");
  }
  if (budget.cost_micros && *budget.cost_micros < 1) {
    return Status::InvalidArgument("--cost-budget must be more than 0, or none");
  }
  return Status();
}

Result<std::optional<int64_t>> ParseTokenBudget(std::string_view text) {
  text = TrimSpace(text);
  if (text == "none") return std::optional<int64_t>();
  const std::string bad = "--token-budget must be a whole number of tokens from 1 to " +
                          std::to_string(kMaxTokenBudget) + ", or none";
  // Digits only: no sign, no exponent, no separators (a typo must not cap a
  // project at a surprising number).
  if (text.empty() || text.size() > 16 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return Status::InvalidArgument(bad);
  }
  int64_t tokens = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), tokens);
  if (ec != std::errc() || end != text.data() + text.size() || tokens < 1 ||
      tokens > kMaxTokenBudget) {
    return Status::InvalidArgument(bad);
  }
  return std::optional<int64_t>(tokens);
}

Result<std::optional<int64_t>> ParseCostBudget(std::string_view text) {
  text = TrimSpace(text);
  if (text == "none") return std::optional<int64_t>();
  auto micros = ParseCost(text);
  if (!micros.ok() || *micros < 1) {
    return Status::InvalidArgument(
        "--cost-budget must be an amount in the price table's currency, more than 0 and with at "
        "most six decimals (e.g. 50 or 12.5), or none");
  }
  return std::optional<int64_t>(*micros);
}

Status CheckProjectSettings(Project& p) {
  if (p.repository.empty() || p.repository.size() > 2048) {
    return Status::InvalidArgument("--repository must be 1 to 2048 characters");
  }
  if (std::optional<Url> url = ParseUrl(p.repository);
      url && (url->scheme == "http" || url->scheme == "https") && url->has_userinfo) {
    return Status::InvalidArgument(
        "--repository must not carry credentials: give the token with --forge-token");
  }
  if (p.base_ref.empty() || p.base_ref.size() > 255) {
    return Status::InvalidArgument("--ref must be 1 to 255 characters");
  }
  if (p.rate_limit_per_hour < 1 || p.rate_limit_per_hour > 1000000) {
    return Status::InvalidArgument("--rate-limit must be from 1 to 1000000");
  }
  if (Status cap = CheckMaxActive(p.max_active); !cap.ok()) return cap;
  if (Status budget = CheckBudget(p.budget); !budget.ok()) return budget;
  if (p.forge != ForgeKind::kLocal && (!p.forge_token || p.forge_token->empty())) {
    return Status::InvalidArgument("a " + std::string(ToString(p.forge)) +
                                   " project needs --forge-token");
  }
  if (p.forge_token) {
    Status token = CheckForgeToken(*p.forge_token);
    if (!token.ok()) return token;
  }
  for (auto* list : {&p.models, &p.write_paths}) {
    std::erase_if(*list, [](const std::string& s) { return IsBlank(s); });
  }
  if (p.models.size() > kMaxProjectListEntries)
    return Status::InvalidArgument(TooMany("--models entries"));
  for (const std::string& m : p.models) {
    if (m.size() > kMaxProjectListEntryChars || !Utf8Length(m) || HasControlCharacter(m, false) ||
        m.find_first_of(" \t") != std::string::npos) {
      return Status::InvalidArgument(
          "invalid --models entry (at most " + std::to_string(kMaxProjectListEntryChars) +
          " characters, no spaces or control characters): " + std::string(CutUtf8(m, 80)));
    }
  }
  if (Status root = CheckSiteRoot(p.site_root); !root.ok()) return root;
  return CheckWriteRules(p.write_paths);
}

}  // namespace docwright
