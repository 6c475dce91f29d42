// Merging a branch into its base on the repository (Mirror::Merge), against
// real bare repositories changed by the git command line as a person would: a
// fast-forward, a merge commit, conflicts refused with the base unchanged, and
// a base that moves meanwhile never overwritten. Over a path (read and written
// directly) and over smart HTTP (libgit2's transport).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "git/git.h"
#include "support/git_http_server.h"
#include "support/git_repo.h"
#include "support/temp_dir.h"

namespace docwright::git {
namespace {

using docwright::testing::kGit;
using docwright::testing::Sh;

class GitMergeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    remote_ = dir_ / "remote.git";
    seed_ = dir_ / "seed";
    Sh(std::string(kGit) + " init -q --bare " + remote_);
    Sh(std::string(kGit) + " init -q " + seed_);
    Write("docs/index.md", "# Welcome\n\nHello.\n");
    Write("docs/guide.md", "# Guide\n\nStep one.\n");
    Commit("init");
    Sh(Seed() + " push -q " + remote_ + " HEAD:main");
  }

  std::string Seed() const { return "cd " + seed_ + " && " + kGit; }
  void Write(const std::string& path, const std::string& content) {
    std::filesystem::create_directories(std::filesystem::path(seed_ + "/" + path).parent_path());
    std::ofstream(seed_ + "/" + path) << content;
  }
  void Commit(const std::string& message) {
    Sh(Seed() + " add -A && " + kGit + " commit -qm '" + message + "'");
  }
  // Starts `branch` in the seed from the remote's `from`.
  void Checkout(const std::string& branch, const std::string& from) {
    Sh(Seed() + " fetch -q " + remote_ + " " + from + " && " + kGit + " checkout -q -B " + branch +
       " FETCH_HEAD");
  }
  void Push(const std::string& branch) {
    Sh(Seed() + " push -q " + remote_ + " HEAD:refs/heads/" + branch);
  }
  std::string Rev(const std::string& rev) {
    return Sh("git --git-dir=" + remote_ + " rev-parse " + rev);
  }
  std::string Show(const std::string& rev_path) {
    return Sh("git --git-dir=" + remote_ + " show " + rev_path);
  }

  std::unique_ptr<Mirror> OpenMirror(const std::string& url, Credentials credentials = {}) {
    auto m = Mirror::Open(dir_ / "mirrors/p.git", url, std::move(credentials));
    EXPECT_TRUE(m.ok()) << m.status().message();
    return m.ok() ? std::move(*m) : nullptr;
  }

  // A branch "feature" with one page changed, and main moved on with another.
  void DivergedBranches() {
    Checkout("feature", "main");
    Write("docs/guide.md", "# Guide\n\nStep one, explained.\n");
    Commit("explain step one");
    Push("feature");
    Checkout("main", "main");
    Write("docs/index.md", "# Welcome\n\nHello there.\n");
    Commit("greet");
    Push("main");
  }

  testing::TempDir dir_;
  std::string remote_, seed_;
};

TEST_F(GitMergeTest, AFastForwardMovesTheBaseToTheBranch) {
  Checkout("feature", "main");
  Write("docs/guide.md", "# Guide\n\nStep two.\n");
  Commit("step two");
  Push("feature");
  const std::string feature = Rev("feature");
  auto mirror = OpenMirror(remote_);
  ASSERT_TRUE(mirror);
  auto merged = mirror->Merge("feature", "main", MergeMethod::kFastForward, Identity{});
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_TRUE(merged->fast_forward);
  EXPECT_FALSE(merged->already_merged);
  EXPECT_EQ(merged->commit, feature);
  EXPECT_EQ(Rev("main"), feature) << "main is the branch's head now";

  // Merged again: nothing to do, nothing pushed.
  auto again = mirror->Merge("feature", "main", MergeMethod::kMerge, Identity{});
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_TRUE(again->already_merged);
  EXPECT_EQ(again->commit, feature);
  EXPECT_EQ(Rev("main"), feature);
}

TEST_F(GitMergeTest, AMergeCommitJoinsBothHeadsByDocwright) {
  DivergedBranches();
  const std::string main_before = Rev("main"), feature = Rev("feature");
  auto mirror = OpenMirror(remote_);
  ASSERT_TRUE(mirror);
  Status refused = mirror->Merge("feature", "main", MergeMethod::kFastForward, Identity{}).status();
  EXPECT_EQ(refused.code(), Code::kConflict);
  EXPECT_NE(refused.message().find("cannot fast-forward main"), std::string::npos)
      << refused.message();
  EXPECT_EQ(Rev("main"), main_before) << "a refused fast-forward pushes nothing";

  auto merged = mirror->Merge("feature", "main", MergeMethod::kMerge, Identity{});
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_FALSE(merged->fast_forward);
  EXPECT_EQ(merged->base_before, main_before);
  EXPECT_EQ(Rev("main"), merged->commit);
  EXPECT_EQ(Rev("main^1"), main_before);
  EXPECT_EQ(Rev("main^2"), feature);
  EXPECT_EQ(Sh("git --git-dir=" + remote_ + " log -1 --format=%an%n%cn%n%s main"),
            "docwright\ndocwright\nMerge branch 'feature' into 'main'");
  EXPECT_EQ(Show("main:docs/guide.md"), "# Guide\n\nStep one, explained.");
  EXPECT_EQ(Show("main:docs/index.md"), "# Welcome\n\nHello there.");
}

TEST_F(GitMergeTest, AMergeMakesAMergeCommitEvenWhenItCouldFastForward) {
  Checkout("feature", "main");
  Write("docs/new.md", "# New\n");
  Commit("new page");
  Push("feature");
  const std::string main_before = Rev("main");
  auto mirror = OpenMirror(remote_);
  ASSERT_TRUE(mirror);
  auto merged = mirror->Merge("feature", "main", MergeMethod::kMerge, Identity{});
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_EQ(Rev("main^1"), main_before);
  EXPECT_EQ(Rev("main^2"), Rev("feature"));
}

TEST_F(GitMergeTest, ConflictsAreRefusedNamingThePathsAndTheBaseStays) {
  Checkout("feature", "main");
  Write("docs/guide.md", "# Guide\n\nStep one, by the branch.\n");
  Write("docs/index.md", "# Welcome\n\nHello from the branch.\n");
  Commit("branch edits");
  Push("feature");
  Checkout("main", "main");
  Write("docs/guide.md", "# Guide\n\nStep one, by main.\n");
  Write("docs/index.md", "# Welcome\n\nHello from main.\n");
  Commit("main edits");
  Push("main");
  const std::string main_before = Rev("main"), feature = Rev("feature");
  auto mirror = OpenMirror(remote_);
  ASSERT_TRUE(mirror);
  auto merged = mirror->Merge("feature", "main", MergeMethod::kMerge, Identity{});
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.status().code(), Code::kConflict);
  const std::string& why = merged.status().message();
  EXPECT_NE(why.find("docs/guide.md"), std::string::npos) << why;
  EXPECT_NE(why.find("docs/index.md"), std::string::npos) << why;
  EXPECT_EQ(Rev("main"), main_before) << "nothing is pushed";
  EXPECT_EQ(Rev("feature"), feature);
}

TEST_F(GitMergeTest, ABaseThatMovedMeanwhileIsNeverOverwritten) {
  DivergedBranches();
  auto mirror = OpenMirror(remote_);
  ASSERT_TRUE(mirror);
  auto heads = mirror->FetchBranches({"main", "feature"});
  ASSERT_TRUE(heads.ok()) << heads.status().message();
  const std::string base = *heads->at("main");
  auto prepared = mirror->PrepareMerge(base, *heads->at("feature"), "feature", "main",
                                       MergeMethod::kMerge, Identity{});
  ASSERT_TRUE(prepared.ok()) << prepared.status().message();
  EXPECT_EQ(Rev("main"), base) << "preparing pushes nothing";

  // A person pushes to main between the merge's fetch and its push.
  Checkout("main", "main");
  Write("docs/late.md", "# Late\n");
  Commit("late");
  Push("main");
  const std::string moved = Rev("main");
  Status pushed = mirror->Push(prepared->commit, "main", base);
  EXPECT_EQ(pushed.code(), Code::kConflict) << pushed.message();
  EXPECT_EQ(Rev("main"), moved) << "the person's commit stays";

  // Merge itself starts from the new head.
  auto merged = mirror->Merge("feature", "main", MergeMethod::kMerge, Identity{});
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_EQ(Rev("main^1"), moved);
  EXPECT_EQ(Show("main:docs/late.md"), "# Late");
}

TEST_F(GitMergeTest, MissingBranchesAndUnrelatedHistoriesAreRefused) {
  auto mirror = OpenMirror(remote_);
  ASSERT_TRUE(mirror);
  auto missing = mirror->Merge("gone", "main", MergeMethod::kMerge, Identity{});
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  EXPECT_NE(missing.status().message().find("gone"), std::string::npos);

  Sh(Seed() + " checkout -q --orphan stray && " + kGit + " rm -rq --cached . && echo x > x.md && " +
     kGit + " add x.md && " + kGit + " commit -qm stray");
  Push("stray");
  const std::string main_before = Rev("main");
  auto unrelated = mirror->Merge("stray", "main", MergeMethod::kMerge, Identity{});
  EXPECT_EQ(unrelated.status().code(), Code::kInvalidArgument) << unrelated.status().message();
  EXPECT_EQ(Rev("main"), main_before);
}

TEST_F(GitMergeTest, OverSmartHttpAMergeCommitIsPushedUnderTheLease) {
  DivergedBranches();
  const std::string main_before = Rev("main");
  testing::GitHttpServer server(dir_.path(), "tok_right");
  auto mirror = OpenMirror(server.Url("remote.git"), Credentials{"tok_right"});
  ASSERT_TRUE(mirror);
  auto merged = mirror->Merge("feature", "main", MergeMethod::kMerge, Identity{});
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_EQ(Rev("main"), merged->commit);
  EXPECT_EQ(Rev("main^1"), main_before);
  EXPECT_EQ(Rev("main^2"), Rev("feature"));
}

}  // namespace
}  // namespace docwright::git
