// Text helpers shared by the layers: UTF-8 validation, trimming and slugs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace docwright {

// The number of code points in `s` if it is well-formed UTF-8 (no overlongs, no
// surrogates, nothing above U+10FFFF), else nullopt.
std::optional<size_t> Utf8Length(std::string_view s);

// `s` made storable as text anywhere: each byte that is not part of a
// well-formed UTF-8 character, and each NUL, replaced by U+FFFD; well-formed
// text without NUL comes back unchanged. Linear in `s`.
std::string ScrubUtf8(std::string_view s);

// True if `s` holds nothing but ASCII whitespace.
bool IsBlank(std::string_view s);

// `s` without the characters of `chars` at both ends (Trim), at its start
// (TrimLeft) or at its end (TrimRight): a view into `s`.
std::string_view Trim(std::string_view s, std::string_view chars);
std::string_view TrimLeft(std::string_view s, std::string_view chars);
std::string_view TrimRight(std::string_view s, std::string_view chars);
// `s` without ASCII spaces and tabs at both ends (HTTP's optional whitespace);
// other whitespace, line breaks included, stays.
std::string_view TrimSpace(std::string_view s);
// `s` with ASCII letters in lower case; other bytes as they are.
std::string Lower(std::string_view s);

// True if valid UTF-8 `s` holds a control character: C0 (NUL included), DEL or
// C1; tab, line feed and carriage return are allowed when `allow_line_breaks`.
bool HasControlCharacter(std::string_view s, bool allow_line_breaks);

// Lowercase ASCII words of `text` joined by '-', at most `max_len` characters,
// cut at a word boundary where possible. Empty if `text` has no ASCII letters or
// digits.
std::string Slugify(std::string_view text, size_t max_len);

// `text` with the user information of every URL in it ("https://user:secret@h/x")
// replaced by "***", and the value of every "password=" parameter (in a URL's
// query, or a libpq "key=value" string): URLs may carry credentials.
std::string RedactCredentials(std::string text);

// Appends the two hex digits of `byte`, lower case unless `upper`.
void AppendHex(std::string& out, unsigned char byte, bool upper = false);
// The bytes of `data` as lower-case hex.
std::string HexEncode(std::string_view data);
// The value of the hex digit `c` (either case), or -1.
int HexDigitValue(char c);

// `data` in standard base64 (RFC 4648 section 4), padded with '='.
std::string Base64Encode(std::string_view data);
// The bytes of padded standard base64 `text`, or nullopt unless it is exactly
// that: a multiple of 4 characters of the alphabet, '=' only as its last one or
// two. Linear; never reads past `text`.
std::optional<std::string> Base64Decode(std::string_view text);

// At most `max_bytes` of valid UTF-8 `text`, cut before a character, not inside one.
std::string_view CutUtf8(std::string_view text, size_t max_bytes);

// `text` with &, <, >, " and ' escaped for HTML text and attribute values (in
// double or single quotes); every other byte as it is.
std::string HtmlEscape(std::string_view text);

// `text` made fit for one line of a log: well-formed UTF-8 (ScrubUtf8), each
// control character (line breaks included) a space, at most `max_bytes` (then
// with "..." after), so no text from a repository or a model can forge a log
// line or flood the log.
std::string OneLogLine(std::string_view text, size_t max_bytes = 1000);

// Where `needle` occurs in `text`, left to right, without overlaps (as a
// replace-all would take them), at most `max` of them. Linear in the sizes of
// both (Knuth-Morris-Pratt), whatever they hold: a plain find from each match
// would be quadratic on text such as "aaaa…". An empty needle occurs nowhere.
std::vector<size_t> FindAll(std::string_view text, std::string_view needle, size_t max = SIZE_MAX);

}  // namespace docwright
