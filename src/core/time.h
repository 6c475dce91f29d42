// Wall-clock time as milliseconds since the Unix epoch, and its RFC 3339 form.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace docwright {

using UnixMillis = int64_t;

UnixMillis NowMillis();

// "2026-11-22T10:51:00.123Z": UTC, millisecond precision, always with "Z".
std::string FormatRfc3339(UnixMillis t);

// "2026-12-01T09:00:00Z", "2026-12-01T09:00:00.250+01:00" (a 't' or ' ' for
// the 'T', 'z' for the 'Z', any fraction of a second, its first three digits
// kept; a leap second read as the second before it), years 1970 to 9999, as
// UTC milliseconds; nullopt for anything else. Linear and bounded.
std::optional<UnixMillis> ParseRfc3339(std::string_view text);

}  // namespace docwright
