// The poll path's memo of rendered jobs (api/job_renderings.h): a body is used
// again only for an equal job and currency, so no change ever reaches a client
// late, and the bytes are always what rendering the job afresh gives.
#include "api/job_renderings.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "api/etag.h"
#include "api/views.h"

namespace docwright {
namespace {

Job SomeJob(std::string id) {
  Job j;
  j.id = std::move(id);
  j.project_id = "proj_1";
  j.status = JobStatus::kCompleted;
  j.repository = "docs";
  j.ref = "docwright/fix-typos";
  j.model = "gpt-5";
  j.pr_link = "https://forge.example/pulls/7";
  j.summary = "Fixed typos";
  j.created_at = 1'760'000'000'000;
  j.updated_at = 1'760'000'060'000;
  j.usage.tokens.input_tokens = 1200;
  j.usage.tokens.output_tokens = 300;
  j.usage.cost_micros = 4200;
  j.usage.turns = 1;
  return j;
}

// What the route answered before the memo: the job rendered afresh.
std::string Fresh(const Job& job, std::string_view currency) {
  return JobResponse(200, job, currency).body;
}

TEST(JobRenderings, AnEqualJobIsServedFromTheMemoWithTheBytesAFreshRenderingGives) {
  Job job = SomeJob("job_memo_same");
  const RenderedJob& first = JobRenderings::Of(job, "USD");
  EXPECT_EQ(first.body, Fresh(job, "USD"));
  EXPECT_EQ(first.tag, EntityTag(first.body));
  const RenderedJob& again = JobRenderings::Of(SomeJob("job_memo_same"), "USD");
  EXPECT_EQ(&again, &first) << "an equal job is not rendered again";
  EXPECT_EQ(again.body, Fresh(job, "USD"));
}

TEST(JobRenderings, AChangeOfAnyShownFieldOrOfTheCurrencyRendersAfresh) {
  std::vector<std::pair<std::string, std::function<void(Job&)>>> changes = {
      {"status", [](Job& j) { j.status = JobStatus::kFailed; }},
      {"summary", [](Job& j) { j.summary = "Fixed more typos"; }},
      {"error", [](Job& j) { j.error = "the push was refused"; }},
      {"updatedAt", [](Job& j) { j.updated_at += 1; }},
      {"archivedAt", [](Job& j) { j.archived_at = j.updated_at; }},
      {"prLink", [](Job& j) { j.pr_link = "https://forge.example/pulls/8"; }},
      {"prState", [](Job& j) { j.pr_state = "merged"; }},
      {"model", [](Job& j) { j.model = "claude"; }},
      {"commit", [](Job& j) { j.commit_sha = "0123456789abcdef0123456789abcdef01234567"; }},
      {"publish", [](Job& j) { j.publish = PublishMode::kPush; }},
      {"cost", [](Job& j) { j.usage.cost_micros += 1; }},
      {"output tokens", [](Job& j) { j.usage.tokens.output_tokens += 1; }},
      {"cached tokens", [](Job& j) { j.usage.tokens.cached_input_tokens += 1; }},
      {"unpriced turns", [](Job& j) { j.usage.unpriced_turns += 1; }},
      {"workflowId", [](Job& j) { j.workflow_id = "wf_1"; }},
  };
  for (const auto& [name, change] : changes) {
    Job before = SomeJob("job_memo_changes");
    std::string old_tag = JobRenderings::Of(before, "USD").tag;
    Job after = before;
    change(after);
    const RenderedJob& now = JobRenderings::Of(after, "USD");
    EXPECT_EQ(now.body, Fresh(after, "USD")) << name;
    EXPECT_NE(now.tag, old_tag) << name << ": the ETag must change with the body";
  }
  Job job = SomeJob("job_memo_changes");
  JobRenderings::Of(job, "USD");
  const RenderedJob& in_euros = JobRenderings::Of(job, "EUR");
  EXPECT_EQ(in_euros.body, Fresh(job, "EUR"));
  EXPECT_NE(in_euros.body, Fresh(job, "USD"));
  EXPECT_EQ(JobRenderings::Of(job, "").body, Fresh(job, ""));
}

// More jobs than slots, polled in turn: colliding jobs replace each other's
// slot, and each still gets its own body.
TEST(JobRenderings, ManyJobsPolledInTurnEachGetTheirOwnBody) {
  for (int round = 0; round < 3; ++round) {
    for (size_t i = 0; i < 4 * JobRenderings::kSlots; ++i) {
      Job job = SomeJob("job_memo_many_" + std::to_string(i));
      job.summary = "job " + std::to_string(i);
      const RenderedJob& r = JobRenderings::Of(job, "USD");
      ASSERT_EQ(r.body, Fresh(job, "USD")) << i;
      ASSERT_EQ(r.tag, EntityTag(r.body)) << i;
    }
  }
}

// A job whose body is over the memo's bound is rendered each time and kept
// nowhere; the job polled before it keeps its slot's body.
TEST(JobRenderings, ABodyOverTheBoundIsRenderedEachTimeAndNotKept) {
  Job large = SomeJob("job_memo_large");
  large.summary = std::string(2 * JobRenderings::kMaxBytes, 's');
  const RenderedJob& once = JobRenderings::Of(large, "USD");
  EXPECT_GT(once.body.size(), JobRenderings::kMaxBytes);
  EXPECT_EQ(once.body, Fresh(large, "USD"));
  Job small = SomeJob("job_memo_large");
  small.summary = "short";
  EXPECT_EQ(JobRenderings::Of(small, "USD").body, Fresh(small, "USD"));
  EXPECT_EQ(JobRenderings::Of(large, "USD").body, Fresh(large, "USD"));
}

}  // namespace
}  // namespace docwright
