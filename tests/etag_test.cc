// Entity tags and If-None-Match (api/etag.h), by RFC 9110's rules.
#include "api/etag.h"

#include <gtest/gtest.h>

namespace docwright {
namespace {

TEST(EntityTag, IsAQuotedHashOfTheBodyThatChangesWithIt) {
  std::string tag = EntityTag("{\"id\":\"a\"}");
  EXPECT_EQ(tag.size(), 34u);
  EXPECT_EQ(tag.front(), '"');
  EXPECT_EQ(tag.back(), '"');
  EXPECT_EQ(tag, EntityTag("{\"id\":\"a\"}"));
  EXPECT_NE(tag, EntityTag("{\"id\":\"b\"}"));
}

TEST(IfNoneMatch, ComparesWeaklyOverAListOrStar) {
  const std::string tag = "\"abc\"";
  EXPECT_TRUE(IfNoneMatchMatches("\"abc\"", tag));
  EXPECT_TRUE(IfNoneMatchMatches("W/\"abc\"", tag));
  EXPECT_TRUE(IfNoneMatchMatches("*", tag));
  EXPECT_TRUE(IfNoneMatchMatches("\"x\", \"abc\"", tag));
  EXPECT_TRUE(IfNoneMatchMatches("\"x\",W/\"abc\" ,\"y\"", tag));
  EXPECT_TRUE(IfNoneMatchMatches(" ,\t\"abc\"", tag));
  EXPECT_FALSE(IfNoneMatchMatches("", tag));
  EXPECT_FALSE(IfNoneMatchMatches("\"abcd\"", tag));
  EXPECT_FALSE(IfNoneMatchMatches("abc", tag)) << "an unquoted tag is no tag";
  EXPECT_FALSE(IfNoneMatchMatches("\"ab", tag));
  EXPECT_FALSE(IfNoneMatchMatches("w/\"abc\"", tag)) << "W/ is case-sensitive";
  EXPECT_FALSE(IfNoneMatchMatches("\"x\" \"abc\"", tag)) << "a list needs its commas";
}

}  // namespace
}  // namespace docwright
