// The workflows' engine in the real binary: `serve --workflow-clock-file`
// takes "now" from a file, so a test moves time past a schedule's slot and
// sees the run's job appear.
#include <gtest/gtest.h>

#include <fstream>

#include "core/cron.h"
#include "core/time.h"
#include "support/git_repo.h"
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
  // Commits `content` at `path` onto the branch "main" of the bare repository
  // `bare`, as a person pushing would; returns the new head.
  std::string CommitTo(const std::string& bare, const std::string& path, const std::string& content,
                       const std::string& message) {
    std::string work = bare + ".work";
    std::filesystem::remove_all(work);
    Sh(std::string(kGit) + " clone -q " + bare + " " + work);
    std::filesystem::create_directories(std::filesystem::path(work + "/" + path).parent_path());
    std::ofstream(work + "/" + path) << content;
    Sh("cd " + work + " && " + kGit + " add -A && " + kGit + " commit -qm '" + message + "' && " +
       kGit + " push -q origin HEAD:main");
    std::filesystem::remove_all(work);
    return Sh("git --git-dir=" + bare + " rev-parse main");
  }
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

// What the issue promised a person: a workflow file in the docs repository, the
// code repository connected, a change merged there, and a pull request updating
// the docs with no request of their own.
TEST_F(WorkflowSystemTest, AWorkflowFileAndAMergeInTheCodeRepositoryGiveAPullRequest) {
  std::string sdk = dir_ / "sdk.git";
  MakeRemoteWith(sdk, {{"src/client.ts", "export function connect() {}\n"}});
  Admin(
      {"project", "context", "add", "--project", project_a_, "--name", "sdk", "--repository", sdk});
  CommitTo(remote_a_, ".docwright/workflows/api-changes.md",
           "---\nname: API changes\non:\n  push:\n    repo: sdk\n---\n"
           "Update the docs for what this merge changed.\n",
           "Add the api-changes workflow");

  // The engine reads the file from the base branch, and sees the code
  // repository's branch once (a first sight starts nothing).
  const std::string workflows = "/v2/agent/" + project_a_ + "/workflows";
  ASSERT_TRUE(WaitUntil(
      [&] {
        json list = Get(workflows, key_a_).Json();
        for (const json& w : list["workflows"]) {
          if (w["name"] == "api-changes" && w["source"] == "file" && w["error"].is_null()) {
            return true;
          }
        }
        return false;
      },
      std::chrono::seconds(10)))
      << Get(workflows, key_a_).body << server_->Log();
  ASSERT_TRUE(WaitUntil(
      [&] {
        return Count("SELECT COUNT(*) FROM watched_heads WHERE watch LIKE 'context:sdk:%'") == 1;
      },
      std::chrono::seconds(10)))
      << server_->Log();
  const std::string jobs = "/v2/agent/" + project_a_ + "/jobs";
  EXPECT_EQ(Get(jobs, key_a_).Json()["jobs"].size(), 0u) << "nothing merged yet";

  std::string before = Sh("git --git-dir=" + sdk + " rev-parse main");
  std::string after =
      CommitTo(sdk, "src/client.ts", "export function connect(timeoutMs = 5000) {}\n",
               "Add a timeout to connect");

  json job;
  ASSERT_TRUE(WaitUntil(
      [&] {
        json list = Get(jobs, key_a_).Json()["jobs"];
        if (list.size() != 1) return false;
        job = list[0];
        return job["status"] == "completed";
      },
      std::chrono::seconds(20)))
      << Get(jobs, key_a_).body << server_->Log();
  EXPECT_EQ(job["trigger"]["kind"], "merge");
  EXPECT_EQ(job["trigger"]["workflow"], "api-changes");
  EXPECT_EQ(job["trigger"]["repository"], "sdk");
  EXPECT_EQ(job["trigger"]["from"], before);
  EXPECT_EQ(job["trigger"]["to"], after);
  ASSERT_TRUE(job["prLink"].is_string()) << job;
  // The pull request is the local forge's page, and the agent was told what merged.
  const std::string link = job["prLink"];
  ASSERT_NE(link.find("/pulls/"), std::string::npos) << link;
  EXPECT_EQ(client_->Send("GET", link.substr(link.find("/pulls/")), "", {}).status, 200);
  json messages =
      Get("/v2/agent/" + project_a_ + "/job/" + job["id"].get<std::string>() + "/messages", key_a_)
          .Json();
  std::string prompt = messages["messages"][0]["prompt"];
  EXPECT_NE(prompt.find("Update the docs for what this merge changed."), std::string::npos);
  EXPECT_NE(prompt.find("Add a timeout to connect"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("src/client.ts"), std::string::npos) << prompt;

  // Later polls find nothing new: one run for one merge.
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  EXPECT_EQ(Get(jobs, key_a_).Json()["jobs"].size(), 1u);
}

}  // namespace
}  // namespace docwright::testing
