#include "runner/branch_story.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <utility>

#include "agent/write_policy.h"
#include "core/text.h"
#include "core/time.h"
#include "docs/docs.h"
#include "docs/preview.h"

namespace docwright {
namespace {

// A preview gets no less room than this; past it, the pages left have none.
constexpr size_t kMinPreviewBytes = 4096;
// What is kept of each instruction: more than a description quotes of one, so
// that it still shows where it was cut.
constexpr size_t kMaxInstructionBytes = 4100;

bool IsPage(const std::string& path) {
  std::string lower = path;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.ends_with(".md") || lower.ends_with(".mdx") || lower.ends_with(".markdown");
}

}  // namespace

Result<BranchStory> ReadBranchStory(git::Mirror& repo, const std::string& base_head,
                                    const std::string& head, const Project& project,
                                    WorkBudget& budget, const CancelToken& cancel,
                                    docs::CommitCache* cache) {
  BranchStory story;
  story.head_commit = head;
  auto diff = repo.Diff(base_head, head, kMaxReviewDiffBytes, &budget);
  if (!diff.ok()) return diff.status();
  story.diff = std::move(*diff);
  // Unrelated histories: everything is new, and the checks compare with the
  // base as it is.
  const std::string& from = story.diff.merge_base.empty() ? base_head : story.diff.merge_base;
  auto base = repo.OpenSnapshot(from);
  if (!base.ok()) return base.status();
  auto now = repo.OpenSnapshot(head);
  if (!now.ok()) return now.status();
  (*base)->SetBudget(&budget);
  (*now)->SetBudget(&budget);
  // The limits of the runner's site map and of the agent's checks (the
  // defaults), but for their deadline, which shapes no answer: the base's map
  // and the check of the changes one turn made are theirs, from the cache.
  docs::Limits limits{
      .cancel = &cancel, .turn = &budget, .site_root = project.site_root, .cache = cache};

  // Which paths are outside the site, or code, is judged by the site as the
  // base has it, as a turn's edits are.
  git::Workspace before(**base);
  agent::WritePolicy policy(*docs::SharedSiteMap(before, limits), project.write_paths);
  for (const git::DiffFile& f : story.diff.changes) {
    if (policy.OutsideSite(f.path)) story.outside_site.push_back(f.path);
    if (agent::WritePolicy::RunsAtBuild(f.path)) story.code.push_back(f.path);
  }

  // The branch as one set of edits over its merge base.
  git::Workspace branch(**base);
  size_t untaken = 0;
  for (const git::DiffFile& f : story.diff.changes) {
    if (!branch.Take(**now, f.path).ok()) ++untaken;
    if (f.from && !branch.Take(**now, *f.from).ok()) ++untaken;
  }
  docs::CheckReport report = docs::CheckChanges(branch, limits);
  story.problems = report.ProblemLines();
  for (const docs::Problem& n : report.notes) story.notes.push_back(docs::ToText(n));
  if (untaken > 0) {
    story.notes.push_back(std::to_string(untaken) + (untaken == 1 ? " path" : " paths") +
                          " of the branch could not be checked (a folder, link or submodule "
                          "where the base has a file, or the other way round)");
  }
  if (story.diff.truncated && story.diff.changes.empty()) {
    story.notes.push_back("the branch changes too many files to check");
  }
  return story;
}

std::vector<Message> JobInstructions(JobStore& jobs, const TurnInput& input) {
  // Each prompt cut to what a description quotes of it: a job of
  // kMaxMessagesPerJob long prompts is held in a few MiB.
  auto kept = [](const Message& m) {
    Message cut;
    cut.seq = m.seq;
    cut.prompt = std::string(CutUtf8(m.prompt, kMaxInstructionBytes));
    return cut;
  };
  std::vector<Message> out;
  // The claim gave the turn its earlier messages: when they are all there (a
  // job of up to kMaxHistoryMessages + 1 earlier ones), the store is not read
  // again. Messages never change once written.
  bool whole = input.message.seq == static_cast<int>(input.history.size()) + 1;
  for (size_t i = 0; whole && i < input.history.size(); ++i) {
    whole = input.history[i].seq == static_cast<int>(i) + 1;
  }
  if (whole) {
    for (const Message& m : input.history) out.push_back(kept(m));
    out.push_back(kept(input.message));
    return out;
  }
  // Else a page at a time.
  MessageQuery query;
  query.limit = 100;
  for (;;) {
    auto page =
        jobs.ListMessages(Scope{input.project.org_id, input.project.id}, input.job.id, query);
    if (!page.ok()) {
      spdlog::warn("job {}: cannot read its instructions for the pull request: {}", input.job.id,
                   OneLogLine(page.status().message()));
      out.clear();
      break;
    }
    for (Message& m : page->messages) {
      if (m.seq > input.message.seq || out.size() >= static_cast<size_t>(kMaxMessagesPerJob)) {
        continue;
      }
      out.push_back(kept(m));
    }
    if (!page->next_after_seq || *page->next_after_seq >= input.message.seq) break;
    query.after_seq = *page->next_after_seq;
  }
  // The store's view lacks the turn's own (it should not): what the turn holds.
  if (out.empty() || out.back().seq != input.message.seq) {
    out.clear();
    for (const Message& m : input.history) {
      if (m.seq < input.message.seq) out.push_back(m);
    }
    out.push_back(input.message);
  }
  return out;
}

Result<Review> MakeReview(git::Mirror& repo, const TurnInput& input, const BranchStory& story,
                          const std::string& body, WorkBudget& budget) {
  Review review;
  review.job_id = input.job.id;
  review.project_id = input.project.id;
  review.branch = input.job.ref;
  review.base = input.project.base_ref;
  review.base_commit = story.diff.merge_base;
  review.head_commit = story.head_commit;
  review.diff = story.diff.patch;
  review.diff_truncated = story.diff.truncated;
  review.problems = story.problems;
  review.notes = story.notes;
  review.pull_request_body_html = docs::RenderMarkdownHtml(body, &budget);

  auto head = repo.OpenSnapshot(story.head_commit);
  if (!head.ok()) return head.status();
  git::Snapshot& files = **head;
  files.SetBudget(&budget);
  // An image of the branch, for a page's preview: absent, unreadable or too
  // large is the same to the page (its alt text shows).
  docs::BlobLoader load = [&files](const std::string& path,
                                   size_t max_bytes) -> std::optional<std::string> {
    auto bytes = files.ReadBytes(path, max_bytes);
    if (!bytes.ok()) return std::nullopt;
    return std::move(*bytes);
  };
  size_t left = kMaxReviewPreviewBytes;  // every preview, its images included
  size_t images_left = kMaxReviewPreviewBytes;
  for (const git::DiffFile& f : story.diff.changes) {
    ReviewFile& file = review.files.emplace_back();
    file.path = f.path;
    file.change = std::string(git::DiffFile::KindName(f.kind));
    file.from = f.from;
    file.additions = f.additions;
    file.deletions = f.deletions;
    if (f.kind == git::DiffFile::Kind::kDeleted || !IsPage(f.path) || left < kMinPreviewBytes ||
        budget.spent()) {
      continue;
    }
    auto page = files.Read(f.path);
    if (!page.ok() || page->binary) continue;
    images_left = std::min(images_left, left);
    docs::PreviewLimits limits;
    limits.max_html_bytes = std::min(limits.max_html_bytes, left);
    limits.image_budget = &images_left;
    std::string html = docs::RenderPreviewHtml(page->text, f.path, load, limits, &budget);
    left -= std::min(left, html.size());
    file.preview_html = std::move(html);
  }
  if (budget.cancelled()) return budget.status();
  review.updated_at = NowMillis();
  return review;
}

}  // namespace docwright
