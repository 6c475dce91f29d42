#include "core/glob.h"

#include <algorithm>
#include <string>
#include <vector>

namespace docwright {
namespace {

// Glob matching by dynamic programming over the pattern's tokens: linear in the
// path for each token, so no pattern can make it run away.
enum class Token : char { kLiteral, kOne, kStar, kStarStar, kAnyDirs };
struct Tok {
  Token kind;
  char c = 0;
};

std::vector<Tok> Tokenize(std::string_view p) {
  std::vector<Tok> out;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '*') {
      if (i + 1 < p.size() && p[i + 1] == '*') {
        size_t j = i + 2;
        while (j < p.size() && p[j] == '*') ++j;
        bool at_start = i == 0 || p[i - 1] == '/';
        if (at_start && j < p.size() && p[j] == '/') {
          out.push_back({Token::kAnyDirs});  // "**/": no folder or any folders
          i = j;
        } else {
          out.push_back({Token::kStarStar});
          i = j - 1;
        }
      } else {
        out.push_back({Token::kStar});
      }
    } else if (p[i] == '?') {
      out.push_back({Token::kOne});
    } else {
      out.push_back({Token::kLiteral, p[i]});
    }
  }
  return out;
}

bool Glob(const std::vector<Tok>& tokens, std::string_view s) {
  const size_t n = s.size();
  std::vector<char> prev(n + 1, 0), cur(n + 1, 0);
  prev[0] = 1;
  for (const Tok& t : tokens) {
    std::fill(cur.begin(), cur.end(), 0);
    bool seen = false;  // kAnyDirs: prev[k] for some k < j
    for (size_t j = 0; j <= n; ++j) {
      switch (t.kind) {
        case Token::kLiteral:
          cur[j] = j > 0 && prev[j - 1] && s[j - 1] == t.c;
          break;
        case Token::kOne:
          cur[j] = j > 0 && prev[j - 1] && s[j - 1] != '/';
          break;
        case Token::kStar:
          cur[j] = prev[j] || (j > 0 && cur[j - 1] && s[j - 1] != '/');
          break;
        case Token::kStarStar:
          cur[j] = prev[j] || (j > 0 && cur[j - 1]);
          break;
        case Token::kAnyDirs:
          cur[j] = prev[j] || (j > 0 && seen && s[j - 1] == '/');
          break;
      }
      if (prev[j]) seen = true;
    }
    std::swap(prev, cur);
  }
  return prev[n];
}

}  // namespace

bool GitignoreMatches(std::string_view rule, std::string_view path) {
  if (!rule.empty() && rule.front() == '!') rule.remove_prefix(1);
  bool dir_only = !rule.empty() && rule.back() == '/';
  while (!rule.empty() && rule.back() == '/') rule.remove_suffix(1);
  bool anchored = rule.find('/') != std::string_view::npos;
  while (!rule.empty() && rule.front() == '/') rule.remove_prefix(1);
  if (rule.empty()) return false;
  std::string pattern = anchored ? std::string(rule) : "**/" + std::string(rule);
  auto tokens = Tokenize(pattern);
  if (!dir_only && Glob(tokens, path)) return true;
  // A folder's pattern covers what is under it.
  auto under = tokens;
  for (const Tok& t : Tokenize("/**")) under.push_back(t);
  return Glob(under, path);
}

}  // namespace docwright
