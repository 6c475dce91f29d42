// `docwright job follow` and `job create --follow`: the real binary following
// jobs' event streams, on the real server and on a loopback server that drops
// the stream.
#include <gtest/gtest.h>

#include <functional>
#include <mutex>
#include <regex>
#include <sstream>

#include "support/loopback_http_server.h"
#include "support/service_fixture.h"

namespace docwright::testing {
namespace {

using std::chrono::milliseconds;

class CliFollowTest : public ServiceTest {
 protected:
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(server_->port()); }

  CommandResult Job(std::vector<std::string> args, int expected_exit) {
    args.insert(args.end(), {"--url", Url(), "--key", key_a_, "--project", project_a_});
    CommandResult r = RunCommand(kScripted, args);
    EXPECT_EQ(r.exit_code, expected_exit) << r.out << r.err;
    return r;
  }
};

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The event types of `out`'s event lines ("<time> <type> ..."), in order,
// but the steps (what a turn records as it goes is the runner's to say).
std::vector<std::string> EventTypes(const std::string& out) {
  static const std::regex kLine(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z ([a-z_.]+) .*)");
  std::vector<std::string> types;
  for (const std::string& line : Lines(out)) {
    std::smatch m;
    if (std::regex_match(line, m, kLine) && m[1] != "turn.step") types.push_back(m[1]);
  }
  return types;
}

// No control character but the line breaks, and no C1 control (U+0080 to U+009F).
void ExpectNoControlCharacters(const std::string& out) {
  for (size_t i = 0; i < out.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(out[i]);
    ASSERT_FALSE((c < 0x20 && c != '\n') || c == 0x7f) << "byte " << int(c) << " at " << i;
    if (c == 0xC2 && i + 1 < out.size()) {
      unsigned char next = static_cast<unsigned char>(out[i + 1]);
      ASSERT_FALSE(next >= 0x80 && next <= 0x9f) << "C1 control at " << i;
    }
  }
}

TEST_F(CliFollowTest, PrintsTheJobsEventsInOrderAndExitsAsTheJobEnded) {
  // create --follow: the job's id, then its events as they happen, exit 0.
  CommandResult created = Job(
      {"job", "create", "--prompt", "[sleep 300] [summary Done {job}] [nochange]", "--follow"}, 0);
  std::smatch id;
  ASSERT_TRUE(std::regex_search(created.out, id, std::regex("Created job (\\S+) on branch")))
      << created.out;
  EXPECT_EQ(EventTypes(created.out), (std::vector<std::string>{"job.created", "turn.started",
                                                               "turn.ended", "job.completed"}))
      << created.out;
  EXPECT_NE(created.out.find("#1 succeeded  summary: Done " + id[1].str()), std::string::npos)
      << created.out;
  EXPECT_NE(created.out.find("job.completed status: completed"), std::string::npos);
  ExpectNoControlCharacters(created.out);

  // A failed job: exit 1, with its error.
  std::string failing =
      Job({"job", "create", "--prompt", "[sleep 300] [fail no luck]"}, 0).LastLine();
  CommandResult failed = Job({"job", "follow", failing}, 1);
  EXPECT_EQ(EventTypes(failed.out),
            (std::vector<std::string>{"job.created", "turn.started", "turn.ended", "job.failed"}))
      << failed.out;
  EXPECT_NE(failed.out.find("error: no luck"), std::string::npos) << failed.out;

  // An unknown job is an error at once, not retried.
  CommandResult unknown = Job({"job", "follow", "019a8f3e-5c2b-7d41-9a6e-3f0c2b8d4e71"}, 1);
  EXPECT_NE(unknown.err.find("HTTP 404"), std::string::npos) << unknown.err;
}

TEST_F(CliFollowTest, AnEarlierEndOfTheJobDoesNotEndTheFollowAfterAFollowUp) {
  std::string id = Job({"job", "create", "--prompt", "First [nochange]", "--json"}, 0).LastLine();
  id = json::parse(id)["id"];
  ASSERT_EQ(WaitForEnd(id)["status"], "completed");
  Job({"job", "message", id, "--prompt", "[sleep 500] Second [nochange]"}, 0);
  // The stream starts with the first turn's job.completed; the job is active
  // again, so following reads on to the second turn's end.
  CommandResult followed = Job({"job", "follow", id}, 0);
  EXPECT_EQ(EventTypes(followed.out),
            (std::vector<std::string>{"job.created", "turn.started", "turn.ended", "job.completed",
                                      "job.message_added", "turn.started", "turn.ended",
                                      "job.completed"}))
      << followed.out;

  // --json: each event whole, one a line, in order.
  CommandResult raw = Job({"job", "follow", id, "--json"}, 0);
  std::vector<std::string> lines = Lines(raw.out);
  ASSERT_GE(lines.size(), 8u) << raw.out;
  for (size_t i = 0; i < lines.size(); ++i) {
    json event = json::parse(lines[i]);
    EXPECT_EQ(event["sequence"], i + 1) << lines[i];
    EXPECT_EQ(event["jobId"], id);
  }
  EXPECT_EQ(json::parse(lines.back())["type"], "job.completed");
}

TEST_F(CliFollowTest, LineBreaksInThePromptStartNoLine) {
  // The API takes tabs and line breaks in a prompt (and no other control
  // character); the model's text is tried below.
  const std::string text = "Fix it\r\nforged line\tand a tab\rforged too";
  CommandResult created = Job(
      {"job", "create", "--prompt", text + " [summary " + text + "] [nochange]", "--follow"}, 0);
  ExpectNoControlCharacters(created.out);
  EXPECT_NE(created.out.find("forged line and a tab forged too"), std::string::npos) << created.out;
  for (const std::string& line : Lines(created.out)) {
    EXPECT_FALSE(line.starts_with("forged")) << "a line break in the text starts no line";
  }
}

// A job of a fake server, and its events as the server frames them.
const std::string kProject = "019a8f3e-0000-7000-8000-000000000001";
const std::string kJob = "019a8f3e-0000-7000-8000-000000000002";
const json kTheJob = {{"id", kJob},
                      {"status", "completed"},
                      {"updatedAt", "2026-01-02T03:04:05.678Z"},
                      {"prLink", nullptr},
                      {"error", nullptr}};

std::string Event(int seq, const std::string& type, const json& data) {
  json e = {{"id", kJob + "." + std::to_string(seq)},
            {"type", type},
            {"version", 1},
            {"timestamp", "2026-01-02T03:04:0" + std::to_string(seq) + ".000Z"},
            {"jobId", kJob},
            {"projectId", kProject},
            {"sequence", seq},
            {"data", data}};
  return "id: " + std::to_string(seq) + "\nevent: " + type + "\ndata: " + e.dump() + "\n\n";
}

// `job follow` of kJob against a server that answers a GET of the job with
// kTheJob and opens each stream with `stream` (given the Last-Event-ID).
CommandResult FollowFake(const std::function<LoopbackResponse(const std::string&)>& stream) {
  LoopbackHttpServer server([&](const LoopbackRequest& req) {
    LoopbackResponse r;
    const std::string base = "/v2/agent/" + kProject + "/job/" + kJob;
    if (req.target == base) {
      r.headers = {{"Content-Type", "application/json"}};
      r.body = kTheJob.dump();
      return r;
    }
    if (req.target != base + "/events") {
      r.status = 404;
      r.body = R"({"error":"no such route"})";
      return r;
    }
    auto it = req.headers.find("last-event-id");
    return stream(it == req.headers.end() ? "" : it->second);
  });
  return RunCommand(kScripted, {"job", "follow", kJob, "--url", server.Url(""), "--key", "dw_test",
                                "--project", kProject, "--timeout", "20"});
}

// What a model says (and a repository holds) may be anything: escape sequences
// (clear the screen, colours, a window title, CSI in its C1 form), a bell, DEL,
// line breaks. None of it reaches the output as a control character.
TEST(CliFollowFake, TextFromTheModelReachesTheOutputWithoutControlCharacters) {
  const std::string hostile =
      "\x1b[2J\x1b[31mred\x07 \x1b]0;title\x07 \xc2\x9b"
      "5m\x7f\r\nforged line";
  json failed = kTheJob;
  failed["status"] = "failed";
  failed["error"] = hostile;
  json step = {{"type", "tool"},
               {"tool", hostile},
               {"arguments", hostile},
               {"result", hostile},
               {"isError", true}};
  json ended = {{"seq", 1},
                {"outcome", "failed"},
                {"summary", hostile},
                {"error", hostile},
                {"usage", json::object()}};
  CommandResult r = FollowFake([&](const std::string&) {
    LoopbackResponse res;
    res.headers = {{"Content-Type", "text/event-stream"}};
    res.stream = {
        {milliseconds(0), Event(1, "job.created", {{"job", kTheJob}, {"prompt", hostile}})},
        {milliseconds(0),
         Event(2, "turn.step", {{"seq", 1}, {"attempt", 1}, {"index", 1}, {"step", step}})},
        {milliseconds(0), Event(3, "turn.ended", ended)},
        {milliseconds(0), Event(4, "x", {{"x", hostile}})},  // a type this client does not know
        {milliseconds(0), Event(5, "job.failed", {{"job", failed}})},
        {std::chrono::seconds(30), ""}};
    return res;
  });
  // The job read back (kTheJob) changed no later than the event: it ends there.
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  ExpectNoControlCharacters(r.out);
  ExpectNoControlCharacters(r.err);
  EXPECT_NE(r.out.find("red"), std::string::npos) << "the text is kept, made harmless";
  for (const std::string& line : Lines(r.out)) {
    EXPECT_FALSE(line.starts_with("forged line")) << "a line break in the text starts no line";
    EXPECT_LE(line.size(), 400u);
  }
}

// A server that drops the stream after two events, and checks that the client
// resumes after the second one.
TEST(CliFollowFake, ResumesAfterADroppedConnectionWithLastEventId) {
  std::mutex mu;
  std::vector<std::string> resumed_after;  // the Last-Event-ID of each stream opened
  CommandResult r = FollowFake([&](const std::string& after) {
    {
      std::lock_guard lock(mu);
      resumed_after.push_back(after);
    }
    LoopbackResponse res;
    res.headers = {{"Content-Type", "text/event-stream"}};
    if (after.empty()) {
      // Two events, then the connection drops in the middle of the third.
      res.stream = {{milliseconds(0), "retry: 100\n\n"},
                    {milliseconds(0), Event(1, "job.created", {{"job", kTheJob}, {"prompt", "p"}})},
                    {milliseconds(50), Event(2, "turn.started", {{"seq", 1}, {"attempt", 1}})},
                    {milliseconds(50), "id: 3\nevent: turn.ended\ndata: {\"cut"}};
      res.broken = true;
    } else {
      res.stream = {{milliseconds(0), ": keep-alive\n\n"},
                    {milliseconds(0), Event(3, "job.completed", {{"job", kTheJob}})},
                    {std::chrono::seconds(30), ""}};  // stays open: the client ends it
    }
    return res;
  });
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(EventTypes(r.out),
            (std::vector<std::string>{"job.created", "turn.started", "job.completed"}))
      << r.out;
  EXPECT_NE(r.err.find("resuming after event 2"), std::string::npos) << r.err;
  std::lock_guard lock(mu);
  EXPECT_EQ(resumed_after, (std::vector<std::string>{"", "2"}));
}

}  // namespace
}  // namespace docwright::testing
