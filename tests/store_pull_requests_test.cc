// Merged local pull requests in the Store (core/local_pull_request.h), on
// SQLite and on PostgreSQL: recorded once, refused when merged or closed, never
// reopened (the branch's later work opens the next pull request), and a
// project read by id.
#include <gtest/gtest.h>

#include "store/store.h"
#include "support/postgres_database.h"
#include "support/secrets.h"
#include "support/temp_dir.h"
#include "support/test_tools.h"

namespace docwright {
namespace {

class StorePullRequestsTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string url = dir_ / "docwright.db";
    if (GetParam() == "postgres") {
      std::string why;
      database_ = testing::PostgresDatabase::Create(&why);
      DOCWRIGHT_REQUIRE_TOOL(database_ != nullptr, "no PostgreSQL server: " + why);
      url = database_->url();
    }
    auto s = OpenStore(url, testing::TestSecrets());
    ASSERT_TRUE(s.ok()) << s.status().message();
    store_ = std::move(*s);
    org_ = *store_->CreateOrg("acme");
    Project p;
    p.org_id = org_.id;
    p.repository = "https://git.example/acme/docs";
    p.base_ref = "main";
    p.rate_limit_per_hour = 1000;
    project_ = *store_->CreateProject(p);
  }

  Scope ProjectScope() const { return Scope{org_.id, project_.id}; }

  LocalPullRequest Open(const std::string& head, const std::string& title = "Fix the typo") {
    LocalPullRequest pr;
    pr.project_id = project_.id;
    pr.head = head;
    pr.base = "main";
    pr.title = title;
    pr.body = "What changed";
    pr.diff = "+a line\n";
    auto stored = store_->UpsertPullRequest(pr);
    EXPECT_TRUE(stored.ok()) << stored.status().message();
    return stored.ok() ? *stored : pr;
  }

  testing::TempDir dir_;
  std::unique_ptr<testing::PostgresDatabase> database_;
  std::unique_ptr<Store> store_;
  Org org_;
  Project project_;
};

TEST_P(StorePullRequestsTest, AMergeIsRecordedOnce) {
  LocalPullRequest pr = Open("docwright/aaa-typo");
  EXPECT_FALSE(pr.merged_at);
  EXPECT_EQ(pr.merge_commit, "");
  const std::string commit(40, 'c');
  auto merged = store_->MarkPullRequestMerged(pr.id, commit, 1700000000123);
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_EQ(merged->merged_at, 1700000000123);
  EXPECT_EQ(merged->merge_commit, commit);
  auto read = store_->GetPullRequest(pr.id);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->merged_at, 1700000000123);
  EXPECT_EQ(read->merge_commit, commit);
  EXPECT_EQ(read->title, "Fix the typo");
  EXPECT_EQ(read->diff, "+a line\n");

  auto twice = store_->MarkPullRequestMerged(pr.id, std::string(40, 'd'), 1700000000999);
  EXPECT_EQ(twice.status().code(), Code::kConflict);
  EXPECT_EQ(store_->GetPullRequest(pr.id)->merge_commit, commit) << "the first merge stays";
  EXPECT_EQ(store_->MarkPullRequestMerged("AAAAAAAAAAAAAAAAAAAAAA", commit, 1).status().code(),
            Code::kNotFound);
}

TEST_P(StorePullRequestsTest, AClosedPullRequestIsNotMerged) {
  auto job = store_->CreateJob(ProjectScope(), NewJob{"Fix the typo"});
  ASSERT_TRUE(job.ok()) << job.status().message();
  LocalPullRequest pr = Open(job->ref);
  ASSERT_TRUE(store_->ArchiveJob(ProjectScope(), job->id).ok());
  auto refused = store_->MarkPullRequestMerged(pr.id, std::string(40, 'c'), 1);
  EXPECT_EQ(refused.status().code(), Code::kConflict);
  EXPECT_FALSE(store_->GetPullRequest(pr.id)->merged_at);
}

TEST_P(StorePullRequestsTest, WorkAfterAMergeOpensTheNextPullRequest) {
  LocalPullRequest first = Open("docwright/aaa-typo");
  Open("docwright/bbb-other");  // number 2
  ASSERT_TRUE(store_->MarkPullRequestMerged(first.id, std::string(40, 'c'), 5).ok());

  // A follow-up pushed to the branch: a new pull request, numbered next; the
  // merged one shows what was merged.
  LocalPullRequest next = Open("docwright/aaa-typo", "Fix the typo, again");
  EXPECT_NE(next.id, first.id);
  EXPECT_EQ(next.number, 3);
  EXPECT_FALSE(next.merged_at);
  auto merged = *store_->GetPullRequest(first.id);
  EXPECT_EQ(merged.title, "Fix the typo");
  EXPECT_TRUE(merged.merged_at);

  // The next update of the branch updates the open one.
  LocalPullRequest again = Open("docwright/aaa-typo", "Fix the typo, third time");
  EXPECT_EQ(again.id, next.id);
  EXPECT_EQ(again.number, 3);
  EXPECT_EQ(store_->GetPullRequest(next.id)->title, "Fix the typo, third time");
  EXPECT_EQ(store_->GetPullRequest(first.id)->title, "Fix the typo");
}

TEST_P(StorePullRequestsTest, ATurnEndingAfterTheArchiveOfAMergedBranchOpensNothing) {
  auto job = store_->CreateJob(ProjectScope(), NewJob{"Fix the typo"});
  ASSERT_TRUE(job.ok()) << job.status().message();
  LocalPullRequest pr = Open(job->ref);
  ASSERT_TRUE(store_->MarkPullRequestMerged(pr.id, std::string(40, 'c'), 5).ok());
  ASSERT_TRUE(store_->ArchiveJob(ProjectScope(), job->id).ok());
  LocalPullRequest late = Open(job->ref, "A late turn");
  EXPECT_EQ(late.id, pr.id) << "the merged one is what the branch shows";
  auto read = *store_->GetPullRequest(pr.id);
  EXPECT_TRUE(read.merged_at);
  EXPECT_TRUE(read.archived_at);
  EXPECT_EQ(read.body, "") << "the archive takes the description down";
}

TEST_P(StorePullRequestsTest, AProjectIsReadByIdWhateverItsOrganisation) {
  auto read = store_->GetProjectById(project_.id);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->org_id, org_.id);
  EXPECT_EQ(read->repository, project_.repository);
  EXPECT_EQ(store_->GetProjectById("nope").status().code(), Code::kNotFound);
}

INSTANTIATE_TEST_SUITE_P(Stores, StorePullRequestsTest, ::testing::Values("sqlite", "postgres"));

}  // namespace
}  // namespace docwright
