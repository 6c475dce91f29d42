// Fair scheduling between tenants, end to end: one organisation's backlog does
// not make another organisation's first job wait behind it, and caps of turns in
// flight hold across the workers of a node.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

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

}  // namespace
}  // namespace docwright::testing
