// URLs from projects, forges and models (core/url.h). Whatever the text: a
// parsed URL has a lower-case host and a port in range, its origin text parses
// back to the same origin, and percent-encoding round-trips every byte.
#include <cctype>
#include <string>

#include "core/url.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace docwright;
  std::string_view text = fuzz::AsText(data, size);
  if (std::optional<Url> url = ParseUrl(text)) {
    FUZZ_CHECK(!url->host.empty());
    FUZZ_CHECK(url->port >= 0 && url->port <= 65535);
    for (char c : url->host) FUZZ_CHECK(!std::isupper(static_cast<unsigned char>(c)));
    if (url->scheme != "ssh" || text.find("://") != std::string_view::npos) {
      std::optional<Url> again = ParseUrl(OriginText(*url));
      // A host holding '/', '?', '#' or '@' does not survive being written
      // back; everything else must.
      if (url->host.find_first_of("/?#@[]") == std::string::npos) {
        FUZZ_CHECK(again && again->scheme == url->scheme && again->host == url->host &&
                   again->port == url->port && !again->has_userinfo);
      }
    }
  }
  bool ok = true;
  FUZZ_CHECK(PercentDecode(PercentEncode(text), false, &ok) == text && ok);
  return 0;
}
