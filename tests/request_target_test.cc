// The request target: split into decoded path segments and query pairs.
#include "api/request_target.h"

#include <gtest/gtest.h>

namespace docwright {
namespace {

TEST(RequestTarget, SplitsAndDecodesPathAndQuery) {
  RequestTarget t = ParseTarget("/v2/agent/p%20q/job/?limit=10&cursor=a+b%2B&&=x&flag");
  ASSERT_TRUE(t.ok);
  EXPECT_EQ(t.segments, (std::vector<std::string>{"v2", "agent", "p q", "job", ""}));
  EXPECT_EQ(t.query, (std::vector<std::pair<std::string, std::string>>{
                         {"limit", "10"}, {"cursor", "a b+"}, {"flag", ""}}));
  EXPECT_TRUE(ParseTarget("/").segments.empty());
  EXPECT_FALSE(ParseTarget("v2/agent").ok);
  EXPECT_FALSE(ParseTarget("").ok);
}

// Found by fuzz/request_target.cc: "%-1" was decoded as the byte 0xff, because
// std::from_chars reads a minus sign before hex digits.
TEST(RequestTarget, AnEscapeIsTwoHexDigitsAndNothingElse) {
  for (const char* bad :
       {"/a%-1", "/a%-f", "/%+1", "/% 1", "/%1", "/%", "/%zz", "/?k=%-1", "/?%-1=v", "/%0x"}) {
    EXPECT_FALSE(ParseTarget(bad).ok) << bad;
  }
  RequestTarget t = ParseTarget("/%41%6a%6A%ff?k=%00");
  ASSERT_TRUE(t.ok);
  EXPECT_EQ(t.segments, (std::vector<std::string>{"Ajj\xff"}));
  EXPECT_EQ(t.query[0].second, std::string(1, '\0'));
}

}  // namespace
}  // namespace docwright
