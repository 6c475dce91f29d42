// Fair scheduling between tenants, end to end: one organisation's backlog does
// not make another organisation's first job wait behind it, and caps of turns in
// flight hold across the workers of a node. And a node holds a thousand turns in
// flight at once, within the memory docs/operations.md states.
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "support/process_memory.h"
#include "support/service_fixture.h"

namespace docwright::testing {
namespace {

using std::chrono::milliseconds;

constexpr int kWorkers = 4;

class SchedulingTest : public ServiceTest {
 protected:
  void StartDefaultServer() override {
    StartServer(kScripted, {"--lease-seconds", "5", "--workers", std::to_string(kWorkers)});
  }

  // Posts `n` jobs to `project` with `key`, eight clients at a time.
  void PostJobs(const std::string& project, const std::string& key, int n,
                const std::string& prompt) {
    std::atomic<int> left{n};
    std::vector<std::thread> clients;
    for (int c = 0; c < 8; ++c) {
      clients.emplace_back([&, port = server_->port()] {
        HttpClient http(port);
        Headers h = Auth(key);
        h.emplace_back("Content-Type", "application/json");
        while (left.fetch_sub(1) > 0) {
          EXPECT_EQ(http.Send("POST", Jobs(project), Prompt(prompt), h).status, 201);
        }
      });
    }
    for (auto& t : clients) t.join();
  }
};

TEST_F(SchedulingTest, AnotherOrganisationsFirstJobWaitsForNoMoreThanOneTurnPerWorker) {
  std::string backlog = Admin({"project", "create", "--org", org_a_, "--repository", remote_a_,
                               "--rate-limit", "1000000"})
                            .LastLine();
  PostJobs(backlog, key_a_, 500, "backlog [sleep 100]");
  HttpResult r = Post(Jobs(project_b_), Prompt("the first job of another tenant"), key_b_);
  ASSERT_EQ(r.status, 201) << r.body;
  std::string id = r.Json()["id"];
  json job;
  ASSERT_TRUE(WaitUntil(
      [&] {
        job = Get(Job(project_b_, id), key_b_).Json();
        return job["status"] != "active";
      },
      milliseconds(30000)))
      << job.dump();
  EXPECT_EQ(job["status"], "completed") << job.dump();

  // No more of the backlog started between the newcomer's arrival and its start
  // than there are workers (each may have been claiming as it arrived).
  ExpectNewcomerWaitedForAtMost(backlog, id, kWorkers);
}

TEST_F(SchedulingTest, AProjectsCapOfTurnsInFlightHoldsAcrossTheWorkers) {
  std::string capped = Admin({"project", "create", "--org", org_a_, "--repository", remote_a_,
                              "--rate-limit", "1000000", "--max-active", "1"})
                           .LastLine();
  PostJobs(capped, key_a_, 12, "capped [sleep 100]");
  // Sampled while the jobs run: never two of the project's turns at once.
  int64_t most = 0;
  const std::string running =
      "SELECT COUNT(*) FROM turns t JOIN jobs j ON j.id = t.job_id WHERE j.project_id = '" +
      capped + "' AND t.state = 'running'";
  const std::string active =
      "SELECT COUNT(*) FROM jobs WHERE project_id = '" + capped + "' AND status = 'active'";
  ASSERT_TRUE(WaitUntil(
      [&] {
        most = std::max(most, Count(running));
        return Count(active) == 0;
      },
      milliseconds(30000)));
  EXPECT_EQ(most, 1) << "with 4 workers and 12 jobs, the cap of 1 is what kept them apart";
  EXPECT_EQ(Count("SELECT COUNT(*) FROM jobs WHERE project_id = '" + capped +
                  "' AND status = 'completed'"),
            12);
}

class TurnsInFlightTest : public ServiceTest {
 protected:
  void StartDefaultServer() override {
    StartServer(kScripted, {"--workers", "1000", "--lease-seconds", "30"});
  }
};

// A thousand jobs, each of whose turns waits until the test lets it go: all
// thousand are running at once on one node (a turn waits for the model, so a
// node must hold that many), and the node's memory stays under the bound
// docs/operations.md gives for it (1 GiB at 1,000 turns in flight).
TEST_F(TurnsInFlightTest, AThousandTurnsAreInFlightAtOnceWithinTheMemoryBound) {
  constexpr int kJobs = 1000;
  std::string project = Admin({"project", "create", "--org", org_a_, "--repository", remote_a_,
                               "--rate-limit", "1000000"})
                            .LastLine();
  const std::string gate = dir_ / "let-them-finish";
  std::atomic<int> left{kJobs};
  std::vector<std::thread> clients;
  for (int c = 0; c < 16; ++c) {
    clients.emplace_back([&, port = server_->port()] {
      HttpClient http(port);
      Headers h = Auth(key_a_);
      h.emplace_back("Content-Type", "application/json");
      while (left.fetch_sub(1) > 0) {
        EXPECT_EQ(
            http.Send("POST", Jobs(project), Prompt("[await " + gate + "] [nochange]"), h).status,
            201);
      }
    });
  }
  for (auto& t : clients) t.join();
  const std::string running =
      "SELECT COUNT(*) FROM turns t JOIN jobs j ON j.id = t.job_id WHERE j.project_id = '" +
      project + "' AND t.state = 'running'";
  EXPECT_TRUE(WaitUntil([&] { return Count(running) == kJobs; }, std::chrono::seconds(240)))
      << Count(running) << " of " << kJobs << " turns running";
#ifndef DOCWRIGHT_SANITIZED
  int64_t peak = ProcKib(server_->pid(), "VmHWM");
  ASSERT_GT(peak, 0);
  EXPECT_LT(peak, 1024 * 1024) << "KiB at the peak, with " << kJobs << " turns in flight";
#endif
  std::ofstream(gate) << "go";
  const std::string ended =
      "SELECT COUNT(*) FROM jobs WHERE project_id = '" + project + "' AND status = 'completed'";
  EXPECT_TRUE(WaitUntil([&] { return Count(ended) == kJobs; }, std::chrono::seconds(240)))
      << Count(ended) << " of " << kJobs << " jobs completed";
}

}  // namespace
}  // namespace docwright::testing
