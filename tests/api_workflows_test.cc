// Workflows and context repositories over real HTTP (docs/api.md, "Workflows",
// "Context repositories"): definitions made, read, changed and removed; the
// rules a definition must follow; who may do what; file-defined workflows and
// name clashes; runs by hand (started, queued behind a run under way, refused
// past the daily limit) and the job's trigger. Every answer is also checked
// against docs/openapi.json by the fixture.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "core/api_key.h"
#include "core/workflow.h"
#include "support/service_fixture.h"

namespace docwright::testing {
namespace {

class WorkflowApiTest : public ServiceTest {
 protected:
  std::string Workflows(const std::string& project) {
    return "/v2/agent/" + project + "/workflows";
  }
  std::string Context(const std::string& project) { return "/v2/agent/" + project + "/context"; }

  HttpResult Send(const std::string& method, const std::string& target, const std::string& body,
                  const std::string& key) {
    Headers h = Auth(key);
    if (!body.empty()) h.emplace_back("Content-Type", "application/json");
    return client_->Send(method, target, body, h);
  }

  json CreateWorkflow(const json& definition, const std::string& key = "") {
    HttpResult r = Post(Workflows(project_a_), definition.dump(), key.empty() ? key_a_ : key);
    EXPECT_EQ(r.status, 201) << r.body;
    return r.Json();
  }

  // A key of organisation A made as `key create --role member` makes one.
  std::string MemberKey() {
    auto store = OpenSqliteStore(dir_ / "docwright.db", KeyFileSecrets(dir_ / "secret.key"));
    EXPECT_TRUE(store.ok()) << store.status().message();
    GeneratedApiKey k = GenerateApiKey(org_a_, "writer", KeyRole::kMember);
    EXPECT_TRUE((*store)->CreateApiKey(k.record).ok());
    return k.secret;
  }
};

TEST_F(WorkflowApiTest, DefinitionsAreMadeReadChangedAndRemoved) {
  HttpResult empty = Get(Workflows(project_a_), key_a_);
  ASSERT_EQ(empty.status, 200) << empty.body;
  EXPECT_EQ(empty.Json(), json({{"workflows", json::array()}}));

  // Through the API a context repository is one on the project's own forge
  // host: the project's credentials go nowhere else, and nothing on this
  // machine is read (another tenant's repository, say).
  ExpectError(
      Post(Context(project_a_), json{{"name", "sdk"}, {"repository", remote_b_}}.dump(), key_a_),
      400, "a path on this machine, while the project's is one too");
  {
    auto store = OpenSqliteStore(dir_ / "docwright.db", KeyFileSecrets(dir_ / "secret.key"));
    ASSERT_TRUE(store.ok()) << store.status().message();
    auto p = (*store)->GetProject(Scope{org_a_, project_a_});
    ASSERT_TRUE(p.ok());
    // A port nothing listens on: the engine's polls of it fail at once.
    p->repository = "http://127.0.0.1:1/acme/docs.git";
    ASSERT_TRUE((*store)->UpdateProject(*p).ok());
  }
  for (const char* elsewhere :
       {"https://127.0.0.1:1/acme/sdk.git", "http://127.0.0.2:1/acme/sdk.git",
        "http://127.0.0.1:2/acme/sdk.git", "http://user@127.0.0.1:1/acme/sdk.git",
        "git@127.0.0.1:acme/sdk.git"}) {
    ExpectError(
        Post(Context(project_a_), json{{"name", "sdk"}, {"repository", elsewhere}}.dump(), key_a_),
        400, elsewhere);
  }
  const std::string sdk = "http://127.0.0.1:1/acme/sdk.git";
  HttpResult repo =
      Post(Context(project_a_),
           json{{"name", "sdk"}, {"repository", sdk}, {"branch", "main"}}.dump(), key_a_);
  ASSERT_EQ(repo.status, 201) << repo.body;
  EXPECT_EQ(repo.Json()["name"], "sdk");
  EXPECT_EQ(repo.Json()["repository"], sdk);
  EXPECT_EQ(repo.Json()["branch"], "main");
  ExpectError(Post(Context(project_a_), json{{"name", "sdk"}, {"repository", sdk}}.dump(), key_a_),
              409, "a name the project has");
  json repos = Get(Context(project_a_), key_a_).Json();
  ASSERT_EQ(repos["repositories"].size(), 1u) << repos;

  json merge = CreateWorkflow({{"name", "api-changes"},
                               {"title", "API changes"},
                               {"prompt", "Update the API pages"},
                               {"trigger", {{"kind", "merge"}, {"repository", "sdk"}}},
                               {"context", {"sdk"}},
                               {"runsPerDay", 5}});
  EXPECT_EQ(merge["name"], "api-changes");
  EXPECT_EQ(merge["title"], "API changes");
  EXPECT_EQ(merge["source"], "api");
  EXPECT_TRUE(merge["file"].is_null());
  EXPECT_TRUE(merge["error"].is_null());
  EXPECT_EQ(merge["trigger"],
            json({{"kind", "merge"}, {"repository", "sdk"}, {"branch", nullptr}}));
  EXPECT_EQ(merge["context"], json::array({"sdk"}));
  EXPECT_TRUE(merge["publish"].is_null());
  EXPECT_TRUE(merge["model"].is_null());
  EXPECT_EQ(merge["runsPerDay"], 5);
  EXPECT_EQ(merge["enabled"], true);
  EXPECT_EQ(merge["clash"], false);
  EXPECT_TRUE(merge["nextRunAt"].is_null()) << "not a schedule";
  EXPECT_TRUE(merge["lastRun"].is_null());
  ExpectError(
      Post(Workflows(project_a_), json{{"name", "api-changes"}, {"prompt", "p"}}.dump(), key_a_),
      409, "a name an API-defined workflow has");

  json weekly = CreateWorkflow(
      {{"name", "weekly"},
       {"prompt", "Check the links"},
       {"publish", "automerge"},
       {"trigger", {{"kind", "schedule"}, {"cron", "0 9 * * 1"}, {"timeZone", "Europe/Berlin"}}}});
  EXPECT_EQ(weekly["publish"], "automerge");
  ASSERT_TRUE(weekly["nextRunAt"].is_string()) << weekly;
  // Monday 09:00 in Berlin: 08:00 or 07:00 UTC.
  EXPECT_TRUE(std::regex_match(weekly["nextRunAt"].get<std::string>(),
                               std::regex(R"(\d{4}-\d\d-\d\dT0[78]:00:00\.000Z)")))
      << weekly["nextRunAt"];

  json list = Get(Workflows(project_a_), key_a_).Json();
  ASSERT_EQ(list["workflows"].size(), 2u) << list;
  EXPECT_EQ(list["workflows"][0]["name"], "api-changes");
  EXPECT_EQ(list["workflows"][1]["name"], "weekly");
  HttpResult got = Get(Workflows(project_a_) + "/weekly", key_a_);
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(got.Json(), weekly);

  HttpResult patched = Send("PATCH", Workflows(project_a_) + "/weekly",
                            json{{"enabled", false}, {"title", "Weekly links"}}.dump(), key_a_);
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(patched.Json()["enabled"], false);
  EXPECT_EQ(patched.Json()["title"], "Weekly links");
  EXPECT_EQ(patched.Json()["prompt"], "Check the links") << "fields not given are kept";
  EXPECT_EQ(patched.Json()["trigger"], weekly["trigger"]);
  EXPECT_TRUE(patched.Json()["nextRunAt"].is_null()) << "a disabled schedule does not fire";
  ExpectError(
      Send("PATCH", Workflows(project_a_) + "/weekly", json{{"name", "daily"}}.dump(), key_a_), 400,
      "name cannot change");
  ExpectError(
      Send("PATCH", Workflows(project_a_) + "/nothing", json{{"enabled", true}}.dump(), key_a_),
      404, "no such workflow");

  HttpResult runs = Get(Workflows(project_a_) + "/weekly/runs?limit=5", key_a_);
  ASSERT_EQ(runs.status, 200) << runs.body;
  EXPECT_EQ(runs.Json(), json({{"runs", json::array()}}));
  ExpectError(Get(Workflows(project_a_) + "/weekly/runs?limit=0", key_a_), 400, "limit");

  ExpectError(Send("DELETE", Context(project_a_) + "/sdk", "", key_a_), 409,
              "a workflow names the repository");
  EXPECT_EQ(Send("DELETE", Workflows(project_a_) + "/api-changes", "", key_a_).status, 204);
  ExpectError(Get(Workflows(project_a_) + "/api-changes", key_a_), 404, "deleted");
  EXPECT_EQ(Send("DELETE", Context(project_a_) + "/sdk", "", key_a_).status, 204);
  ExpectError(Send("DELETE", Context(project_a_) + "/sdk", "", key_a_), 404, "removed");
  EXPECT_EQ(Get(Context(project_a_), key_a_).Json()["repositories"], json::array());
  EXPECT_EQ(Get(Workflows(project_a_), key_a_).Json()["workflows"].size(), 1u);
}

TEST_F(WorkflowApiTest, DefinitionsThatBreakARuleAreRefusedNamingTheField) {
  struct Case {
    json body;
    std::string mentions;
  };
  const json manual = {{"kind", "manual"}};
  for (const Case& c : std::vector<Case>{
           {{{"name", "x"},
             {"prompt", "p"},
             {"trigger", {{"kind", "schedule"}, {"cron", "61 * * * *"}}}},
            "minute"},
           {{{"name", "x"},
             {"prompt", "p"},
             {"trigger", {{"kind", "schedule"}, {"cron", "0 9 * * *"}, {"timeZone", "Mars/Base"}}}},
            "zone"},
           {{{"name", "Bad Name"}, {"prompt", "p"}}, "name"},
           {{{"name", "x"}, {"prompt", "p"}, {"context", {"nope"}}}, "nope"},
           {{{"name", "x"},
             {"prompt", "p"},
             {"trigger", {{"kind", "merge"}, {"repository", "nope"}}}},
            "nope"},
           {{{"name", "x"}, {"prompt", "p"}, {"trigger", {{"kind", "sometimes"}}}}, "trigger"},
           {{{"name", "x"}}, "prompt"},
           {{{"name", "x"}, {"prompt", "  "}}, "prompt"},
           {{{"name", "x"}, {"prompt", "p"}, {"runsPerDay", 0}}, "runsPerDay"},
           {{{"name", "x"}, {"prompt", "p"}, {"publish", "email"}}, "publish"},
           {{{"name", "x"}, {"prompt", "p"}, {"enabled", "yes"}}, "enabled"},
       }) {
    HttpResult r = Post(Workflows(project_a_), c.body.dump(), key_a_);
    ExpectError(r, 400, c.body.dump());
    EXPECT_NE(r.Json().value("error", "").find(c.mentions), std::string::npos)
        << c.body.dump() << ": " << r.body;
  }
  ExpectError(Post(Workflows(project_a_), "{not json", key_a_), 400, "not JSON");
  ExpectError(Post(Workflows(project_a_), json{{"name", "x"}, {"prompt", "p"}}.dump(), key_a_,
                   "text/plain"),
              415, "not declared JSON");
  ExpectError(
      Post(Context(project_a_), json{{"name", "Not OK"}, {"repository", "r"}}.dump(), key_a_), 400,
      "a context repository's name");
  ExpectError(Post(Context(project_a_), json{{"name", "sdk"}, {"repository", ""}}.dump(), key_a_),
              400, "no repository");
  ExpectError(Post(Context(project_a_),
                   json{{"name", "sdk"}, {"repository", "r"}, {"branch", "a..b"}}.dump(), key_a_),
              400, "a bad branch");
  EXPECT_EQ(Get(Workflows(project_a_), key_a_).Json()["workflows"], json::array())
      << "nothing was stored";
}

TEST_F(WorkflowApiTest, MembersReadAndRunAndOtherOrganisationsSeeNothing) {
  const std::string member = MemberKey();
  CreateWorkflow({{"name", "notes"}, {"prompt", "Tidy the notes [nochange]"}});
  EXPECT_EQ(Get(Workflows(project_a_), member).status, 200);
  EXPECT_EQ(Get(Workflows(project_a_) + "/notes", member).status, 200);
  EXPECT_EQ(Get(Workflows(project_a_) + "/notes/runs", member).status, 200);
  EXPECT_EQ(Get(Context(project_a_), member).status, 200);
  const std::string body = json{{"name", "other"}, {"prompt", "p"}}.dump();
  ExpectError(Post(Workflows(project_a_), body, member), 403, "member creates");
  ExpectError(
      Send("PATCH", Workflows(project_a_) + "/notes", json{{"enabled", false}}.dump(), member), 403,
      "member changes");
  ExpectError(Send("DELETE", Workflows(project_a_) + "/notes", "", member), 403, "member deletes");
  ExpectError(Post(Context(project_a_), json{{"name", "sdk"}, {"repository", "r"}}.dump(), member),
              403, "member adds a context repository");
  ExpectError(Send("DELETE", Context(project_a_) + "/sdk", "", member), 403,
              "member removes a context repository");
  HttpResult run = Post(Workflows(project_a_) + "/notes/run", "", member, "");
  EXPECT_EQ(run.status, 201) << run.body;

  // Organisation B: project A does not exist for it, nor A's workflow in B's project.
  ExpectError(Get(Workflows(project_a_), key_b_), 404, "other organisation lists");
  ExpectError(Get(Workflows(project_a_) + "/notes", key_b_), 404, "other organisation gets");
  ExpectError(Post(Workflows(project_a_), body, key_b_), 404, "other organisation creates");
  ExpectError(Post(Workflows(project_a_) + "/notes/run", "", key_b_, ""), 404,
              "other organisation runs");
  ExpectError(Get(Context(project_a_), key_b_), 404, "other organisation's context");
  ExpectError(Get(Workflows(project_b_) + "/notes", key_b_), 404, "not in B's project");
  EXPECT_EQ(Get(Workflows(project_b_), key_b_).Json()["workflows"], json::array());
}

TEST_F(WorkflowApiTest, FileDefinedWorkflowsChangeOnlyTheirFlagAndClashesAreFlagged) {
  // The files in the docs repository, and what the engine records of them, as
  // another process of the service would.
  const std::string seed = dir_ / "seed";
  Sh(std::string(kGit) + " clone -q " + remote_a_ + " " + seed);
  std::filesystem::create_directories(seed + "/.docwright/workflows");
  for (const char* name : {"nightly", "from-file"}) {
    std::ofstream(seed + "/.docwright/workflows/" + name + ".md")
        << "---\non:\n  manual: true\n---\nRead the changelog.\n";
  }
  Sh("cd " + seed + " && " + kGit + " add -A && " + kGit + " commit -qm 'Workflows' && " + kGit +
     " push -q origin HEAD:main");
  const std::string head = Sh("cd " + seed + " && git rev-parse HEAD");
  {
    auto store = OpenSqliteStore(dir_ / "docwright.db", KeyFileSecrets(dir_ / "secret.key"));
    ASSERT_TRUE(store.ok()) << store.status().message();
    std::vector<Workflow> files;
    for (const char* name : {"from-file", "nightly"}) {
      Workflow w;
      w.project_id = project_a_;
      w.name = name;
      w.prompt = "Read the changelog.";
      w.source = WorkflowSource::kFile;
      w.file_path = ".docwright/workflows/" + std::string(name) + ".md";
      files.push_back(std::move(w));
    }
    ASSERT_TRUE((*store)->SyncFileWorkflows(project_a_, head, files).ok());
  }
  json file = Get(Workflows(project_a_) + "/from-file", key_a_).Json();
  EXPECT_EQ(file["source"], "file");
  EXPECT_EQ(file["file"], ".docwright/workflows/from-file.md");
  EXPECT_EQ(file["clash"], false);

  ExpectError(
      Send("PATCH", Workflows(project_a_) + "/from-file", json{{"prompt", "x"}}.dump(), key_a_),
      409, "a file's prompt");
  HttpResult off =
      Send("PATCH", Workflows(project_a_) + "/from-file", json{{"enabled", false}}.dump(), key_a_);
  ASSERT_EQ(off.status, 200) << off.body;
  EXPECT_EQ(off.Json()["enabled"], false);
  EXPECT_EQ(off.Json()["source"], "file");
  ExpectError(Send("DELETE", Workflows(project_a_) + "/from-file", "", key_a_), 409,
              "deleting a file's");

  json api = CreateWorkflow({{"name", "nightly"}, {"prompt", "Fix the typos"}});
  EXPECT_EQ(api["source"], "api");
  EXPECT_EQ(api["clash"], true);
  json list = Get(Workflows(project_a_), key_a_).Json();
  int nightly = 0;
  for (const json& w : list["workflows"]) {
    if (w["name"] != "nightly") continue;
    ++nightly;
    EXPECT_EQ(w["clash"], true) << w;
  }
  EXPECT_EQ(nightly, 2) << list;
  ExpectError(Post(Workflows(project_a_) + "/nightly/run", "", key_a_, ""), 409,
              "a clash runs neither");
}

TEST_F(WorkflowApiTest, RunsByHandStartQueueAndStopAtTheDailyLimit) {
  const std::string release = dir_ / "release";
  json w = CreateWorkflow({{"name", "changelog"},
                           {"prompt", "Update the changelog [await " + release + "]"},
                           {"runsPerDay", 1},
                           {"enabled", false}});
  const std::string run_path = Workflows(project_a_) + "/changelog/run";

  // A disabled workflow runs by hand; the body's text follows the prompt.
  HttpResult first = Post(run_path, json{{"prompt", "Also the FAQ"}}.dump(), key_a_);
  ASSERT_EQ(first.status, 201) << first.body;
  json job = first.Json();
  EXPECT_EQ(job["status"], "active");
  EXPECT_EQ(job["trigger"], json({{"kind", "manual"}, {"workflow", "changelog"}}));
  EXPECT_EQ(job["workflowId"], w["id"]);
  EXPECT_EQ(Get(Job(project_a_, job["id"]), key_a_).Json()["trigger"], job["trigger"]);
  json transcript = Get(Job(project_a_, job["id"]) + "/messages", key_a_).Json();
  EXPECT_EQ(transcript["messages"][0]["prompt"],
            "Update the changelog [await " + release + "]\n\nAlso the FAQ");

  // While its job is active, the next run waits.
  HttpResult second = Post(run_path, "", key_a_, "");
  ASSERT_EQ(second.status, 202) << second.body;
  EXPECT_EQ(second.Json()["run"]["state"], "queued");
  EXPECT_TRUE(second.Json()["run"]["jobId"].is_null());

  std::ofstream(release) << "go";
  EXPECT_EQ(WaitForEnd(job["id"])["status"], "completed");

  // One run a day: the next is refused until midnight UTC.
  HttpResult third = Post(run_path, "", key_a_, "");
  ExpectError(third, 429, "the daily limit");
  EXPECT_NE(third.Json()["error"].get<std::string>().find("daily limit"), std::string::npos);
  int retry = std::stoi(third.Header("retry-after"));
  EXPECT_GE(retry, 1);
  EXPECT_LE(retry, 86400);

  json runs = Get(Workflows(project_a_) + "/changelog/runs", key_a_).Json();
  ASSERT_GE(runs["runs"].size(), 3u) << runs;
  EXPECT_EQ(runs["runs"][0]["state"], "refused") << "newest first";
  const json& oldest = runs["runs"][runs["runs"].size() - 1];
  EXPECT_EQ(oldest["state"], "started");
  EXPECT_EQ(oldest["jobId"], job["id"]);
  EXPECT_EQ(oldest["jobStatus"], "completed");
  EXPECT_EQ(oldest["trigger"], job["trigger"]);
  json last = Get(Workflows(project_a_) + "/changelog", key_a_).Json()["lastRun"];
  EXPECT_EQ(last["state"], "refused") << last;

  ExpectError(Post(Workflows(project_a_) + "/nothing/run", "", key_a_, ""), 404, "no workflow");
  ExpectError(Post(run_path, json{{"prompt", std::string(kMaxPromptChars, 'x')}}.dump(), key_a_),
              400, "a prompt past the limit");
}

}  // namespace
}  // namespace docwright::testing
