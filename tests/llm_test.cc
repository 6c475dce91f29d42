// The model providers against the fake model server, which speaks each
// provider's wire format and checks every request as the API documents it.
#include "llm/llm.h"

#include <gtest/gtest.h>

#include "fakes/fake_model.h"

namespace docwright::llm {
namespace {

using testing::FakeModelServer;
using testing::FakeStep;
using Wire = FakeModelServer::Wire;

constexpr const char* kKey = "sk-llm-test";

std::unique_ptr<Model> OpenAi(const FakeModelServer& server) {
  ProviderConfig config;
  config.provider = "openai";
  config.base_url = server.BaseUrl();
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
  auto model = OpenAi(server);
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
  auto model = OpenAi(server);
  ASSERT_TRUE(model);
  auto reply = model->Complete(Hello());
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), Code::kInvalidArgument) << reply.status().message();
  EXPECT_NE(reply.status().message().find("400"), std::string::npos) << reply.status().message();
  EXPECT_EQ(server.Requests().size(), 1u);
  EXPECT_EQ(server.Requests()[0]["max_tokens"], 1000) << "max_tokens unless refused";
}

}  // namespace
}  // namespace docwright::llm
