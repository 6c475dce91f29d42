// The v1 create's stream framing (api/v1_stream.h): every event type, framed as
// the AI SDK's data stream protocol parses it (each line `<code>:<JSON>`, the
// value of the type the code takes), and the ends of a stream.
#include "api/v1_stream.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

namespace docwright {
namespace {

using nlohmann::json;

Job MakeJob(JobStatus status = JobStatus::kActive) {
  Job j;
  j.id = "0190a0b0-0000-7000-8000-000000000001";
  j.project_id = "0190a0b0-0000-7000-8000-0000000000aa";
  j.status = status;
  j.repository = "https://example.com/docs.git";
  j.ref = "docs/faq";
  if (status == JobStatus::kFailed) j.error = "the model gave up";
  return j;
}

JobEvent Event(EventType type, std::string data) {
  static int64_t sequence = 0;
  return JobEvent{.job_id = MakeJob().id,
                  .project_id = MakeJob().project_id,
                  .sequence = ++sequence,
                  .type = type,
                  .created_at = 1700000000000,
                  .data = std::move(data)};
}

struct StreamPart {
  char code;
  json value;
};

// The parts of `bytes`, each checked as the protocol's parser checks it.
std::vector<StreamPart> Parse(const std::string& bytes) {
  std::vector<StreamPart> parts;
  EXPECT_TRUE(bytes.empty() || bytes.back() == '\n') << bytes;
  for (size_t at = 0; at < bytes.size();) {
    size_t nl = bytes.find('\n', at);
    std::string line = bytes.substr(at, nl - at);
    at = nl == std::string::npos ? bytes.size() : nl + 1;
    EXPECT_GE(line.size(), 3u);
    EXPECT_EQ(line[1], ':') << line;
    json value = json::parse(line.substr(2), nullptr, false);
    EXPECT_FALSE(value.is_discarded()) << line;
    char code = line[0];
    switch (code) {
      case '0':
      case '3':
        EXPECT_TRUE(value.is_string()) << line;
        break;
      case '2':
        EXPECT_TRUE(value.is_array()) << line;
        break;
      case '9':
        EXPECT_TRUE(value["toolCallId"].is_string() && value["toolName"].is_string() &&
                    value["args"].is_object())
            << line;
        break;
      case 'a':
        EXPECT_TRUE(value["toolCallId"].is_string() && value.contains("result")) << line;
        break;
      case 'd':
      case 'e':
        EXPECT_TRUE(value["finishReason"].is_string()) << line;
        break;
      case 'f':
        EXPECT_TRUE(value["messageId"].is_string()) << line;
        break;
      default:
        ADD_FAILURE() << "a code the protocol does not have: " << line;
    }
    parts.push_back({code, value});
  }
  return parts;
}

std::string Codes(const std::vector<StreamPart>& parts) {
  std::string out;
  for (const auto& p : parts) out.push_back(p.code);
  return out;
}

TEST(V1StreamTest, HeadersAndStart) {
  Job job = MakeJob();
  auto headers = V1StreamHeaders(job);
  std::set<std::pair<std::string, std::string>> got(headers.begin(), headers.end());
  EXPECT_TRUE(got.count({"X-Vercel-AI-Data-Stream", "v1"}));
  EXPECT_TRUE(got.count({"X-Session-Id", job.id}));
  EXPECT_TRUE(got.count({"X-Branch-Name", "docs/faq"}));
  EXPECT_EQ(kV1StreamContentType, "text/plain; charset=utf-8");
  auto parts = Parse(V1StreamStart(job));
  ASSERT_EQ(Codes(parts), "2");
  EXPECT_EQ(parts[0].value[0]["type"], "session");
  EXPECT_EQ(parts[0].value[0]["sessionId"], job.id);
  EXPECT_EQ(parts[0].value[0]["branch"], "docs/faq");
  EXPECT_EQ(parts[0].value[0]["status"], "active");
}

TEST(V1StreamTest, EveryEventType) {
  Job job = MakeJob();
  std::set<EventType> seen;
  auto framed = [&](EventType type, std::string data) {
    seen.insert(type);
    JobEvent e = Event(type, std::move(data));
    return Parse(V1StreamEvent(e));
  };

  EXPECT_EQ(Codes(framed(EventType::kJobCreated, JobCreatedData(job, "Fix the FAQ"))), "")
      << "the start says it";

  auto added = framed(EventType::kMessageAdded, MessageAddedData(job, 2, "And the quickstart"));
  ASSERT_EQ(Codes(added), "2");
  EXPECT_EQ(added[0].value[0]["type"], "job.message_added") << "docwright's event, whole";
  EXPECT_EQ(added[0].value[0]["data"]["prompt"], "And the quickstart");

  auto started = framed(EventType::kTurnStarted, TurnStartedData(1, 1));
  ASSERT_EQ(Codes(started), "f");
  EXPECT_EQ(started[0].value["messageId"], job.id);

  TranscriptStep said{.kind = TranscriptStep::Kind::kAssistant, .text = "Reading \"faq.mdx\"\n"};
  auto text = framed(EventType::kTurnStep, TurnStepData(1, 1, 1, said));
  ASSERT_EQ(Codes(text), "0");
  EXPECT_EQ(text[0].value, "Reading \"faq.mdx\"\n\n\n");

  TranscriptStep tool{.kind = TranscriptStep::Kind::kTool,
                      .tool = "read_file",
                      .arguments = R"({"path":"faq.mdx"})",
                      .result = "1: # FAQ"};
  auto call = framed(EventType::kTurnStep, TurnStepData(1, 2, 3, tool));
  ASSERT_EQ(Codes(call), "9a");
  EXPECT_EQ(call[0].value["toolName"], "read_file");
  EXPECT_EQ(call[0].value["args"], json({{"path", "faq.mdx"}}));
  EXPECT_EQ(call[0].value["toolCallId"], "call-1-2-3");
  EXPECT_EQ(call[1].value["toolCallId"], "call-1-2-3");
  EXPECT_EQ(call[1].value["result"], "1: # FAQ");

  TranscriptStep cut = tool;
  cut.arguments = R"({"path":"fa)";  // bounded: no longer JSON
  cut.is_error = true;
  cut.result = "no such file";
  auto failed_call = Parse(V1StreamEvent(Event(EventType::kTurnStep, TurnStepData(1, 1, 4, cut))));
  ASSERT_EQ(Codes(failed_call), "9a");
  EXPECT_EQ(failed_call[0].value["args"], json({{"input", R"({"path":"fa)"}}));
  EXPECT_EQ(failed_call[1].value["result"], json({{"error", "no such file"}}));

  TranscriptStep context{.kind = TranscriptStep::Kind::kContext, .text = "AGENTS.md: ..."};
  EXPECT_EQ(V1StreamEvent(Event(EventType::kTurnStep, TurnStepData(1, 1, 5, context))), "");

  TranscriptStep pushed{.kind = TranscriptStep::Kind::kPublish,
                        .text = "pushed the branch docs/faq",
                        .tool = kPublishPush};
  auto publish = Parse(V1StreamEvent(Event(EventType::kTurnStep, TurnStepData(1, 1, 6, pushed))));
  ASSERT_EQ(Codes(publish), "2");
  EXPECT_EQ(publish[0].value[0]["data"]["step"]["action"], "push");

  TurnOutcome ok{.succeeded = true, .summary = "Fixed the FAQ", .usage = {120, 30}};
  auto ended = framed(EventType::kTurnEnded, TurnEndedData(1, ok));
  ASSERT_EQ(Codes(ended), "0e");
  EXPECT_EQ(ended[0].value, "Fixed the FAQ");
  EXPECT_EQ(ended[1].value["finishReason"], "stop");
  EXPECT_EQ(ended[1].value["usage"], json({{"promptTokens", 120}, {"completionTokens", 30}}));
  EXPECT_EQ(ended[1].value["isContinued"], false);
  TurnOutcome bad{.succeeded = false, .error = "the model gave up"};
  auto ended_badly = Parse(V1StreamEvent(Event(EventType::kTurnEnded, TurnEndedData(2, bad))));
  ASSERT_EQ(Codes(ended_badly), "e");
  EXPECT_EQ(ended_badly[0].value["finishReason"], "error");

  for (EventType type : {EventType::kPullRequestOpened, EventType::kPullRequestUpdated}) {
    auto pr = framed(type, PullRequestData(1, "https://example.com/pulls/1"));
    ASSERT_EQ(Codes(pr), "2");
    EXPECT_EQ(pr[0].value[0]["data"]["prLink"], "https://example.com/pulls/1");
  }

  Job completed = MakeJob(JobStatus::kCompleted);
  auto done = framed(EventType::kJobCompleted, JobData(completed));
  ASSERT_EQ(Codes(done), "d");
  EXPECT_EQ(done[0].value["finishReason"], "stop");
  Job failed = MakeJob(JobStatus::kFailed);
  auto fail = framed(EventType::kJobFailed, JobData(failed));
  ASSERT_EQ(Codes(fail), "3d");
  EXPECT_EQ(fail[0].value, "the model gave up");
  EXPECT_EQ(fail[1].value["finishReason"], "error");
  Job archived = MakeJob(JobStatus::kArchived);
  auto gone = framed(EventType::kJobArchived, JobData(archived));
  ASSERT_EQ(Codes(gone), "d");
  EXPECT_EQ(gone[0].value["finishReason"], "other");

  for (EventType type : AllEventTypes()) {
    EXPECT_TRUE(seen.count(type)) << "untested: " << EventTypeName(type);
    bool ends = type == EventType::kJobCompleted || type == EventType::kJobFailed ||
                type == EventType::kJobArchived;
    EXPECT_EQ(V1StreamEnds(Event(type, "{}")), ends) << EventTypeName(type);
  }
}

TEST(V1StreamTest, TheEndAsTheJobIsNow) {
  EXPECT_EQ(V1StreamEnd(MakeJob(JobStatus::kCompleted)), "d:{\"finishReason\":\"stop\"}\n");
  EXPECT_EQ(V1StreamEnd(MakeJob(JobStatus::kFailed)),
            "3:\"the model gave up\"\nd:{\"finishReason\":\"error\"}\n");
  EXPECT_EQ(V1StreamEnd(MakeJob(JobStatus::kArchived)), "d:{\"finishReason\":\"other\"}\n");
  EXPECT_EQ(V1StreamEnd(MakeJob(JobStatus::kActive)), "d:{\"finishReason\":\"unknown\"}\n")
      << "a stream that stops following a running job";
  // The end an event comes to is the end of the job it carries.
  Job failed = MakeJob(JobStatus::kFailed);
  EXPECT_EQ(V1StreamEvent(Event(EventType::kJobFailed, JobData(failed))), V1StreamEnd(failed));
}

TEST(V1StreamTest, TextThatCouldBreakALineStaysOnItsLine) {
  TranscriptStep said{.kind = TranscriptStep::Kind::kAssistant,
                      .text = "line one\nd:{\"finishReason\":\"stop\"}\r\n\xff"};
  std::string bytes = V1StreamEvent(Event(EventType::kTurnStep, TurnStepData(1, 1, 1, said)));
  auto parts = Parse(bytes);
  ASSERT_EQ(Codes(parts), "0") << bytes;
  EXPECT_NE(parts[0].value.get<std::string>().find("\xEF\xBF\xBD"), std::string::npos)
      << "invalid UTF-8 replaced";
  EXPECT_EQ(Parse(V1StreamEvent(Event(EventType::kTurnStep, "not json"))).size(), 0u);
}

}  // namespace
}  // namespace docwright
