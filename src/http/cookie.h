// Reading a request's Cookie header (RFC 6265 section 4.2): pure functions of
// their arguments, safe from any thread.
#pragma once

#include <string_view>

namespace docwright {

// The value of the cookie `name` in a Cookie header ("a=1; b=2", several
// header lines joined with "; "): the first if it is there more than once,
// without blanks around it or the double quotes a value may be wrapped in;
// empty if it is not there. A view into `header`; linear in its length.
std::string_view CookieValue(std::string_view header, std::string_view name);

}  // namespace docwright
