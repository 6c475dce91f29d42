#include "http/cookie.h"

#include <gtest/gtest.h>

namespace docwright {
namespace {

TEST(CookieTest, TheNamedCookiesFirstValueWithoutBlanksOrQuotes) {
  EXPECT_EQ(CookieValue("dw_session=abc", "dw_session"), "abc");
  EXPECT_EQ(CookieValue("theme=dark;  dw_session = abc ; x=1", "dw_session"), "abc");
  EXPECT_EQ(CookieValue("dw_session=\"abc\"", "dw_session"), "abc");
  // Several Cookie lines arrive joined: the first wins, as browsers send the
  // most specific path first.
  EXPECT_EQ(CookieValue("dw_session=first; dw_session=second", "dw_session"), "first");
  // A value may hold '=' (base64 padding).
  EXPECT_EQ(CookieValue("a=b==", "a"), "b==");
}

TEST(CookieTest, ANameThatOnlyEndsOrStartsTheSameIsAnotherCookie) {
  EXPECT_EQ(CookieValue("xdw_session=1; dw_sessionx=2", "dw_session"), "");
  EXPECT_EQ(CookieValue("dw_session", "dw_session"), "");
  EXPECT_EQ(CookieValue("", "dw_session"), "");
  EXPECT_EQ(CookieValue(";;;", "dw_session"), "");
  EXPECT_EQ(CookieValue("dw_session=", "dw_session"), "");
}

}  // namespace
}  // namespace docwright
