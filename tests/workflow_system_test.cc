// The workflows' engine in the real binary: `serve --workflow-clock-file`
// takes "now" from a file, so a test moves time past a schedule's slot and
// sees the run's job appear.
#include <gtest/gtest.h>

#include <fstream>

#include "core/cron.h"
#include "core/time.h"
#include "support/service_fixture.h"

namespace docwright::testing {
namespace {

class WorkflowSystemTest : public ServiceTest {
 protected:
  void StartDefaultServer() override {
    SetClock(NowMillis());
    StartServer(kScripted, {"--lease-seconds", "1", "--workflow-tick", "200",
                            "--workflow-poll-interval", "200", "--workflow-clock-file", Clock()});
  }
  std::string Clock() const { return dir_ / "clock"; }
  void SetClock(UnixMillis t) {
    std::string tmp = Clock() + ".tmp";
    std::ofstream(tmp) << FormatRfc3339(t) << "\n";
    std::filesystem::rename(tmp, Clock());
  }
};

TEST_F(WorkflowSystemTest, AScheduleFiresWhenTheClockFilePassesItsSlot) {
  auto store = OpenSqliteStore(dir_ / "docwright.db", KeyFileSecrets(dir_ / "secret.key"));
  ASSERT_TRUE(store.ok()) << store.status().message();
  Workflow w;
  w.project_id = project_a_;
  w.name = "daily";
  w.prompt = "Check the quickstart.";
  w.trigger.kind = TriggerKind::kSchedule;
  w.trigger.cron = "0 9 * * *";
  w.trigger.time_zone = "Europe/Berlin";
  auto made = (*store)->CreateWorkflow(w);
  ASSERT_TRUE(made.ok()) << made.status().message();
  auto slot =
      CronSchedule::Parse(w.trigger.cron, w.trigger.time_zone)->NextAfter(made->schedule_from);
  ASSERT_TRUE(slot.has_value());

  // The clock as it is: rounds go by and nothing fires.
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  EXPECT_EQ(Get("/v2/agent/" + project_a_ + "/jobs", key_a_).Json()["jobs"].size(), 0u);

  SetClock(*slot + 1000);
  std::vector<WorkflowRun> runs;
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto listed = (*store)->ListWorkflowRuns(made->id, 10);
        if (listed.ok()) runs = *listed;
        return !runs.empty();
      },
      std::chrono::seconds(10)))
      << server_->Log();
  ASSERT_EQ(runs.size(), 1u);
  ASSERT_TRUE(runs[0].job_id.has_value());
  EXPECT_EQ(runs[0].trigger.kind, "schedule");
  EXPECT_EQ(runs[0].trigger.scheduled_for, *slot);

  // The job is the project's, listed by the API, its trigger the schedule's.
  HttpResult list = Get("/v2/agent/" + project_a_ + "/jobs", key_a_);
  ASSERT_EQ(list.status, 200);
  ASSERT_EQ(list.Json()["jobs"].size(), 1u);
  EXPECT_EQ(list.Json()["jobs"][0]["id"], *runs[0].job_id);
  auto job = (*store)->GetJob(Scope{org_a_, project_a_}, *runs[0].job_id);
  ASSERT_TRUE(job.ok()) << job.status().message();
  ASSERT_TRUE(job->trigger.has_value());
  auto trigger = ParseRunTrigger(*job->trigger);
  ASSERT_TRUE(trigger.ok());
  EXPECT_EQ(trigger->kind, "schedule");
  EXPECT_EQ(trigger->workflow, "daily");

  // Rounds go on: the slot does not fire again.
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  auto again = (*store)->ListWorkflowRuns(made->id, 10);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->size(), 1u);
}

}  // namespace
}  // namespace docwright::testing
