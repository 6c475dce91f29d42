#include "runner/pull_request_text.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "core/text.h"

namespace docwright {
namespace {

constexpr size_t kMaxTitleChars = 72;
constexpr size_t kMaxQuotedPromptBytes = 4000;
// GitHub refuses pull request bodies over 65,536 characters.
constexpr size_t kMaxBodyBytes = 60000;
constexpr const char* kFallbackTitle = "Update the documentation";

// The first non-blank line of `text`, cut at a word to fit `max_chars` (UTF-8
// safe); empty if there is none.
std::string FirstLine(const std::string& text, size_t max_chars) {
  size_t start = 0;
  std::string line;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!IsBlank(line)) break;
    line.clear();
    start = end == std::string::npos ? text.size() : end + 1;
  }
  line = std::string(TrimLeft(TrimRight(line, " \t\r"), " \t"));
  if (Utf8Length(line).value_or(line.size()) <= max_chars) return line;
  // Keep max_chars - 1 whole characters, then back up to a word boundary.
  size_t bytes = 0;
  for (size_t chars = 0; bytes < line.size() && chars + 1 < max_chars; ++chars) {
    ++bytes;
    while (bytes < line.size() && (static_cast<unsigned char>(line[bytes]) & 0xC0) == 0x80) ++bytes;
  }
  std::string cut = line.substr(0, bytes);
  if (size_t space = cut.rfind(' '); space != std::string::npos && space > cut.size() / 2) {
    cut.resize(space);
  }
  return cut + "…";
}

// The prompt that opened the job.
const std::string& FirstPrompt(const TurnInput& input) {
  for (const Message& m : input.history) {
    if (m.seq == 1) return m.prompt;
  }
  return input.message.prompt;
}

std::string Quote(const std::string& text) {
  std::string bounded = text.size() > kMaxQuotedPromptBytes
                            ? std::string(CutUtf8(text, kMaxQuotedPromptBytes)) + "\n[…]"
                            : text;
  std::string out = "> ";
  for (char c : bounded) {
    out.push_back(c);
    if (c == '\n') out += "> ";
  }
  return out;
}

}  // namespace

std::string PullRequestTitle(const TurnInput& input, const std::optional<std::string>& title) {
  std::string line;
  if (title) line = FirstLine(*title, kMaxTitleChars);
  if (line.empty()) line = FirstLine(FirstPrompt(input), kMaxTitleChars);
  return line.empty() ? kFallbackTitle : line;
}

std::string PullRequestBody(const TurnInput& input, const PullRequestInputs& text) {
  std::string tail = "### Instruction\n\n" + Quote(input.message.prompt) + "\n\n";
  // Paths, each in code quotes, at most 50 of them.
  auto list = [&tail](const std::string& heading, const std::vector<std::string>& paths) {
    if (paths.empty()) return;
    tail += "### " + heading + "\n\n";
    size_t shown = 0;
    for (const std::string& f : paths) {
      if (++shown > 50) {
        tail += "- and " + std::to_string(paths.size() - 50) + " more\n";
        break;
      }
      tail += "- `" + f + "`\n";
    }
    tail += "\n";
  };
  // Allowed, but worth a reviewer's closer look.
  list("Changed outside the docs site", text.outside_site);
  list("Changed files that run at build", text.code);
  list("Files changed in this turn", text.files);
  if (!text.problems.empty()) {
    tail += "### Problems the checks still report\n\n";
    for (const std::string& p : text.problems) tail += "- " + std::string(CutUtf8(p, 500)) + "\n";
    tail += "\n";
  }
  if (!text.notes.empty()) {
    tail += "### Notes from the checks\n\nNot asked to be fixed in this turn:\n\n";
    for (const std::string& n : text.notes) tail += "- " + std::string(CutUtf8(n, 500)) + "\n";
    tail += "\n";
  }
  tail += "---\nOpened by docwright for job `" + input.job.id + "`.";
  const std::optional<std::string>& summary = text.summary;
  std::string body;
  if (summary && !IsBlank(*summary)) {
    body = std::string(CutUtf8(*summary, kMaxBodyBytes - tail.size() - 8));
    if (body.size() < summary->size()) body += "\n[…]";
    body += "\n\n";
  }
  return body + tail;
}

std::string TurnTrailer(const TurnInput& input) {
  return "Docwright-Job: " + input.job.id +
         "\nDocwright-Message: " + std::to_string(input.message.seq) + "\n";
}

std::string WithoutTrailers(const std::string& text) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    std::string_view line(text.data() + start,
                          (end == std::string::npos ? text.size() : end) - start);
    std::string_view rest = TrimLeft(line, " \t");
    constexpr std::string_view kPrefix = "docwright-";
    bool looks = rest.size() >= kPrefix.size() &&
                 std::equal(kPrefix.begin(), kPrefix.end(), rest.begin(), [](char a, char b) {
                   return a == std::tolower(static_cast<unsigned char>(b));
                 });
    if (looks) out += "  ";
    out.append(line);
    if (end == std::string::npos) break;
    out.push_back('\n');
    start = end + 1;
  }
  return out;
}

std::string CommitMessage(const std::string& title, const TurnInput& input,
                          const std::optional<std::string>& summary) {
  std::string message = WithoutTrailers(title) + "\n\n";
  if (summary && !IsBlank(*summary)) message += WithoutTrailers(*summary) + "\n\n";
  return message + TurnTrailer(input);
}

std::pair<std::string, std::optional<std::string>> FromCommitMessage(const std::string& message,
                                                                     const TurnInput& input) {
  size_t title_end = message.find('\n');
  std::string title = message.substr(0, title_end);
  size_t trailer = message.rfind(TurnTrailer(input));
  std::optional<std::string> summary;
  if (title_end != std::string::npos && trailer != std::string::npos && trailer > title_end + 2) {
    summary = message.substr(title_end + 2, trailer - title_end - 4);
  }
  return {title, summary};
}

}  // namespace docwright
