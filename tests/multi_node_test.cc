// Many nodes on one PostgreSQL database, end to end: two `serve` nodes and a
// `worker` node, each with its own data dir (its own mirrors), the real binary
// with the scripted agent, the test run's PostgreSQL server.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "store/store.h"
#include "support/postgres_database.h"
#include "support/secrets.h"
#include "support/service_fixture.h"
#include "support/sse_reader.h"
#include "support/test_tools.h"

namespace docwright::testing {
namespace {

using std::chrono::milliseconds;

// Appends a line: carried out twice, the page would show it twice.
constexpr const char* kInstruction = "Note the nodes [append quickstart.mdx Many nodes.]";

class MultiNodeTest : public ServiceTest {
 protected:
  void SetUp() override {
    std::string why;
    database_ = PostgresDatabase::Create(&why);
    DOCWRIGHT_REQUIRE_TOOL(database_ != nullptr, "no PostgreSQL server: " + why);
    remote_a_ = dir_ / "acme-docs.git";
    remote_b_ = dir_ / "globex-docs.git";
    MakeDocsRemote(remote_a_);
    MakeDocsRemote(remote_b_);
    auto store = OpenStore(database_->url(), testing::TestSecrets());
    ASSERT_TRUE(store.ok()) << store.status().message();
    AddTenant(**store, "acme", remote_a_, &org_a_, &key_a_, &project_a_);
    AddTenant(**store, "globex", remote_b_, &org_b_, &key_b_, &project_b_);
    Project roomy = *(*store)->GetProject(Scope{org_a_, project_a_});
    roomy.rate_limit_per_hour = 1000000;
    ASSERT_TRUE((*store)->UpdateProject(roomy).ok());
  }

  int64_t Count(const std::string& sql) override {
    return PostgresDatabase::Scalar(database_->url(), sql);
  }

  // A `serve` node with its own data dir; `workers` 0: the API only.
  std::unique_ptr<ServerProcess> StartNode(const std::string& name, int workers) {
    std::filesystem::create_directories(dir_ / name);  // where its log goes
    auto node = std::make_unique<ServerProcess>(
        kScripted, dir_ / name,
        std::vector<std::string>{"--database", database_->url(), "--workers",
                                 std::to_string(workers), "--lease-seconds", "1"});
    EXPECT_TRUE(node->Start()) << node->Log();
    return node;
  }

  // A `worker` node with its own data dir.
  void StartWorker(BackgroundProcess& process, const std::string& name, int workers) {
    process.Start(kScripted,
                  {"worker", "--data-dir", dir_ / name, "--database", database_->url(), "--workers",
                   std::to_string(workers), "--lease-seconds", "1"},
                  dir_ / (name + ".out"), dir_ / (name + ".log"));
  }

  std::string WorkerLog(const std::string& name) { return ReadFile(dir_ / (name + ".log")); }

  static std::string ReadFile(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  json GetVia(ServerProcess& node, const std::string& id) {
    HttpClient http(node.port());
    return http.Send("GET", Job(project_a_, id), "", Auth(key_a_)).Json();
  }

  json WaitForEndVia(ServerProcess& node, const std::string& id,
                     milliseconds timeout = milliseconds(60000)) {
    json job;
    bool ended = WaitUntil(
        [&] {
          job = GetVia(node, id);
          return job.is_object() && job.contains("status") && job["status"] != "active";
        },
        timeout);
    EXPECT_TRUE(ended) << "job " << id << " still active: " << job.dump();
    return job;
  }

  HttpResult PostVia(ServerProcess& node, const std::string& target, const std::string& prompt) {
    HttpClient http(node.port());
    Headers h = Auth(key_a_);
    h.emplace_back("Content-Type", "application/json");
    return http.Send("POST", target, Prompt(prompt), h);
  }

  std::unique_ptr<PostgresDatabase> database_;
};

// The issue's scenario: jobs and follow-ups created through both API nodes while
// the nodes running turns are killed at random and restarted. Every
// acknowledged job and message is there, every job ends, and every branch has
// exactly one pull request and the commits of its turns, once each.
TEST_F(MultiNodeTest, NodesKilledAtRandomLoseNothingAndEveryBranchHasOnePullRequest) {
  std::vector<std::unique_ptr<ServerProcess>> nodes;
  nodes.push_back(StartNode("node-a", 2));
  nodes.push_back(StartNode("node-b", 2));
  BackgroundProcess worker;
  StartWorker(worker, "node-w", 2);

  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("kill schedule seed " + std::to_string(seed));
  std::mt19937 random(seed);
  std::vector<std::string> ids;
  std::map<std::string, int> messages;  // acknowledged, per job
  auto next_kill = std::chrono::steady_clock::now() + milliseconds(300);
  int kills = 0;
  // Ten kills, and more than 20 jobs acknowledged: how many jobs fit between
  // kills depends on how fast the nodes restart (slower under a sanitizer, or
  // beside other tests), so the loop goes on until both hold.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(150);
  for (int i = 0; (kills < 10 || ids.size() <= 20) && std::chrono::steady_clock::now() < give_up;
       ++i) {
    ServerProcess& via = *nodes[i % 2];
    HttpResult r = PostVia(via, Jobs(project_a_), std::string("[sleep 40] ") + kInstruction);
    if (r.status == 201) {
      std::string id = r.Json()["id"];
      ids.push_back(id);
      messages[id] = 1;
      // A follow-up through the other node, while the turn may run anywhere.
      HttpResult f = PostVia(*nodes[(i + 1) % 2], Job(project_a_, id) + "/message",
                             "[sleep 20] Keep it short");
      if (f.status == 200 || f.status == 201 || f.status == 202) ++messages[id];
    }
    std::this_thread::sleep_for(milliseconds(10));
    if (kills < 10 && std::chrono::steady_clock::now() >= next_kill) {
      size_t victim = random() % 3;  // node a, node b or the worker
      if (victim < 2) {
        // Restarted on its data dir (and a new port) before posting goes on.
        nodes[victim]->Kill9();
        nodes[victim] = StartNode(victim == 0 ? "node-a" : "node-b", 2);
      } else {
        worker.Kill9();
        StartWorker(worker, "node-w", 2);
      }
      ++kills;
      next_kill = std::chrono::steady_clock::now() + milliseconds(200 + random() % 300);
    }
  }
  ASSERT_EQ(kills, 10);
  ASSERT_GT(ids.size(), 20u);
  size_t given_up = 0;
  for (const std::string& id : ids) {
    json job = WaitForEndVia(*nodes[0], id);
    const std::string branch = job["source"]["ref"];
    // Every acknowledged message is there.
    EXPECT_EQ(Count("SELECT COUNT(*) FROM messages WHERE job_id = '" + id + "'"), messages[id])
        << id;
    int64_t pulls = Count("SELECT COUNT(*) FROM pull_requests WHERE head = '" + branch + "'");
    if (job["status"] == "failed") {
      // Interrupted three times by the kills: given up by design, with at most
      // one pull request.
      EXPECT_NE(job["error"].get<std::string>().find("interrupted 3 times"), std::string::npos)
          << job.dump();
      EXPECT_LE(pulls, 1) << id;
      ++given_up;
      continue;
    }
    EXPECT_EQ(job["status"], "completed") << job.dump();
    EXPECT_EQ(pulls, 1) << id;
    // The instruction's line once per turn that appended it (the follow-up adds
    // none): a re-run after a kill did not append it again.
    std::string page = Sh("git --git-dir=" + remote_a_ + " show " + branch + ":quickstart.mdx");
    size_t lines = 0;
    for (size_t at = page.find("Many nodes."); at != std::string::npos;
         at = page.find("Many nodes.", at + 1)) {
      ++lines;
    }
    EXPECT_EQ(lines, 1u) << id << ":\n" << page;
  }
  EXPECT_LE(given_up * 4, ids.size());
  EXPECT_GT(Count("SELECT COUNT(*) FROM turns WHERE attempts > 1"), 0)
      << "the kills must land while turns run";
}

// An archive through one node stops the turn running on another at once (the
// archive is announced), well within a lease.
TEST_F(MultiNodeTest, AnArchiveThroughOneNodeStopsTheTurnRunningOnAnother) {
  auto api = StartNode("node-a", 0);
  BackgroundProcess worker;
  StartWorker(worker, "node-w", 2);
  HttpResult r = PostVia(*api, Jobs(project_a_), "[sleep 60000] Take your time");
  ASSERT_EQ(r.status, 201) << r.body;
  std::string id = r.Json()["id"];
  ASSERT_TRUE(WaitUntil([&] {
    return WorkerLog("node-w").find("job " + id + ": turn 1 started") != std::string::npos;
  })) << WorkerLog("node-w");
  HttpClient http(api->port());
  HttpResult archived = http.Send("POST", Job(project_a_, id) + "/archive", "", Auth(key_a_));
  ASSERT_EQ(archived.status / 100, 2) << archived.body;
  EXPECT_TRUE(WaitUntil(
      [&] {
        return WorkerLog("node-w").find("job " + id + ": turn 1 stopped: the job was archived") !=
               std::string::npos;
      },
      milliseconds(10000)))
      << WorkerLog("node-w");
  EXPECT_EQ(GetVia(*api, id)["status"], "archived");
  EXPECT_EQ(Count("SELECT COUNT(*) FROM turns WHERE job_id = '" + id + "' AND state = 'cancelled'"),
            1);
}

// A follow-up sent through one node while the turn runs on another is queued and
// runs next, in order, on whichever worker claims it.
TEST_F(MultiNodeTest, AFollowUpThroughAnotherNodeWhileTheTurnRunsIsQueuedAndRunsNextInOrder) {
  auto a = StartNode("node-a", 0);
  auto b = StartNode("node-b", 0);
  BackgroundProcess worker;
  StartWorker(worker, "node-w", 4);
  HttpResult r = PostVia(*a, Jobs(project_a_), "[sleep 1500] First");
  ASSERT_EQ(r.status, 201) << r.body;
  std::string id = r.Json()["id"];
  ASSERT_TRUE(WaitUntil([&] {
    return WorkerLog("node-w").find("job " + id + ": turn 1 started") != std::string::npos;
  })) << WorkerLog("node-w");
  HttpResult second = PostVia(*b, Job(project_a_, id) + "/message", "[sleep 100] Second");
  ASSERT_EQ(second.status / 100, 2) << second.body;
  HttpResult third = PostVia(*a, Job(project_a_, id) + "/message", "Third");
  ASSERT_EQ(third.status / 100, 2) << third.body;
  // Queued behind the running turn, through either node.
  EXPECT_EQ(Count("SELECT COUNT(*) FROM turns WHERE job_id = '" + id + "' AND state = 'queued'"),
            2);
  json job = WaitForEndVia(*b, id);
  EXPECT_EQ(job["status"], "completed") << job.dump();
  // Each turn started after the one before it ended.
  EXPECT_EQ(Count("SELECT COUNT(*) FROM turns t JOIN turns p ON p.job_id = t.job_id AND "
                  "p.seq = t.seq - 1 WHERE t.job_id = '" +
                  id + "' AND t.started_at >= p.finished_at AND t.state = 'succeeded'"),
            2);
  std::string log = WorkerLog("node-w");
  size_t one = log.find("job " + id + ": turn 1 succeeded");
  size_t two = log.find("job " + id + ": turn 2 started");
  size_t three = log.find("job " + id + ": turn 3 started");
  ASSERT_NE(one, std::string::npos) << log;
  ASSERT_NE(two, std::string::npos) << log;
  ASSERT_NE(three, std::string::npos) << log;
  EXPECT_LT(one, two);
  EXPECT_LT(two, three);
}

// Fairness across nodes: one organisation's backlog of 500 jobs, claimed by the
// workers of two nodes, does not delay another organisation's first job by more
// than one turn per worker.
TEST_F(MultiNodeTest, AnotherOrganisationsFirstJobWaitsForNoMoreThanOneTurnPerWorkerOfAnyNode) {
  constexpr int kWorkersPerNode = 2;
  auto api = StartNode("node-a", 0);
  BackgroundProcess w1, w2;
  StartWorker(w1, "node-w1", kWorkersPerNode);
  StartWorker(w2, "node-w2", kWorkersPerNode);
  std::atomic<int> left{500};
  std::vector<std::thread> clients;
  for (int c = 0; c < 8; ++c) {
    clients.emplace_back([&] {
      while (left.fetch_sub(1) > 0) {
        EXPECT_EQ(PostVia(*api, Jobs(project_a_), "backlog [sleep 100] [nochange]").status, 201);
      }
    });
  }
  for (auto& t : clients) t.join();
  HttpClient http(api->port());
  Headers h = Auth(key_b_);
  h.emplace_back("Content-Type", "application/json");
  HttpResult r = http.Send("POST", Jobs(project_b_), Prompt("the first job of another tenant"), h);
  ASSERT_EQ(r.status, 201) << r.body;
  std::string id = r.Json()["id"];
  ASSERT_TRUE(WaitUntil(
      [&] {
        return Count("SELECT COUNT(*) FROM jobs WHERE id = '" + id + "' AND status <> 'active'") ==
               1;
      },
      milliseconds(60000)));
  ExpectNewcomerWaitedForAtMost(project_a_, id, 2 * kWorkersPerNode);
}

// A password in the database URL reaches the server, never a log.
// A job's events reach streams on every node as they are written on one, and
// a stream dropped on one node resumes on another with nothing missed or
// repeated.
TEST_F(MultiNodeTest, EventStreamsFollowAJobAcrossNodesAndResumeOnAnother) {
  auto a = StartNode("node-a", 0);  // the API only: the turn runs on b
  auto b = StartNode("node-b", 1);
  const std::string hold = dir_ / "hold";
  HttpResult r = PostVia(*a, Jobs(project_a_), "[await " + hold + "] " + kInstruction);
  ASSERT_EQ(r.status, 201) << r.body;
  std::string id = r.Json()["id"];
  const std::string events = Job(project_a_, id) + "/events";
  const Headers auth = {{"Authorization", "Bearer " + key_a_}};

  std::vector<SseEvent> first;
  {
    SseReader on_a(a->port(), events, auth);
    ASSERT_EQ(on_a.status(), 200) << on_a.head();
    // turn.started is written by b's claim: it reaches a's stream.
    first = on_a.ReadUntilType("turn.started", milliseconds(30000));
    ASSERT_EQ(first.size(), 2u);
    EXPECT_EQ(first[1].type, "turn.started");
  }  // the connection drops
  std::ofstream(hold) << "go";
  SseReader on_b(b->port(), events,
                 {{"Authorization", "Bearer " + key_a_}, {"Last-Event-ID", first.back().id}});
  ASSERT_EQ(on_b.status(), 200) << on_b.head();
  const auto& rest = on_b.ReadUntilType("job.completed", milliseconds(60000));
  ASSERT_FALSE(rest.empty());
  ASSERT_EQ(rest.back().type, "job.completed");

  std::vector<SseEvent> joined = first;
  joined.insert(joined.end(), rest.begin(), rest.end());
  SseReader whole(a->port(), events, auth);
  const auto& all = whole.ReadUntil([&](const auto& got) { return got.size() >= joined.size(); },
                                    milliseconds(30000));
  ASSERT_EQ(all.size(), joined.size());
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(joined[i].id, std::to_string(i + 1)) << "nothing missed, nothing repeated";
    EXPECT_EQ(joined[i].data, all[i].data);
  }
}

TEST_F(MultiNodeTest, TheDatabasePasswordIsNeverLogged) {
  // The test server trusts its socket: the password is carried, not checked.
  std::string url = database_->url();
  url.replace(url.find("docwright@"), 10, "docwright:hunter2-db-secret@");
  std::filesystem::create_directories(dir_ / "node-p");  // where its log goes
  ServerProcess node(kScripted, dir_ / "node-p", {"--database", url, "--workers", "1"});
  ASSERT_TRUE(node.Start()) << node.Log();
  BackgroundProcess worker;
  worker.Start(kScripted,
               {"worker", "--data-dir", dir_ / "node-pw", "--database", url, "--workers", "1"},
               dir_ / "node-pw.out", dir_ / "node-pw.log");
  // Started (its log written with the URL, its SIGTERM handled) before the job:
  // the node's own worker may finish the job before this one is up, and a
  // SIGTERM that comes before a process handles it ends it at once.
  ASSERT_TRUE(
      WaitUntil([&] { return WorkerLog("node-pw").find("worker started") != std::string::npos; },
                milliseconds(60000)))
      << WorkerLog("node-pw");
  HttpResult r = PostVia(node, Jobs(project_a_), "Say hello");
  ASSERT_EQ(r.status, 201) << r.body;
  json job = WaitForEndVia(node, r.Json()["id"]);
  EXPECT_EQ(job["status"], "completed") << job.dump();
  EXPECT_EQ(worker.Terminate(), 0);
  EXPECT_EQ(node.Terminate(), 0);
  std::string logs = node.Log() + WorkerLog("node-pw");
  EXPECT_NE(logs.find("listening on"), std::string::npos) << logs;
  EXPECT_EQ(logs.find("hunter2-db-secret"), std::string::npos) << logs;
}

}  // namespace
}  // namespace docwright::testing
