#include "core/json_writer.h"

#include "core/text.h"

namespace docwright {
namespace {

void AppendEscaped(std::string_view s, std::string* out) {
  size_t run = 0;  // start of the pending run of bytes that need no escape
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out->append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      default:
        out->append("\\u00");
        AppendHex(*out, c);
    }
  }
  out->append(s.data() + run, s.size() - run);
}

// Replaces each byte that does not start a well-formed UTF-8 sequence by U+FFFD.
std::string Sanitize(std::string_view s) {
  std::string clean;
  size_t i = 0;
  while (i < s.size()) {
    size_t len = 1;
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0xf0)
      len = 4;
    else if (c >= 0xe0)
      len = 3;
    else if (c >= 0xc0)
      len = 2;
    if (i + len <= s.size() && Utf8Length(s.substr(i, len)) == 1) {
      clean.append(s.substr(i, len));
      i += len;
    } else {
      clean.append("\xef\xbf\xbd");
      i += 1;
    }
  }
  return clean;
}

}  // namespace

void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  if (Utf8Length(s)) {
    AppendEscaped(s, out);
  } else {
    AppendEscaped(Sanitize(s), out);
  }
  out->push_back('"');
}

}  // namespace docwright
