// GET /v2/agent/{projectId}/job/{id}/review over real HTTP: the shape before a
// review exists, a review the store holds returned whole, and nothing of it to
// another organisation's key (404, as an unknown job).
#include <fstream>

#include <gtest/gtest.h>

#include "core/review.h"
#include "support/service_fixture.h"

namespace docwright::testing {
namespace {

using ReviewApiTest = ServiceTest;

std::string ReviewPath(const std::string& project, const std::string& job) {
  return "/v2/agent/" + project + "/job/" + job + "/review";
}

TEST_F(ReviewApiTest, AStoredReviewIsReturnedToItsOrganisationOnly) {
  // The turn waits for `go` to exist, so the review is read before the push.
  const std::string go = dir_ / "go";
  json job = CreateJob("Fix the typo [await " + go + "]");
  const std::string id = job["id"];

  // Before the job's first push: the empty shape.
  HttpResult before = Get(ReviewPath(project_a_, id), key_a_);
  std::ofstream(go) << "go";
  ASSERT_EQ(before.status, 200) << before.body;
  json empty = before.Json();
  EXPECT_TRUE(empty["headCommit"].is_null()) << before.body;
  EXPECT_TRUE(empty["files"].empty());
  EXPECT_TRUE(empty["problems"].empty());
  EXPECT_TRUE(empty["notes"].empty());
  EXPECT_EQ(empty["diff"], "");
  EXPECT_EQ(empty["pullRequestBodyHtml"], "");
  EXPECT_EQ(empty["diffTruncated"], false);

  // What the runner records (once the job's turn is over, so that this one is
  // the last), written as another process of the service would.
  WaitForEnd(id);
  {
    auto store = OpenSqliteStore(dir_ / "docwright.db", KeyFileSecrets(dir_ / "secret.key"));
    ASSERT_TRUE(store.ok()) << store.status().message();
    auto stored_job = (*store)->GetJob(Scope{org_a_, project_a_}, id);
    ASSERT_TRUE(stored_job.ok());
    Review r;
    r.job_id = id;
    r.project_id = project_a_;
    r.branch = stored_job->ref;
    r.base = "main";
    r.base_commit = std::string(40, 'b');
    r.head_commit = std::string(40, 'c');
    r.files = {ReviewFile{.path = "guide.mdx",
                          .change = "modified",
                          .from = std::nullopt,
                          .additions = 2,
                          .deletions = 1,
                          .preview_html = "<h1>Guide</h1>"},
               ReviewFile{.path = "b.md", .change = "renamed", .from = "a.md"}};
    r.diff = "diff --git a/guide.mdx b/guide.mdx\n";
    r.problems = {"guide.mdx:4: broken link"};
    r.notes = {"style: heading skips a level"};
    r.pull_request_body_html = "<p>Fixes the typo</p>";
    r.updated_at = 1700000000000;
    ASSERT_TRUE((*store)->PutReview(r).ok());
  }
  HttpResult got = Get(ReviewPath(project_a_, id), key_a_);
  ASSERT_EQ(got.status, 200) << got.body;
  json review = got.Json();
  EXPECT_EQ(review["headCommit"], std::string(40, 'c'));
  EXPECT_EQ(review["baseCommit"], std::string(40, 'b'));
  EXPECT_EQ(review["base"], "main");
  EXPECT_EQ(review["updatedAt"], "2023-11-14T22:13:20.000Z");
  ASSERT_EQ(review["files"].size(), 2u);
  EXPECT_EQ(review["files"][0]["path"], "guide.mdx");
  EXPECT_EQ(review["files"][0]["previewHtml"], "<h1>Guide</h1>");
  EXPECT_TRUE(review["files"][0]["from"].is_null());
  EXPECT_EQ(review["files"][1]["from"], "a.md");
  EXPECT_TRUE(review["files"][1]["previewHtml"].is_null());
  EXPECT_EQ(review["problems"], json::array({"guide.mdx:4: broken link"}));
  EXPECT_EQ(review["notes"], json::array({"style: heading skips a level"}));
  EXPECT_EQ(review["pullRequestBodyHtml"], "<p>Fixes the typo</p>");

  // Another organisation's key: as if there were no such job.
  ExpectError(Get(ReviewPath(project_a_, id), key_b_), 404, "another org's key");
  ExpectError(Get(ReviewPath(project_b_, id), key_b_), 404, "another org's project");
  ExpectError(Get(ReviewPath(project_a_, "job_unknown0000000000"), key_a_), 404, "unknown job");
  EXPECT_EQ(Get(ReviewPath(project_a_, id), "").status, 401);
}

}  // namespace
}  // namespace docwright::testing
