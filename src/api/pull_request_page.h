// The HTML page of a local forge's pull request, the one place it is rendered:
// title, state, branches, description, the checks' problems, previews of the
// changed pages beside the diff, and how to merge it. No inline script or
// style: it links the dashboard's stylesheet (/ui/style.css) and modules
// (/ui/time.js makes its <time> elements local; /ui/pull_request.js drives the
// merge button), so it can be served under the dashboard's Content-Security-
// Policy. Every value is escaped but the review's HTML, which is sanitised
// when the review is written (core/review.h). Pure functions: any thread.
#pragma once

#include <string>
#include <string_view>

#include "core/local_pull_request.h"
#include "core/review.h"

namespace docwright {

// The Content-Security-Policy the page is served with: the dashboard's.
inline constexpr std::string_view kPullRequestPagePolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'";

struct PullRequestPageView {
  // The review of the pull request's branch, if it has one that describes it:
  // its description as HTML, its previews and problems. Null: the description
  // is shown as the text it is, and no previews.
  const Review* review = nullptr;
  // The visitor may merge it (a session of its organisation): the page has the
  // merge button. Otherwise it says how to merge.
  bool can_merge = false;
};

// The page. An archived pull request shows only that it was closed (its
// description quoted the prompt, and the page is public to whoever has the
// link), and, if it was merged before, that it was.
std::string RenderPullRequestPage(const LocalPullRequest& pr, const PullRequestPageView& view);

// A unified diff as rows (<div class="file|meta|hunk|add|del|ctx">), one per
// line, escaped, with nothing between them (the diff box keeps white space).
std::string RenderDiffRows(std::string_view diff);

}  // namespace docwright
