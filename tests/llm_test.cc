// The model providers against the fake model server, which speaks each
// provider's wire format and checks every request as the API documents it.
#include "llm/llm.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "core/metrics.h"
#include "fakes/fake_model.h"
#include "fakes/scripted_http_server.h"
#include "llm/json_body.h"

namespace docwright::llm {
namespace {

using testing::FakeModelServer;
using testing::FakeStep;
using Wire = FakeModelServer::Wire;

constexpr const char* kKey = "sk-llm-test";

std::unique_ptr<Model> OpenAi(const std::string& base_url, const std::string& provider = "openai",
                              bool prompt_cache = true) {
  ProviderConfig config;
  config.provider = provider;
  config.prompt_cache = prompt_cache;
  config.base_url = base_url;
  config.api_key = kKey;
  config.sleep = [](std::chrono::milliseconds) { return true; };
  auto model = MakeModel(config);
  EXPECT_TRUE(model.ok()) << model.status().message();
  return model.ok() ? std::move(*model) : nullptr;
}

ModelRequest Hello() {
  ModelRequest request;
  request.model = "reasoning-model";
  request.messages = {{ChatMessage::Role::kUser, "Say hello"}};
  request.max_output_tokens = 1000;
  return request;
}

// OpenAI's reasoning models refuse `max_tokens`; other servers may not know
// `max_completion_tokens`. The provider takes the name the server asks for, once.
// DumpJson writes what nlohmann's dump writes, byte for byte (a model's cache
// reuses a prefix only when it is byte-identical): every byte alone, valid and
// invalid UTF-8, escapes in keys, numbers, nesting past its depth, and
// thousands of random strings over the bytes that matter.
TEST(JsonBody, WritesWhatNlohmannsDumpWrites) {
  using nlohmann::json;
  auto dumped = [](const json& v) {
    return v.dump(-1, ' ', false, json::error_handler_t::replace);
  };
  std::vector<std::string> strings = {"",
                                      "plain",
                                      "quote\" and back\\slash",
                                      "\b\f\n\r\t",
                                      std::string("nul\0in", 6),
                                      "\x7f",
                                      "\xc3\xa9",
                                      "\xe2\x82\xac",
                                      "\xf0\x9f\x98\x80",
                                      "\xc0\x80",
                                      "\xc1\xbf",
                                      "\xe0\x80\x80",
                                      "\xed\xa0\x80",
                                      "\xed\x9f\xbf",
                                      "\xf4\x8f\xbf\xbf",
                                      "\xf4\x90\x80\x80",
                                      "\xf5\x80\x80\x80",
                                      "\xe2\x82",
                                      "\x80",
                                      "a\xff"
                                      "b",
                                      "\xf0\x90\x80",
                                      "\xef\xbf\xbd"};
  for (int c = 0; c < 256; ++c) strings.push_back(std::string(1, static_cast<char>(c)));
  const std::string alphabet("ab\"\\\n\x01\x1f\x7f\x80\xbf\xc2\xdf\xe0\xed\xef\xf0\xf4\xff\xa0\x9f",
                             20);
  std::mt19937 rng(20261127);
  for (int i = 0; i < 20000; ++i) {
    std::string s(rng() % 24, ' ');
    for (char& c : s) c = alphabet[rng() % alphabet.size()];
    strings.push_back(std::move(s));
  }
  for (const std::string& s : strings) {
    ASSERT_EQ(DumpJson(json(s)), dumped(json(s)))
        << json(s).dump(-1, ' ', true, json::error_handler_t::replace);
    json keyed = {{s, s}, {"b", {1, s}}};
    ASSERT_EQ(DumpJson(keyed), dumped(keyed));
  }
  json mixed = {
      {"z", nullptr},
      {"a", {0, -1, 1.5, -0.0, 1e300, 18446744073709551615ull, -9223372036854775807ll - 1}},
      {"m", {{"t", true}, {"f", false}, {"o", json::object()}, {"l", json::array()}}},
      {"k\"ey\n", "v"}};
  EXPECT_EQ(DumpJson(mixed), dumped(mixed));
  json deep = "bottom \"\xff";
  for (int i = 0; i < 200; ++i) deep = i % 2 ? json::array({deep, i}) : json{{"d", deep}, {"i", i}};
  EXPECT_EQ(DumpJson(deep), dumped(deep));
  EXPECT_EQ(DumpJson(json::array()), "[]");
  EXPECT_EQ(DumpJson(json::object()), "{}");
}

TEST(OpenAiProvider, TakesTheOutputLimitNameTheServerAsksFor) {
  FakeStep hello;
  hello.text = "Hello";
  FakeModelServer server(Wire::kOpenAI, kKey, {hello});
  server.RefuseMaxTokens(true);
  auto model = OpenAi(server.BaseUrl());
  ASSERT_TRUE(model);
  auto first = model->Complete(Hello());
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->text, "Hello");
  auto second = model->Complete(Hello());
  ASSERT_TRUE(second.ok()) << second.status().message();

  auto requests = server.Requests();
  ASSERT_EQ(requests.size(), 3u) << "refused once, then the other name from then on";
  EXPECT_EQ(requests[0]["max_tokens"], 1000);
  for (size_t i : {1u, 2u}) {
    EXPECT_EQ(requests[i]["max_completion_tokens"], 1000) << i;
    EXPECT_FALSE(requests[i].contains("max_tokens")) << i;
  }
  EXPECT_TRUE(server.Violations().empty()) << server.Violations().front();
}

TEST(OpenAiProvider, OtherRefusalsAreNotSentAgain) {
  FakeStep refused;
  refused.text = "never";
  refused.fail_status = 400;
  refused.fail_times = 1;
  FakeModelServer server(Wire::kOpenAI, kKey, {refused});
  auto model = OpenAi(server.BaseUrl());
  ASSERT_TRUE(model);
  auto reply = model->Complete(Hello());
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), Code::kInvalidArgument) << reply.status().message();
  EXPECT_NE(reply.status().message().find("400"), std::string::npos) << reply.status().message();
  EXPECT_EQ(server.Requests().size(), 1u);
  EXPECT_EQ(server.Requests()[0]["max_tokens"], 1000) << "max_tokens unless refused";
}

// OpenAI's refusal of a parameter as such, and of its value.
std::string OpenAiError(const std::string& message, const std::string& param,
                        const std::string& code) {
  return nlohmann::json{
      {"error",
       {{"message", message}, {"type", "invalid_request_error"}, {"param", param}, {"code", code}}}}
      .dump();
}

TEST(OpenAiProvider, ARefusedValueIsNotSentUnderAnotherName) {
  testing::ScriptedHttpServer server({{400,
                                       {{"Content-Type", "application/json"}},
                                       OpenAiError("max_tokens is too large: 1000. This model "
                                                   "supports at most 500 completion tokens.",
                                                   "max_tokens", "invalid_value")}});
  auto model = OpenAi(server.Url("/v1"));
  ASSERT_TRUE(model);
  auto reply = model->Complete(Hello());
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), Code::kInvalidArgument);
  EXPECT_NE(reply.status().message().find("too large"), std::string::npos)
      << reply.status().message();
  EXPECT_EQ(server.Requests().size(), 1u);
}

TEST(OpenAiProvider, AServerThatRefusesBothNamesIsToldApart) {
  auto unsupported = [](const std::string& name) {
    return testing::CannedResponse{
        400,
        {{"Content-Type", "application/json"}},
        OpenAiError("Unsupported parameter: '" + name + "' is not supported with this model.", name,
                    "unsupported_parameter")};
  };
  testing::ScriptedHttpServer server(
      {unsupported("max_tokens"), unsupported("max_completion_tokens")});
  auto model = OpenAi(server.Url("/v1"));
  ASSERT_TRUE(model);
  auto reply = model->Complete(Hello());
  ASSERT_FALSE(reply.ok());
  EXPECT_NE(reply.status().message().find("refuses both max_tokens and max_completion_tokens"),
            std::string::npos)
      << reply.status().message();
  auto requests = server.Requests();
  ASSERT_EQ(requests.size(), 2u) << "no third try";
  EXPECT_NE(requests[1].body.find("\"max_completion_tokens\":1000"), std::string::npos)
      << requests[1].body;
  EXPECT_EQ(requests[1].body.find("\"max_tokens\""), std::string::npos) << requests[1].body;
}

// --- Prompt caching and usage ------------------------------------------------------

using nlohmann::json;

// A step of a turn as docwright sends it: a system prompt past every minimum
// (about 2,500 tokens), two tools, and `steps` earlier replies each with a call
// and its result.
ModelRequest Turn(const std::string& model, int steps) {
  ModelRequest request;
  request.model = model;
  for (int i = 0; i < 250; ++i)
    request.system += "Line " + std::to_string(i) + " of the site map.\n";
  for (const char* name : {"read_file", "finish"}) {
    request.tools.push_back({name, std::string("The tool ") + name,
                             R"({"type":"object","properties":{"path":{"type":"string"}}})"});
  }
  request.messages = {{ChatMessage::Role::kUser, "Fix the quickstart"}};
  for (int i = 0; i < steps; ++i) {
    std::string id = "call_" + std::to_string(i);
    request.messages.push_back(
        {ChatMessage::Role::kAssistant, "", {{id, "read_file", R"({"path":"a.md"})"}}});
    request.messages.push_back({ChatMessage::Role::kTool, "page " + std::to_string(i), {}, id});
  }
  return request;
}

FakeStep Reads() {
  FakeStep step;
  step.tool_calls = {{"read_file", {{"path", "a.md"}}}};
  return step;
}

int CacheControls(const json& j) {
  if (j.is_object()) {
    int n = j.contains("cache_control") ? 1 : 0;
    for (const auto& [key, value] : j.items()) n += CacheControls(value);
    return n;
  }
  if (j.is_array()) {
    int n = 0;
    for (const auto& value : j) n += CacheControls(value);
    return n;
  }
  return 0;
}

// Breakpoints on the last tool, the system prompt, the last block of the last
// message and of the message the previous step ended with: four, Anthropic's limit.
TEST(AnthropicProvider, MarksTheStablePrefixWithCacheBreakpoints) {
  FakeModelServer server(Wire::kAnthropic, kKey, {Reads()});
  auto model = OpenAi(server.BaseUrl(), "anthropic");
  ASSERT_TRUE(model);
  ASSERT_TRUE(model->Complete(Turn("claude-test", 0)).ok());
  ASSERT_TRUE(model->Complete(Turn("claude-test", 2)).ok());
  auto requests = server.Requests();
  ASSERT_EQ(requests.size(), 2u);

  const json& first = requests[0];
  EXPECT_EQ(first["tools"][1]["cache_control"], json({{"type", "ephemeral"}}));
  EXPECT_FALSE(first["tools"][0].contains("cache_control"));
  ASSERT_TRUE(first["system"].is_array());
  EXPECT_EQ(first["system"][0]["cache_control"], json({{"type", "ephemeral"}}));
  EXPECT_EQ(first["messages"].back()["content"].back()["cache_control"]["type"], "ephemeral");
  EXPECT_EQ(CacheControls(first), 3);

  const json& second = requests[1];
  const json& messages = second["messages"];  // user, (assistant, user) x 2
  ASSERT_EQ(messages.size(), 5u);
  EXPECT_EQ(messages[4]["content"].back()["cache_control"]["type"], "ephemeral");
  EXPECT_EQ(messages[2]["content"].back()["cache_control"]["type"], "ephemeral")
      << "where the previous step ended";
  EXPECT_EQ(CacheControls(second), 4) << second.dump();
  EXPECT_TRUE(server.Violations().empty()) << server.Violations().front();
}

// The tools' list is serialized once a process and kept: each request still
// sends its own tools, in each wire's shape, whatever another sent before.
TEST(Providers, EachRequestSendsItsOwnTools) {
  for (Wire wire : {Wire::kOpenAI, Wire::kAnthropic}) {
    const bool openai = wire == Wire::kOpenAI;
    SCOPED_TRACE(openai ? "openai" : "anthropic");
    FakeModelServer server(wire, kKey, {Reads(), Reads(), Reads()});
    auto model = OpenAi(server.BaseUrl(), openai ? "openai" : "anthropic");
    ASSERT_TRUE(model);
    ModelRequest two = Turn("model-test", 0);
    ModelRequest one = two;
    one.tools = {{"search", "Search the site",
                  R"({"type":"object","properties":{"query":{"type":"string"}}})"}};
    ASSERT_TRUE(model->Complete(two).ok());
    ASSERT_TRUE(model->Complete(one).ok());
    ASSERT_TRUE(model->Complete(two).ok());
    auto requests = server.Requests();
    ASSERT_EQ(requests.size(), 3u);
    auto names = [&](const json& request) {
      std::vector<std::string> out;
      for (const json& t : request["tools"]) {
        out.push_back(openai ? t["function"]["name"].get<std::string>()
                             : t["name"].get<std::string>());
      }
      return out;
    };
    EXPECT_EQ(names(requests[0]), (std::vector<std::string>{"read_file", "finish"}));
    EXPECT_EQ(names(requests[1]), (std::vector<std::string>{"search"}));
    EXPECT_EQ(names(requests[2]), (std::vector<std::string>{"read_file", "finish"}));
    const json& only = requests[1]["tools"][0];
    const json& schema = openai ? only["function"]["parameters"] : only["input_schema"];
    EXPECT_EQ(schema["properties"]["query"]["type"], "string");
    if (openai) {
      EXPECT_EQ(requests[1]["tool_choice"], "auto");
    }
    EXPECT_EQ(requests[1]["model"], "model-test");
    EXPECT_TRUE(server.Violations().empty()) << server.Violations().front();
  }
}

// Anthropic's input_tokens are only the uncached ones: docwright's input is the
// three added up, with the reads and writes apart.
TEST(AnthropicProvider, ReadsCacheReadsAndWritesIntoTheUsage) {
  FakeModelServer server(Wire::kAnthropic, kKey, {Reads()});
  auto model = OpenAi(server.BaseUrl(), "anthropic");
  ASSERT_TRUE(model);
  auto first = model->Complete(Turn("claude-test", 0));
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->usage.cached_input_tokens, 0);
  EXPECT_GT(first->usage.cache_write_tokens, 1024) << "tools and system are written";
  auto second = model->Complete(Turn("claude-test", 1));
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_EQ(second->usage.cached_input_tokens, first->usage.input_tokens)
      << "the whole first prompt is read back";
  EXPECT_GT(second->usage.cache_write_tokens, 0);
  // The last breakpoint ends the prompt: nothing is left uncached.
  EXPECT_EQ(second->usage.input_tokens,
            second->usage.cached_input_tokens + second->usage.cache_write_tokens);

  // Past the 5 minutes an entry lives, nothing is read.
  server.AdvanceCacheClock(std::chrono::seconds(301));
  auto third = model->Complete(Turn("claude-test", 1));
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->usage.cached_input_tokens, 0);
  EXPECT_EQ(third->usage.input_tokens, second->usage.input_tokens);
  EXPECT_TRUE(server.Violations().empty()) << server.Violations().front();
}

TEST(AnthropicProvider, WithoutPromptCachingNothingIsMarkedOrRead) {
  FakeModelServer server(Wire::kAnthropic, kKey, {Reads()});
  auto model = OpenAi(server.BaseUrl(), "anthropic", /*prompt_cache=*/false);
  ASSERT_TRUE(model);
  ASSERT_TRUE(model->Complete(Turn("claude-test", 0)).ok());
  auto second = model->Complete(Turn("claude-test", 1));
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->usage.cached_input_tokens, 0);
  EXPECT_EQ(second->usage.cache_write_tokens, 0);
  EXPECT_GT(second->usage.input_tokens, 1024);
  for (const json& request : server.Requests()) EXPECT_EQ(CacheControls(request), 0);
}

// OpenAI caches a byte-identical prefix without being asked; prompt_tokens
// counts it, prompt_tokens_details.cached_tokens says how much was read.
TEST(OpenAiProvider, ReadsCachedTokensIntoTheUsage) {
  FakeModelServer server(Wire::kOpenAI, kKey, {Reads()});
  auto model = OpenAi(server.BaseUrl());
  ASSERT_TRUE(model);
  auto first = model->Complete(Turn("gpt-test", 0));
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->usage.cached_input_tokens, 0);
  auto second = model->Complete(Turn("gpt-test", 1));
  ASSERT_TRUE(second.ok()) << second.status().message();
  int64_t cached = second->usage.cached_input_tokens;
  EXPECT_GE(cached, 1024);
  EXPECT_EQ((cached - 1024) % 128, 0) << cached;
  EXPECT_LE(cached, first->usage.input_tokens);
  EXPECT_GE(cached, first->usage.input_tokens - 128) << "all but the last partial increment";
  EXPECT_GT(second->usage.input_tokens, cached) << "input counts every prompt token";
  EXPECT_EQ(second->usage.cache_write_tokens, 0);
  EXPECT_TRUE(server.Violations().empty()) << server.Violations().front();
}

// The value of the series of `family` whose labels include every one of
// `labels`, in the registry's text; -1 when there is none.
double Sample(const std::string& text, const std::string& family,
              const std::vector<std::string>& labels) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(family + "{", 0) != 0) continue;
    bool all = true;
    for (const auto& label : labels) all = all && line.find(label) != std::string::npos;
    if (all) return std::stod(line.substr(line.rfind(' ') + 1));
  }
  return -1;
}

// Each request is counted once with its retries and its tokens by kind.
TEST(OpenAiProvider, CountsRequestsRetriesAndTokensInTheMetrics) {
  const std::string name = "metrics-test-model";
  metrics::AllowModelLabels({name});
  FakeStep flaky = Reads();
  flaky.fail_status = 503;
  flaky.fail_times = 2;
  FakeModelServer server(Wire::kOpenAI, kKey, {flaky});
  auto model = OpenAi(server.BaseUrl());
  ASSERT_TRUE(model);
  auto reply = model->Complete(Turn(name, 0));
  ASSERT_TRUE(reply.ok()) << reply.status().message();

  std::string text = metrics::Default().Render();
  std::vector<std::string> labels{"provider=\"openai\"", "model=\"" + name + "\""};
  auto with = [&](const std::string& more) {
    std::vector<std::string> all = labels;
    all.push_back(more);
    return all;
  };
  EXPECT_EQ(Sample(text, "docwright_model_requests_total", with("result=\"ok\"")), 1) << text;
  EXPECT_EQ(Sample(text, "docwright_model_retries_total", labels), 2) << text;
  EXPECT_EQ(Sample(text, "docwright_model_tokens_total", with("kind=\"input\"")),
            reply->usage.input_tokens)
      << text;
  EXPECT_EQ(Sample(text, "docwright_model_tokens_total", with("kind=\"output\"")),
            reply->usage.output_tokens)
      << text;
}

}  // namespace
}  // namespace docwright::llm
