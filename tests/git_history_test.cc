// A branch's history as a workflow's run is told it (Mirror::Log) and a
// remote's default branch (Mirror::DefaultBranch), against real bare
// repositories changed by the git command line as a person would.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "core/text.h"

#include "git/git.h"
#include "support/git_repo.h"
#include "support/temp_dir.h"

namespace docwright::git {
namespace {

using docwright::testing::kGit;
using docwright::testing::Sh;

class GitHistoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    remote_ = dir_ / "remote.git";
    seed_ = dir_ / "seed";
    Sh(std::string(kGit) + " init -q --bare " + remote_);
    Sh(std::string(kGit) + " init -q " + seed_);
    Write("index.md", "# Welcome\n");
    Commit("Initial docs");
    Push("main");
    auto m = Mirror::Open(dir_ / "mirror.git", remote_, {});
    ASSERT_TRUE(m.ok()) << m.status().message();
    mirror_ = std::move(*m);
  }

  std::string Seed() const { return "cd " + seed_ + " && " + kGit; }
  void Write(const std::string& path, const std::string& content) {
    std::filesystem::create_directories(std::filesystem::path(seed_ + "/" + path).parent_path());
    std::ofstream(seed_ + "/" + path) << content;
  }
  // Commits everything with the message in the file `message` (any bytes).
  void Commit(const std::string& message) {
    std::ofstream(dir_ / "message") << message;
    Sh(Seed() + " add -A && " + kGit + " commit -q --cleanup=verbatim -F " + (dir_ / "message"));
  }
  void Push(const std::string& branch) {
    Sh(Seed() + " push -q " + remote_ + " HEAD:refs/heads/" + branch);
  }
  std::string Fetch(const std::string& branch = "main") {
    auto head = mirror_->FetchBranch(branch);
    EXPECT_TRUE(head.ok()) << head.status().message();
    return head.ok() ? *head : "";
  }

  docwright::testing::TempDir dir_;
  std::string remote_, seed_;
  std::unique_ptr<Mirror> mirror_;
};

TEST_F(GitHistoryTest, ListsTheNewCommitsNewestFirstWithTheirSubjects) {
  std::string old_head = Fetch();
  Write("guide.md", "# Guide\n");
  Commit("Add the guide\n\nA longer body.\n");
  Write("api.md", "# API\n");
  Commit("Document the API");
  Push("main");
  std::string new_head = Fetch();

  auto log = mirror_->Log(old_head, new_head, 50);
  ASSERT_TRUE(log.ok()) << log.status().message();
  ASSERT_EQ(log->size(), 2u);
  EXPECT_EQ((*log)[0].sha, new_head);
  EXPECT_EQ((*log)[0].subject, "Document the API");
  EXPECT_EQ((*log)[1].subject, "Add the guide");
  EXPECT_EQ((*log)[1].message, "Add the guide\n\nA longer body.\n");
  EXPECT_FALSE((*log)[0].is_merge);

  // At most `max`, the newest kept.
  auto one = mirror_->Log(old_head, new_head, 1);
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].subject, "Document the API");

  // Nothing new: nothing listed.
  auto none = mirror_->Log(new_head, new_head, 50);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());

  // No `from`: the head and its first parents.
  auto all = mirror_->Log("", new_head, 50);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[2].subject, "Initial docs");
}

TEST_F(GitHistoryTest, AMergeCommitIsMarkedAndItsBranchListed) {
  std::string old_head = Fetch();
  Sh(Seed() + " checkout -q -b topic");
  Write("topic.md", "# Topic\n");
  Commit("Topic work");
  Sh(Seed() + " checkout -q main");
  Write("other.md", "# Other\n");
  Commit("Other work");
  Sh(Seed() + " merge -q --no-ff -m \"Merge branch 'topic'\" topic");
  Push("main");
  std::string new_head = Fetch();

  auto log = mirror_->Log(old_head, new_head, 50);
  ASSERT_TRUE(log.ok()) << log.status().message();
  ASSERT_EQ(log->size(), 3u);
  EXPECT_TRUE((*log)[0].is_merge);
  EXPECT_EQ((*log)[0].subject, "Merge branch 'topic'");
  std::set<std::string> subjects;
  for (const auto& c : *log) subjects.insert(c.subject);
  EXPECT_TRUE(subjects.count("Topic work"));
  EXPECT_TRUE(subjects.count("Other work"));
}

TEST_F(GitHistoryTest, AHugeOrMalformedMessageIsBoundedAndWellFormed) {
  std::string old_head = Fetch();
  Write("a.md", "a\n");
  Commit("\xff\xfe" + std::string(5000, 'x') + "\nsecond line\n" + std::string(10000, 'y'));
  Push("main");
  std::string new_head = Fetch();
  auto log = mirror_->Log(old_head, new_head, 50);
  ASSERT_TRUE(log.ok()) << log.status().message();
  ASSERT_EQ(log->size(), 1u);
  EXPECT_LE((*log)[0].message.size(), kMaxCommitMessageBytes);
  EXPECT_LE((*log)[0].subject.size(), kMaxCommitSubjectBytes);
  EXPECT_TRUE(Utf8Length((*log)[0].message).has_value());
  EXPECT_TRUE(Utf8Length((*log)[0].subject).has_value());
  EXPECT_EQ((*log)[0].subject.find('\n'), std::string::npos);
}

TEST_F(GitHistoryTest, ACommitTheMirrorLacksIsNotFound) {
  std::string head = Fetch();
  auto log = mirror_->Log(std::string(40, 'a'), head, 50);
  EXPECT_EQ(log.status().code(), Code::kNotFound) << log.status().message();
  EXPECT_EQ(mirror_->Log("", "not-a-sha", 5).status().code(), Code::kInvalidArgument);
}

TEST_F(GitHistoryTest, TheDefaultBranchIsTheOneHeadNames) {
  auto branch = mirror_->DefaultBranch();
  ASSERT_TRUE(branch.ok()) << branch.status().message();
  EXPECT_EQ(*branch, "main");
  Write("b.md", "b\n");
  Commit("Trunk");
  Push("trunk");
  Sh("git --git-dir=" + remote_ + " symbolic-ref HEAD refs/heads/trunk");
  branch = mirror_->DefaultBranch();
  ASSERT_TRUE(branch.ok()) << branch.status().message();
  EXPECT_EQ(*branch, "trunk");
}

}  // namespace
}  // namespace docwright::git
