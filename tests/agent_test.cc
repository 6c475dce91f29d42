// The documentation agent end to end: the real service, a fake model speaking
// each provider's wire format, the sample docs site in a bare repository, and the
// local forge. Everything goes through the HTTP API.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <thread>

#include "fakes/fake_model.h"
#include "support/service_fixture.h"

namespace docwright::testing {
namespace {

using std::chrono::milliseconds;
using Wire = FakeModelServer::Wire;

constexpr const char* kModelKey = "sk-test-model-secret";

FakeToolCall Call(std::string name, json arguments) {
  return FakeToolCall{std::move(name), std::move(arguments), std::nullopt};
}
FakeStep Step(std::vector<FakeToolCall> calls, std::string text = "") {
  FakeStep s;
  s.text = std::move(text);
  s.tool_calls = std::move(calls);
  return s;
}
FakeToolCall Finish(const std::string& summary, const std::string& title = "") {
  json args{{"summary", summary}};
  if (!title.empty()) args["title"] = title;
  return Call("finish", args);
}

class AgentTest : public ServiceTest, public ::testing::WithParamInterface<Wire> {
 protected:
  void StartDefaultServer() override {}  // each test starts its own, with its model

  void SetUp() override {
    ServiceTest::SetUp();
    site_ = dir_ / "site.git";
    MakeRemoteFrom(site_, DOCWRIGHT_SAMPLE_DOCS);
    project_ = Admin({"project", "create", "--org", org_a_, "--repository", site_}).LastLine();
  }

  void TearDown() override {
    if (model_) {
      for (const auto& v : model_->Violations()) ADD_FAILURE() << "off the provider's API: " << v;
    }
  }

  // Starts the model with `script` and the service pointed at it.
  void Start(std::vector<FakeStep> script,
             std::vector<std::pair<std::string, std::string>> env = {}) {
    Wire wire = GetParam();
    model_ = std::make_unique<FakeModelServer>(wire, kModelKey, std::move(script));
    setenv("DOCWRIGHT_LLM_PROVIDER", wire == Wire::kOpenAI ? "openai" : "anthropic", 1);
    setenv("DOCWRIGHT_LLM_BASE_URL", model_->BaseUrl().c_str(), 1);
    setenv("DOCWRIGHT_LLM_API_KEY", kModelKey, 1);
    setenv("DOCWRIGHT_MODEL", "docs-model-1", 1);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    StartServer(kReal, {"--lease-seconds", "5"});
  }

  json Run(const std::string& prompt) {
    HttpResult r = Post(Jobs(project_), Prompt(prompt), key_a_);
    EXPECT_EQ(r.status, 201) << r.body;
    return WaitFor(r.Json()["id"]);
  }
  json WaitFor(const std::string& id) {
    json job;
    EXPECT_TRUE(WaitUntil(
        [&] {
          job = Get(Job(project_, id), key_a_).Json();
          return job["status"] != "active";
        },
        milliseconds(60000)))
        << job;
    return job;
  }
  json Transcript(const std::string& id) {
    return Get(Job(project_, id) + "/messages", key_a_).Json();
  }
  // The tools called in the turns of a transcript, in order.
  static std::vector<std::string> ToolsCalled(const json& transcript) {
    std::vector<std::string> out;
    for (const auto& m : transcript["messages"]) {
      for (const auto& s : m["turn"]["steps"]) {
        if (s["type"] == "tool") out.push_back(s["tool"]);
      }
    }
    return out;
  }
  std::string Branch(const json& job) { return job["source"]["ref"]; }
  std::string BranchFile(const json& job, const std::string& path) {
    return ShowFile(site_, Branch(job) + ":" + path);
  }
  bool BranchExists(const json& job) {
    return !Sh("git --git-dir=" + site_ + " branch --list '" + Branch(job) + "'").empty();
  }

  std::string site_, project_;
  std::unique_ptr<FakeModelServer> model_;
};

TEST_P(AgentTest, EditsAPageAndAddsANewPageToTheNavigation) {
  Start({
      Step({Call("read_file", {{"path", "quickstart.mdx"}}),
            Call("read_file", {{"path", "docs.json"}})},
           "Let me read the quickstart and the navigation."),
      Step({Call("edit_file", {{"path", "quickstart.mdx"},
                               {"old_text", "## Instal the CLI"},
                               {"new_text", "## Install the CLI"}}),
            Call("write_file",
                 {{"path", "guides/troubleshooting.mdx"},
                  {"content",
                   "---\ntitle: \"Troubleshooting\"\n---\n\nIf `acme deploy` fails, check "
                   "the [configuration](/guides/configuration).\n"}}),
            Call("edit_file",
                 {{"path", "docs.json"},
                  {"old_text", "\"guides/configuration\"]"},
                  {"new_text", "\"guides/configuration\", \"guides/troubleshooting\"]"}})}),
      Step({Finish("Fixed the heading typo in the quickstart and added a troubleshooting guide.",
                   "Fix the quickstart typo and add a troubleshooting guide")}),
  });
  json done = Run("Fix the typo in the quickstart heading and add a troubleshooting page");
  ASSERT_EQ(done["status"], "completed") << done;
  EXPECT_EQ(done["model"], "docs-model-1");
  EXPECT_EQ(done["summary"],
            "Fixed the heading typo in the quickstart and added a troubleshooting guide.");
  ASSERT_TRUE(done["prLink"].is_string()) << done;

  EXPECT_NE(BranchFile(done, "quickstart.mdx").find("## Install the CLI"), std::string::npos);
  EXPECT_NE(BranchFile(done, "guides/troubleshooting.mdx").find("title: \"Troubleshooting\""),
            std::string::npos);
  EXPECT_NE(BranchFile(done, "docs.json").find("\"guides/troubleshooting\""), std::string::npos);

  // The pull request: the title from finish, a body with the summary, the
  // instruction and the files, and the diff.
  std::string link = done["prLink"];
  HttpResult page = client_->Send("GET", link.substr(link.find("/pulls/")));
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("<title>Fix the quickstart typo and add a troubleshooting guide"),
            std::string::npos);
  EXPECT_NE(page.body.find("Fixed the heading typo"), std::string::npos);
  EXPECT_NE(page.body.find("Files changed on this branch"), std::string::npos);
  EXPECT_NE(page.body.find("guides/troubleshooting.mdx"), std::string::npos);
  EXPECT_EQ(page.body.find("Problems the checks"), std::string::npos) << "the checks passed";

  // The transcript: every tool step, in order, and the tokens used.
  json transcript = Transcript(done["id"]);
  EXPECT_EQ(ToolsCalled(transcript),
            (std::vector<std::string>{"read_file", "read_file", "edit_file", "write_file",
                                      "edit_file", "finish"}));
  EXPECT_GT(transcript["usage"]["inputTokens"].get<int64_t>(), 0);
  EXPECT_EQ(transcript["messages"][0]["turn"]["steps"][0]["type"], "assistant");
  EXPECT_EQ(transcript.dump().find(kModelKey), std::string::npos);

  // What the model was told: the task, the site map and exactly the tools.
  auto requests = model_->Requests();
  ASSERT_EQ(requests.size(), 3u);
  std::string first = requests[0].dump();
  EXPECT_NE(first.find("Mintlify"), std::string::npos);
  EXPECT_NE(first.find("guides/configuration"), std::string::npos) << "the navigation";
  std::vector<std::string> tools;
  for (const auto& t : requests[0]["tools"]) {
    tools.push_back(t.contains("function") ? t["function"]["name"] : t["name"]);
  }
  EXPECT_EQ(tools, (std::vector<std::string>{"list_files", "read_file", "search", "write_file",
                                             "edit_file", "delete_file", "move_file", "finish"}));
  EXPECT_NE(requests[1].dump().find("Instal the CLI"), std::string::npos)
      << "the model got the file it read";
}

TEST_P(AgentTest, AJobThatChangesNothingCompletesWithoutAPullRequest) {
  Start({Step({Call("read_file", {{"path", "quickstart.mdx"}})}),
         Step({Finish("The quickstart already explains how to log in; nothing to change.")})});
  json done = Run("Make sure the quickstart explains how to log in");
  EXPECT_EQ(done["status"], "completed") << done;
  EXPECT_EQ(done["prLink"], nullptr);
  EXPECT_FALSE(BranchExists(done));
}

TEST_P(AgentTest, AJobsOrItsProjectsModelIsTheOneAsked) {
  Start({Step({Finish("Nothing to change.")})});
  std::string pinned = Admin({"project", "create", "--org", org_a_, "--repository", site_,
                              "--model", "project-model"})
                           .LastLine();
  auto run = [&](const std::string& project, const std::string& body) {
    HttpResult r = Post(Jobs(project), body, key_a_);
    EXPECT_EQ(r.status, 201) << r.body;
    std::string id = r.Json()["id"];
    json job;
    EXPECT_TRUE(WaitUntil(
        [&] {
          job = Get(Job(project, id), key_a_).Json();
          return job["status"] != "active";
        },
        milliseconds(60000)));
    EXPECT_EQ(job["status"], "completed") << job;
    return job;
  };
  EXPECT_EQ(run(project_, Prompt("Check the docs"))["model"], "docs-model-1");
  EXPECT_EQ(run(pinned, Prompt("Check the docs"))["model"], "project-model");
  EXPECT_EQ(run(pinned, R"({"prompt": "Check the docs", "model": "job-model"})")["model"],
            "job-model");
  // The job's `model` is the one the provider was asked for.
  auto requests = model_->Requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0]["model"], "docs-model-1");
  EXPECT_EQ(requests[1]["model"], "project-model");
  EXPECT_EQ(requests[2]["model"], "job-model");
}

// The README's first hour: a first job sent before any model is configured fails
// saying so; once the service is restarted with a model, a follow-up retries it,
// and the job shows the model that ran it.
TEST_P(AgentTest, AJobThatFailedForWantOfAModelIsRetriedByAFollowUpOnceOneIsSet) {
  for (const char* name : {"DOCWRIGHT_LLM_PROVIDER", "DOCWRIGHT_LLM_BASE_URL",
                           "DOCWRIGHT_LLM_API_KEY", "DOCWRIGHT_MODEL"}) {
    unsetenv(name);
  }
  StartServer(kReal, {"--lease-seconds", "5"});
  json failed = Run("Fix the typo in the quickstart");
  ASSERT_EQ(failed["status"], "failed") << failed;
  EXPECT_NE(failed["error"].get<std::string>().find("no language model is configured"),
            std::string::npos)
      << failed;
  EXPECT_TRUE(failed["model"].is_null()) << failed;
  server_->Terminate();

  Start({Step({Call("edit_file", {{"path", "quickstart.mdx"},
                                  {"old_text", "Instal the CLI"},
                                  {"new_text", "Install the CLI"}}),
               Finish("Fixed the typo.")})});
  HttpResult follow =
      Post(Job(project_, failed["id"]) + "/message", Prompt("Please try again"), key_a_);
  ASSERT_EQ(follow.status, 200) << follow.body;
  json done = WaitFor(failed["id"]);
  ASSERT_EQ(done["status"], "completed") << done;
  EXPECT_EQ(done["model"], "docs-model-1");
  EXPECT_TRUE(done["error"].is_null()) << done;
  EXPECT_TRUE(done["prLink"].is_string()) << done;
  ASSERT_EQ(model_->Requests().size(), 1u);
  EXPECT_EQ(model_->Requests()[0]["model"], "docs-model-1");

  // The project's model, set later, is the one the next turn uses; a follow-up
  // may name a model of its own, which the job keeps from then on.
  Admin({"project", "update", project_, "--org", org_a_, "--model", "project-model"});
  server_->Terminate();
  Start({Step({Finish("Checked.")}), Step({Finish("Checked again.")}),
         Step({Finish("Checked once more.")})});
  ASSERT_EQ(Post(Job(project_, failed["id"]) + "/message", Prompt("Check it"), key_a_).status, 200);
  EXPECT_EQ(WaitFor(failed["id"])["model"], "project-model");
  HttpResult named =
      Post(Job(project_, failed["id"]) + "/message",
           R"({"prompt": "Check it with another model", "model": "job-model"})", key_a_);
  ASSERT_EQ(named.status, 200) << named.body;
  EXPECT_EQ(named.Json()["model"], "job-model");
  EXPECT_EQ(WaitFor(failed["id"])["model"], "job-model");
  ASSERT_EQ(Post(Job(project_, failed["id"]) + "/message", Prompt("And again"), key_a_).status,
            200);
  EXPECT_EQ(WaitFor(failed["id"])["model"], "job-model");
  auto requests = model_->Requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0]["model"], "project-model");
  EXPECT_EQ(requests[1]["model"], "job-model");
  EXPECT_EQ(requests[2]["model"], "job-model");
}

// job stop: the running turn ends after its current step; what it did is pushed
// and in the pull request, the job is completed, and a follow-up continues it.
TEST_P(AgentTest, AStoppedTurnKeepsItsWorkAndAFollowUpContinuesTheJob) {
  FakeStep slow_edit = Step({Call("edit_file", {{"path", "quickstart.mdx"},
                                                {"old_text", "Instal the CLI"},
                                                {"new_text", "Install the CLI"}})});
  slow_edit.delay = milliseconds(1500);  // the stop arrives while the model thinks
  Start({slow_edit, Step({Call("edit_file", {{"path", "guides/configuration.mdx"},
                                             {"old_text", "region = \"eu-west\""},
                                             {"new_text", "region = \"us-east\""}}),
                          Finish("Changed the example region.")})});
  HttpResult created = Post(Jobs(project_), Prompt("Fix the docs"), key_a_);
  ASSERT_EQ(created.status, 201);
  std::string id = created.Json()["id"];
  ASSERT_TRUE(WaitUntil([&] { return model_->Requests().size() >= 1; }));
  HttpResult stop = Post(Job(project_, id) + "/stop", "", key_a_, "");
  ASSERT_EQ(stop.status, 200) << stop.body;
  json stopped = WaitFor(id);
  ASSERT_EQ(stopped["status"], "completed") << stopped;
  EXPECT_NE(stopped["summary"].get<std::string>().find("stopped on request after 1 step"),
            std::string::npos)
      << stopped;
  ASSERT_TRUE(stopped["prLink"].is_string()) << "the work so far is pushed, with its pull request";
  EXPECT_NE(BranchFile(stopped, "quickstart.mdx").find("Install the CLI"), std::string::npos);
  EXPECT_EQ(BranchFile(stopped, "guides/configuration.mdx").find("us-east"), std::string::npos);
  EXPECT_EQ(model_->Requests().size(), 1u) << "no step after the stop";
  // Nothing runs now: a second stop is a conflict.
  EXPECT_EQ(Post(Job(project_, id) + "/stop", "", key_a_, "").status, 409);

  HttpResult follow = Post(Job(project_, id) + "/message", Prompt("Go on"), key_a_);
  ASSERT_EQ(follow.status, 200);
  json done = WaitFor(id);
  ASSERT_EQ(done["status"], "completed") << done;
  EXPECT_EQ(done["prLink"], stopped["prLink"]);
  EXPECT_NE(BranchFile(done, "guides/configuration.mdx").find("us-east"), std::string::npos);
  EXPECT_NE(BranchFile(done, "quickstart.mdx").find("Install the CLI"), std::string::npos);
}

TEST_P(AgentTest, AFollowUpContinuesTheConversationAndUpdatesThePullRequest) {
  // Position 0 is the first turn; the follow-up's first request carries the
  // first turn as one earlier exchange, so it is answered by position 1.
  Start({Step({Call("edit_file", {{"path", "quickstart.mdx"},
                                  {"old_text", "Instal the CLI"},
                                  {"new_text", "Install the CLI"}}),
               Finish("Fixed the typo.", "Fix the quickstart typo")}),
         Step({Call("edit_file", {{"path", "guides/configuration.mdx"},
                                  {"old_text", "region = \"eu-west\""},
                                  {"new_text", "region = \"us-east\""}}),
               Finish("Changed the example region.")})});
  json first = Run("Fix the typo in the quickstart");
  ASSERT_EQ(first["status"], "completed") << first;
  HttpResult follow = Post(Job(project_, first["id"]) + "/message",
                           Prompt("Use us-east in the configuration example"), key_a_);
  ASSERT_EQ(follow.status, 200);
  json second = WaitFor(first["id"]);
  ASSERT_EQ(second["status"], "completed") << second;
  EXPECT_EQ(second["prLink"], first["prLink"]);
  EXPECT_NE(BranchFile(second, "guides/configuration.mdx").find("us-east"), std::string::npos);
  EXPECT_NE(BranchFile(second, "quickstart.mdx").find("Install the CLI"), std::string::npos);
  // The follow-up's conversation carried the earlier instruction and its outcome.
  auto requests = model_->Requests();
  ASSERT_EQ(requests.size(), 2u);
  std::string later = requests[1].dump();
  EXPECT_NE(later.find("Fix the typo in the quickstart"), std::string::npos);
  EXPECT_NE(later.find("Fixed the typo."), std::string::npos);
  EXPECT_NE(later.find("Use us-east"), std::string::npos);
  // ...written as the first turn had it, so a provider's prompt cache serves
  // the follow-up the system prompt, the tools and the first instruction.
  EXPECT_EQ(requests[1]["tools"], requests[0]["tools"]);
  if (GetParam() == Wire::kOpenAI) {
    const json& before = requests[0]["messages"];
    const json& now = requests[1]["messages"];
    ASSERT_GE(before.size(), 2u);
    ASSERT_GT(now.size(), 2u);
    EXPECT_EQ(now[0].dump(), before[0].dump()) << "the system prompt";
    EXPECT_EQ(now[1].dump(), before[1].dump()) << "the first instruction";
  } else {
    EXPECT_EQ(requests[1]["system"][0]["text"], requests[0]["system"][0]["text"]);
    EXPECT_EQ(requests[1]["messages"][0]["content"][0]["text"],
              requests[0]["messages"][0]["content"][0]["text"]);
  }
}

TEST_P(AgentTest, MalformedToolCallsGoBackToTheModelAsToolErrors) {
  FakeToolCall broken{"write_file", json::object(), std::string("{\"path\": \"x.mdx\", ")};
  Start({Step({broken, Call("delete_everything", json::object()),
               Call("write_file", {{"path", "guides/x.mdx"}}), Call("read_file", {{"path", 42}})}),
         Step({Finish("Could not do it.")})});
  json done = Run("Write something");
  EXPECT_EQ(done["status"], "completed") << done;
  EXPECT_EQ(done["prLink"], nullptr) << "nothing was written";
  std::vector<std::string> errors;
  json transcript = Transcript(done["id"]);
  for (const auto& s : transcript["messages"][0]["turn"]["steps"]) {
    if (s["type"] == "tool" && s["isError"] == true) errors.push_back(s["result"]);
  }
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_TRUE(errors[0].find("not valid JSON") != std::string::npos ||
              errors[0].find("must be a JSON object") != std::string::npos)
      << errors[0];
  EXPECT_NE(errors[1].find("unknown tool"), std::string::npos) << errors[1];
  EXPECT_NE(errors[2].find("missing required argument \"content\""), std::string::npos)
      << errors[2];
  EXPECT_NE(errors[3].find("must be a string"), std::string::npos) << errors[3];
}

TEST_P(AgentTest, OddlyTypedFieldsInAModelReplyDoNotBreakTheTurn) {
  FakeStep odd;
  if (GetParam() == Wire::kOpenAI) {
    odd.raw_body = R"({"id": 7, "choices": [{"index": 0, "finish_reason": null, "message": {
        "role": "assistant", "content": null, "tool_calls": [{"id": 12, "type": "function",
        "function": {"name": "finish", "arguments": "{\"summary\": \"Nothing to do.\"}"}}]}}],
        "usage": {"prompt_tokens": null, "completion_tokens": "many"}})";
  } else {
    odd.raw_body = R"({"id": 7, "type": "message", "role": "assistant", "stop_reason": null,
        "content": [{"type": "text", "text": 5}, {"type": "tool_use", "id": 12, "name": "finish",
        "input": {"summary": "Nothing to do."}}], "usage": {"input_tokens": null}})";
  }
  Start({odd});
  json done = Run("Check the docs");
  EXPECT_EQ(done["status"], "completed") << done;
  EXPECT_EQ(done["summary"], "Nothing to do.");
}

// The calls past 32 of one reply are neither carried out nor recorded nor sent
// back: the model is told how many were refused, on the last call's result.
TEST_P(AgentTest, AtMost32ToolCallsOfOneReplyAreCarriedOut) {
  std::vector<FakeToolCall> many;
  for (int i = 0; i < 40; ++i) many.push_back(Call("list_files", json::object()));
  Start({Step(many), Step({Finish("Looked around.")})});
  json done = Run("Look around");
  EXPECT_EQ(done["status"], "completed") << done;
  EXPECT_EQ(ToolsCalled(Transcript(done["id"])).size(), 33u) << "32 listings and the finish";
  auto requests = model_->Requests();
  ASSERT_EQ(requests.size(), 2u);
  std::string told = requests[1].dump();
  EXPECT_NE(told.find("8 further tool calls of this reply were refused: at most 32"),
            std::string::npos);
  // The calls answered are the calls the conversation carries: the provider
  // refuses a tool call without its result, and a result without its call.
  size_t calls = 0, results = 0;
  for (const auto& m : requests[1]["messages"]) {
    if (m.contains("tool_calls")) calls += m["tool_calls"].size();
    if (m["role"] == "tool") ++results;
    if (m["content"].is_array()) {
      for (const auto& block : m["content"]) {
        if (block["type"] == "tool_use") ++calls;
        if (block["type"] == "tool_result") ++results;
      }
    }
  }
  EXPECT_EQ(calls, 32u);
  EXPECT_EQ(results, 32u);
}

TEST_P(AgentTest, PathsOutsideTheRepositoryAreRefused) {
  Start({Step({Call("write_file", {{"path", "../../outside.md"}, {"content", "x"}}),
               Call("write_file", {{"path", "/tmp/absolute.md"}, {"content", "x"}}),
               Call("write_file", {{"path", ".git/config"}, {"content", "x"}}),
               Call("read_file", {{"path", "../../../etc/passwd"}}),
               Call("move_file", {{"from", "quickstart.mdx"}, {"to", "../moved.mdx"}}),
               Call("list_files", {{"path", ".."}})}),
         Step({Finish("Refused.")})});
  json done = Run("Try to escape");
  EXPECT_EQ(done["status"], "completed") << done;
  EXPECT_EQ(done["prLink"], nullptr);
  int refused = 0;
  json transcript = Transcript(done["id"]);
  for (const auto& s : transcript["messages"][0]["turn"]["steps"]) {
    if (s["type"] == "tool" && s["tool"] != "finish") {
      EXPECT_EQ(s["isError"], true) << s;
      EXPECT_EQ(s["result"].get<std::string>().find("root:x:0:0"), std::string::npos)
          << "no file outside was read";
      ++refused;
    }
  }
  EXPECT_EQ(refused, 6) << transcript;
  EXPECT_FALSE(BranchExists(done)) << "nothing was committed";
}

TEST_P(AgentTest, RateLimitsAreWaitedOutAndPersistentErrorsFailTheJob) {
  FakeStep limited = Step({Finish("Done after waiting.")});
  limited.fail_status = 429;
  limited.fail_times = 2;
  limited.fail_headers = {{"Retry-After", "1"}};
  Start({limited});
  json done = Run("Anything");
  EXPECT_EQ(done["status"], "completed") << done;
  EXPECT_EQ(model_->Requests().size(), 3u) << "two refusals, then the reply";
}

TEST_P(AgentTest, AModelThatKeepsFailingFailsTheJobWithItsError) {
  FakeStep down = Step({Finish("never")});
  down.fail_status = 500;
  down.fail_times = 1000;
  down.fail_headers = {{"Retry-After", "0"}};
  Start({down});
  json done = Run("Anything");
  EXPECT_EQ(done["status"], "failed") << done;
  std::string error = done["error"];
  EXPECT_NE(error.find("500"), std::string::npos) << error;
  EXPECT_NE(error.find("model provider"), std::string::npos) << error;
  EXPECT_EQ(error.find(kModelKey), std::string::npos);
  EXPECT_EQ(model_->Requests().size(), 5u) << "5 attempts";
}

TEST_P(AgentTest, ABudgetOverrunFailsTheTurnAndPushesNothing) {
  Start({Step({Call("write_file", {{"path", "quickstart.mdx"}, {"content", "# Changed\n"}})}),
         Step({Call("read_file", {{"path", "quickstart.mdx"}})})},
        {{"DOCWRIGHT_MAX_STEPS", "3"}});
  json done = Run("Loop forever");
  EXPECT_EQ(done["status"], "failed") << done;
  EXPECT_NE(done["error"].get<std::string>().find("3 steps"), std::string::npos) << done;
  EXPECT_FALSE(BranchExists(done)) << "edits of a failed turn are not pushed";
  EXPECT_EQ(model_->Requests().size(), 3u);
}

// The model takes ten minutes to answer: the archive must not wait for it.
TEST_P(AgentTest, ArchivingAJobStopsItsTurnEvenWhileTheModelIsAnswering) {
  FakeStep slow = Step({Call("write_file", {{"path", "quickstart.mdx"}, {"content", "# Gone\n"}})});
  slow.delay = std::chrono::minutes(10);
  Start({slow, Step({Finish("Rewrote the quickstart.")})});
  HttpResult created = Post(Jobs(project_), Prompt("Rewrite the quickstart"), key_a_);
  ASSERT_EQ(created.status, 201);
  std::string id = created.Json()["id"];
  ASSERT_TRUE(
      WaitUntil([&] { return server_->Log().find("turn 1 started") != std::string::npos; }));
  // The model has the first request, and is taking its time.
  ASSERT_TRUE(WaitUntil([&] { return model_->Requests().size() == 1; }));
  HttpResult archived = Post(Job(project_, id) + "/archive", "", key_a_, "");
  ASSERT_EQ(archived.status, 200);
  EXPECT_TRUE(WaitUntil([&] {
    return server_->Log().find("stopped: the job was archived") != std::string::npos;
  })) << server_->Log();
  json job = Get(Job(project_, id), key_a_).Json();
  EXPECT_EQ(job["status"], "archived");
  EXPECT_FALSE(BranchExists(job)) << "nothing is pushed after an archive";
  EXPECT_EQ(model_->Requests().size(), 1u) << "no step after the archive";
}

TEST_P(AgentTest, CheckProblemsGoBackToTheModelWhichRepairsThem) {
  Start({Step({Call("write_file",
                    {{"path", "guides/faq.mdx"},
                     {"content", "---\ntitle: [unclosed\n---\n\nSee [setup](/guides/setup).\n"}}),
               Finish("Added an FAQ.")}),
         Step({Call("write_file",
                    {{"path", "guides/faq.mdx"},
                     {"content", "---\ntitle: \"FAQ\"\n---\n\nSee [install](/guides/install).\n"}}),
               Call("edit_file", {{"path", "docs.json"},
                                  {"old_text", "\"guides/configuration\"]"},
                                  {"new_text", "\"guides/configuration\", \"guides/faq\"]"}}),
               Finish("Added an FAQ page to the guides.", "Add an FAQ")})});
  json done = Run("Add an FAQ page");
  ASSERT_EQ(done["status"], "completed") << done;
  json steps = Transcript(done["id"])["messages"][0]["turn"]["steps"];
  std::string first_finish;
  for (const auto& s : steps) {
    if (s["type"] == "tool" && s["tool"] == "finish") {
      first_finish = s["result"];
      break;
    }
  }
  // Counted by kind, the severest first.
  EXPECT_NE(first_finish.find("the checks found 3 problems: 1 navigation entry, 1 syntax error, 1 "
                              "broken link in "
                              "your changes"),
            std::string::npos)
      << steps;
  EXPECT_NE(first_finish.find("guides/faq.mdx"), std::string::npos);
  EXPECT_NE(first_finish.find("/guides/setup"), std::string::npos) << "the broken link";
  EXPECT_NE(BranchFile(done, "guides/faq.mdx").find("title: \"FAQ\""), std::string::npos);
  std::string link = done["prLink"];
  HttpResult page = client_->Send("GET", link.substr(link.find("/pulls/")));
  EXPECT_EQ(page.body.find("Problems the checks"), std::string::npos);
}

TEST_P(AgentTest, ProblemsLeftAfterTheRepairRoundsAreListedInThePullRequest) {
  Start({Step({Call("write_file", {{"path", "guides/orphan.mdx"},
                                   {"content", "---\ntitle: \"Orphan\"\n---\n\nText.\n"}}),
               Finish("Added a page.")})});
  json done = Run("Add an orphan page");
  ASSERT_EQ(done["status"], "completed") << done;
  std::string link = done["prLink"];
  HttpResult page = client_->Send("GET", link.substr(link.find("/pulls/")));
  EXPECT_NE(page.body.find("Problems the checks report on this branch"), std::string::npos);
  EXPECT_NE(page.body.find("guides/orphan.mdx"), std::string::npos);
  EXPECT_EQ(model_->Requests().size(), 3u) << "two repair rounds, then the turn ends";
}

// A real site's old problems are not the turn's: appending to a page whose other
// line has long linked nowhere completes without a repair round, and the old
// problem is a note in the pull request. The repository's AGENTS.md reaches the
// model, and the transcript says so.
TEST_P(AgentTest, OldProblemsAreNotesAndTheRepositorysInstructionsReachTheModel) {
  std::string clone = dir_ / "clone";
  Sh("git clone -q " + site_ + " " + clone + " && cd " + clone +
     " && printf 'Write in British English.\\nNever use the word simply.\\n' > AGENTS.md"
     " && printf '\\nThe [old API](/reference/v1-removed) is gone.\\n' >> quickstart.mdx"
     " && git add -A && git -c user.name=a -c user.email=a@b commit -qm old"
     " && git push -q origin HEAD:main");
  Start({Step({Call("edit_file", {{"path", "quickstart.mdx"},
                                  {"old_text", "## Log in"},
                                  {"new_text", "## Log in to your account"}}),
               Finish("Renamed the login heading.")})});
  json done = Run("Rename the login heading");
  ASSERT_EQ(done["status"], "completed") << done;
  EXPECT_EQ(model_->Requests().size(), 1u) << "no repair round for the site's old problem";

  std::string system = model_->Requests()[0].dump();
  EXPECT_NE(system.find("from AGENTS.md"), std::string::npos);
  EXPECT_NE(system.find("Write in British English."), std::string::npos);
  json steps = Transcript(done["id"])["messages"][0]["turn"]["steps"];
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(steps[0]["type"], "context");
  EXPECT_NE(steps[0]["text"].get<std::string>().find("AGENTS.md"), std::string::npos) << steps[0];

  std::string link = done["prLink"];
  HttpResult page = client_->Send("GET", link.substr(link.find("/pulls/")));
  EXPECT_EQ(page.body.find("Problems the checks report on this branch"), std::string::npos);
  EXPECT_NE(page.body.find("Notes from the checks"), std::string::npos);
  EXPECT_NE(page.body.find("/reference/v1-removed"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Providers, AgentTest, ::testing::Values(Wire::kOpenAI, Wire::kAnthropic),
                         [](const auto& info) {
                           return std::string(info.param == Wire::kOpenAI ? "OpenAI" : "Anthropic");
                         });

}  // namespace
}  // namespace docwright::testing
