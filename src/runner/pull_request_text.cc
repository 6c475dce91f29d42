#include "runner/pull_request_text.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "core/text.h"

namespace docwright {
namespace {

constexpr size_t kMaxTitleChars = 72;
constexpr size_t kMaxQuotedPromptBytes = 4000;
// GitHub refuses pull request bodies over 65,536 characters. The sections share
// what is left once each has its own bound, so the body stays under it whatever
// the job holds: instructions, lists of paths, problems, notes, then the summary.
constexpr size_t kMaxBodyBytes = 60000;
constexpr size_t kMaxInstructionsBytes = 24000;
constexpr size_t kMinQuotedPromptBytes = 300;  // each instruction shown gets at least this
constexpr size_t kMaxListBytes = 6000;         // each list of paths
constexpr size_t kMaxListedPaths = 50;
constexpr size_t kMaxShownPathBytes = 300;
constexpr size_t kMaxProblemBytes = 500;
constexpr size_t kMaxProblemsBytes = 8000;
constexpr size_t kMaxNotesBytes = 4000;
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

// `text` as a block quote, cut to `max_bytes` of text; the quote marks of a
// text of many short lines may make it at most twice that, and no more.
std::string Quote(const std::string& text, size_t max_bytes) {
  std::string bounded =
      text.size() > max_bytes ? std::string(CutUtf8(text, max_bytes)) + "\n[…]" : text;
  std::string out = "> ";
  for (char c : bounded) {
    out.push_back(c);
    if (c == '\n') out += "> ";
  }
  if (out.size() > 2 * max_bytes + 8) out = std::string(CutUtf8(out, 2 * max_bytes)) + "\n> […]";
  return out;
}

// `text` cut to `max_bytes`, on one line, with every character that could
// start Markdown or HTML escaped: a path or a link target the checks quote
// shows as written (no link, image or tag of the repository's making).
std::string Plain(std::string_view text, size_t max_bytes) {
  std::string_view cut = CutUtf8(text, max_bytes);
  std::string out;
  for (char c : cut) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      out.push_back(' ');
    } else {
      if (std::string_view("\\`*_[]<>!|~&#").find(c) != std::string_view::npos) out.push_back('\\');
      out.push_back(c);
    }
  }
  if (cut.size() < text.size()) out += "…";
  return out;
}

// A path as a code span that shows it as written, whatever backticks it holds.
std::string CodeSpan(std::string_view path) {
  std::string_view cut = CutUtf8(path, kMaxShownPathBytes);
  std::string shown;
  size_t run = 0, longest = 0;
  for (char c : cut) {
    auto u = static_cast<unsigned char>(c);
    shown.push_back(u < 0x20 || u == 0x7f ? '?' : c);
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  if (cut.size() < path.size()) shown += "…";
  std::string fence(longest + 1, '`');
  bool pad = !shown.empty() && (shown.front() == '`' || shown.back() == '`');
  return fence + (pad ? " " : "") + shown + (pad ? " " : "") + fence;
}

// The job's instructions quoted in order: each gets an equal share of
// kMaxInstructionsBytes (at least kMinQuotedPromptBytes, at most
// kMaxQuotedPromptBytes); past what fits, the first and the latest are shown.
std::string Instructions(const std::vector<Message>& all) {
  if (all.size() == 1) {
    return "### Instruction\n\n" + Quote(all[0].prompt, kMaxQuotedPromptBytes) + "\n\n";
  }
  size_t share = std::clamp(kMaxInstructionsBytes / std::max<size_t>(all.size(), 1),
                            kMinQuotedPromptBytes, kMaxQuotedPromptBytes);
  auto quoted = [&](const Message& m) {
    return "Message " + std::to_string(m.seq) + ":\n\n" + Quote(m.prompt, share) + "\n\n";
  };
  std::string first = quoted(all.front());
  size_t used = first.size();
  // The latest ones, newest first, while they fit.
  std::vector<std::string> latest;
  for (size_t i = all.size() - 1; i > 0; --i) {
    std::string q = quoted(all[i]);
    if (used + q.size() > kMaxInstructionsBytes) break;
    used += q.size();
    latest.push_back(std::move(q));
  }
  std::string out = "### Instructions\n\n" + first;
  if (size_t skipped = all.size() - 1 - latest.size(); skipped > 0) {
    out += "[" + std::to_string(skipped) + " more " +
           (skipped == 1 ? "instruction is" : "instructions are") + " not shown]\n\n";
  }
  for (auto it = latest.rbegin(); it != latest.rend(); ++it) out += *it;
  return out;
}

// A list of items under `heading` (and `intro`, if any), at most `max_items`
// and `max_bytes` of them, then how many more there are.
std::string List(const std::string& heading, const std::string& intro,
                 const std::vector<std::string>& items, size_t max_items, size_t max_bytes) {
  if (items.empty()) return "";
  std::string out = "### " + heading + "\n\n" + intro;
  size_t used = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    std::string line = "- " + items[i] + "\n";
    if (i == max_items || used + line.size() > max_bytes) {
      out += "- and " + std::to_string(items.size() - i) + " more\n";
      break;
    }
    used += line.size();
    out += line;
  }
  return out + "\n";
}

std::vector<std::string> Paths(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const std::string& p : paths) out.push_back(CodeSpan(p));
  return out;
}

std::vector<std::string> Remarks(const std::vector<std::string>& remarks) {
  std::vector<std::string> out;
  for (const std::string& r : remarks) out.push_back(Plain(r, kMaxProblemBytes));
  return out;
}

}  // namespace

std::string PullRequestTitle(const TurnInput& input, const std::optional<std::string>& title,
                             const std::optional<std::string>& earlier) {
  std::string line;
  if (title) line = FirstLine(*title, kMaxTitleChars);
  if (line.empty() && earlier) line = FirstLine(*earlier, kMaxTitleChars);
  if (line.empty()) line = FirstLine(FirstPrompt(input), kMaxTitleChars);
  return line.empty() ? kFallbackTitle : line;
}

std::string PullRequestBody(const TurnInput& input, const PullRequestInputs& text) {
  std::string tail = Instructions(text.instructions.empty() ? std::vector<Message>{input.message}
                                                            : text.instructions);
  // Allowed, but worth a reviewer's closer look.
  tail += List("Changed outside the docs site", "", Paths(text.outside_site), kMaxListedPaths,
               kMaxListBytes);
  tail +=
      List("Changed files that run at build", "", Paths(text.code), kMaxListedPaths, kMaxListBytes);
  tail +=
      List("Files changed on this branch", "", Paths(text.files), kMaxListedPaths, kMaxListBytes);
  tail += List("Problems the checks report on this branch", "", Remarks(text.problems), SIZE_MAX,
               kMaxProblemsBytes);
  tail += List("Notes from the checks", "Not asked to be fixed:\n\n", Remarks(text.notes), SIZE_MAX,
               kMaxNotesBytes);
  tail += "---\nOpened by docwright for job `" + input.job.id + "`.";
  const std::optional<std::string>& summary = text.summary;
  std::string body;
  if (summary && !IsBlank(*summary) && tail.size() + 16 < kMaxBodyBytes) {
    body = std::string(CutUtf8(*summary, kMaxBodyBytes - tail.size() - 16));
    if (body.size() < summary->size()) body += "\n[…]";
    body += "\n\n";
  }
  return body + tail;
}

std::string JobTrailerPrefix(const std::string& job_id) {
  return "Docwright-Job: " + job_id + "\nDocwright-Message: ";
}

std::string TurnTrailer(const TurnInput& input) {
  return JobTrailerPrefix(input.job.id) + std::to_string(input.message.seq) + "\n";
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
