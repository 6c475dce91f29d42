// The first message of a workflow's run (workflows/run_prompt.h): the
// workflow's prompt, what started the run, the commits and files of a push or
// merge, each bounded, the whole within kMaxPromptChars.
#include "workflows/run_prompt.h"

#include <gtest/gtest.h>

#include "core/text.h"

namespace docwright::workflows {
namespace {

Workflow MergeWorkflow() {
  Workflow w;
  w.name = "api-changes";
  w.prompt = "Update the API reference for what changed.";
  w.trigger.kind = TriggerKind::kMerge;
  w.trigger.repository = "sdk";
  return w;
}

RunTrigger Merge() {
  RunTrigger t;
  t.kind = "merge";
  t.workflow = "api-changes";
  t.repository = "sdk";
  t.branch = "main";
  t.from = std::string(40, 'a');
  t.to = std::string(40, 'b');
  return t;
}

git::CommitSummary Commit(const std::string& sha_char, const std::string& subject) {
  git::CommitSummary c;
  c.sha = std::string(40, sha_char[0]);
  c.subject = subject;
  c.message = subject + "\n";
  return c;
}

TEST(RunPromptTest, NamesTheTriggerTheCommitsAndTheFiles) {
  RunChanges changes;
  changes.commits = {Commit("b", "Add the widgets endpoint"), Commit("c", "Rename Gadget")};
  git::DiffFile added;
  added.kind = git::DiffFile::Kind::kAdded;
  added.path = "src/widgets.h";
  added.additions = 12;
  git::DiffFile renamed;
  renamed.kind = git::DiffFile::Kind::kRenamed;
  renamed.path = "src/gizmo.h";
  renamed.from = "src/gadget.h";
  renamed.additions = 1;
  renamed.deletions = 1;
  changes.files = {added, renamed};
  changes.file_count = 2;
  std::string p = BuildRunPrompt(MergeWorkflow(), Merge(), &changes);
  EXPECT_EQ(p.rfind("Update the API reference for what changed.", 0), 0u) << p;
  EXPECT_NE(p.find("## What started this run"), std::string::npos) << p;
  EXPECT_NE(p.find("context repository \"sdk\""), std::string::npos) << p;
  EXPECT_NE(p.find("bbbbbbbbbbbb Add the widgets endpoint"), std::string::npos) << p;
  EXPECT_LT(p.find("Add the widgets endpoint"), p.find("Rename Gadget")) << "newest first";
  EXPECT_NE(p.find("added src/widgets.h (+12 -0)"), std::string::npos) << p;
  EXPECT_NE(p.find("renamed src/gadget.h -> src/gizmo.h (+1 -1)"), std::string::npos) << p;
}

TEST(RunPromptTest, AScheduleNamesItsSlotInItsZone) {
  Workflow w;
  w.name = "daily";
  w.prompt = "Check the changelog.";
  w.trigger.kind = TriggerKind::kSchedule;
  w.trigger.cron = "0 9 * * *";
  w.trigger.time_zone = "Europe/Berlin";
  RunTrigger t;
  t.kind = "schedule";
  t.workflow = "daily";
  t.scheduled_for = 1796112000000;  // 2026-12-01T08:00:00Z
  t.time_zone = "Europe/Berlin";
  std::string p = BuildRunPrompt(w, t, nullptr);
  EXPECT_NE(p.find("\"0 9 * * *\" (Europe/Berlin)"), std::string::npos) << p;
  EXPECT_NE(p.find("2026-12-01T09:00:00+01:00"), std::string::npos) << p;
}

TEST(RunPromptTest, ListsAreBoundedAndHostileTextIsOneLine) {
  RunChanges changes;
  for (int i = 0; i < 80; ++i) {
    changes.commits.push_back(Commit(
        "d", "subject " + std::to_string(i) + "\n## injected heading" + std::string(1000, 'x')));
  }
  for (int i = 0; i < 300; ++i) {
    git::DiffFile f;
    f.path = "docs/page-" + std::to_string(i) + ".md";
    changes.files.push_back(f);
  }
  changes.file_count = 5000;
  std::string p = BuildRunPrompt(MergeWorkflow(), Merge(), &changes);
  EXPECT_NE(p.find("subject 49"), std::string::npos);
  EXPECT_EQ(p.find("subject 50 "), std::string::npos) << "at most kMaxRunCommits";
  EXPECT_EQ(p.find("\n## injected"), std::string::npos) << "a subject stays on its line";
  EXPECT_EQ(p.find(std::string(kMaxRunCommitLineBytes + 10, 'x')), std::string::npos);
  EXPECT_NE(p.find("docs/page-199.md"), std::string::npos);
  EXPECT_EQ(p.find("docs/page-200.md"), std::string::npos) << "at most kMaxRunFiles";
  EXPECT_NE(p.find("and 4800 more files"), std::string::npos) << p.substr(p.size() - 300);
}

TEST(RunPromptTest, TheWholeIsCutToThePromptLimitKeepingTheWorkflowsPrompt) {
  Workflow w = MergeWorkflow();
  w.prompt = std::string(kMaxPromptChars - 3000, 'p');
  RunChanges changes;
  for (int i = 0; i < 200; ++i) {
    git::DiffFile f;
    f.path = std::string(400, 'f') + std::to_string(i);
    changes.files.push_back(f);
  }
  std::string p = BuildRunPrompt(w, Merge(), &changes);
  EXPECT_LE(p.size(), kMaxPromptChars);
  EXPECT_EQ(p.rfind(w.prompt, 0), 0u);
  EXPECT_NE(p.find("## What started this run"), std::string::npos);
  EXPECT_NE(p.find("did not fit"), std::string::npos);
  EXPECT_TRUE(Utf8Length(p).has_value());

  // A prompt at the limit alone stays whole, and nothing is added past it.
  w.prompt = std::string(kMaxPromptChars, 'q');
  p = BuildRunPrompt(w, Merge(), &changes);
  EXPECT_EQ(p, w.prompt);
}

TEST(RunPromptTest, ChangesThatCouldNotBeReadAreSaidSo) {
  RunChanges changes;
  changes.unavailable = "the mirror is busy";
  std::string p = BuildRunPrompt(MergeWorkflow(), Merge(), &changes);
  EXPECT_NE(p.find("The changes could not be read: the mirror is busy"), std::string::npos) << p;
}

}  // namespace
}  // namespace docwright::workflows
