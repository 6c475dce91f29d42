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

}  // namespace docwright
