// The pure rules of workflows (core/workflow.h): names, definitions, the
// job's trigger JSON and how waiting triggers coalesce.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "core/workflow.h"

namespace docwright {
namespace {

Workflow Valid() {
  Workflow w;
  w.name = "api-changes";
  w.title = "API changes";
  w.prompt = "Document the API changes.";
  w.trigger.kind = TriggerKind::kSchedule;
  w.trigger.cron = "0 9 * * 1";
  w.trigger.time_zone = "Europe/Berlin";
  return w;
}

// The message of CheckWorkflow's refusal ("" if it accepted).
std::string Refusal(Workflow w) {
  Status s = CheckWorkflow(w);
  if (!s.ok()) {
    EXPECT_EQ(s.code(), Code::kInvalidArgument);
  }
  return s.ok() ? "" : s.message();
}

#define EXPECT_REFUSED(workflow, field)                                         \
  do {                                                                          \
    std::string message = Refusal(workflow);                                    \
    EXPECT_EQ(message.rfind(field, 0), 0u) << "message: \"" << message << "\""; \
  } while (0)

TEST(WorkflowRules, Names) {
  for (std::string ok : {std::string("a"), std::string("api-changes"), std::string("v2_docs"),
                         std::string("0day"), std::string(64, 'z')}) {
    EXPECT_TRUE(CheckWorkflowName(ok).ok()) << ok;
  }
  for (std::string bad : {std::string(), std::string(65, 'a'), std::string("-a"), std::string("_a"),
                          std::string("Api"), std::string("a b"), std::string("a/b"),
                          std::string("a.md"), std::string("ä")}) {
    Status s = CheckWorkflowName(bad);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.code(), Code::kInvalidArgument);
  }
}

TEST(WorkflowRules, EnumsRoundTrip) {
  for (TriggerKind k :
       {TriggerKind::kSchedule, TriggerKind::kPush, TriggerKind::kMerge, TriggerKind::kManual}) {
    EXPECT_EQ(ParseTriggerKind(ToString(k)), k);
  }
  for (PublishMode m : {PublishMode::kPullRequest, PublishMode::kPush, PublishMode::kAutomerge}) {
    EXPECT_EQ(ParsePublishMode(ToString(m)), m);
  }
  EXPECT_EQ(ToString(PublishMode::kPullRequest), "pull_request");
  EXPECT_EQ(ParseTriggerKind("cron"), std::nullopt);
  EXPECT_EQ(ParsePublishMode("merge"), std::nullopt);
  EXPECT_EQ(ToString(RunState::kQueued), "queued");
  EXPECT_EQ(ToString(RunState::kStarted), "started");
  EXPECT_EQ(ToString(RunState::kRefused), "refused");
  EXPECT_EQ(ToString(RunState::kCoalesced), "coalesced");
}

TEST(WorkflowRules, AValidDefinitionIsTrimmed) {
  Workflow w = Valid();
  w.name = "  api-changes\n";
  w.title = " API changes ";
  w.prompt = "\n  Document the API changes.\n\n";
  w.trigger.cron = " 0 9 * * 1 ";
  ASSERT_TRUE(CheckWorkflow(w).ok()) << CheckWorkflow(w).message();
  EXPECT_EQ(w.name, "api-changes");
  EXPECT_EQ(w.title, "API changes");
  EXPECT_EQ(w.prompt, "Document the API changes.");
  EXPECT_EQ(w.trigger.cron, "0 9 * * 1");
  // A schedule without a zone is in UTC.
  Workflow utc = Valid();
  utc.trigger.time_zone = "";
  ASSERT_TRUE(CheckWorkflow(utc).ok());
  EXPECT_EQ(utc.trigger.time_zone, "UTC");
}

TEST(WorkflowRules, EachRuleNamesItsField) {
  Workflow w = Valid();
  w.name = "API Changes";
  EXPECT_REFUSED(w, "name");

  w = Valid();
  w.title = std::string(kMaxWorkflowTitleChars + 1, 't');
  EXPECT_REFUSED(w, "title");
  w.title = std::string(kMaxWorkflowTitleChars, 't');  // the limit itself is fine
  EXPECT_EQ(Refusal(w), "");
  w.title = "two\nlines";
  EXPECT_REFUSED(w, "title");
  w.title = "\xff";
  EXPECT_REFUSED(w, "title");

  w = Valid();
  w.prompt = "  \n ";
  EXPECT_REFUSED(w, "prompt");
  w.prompt = std::string(kMaxPromptChars + 1, 'p');
  EXPECT_REFUSED(w, "prompt");
  w.prompt = "bad \xc3";
  EXPECT_REFUSED(w, "prompt");
  w.prompt = std::string("nul \0 inside", 12);
  EXPECT_REFUSED(w, "prompt");

  w = Valid();
  w.trigger.cron = "61 9 * * 1";
  EXPECT_REFUSED(w, "trigger.cron");
  EXPECT_NE(Refusal(w).find("minute"), std::string::npos);
  w = Valid();
  w.trigger.time_zone = "Mars/Olympus";
  EXPECT_REFUSED(w, "trigger.timeZone");

  w = Valid();
  w.trigger = WorkflowTrigger{};
  w.trigger.kind = TriggerKind::kMerge;
  EXPECT_REFUSED(w, "trigger.repository");
  w.trigger.repository = "Not A Name";
  EXPECT_REFUSED(w, "trigger.repository");
  w.trigger.repository = "sdk";
  EXPECT_EQ(Refusal(w), "");
  w.trigger.branch = "bad..branch";
  EXPECT_REFUSED(w, "trigger.branch");

  w = Valid();
  w.trigger = WorkflowTrigger{};
  w.trigger.kind = TriggerKind::kPush;
  EXPECT_EQ(Refusal(w), "");  // the base branch
  w.trigger.branch = "main";
  EXPECT_EQ(Refusal(w), "");
  w.trigger.branch = "-rf";
  EXPECT_REFUSED(w, "trigger.branch");

  w = Valid();
  w.trigger = WorkflowTrigger{};  // by hand only: nothing to check
  EXPECT_EQ(Refusal(w), "");

  w = Valid();
  w.context = {"sdk", "Bad"};
  EXPECT_REFUSED(w, "context[1]");
  w.context = {"sdk", "cli", "sdk"};
  EXPECT_REFUSED(w, "context[2]");
  w.context.clear();
  for (size_t i = 0; i <= kMaxContextRepositories; ++i)
    w.context.push_back("r" + std::to_string(i));
  EXPECT_REFUSED(w, "context");
  w.context.pop_back();
  EXPECT_EQ(Refusal(w), "");

  w = Valid();
  w.model = "";
  EXPECT_REFUSED(w, "model");
  w.model = std::string(kMaxModelNameChars + 1, 'm');
  EXPECT_REFUSED(w, "model");
  w.model = "a model";
  EXPECT_REFUSED(w, "model");
  w.model = "claude-sonnet";
  EXPECT_EQ(Refusal(w), "");

  w = Valid();
  w.runs_per_day = 0;
  EXPECT_REFUSED(w, "runsPerDay");
  w.runs_per_day = kMaxWorkflowRunsPerDay + 1;
  EXPECT_REFUSED(w, "runsPerDay");
  w.runs_per_day = kMaxWorkflowRunsPerDay;
  EXPECT_EQ(Refusal(w), "");
}

TEST(WorkflowRules, TriggerJsonHasOnlyItsKindsFields) {
  RunTrigger merge{"merge", "api-changes", "sdk", "main", "aaa111", "bbb222", std::nullopt, "", ""};
  EXPECT_EQ(RunTriggerJson(merge),
            R"({"kind":"merge","workflow":"api-changes","repository":"sdk","branch":"main",)"
            R"("from":"aaa111","to":"bbb222"})");

  RunTrigger push;
  push.kind = "push";
  push.workflow = "x";
  push.branch = "main";
  push.to = "ccc";
  push.url = "ignored";
  EXPECT_EQ(RunTriggerJson(push),
            R"({"kind":"push","workflow":"x","repository":"docs","branch":"main",)"
            R"("from":null,"to":"ccc"})");

  RunTrigger schedule;
  schedule.kind = "schedule";
  schedule.workflow = "changelog";
  schedule.scheduled_for = 1796112000000;  // 2026-12-01T08:00:00Z
  schedule.time_zone = "Europe/Berlin";
  schedule.branch = "ignored";
  EXPECT_EQ(
      RunTriggerJson(schedule),
      R"({"kind":"schedule","workflow":"changelog","scheduledFor":"2026-12-01T09:00:00+01:00","timeZone":"Europe/Berlin"})");

  RunTrigger manual;
  manual.kind = "manual";
  manual.workflow = "changelog";
  EXPECT_EQ(RunTriggerJson(manual), R"({"kind":"manual","workflow":"changelog"})");

  RunTrigger comment;
  comment.kind = "comment";
  comment.url = "https://forge.example/pr/1#c2";
  EXPECT_EQ(RunTriggerJson(comment), R"({"kind":"comment","url":"https://forge.example/pr/1#c2"})");

  // Values are escaped: a hostile branch or name cannot break the object.
  RunTrigger hostile = merge;
  hostile.workflow = "a\"}, \"kind\": \"x";
  nlohmann::json j = nlohmann::json::parse(RunTriggerJson(hostile));
  EXPECT_EQ(j["kind"], "merge");
  EXPECT_EQ(j["workflow"], hostile.workflow);
}

TEST(WorkflowRules, TriggerJsonRoundTrips) {
  RunTrigger merge{"merge", "api-changes", "sdk", "main", "aaa111", "bbb222", std::nullopt, "", ""};
  Result<RunTrigger> back = ParseRunTrigger(RunTriggerJson(merge));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->kind, "merge");
  EXPECT_EQ(back->workflow, "api-changes");
  EXPECT_EQ(back->repository, "sdk");
  EXPECT_EQ(back->branch, "main");
  EXPECT_EQ(back->from, "aaa111");
  EXPECT_EQ(back->to, "bbb222");
  EXPECT_EQ(back->scheduled_for, std::nullopt);
  EXPECT_EQ(RunTriggerJson(*back), RunTriggerJson(merge));

  RunTrigger schedule;
  schedule.kind = "schedule";
  schedule.workflow = "changelog";
  schedule.scheduled_for = 1796112000000;
  schedule.time_zone = "America/New_York";
  back = ParseRunTrigger(RunTriggerJson(schedule));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->scheduled_for, 1796112000000);  // the instant, whatever the offset shown
  // In UTC too, and with milliseconds (core/time.h's form).
  back = ParseRunTrigger(R"({"kind":"schedule","scheduledFor":"2026-12-01T08:00:00.250Z"})");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->scheduled_for, 1796112000250);

  // Missing and mistyped fields are empty; a bad time is no time.
  back = ParseRunTrigger(R"({"kind":"push","branch":7,"scheduledFor":"yesterday","extra":[1]})");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->kind, "push");
  EXPECT_EQ(back->branch, "");
  EXPECT_EQ(back->from, "");
  EXPECT_EQ(back->scheduled_for, std::nullopt);

  for (const char* bad : {"", "null", "[]", "\"merge\"", "{}", R"({"kind":1})",
                          "{\"kind\":", "{\"kind\":\"\xff\"}"}) {
    Result<RunTrigger> r = ParseRunTrigger(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
    }
  }
  EXPECT_FALSE(ParseRunTrigger(std::string(100000, ' ') + "{\"kind\":\"push\"}").ok());
}

TEST(WorkflowRules, CoalescingKeepsWhereTheChangeBegan) {
  RunTrigger first{"merge", "w", "sdk", "main", "a1", "b2", std::nullopt, "", ""};
  RunTrigger later{"merge", "w", "sdk", "main", "b2", "c3", std::nullopt, "", ""};
  RunTrigger out = CoalesceTriggers(first, later);
  EXPECT_EQ(out.from, "a1");
  EXPECT_EQ(out.to, "c3");
  EXPECT_EQ(out.repository, "sdk");

  RunTrigger push_a{"push", "w", "docs", "main", "a1", "b2", std::nullopt, "", ""};
  RunTrigger push_b{"push", "w", "docs", "main", "b2", "c3", std::nullopt, "", ""};
  EXPECT_EQ(CoalesceTriggers(push_a, push_b).from, "a1");

  // Another branch, another repository or another kind: the later one as it is.
  RunTrigger other_branch = later;
  other_branch.branch = "dev";
  EXPECT_EQ(CoalesceTriggers(first, other_branch).from, "b2");
  RunTrigger other_repo = later;
  other_repo.repository = "cli";
  EXPECT_EQ(CoalesceTriggers(first, other_repo).from, "b2");
  RunTrigger schedule;
  schedule.kind = "schedule";
  schedule.workflow = "w";
  schedule.scheduled_for = 1796112000000;
  RunTrigger after_schedule = CoalesceTriggers(schedule, later);
  EXPECT_EQ(after_schedule.from, "b2");
  RunTrigger manual;
  manual.kind = "manual";
  manual.workflow = "w";
  RunTrigger replaced = CoalesceTriggers(first, manual);
  EXPECT_EQ(replaced.kind, "manual");
  EXPECT_EQ(replaced.from, "");
  EXPECT_EQ(CoalesceTriggers(first, schedule).scheduled_for, 1796112000000);
}

}  // namespace
}  // namespace docwright
