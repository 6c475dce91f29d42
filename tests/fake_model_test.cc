#include "fakes/fake_model.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "agent/model_agent.h"
#include "git/git.h"
#include "http/client.h"
#include "support/git_repo.h"
#include "support/temp_dir.h"

namespace docwright::testing {
namespace {

using nlohmann::json;
using Wire = FakeModelServer::Wire;

const std::string kKey = "sk-test-key";

json Schema() {
  return json{{"type", "object"},
              {"properties", {{"path", {{"type", "string"}}}, {"content", {{"type", "string"}}}}},
              {"required", {"path", "content"}}};
}

// Posts `body` the way the provider's clients do, with `key`.
http::Response Post(const FakeModelServer& fake, Wire wire, const json& body,
                    const std::string& key = kKey) {
  http::Request r;
  r.method = "POST";
  r.body = body.dump();
  if (wire == Wire::kOpenAI) {
    r.url = fake.BaseUrl() + "/chat/completions";
    r.headers = {{"Authorization", "Bearer " + key}, {"Content-Type", "application/json"}};
  } else {
    r.url = fake.BaseUrl() + "/v1/messages";
    r.headers = {{"x-api-key", key},
                 {"anthropic-version", "2023-06-01"},
                 {"Content-Type", "application/json"}};
  }
  http::Client client;
  auto reply = client.Send(r);
  EXPECT_TRUE(reply.ok()) << reply.status().message();
  return reply.ok() ? *reply : http::Response{};
}

json Parse(const http::Response& r) {
  json j = json::parse(r.body, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.body;
  return j;
}

// A conversation as docwright's providers write it, grown reply by reply.
struct OpenAIChat {
  json body;
  explicit OpenAIChat(const std::string& prompt) {
    body = {{"model", "gpt-test"},
            {"max_completion_tokens", 1024},
            {"tool_choice", "auto"},
            {"messages",
             {{{"role", "system"}, {"content", "You edit documentation."}},
              {{"role", "user"}, {"content", prompt}}}},
            {"tools",
             {{{"type", "function"},
               {"function",
                {{"name", "write_file"},
                 {"description", "Create or overwrite a file."},
                 {"parameters", Schema()}}}}}}};
  }
  // Appends the reply's message and a result for each of its tool calls.
  void Continue(const json& reply, const std::string& result) {
    json message = reply["choices"][0]["message"];
    body["messages"].push_back(message);
    for (const auto& call : message.value("tool_calls", json::array())) {
      body["messages"].push_back(
          {{"role", "tool"}, {"tool_call_id", call["id"]}, {"content", result}});
    }
  }
};

struct AnthropicChat {
  json body;
  explicit AnthropicChat(const std::string& prompt) {
    body = {{"model", "claude-test"},
            {"max_tokens", 1024},
            {"system", "You edit documentation."},
            {"messages", {{{"role", "user"}, {"content", prompt}}}},
            {"tools",
             {{{"name", "write_file"},
               {"description", "Create or overwrite a file."},
               {"input_schema", Schema()}}}}};
  }
  void Continue(const json& reply, const std::string& result) {
    body["messages"].push_back({{"role", "assistant"}, {"content", reply["content"]}});
    json results = json::array();
    for (const auto& block : reply["content"]) {
      if (block["type"] == "tool_use") {
        results.push_back(
            {{"type", "tool_result"}, {"tool_use_id", block["id"]}, {"content", result}});
      }
    }
    if (!results.empty()) body["messages"].push_back({{"role", "user"}, {"content", results}});
  }
};

std::vector<FakeStep> WriteThenFinish() {
  FakeStep write;
  write.text = "Writing.";
  write.tool_calls.push_back(
      {"write_file", {{"path", "notes/{{prompt_hash}}.md"}, {"content", "hello"}}, std::nullopt});
  FakeStep finish;
  finish.text = "Done: {{last_tool_result}}";
  return {write, finish};
}

bool Mentions(const std::vector<std::string>& violations, const std::string& part) {
  for (const auto& v : violations) {
    if (v.find(part) != std::string::npos) return true;
  }
  return false;
}

std::string Joined(const std::vector<std::string>& violations) {
  std::string out;
  for (const auto& v : violations) out += v + "\n";
  return out;
}

TEST(FakeModel, OpenAIToolCallsThenAnswerFromTheToolResult) {
  FakeModelServer fake(Wire::kOpenAI, kKey, WriteThenFinish());
  EXPECT_EQ(fake.BaseUrl(), "http://127.0.0.1:" + std::to_string(fake.port()) + "/v1");
  OpenAIChat chat("Document the install steps.");
  http::Response first = Post(fake, Wire::kOpenAI, chat.body);
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(first.Header("content-type"), "application/json");
  json r = Parse(first);
  EXPECT_EQ(r["object"], "chat.completion");
  EXPECT_EQ(r["model"], "gpt-test");
  EXPECT_TRUE(r["id"].is_string());
  EXPECT_TRUE(r["created"].is_number_integer());
  const json& choice = r["choices"][0];
  EXPECT_EQ(choice["index"], 0);
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_EQ(choice["message"]["role"], "assistant");
  EXPECT_EQ(choice["message"]["content"], "Writing.");
  const json& call = choice["message"]["tool_calls"][0];
  EXPECT_EQ(call["id"], "call_0_0");
  EXPECT_EQ(call["type"], "function");
  EXPECT_EQ(call["function"]["name"], "write_file");
  ASSERT_TRUE(call["function"]["arguments"].is_string());
  json args = json::parse(call["function"]["arguments"].get<std::string>());
  std::string path = args["path"];
  EXPECT_EQ(path.size(), std::string("notes/.md").size() + 12) << path;
  EXPECT_EQ(args["content"], "hello");
  const json& usage = r["usage"];
  EXPECT_GT(usage["prompt_tokens"].get<int>(), 0);
  EXPECT_GT(usage["completion_tokens"].get<int>(), 0);
  EXPECT_EQ(usage["total_tokens"],
            usage["prompt_tokens"].get<int>() + usage["completion_tokens"].get<int>());

  // Another conversation writes another file.
  json other = Parse(Post(fake, Wire::kOpenAI, OpenAIChat("Fix the typos.").body));
  EXPECT_NE(other["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"],
            call["function"]["arguments"]);

  chat.Continue(r, "wrote " + path);
  json second = Parse(Post(fake, Wire::kOpenAI, chat.body));
  EXPECT_EQ(second["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(second["choices"][0]["message"]["content"], "Done: wrote " + path);
  EXPECT_FALSE(second["choices"][0]["message"].contains("tool_calls"));
  EXPECT_GT(second["usage"]["prompt_tokens"].get<int>(), usage["prompt_tokens"].get<int>());

  EXPECT_TRUE(fake.Violations().empty()) << Joined(fake.Violations());
  ASSERT_EQ(fake.Requests().size(), 3u);
  EXPECT_EQ(fake.Requests()[2], chat.body);
}

TEST(FakeModel, AnthropicToolUseThenAnswerFromTheToolResult) {
  FakeModelServer fake(Wire::kAnthropic, kKey, WriteThenFinish());
  EXPECT_EQ(fake.BaseUrl(), "http://127.0.0.1:" + std::to_string(fake.port()));
  AnthropicChat chat("Document the install steps.");
  http::Response first = Post(fake, Wire::kAnthropic, chat.body);
  ASSERT_EQ(first.status, 200) << first.body;
  json r = Parse(first);
  EXPECT_EQ(r["type"], "message");
  EXPECT_EQ(r["role"], "assistant");
  EXPECT_EQ(r["model"], "claude-test");
  EXPECT_EQ(r["stop_reason"], "tool_use");
  EXPECT_TRUE(r["stop_sequence"].is_null());
  ASSERT_EQ(r["content"].size(), 2u);
  EXPECT_EQ(r["content"][0], (json{{"type", "text"}, {"text", "Writing."}}));
  const json& use = r["content"][1];
  EXPECT_EQ(use["type"], "tool_use");
  EXPECT_EQ(use["id"], "toolu_0_0");
  EXPECT_EQ(use["name"], "write_file");
  ASSERT_TRUE(use["input"].is_object());
  std::string path = use["input"]["path"];
  EXPECT_EQ(path.size(), std::string("notes/.md").size() + 12) << path;
  EXPECT_GT(r["usage"]["input_tokens"].get<int>(), 0);
  EXPECT_GT(r["usage"]["output_tokens"].get<int>(), 0);

  chat.Continue(r, "wrote " + path);
  json second = Parse(Post(fake, Wire::kAnthropic, chat.body));
  EXPECT_EQ(second["stop_reason"], "end_turn");
  EXPECT_EQ(second["content"], json::array({{{"type", "text"}, {"text", "Done: wrote " + path}}}));
  EXPECT_TRUE(fake.Violations().empty()) << Joined(fake.Violations());
}

TEST(FakeModel, TheSamePromptHashesTheSameOnBothWires) {
  FakeModelServer openai(Wire::kOpenAI, kKey, WriteThenFinish());
  FakeModelServer anthropic(Wire::kAnthropic, kKey, WriteThenFinish());
  json a = Parse(Post(openai, Wire::kOpenAI, OpenAIChat("Same prompt").body));
  json b = Parse(Post(anthropic, Wire::kAnthropic, AnthropicChat("Same prompt").body));
  json args = json::parse(
      a["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"].get<std::string>());
  EXPECT_EQ(args["path"], b["content"][1]["input"]["path"]);
}

TEST(FakeModel, ScriptedFailuresComeFirstThenTheReplyCountedOverAllConversations) {
  for (Wire wire : {Wire::kOpenAI, Wire::kAnthropic}) {
    FakeStep flaky;
    flaky.text = "ok";
    flaky.fail_status = 429;
    flaky.fail_times = 2;
    flaky.fail_headers = {{"Retry-After", "7"}};
    FakeModelServer fake(wire, kKey, {flaky});
    json body = wire == Wire::kOpenAI ? OpenAIChat("a").body : AnthropicChat("a").body;
    for (int i = 0; i < 2; ++i) {
      http::Response r = Post(fake, wire, body);
      EXPECT_EQ(r.status, 429);
      EXPECT_EQ(r.Header("retry-after"), "7");
      json error = Parse(r);
      if (wire == Wire::kOpenAI) {
        EXPECT_EQ(error["error"]["code"], "rate_limit_exceeded");
        EXPECT_TRUE(error["error"]["message"].is_string());
      } else {
        EXPECT_EQ(error["type"], "error");
        EXPECT_EQ(error["error"]["type"], "rate_limit_error");
      }
    }
    EXPECT_EQ(Post(fake, wire, body).status, 200);
    // Another conversation at the same position is past the failures too.
    json other = wire == Wire::kOpenAI ? OpenAIChat("b").body : AnthropicChat("b").body;
    EXPECT_EQ(Post(fake, wire, other).status, 200);
    EXPECT_TRUE(fake.Violations().empty()) << Joined(fake.Violations());
  }
}

TEST(FakeModel, DocwrightsClientRetriesThroughScriptedServerErrors) {
  FakeStep flaky;
  flaky.text = "ok";
  flaky.fail_status = 503;
  flaky.fail_times = 2;
  FakeModelServer fake(Wire::kAnthropic, kKey, {flaky});
  http::Request r;
  r.method = "POST";
  r.url = fake.BaseUrl() + "/v1/messages";
  r.headers = {{"x-api-key", kKey},
               {"anthropic-version", "2023-06-01"},
               {"content-type", "application/json"}};
  r.body = AnthropicChat("a").body.dump();
  http::RetryPolicy policy;
  policy.max_attempts = 3;
  int waits = 0;
  policy.sleep = [&](std::chrono::milliseconds) { return ++waits > 0; };
  http::Client client;
  auto reply = client.SendWithRetries(r, policy);
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(waits, 2);
  EXPECT_EQ(fake.Requests().size(), 3u);
}

TEST(FakeModel, ThePositionIsTheNumberOfAssistantMessagesAndTheLastStepRepeats) {
  std::vector<FakeStep> script(3);
  for (int i = 0; i < 3; ++i) script[i].text = "step " + std::to_string(i);
  FakeModelServer fake(Wire::kOpenAI, kKey, script);
  auto at = [&](int position) {
    OpenAIChat chat("prompt " + std::to_string(position));
    for (int i = 0; i < position; ++i) {
      chat.body["messages"].push_back(
          {{"role", "assistant"}, {"content", "said " + std::to_string(i)}});
      chat.body["messages"].push_back({{"role", "user"}, {"content", "go on"}});
    }
    return Parse(Post(fake, Wire::kOpenAI, chat.body))["choices"][0]["message"]["content"];
  };
  // Conversations interleaved in any order get the step of their own position.
  EXPECT_EQ(at(2), "step 2");
  EXPECT_EQ(at(0), "step 0");
  EXPECT_EQ(at(1), "step 1");
  EXPECT_EQ(at(5), "step 2");
  EXPECT_EQ(at(0), "step 0");
  EXPECT_TRUE(fake.Violations().empty()) << Joined(fake.Violations());
}

TEST(FakeModel, AWrongKeyIsRefusedInTheProvidersFormat) {
  FakeModelServer openai(Wire::kOpenAI, kKey, WriteThenFinish());
  http::Response r = Post(openai, Wire::kOpenAI, OpenAIChat("a").body, "sk-wrong");
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(Parse(r)["error"]["code"], "invalid_api_key");
  EXPECT_EQ(r.body.find("sk-wrong"), std::string::npos);

  FakeModelServer anthropic(Wire::kAnthropic, kKey, WriteThenFinish());
  r = Post(anthropic, Wire::kAnthropic, AnthropicChat("a").body, "sk-wrong");
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(Parse(r)["error"]["type"], "authentication_error");
  // A wrong key is the caller's choice; only a missing header is a violation.
  EXPECT_TRUE(openai.Violations().empty());
  EXPECT_TRUE(anthropic.Violations().empty());
}

TEST(FakeModel, RawArgumentsAndRawBodiesAreSentAsScripted) {
  FakeStep malformed;
  malformed.tool_calls.push_back({"write_file", json::object(), std::string("{\"path\": ")});
  FakeStep raw;
  raw.raw_body = "{\"choices\": [";
  {
    FakeModelServer fake(Wire::kOpenAI, kKey, {malformed, raw});
    OpenAIChat chat("a");
    json r = Parse(Post(fake, Wire::kOpenAI, chat.body));
    EXPECT_EQ(r["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"], "{\"path\": ");
    EXPECT_TRUE(r["choices"][0]["message"]["content"].is_null());
    chat.Continue(r, "error: the arguments are not JSON");
    http::Response second = Post(fake, Wire::kOpenAI, chat.body);
    EXPECT_EQ(second.status, 200);
    EXPECT_EQ(second.body, "{\"choices\": [");
    EXPECT_TRUE(fake.Violations().empty()) << Joined(fake.Violations());
  }
  {
    FakeModelServer fake(Wire::kAnthropic, kKey, {malformed});
    json r = Parse(Post(fake, Wire::kAnthropic, AnthropicChat("a").body));
    EXPECT_EQ(r["content"][0]["input"], "{\"path\": ")
        << "not an object: as malformed as the wire allows";
  }
}

TEST(FakeModel, TheLastToolResultIsBounded) {
  FakeModelServer fake(Wire::kOpenAI, kKey, WriteThenFinish());
  OpenAIChat chat("a");
  json r = Parse(Post(fake, Wire::kOpenAI, chat.body));
  chat.Continue(r, std::string(10000, 'x'));
  json second = Parse(Post(fake, Wire::kOpenAI, chat.body));
  std::string text = second["choices"][0]["message"]["content"];
  EXPECT_EQ(text, "Done: " + std::string(4096, 'x'));
}

// Each request breaks one documented rule; the fake names it.
struct Case {
  std::string name;
  std::function<void(json&)> mutate;
  std::string expected;  // part of the violation
};

void ExpectViolations(Wire wire, const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    FakeModelServer fake(wire, kKey, WriteThenFinish());
    json body;
    if (wire == Wire::kOpenAI) {
      OpenAIChat chat("a");
      chat.Continue(Parse(Post(fake, wire, chat.body)), "wrote it");
      body = chat.body;
    } else {
      AnthropicChat chat("a");
      chat.Continue(Parse(Post(fake, wire, chat.body)), "wrote it");
      body = chat.body;
    }
    ASSERT_TRUE(fake.Violations().empty()) << c.name << ": " << Joined(fake.Violations());
    c.mutate(body);
    Post(fake, wire, body);
    EXPECT_TRUE(Mentions(fake.Violations(), c.expected))
        << c.name << ": expected \"" << c.expected << "\" in:\n"
        << Joined(fake.Violations());
  }
}

TEST(FakeModel, RecordsOpenAIRequestsThatBreakTheApisRules) {
  // The conversation: system, user, assistant (tool_calls call_0_0), tool.
  ExpectViolations(
      Wire::kOpenAI,
      {
          {"no model", [](json& b) { b.erase("model"); }, "missing required field model"},
          {"unknown field", [](json& b) { b["temprature"] = 1; }, "undocumented field temprature"},
          {"max tokens", [](json& b) { b["max_completion_tokens"] = 0; }, "must be positive"},
          {"role", [](json& b) { b["messages"][1]["role"] = "human"; }, "role must be"},
          {"tool message without a call",
           [](json& b) {
             b["messages"].push_back({{"role", "user"}, {"content", "and?"}});
             b["messages"].push_back({{"role", "tool"}, {"tool_call_id", "x"}, {"content", "?"}});
           },
           "must follow an assistant message with tool_calls"},
          {"unanswered call", [](json& b) { b["messages"].erase(3); },
           "no tool message answers call_0_0"},
          {"user between call and result",
           [](json& b) {
             b["messages"].insert(b["messages"].begin() + 3,
                                  json{{"role", "user"}, {"content", "hi"}});
           },
           "comes before tool messages answered call_0_0"},
          {"wrong call id", [](json& b) { b["messages"][3]["tool_call_id"] = "call_9_9"; },
           "is not a call of the preceding assistant message"},
          {"arguments not a string",
           [](json& b) {
             b["messages"][2]["tool_calls"][0]["function"]["arguments"] = json::object();
           },
           "field arguments must be string"},
          {"tool name", [](json& b) { b["tools"][0]["function"]["name"] = "write file"; },
           "does not match"},
          {"schema type",
           [](json& b) { b["tools"][0]["function"]["parameters"]["type"] = "array"; },
           "\"type\": \"object\""},
          {"duplicate tool", [](json& b) { b["tools"].push_back(b["tools"][0]); }, "is not unique"},
          {"tool_choice", [](json& b) { b["tool_choice"] = "always"; }, "tool_choice"},
      });
}

TEST(FakeModel, RecordsAnthropicRequestsThatBreakTheApisRules) {
  // The conversation: user, assistant (text, tool_use toolu_0_0), user (tool_result).
  ExpectViolations(
      Wire::kAnthropic,
      {
          {"no max_tokens", [](json& b) { b.erase("max_tokens"); },
           "missing required field max_tokens"},
          {"zero max_tokens", [](json& b) { b["max_tokens"] = 0; }, "must be positive"},
          {"float max_tokens", [](json& b) { b["max_tokens"] = 10.5; },
           "max_tokens must be integer"},
          {"system role", [](json& b) { b["messages"][0]["role"] = "system"; },
           "role must be user or assistant"},
          {"starts with assistant", [](json& b) { b["messages"].erase(0); },
           "the first message must be the user's"},
          {"not alternating",
           [](json& b) {
             b["messages"].push_back({{"role", "user"}, {"content", "more"}});
           },
           "two user messages in a row"},
          {"no tool_result", [](json& b) { b["messages"][2]["content"] = "ok"; },
           "no tool_result for tool_use toolu_0_0"},
          {"wrong tool_use_id",
           [](json& b) { b["messages"][2]["content"][0]["tool_use_id"] = "toolu_9"; },
           "which the assistant message before it did not use"},
          {"text before tool_result",
           [](json& b) {
             auto& c = b["messages"][2]["content"];
             c.insert(c.begin(), json{{"type", "text"}, {"text", "here"}});
           },
           "tool_result blocks must come first"},
          {"unanswered at the end", [](json& b) { b["messages"].erase(2); },
           "no user message answers"},
          {"input not an object", [](json& b) { b["messages"][1]["content"][1]["input"] = "{}"; },
           "field input must be object"},
          {"empty text", [](json& b) { b["messages"][1]["content"][0]["text"] = ""; },
           "must be non-empty"},
          {"tool name", [](json& b) { b["tools"][0]["name"] = std::string(65, 'a'); },
           "does not match"},
          {"schema",
           [](json& b) {
             b["tools"][0]["input_schema"] = {{"properties", json::object()}};
           },
           "\"type\": \"object\""},
          {"OpenAI's tool shape",
           [](json& b) {
             b["tools"][0] = {{"type", "function"}, {"function", {{"name", "x"}}}};
           },
           "undocumented field function"},
      });
}

TEST(FakeModel, RecordsWrongEndpointsAndHeaders) {
  FakeModelServer fake(Wire::kAnthropic, kKey, WriteThenFinish());
  http::Client client;
  json body = AnthropicChat("a").body;
  http::Request r{"POST",
                  fake.BaseUrl() + "/v1/messages",
                  {{"x-api-key", kKey}, {"content-type", "application/json"}},
                  body.dump()};
  EXPECT_EQ(client.Send(r)->status, 200);
  EXPECT_TRUE(Mentions(fake.Violations(), "anthropic-version")) << Joined(fake.Violations());

  r.headers = {{"anthropic-version", "2023-06-01"}, {"content-type", "application/json"}};
  EXPECT_EQ(client.Send(r)->status, 401);
  EXPECT_TRUE(Mentions(fake.Violations(), "no x-api-key header"));

  r.headers = {
      {"x-api-key", kKey}, {"anthropic-version", "2023-06-01"}, {"content-type", "text/plain"}};
  EXPECT_EQ(client.Send(r)->status, 200);
  EXPECT_TRUE(Mentions(fake.Violations(), "application/json"));

  r.headers = {{"x-api-key", kKey},
               {"anthropic-version", "2023-06-01"},
               {"content-type", "application/json"}};
  r.url = fake.BaseUrl() + "/v1/chat/completions";
  http::Response wrong = *client.Send(r);
  EXPECT_EQ(wrong.status, 404);
  EXPECT_EQ(Parse(wrong)["error"]["type"], "not_found_error");
  EXPECT_TRUE(Mentions(fake.Violations(), "no such endpoint"));

  r.url = fake.BaseUrl() + "/v1/messages";
  r.body = "{not json";
  EXPECT_EQ(client.Send(r)->status, 400);
  EXPECT_TRUE(Mentions(fake.Violations(), "not a JSON object"));
}

TEST(FakeModel, ManyConcurrentConversationsShareTheFailureCount) {
  FakeStep step;
  step.tool_calls.push_back(
      {"write_file", {{"path", "{{prompt_hash}}"}, {"content", "x"}}, std::nullopt});
  step.fail_status = 503;
  step.fail_times = 10;
  FakeModelServer fake(Wire::kOpenAI, kKey, {step});
  fake.RecordRequests(false);
  std::atomic<int> ok{0}, failed{0};
  std::mutex mu;
  std::set<std::string> paths;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        http::Response r =
            Post(fake, Wire::kOpenAI, OpenAIChat("job " + std::to_string(t * 100 + i)).body);
        if (r.status != 200) {
          ++failed;
          continue;
        }
        ++ok;
        json args =
            json::parse(Parse(r)["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
                            .get<std::string>());
        std::lock_guard lock(mu);
        paths.insert(args["path"].get<std::string>());
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failed, 10);
  EXPECT_EQ(ok, 190);
  EXPECT_EQ(paths.size(), 190u) << "each conversation has its own prompt hash";
  EXPECT_TRUE(fake.Requests().empty());
  EXPECT_TRUE(fake.Violations().empty()) << Joined(fake.Violations());
}

TEST(FakeModel, ParsesTheJsonScript) {
  auto script = FakeModelServer::ParseScript(R"({"steps": [
    // comments are allowed
    {"text": "Writing.", "tool_calls": [
      {"name": "write_file", "arguments": {"path": "a.md", "content": "x"}},
      {"name": "edit_file", "raw_arguments": "{\"path\": "}]},
    {"fail": {"status": 429, "times": 2, "headers": {"Retry-After": "1"}}, "text": "ok", "delay_ms": 5},
    {"raw_body": "{}"}
  ]})");
  ASSERT_TRUE(script.ok()) << script.status().message();
  ASSERT_EQ(script->size(), 3u);
  const auto& s = *script;
  EXPECT_EQ(s[0].text, "Writing.");
  ASSERT_EQ(s[0].tool_calls.size(), 2u);
  EXPECT_EQ(s[0].tool_calls[0].arguments, (json{{"path", "a.md"}, {"content", "x"}}));
  EXPECT_FALSE(s[0].tool_calls[0].raw_arguments);
  EXPECT_EQ(s[0].tool_calls[1].raw_arguments, "{\"path\": ");
  EXPECT_EQ(s[1].fail_status, 429);
  EXPECT_EQ(s[1].fail_times, 2);
  EXPECT_EQ(s[1].fail_headers.at("Retry-After"), "1");
  EXPECT_EQ(s[1].delay, std::chrono::milliseconds(5));
  EXPECT_EQ(s[2].raw_body, "{}");
  EXPECT_TRUE(FakeModelServer::ParseScript(R"([{"text": "bare arrays too"}])").ok());

  for (const auto& [text, problem] : std::vector<std::pair<std::string, std::string>>{
           {"[{\"txt\": \"x\"}]", "steps[0]: unknown key \"txt\""},
           {"[{\"tool_calls\": [{\"arguments\": {}}]}]", "steps[0].tool_calls[0]: no name"},
           {"[{\"tool_calls\": [{\"name\": \"a\", \"arguments\": {}, \"raw_arguments\": \"\"}]}]",
            "not both"},
           {"[{\"fail\": {\"times\": 2}}]", "steps[0].fail: no status"},
           {"[{\"fail\": {\"status\": 200}}]", "an HTTP error status"},
           {"{\"step\": []}", "an array of steps"},
           {"[", "not JSON"}}) {
    auto bad = FakeModelServer::ParseScript(text);
    ASSERT_FALSE(bad.ok()) << text;
    EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
    EXPECT_NE(bad.status().message().find(problem), std::string::npos) << bad.status().message();
  }
}

// --- Prompt caching ----------------------------------------------------------------

// A prompt of about `tokens` tokens (4 bytes each) for the cache's rules.
std::string Filler(size_t tokens) { return std::string(tokens * 4, 'x'); }

json AnthropicCached(const std::string& model, const std::string& system, int breakpoints) {
  json body{{"model", model},
            {"max_tokens", 100},
            {"system", {{{"type", "text"}, {"text", system}}}},
            {"messages", {{{"role", "user"}, {"content", {{{"type", "text"}, {"text", "hi"}}}}}}}};
  for (int i = 0; i < breakpoints; ++i) {
    body["system"].push_back({{"type", "text"},
                              {"text", "part " + std::to_string(i)},
                              {"cache_control", {{"type", "ephemeral"}}}});
  }
  return body;
}

// Anthropic caches only at breakpoints, from the model's minimum on (2048
// tokens for Haiku), and refuses a fifth breakpoint.
TEST(FakeModelCache, AnthropicMinimumsAndBreakpointLimit) {
  FakeModelServer fake(Wire::kAnthropic, kKey, {});
  auto usage = [&](const json& body) { return Parse(Post(fake, Wire::kAnthropic, body))["usage"]; };
  std::string system = Filler(1500);
  EXPECT_EQ(usage(AnthropicCached("claude-haiku-test", system, 1))["cache_creation_input_tokens"],
            0)
      << "under Haiku's 2048";
  json written = usage(AnthropicCached("claude-sonnet-test", system, 1));
  EXPECT_GT(written["cache_creation_input_tokens"].get<int>(), 1500);
  json read = usage(AnthropicCached("claude-sonnet-test", system, 1));
  EXPECT_EQ(read["cache_read_input_tokens"], written["cache_creation_input_tokens"]);
  EXPECT_EQ(read["cache_creation_input_tokens"], 0);
  EXPECT_EQ(usage(AnthropicCached("claude-sonnet-test", system, 0))["cache_read_input_tokens"], 0)
      << "no breakpoint: nothing read";
  EXPECT_TRUE(fake.Violations().empty()) << fake.Violations().front();

  auto refused = Post(fake, Wire::kAnthropic, AnthropicCached("claude-sonnet-test", system, 5));
  EXPECT_EQ(refused.status, 400);
  EXPECT_EQ(fake.Violations().size(), 1u);
}

// A real turn of the agent over the OpenAI wire: every request starts with the
// previous one's bytes (the system prompt, the tools, the conversation so far),
// so OpenAI serves that prefix from its cache, and the agent records it.
TEST(FakeModelCache, AnAgentTurnKeepsTheOpenAiPrefixByteIdentical) {
  TempDir dir;
  MakeDocsRemote(dir / "docs.git");
  auto mirror = git::Mirror::Open(dir / "m.git", dir / "docs.git", git::Credentials{});
  ASSERT_TRUE(mirror.ok()) << mirror.status().message();
  auto snapshot = (*mirror)->OpenSnapshot(*(*mirror)->FetchBranch("main"));
  ASSERT_TRUE(snapshot.ok());
  git::Workspace work(**snapshot);

  std::vector<FakeStep> script(4);
  script[0].tool_calls = {{"read_file", {{"path", "index.mdx"}}}};
  script[1].tool_calls = {{"read_file", {{"path", "quickstart.mdx"}}}};
  script[2].tool_calls = {{"list_files", json::object()}};
  script[3].tool_calls = {{"finish", {{"summary", "Nothing to change."}, {"title", "No change"}}}};
  FakeModelServer fake(Wire::kOpenAI, kKey, script);
  agent::ModelAgent agent(
      llm::ProviderConfig{.provider = "openai", .base_url = fake.BaseUrl(), .api_key = kKey});
  TurnInput turn;
  turn.job.model = "gpt-test";
  turn.message.prompt = "Check the quickstart";
  CancelToken cancel;
  agent::AgentResult result = agent.Run(turn, work, {}, cancel);
  ASSERT_TRUE(result.succeeded) << result.error.value_or("");

  auto requests = fake.Requests();
  ASSERT_EQ(requests.size(), 4u);
  for (size_t i = 1; i < requests.size(); ++i) {
    EXPECT_EQ(requests[i]["tools"].dump(), requests[i - 1]["tools"].dump()) << i;
    std::string before = requests[i - 1]["messages"].dump();
    std::string now = requests[i]["messages"].dump();
    before.pop_back();  // the closing bracket
    EXPECT_EQ(now.substr(0, before.size()), before) << "step " << i << " rewrote the prefix";
  }
  EXPECT_GT(result.usage.cached_input_tokens, 0);
  EXPECT_EQ(result.usage.cache_write_tokens, 0);
  EXPECT_TRUE(fake.Violations().empty()) << fake.Violations().front();
}

}  // namespace
}  // namespace docwright::testing
