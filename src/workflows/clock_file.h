// A clock read from a file, for tests of the real binary (`serve
// --workflow-clock-file PATH`): the workflows' engine takes "now" from the
// RFC 3339 time the file holds, read again each time it asks.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "core/time.h"

namespace docwright::workflows {

// A clock reading `path` (its first 100 bytes, blanks trimmed) at each call.
// While the file cannot be read or does not hold a time, the clock says the
// last time it read (the machine's time before the first), and a warning is
// logged each time. Safe to call from any thread.
std::function<UnixMillis()> FileClock(std::string path);

}  // namespace docwright::workflows
