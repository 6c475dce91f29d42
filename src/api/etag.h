// Entity tags for conditional polling (RFC 9110, 8.8.3 and 13.1.2): a strong
// validator made from a response body's bytes, and the If-None-Match test.
// Free functions without state, callable from any thread.
#pragma once

#include <string>
#include <string_view>

namespace docwright {

// A strong entity tag of `body`: a quoted, truncated SHA-256 of its bytes
// ("\"<32 hex digits>\""), so it changes whenever the body does.
std::string EntityTag(std::string_view body);

// Whether an If-None-Match field value (`header`, a repeated field comma-joined)
// matches `etag` by the weak comparison that If-None-Match uses: "*", or an
// entity tag of its list whose opaque part equals etag's, W/ or not. A list
// that does not parse matches nothing from the bad element on.
bool IfNoneMatchMatches(std::string_view header, std::string_view etag);

}  // namespace docwright
