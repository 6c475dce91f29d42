// Reviews of jobs' branches in the Store (store.h, "Reviews"): on SQLite and on
// PostgreSQL, a review is replaced whole, read in its scope only (another
// organisation's scope is NotFound as an unknown job is), found by branch, and
// goes with its project.
#include <gtest/gtest.h>

#include "core/review.h"
#include "store/cached_store.h"
#include "support/store_fixture.h"

namespace docwright {
namespace {

using std::chrono::milliseconds;

class StoreReviewsTest : public testing::StoreTest {
 protected:
  Review ReviewOf(const Job& job, const std::string& head) {
    Review r;
    r.job_id = job.id;
    r.project_id = job.project_id;
    r.branch = job.ref;
    r.base = "main";
    r.base_commit = std::string(40, 'b');
    r.head_commit = head;
    ReviewFile page{.path = "guide/intro.mdx",
                    .change = "modified",
                    .from = std::nullopt,
                    .additions = 3,
                    .deletions = 1,
                    .preview_html = "<h1>Intro</h1>\n<p>\"quoted\" &amp; é</p>"};
    ReviewFile moved{.path = "new.md",
                     .change = "renamed",
                     .from = "old.md",
                     .additions = 0,
                     .deletions = 0,
                     .preview_html = std::nullopt};
    r.files = {page, moved};
    r.diff = "diff --git a/x b/x\n+line\n";
    r.diff_truncated = true;
    r.problems = {"guide/intro.mdx:3: link to missing page"};
    r.notes = {"a note", "another"};
    r.pull_request_body_html = "<p>Fixes the typo</p>";
    r.updated_at = 1700000000123;
    return r;
  }
};

TEST_P(StoreReviewsTest, AReviewIsStoredWholeAndReplaced) {
  Job job = Create(project_);
  EXPECT_EQ(store_->GetReview(ScopeOf(project_), job.id).status().code(), Code::kNotFound)
      << "none before the first push";

  Review first = ReviewOf(job, std::string(40, '1'));
  ASSERT_TRUE(store_->PutReview(first).ok());
  auto read = store_->GetReview(ScopeOf(project_), job.id);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->job_id, job.id);
  EXPECT_EQ(read->project_id, project_.id);
  EXPECT_EQ(read->branch, job.ref);
  EXPECT_EQ(read->base, "main");
  EXPECT_EQ(read->base_commit, first.base_commit);
  EXPECT_EQ(read->head_commit, first.head_commit);
  ASSERT_EQ(read->files.size(), 2u);
  EXPECT_EQ(read->files[0].path, "guide/intro.mdx");
  EXPECT_EQ(read->files[0].change, "modified");
  EXPECT_FALSE(read->files[0].from);
  EXPECT_EQ(read->files[0].additions, 3);
  EXPECT_EQ(read->files[0].deletions, 1);
  EXPECT_EQ(read->files[0].preview_html, first.files[0].preview_html);
  EXPECT_EQ(read->files[1].from, "old.md");
  EXPECT_FALSE(read->files[1].preview_html);
  EXPECT_EQ(read->diff, first.diff);
  EXPECT_TRUE(read->diff_truncated);
  EXPECT_EQ(read->problems, first.problems);
  EXPECT_EQ(read->notes, first.notes);
  EXPECT_EQ(read->pull_request_body_html, first.pull_request_body_html);
  EXPECT_EQ(read->updated_at, first.updated_at);

  Review second = ReviewOf(job, std::string(40, '2'));
  second.files.resize(1);
  second.problems.clear();
  second.diff_truncated = false;
  second.updated_at = first.updated_at + 1000;
  ASSERT_TRUE(store_->PutReview(second).ok());
  read = store_->GetReview(ScopeOf(project_), job.id);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->head_commit, second.head_commit) << "replaced, not added";
  EXPECT_EQ(read->files.size(), 1u);
  EXPECT_TRUE(read->problems.empty());
  EXPECT_FALSE(read->diff_truncated);
  EXPECT_EQ(read->updated_at, second.updated_at);
}

TEST_P(StoreReviewsTest, AReviewNeedsItsJobAndItsProject) {
  Job job = Create(project_);
  Review orphan = ReviewOf(job, std::string(40, '1'));
  orphan.job_id = "job_does_not_exist";
  EXPECT_EQ(store_->PutReview(orphan).code(), Code::kNotFound);
  Review elsewhere = ReviewOf(job, std::string(40, '1'));
  elsewhere.project_id = other_project_.id;
  EXPECT_FALSE(store_->PutReview(elsewhere).ok()) << "a job's review is of the job's project";
  EXPECT_EQ(store_->GetReviewByBranch(other_project_.id, job.ref).status().code(), Code::kNotFound);
}

TEST_P(StoreReviewsTest, OtherScopesSeeNoReview) {
  Job job = Create(project_);
  ASSERT_TRUE(store_->PutReview(ReviewOf(job, std::string(40, '1'))).ok());
  EXPECT_EQ(store_->GetReview(Scope{other_org_.id, project_.id}, job.id).status().code(),
            Code::kNotFound)
      << "another organisation";
  EXPECT_EQ(store_->GetReview(ScopeOf(other_project_), job.id).status().code(), Code::kNotFound)
      << "another project";
  EXPECT_EQ(store_->GetReview(Scope{other_org_.id, other_project_.id}, job.id).status().code(),
            Code::kNotFound);
  EXPECT_TRUE(store_->GetReview(ScopeOf(project_), job.id).ok());
}

TEST_P(StoreReviewsTest, AReviewIsFoundByItsBranch) {
  Job a = Create(project_, "first");
  Job b = Create(project_, "second");
  ASSERT_NE(a.ref, b.ref);
  ASSERT_TRUE(store_->PutReview(ReviewOf(a, std::string(40, 'a'))).ok());
  ASSERT_TRUE(store_->PutReview(ReviewOf(b, std::string(40, 'b'))).ok());
  auto found = store_->GetReviewByBranch(project_.id, b.ref);
  ASSERT_TRUE(found.ok()) << found.status().message();
  EXPECT_EQ(found->job_id, b.id);
  EXPECT_EQ(found->head_commit, std::string(40, 'b'));
  EXPECT_EQ(store_->GetReviewByBranch(project_.id, "no/such-branch").status().code(),
            Code::kNotFound);
  EXPECT_EQ(store_->GetReviewByBranch(other_project_.id, a.ref).status().code(), Code::kNotFound);
}

TEST_P(StoreReviewsTest, TheCacheReadsReviewsThrough) {
  auto cached = NewCachedStore(Open(), CacheOptions{milliseconds(60000)});
  Job job = Create(project_);
  ASSERT_TRUE(cached->PutReview(ReviewOf(job, std::string(40, '1'))).ok());
  EXPECT_EQ(cached->GetReview(ScopeOf(project_), job.id)->head_commit, std::string(40, '1'));
  ASSERT_TRUE(store_->PutReview(ReviewOf(job, std::string(40, '2'))).ok());
  EXPECT_EQ(cached->GetReview(ScopeOf(project_), job.id)->head_commit, std::string(40, '2'))
      << "not kept: another node's write is seen at once";
  EXPECT_EQ(cached->GetReviewByBranch(project_.id, job.ref)->job_id, job.id);
  EXPECT_EQ(cached->GetReview(Scope{other_org_.id, project_.id}, job.id).status().code(),
            Code::kNotFound);
}

TEST_P(StoreReviewsTest, DeletingTheProjectRemovesItsReviews) {
  Job job = Create(project_);
  Job other = Create(other_project_);
  ASSERT_TRUE(store_->PutReview(ReviewOf(job, std::string(40, '1'))).ok());
  ASSERT_TRUE(store_->PutReview(ReviewOf(other, std::string(40, '2'))).ok());
  ASSERT_TRUE(store_->ArchiveJob(ScopeOf(project_), job.id).ok());
  ASSERT_TRUE(store_->DeleteProject(ScopeOf(project_)).ok());
  EXPECT_EQ(store_->GetReviewByBranch(project_.id, job.ref).status().code(), Code::kNotFound);
  EXPECT_TRUE(store_->GetReview(ScopeOf(other_project_), other.id).ok()) << "others stay";
}

INSTANTIATE_TEST_SUITE_P(Store, StoreReviewsTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace docwright
