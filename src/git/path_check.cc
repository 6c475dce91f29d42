// git::CheckPath: the repository paths the agent may name, by git's own rules for
// invalid and disguised paths (verify_path with core.protectNTFS and
// core.protectHFS on, as git sets them for any checkout that may reach Windows or
// macOS), so nothing pushed can turn into ".git" on some file system.
#include <string>
#include <string_view>

#include "core/text.h"
#include "git/git.h"

namespace docwright::git {
namespace {

// Code points HFS+ ignores in names: ".g\u200cit" is ".git" there.
bool IsHfsIgnorable(char32_t c) {
  return (c >= 0x200c && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) ||
         (c >= 0x206a && c <= 0x206f) || c == 0xfeff;
}

// The next code point of valid UTF-8 `s` at `i`, advancing `i`.
char32_t NextCodePoint(std::string_view s, size_t& i) {
  auto b = static_cast<unsigned char>(s[i++]);
  if (b < 0x80) return b;
  int extra = b >= 0xf0 ? 3 : b >= 0xe0 ? 2 : 1;
  char32_t c = b & (0x3f >> extra);
  for (int k = 0; k < extra && i < s.size(); ++k)
    c = (c << 6) | (static_cast<unsigned char>(s[i++]) & 0x3f);
  return c;
}

}  // namespace

std::string ComparableName(std::string_view segment) {
  std::string out;
  for (size_t i = 0; i < segment.size();) {
    char32_t c = NextCodePoint(segment, i);
    if (IsHfsIgnorable(c)) continue;
    if (c == ':') break;  // NTFS: "name:stream" and "name::$INDEX_ALLOCATION" are "name"
    if (c < 0x80) {
      out.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
    } else {
      out.push_back('\x80');  // non-ASCII: never part of a protected name
    }
  }
  // NTFS drops trailing dots and spaces: ".git. " is ".git".
  while (!out.empty() && (out.back() == '.' || out.back() == ' ')) out.pop_back();
  return out;
}

Result<std::string> CheckPath(std::string_view path) {
  if (path.empty()) return Status::InvalidArgument("the path is empty");
  if (path.front() == '/') {
    return Status::InvalidArgument(
        "absolute paths are not allowed; use a path relative to the "
        "repository root: " +
        std::string(CutUtf8(path, 200)));
  }
  if (path.size() > kMaxPathBytes) return Status::InvalidArgument("the path is too long");
  if (!Utf8Length(path)) return Status::InvalidArgument("the path is not valid UTF-8");
  for (char c : path) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == '\\') {
      return Status::InvalidArgument("paths may not contain backslashes or control characters");
    }
  }
  std::string out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    std::string_view seg =
        path.substr(start, slash == std::string_view::npos ? path.npos : slash - start);
    if (seg == "..") {
      return Status::InvalidArgument("paths may not contain '..': " +
                                     std::string(CutUtf8(path, 200)));
    }
    // ".git" in any case or disguise: NTFS's trailing dots and spaces, stream
    // names and 8.3 short name ("git~1"), HFS+'s ignored code points.
    std::string name = ComparableName(seg);
    if (name == ".git" || name == "git~1") {
      return Status::InvalidArgument("the .git directory is not accessible");
    }
    if (!seg.empty() && seg != ".") {
      if (!out.empty()) out.push_back('/');
      out.append(seg);
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (out.empty()) return Status::InvalidArgument("the path names the repository root");
  return out;
}

}  // namespace docwright::git
