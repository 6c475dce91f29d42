// Runaway turns, black-box: the real service and a scripted model on tenants'
// repositories of pathological shapes (support/hostile_repo.h). Each attack is a
// small repository or one model reply that once cost the node hours of CPU or
// gigabytes of memory. Asserted with generous limits: the job ends well before
// its deadline, memory stays under a bound (plain builds), another tenant's jobs
// keep completing, and the service stops when asked. Tight figures belong in
// bench/.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <thread>

#include "agent/tools.h"
#include "fakes/fake_model.h"
#include "support/hostile_repo.h"
#include "support/process_memory.h"
#include "support/service_fixture.h"

namespace docwright::testing {
namespace {

using std::chrono::milliseconds;
using Wire = FakeModelServer::Wire;

constexpr const char* kModelKey = "sk-test-model-secret";
// No attack may make a job take longer than this (the turn's deadline is 20
// minutes): a runaway one is still `active` then.
constexpr milliseconds kEndsWithin{120000};

FakeToolCall Call(std::string name, json arguments) {
  return FakeToolCall{std::move(name), std::move(arguments), std::nullopt};
}
FakeStep Step(std::vector<FakeToolCall> calls) {
  FakeStep s;
  s.tool_calls = std::move(calls);
  return s;
}
FakeToolCall Finish() { return Call("finish", {{"summary", "Done."}}); }

class RunawayTurnTest : public ServiceTest {
 protected:
  void StartDefaultServer() override {}  // each test starts its own, with its model

  void TearDown() override {
    if (model_) {
      for (const auto& v : model_->Violations()) ADD_FAILURE() << "off the provider's API: " << v;
    }
  }

  // The service, on two workers, with a model that follows `script`.
  void Start(std::vector<FakeStep> script) {
    model_ = std::make_unique<FakeModelServer>(Wire::kOpenAI, kModelKey, std::move(script));
    StartServer(
        kReal, {"--lease-seconds", "5", "--workers", "2"},
        {"DOCWRIGHT_LLM_PROVIDER=openai", "DOCWRIGHT_LLM_BASE_URL=" + model_->BaseUrl(),
         std::string("DOCWRIGHT_LLM_API_KEY=") + kModelKey, "DOCWRIGHT_MODEL=docs-model-1"});
  }

  // A project of organisation A on a repository of `shape` (hostile_repo.sh's
  // arguments).
  std::string HostileProject(const std::string& shape) {
    std::string bare = dir_ / ("hostile-" + std::to_string(++made_) + ".git");
    MakeHostileRepo(bare, shape);
    return Admin({"project", "create", "--org", org_a_, "--repository", bare}).LastLine();
  }

  std::string Create(const std::string& project, const std::string& key,
                     const std::string& prompt) {
    HttpResult r = Post(Jobs(project), Prompt(prompt), key);
    EXPECT_EQ(r.status, 201) << r.body;
    return r.Json().value("id", "");
  }

  json WaitForEnd(const std::string& project, const std::string& key, const std::string& id,
                  milliseconds timeout = kEndsWithin) {
    json job;
    EXPECT_TRUE(WaitUntil(
        [&] {
          job = Get(Job(project, id), key).Json();
          return job["status"] != "active";
        },
        timeout))
        << "still running: " << job;
    return job;
  }

  // The tool steps of a job's transcript.
  json ToolSteps(const std::string& project, const std::string& id) {
    json steps = json::array();
    json transcript = Get(Job(project, id) + "/messages", key_a_).Json();
    for (const auto& m : transcript["messages"]) {
      for (const auto& s : m["turn"]["steps"]) {
        if (s["type"] == "tool") steps.push_back(s);
      }
    }
    return steps;
  }

  // What the model was told of each tool call, in order, unbounded (the
  // transcript keeps 4 KiB of each): the tool messages of its last request.
  std::vector<std::string> ToolResults() {
    std::vector<std::string> out;
    auto requests = model_->Requests();
    if (requests.empty()) return out;
    for (const auto& m : requests.back()["messages"]) {
      if (m["role"] == "tool") out.push_back(m["content"]);
    }
    return out;
  }

  void ExpectPeakUnderBound() {
#ifndef DOCWRIGHT_SANITIZED
    // The peak a node may reach under any of these attacks: far below the
    // gigabytes they once cost, far above a node's usual 100 MB or so.
    constexpr int64_t kMaxPeakKib = 400 * 1024;
    int64_t peak = ProcKib(server_->pid(), "VmHWM");
    ASSERT_GT(peak, 0);
    RecordProperty("peak_kib", std::to_string(peak));
    EXPECT_LT(peak, kMaxPeakKib) << "peak resident memory of the node, KiB";
#endif
  }

  std::unique_ptr<FakeModelServer> model_;
  int made_ = 0;
};

// 10^9 symbolic links in 100 KB: the site map's walk skipped links without
// counting them and ran for hours. Every entry counts now: the turn reads what
// it needs and ends, archiving and shutting down stay prompt, and the other
// tenant's job is served meanwhile.
TEST_F(RunawayTurnTest, ATreeOfABillionLinksNeitherPinsAWorkerNorDelaysAnotherTenant) {
  Start({Step({Call("list_files", json::object()), Call("search", {{"pattern", "Welcome"}})}),
         Step({Finish()})});
  std::string bomb = HostileProject("tree-bomb --leaf link --fanout 1000 --depth 3");
  std::string id = Create(bomb, key_a_, "Tidy the docs");
  std::string other = Create(project_b_, key_b_, "Tidy the docs");
  json done = WaitForEnd(bomb, key_a_, id);
  EXPECT_EQ(done["status"], "completed") << done;
  EXPECT_EQ(WaitForEnd(project_b_, key_b_, other)["status"], "completed");
  json steps = ToolSteps(bomb, id);
  ASSERT_GE(steps.size(), 2u) << steps;
  EXPECT_NE(steps[0]["result"].get<std::string>().find("bomb/"), std::string::npos) << steps[0];
  EXPECT_NE(steps[1]["result"].get<std::string>().find("index.md:3: Welcome."), std::string::npos)
      << steps[1];

  // A second turn on the bomb, archived as soon as it starts: its work stops,
  // and the worker takes the next job.
  std::string archived = Create(bomb, key_a_, "Again");
  HttpResult r = Post(Job(bomb, archived) + "/archive", "", key_a_, "");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(WaitForEnd(project_b_, key_b_, Create(project_b_, key_b_, "Next"))["status"],
            "completed");
  // Nothing of the archived turn burns on: once its turn is no longer running,
  // the idle node uses next to no CPU.
  EXPECT_TRUE(WaitUntil(
      [&] {
        return Count("SELECT COUNT(*) FROM turns WHERE job_id = '" + archived +
                     "' AND state = 'running'") == 0;
      },
      kEndsWithin));
  std::this_thread::sleep_for(milliseconds(500));
  double before = CpuSeconds(server_->pid());
  std::this_thread::sleep_for(milliseconds(2000));
  EXPECT_LT(CpuSeconds(server_->pid()) - before, 1.0) << "CPU seconds used in 2 s of idling";
  ExpectPeakUnderBound();
  EXPECT_EQ(server_->Terminate(milliseconds(20000)), 0) << "stops within its grace period";
}

// The same shape with file leaves: list_files and search at the root collected
// the whole subtree (3 GB in 14 s on the way to the OOM killer). They are
// bounded by entries visited now, and say so.
TEST_F(RunawayTurnTest, ATreeOfABillionFilesIsListedAndSearchedWithinBounds) {
  Start({Step({Call("list_files", json::object()), Call("list_files", {{"path", "bomb"}}),
               Call("search", {{"pattern", "needle"}}),
               Call("search", {{"pattern", "x"}, {"path", "bomb/d0000"}})}),
         Step({Finish()})});
  std::string bomb = HostileProject("tree-bomb --leaf file --fanout 1000 --depth 3");
  std::string id = Create(bomb, key_a_, "Tidy the docs");
  json done = WaitForEnd(bomb, key_a_, id);
  EXPECT_EQ(done["status"], "completed") << done;
  EXPECT_EQ(ToolSteps(bomb, id).size(), 5u);
  std::vector<std::string> told = ToolResults();
  ASSERT_EQ(told.size(), 4u);
  EXPECT_EQ(told[0], "bomb/\nindex.md\n");
  EXPECT_NE(told[1].find("[500 more entries not shown]"), std::string::npos) << told[1];
  EXPECT_EQ(told[2],
            "no matches so far\n[only the first 1 files were searched; narrow the path]\n");
  EXPECT_NE(told[3].find("bomb/d0000/d0000/f0000.md:1: x\n"), std::string::npos) << told[3];
  EXPECT_NE(told[3].find("only the first 100 matches are shown"), std::string::npos) << told[3];
  ExpectPeakUnderBound();
}

// 20,000 paths to one 1 MiB blob in a 300 KB repository: one search scanned 20
// GB. Each blob is searched once now, so the search answers at once.
TEST_F(RunawayTurnTest, ManyPathsToOneLargeBlobAreSearchedOnce) {
  Start({Step({Call("search", {{"pattern", "search me$"}}),
               Call("search", {{"pattern", "nowhere to be found"}})}),
         Step({Finish()})});
  std::string project = HostileProject("one-blob --paths 20000 --size 1048576");
  std::string id = Create(project, key_a_, "Find it");
  json done = WaitForEnd(project, key_a_, id);
  EXPECT_EQ(done["status"], "completed") << done;
  std::vector<std::string> told = ToolResults();
  ASSERT_EQ(told.size(), 2u);
  EXPECT_NE(told[0].find("many/p0000/page00000.md:1: line 00001 of the same page: search me\n"),
            std::string::npos)
      << told[0].substr(0, 500);
  EXPECT_NE(told[0].find("only the first 100 matches are shown"), std::string::npos);
  // Every path names the one blob: the walk stops at its cap of files, and says so.
  EXPECT_EQ(told[1],
            "no matches so far\n[only the first 20000 files were searched; narrow the path]\n");
  ExpectPeakUnderBound();
}

// Deleting a 40 MiB file of short lines peaked at 2 GB: the pull request's
// diff compared it line by line. A large file is named with its sizes now.
TEST_F(RunawayTurnTest, AHugeFileDeletedIsShownAsALargeFileChangedNotDiffed) {
  Start({Step({Call("delete_file", {{"path", "big/data.md"}})}), Step({Finish()})});
  std::string project = HostileProject("big-file --size 41943040");
  std::string id = Create(project, key_a_, "Remove the data dump");
  json done = WaitForEnd(project, key_a_, id);
  ASSERT_EQ(done["status"], "completed") << done;
  ASSERT_TRUE(done["prLink"].is_string()) << done;
  HttpResult page = client_->Send("GET", PathOf(done["prLink"]));
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("large file changed: 41943040 bytes before, 0 bytes after"),
            std::string::npos);
  ExpectPeakUnderBound();
}

// The generator's other shapes: a file 2,000 folders down, a thousand names of
// 250 bytes, a hundred thousand branches. Each is read, listed, searched and
// committed beside within bounds; the project is made (its branches listed)
// and each job completes.
TEST_F(RunawayTurnTest, DeepFoldersLongNamesAndManyBranchesAreServedWithinBounds) {
  Start({Step({Call("list_files", json::object()), Call("list_files", {{"path", "long"}}),
               Call("search", {{"pattern", "bottom|long name"}}),
               Call("write_file", {{"path", "notes.md"}, {"content", "# Notes\n"}})}),
         Step({Finish()})});
  for (const char* shape :
       {"deep --depth 2000", "long-names --count 1000 --length 250", "many-refs --count 100000"}) {
    std::string project = HostileProject(shape);
    std::string id = Create(project, key_a_, "Add notes");
    json done = WaitForEnd(project, key_a_, id);
    EXPECT_EQ(done["status"], "completed") << shape << ": " << done;
    EXPECT_TRUE(done["prLink"].is_string()) << shape;
    for (const std::string& told : ToolResults()) {
      EXPECT_LE(told.size(), agent::kMaxToolOutputBytes + 200) << shape;
    }
  }
  std::vector<std::string> told = ToolResults();  // the many-refs job's
  ASSERT_EQ(told.size(), 4u);
  ExpectPeakUnderBound();
}

// One reply of 50,000 tool calls: every call was recorded as a step and sent
// back to the model (a gigabyte, and 126 MiB of database for one failed turn).
// The first 32 are carried out; the rest are refused in one note.
TEST_F(RunawayTurnTest, AReplyOfFiftyThousandToolCallsIsCutToThirtyTwo) {
  FakeStep flood;
  for (int i = 0; i < 50000; ++i)
    flood.tool_calls.push_back(Call("read_file", {{"path", "index.md"}}));
  Start({flood, Step({Finish()})});
  std::string id = Create(project_a_, key_a_, "Read the home page");
  json done = WaitForEnd(project_a_, key_a_, id);
  EXPECT_EQ(done["status"], "completed") << done;
  json steps = ToolSteps(project_a_, id);
  ASSERT_EQ(steps.size(), 33u);  // 32 reads and the finish
  EXPECT_NE(steps[31]["result"].get<std::string>().find(
                "49968 further tool calls of this reply were refused"),
            std::string::npos)
      << steps[31];
  // The model's next request carries the 32 calls and their results only.
  auto requests = model_->Requests();
  ASSERT_GE(requests.size(), 2u);
  EXPECT_LT(requests[1].dump().size(), 200000u);
  EXPECT_LT(std::filesystem::file_size(dir_ / "docwright.db") +
                (std::filesystem::exists(dir_ / "docwright.db-wal")
                     ? std::filesystem::file_size(dir_ / "docwright.db-wal")
                     : 0),
            16u << 20);
  ExpectPeakUnderBound();
}

}  // namespace
}  // namespace docwright::testing
