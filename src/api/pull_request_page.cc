#include "api/pull_request_page.h"

#include "core/time.h"

namespace docwright {

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

namespace {

constexpr std::string_view kStyle = R"css(
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1f2328;background:#fff}
main{max-width:1100px;margin:0 auto;padding:24px}
h1{font-size:26px;font-weight:500;margin:0 0 8px}
h1 .n{color:#59636e;font-weight:300}
.meta{color:#59636e;margin-bottom:24px}
.state{display:inline-block;border-radius:2em;padding:2px 12px;color:#fff;background:#1f883d;margin-right:8px}
.state.draft{background:#59636e}
code{font:13px ui-monospace,monospace;background:#eff1f3;border-radius:6px;padding:2px 6px}
.body{border:1px solid #d1d9e0;border-radius:6px;padding:16px;white-space:pre-wrap;margin-bottom:24px}
h2{font-size:18px;font-weight:600}
.diff{border:1px solid #d1d9e0;border-radius:6px;overflow-x:auto;font:12px/1.6 ui-monospace,monospace}
.diff div{white-space:pre;padding:0 12px;min-height:1.6em}
.diff .file{background:#f6f8fa;font-weight:600;border-top:1px solid #d1d9e0;padding:6px 12px}
.diff .hunk{background:#ddf4ff;color:#59636e}
.diff .add{background:#dafbe1}
.diff .del{background:#ffebe9}
)css";

std::string_view LineClass(std::string_view line) {
  if (line.starts_with("diff --git ")) return "file";
  if (line.starts_with("@@")) return "hunk";
  if (line.starts_with("+++ ") || line.starts_with("--- ")) return "meta";
  if (line.starts_with("index ") || line.starts_with("new file") ||
      line.starts_with("deleted file") || line.starts_with("similarity") ||
      line.starts_with("rename ")) {
    return "meta";
  }
  if (!line.empty() && line[0] == '+') return "add";
  if (!line.empty() && line[0] == '-') return "del";
  return "ctx";
}

}  // namespace

std::string RenderPullRequestPage(const LocalPullRequest& pr) {
  if (pr.archived_at) {
    return "<!doctype html><meta charset=utf-8><title>Closed</title><p>This pull request "
           "was closed: its job was archived.</p>\n";
  }
  std::string html;
  html.reserve(4096 + pr.diff.size() * 5 / 4 + pr.body.size());
  std::string title = HtmlEscape(pr.title);
  html += "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  html += "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">";
  html += "<title>" + title + " · #" + std::to_string(pr.number) + "</title>";
  html += "<style>";
  html += kStyle;
  html += "</style></head><body><main>\n";
  html += "<h1>" + title + " <span class=\"n\">#" + std::to_string(pr.number) + "</span></h1>\n";
  html += "<div class=\"meta\"><span class=\"state";
  html += pr.draft ? " draft\">Draft" : "\">Open";
  html += "</span>wants to merge <code>" + HtmlEscape(pr.head) + "</code> into <code>" +
          HtmlEscape(pr.base) + "</code> · opened " + FormatRfc3339(pr.created_at) + " · updated " +
          FormatRfc3339(pr.updated_at) + "</div>\n";
  html += "<div class=\"body\">" + HtmlEscape(pr.body) + "</div>\n";
  html += "<h2>Changes</h2>\n<div class=\"diff\">\n";
  std::string_view diff = pr.diff;
  if (diff.empty()) html += "<div>No changes against the base branch.</div>\n";
  while (!diff.empty()) {
    size_t nl = diff.find('\n');
    std::string_view line = diff.substr(0, nl);
    diff.remove_prefix(nl == std::string_view::npos ? diff.size() : nl + 1);
    html += "<div class=\"";
    html += LineClass(line);
    html += "\">" + HtmlEscape(line) + "</div>\n";
  }
  html += "</div>\n</main></body></html>\n";
  return html;
}

}  // namespace docwright
