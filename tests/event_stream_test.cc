// The job event stream (GET /v2/agent/{projectId}/job/{id}/events) and steps
// recorded as they happen, against the real binary over loopback.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>

#include "fakes/fake_model.h"
#include "support/service_fixture.h"
#include "support/sse_reader.h"

namespace docwright::testing {
namespace {

using std::chrono::milliseconds;

class EventStreamTest : public ServiceTest {
 protected:
  void StartDefaultServer() override {
    StartServer(kScripted,
                {"--lease-seconds", "1", "--event-heartbeat", "1", "--event-streams-per-key", "3"});
  }

  std::string Events(const std::string& project, const std::string& id) {
    return Job(project, id) + "/events";
  }
  std::unique_ptr<SseReader> Open(const std::string& target, const std::string& key,
                                  Headers extra = {}) {
    extra.emplace_back("Authorization", "Bearer " + key);
    return std::make_unique<SseReader>(server_->port(), target, extra);
  }
  static std::vector<std::string> Types(const std::vector<SseEvent>& events) {
    std::vector<std::string> out;
    for (const auto& e : events) out.push_back(e.type);
    return out;
  }
};

TEST_F(EventStreamTest, AJobsEventsArriveInOrderAsTheyHappen) {
  const std::string hold = dir_ / "hold";
  std::string id = CreateJob("[await " + hold + "] [write docs/new.md Hello] Add a page")["id"];
  auto stream = Open(Events(project_a_, id), key_a_);
  ASSERT_EQ(stream->status(), 200) << stream->head();
  EXPECT_NE(stream->head().find("text/event-stream"), std::string::npos) << stream->head();
  auto& early = stream->ReadUntilType("turn.started", milliseconds(20000));
  ASSERT_EQ(Types(early), (std::vector<std::string>{"job.created", "turn.started"}));

  std::ofstream(hold) << "go";  // the turn goes on
  auto& all = stream->ReadUntilType("job.completed", milliseconds(30000));
  std::vector<std::string> types = Types(all);
  ASSERT_EQ(types.back(), "job.completed") << ::testing::PrintToString(types);
  EXPECT_EQ(types, (std::vector<std::string>{"job.created", "turn.started", "turn.step",
                                             "turn.step", "turn.step", "turn.ended",
                                             "pull_request.opened", "job.completed"}));
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].id, std::to_string(i + 1)) << "monotonic, from 1, without gaps";
    json event = all[i].Json();
    EXPECT_EQ(event["type"], all[i].type);
    EXPECT_EQ(event["sequence"], static_cast<int>(i + 1));
    EXPECT_EQ(event["jobId"], id);
    EXPECT_EQ(event["projectId"], project_a_);
    EXPECT_EQ(event["id"], id + "." + std::to_string(i + 1));
    EXPECT_EQ(event["version"], 1);
  }
  EXPECT_EQ(all[2].Json()["data"]["step"]["action"], "commit");
  EXPECT_EQ(all[3].Json()["data"]["step"]["action"], "push");
  EXPECT_EQ(all[4].Json()["data"]["step"]["action"], "pull_request");
  json job = Get(Job(project_a_, id), key_a_).Json();
  EXPECT_EQ(all.back().Json()["data"]["job"], job) << "the job as a poll shows it";
  EXPECT_EQ(all[6].Json()["data"]["prLink"], job["prLink"]);

  // The stream stays open for what a follow-up brings.
  ASSERT_EQ(
      Post(Job(project_a_, id) + "/message", Prompt("[nochange] Nothing more"), key_a_).status,
      200);
  auto& more = stream->ReadUntil(
      [](const auto& events) {
        return events.size() >= 11 && events.back().type == "job.completed";
      },
      milliseconds(30000));
  EXPECT_EQ(Types(more).at(8), "job.message_added");
  EXPECT_EQ(Types(more).at(9), "turn.started");
}

TEST_F(EventStreamTest, ResumingAfterAnEventMissesAndRepeatsNothing) {
  std::string id = CreateJob("[write docs/a.md A] Add a")["id"];
  ASSERT_EQ(WaitForEnd(id)["status"], "completed");
  auto whole = Open(Events(project_a_, id), key_a_);
  const auto& all = whole->ReadUntilType("job.completed", milliseconds(20000));
  ASSERT_GE(all.size(), 5u);
  for (size_t k = 0; k <= all.size(); ++k) {
    // As an EventSource resumes (Last-Event-ID), and with ?after=.
    for (bool header : {true, false}) {
      auto resumed =
          header ? Open(Events(project_a_, id), key_a_, {{"Last-Event-ID", std::to_string(k)}})
                 : Open(Events(project_a_, id) + "?after=" + std::to_string(k), key_a_);
      ASSERT_EQ(resumed->status(), 200);
      const auto& rest =
          resumed->ReadUntil([&](const auto& events) { return events.size() >= all.size() - k; },
                             milliseconds(k == all.size() ? 1500 : 20000));
      ASSERT_EQ(rest.size(), all.size() - k) << "after " << k;
      for (size_t i = 0; i < rest.size(); ++i) {
        EXPECT_EQ(rest[i].id, all[k + i].id);
        EXPECT_EQ(rest[i].data, all[k + i].data);
      }
    }
  }
}

TEST_F(EventStreamTest, AnIdleStreamSendsHeartbeats) {
  std::string id = CreateJob("[nochange] Look only")["id"];
  ASSERT_EQ(WaitForEnd(id)["status"], "completed");
  auto stream = Open(Events(project_a_, id), key_a_);
  stream->ReadUntilType("job.completed", milliseconds(20000));
  int before = stream->comments();
  stream->ReadFor(milliseconds(2500));  // the server's heartbeat is 1 s here
  EXPECT_GE(stream->comments() - before, 1);
  EXPECT_FALSE(stream->closed());
}

TEST_F(EventStreamTest, StreamsAreRefusedAsTheApiRefusesAndBoundedPerKey) {
  std::string id = CreateJob("[nochange] Look only")["id"];
  EXPECT_EQ(Open(Events(project_a_, id), "dw_not_a_key")->status(), 401);
  EXPECT_EQ(Open(Events(project_a_, id), key_b_)->status(), 404) << "another organisation";
  EXPECT_EQ(Open(Events(project_b_, id), key_b_)->status(), 404) << "another project";
  for (const char* bad : {"abc", "-1", "1.5", "99999999999999999999"}) {
    auto refused = Open(Events(project_a_, id), key_a_, {{"Last-Event-ID", bad}});
    EXPECT_EQ(refused->status(), 400) << bad;
  }
  // Three streams a key here; the fourth is refused until one closes.
  std::vector<std::unique_ptr<SseReader>> open;
  for (int i = 0; i < 3; ++i) {
    open.push_back(Open(Events(project_a_, id), key_a_));
    ASSERT_EQ(open.back()->status(), 200);
  }
  auto fourth = Open(Events(project_a_, id), key_a_);
  EXPECT_EQ(fourth->status(), 429);
  EXPECT_NE(fourth->head().find("Retry-After"), std::string::npos);
  HttpResult b = Post(Jobs(project_b_), Prompt("[nochange] B"), key_b_);
  ASSERT_EQ(b.status, 201);
  EXPECT_EQ(Open(Events(project_b_, b.Json()["id"]), key_b_)->status(), 200)
      << "another key has its own share";
  open.pop_back();
  EXPECT_TRUE(WaitUntil([&] { return Open(Events(project_a_, id), key_a_)->status() == 200; },
                        milliseconds(10000)))
      << "a closed stream frees its slot";
}

// Revoking a key or signing out ends the streams it opened: they send no more
// of the job's steps, and reconnecting is refused.
class StreamCredentialsTest : public EventStreamTest {
 protected:
  // A new admin key of organisation A (made with key_a_): its id and secret.
  std::pair<std::string, std::string> NewKey(const std::string& name) {
    HttpResult r = Post("/v2/keys", json{{"name", name}, {"role", "admin"}}.dump(), key_a_);
    EXPECT_EQ(r.status, 201) << r.body;
    json made = r.Json();
    if (!made.is_object() || !made["id"].is_string() || !made["key"].is_string()) return {};
    return {made["id"], made["key"]};
  }
  // Signs in with `key`: the session's cookie ("dw_session=...") and csrf token.
  std::pair<std::string, std::string> SignIn(const std::string& key) {
    HttpResult r = client_->Send("POST", "/v2/session", json{{"key", key}}.dump(),
                                 {{"Content-Type", "application/json"}});
    EXPECT_EQ(r.status, 200) << r.body;
    std::string set_cookie = r.Header("set-cookie");
    json body = r.Json();
    std::string csrf = body.is_object() && body["csrfToken"].is_string()
                           ? body["csrfToken"].get<std::string>()
                           : "";
    return {set_cookie.substr(0, set_cookie.find(';')), csrf};
  }
  std::unique_ptr<SseReader> OpenWithCookie(const std::string& target, const std::string& cookie) {
    return std::make_unique<SseReader>(server_->port(), target, Headers{{"Cookie", cookie}});
  }
  // A job whose turn is over: its stream stays open, sending heartbeats.
  std::string FinishedJob() {
    std::string id = CreateJob("[nochange] Look only")["id"];
    EXPECT_EQ(WaitForEnd(id)["status"], "completed");
    return id;
  }
  // Reads `stream` until the server closes it, up to `timeout`.
  static bool EndsWithin(SseReader& stream, milliseconds timeout) {
    stream.ReadFor(timeout);  // returns as soon as the connection closes
    return stream.closed();
  }
  // The stream goes on: a heartbeat (1 s here) arrives and it stays open.
  static void ExpectGoesOn(SseReader& stream, const std::string& context) {
    int before = stream.comments();
    stream.ReadUntil([&](const auto&) { return stream.comments() > before; }, milliseconds(5000));
    EXPECT_GT(stream.comments(), before) << context;
    EXPECT_FALSE(stream.closed()) << context;
  }
};

TEST_F(StreamCredentialsTest, RevokingAKeyThroughTheApiEndsItsStreamsAtOnce) {
  std::string id = FinishedJob();
  auto [key_id, key] = NewKey("laptop");
  ASSERT_FALSE(key.empty());
  auto bearer = Open(Events(project_a_, id), key);
  auto [cookie, csrf] = SignIn(key);
  auto by_session = OpenWithCookie(Events(project_a_, id), cookie);
  auto other = Open(Events(project_a_, id), key_a_);
  for (auto* s : {bearer.get(), by_session.get(), other.get()}) {
    ASSERT_EQ(s->status(), 200) << s->head();
    s->ReadUntilType("job.completed", milliseconds(20000));
  }

  HttpResult revoked = Post("/v2/keys/" + key_id + "/revoke", "", key_a_);
  ASSERT_EQ(revoked.status, 200) << revoked.body;
  // At once: well within the periodic check (5 s) and the heartbeat.
  EXPECT_TRUE(EndsWithin(*bearer, milliseconds(2000))) << "the key's Bearer stream";
  EXPECT_TRUE(EndsWithin(*by_session, milliseconds(2000))) << "its session's stream";
  EXPECT_EQ(Open(Events(project_a_, id), key)->status(), 401) << "the reconnect";
  EXPECT_EQ(OpenWithCookie(Events(project_a_, id), cookie)->status(), 401);
  ExpectGoesOn(*other, "another key's stream");
}

TEST_F(StreamCredentialsTest, ARevocationByAnotherProcessEndsTheKeysStreams) {
  std::string id = FinishedJob();
  const auto [key_id, secret] = NewKey("ci");
  const std::string key = secret;  // captured below
  ASSERT_FALSE(key.empty());
  auto stream = Open(Events(project_a_, id), key);
  auto other = Open(Events(project_a_, id), key_a_);
  ASSERT_EQ(stream->status(), 200) << stream->head();
  ASSERT_EQ(other->status(), 200) << other->head();
  stream->ReadUntilType("job.completed", milliseconds(20000));

  // The command line, on the same SQLite file: nothing is announced to the
  // server, whose periodic check (every 5 s) finds the key revoked.
  Admin({"key", "revoke", key_id});
  EXPECT_TRUE(EndsWithin(*stream, milliseconds(15000)));
  EXPECT_TRUE(WaitUntil([&] { return Open(Events(project_a_, id), key)->status() == 401; },
                        milliseconds(3000)))
      << "the reconnect";
  ExpectGoesOn(*other, "another key's stream");
}

TEST_F(StreamCredentialsTest, SigningOutEndsTheSessionsStreamsOnly) {
  std::string id = FinishedJob();
  auto [cookie, csrf] = SignIn(key_a_);
  ASSERT_FALSE(csrf.empty());
  auto by_session = OpenWithCookie(Events(project_a_, id), cookie);
  auto bearer = Open(Events(project_a_, id), key_a_);
  ASSERT_EQ(by_session->status(), 200) << by_session->head();
  ASSERT_EQ(bearer->status(), 200) << bearer->head();
  by_session->ReadUntilType("job.completed", milliseconds(20000));

  HttpResult out = client_->Send("POST", "/v2/session/end", "",
                                 {{"Cookie", cookie}, {"X-Docwright-CSRF", csrf}});
  ASSERT_EQ(out.status, 204) << out.body;
  EXPECT_TRUE(EndsWithin(*by_session, milliseconds(2000)));
  EXPECT_EQ(OpenWithCookie(Events(project_a_, id), cookie)->status(), 401) << "the reconnect";
  ExpectGoesOn(*bearer, "the same key's Bearer stream: the key is not revoked");
}

// With the real agent: a turn's steps are in the transcript, and the job's
// updatedAt moves, while the turn runs.
class StepsAsTheyHappenTest : public ServiceTest {
 protected:
  void StartDefaultServer() override {}
  std::unique_ptr<FakeModelServer> model_;
};

TEST_F(StepsAsTheyHappenTest, ARunningTurnsTranscriptShowsItsStepsSoFar) {
  constexpr const char* kModelKey = "sk-test-model-secret";
  FakeStep look;
  look.text = "Looking at the site first.";
  look.tool_calls.push_back(FakeToolCall{"list_files", json::object(), std::nullopt});
  FakeStep finish;
  finish.tool_calls.push_back(
      FakeToolCall{"finish", {{"summary", "Nothing to change."}}, std::nullopt});
  finish.delay = milliseconds(4000);  // the model thinks: the turn runs on
  model_ = std::make_unique<FakeModelServer>(FakeModelServer::Wire::kOpenAI, kModelKey,
                                             std::vector<FakeStep>{look, finish});
  StartServer(kReal, {"--lease-seconds", "5", "--workers", "2"},
              {"DOCWRIGHT_LLM_PROVIDER=openai", "DOCWRIGHT_LLM_BASE_URL=" + model_->BaseUrl(),
               std::string("DOCWRIGHT_LLM_API_KEY=") + kModelKey, "DOCWRIGHT_MODEL=docs-model-1"});
  HttpResult made = Post(Jobs(project_a_), Prompt("Check the docs"), key_a_);
  ASSERT_EQ(made.status, 201) << made.body;
  json job = made.Json();
  std::string id = job["id"];

  json steps;
  ASSERT_TRUE(WaitUntil(
      [&] {
        json t = Get(Job(project_a_, id) + "/messages", key_a_).Json();
        steps = t["messages"][0]["turn"]["steps"];
        return steps.size() >= 2;
      },
      milliseconds(20000)))
      << "no step recorded while the turn runs: " << steps;
  json running = Get(Job(project_a_, id), key_a_).Json();
  EXPECT_EQ(running["status"], "active") << "the model has not answered the second time yet";
  EXPECT_NE(running["updatedAt"], running["createdAt"]);
  EXPECT_EQ(steps[0]["type"], "assistant");
  EXPECT_EQ(steps[0]["text"], "Looking at the site first.");
  EXPECT_EQ(steps[1]["type"], "tool");
  EXPECT_EQ(steps[1]["tool"], "list_files");
  EXPECT_FALSE(steps[1]["result"].get<std::string>().empty());

  json done = WaitForEnd(id);
  EXPECT_EQ(done["status"], "completed");
  json t = Get(Job(project_a_, id) + "/messages", key_a_).Json();
  json final_steps = t["messages"][0]["turn"]["steps"];
  ASSERT_GE(final_steps.size(), 3u);
  EXPECT_EQ(final_steps[0], steps[0]) << "the steps recorded early are the outcome's";
  EXPECT_EQ(final_steps[1], steps[1]);
}

}  // namespace
}  // namespace docwright::testing
