#include "api/etag.h"

#include "core/ids.h"

namespace docwright {
namespace {

// 128 bits of the SHA-256: no two bodies of a job's life share a tag.
constexpr size_t kTagHexDigits = 32;

bool IsSpace(char c) { return c == ' ' || c == '\t'; }

}  // namespace

std::string EntityTag(std::string_view body) {
  return "\"" + Sha256Hex(body).substr(0, kTagHexDigits) + "\"";
}

bool IfNoneMatchMatches(std::string_view header, std::string_view etag) {
  // Our own tags are strong: compare the opaque (quoted) part.
  std::string_view opaque = etag.starts_with("W/") ? etag.substr(2) : etag;
  size_t i = 0;
  const size_t n = header.size();
  for (;;) {
    while (i < n && (IsSpace(header[i]) || header[i] == ',')) ++i;
    if (i >= n) return false;
    if (header[i] == '*') return true;
    if (header.substr(i, 2) == "W/") i += 2;
    if (i >= n || header[i] != '"') return false;
    size_t close = header.find('"', i + 1);
    if (close == std::string_view::npos) return false;
    if (header.substr(i, close + 1 - i) == opaque) return true;
    i = close + 1;
    while (i < n && IsSpace(header[i])) ++i;
    if (i < n && header[i] != ',') return false;
  }
}

}  // namespace docwright
