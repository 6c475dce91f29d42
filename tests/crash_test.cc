// Crash safety at every named crash point (core/crash_point.h): the real binary
// is started with DOCWRIGHT_CRASH_AT set, dies there (SIGKILL, as kill -9) in
// the middle of a turn, and is started again without it. The job must then end
// completed, with exactly one commit of its turn on its branch and exactly one
// pull request, nothing left behind that a person must clean, on a bare
// repository on disk and on a smart-HTTP remote. And a lock on the branch that
// someone else holds is waited for, reported, and never taken away.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <random>
#include <set>
#include <thread>

#include "core/crash_point.h"
#include "support/git_http_server.h"
#include "support/secrets.h"
#include "support/service_fixture.h"
#include "support/webhook_receiver.h"

namespace docwright::testing {
namespace {

using std::chrono::milliseconds;
namespace fs = std::filesystem;

constexpr const char* kToken = "tok_crash";
constexpr const char* kInstruction =
    "Say it is crash-safe [append quickstart.mdx It is crash-safe.]";

// A git process holding the lock of a branch in the remote, as `git push` or
// `git update-ref` does while it updates it: it holds it until told to commit.
class ForeignRefLock {
 public:
  ForeignRefLock(const std::string& remote, const std::string& branch, const std::string& value)
      : lock_(remote + "/refs/heads/" + branch + ".lock") {
    git_ = popen(("git --git-dir=" + remote + " update-ref --stdin >/dev/null").c_str(),
                 "we");  // e: not inherited by the server
    std::string commands = "start\ncreate refs/heads/" + branch + " " + value + "\nprepare\n";
    fputs(commands.c_str(), git_);
    fflush(git_);
    EXPECT_TRUE(WaitUntil([&] { return fs::exists(lock_); })) << "git did not lock " << branch;
  }
  // Lets the git process move the branch; its exit code.
  int Commit() {
    fputs("commit\n", git_);
    int rc = pclose(git_);
    git_ = nullptr;
    return rc;
  }
  ~ForeignRefLock() {
    if (git_) pclose(git_);  // end of input without "commit": git aborts
  }
  const std::string& path() const { return lock_; }

 private:
  std::string lock_;
  FILE* git_ = nullptr;
};

class CrashTest : public ServiceTest {
 protected:
  void StartDefaultServer() override {}  // each test starts its own

  // The project the turn runs on: the fixture's bare repository, or the same
  // content served over smart HTTP.
  void UseRemote(bool http) {
    remote_ = remote_a_;
    if (http) {
      remote_ = dir_ / "served/docs.git";
      MakeDocsRemote(remote_);
      git_server_ = std::make_unique<GitHttpServer>(dir_ / "served", kToken);
    }
    auto store =
        OpenSqliteStore(dir_ / "docwright.db", testing::KeyFileSecrets(dir_ / "secret.key"));
    ASSERT_TRUE(store.ok()) << store.status().message();
    Project p;
    p.org_id = org_a_;
    p.repository = http ? git_server_->Url("docs.git") : remote_;
    p.base_ref = "main";
    if (http) p.forge_token = kToken;
    p.rate_limit_per_hour = 1000000;
    auto made = (*store)->CreateProject(p);
    ASSERT_TRUE(made.ok()) << made.status().message();
    project_ = made->id;
  }

  // Starts the server with `point` armed, posts a job, and waits for the process
  // to die there. Returns the job.
  json CrashAt(const std::string& point) {
    StartServer(kScripted, {"--lease-seconds", "1"}, {"DOCWRIGHT_CRASH_AT=" + point});
    // An instruction that changes the page again if carried out twice.
    HttpResult r = Post(Jobs(project_), Prompt(kInstruction), key_a_);
    EXPECT_TRUE(WaitUntil([&] { return !server_->Running(); }, milliseconds(30000)))
        << "the server did not reach " << point << ":\n"
        << server_->Log();
    EXPECT_NE(server_->Log().find("crash point " + point + " reached"), std::string::npos)
        << server_->Log();
    if (r.status == 201) return r.Json();
    // The turn starts as soon as the job is written, and may reach the point
    // before the create's answer goes out: then there is no answer, and the job
    // is the one the store holds.
    EXPECT_EQ(r.status, 0) << r.body;
    return JobInStore();
  }

  // The one job of the store, as a create answers it (its id and branch).
  json JobInStore() {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open((dir_ / "docwright.db").c_str(), &db), SQLITE_OK);
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, "SELECT id, ref FROM jobs", -1, &stmt, nullptr), SQLITE_OK);
    json job;
    int rows = 0;
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      ++rows;
      job =
          json{{"id", reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0))},
               {"source", {{"ref", reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1))}}}};
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    EXPECT_EQ(rows, 1);
    return job;
  }

  json WaitForEndOf(const std::string& id) {
    json job;
    bool ended = WaitUntil(
        [&] {
          HttpResult r = Get(Job(project_, id), key_a_);
          job = r.Json();
          return r.status == 200 && job["status"] != "active";
        },
        milliseconds(30000));
    EXPECT_TRUE(ended) << "job " << id << " still active: " << job.dump() << server_->Log();
    return job;
  }

  // Files under `dir` whose names end in `suffix`.
  static std::vector<std::string> FilesEndingIn(const std::string& dir, const std::string& suffix) {
    std::vector<std::string> found;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->path().string().ends_with(suffix)) found.push_back(it->path());
    }
    return found;
  }

  // The job ended completed, with one commit of its turn on its branch, on top
  // of main, and one pull request; no lock is left in the remote or the mirror.
  void ExpectConverged(const json& created) {
    const std::string id = created["id"];
    const std::string branch = created["source"]["ref"];
    json job = WaitForEndOf(id);
    EXPECT_EQ(job["status"], "completed") << job.dump() << server_->Log();
    ExpectLocalPullRequestLink(job["prLink"]);
    std::string git = "git --git-dir=" + remote_;
    EXPECT_EQ(Sh(git + " rev-list --count main.." + branch), "1");
    EXPECT_NE(Sh(git + " log -1 --format=%B " + branch)
                  .find("Docwright-Job: " + id + "\nDocwright-Message: 1"),
              std::string::npos);
    std::string page = ShowFile(remote_, branch + ":quickstart.mdx");
    EXPECT_TRUE(page.ends_with("Instal the CLI.\nIt is crash-safe.")) << page;
    EXPECT_EQ(Count("SELECT COUNT(*) FROM pull_requests WHERE head = '" + branch + "'"), 1);
    EXPECT_EQ(Count("SELECT COUNT(*) FROM turns WHERE state = 'succeeded'"), 1);
    ExpectNothingLeft();
  }

  // No lock in the remote or in the mirror, no temporary pack in the mirror, and
  // a remote that git finds whole.
  void ExpectNothingLeft() {
    Sh("git --git-dir=" + remote_ + " fsck --strict --no-dangling");
    EXPECT_EQ(FilesEndingIn(remote_ + "/refs", ".lock"), std::vector<std::string>{});
    std::string mirror = dir_ / ("mirrors/" + project_ + ".git");
    EXPECT_EQ(FilesEndingIn(mirror + "/refs", ".lock"), std::vector<std::string>{});
    // A pack is part of a repository once named pack-<id>; anything else in
    // objects/pack is a transfer's temporary file.
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(mirror + "/objects/pack", ec)) {
      EXPECT_TRUE(e.path().filename().string().starts_with("pack-")) << e.path();
    }
  }

  // The job `created` ended failed, saying another process holds its branch's
  // lock; that lock is still there, and its holder then moves the branch to `to`.
  void ExpectFailedBehind(ForeignRefLock& foreign, const json& created, const std::string& to) {
    json done = WaitForEndOf(created["id"]);
    EXPECT_EQ(done["status"], "failed") << done.dump();
    EXPECT_NE(done.dump().find("holds git's lock on the branch"), std::string::npos) << done.dump();
    EXPECT_TRUE(fs::exists(foreign.path()));
    EXPECT_EQ(foreign.Commit(), 0);
    EXPECT_EQ(Sh("git --git-dir=" + remote_ + " rev-parse " +
                 created["source"]["ref"].get<std::string>()),
              to);
  }

  std::string project_, remote_;
  std::unique_ptr<GitHttpServer> git_server_;
};

struct Point {
  const char* name;
  bool on_disk;  // reached when the remote is a bare repository on disk
  bool over_http;
};

// Every crash point a turn passes, and which remotes reach it (the remote's ref
// lock is docwright's own only on disk; a transfer only over a transport).
constexpr Point kPoints[] = {
    {"fetch.transfer", false, true},
    {"commit.written", true, true},
    {"push.transfer", false, true},
    {"push.objects-copied", true, false},
    {"push.ref-locked", true, false},
    {"push.ref-moved", true, true},
    {"pr.opened", true, true},
    {"store.turn-recording", true, true},
    {"local-pr.recording", true, true},
    // Not reached by a turn: the webhook deliveries' own case is below.
    {"webhook.claimed", false, false},
};

class CrashPointTest : public CrashTest,
                       public ::testing::WithParamInterface<std::tuple<std::string, bool>> {};

TEST_P(CrashPointTest, TheNextStartCompletesTheJobWithOneCommitAndOnePullRequest) {
  const auto& [point, http] = GetParam();
  UseRemote(http);
  json job = CrashAt(point);
  if (point == "push.ref-locked") {
    // What used to fail the re-run for good: git's lock on the branch.
    EXPECT_TRUE(
        fs::exists(remote_ + "/refs/heads/" + job["source"]["ref"].get<std::string>() + ".lock"));
  }
  StartServer(kScripted, {"--lease-seconds", "1"});
  ExpectConverged(job);
}

std::vector<std::tuple<std::string, bool>> Cases() {
  std::vector<std::tuple<std::string, bool>> cases;
  for (const Point& p : kPoints) {
    if (p.on_disk) cases.emplace_back(p.name, false);
    if (p.over_http) cases.emplace_back(p.name, true);
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(EveryPoint, CrashPointTest, ::testing::ValuesIn(Cases()),
                         [](const auto& info) {
                           std::string name = std::get<0>(info.param);
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name + (std::get<1>(info.param) ? "_OverHttp" : "_OnDisk");
                         });

TEST(CrashPointList, EveryPointHasACase) {
  std::set<std::string> tested;
  for (const Point& p : kPoints) tested.insert(p.name);
  for (std::string_view point : kCrashPoints) {
    EXPECT_EQ(tested.count(std::string(point)), 1u) << point << " has no crash test";
  }
}

TEST_F(CrashTest, AnEventCommittedButNotDeliveredWhenTheProcessDiesIsDeliveredAfterARestart) {
  UseRemote(false);
  WebhookReceiver receiver({});
  json made = json::parse(Admin({"project", "webhook", "add", project_, "--url", receiver.Url(),
                                 "--events", "job.created", "--json"})
                              .out);
  receiver.AddSecret(made["secret"]);
  // The claim of a dead process is taken over after its lease: 2 * 1 s + 5 s.
  const std::vector<std::string> args = {
      "--lease-seconds",      "1",   "--webhook-allow-private", "--webhook-timeout", "1",
      "--webhook-retry-base", "0.05"};
  StartServer(kScripted, args, {"DOCWRIGHT_CRASH_AT=webhook.claimed"});
  // The process may die before it answers: the create is retried under its
  // idempotency key once it is back, and answered with the job it made.
  const Headers create_headers = {{"Authorization", "Bearer " + key_a_},
                                  {"Content-Type", "application/json"},
                                  {"Idempotency-Key", "create-once"}};
  HttpResult created =
      client_->Send("POST", Jobs(project_), Prompt("Fix the typo"), create_headers);
  ASSERT_TRUE(created.status == 201 || created.status == 0) << created.body;
  ASSERT_TRUE(WaitUntil([&] { return !server_->Running(); }, milliseconds(30000)))
      << server_->Log();
  EXPECT_NE(server_->Log().find("crash point webhook.claimed reached"), std::string::npos)
      << server_->Log();
  EXPECT_TRUE(receiver.Requests().empty());
  StartServer(kScripted, args);
  created = client_->Send("POST", Jobs(project_), Prompt("Fix the typo"), create_headers);
  ASSERT_EQ(created.status, 201) << created.body;
  ASSERT_TRUE(receiver.WaitForAccepted(1, milliseconds(30000))) << server_->Log();
  json event = receiver.Accepted()[0];
  EXPECT_EQ(event["type"], "job.created");
  EXPECT_EQ(event["jobId"], created.Json()["id"]);
  EXPECT_EQ(receiver.Problems(), std::vector<std::string>{});
}

TEST_F(CrashTest, ALockSomeoneElseHoldsOnTheBranchIsWaitedForThenReportedNeverTaken) {
  UseRemote(false);
  StartServer(kScripted, {"--lease-seconds", "1"});
  json job = Post(Jobs(project_), Prompt("Note the lock [sleep 3000]"), key_a_).Json();
  std::string branch = job["source"]["ref"];
  std::string main = Sh("git --git-dir=" + remote_ + " rev-parse main");
  ForeignRefLock foreign(remote_, branch, main);
  ExpectFailedBehind(foreign, job, main);
}

TEST_F(CrashTest, ALockTakenByAnotherWriterSinceTheCrashIsNotTakenForTheDeadOne) {
  UseRemote(false);
  json job = CrashAt("push.ref-locked");
  std::string branch = job["source"]["ref"];
  std::string lock = remote_ + "/refs/heads/" + branch + ".lock";
  ASSERT_TRUE(fs::exists(lock));
  // Someone removes the dead process's lock by hand, and a git process takes
  // the branch's lock before docwright starts again.
  fs::remove(lock);
  std::string main = Sh("git --git-dir=" + remote_ + " rev-parse main");
  ForeignRefLock foreign(remote_, branch, main);
  StartServer(kScripted, {"--lease-seconds", "1"});
  ExpectFailedBehind(foreign, job, main);
}

TEST_F(CrashTest, WorkersKilledAtRandomMomentsLeaveNothingThatStopsTheReRuns) {
  // Where the stale branch lock was first seen: worker processes sharing one
  // store, one data dir and one bare repository, killed at random while they
  // push. Every job must still end completed, with one commit and one pull
  // request, and no lock may be left in the remote.
  UseRemote(false);
  StartServer(kScripted, {"--workers", "0"});  // the API only
  std::vector<std::unique_ptr<BackgroundProcess>> workers;
  auto start = [&](size_t i) {
    workers[i]->Start(
        kScripted, {"worker", "--data-dir", dir_.path(), "--workers", "2", "--lease-seconds", "1"},
        dir_ / ("worker-" + std::to_string(i) + ".out"),
        dir_ / ("worker-" + std::to_string(i) + ".log"));
  };
  for (size_t i = 0; i < 3; ++i) {
    workers.push_back(std::make_unique<BackgroundProcess>());
    start(i);
  }
  // Jobs keep coming while the workers are killed, so that kills land while
  // turns fetch, commit and push.
  std::vector<std::string> ids;
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("kill schedule seed " + std::to_string(seed));
  std::mt19937 random(seed);
  auto next_kill = std::chrono::steady_clock::now();
  for (int kills = 0; kills < 15;) {
    HttpResult r = Post(Jobs(project_), Prompt(std::string("[sleep 40] ") + kInstruction), key_a_);
    ASSERT_EQ(r.status, 201) << r.body;
    ids.push_back(r.Json()["id"]);
    std::this_thread::sleep_for(milliseconds(10));
    if (std::chrono::steady_clock::now() >= next_kill) {
      size_t victim = random() % workers.size();
      workers[victim]->Kill9();
      start(victim);
      ++kills;
      next_kill = std::chrono::steady_clock::now() + milliseconds(150 + random() % 200);
    }
  }
  // A turn the kills interrupt three times is given up by design (see "Leases
  // and crash recovery" in docs/operations.md): its job fails with that error,
  // and has at most one commit and one pull request. Every other job completes.
  size_t given_up = 0;
  for (const std::string& id : ids) {
    json job = WaitForEndOf(id);
    std::string branch = job["source"]["ref"];
    std::string git = "git --git-dir=" + remote_;
    int64_t pulls = Count("SELECT COUNT(*) FROM pull_requests WHERE head = '" + branch + "'");
    if (job["status"] == "failed" &&
        job["error"] ==
            "the turn was interrupted 3 times (worker crashed or lost its lease); "
            "giving up") {
      ++given_up;
      if (!Sh(git + " for-each-ref refs/heads/" + branch).empty()) {
        EXPECT_EQ(Sh(git + " rev-list --count main.." + branch), "1") << id;
      }
      EXPECT_LE(pulls, 1) << id;
      continue;
    }
    EXPECT_EQ(job["status"], "completed") << job.dump();
    EXPECT_EQ(Sh(git + " rev-list --count main.." + branch), "1") << id;
    EXPECT_EQ(pulls, 1) << id;
  }
  EXPECT_LE(given_up * 4, ids.size()) << "a quarter of the turns were given up";
  ExpectNothingLeft();
  EXPECT_GT(Count("SELECT COUNT(*) FROM turns WHERE attempts > 1"), 0)
      << "the kills must land while turns run";
}

TEST_F(CrashTest, AnUnknownCrashPointIsRefusedAtStart) {
  ServerProcess server(kScripted, dir_.path(), {}, {"DOCWRIGHT_CRASH_AT=push.ref-lockd"});
  EXPECT_FALSE(server.Start());
  EXPECT_NE(server.Log().find("names no crash point: push.ref-lockd"), std::string::npos)
      << server.Log();
}

}  // namespace
}  // namespace docwright::testing
