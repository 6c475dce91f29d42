// The client address behind trusted proxies (http/forwarded.h). Whatever the
// headers say: the result is the peer itself or an address in text (never
// header text), and it is the peer whenever the peer is not trusted.
#include <string>

#include "fuzz_check.h"
#include "http/forwarded.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace docwright;
  std::string_view text = fuzz::AsText(data, size);
  // The first line is a range; the rest splits at the first NUL into a
  // Forwarded and an X-Forwarded-For value.
  size_t nl = text.find('\n');
  std::string_view range_text = text.substr(0, nl);
  std::string_view headers = nl == std::string_view::npos ? "" : text.substr(nl + 1);
  size_t nul = headers.find('\0');
  std::string_view forwarded = headers.substr(0, nul);
  std::string_view xff = nul == std::string_view::npos ? "" : headers.substr(nul + 1);

  std::vector<IpRange> trusted;
  if (auto r = ParseIpRange(range_text); r.ok()) trusted.push_back(*r);
  trusted.push_back(*ParseIpRange("10.0.0.0/8"));
  for (const char* peer : {"10.0.0.1", "198.51.100.1", "::1"}) {
    for (auto [header, kind] : {std::pair{forwarded, ForwardedHeader::kForwarded},
                                std::pair{xff, ForwardedHeader::kXForwardedFor}}) {
      std::string client = ClientAddress(peer, header, kind, trusted);
      FUZZ_CHECK(ParseIpAddress(client).has_value());
      if (!InRanges(peer, trusted)) FUZZ_CHECK(client == peer);
    }
  }
  return 0;
}
