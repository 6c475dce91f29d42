// The service as a whole: turns stopped by an archive, kill -9 and SIGTERM at
// any moment, separate worker processes, a server without a model, and secrets
// kept out of logs and responses.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <sstream>

#include <atomic>
#include <regex>
#include <set>
#include <thread>

#include "support/service_fixture.h"

namespace docwright::testing {
namespace {

using std::chrono::milliseconds;

using SystemTest = ServiceTest;

TEST_F(SystemTest, ArchiveStopsTheRunningTurn) {
  std::string id = CreateJob("long work [sleep 60000]")["id"];
  std::string transcript = Job(project_a_, id) + "/messages";
  ASSERT_TRUE(WaitUntil(
      [&] { return Get(transcript, key_a_).Json()["messages"][0]["turn"]["state"] == "running"; }));
  ASSERT_EQ(Post(Job(project_a_, id) + "/archive", "", key_a_, "").status, 200);
  EXPECT_EQ(Get(transcript, key_a_).Json()["messages"][0]["turn"]["state"], "cancelled");
  EXPECT_TRUE(WaitUntil(
      [&] { return server_->Log().find("stopped: the job was archived") != std::string::npos; },
      milliseconds(5000)))
      << server_->Log();
  EXPECT_EQ(Get(Job(project_a_, id), key_a_).Json()["status"], "archived");
}

TEST_F(SystemTest, KillNineLosesNoAcknowledgedJobOrMessage) {
  // Clients keep creating jobs and sending follow-ups while the server is killed,
  // at a moment that differs from run to run.
  std::string roomy = Admin({"project", "create", "--org", org_a_, "--repository", remote_a_,
                             "--rate-limit", "1000000"})
                          .LastLine();
  std::mutex mu;
  std::map<std::string, int> acked;  // job id -> acknowledged prompts
  std::atomic<bool> stop{false};
  std::vector<std::thread> clients;
  for (int c = 0; c < 3; ++c) {
    clients.emplace_back([&, port = server_->port()] {
      HttpClient http(port);
      Headers h = Auth(key_a_);
      h.emplace_back("Content-Type", "application/json");
      while (!stop) {
        HttpResult r = http.Send("POST", Jobs(roomy), Prompt("work [sleep 30]"), h);
        if (r.status == 0) return;  // the server is gone
        if (r.status != 201) continue;
        std::string id = r.Json()["id"];
        {
          std::lock_guard lock(mu);
          acked[id] = 1;
        }
        HttpResult m = http.Send("POST", Job(roomy, id) + "/message", Prompt("more"), h);
        if (m.status == 0) return;
        if (m.status == 200) {
          std::lock_guard lock(mu);
          acked[id] = 2;
        }
      }
    });
  }
  // Killed once the clients have had more than ten jobs acknowledged (on a
  // machine shared with other tests that may take longer than the moment drawn).
  std::this_thread::sleep_for(milliseconds(500 + std::random_device{}() % 500));
  auto acked_so_far = [&] {
    std::lock_guard lock(mu);
    return acked.size();
  };
  const bool writing = WaitUntil([&] { return acked_so_far() > 10; }, milliseconds(30000));
  const size_t acked_before_kill = acked_so_far();
  server_->Kill9();
  stop = true;
  for (auto& t : clients) t.join();
  ASSERT_TRUE(writing) << acked_before_kill << " jobs acknowledged in 30 s";
  ASSERT_GT(acked_before_kill, 10u) << "the clients must be writing when the server dies";

  StartServer(kScripted, {"--lease-seconds", "1"});
  auto roomy_job = [&](const std::string& id) { return Job(roomy, id); };
  for (const auto& [id, prompts] : acked) {
    HttpResult r = Get(roomy_job(id) + "/messages?limit=100", key_a_);
    ASSERT_EQ(r.status, 200) << "acknowledged job " << id << " is lost";
    EXPECT_GE(r.Json()["messages"].size(), static_cast<size_t>(prompts)) << id;
  }
  std::set<std::string> links;
  for (const auto& [id, prompts] : acked) {
    json job;
    ASSERT_TRUE(WaitUntil(
        [&, &id = id] {  // clang 14 cannot capture a structured binding
          job = Get(roomy_job(id), key_a_).Json();
          return job["status"] != "active";
        },
        milliseconds(60000)))
        << job.dump();
    EXPECT_EQ(job["status"], "completed") << job.dump();
    links.insert(job["prLink"].is_string() ? job["prLink"].get<std::string>() : "");
  }
  // Every job has its own pull request, and no job has two: turns cut short by
  // the kill were re-run, and their pull requests found rather than reopened.
  EXPECT_EQ(links.size(), acked.size());
  EXPECT_EQ(links.count(""), 0u);
  // A job the kill cut off before its 201 arrived is there too (it was stored):
  // every stored job has its one pull request.
  auto count = [&](const char* sql) { return Count(sql); };
  int64_t jobs = count("SELECT COUNT(*) FROM jobs");
  EXPECT_GE(jobs, static_cast<int64_t>(acked.size()));
  EXPECT_TRUE(
      WaitUntil([&] { return count("SELECT COUNT(*) FROM jobs WHERE status != 'completed'") == 0; },
                milliseconds(60000)));
  EXPECT_EQ(count("SELECT COUNT(*) FROM pull_requests"), jobs);
  EXPECT_EQ(count("SELECT COUNT(*) FROM jobs j WHERE j.pr_link IS NULL OR NOT EXISTS (SELECT 1 "
                  "FROM pull_requests p WHERE p.head = j.ref)"),
            0);
}

TEST_F(SystemTest, SigtermHandsTheRunningTurnBackForTheNextStart) {
  server_->Terminate();
  StartServer(kScripted, {"--lease-seconds", "120"});
  std::string id = CreateJob("work [sleep 1500]")["id"];
  std::string transcript = Job(project_a_, id) + "/messages";
  ASSERT_TRUE(WaitUntil(
      [&] { return Get(transcript, key_a_).Json()["messages"][0]["turn"]["state"] == "running"; }));
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(server_->Terminate(), 0) << server_->Log();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_NE(server_->Log().find("handed back on shutdown"), std::string::npos) << server_->Log();
  // Had the lease not been given back, the turn would wait 120 s.
  StartServer(kScripted, {"--lease-seconds", "120"});
  json job = WaitForEnd(id, milliseconds(15000));
  EXPECT_EQ(job["status"], "completed");
  EXPECT_EQ(Get(transcript, key_a_).Json()["messages"][0]["turn"]["attempts"], 1);
}

TEST_F(SystemTest, SeparateWorkerProcessesRunTheTurns) {
  // The API process runs no turns; a `docwright worker` on the same data dir does.
  server_->Terminate();
  StartServer(kScripted, {"--workers", "0"});
  std::string id = CreateJob("Fix the typo")["id"];
  std::this_thread::sleep_for(milliseconds(600));
  EXPECT_EQ(Get(Job(project_a_, id), key_a_).Json()["status"], "active");

  BackgroundProcess worker;
  worker.Start(kScripted, {"worker", "--data-dir", dir_.path(), "--workers", "2"},
               dir_ / "worker.out", dir_ / "worker.log");
  // The API process sees the worker's outcome within its cache time.
  json done = WaitForEnd(id);
  EXPECT_EQ(done["status"], "completed");
  ASSERT_TRUE(done["prLink"].is_string()) << done;
  EXPECT_EQ(done["prLink"].get<std::string>().rfind("http://127.0.0.1:8080/pulls/", 0), 0u)
      << "a worker without --public-url links to the default address";
  EXPECT_EQ(worker.Terminate(), 0);
}

// Without --workers a node sizes its turns in flight to what the process may
// use, says so at start with why, and runs its turns with them.
TEST_F(SystemTest, WithoutWorkersTheNodeSizesItselfAndSaysWhy) {
  server_->Terminate();
  StartServer(kScripted, {"--lease-seconds", "1"}, {"DOCWRIGHT_WORKERS="});  // not set
  std::smatch said;
  const std::string log = server_->Log();
  ASSERT_TRUE(std::regex_search(log, said, std::regex(R"((\d+) turns in flight \(([^)]*)\): )")))
      << log;
  const int workers = std::stoi(said[1].str());
  EXPECT_GE(workers, 2);
  EXPECT_LE(workers, 1000);
  EXPECT_NE(log.find("descriptors"), std::string::npos) << log;
  EXPECT_NE(log.find("--workers sets another number"), std::string::npos) << log;
  EXPECT_EQ(WaitForEnd(CreateJob("Fix the typo")["id"])["status"], "completed");
}

TEST_F(SystemTest, WithoutAModelJobsFailWithAClearError) {
  server_->Terminate();
  StartServer(kReal, {});
  EXPECT_NE(server_->Log().find("no language model is configured"), std::string::npos);
  json job = WaitForEnd(CreateJob("Fix the typo")["id"]);
  EXPECT_EQ(job["status"], "failed");
  EXPECT_NE(job["error"].get<std::string>().find("DOCWRIGHT_LLM_PROVIDER"), std::string::npos);
}

// What an operator reads: why each failed turn failed, on one line, with UTC
// RFC 3339 times as the API gives them.
TEST_F(SystemTest, TheLogSaysWhyATurnFailedInUtcTimes) {
  json failed = WaitForEnd(CreateJob("[fail the remote said no\nforged: line]")["id"]);
  ASSERT_EQ(failed["status"], "failed");
  std::string wanted =
      "job " + failed["id"].get<std::string>() + ": turn 1 failed: the remote said no forged: line";
  EXPECT_TRUE(WaitUntil([&] { return server_->Log().find(wanted) != std::string::npos; }))
      << server_->Log();
  std::istringstream lines(server_->Log());
  std::string line;
  const std::regex stamped(
      R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (info|warning|error|debug|access) .*)");
  int seen = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("forged", 0) == 0) ADD_FAILURE() << "a reason broke the log's lines";
    EXPECT_TRUE(std::regex_match(line, stamped)) << line;
    ++seen;
  }
  EXPECT_GT(seen, 2);
  EXPECT_EQ(server_->Log().find(key_a_), std::string::npos);
}

// A model half configured is said at start, part by part, instead of failing
// each job later.
TEST_F(SystemTest, AHalfConfiguredModelIsWarnedOfAtStart) {
  server_->Terminate();
  StartServer(kReal, {},
              {"DOCWRIGHT_LLM_PROVIDER=openai", "DOCWRIGHT_LLM_BASE_URL=http://127.0.0.1:1/v1"});
  std::string log = server_->Log();
  EXPECT_NE(log.find("DOCWRIGHT_LLM_API_KEY is not set"), std::string::npos) << log;
  EXPECT_NE(log.find("DOCWRIGHT_MODEL is not set"), std::string::npos) << log;
  EXPECT_NE(log.find("the model provider at http://127.0.0.1:1/v1 cannot be reached"),
            std::string::npos)
      << log;
  server_->Terminate();
  const size_t earlier = server_->Log().size();  // the log file is appended to
  StartServer(kReal, {}, {"DOCWRIGHT_MODEL=docs-model"});
  log = server_->Log().substr(earlier);
  EXPECT_NE(log.find("DOCWRIGHT_MODEL is set but DOCWRIGHT_LLM_PROVIDER is not"), std::string::npos)
      << log;
  EXPECT_EQ(log.find("cannot be reached"), std::string::npos) << log;
}

TEST_F(SystemTest, SecretsNeverReachLogsOrResponses) {
  std::string with_token = Admin({"project", "create", "--org", org_a_, "--repository",
                                  "http://127.0.0.1:1/acme/docs.git", "--forge", "github",
                                  "--forge-token", "ghp_supersecret", "--no-check"})
                               .LastLine();
  std::vector<std::string> seen;  // every response body
  auto keep = [&](const HttpResult& r) {
    seen.push_back(r.body);
    return r;
  };
  for (const char* prompt : {"edit", "[fail broken]", "[throw]"}) {
    HttpResult r = keep(Post(Jobs(with_token), Prompt(prompt), key_a_));
    ASSERT_EQ(r.status, 201);
    std::string id = r.Json()["id"];
    ASSERT_TRUE(WaitUntil(
        [&] { return keep(Get(Job(with_token, id), key_a_)).Json()["status"] != "active"; }));
    keep(Get(Job(with_token, id) + "/messages", key_a_));
  }
  keep(Get("/v2/agent/" + with_token + "/jobs", key_a_));
  keep(Get("/v2/agent/" + project_a_ + "/jobs", "dw_" + std::string(43, 'Z')));
  server_->Terminate();
  seen.push_back(server_->Log());
  seen.push_back(RunCommand("/bin/cat", {dir_ / "serve.out"}).out);
  for (const std::string& text : seen) {
    EXPECT_EQ(text.find(key_a_), std::string::npos) << text;
    EXPECT_EQ(text.find("supersecret"), std::string::npos) << text;
    EXPECT_EQ(text.find(std::string(43, 'Z')), std::string::npos) << text;
  }
}

TEST_F(SystemTest, SigtermAnswersRequestsInFlight) {
  server_->Terminate();
  StartServer(kScripted, {"--io-threads", "2"});
  // Hold the database's write lock, so the POSTs below stay in flight.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir_ / "docwright.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  std::vector<std::thread> clients;
  std::vector<HttpResult> results(4);
  for (int i = 0; i < 4; ++i) {  // connections on both I/O threads
    clients.emplace_back([&, i, port = server_->port()] {
      HttpClient http(port);
      results[i] =
          http.Send("POST", Jobs(project_a_), Prompt("in flight [nochange]"),
                    {{"Authorization", "Bearer " + key_a_}, {"Content-Type", "application/json"}});
    });
  }
  // Time for the four requests to be read and wait on the lock: 400 ms was
  // too short under TSan on a loaded machine (one of four had been read).
  std::this_thread::sleep_for(milliseconds(3000));
  kill(server_->pid(), SIGTERM);
  std::this_thread::sleep_for(milliseconds(400));
  sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  for (auto& t : clients) t.join();
  for (const HttpResult& r : results) {
    EXPECT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(r.Header("connection"), "close");
  }
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(server_->Terminate(), 0) << server_->Log();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  StartServer(kScripted, {});
  EXPECT_EQ(Get("/v2/agent/" + project_a_ + "/jobs", key_a_).Json()["jobs"].size(), 4u);
}

}  // namespace
}  // namespace docwright::testing
