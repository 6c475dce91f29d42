#include "client/sse.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace docwright {
namespace {

// Every event of `pieces` fed one after another.
std::vector<ServerSentEvent> Parse(const std::vector<std::string>& pieces, SseParser* parser,
                                   Status* status = nullptr) {
  std::vector<ServerSentEvent> events;
  for (const std::string& piece : pieces) {
    Status s = parser->Feed(piece, [&](const ServerSentEvent& e) {
      events.push_back(e);
      return true;
    });
    if (status) *status = s;
    if (!s.ok()) break;
  }
  return events;
}

std::vector<ServerSentEvent> Parse(const std::vector<std::string>& pieces) {
  SseParser parser;
  return Parse(pieces, &parser);
}

TEST(SseParser, ReadsTheServersFramingWithRetryHeartbeatsAndIds) {
  SseParser parser;
  auto events =
      Parse({"retry: 2000\n\n: keep-alive\n\nid: 1\nevent: job.created\ndata: {\"a\":1}\n\n"
             "id: 2\nevent: turn.started\ndata: {}\n\n"},
            &parser);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, "job.created");
  EXPECT_EQ(events[0].data, "{\"a\":1}");
  EXPECT_EQ(events[0].last_event_id, "1");
  EXPECT_EQ(events[1].type, "turn.started");
  EXPECT_EQ(events[1].last_event_id, "2");
  EXPECT_EQ(parser.last_event_id(), "2");
  EXPECT_EQ(parser.retry(), std::chrono::milliseconds(2000));
}

TEST(SseParser, EveryLineBreakAndEveryWayOfSplittingTheStreamGivesTheSameEvents) {
  const std::string lf = "id: 7\nevent: x\ndata: one\ndata: two\n\ndata: three\n\n";
  for (std::string breaks : {"\n", "\r\n", "\r"}) {
    std::string text;
    for (char c : lf) text += c == '\n' ? breaks : std::string(1, c);
    // Split at every point: a CRLF may be cut between its CR and its LF.
    for (size_t cut = 0; cut <= text.size(); ++cut) {
      auto events = Parse({text.substr(0, cut), text.substr(cut)});
      ASSERT_EQ(events.size(), 2u) << "break " << int(breaks[0]) << " cut " << cut;
      EXPECT_EQ(events[0].type, "x");
      EXPECT_EQ(events[0].data, "one\ntwo");
      EXPECT_EQ(events[0].last_event_id, "7");
      EXPECT_EQ(events[1].type, "message");
      EXPECT_EQ(events[1].data, "three");
      EXPECT_EQ(events[1].last_event_id, "7") << "the id is kept until set again";
    }
    // One byte at a time.
    std::vector<std::string> bytes;
    for (char c : text) bytes.emplace_back(1, c);
    EXPECT_EQ(Parse(bytes).size(), 2u);
  }
  // A CR then an LF in the next piece is one line break, not two: no blank
  // line, so nothing is dispatched between them.
  auto events = Parse({"data: a\r", "\ndata: b\r", "\n\r", "\n"});
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "a\nb");
}

TEST(SseParser, FieldsAsTheStandardReadsThem) {
  // One leading space is stripped, not two; no colon: the whole line is the
  // name, the value empty; unknown fields and comments are ignored.
  auto events =
      Parse({"data:no space\n\ndata:  two spaces\n\ndata\n\n: comment\nfoo: bar\n"
             "data: x\n\n"});
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].data, "no space");
  EXPECT_EQ(events[1].data, " two spaces");
  EXPECT_EQ(events[2].data, "") << "a bare `data` adds an empty line, which is dispatched";
  EXPECT_EQ(events[3].data, "x");
}

TEST(SseParser, AnEventWithoutDataIsNotDispatchedButItsIdIsKept) {
  SseParser parser;
  auto events = Parse({"id: 5\nevent: ignored\n\ndata: later\n\n"}, &parser);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, "message") << "the type of the undispatched event was reset";
  EXPECT_EQ(events[0].last_event_id, "5");
  // An event cut off by the end of the stream is not dispatched.
  EXPECT_TRUE(Parse({"data: unfinished\n"}).empty());
}

TEST(SseParser, AnIdWithNulIsIgnoredAndAnEmptyIdResetsIt) {
  SseParser parser;
  auto events =
      Parse({"id: 3\ndata: a\n\n", std::string("id: 4\0x\n", 8) + "data: b\n\n", "id\ndata: c\n\n"},
            &parser);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].last_event_id, "3");
  EXPECT_EQ(events[1].last_event_id, "3");
  EXPECT_EQ(events[2].last_event_id, "");
  EXPECT_EQ(parser.last_event_id(), "");
}

TEST(SseParser, RetryTakesOnlyDigits) {
  SseParser parser;
  Parse({"retry: 1500\n", "retry: 12a\nretry: -1\nretry:\nretry: 99999999999999999999\n"}, &parser);
  EXPECT_EQ(parser.retry(), std::chrono::milliseconds(INT32_MAX)) << "saturated, not wrapped";
  SseParser other;
  Parse({"retry: 1500\nretry: x\n"}, &other);
  EXPECT_EQ(other.retry(), std::chrono::milliseconds(1500));
}

TEST(SseParser, OneLeadingByteOrderMarkIsSkippedEvenWhenSplit) {
  const std::string bom = "\xEF\xBB\xBF";
  auto events = Parse({bom.substr(0, 1), bom.substr(1) + "data: a\n\n"});
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "a");
  // Only one: a second BOM makes the field name "\uFEFFdata", which is unknown.
  EXPECT_TRUE(Parse({bom + bom + "data: a\n\n"}).empty());
  // Only at the start of the stream.
  EXPECT_EQ(Parse({"data: a\n\n" + bom + "data: b\n\n"}).size(), 1u);
}

TEST(SseParser, LinesAndDataOverTheirCapsAreErrorsAndStayErrors) {
  SseParser lines(SseLimits{.max_line = 16, .max_data = 64});
  Status s;
  auto events = Parse({"data: short\n\n", "data: ", std::string(20, 'x')}, &lines, &s);
  EXPECT_EQ(events.size(), 1u);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("longer than 16 bytes"), std::string::npos) << s.message();
  EXPECT_FALSE(lines.Feed("\n\n", [](const ServerSentEvent&) { return true; }).ok());
  // A line under the cap is fine however it is split.
  SseParser fine(SseLimits{.max_line = 16, .max_data = 64});
  EXPECT_EQ(Parse({"data: ", "0123456789", "\n\n"}, &fine, &s).size(), 1u);
  EXPECT_TRUE(s.ok()) << s.message();

  SseParser data(SseLimits{.max_line = 16, .max_data = 20});
  std::vector<std::string> many(5, "data: 0123456\n");
  EXPECT_TRUE(Parse(many, &data, &s).empty());
  EXPECT_NE(s.message().find("more than 20 bytes of data"), std::string::npos) << s.message();
}

TEST(SseParser, StopsWhereTheCallerSaysSo) {
  SseParser parser;
  int seen = 0;
  Status s = parser.Feed("data: 1\n\ndata: 2\n\ndata: 3\n\n",
                         [&](const ServerSentEvent&) { return ++seen < 2; });
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(seen, 2);
}

TEST(SseParser, LinearInItsInput) {
  // Many tiny events and one long line fed a byte at a time: work proportional
  // to the input (a quadratic parser would take minutes here).
  SseParser parser;
  std::string many;
  for (int i = 0; i < 200000; ++i) many += "data: x\n\n";
  size_t n = 0;
  ASSERT_TRUE(parser
                  .Feed(many,
                        [&](const ServerSentEvent&) {
                          ++n;
                          return true;
                        })
                  .ok());
  EXPECT_EQ(n, 200000u);
  SseParser slow;
  const std::string line = "data: " + std::string(500000, 'y');
  for (char c : line) ASSERT_TRUE(slow.Feed(std::string_view(&c, 1), {}).ok());
  std::string got;
  ASSERT_TRUE(slow.Feed("\n\n",
                        [&](const ServerSentEvent& e) {
                          got = e.data;
                          return true;
                        })
                  .ok());
  EXPECT_EQ(got.size(), 500000u);
}

}  // namespace
}  // namespace docwright
