// The reference's deprecated v1 endpoints, black-box: the real binary on a
// loopback port, real SQLite. Every v1 body is checked against the reference's
// own document (tests/data/reference-admin-openapi.json, a copy of the
// published one); a v1 job is a job like any other, seen through v2 too.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <fstream>

#include "support/json_schema.h"
#include "support/service_fixture.h"

namespace docwright::testing {
namespace {

class ApiV1Test : public ServiceTest {
 protected:
  void StartDefaultServer() override {
    StartServer(kScripted, {"--lease-seconds", "1", "--v1-model", "sonnet=model-s", "--v1-model",
                            "opus=model-o"});
  }

  static std::string V1(const std::string& project) { return "/v1/agent/" + project; }

  static std::string Body(const std::string& prompt, json extra = json::object()) {
    extra["messages"] = json::array({{{"role", "user"}, {"content", prompt}}});
    return extra.dump();
  }

  // POSTs a v1 create and reads its answer's status and headers only: the
  // stream follows the job until it ends, and the connection is then dropped
  // (the job goes on).
  HttpResult PostHead(const std::string& target, const std::string& body) {
    HttpResult out;
    int fd = ConnectLoopback(server_->port(), std::chrono::seconds(30));
    if (fd < 0) return out;
    std::string request =
        "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + "Authorization: Bearer " + key_a_ +
        "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
        "\r\n\r\n" + body;
    ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    std::string got;
    char chunk[4096];
    while (got.find("\r\n\r\n") == std::string::npos) {
      ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
      if (n <= 0) break;
      got.append(chunk, static_cast<size_t>(n));
    }
    ::close(fd);
    size_t end = got.find("\r\n\r\n");
    if (end == std::string::npos || got.size() < 12) return out;
    out.status = std::stoi(got.substr(9, 3));
    for (size_t at = got.find("\r\n") + 2; at < end;) {
      size_t eol = got.find("\r\n", at);
      std::string line = got.substr(at, eol - at);
      at = eol + 2;
      size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string name = line.substr(0, colon);
      for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      out.headers[name] = line.substr(line.find_first_not_of(' ', colon + 1));
    }
    return out;
  }

  // Creates a job through v1; its id (the X-Session-Id header).
  std::string CreateV1(const std::string& body, const std::string& project = "") {
    HttpResult r = PostHead(V1(project.empty() ? project_a_ : project) + "/job", body);
    EXPECT_EQ(r.status, 200);
    return r.Header("x-session-id");
  }

  // The v1 job and listing, each checked against the reference's schema.
  json GetV1Job(const std::string& id) {
    HttpResult r = Get(V1(project_a_) + "/job/" + id, key_a_);
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.Header("content-type"), "application/json");
    ExpectMatches(r.Json(), "/v1/agent/{projectId}/job/{id}");
    return r.Json();
  }
  json ListV1(const std::string& query) {
    HttpResult r = Get(V1(project_a_) + "/jobs" + query, key_a_);
    EXPECT_EQ(r.status, 200) << query << ": " << r.body;
    ExpectMatches(r.Json(), "/v1/agent/{projectId}/jobs");
    return r.Json();
  }
  void ExpectMatches(const json& body, const std::string& path) {
    const json& schema = reference_.ResponseSchema(path, "get", "200");
    ASSERT_FALSE(schema.is_null()) << path;
    for (const std::string& e : reference_.Check(body, schema)) ADD_FAILURE() << path << " " << e;
  }

  OpenApiDocument reference_{DOCWRIGHT_REFERENCE_OPENAPI};
};

TEST_F(ApiV1Test, TheSchemaCheckerCatchesWhatItShould) {
  const json& schema = reference_.ResponseSchema("/v1/agent/{projectId}/job/{id}", "get", "200");
  ASSERT_TRUE(schema.is_object());
  EXPECT_TRUE(reference_.Check(json{{"sessionId", "s"}, {"branch", nullptr}}, schema).empty());
  EXPECT_FALSE(reference_.Check(json{{"haulted", "yes"}}, schema).empty());
  EXPECT_FALSE(reference_.Check(json{{"haultReason", "done"}}, schema).empty());
  EXPECT_FALSE(reference_.Check(json{{"sessionId", nullptr}}, schema).empty()) << "not nullable";
  EXPECT_FALSE(reference_.Check(json{{"createdAt", "yesterday"}}, schema).empty());
  EXPECT_FALSE(
      reference_.Check(json{{"todos", json::array({{{"priority", "urgent"}}})}}, schema).empty());
}

TEST_F(ApiV1Test, ACreateStreamsTheJobAndTheJobIsSeenThroughBothVersions) {
  HttpResult r = Post(V1(project_a_) + "/job",
                      json{{"messages", json::array({{{"role", "system"}, {"content", "Be brief."}},
                                                     {{"role", "user"}, {"content", "Fix the FAQ"}},
                                                     {{"role", "assistant"}, {"content", "Ok"}}})},
                           {"asDraft", true}}
                          .dump(),
                      key_a_);
  ASSERT_EQ(r.status, 200) << r.body;
  std::string id = r.Header("x-session-id");
  ASSERT_FALSE(id.empty());
  std::string branch = r.Header("x-branch-name");
  EXPECT_EQ(branch.rfind("docwright/", 0), 0u) << "a generated branch without one given";
  EXPECT_EQ(r.Header("content-type"), "text/plain; charset=utf-8");
  EXPECT_EQ(r.Header("x-vercel-ai-data-stream"), "v1");
  // The stream's start: the session, as a data part on its own line.
  ASSERT_FALSE(r.body.empty());
  EXPECT_EQ(r.body.back(), '\n');
  json start = json::parse(r.body.substr(2, r.body.find('\n') - 2));
  EXPECT_EQ(r.body.substr(0, 2), "2:");
  EXPECT_EQ(start[0]["sessionId"], id);
  EXPECT_EQ(start[0]["branch"], branch);
  // The stream followed the job to its end: a step started and finished, and
  // the message's finish is the last part.
  EXPECT_NE(r.body.find("\nf:{\"messageId\""), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("\ne:{"), std::string::npos) << r.body;
  size_t last = r.body.rfind('\n', r.body.size() - 2);
  EXPECT_EQ(r.body.substr(last + 1), "d:{\"finishReason\":\"stop\"}\n") << r.body;

  json v2 = WaitForEnd(id);
  EXPECT_EQ(v2["status"], "completed");
  EXPECT_EQ(v2["source"]["ref"], branch);
  EXPECT_EQ(v2["model"], "model-s") << "no model: the reference's default, sonnet";
  HttpResult messages = Get(Job(project_a_, id) + "/messages", key_a_);
  EXPECT_EQ(messages.Json()["messages"][0]["prompt"], "Be brief.\n\nFix the FAQ")
      << "system and user messages, in order; assistant examples are not carried";
  EXPECT_EQ(Count("SELECT draft FROM jobs WHERE id = '" + id + "'"), 1) << "asDraft";

  json v1 = GetV1Job(id);
  EXPECT_EQ(v1["sessionId"], id);
  EXPECT_EQ(v1["subdomain"], project_a_);
  EXPECT_EQ(v1["branch"], branch);
  EXPECT_EQ(v1["haulted"], true);
  EXPECT_EQ(v1["haultReason"], "completed");
  EXPECT_EQ(v1["pullRequestLink"], v2["prLink"]);
  EXPECT_EQ(v1["messageToUser"], v2["summary"]);
  EXPECT_EQ(v1["title"], "Be brief.");
  ASSERT_EQ(v1["todos"].size(), 1u);
  EXPECT_EQ(v1["todos"][0]["status"], "completed");
  EXPECT_EQ(v1["createdAt"], v2["createdAt"]);

  // A v2 follow-up shows as a second todo.
  ASSERT_EQ(Post(Job(project_a_, id) + "/message", Prompt("Then the quickstart"), key_a_).status,
            200);
  WaitForEnd(id);
  json again = GetV1Job(id);
  ASSERT_EQ(again["todos"].size(), 2u);
  EXPECT_EQ(again["todos"][1]["content"], "Then the quickstart");
  EXPECT_EQ(again["todos"][1]["id"], "2");
}

TEST_F(ApiV1Test, HaltReasonsFollowTheJob) {
  std::string gate = dir_ / "gate";
  std::string held = CreateV1(Body("Wait [await " + gate + "]"));
  json running = GetV1Job(held);
  EXPECT_EQ(running["haulted"], false);
  EXPECT_EQ(running["haultReason"], "processing");
  EXPECT_FALSE(running.contains("pullRequestLink")) << "not nullable: left out";
  EXPECT_FALSE(running.contains("messageToUser"));
  ASSERT_EQ(Post(Job(project_a_, held) + "/archive", "", key_a_, "").status, 200);
  EXPECT_EQ(GetV1Job(held)["haultReason"], "interrupted") << "archived while it ran";

  std::string failed = CreateV1(Body("Break [fail the model gave up]"));
  WaitForEnd(failed);
  json f = GetV1Job(failed);
  EXPECT_EQ(f["haultReason"], "error");
  EXPECT_EQ(f["messageToUser"], "the model gave up");

  std::string wrong_ref = Admin({"project", "create", "--org", org_a_, "--repository", remote_a_,
                                 "--ref", "trunk", "--no-check"})
                              .LastLine();
  HttpResult r = Post(V1(wrong_ref) + "/job", Body("Edit"), key_a_);
  ASSERT_EQ(r.status, 200) << r.body;
  std::string id = r.Header("x-session-id");
  WaitForEnd(id, wrong_ref);
  HttpResult v1 = Get(V1(wrong_ref) + "/job/" + id, key_a_);
  EXPECT_EQ(v1.Json()["haultReason"], "github_missconfigured") << v1.body;
}

TEST_F(ApiV1Test, ListingPagesWithSkipAndTake) {
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i)
    ids.push_back(CreateV1(Body("job " + std::to_string(i) + " [nochange]")));
  std::vector<std::string> newest_first(ids.rbegin(), ids.rend());
  json all = ListV1("");
  ASSERT_EQ(all["allSessions"].size(), 5u) << "take defaults to 12";
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(all["allSessions"][i]["sessionId"], newest_first[i]);
  json page = ListV1("?skip=1&take=2");
  ASSERT_EQ(page["allSessions"].size(), 2u);
  EXPECT_EQ(page["allSessions"][0]["sessionId"], newest_first[1]);
  EXPECT_EQ(page["allSessions"][1]["sessionId"], newest_first[2]);
  EXPECT_EQ(ListV1("?skip=4&take=100")["allSessions"].size(), 1u);
  EXPECT_EQ(ListV1("?skip=5")["allSessions"].size(), 0u);
  for (const char* bad : {"?skip=-1", "?skip=x", "?skip=", "?skip=100001", "?take=0", "?take=101",
                          "?take=1.5", "?take=%31%30%31"}) {
    ExpectError(Get(V1(project_a_) + "/jobs" + bad, key_a_), 400, bad);
  }
  // Jobs made through v2 are listed too.
  std::string v2 = CreateJob("a v2 job [nochange]")["id"];
  EXPECT_EQ(ListV1("?take=1")["allSessions"][0]["sessionId"], v2);
}

TEST_F(ApiV1Test, ANamedBranchIsWorkedOnAndHeldByOneActiveJob) {
  std::string gate = dir_ / "gate";
  HttpResult r = PostHead(V1(project_a_) + "/job",
                          Body("Start [await " + gate + "]", {{"branch", "docs/faq-update"}}));
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.Header("x-branch-name"), "docs/faq-update");
  std::string first = r.Header("x-session-id");
  ExpectError(Post(V1(project_a_) + "/job", Body("Again", {{"branch", "docs/faq-update"}}), key_a_),
              409, "a branch an active job works on");
  std::ofstream(gate).put('\n');
  json done = WaitForEnd(first);
  ASSERT_EQ(done["status"], "completed") << done;
  EXPECT_EQ(done["source"]["ref"], "docs/faq-update");
  EXPECT_EQ(ShowFile(remote_a_, "docs/faq-update:notes/" + first + "-1.md"),
            "Start [await " + gate + "]");

  // The branch is free again: a second job continues it, from its head, and
  // updates the same pull request.
  std::string second = CreateV1(Body("Continue", {{"branch", "docs/faq-update"}}));
  json next = WaitForEnd(second);
  ASSERT_EQ(next["status"], "completed") << next;
  EXPECT_EQ(next["prLink"], done["prLink"]) << "the branch's pull request, found and updated";
  EXPECT_EQ(ShowFile(remote_a_, "docs/faq-update:notes/" + first + "-1.md"),
            "Start [await " + gate + "]")
      << "started from the branch's head, not from main";
  EXPECT_EQ(ShowFile(remote_a_, "docs/faq-update:notes/" + second + "-1.md"), "Continue");

  // An archived job keeps its branch: its pull request is closed for good.
  ASSERT_EQ(Post(Job(project_a_, second) + "/archive", "", key_a_, "").status, 200);
  ExpectError(Post(V1(project_a_) + "/job", Body("More", {{"branch", "docs/faq-update"}}), key_a_),
              409, "a branch of an archived job");
  ExpectError(Post(V1(project_a_) + "/job", Body("Main", {{"branch", "main"}}), key_a_), 400,
              "the base branch");
  for (const char* bad : {"", "a..b", "-x", "a b", "a~1", "x.lock", "a//b", "/a", "a/", ".a",
                          "a/.b", "a@{1}", "HEAD", "caf\u00e9", "a\tb"}) {
    ExpectError(Post(V1(project_a_) + "/job", Body("Edit", {{"branch", bad}}), key_a_), 400, bad);
  }
  ExpectError(
      Post(V1(project_a_) + "/job", Body("Edit", {{"branch", std::string(201, 'b')}}), key_a_), 400,
      "a branch over 200 characters");
  EXPECT_EQ(Post(V1(project_a_) + "/job",
                 Body("Edit [nochange]", {{"branch", std::string(200, 'b')}}), key_a_)
                .status,
            200);
}

TEST_F(ApiV1Test, ModelNamesMapToConfiguredModels) {
  std::string opus = CreateV1(Body("Edit [nochange]", {{"model", "opus"}}));
  EXPECT_EQ(Get(Job(project_a_, opus), key_a_).Json()["model"], "model-o");
  std::string sonnet = CreateV1(Body("Edit [nochange]", {{"model", "sonnet"}}));
  EXPECT_EQ(Get(Job(project_a_, sonnet), key_a_).Json()["model"], "model-s");
  HttpResult unknown = Post(V1(project_a_) + "/job", Body("Edit", {{"model", "haiku"}}), key_a_);
  ExpectError(unknown, 400, "an unknown model name");
  EXPECT_NE(unknown.Json()["error"].get<std::string>().find("known: sonnet, opus"),
            std::string::npos)
      << unknown.body;
  ExpectError(Post(V1(project_a_) + "/job", Body("Edit", {{"model", 3}}), key_a_), 400,
              "a model that is not a string");
}

TEST_F(ApiV1Test, BadBodiesAuthAndTenancyAreAsInV2) {
  const std::string create = V1(project_a_) + "/job";
  auto msg = [](json role, json content) {
    return json{{"messages", json::array({{{"role", role}, {"content", content}}})}}.dump();
  };
  for (const auto& [body, why] : std::vector<std::pair<std::string, std::string>>{
           {"{", "malformed JSON"},
           {"[]", "not an object"},
           {"{}", "no messages"},
           {R"({"messages": "fix"})", "messages not an array"},
           {R"({"messages": []})", "no message"},
           {msg("user", "   "), "a blank instruction"},
           {msg("assistant", "Only an example"), "no user or system message"},
           {msg("robot", "Fix"), "an unknown role"},
           {msg(nullptr, "Fix"), "no role"},
           {msg("user", 5), "content not a string"},
           {msg("user", "a\u0001b"), "a control character"},
           {msg("user", std::string(65537, 'x')), "too long"},
           {json{{"messages",
                  json::array({{{"role", "user"}, {"content", std::string(40000, 'x')}},
                               {{"role", "user"}, {"content", std::string(40000, 'y')}}})}}
                .dump(),
            "too long together"},
           {Body("Fix", {{"asDraft", "yes"}}), "asDraft not a boolean"},
           {Body("Fix", {{"branch", 7}}), "branch not a string"},
           {"\xff", "invalid UTF-8"}}) {
    ExpectError(Post(create, body, key_a_), 400, why);
  }
  json many = json::array();
  for (int i = 0; i < 101; ++i) many.push_back({{"role", "user"}, {"content", "x"}});
  ExpectError(Post(create, json{{"messages", many}}.dump(), key_a_), 400, "over 100 messages");
  ExpectError(Post(create, Body("Fix"), key_a_, "text/plain"), 415, "not JSON");
  ExpectError(Post(create, Body("Fix"), "dw_not-a-key"), 401, "a bad key");
  ExpectError(client_->Send("GET", V1(project_a_) + "/jobs"), 401, "no key");
  ExpectError(Post(V1(project_b_) + "/job", Body("Fix"), key_a_), 404, "another org's project");
  ExpectError(Get(V1(project_b_) + "/jobs", key_a_), 404, "another org's listing");
  std::string mine = CreateV1(Body("Fix [nochange]"));
  ExpectError(Get(V1(project_b_) + "/job/" + mine, key_a_), 404, "through another org's project");
  HttpResult theirs = Post(V1(project_b_) + "/job", Body("Fix [nochange]"), key_b_);
  ASSERT_EQ(theirs.status, 200);
  ExpectError(Get(V1(project_a_) + "/job/" + theirs.Header("x-session-id"), key_a_), 404,
              "another org's job");
  ExpectError(Get(V1(project_a_) + "/job/nope", key_a_), 404, "an id of no shape");
  ExpectError(client_->Send("DELETE", V1(project_a_) + "/job", "", Auth(key_a_)), 405, "DELETE");
}

}  // namespace
}  // namespace docwright::testing
