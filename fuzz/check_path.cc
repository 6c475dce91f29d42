// Paths come from the model (tool calls) and from repositories. Whatever
// git::CheckPath accepts must be a normalised repository path: checking it again
// gives it back unchanged, and it has no empty, "." or ".." segment, no segment
// that is ".git" in any case or disguise, and no backslash or control character.
#include <algorithm>
#include <cctype>
#include <string>

#include "fuzz_check.h"
#include "git/git.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace docwright;
  auto checked = git::CheckPath(fuzz::AsText(data, size));
  if (!checked.ok()) {
    FUZZ_CHECK(checked.status().code() == Code::kInvalidArgument);
    return 0;
  }
  const std::string& path = *checked;
  FUZZ_CHECK(!path.empty() && path.size() <= size);
  FUZZ_CHECK(path.front() != '/' && path.back() != '/');
  for (char c : path) {
    auto b = static_cast<unsigned char>(c);
    FUZZ_CHECK(b >= 0x20 && b != 0x7f && c != '\\');
  }
  size_t start = 0;
  while (true) {
    size_t slash = path.find('/', start);
    std::string seg =
        path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    FUZZ_CHECK(!seg.empty() && seg != "." && seg != "..");
    std::string folded;
    for (char c : seg)
      folded.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    while (!folded.empty() && (folded.back() == '.' || folded.back() == ' ')) folded.pop_back();
    FUZZ_CHECK(folded != ".git" && folded != "git~1");
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  auto again = git::CheckPath(path);
  FUZZ_CHECK(again.ok() && *again == path);
  return 0;
}
