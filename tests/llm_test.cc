// The model providers against the fake model server, which speaks each
// provider's wire format and checks every request as the API documents it.
#include "llm/llm.h"

#include <gtest/gtest.h>

#include "fakes/fake_model.h"
#include "fakes/scripted_http_server.h"

namespace docwright::llm {
namespace {

using testing::FakeModelServer;
using testing::FakeStep;
using Wire = FakeModelServer::Wire;

constexpr const char* kKey = "sk-llm-test";

std::unique_ptr<Model> OpenAi(const std::string& base_url) {
  ProviderConfig config;
  config.provider = "openai";
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

}  // namespace
}  // namespace docwright::llm
