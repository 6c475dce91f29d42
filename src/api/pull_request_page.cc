#include "api/pull_request_page.h"

#include "core/text.h"
#include "core/time.h"

namespace docwright {

namespace {

std::string_view LineClass(std::string_view line) {
  if (line.starts_with("diff --git ")) return "file";
  if (line.starts_with("@@")) return "hunk";
  if (line.starts_with("+++ ") || line.starts_with("--- ")) return "meta";
  if (line.starts_with("index ") || line.starts_with("new file") ||
      line.starts_with("deleted file") || line.starts_with("similarity") ||
      line.starts_with("rename ") || line.starts_with("old mode") || line.starts_with("new mode") ||
      line.starts_with("Binary files") || line.starts_with("\\ ")) {
    return "meta";
  }
  if (!line.empty() && line[0] == '+') return "add";
  if (!line.empty() && line[0] == '-') return "del";
  return "ctx";
}

// <time datetime="2024-05-01T10:00:00Z">2024-05-01T10:00:00Z</time>: made
// local by /ui/time.js, readable as it is without it.
std::string Time(UnixMillis t) {
  std::string at = FormatRfc3339(t);
  return "<time datetime=\"" + at + "\">" + at + "</time>";
}

std::string CodeHtml(std::string_view text) { return "<code>" + HtmlEscape(text) + "</code>"; }

// The head of every page: the title, the dashboard's stylesheet and modules.
void AppendHead(std::string* html, const std::string& title, bool can_merge) {
  *html += "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  *html += "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">";
  *html += "<meta name=\"referrer\" content=\"no-referrer\">";
  *html += "<title>" + title + "</title>";
  *html += "<link rel=\"stylesheet\" href=\"/ui/style.css\">";
  *html += "<script type=\"module\" src=\"/ui/time.js\"></script>";
  if (can_merge) *html += "<script type=\"module\" src=\"/ui/pull_request.js\"></script>";
  *html += "</head><body class=\"pull-request-page\"><main>\n";
}

void AppendTitle(std::string* html, const LocalPullRequest& pr) {
  *html += "<h1 data-test=\"pr-title\">" + HtmlEscape(pr.title) + " <span class=\"n\">#" +
           std::to_string(pr.number) + "</span></h1>\n";
}

// "Open", "Draft", "Merged" or "Closed", as a badge.
void AppendState(std::string* html, const LocalPullRequest& pr) {
  std::string_view state = pr.merged_at     ? "Merged"
                           : pr.archived_at ? "Closed"
                           : pr.draft       ? "Draft"
                                            : "Open";
  std::string lower(state);
  lower[0] = static_cast<char>(lower[0] - 'A' + 'a');
  *html += "<span class=\"state state-" + lower + "\" data-test=\"pr-state\">";
  *html += state;
  *html += "</span>";
}

// The merged one's line: into what, as what, when.
void AppendMerged(std::string* html, const LocalPullRequest& pr) {
  *html += "<p class=\"merged\" data-test=\"pr-merged\">Merged " + CodeHtml(pr.head) + " into " +
           CodeHtml(pr.base) + " as " + CodeHtml(pr.merge_commit.substr(0, 12)) + " " +
           Time(*pr.merged_at) + ".</p>\n";
}

// The page of a pull request whose job was archived.
std::string ClosedPage(const LocalPullRequest& pr) {
  std::string html;
  // The title came from the job's prompt, which archiving withdraws with the rest.
  std::string number = "#" + std::to_string(pr.number);
  AppendHead(&html, "Closed pull request " + number, false);
  html += "<h1 data-test=\"pr-title\">Closed pull request <span class=\"n\">" + number +
          "</span></h1>\n";
  html += "<div class=\"meta\">";
  AppendState(&html, pr);
  html += "</div>\n";
  if (pr.merged_at) AppendMerged(&html, pr);
  html += "<p class=\"closed\">This pull request was closed: its job was archived";
  html += pr.merged_at ? " after the merge" : "";
  html += ", and its description and changes are no longer shown.</p>\n</main></body></html>\n";
  return html;
}

void AppendDescription(std::string* html, const LocalPullRequest& pr, const Review* review) {
  if (review && !review->pull_request_body_html.empty()) {
    // Sanitised when the review was written (core/review.h).
    *html += "<div class=\"description markdown\" data-test=\"pr-description\">";
    *html += review->pull_request_body_html;
    *html += "</div>\n";
  } else {
    *html += "<pre class=\"description\" data-test=\"pr-description\">" + HtmlEscape(pr.body) +
             "</pre>\n";
  }
}

void AppendChecks(std::string* html, const Review& review) {
  if (review.problems.empty() && review.notes.empty()) return;
  *html += "<section class=\"checks\" data-test=\"pr-checks\"><h2>Checks</h2>\n";
  for (const auto* list : {&review.problems, &review.notes}) {
    if (list->empty()) continue;
    *html += list == &review.problems ? "<ul class=\"problems\">" : "<ul class=\"notes\">";
    for (const std::string& item : *list) *html += "<li>" + HtmlEscape(item) + "</li>";
    *html += "</ul>\n";
  }
  *html += "</section>\n";
}

// The merge button for a visitor who may merge; for anyone else, how to.
void AppendMerge(std::string* html, const LocalPullRequest& pr, const Review* review,
                 bool can_merge) {
  *html += "<section class=\"merge\" data-test=\"pr-merge\">";
  if (can_merge) {
    // The branch's commit this page shows: the merge is refused if the branch
    // has moved since (what was read is what is merged).
    *html += "<form class=\"merge-form\" data-test=\"merge-form\" data-pull-request=\"" +
             HtmlEscape(pr.id) + "\" data-head-commit=\"" +
             HtmlEscape(review ? review->head_commit : "") + "\">";
    *html += "<label>Merge with <select name=\"method\" data-test=\"merge-method\">";
    *html += "<option value=\"merge\" selected>a merge commit</option>";
    *html += "<option value=\"fast-forward\">a fast-forward</option></select></label> ";
    *html += "<button type=\"submit\" class=\"primary\" data-test=\"merge-button\">Merge into " +
             HtmlEscape(pr.base) + "</button>";
    *html += "<p class=\"merge-status\" role=\"status\" data-test=\"merge-status\"></p>";
    *html += "</form>";
  } else {
    *html +=
        "<p class=\"merge-help\">To merge it, <a href=\"/ui/#/signin\">sign in to the "
        "dashboard</a> with a key of this project's organisation and come back to this "
        "page, or ask the API: <code>POST /pulls/" +
        HtmlEscape(pr.id) +
        "/merge</code> with that key. Merged with git instead (<code>git merge " +
        HtmlEscape(pr.head) + "</code> on " + CodeHtml(pr.base) +
        ", then push), it stays open here.</p>";
  }
  *html += "</section>\n";
}

// The changed pages, rendered, beside the diff.
void AppendChanges(std::string* html, const LocalPullRequest& pr, const Review* review) {
  *html += "<h2>Changes</h2>\n<div class=\"changes\">";
  bool previews = false;
  if (review) {
    for (const ReviewFile& file : review->files) {
      if (!file.preview_html) continue;
      if (!previews) *html += "<div class=\"previews\" data-test=\"pr-previews\">";
      previews = true;
      *html += "<section class=\"preview-file\"><h3>" + CodeHtml(file.path) + "</h3>";
      // Sanitised when the review was written (core/review.h).
      *html += "<div class=\"preview markdown\">" + *file.preview_html + "</div></section>";
    }
  }
  if (previews) *html += "</div>";
  *html += "<div class=\"diff\" data-test=\"pr-diff\">";
  if (pr.diff.empty()) {
    *html += "<div class=\"meta\">No changes against the base branch.</div>";
  } else {
    *html += RenderDiffRows(pr.diff);
  }
  *html += "</div></div>\n";
}

}  // namespace

std::string RenderDiffRows(std::string_view diff) {
  std::string html;
  html.reserve(diff.size() * 5 / 4 + 64);
  while (!diff.empty()) {
    size_t nl = diff.find('\n');
    std::string_view line = diff.substr(0, nl);
    diff.remove_prefix(nl == std::string_view::npos ? diff.size() : nl + 1);
    html += "<div class=\"";
    html += LineClass(line);
    html += "\">" + HtmlEscape(line) + "</div>";
  }
  return html;
}

std::string RenderPullRequestPage(const LocalPullRequest& pr, const PullRequestPageView& view) {
  if (pr.archived_at) return ClosedPage(pr);
  const bool open = !pr.merged_at;
  std::string html;
  html.reserve(4096 + pr.diff.size() * 5 / 4 + pr.body.size());
  AppendHead(&html, HtmlEscape(pr.title) + " · #" + std::to_string(pr.number),
             open && view.can_merge);
  AppendTitle(&html, pr);
  html += "<div class=\"meta\">";
  AppendState(&html, pr);
  html += open ? " wants to merge " : " merged ";
  html += CodeHtml(pr.head) + " into " + CodeHtml(pr.base) + " · opened " + Time(pr.created_at) +
          " · updated " + Time(pr.updated_at) + "</div>\n";
  if (!open) AppendMerged(&html, pr);
  AppendDescription(&html, pr, view.review);
  if (view.review) AppendChecks(&html, *view.review);
  if (open) AppendMerge(&html, pr, view.review, view.can_merge);
  AppendChanges(&html, pr, view.review);
  html += "</main></body></html>\n";
  return html;
}

}  // namespace docwright
