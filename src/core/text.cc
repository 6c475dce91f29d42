#include "core/text.h"

#include <cstdint>
#include <cstring>

namespace docwright {

std::optional<size_t> Utf8Length(std::string_view s) {
  size_t count = 0;
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    // ASCII runs are the common case: skip them eight bytes at a time.
    while (i + 8 <= n) {
      uint64_t word;
      std::memcpy(&word, s.data() + i, 8);
      if (word & 0x8080808080808080ull) break;
      i += 8;
      count += 8;
    }
    if (i >= n) break;
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len;
    uint32_t cp;
    if (c < 0x80) {
      ++i;
      ++count;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      len = 2;
      cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      len = 3;
      cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return std::nullopt;
    }
    if (i + len > n) return std::nullopt;
    for (size_t k = 1; k < len; ++k) {
      unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xc0) != 0x80) return std::nullopt;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      return std::nullopt;
    }
    i += len;
    ++count;
  }
  return count;
}

std::string ScrubUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xe  ? 3
                 : (c >> 3) == 0x1e ? 4
                                    : 0;
    if (c != 0 && len > 0 && i + len <= s.size() && Utf8Length(s.substr(i, len)).has_value()) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out.append("\xEF\xBF\xBD");
      ++i;
    }
  }
  return out;
}

bool IsBlank(std::string_view s) {
  for (char c : s) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') return false;
  }
  return true;
}

std::string_view Trim(std::string_view s, std::string_view chars) {
  return TrimRight(TrimLeft(s, chars), chars);
}

std::string_view TrimLeft(std::string_view s, std::string_view chars) {
  size_t first = s.find_first_not_of(chars);
  return s.substr(first == std::string_view::npos ? s.size() : first);
}

std::string_view TrimRight(std::string_view s, std::string_view chars) {
  size_t last = s.find_last_not_of(chars);
  return s.substr(0, last == std::string_view::npos ? 0 : last + 1);
}

std::string_view TrimSpace(std::string_view s) { return Trim(s, " \t"); }

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool HasControlCharacter(std::string_view s, bool allow_line_breaks) {
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20) {
      if (allow_line_breaks && (c == '\t' || c == '\n' || c == '\r')) continue;
      return true;
    }
    if (c == 0x7f) return true;
    // C1: U+0080 to U+009F, encoded C2 80 to C2 9F.
    if (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) <= 0x9f) return true;
  }
  return false;
}

std::string Slugify(std::string_view text, size_t max_len) {
  std::string out;
  bool pending_dash = false;
  size_t last_word_end = 0;
  for (char raw : text) {
    char c = raw;
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    bool word_char = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!word_char) {
      if (!out.empty()) pending_dash = true;
      continue;
    }
    if (pending_dash) {
      last_word_end = out.size();
      if (out.size() + 2 > max_len) break;
      out.push_back('-');
      pending_dash = false;
    }
    if (out.size() + 1 > max_len) {
      // Cut at the previous word boundary if there is one.
      if (last_word_end > 0) out.resize(last_word_end);
      break;
    }
    out.push_back(c);
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::string RedactCredentials(std::string text) {
  for (size_t scheme = text.find("://"); scheme != std::string::npos;
       scheme = text.find("://", scheme + 3)) {
    size_t start = scheme + 3;
    size_t end = text.find_first_of("/ \t\n'\"", start);
    size_t at = text.rfind('@', end == std::string::npos ? text.size() : end);
    if (at != std::string::npos && at >= start) text.replace(start, at - start, "***");
  }
  // A password given as a parameter: "?password=..." in a URL, or libpq's
  // "host=db password=...".
  constexpr std::string_view kPassword = "password=";
  for (size_t at = text.find(kPassword); at != std::string::npos;
       at = text.find(kPassword, at + kPassword.size())) {
    size_t start = at + kPassword.size();
    size_t end = text.find_first_of("& \t\n'\"", start);
    text.replace(start, (end == std::string::npos ? text.size() : end) - start, "***");
  }
  return text;
}

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string_view CutUtf8(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

void AppendHex(std::string& out, unsigned char byte, bool upper) {
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  out.push_back(digits[byte >> 4]);
  out.push_back(digits[byte & 0xf]);
}

std::string HexEncode(std::string_view data) {
  std::string out;
  out.reserve(data.size() * 2);
  for (char c : data) AppendHex(out, static_cast<unsigned char>(c));
  return out;
}

int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

namespace {
constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}
}  // namespace

std::string Base64Encode(std::string_view data) {
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= data.size(); i += 3) {
    uint32_t n = static_cast<uint32_t>(static_cast<unsigned char>(data[i])) << 16 |
                 static_cast<uint32_t>(static_cast<unsigned char>(data[i + 1])) << 8 |
                 static_cast<unsigned char>(data[i + 2]);
    for (int shift : {18, 12, 6, 0}) out.push_back(kBase64Alphabet[(n >> shift) & 63]);
  }
  if (size_t rest = data.size() - i; rest > 0) {
    uint32_t n = static_cast<uint32_t>(static_cast<unsigned char>(data[i])) << 16;
    if (rest == 2) n |= static_cast<uint32_t>(static_cast<unsigned char>(data[i + 1])) << 8;
    out.push_back(kBase64Alphabet[(n >> 18) & 63]);
    out.push_back(kBase64Alphabet[(n >> 12) & 63]);
    out.push_back(rest == 2 ? kBase64Alphabet[(n >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

std::optional<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  size_t padding = 0;
  if (!text.empty() && text.back() == '=') padding = text[text.size() - 2] == '=' ? 2 : 1;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    uint32_t n = 0;
    for (size_t j = 0; j < 4; ++j) {
      const bool pad = last && j >= 4 - padding;
      int v = pad ? 0 : Base64Value(text[i + j]);
      if (v < 0) return std::nullopt;
      n = n << 6 | static_cast<uint32_t>(v);
    }
    out.push_back(static_cast<char>(n >> 16));
    if (!last || padding < 2) out.push_back(static_cast<char>((n >> 8) & 0xff));
    if (!last || padding < 1) out.push_back(static_cast<char>(n & 0xff));
  }
  return out;
}

std::string OneLogLine(std::string_view text, size_t max_bytes) {
  std::string scrubbed = ScrubUtf8(text);
  for (char& c : scrubbed) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  if (scrubbed.size() <= max_bytes) return scrubbed;
  return std::string(CutUtf8(scrubbed, max_bytes)) + "...";
}

std::vector<size_t> FindAll(std::string_view text, std::string_view needle, size_t max) {
  std::vector<size_t> found;
  const size_t m = needle.size();
  if (m == 0 || m > text.size() || max == 0) return found;
  // border[i]: the length of the longest proper border of needle[0..i].
  std::vector<uint32_t> border(m, 0);
  for (size_t i = 1, k = 0; i < m; ++i) {
    while (k > 0 && needle[i] != needle[k]) k = border[k - 1];
    if (needle[i] == needle[k]) ++k;
    border[i] = static_cast<uint32_t>(k);
  }
  for (size_t i = 0, k = 0; i < text.size(); ++i) {
    while (k > 0 && text[i] != needle[k]) k = border[k - 1];
    if (text[i] == needle[k]) ++k;
    if (k == m) {
      found.push_back(i + 1 - m);
      if (found.size() >= max) break;
      k = 0;  // no overlaps: the next occurrence starts after this one
    }
  }
  return found;
}

}  // namespace docwright
