// The rules a project's settings follow, checked wherever they are set (the
// command line's `project create` and `project update`, whose flag names the
// messages use, as docs/operations.md names the settings). Pure functions, safe
// from any thread; they read no file and reach no network (the SSH key files and
// a hosted forge's API are checked by the code that uses them).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/job.h"
#include "core/status.h"

namespace docwright {

// OK if `project`'s settings are usable, after dropping blank entries from its
// lists; else InvalidArgument naming the first setting that is not: repository
// (1 to 2048 bytes, no credentials in an http(s) URL), base branch (1 to 255
// bytes), rate limit (1 to 1,000,000 an hour), forge token (required by a hosted
// forge; no spaces or control characters), models and write rules (at most
// kMaxProjectListEntries entries of at most kMaxProjectListEntryChars), cap of
// turns in flight (CheckMaxActive), budget (CheckBudget), site root
// (CheckSiteRoot).
Status CheckProjectSettings(Project& project);

// A docs site's folder: "" (found by its configuration), or a relative path of
// at most kMaxSiteRootChars bytes without "." or ".." segments, empty segments,
// backslashes or control characters. A trailing "/" is dropped first.
// InvalidArgument naming --site-root otherwise.
Status CheckSiteRoot(std::string& site_root);

// The most tokens a monthly token budget may name.
inline constexpr int64_t kMaxTokenBudget = 1'000'000'000'000'000;

// A monthly budget of a project or an organisation (core/usage.h): a token
// budget of 1 to kMaxTokenBudget, a cost budget of more than 0 (ParseCost's
// bounds). InvalidArgument naming --token-budget or --cost-budget otherwise.
Status CheckBudget(const MonthlyBudget& budget);

// --token-budget as typed: a whole number of tokens (1 to kMaxTokenBudget), or
// "none" for no cap (nullopt). InvalidArgument naming the flag otherwise.
Result<std::optional<int64_t>> ParseTokenBudget(std::string_view text);
// --cost-budget as typed: an amount in the price table's currency ("50",
// "12.5"; ParseCost), more than 0, as micros; or "none" for no cap.
// InvalidArgument naming the flag otherwise.
Result<std::optional<int64_t>> ParseCostBudget(std::string_view text);

// A cap of turns in flight, of a project or an organisation: none, or 1 to
// kMaxActiveCap. InvalidArgument naming --max-active otherwise.
Status CheckMaxActive(const std::optional<int64_t>& max_active);

// A forge token: no spaces or control characters (it goes into HTTP headers).
Status CheckForgeToken(std::string_view token);

// Write rules: gitignore-style patterns (core/glob.h), "!" to refuse; none empty,
// none with "..", a backslash or a control character.
Status CheckWriteRules(const std::vector<std::string>& rules);

}  // namespace docwright
