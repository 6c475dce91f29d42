#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <set>

#include "core/api_key.h"
#include "core/ids.h"
#include "core/job.h"
#include "core/json_writer.h"
#include "core/project_settings.h"
#include "core/text.h"
#include "core/time.h"
#include "core/url.h"
#include "core/work_budget.h"

namespace docwright {
namespace {

TEST(StateMachine, FollowUpReactivatesEveryJobButArchived) {
  for (JobStatus s : {JobStatus::kActive, JobStatus::kCompleted, JobStatus::kFailed}) {
    auto next = StatusAfterFollowUp(s);
    ASSERT_TRUE(next.ok());
    EXPECT_EQ(*next, JobStatus::kActive);
  }
  auto archived = StatusAfterFollowUp(JobStatus::kArchived);
  ASSERT_FALSE(archived.ok());
  EXPECT_EQ(archived.status().code(), Code::kConflict);
}

TEST(StateMachine, TurnEndDependsOnOutcomeAndQueue) {
  EXPECT_EQ(StatusAfterTurn(JobStatus::kActive, true, false), JobStatus::kCompleted);
  EXPECT_EQ(StatusAfterTurn(JobStatus::kActive, false, false), JobStatus::kFailed);
  EXPECT_EQ(StatusAfterTurn(JobStatus::kActive, true, true), JobStatus::kActive);
  EXPECT_EQ(StatusAfterTurn(JobStatus::kActive, false, true), JobStatus::kActive);
  EXPECT_EQ(StatusAfterTurn(JobStatus::kArchived, true, false), JobStatus::kArchived);
}

TEST(StateMachine, StatusNamesRoundTrip) {
  for (JobStatus s :
       {JobStatus::kActive, JobStatus::kCompleted, JobStatus::kArchived, JobStatus::kFailed}) {
    EXPECT_EQ(ParseJobStatus(ToString(s)), s);
  }
  EXPECT_FALSE(ParseJobStatus("done"));
  EXPECT_FALSE(ParseJobStatus("ACTIVE"));
}

TEST(Ids, AreUuidV7UniqueAndTimeOrdered) {
  std::set<std::string> seen;
  std::string prev;
  for (int i = 0; i < 20000; ++i) {
    std::string id = NewId();
    ASSERT_TRUE(LooksLikeId(id)) << id;
    EXPECT_EQ(id[14], '7') << id;                                          // version
    EXPECT_NE(std::string("89ab").find(id[19]), std::string::npos) << id;  // variant
    EXPECT_GT(id, prev);
    prev = id;
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 20000u);
  EXPECT_FALSE(LooksLikeId("not-an-id"));
  EXPECT_FALSE(LooksLikeId("01A202EA-C260-7000-85E6-8F30178E2D79"));  // not canonical
  EXPECT_FALSE(LooksLikeId("01a202ea-c260-7000-85e6-8f30178e2d7"));
}

TEST(Ids, RandomBase62HasFullAlphabetAndLength) {
  std::string s = RandomBase62(4000);
  EXPECT_EQ(s.size(), 4000u);
  std::set<char> chars(s.begin(), s.end());
  EXPECT_EQ(chars.size(), 62u);
}

TEST(Ids, ConstantTimeEquals) {
  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abcd"));
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(ApiKeys, HaveTheDocumentedShapeAndAreStoredOnlyAsHash) {
  GeneratedApiKey a = GenerateApiKey("org", "ci");
  GeneratedApiKey b = GenerateApiKey("org", "ci");
  EXPECT_NE(a.secret, b.secret);
  EXPECT_TRUE(LooksLikeApiKey(a.secret));
  EXPECT_EQ(a.secret.rfind("dw_", 0), 0u);
  EXPECT_EQ(a.record.secret_hash, Sha256Hex(a.secret));
  EXPECT_EQ(a.secret.rfind(a.record.prefix, 0), 0u);
  EXPECT_LT(a.record.prefix.size(), a.secret.size() / 2);
  EXPECT_EQ(a.record.secret_hash.find(a.secret), std::string::npos);
  EXPECT_FALSE(LooksLikeApiKey("dw_short"));
  EXPECT_FALSE(LooksLikeApiKey("xx_" + a.secret.substr(3)));
  EXPECT_FALSE(LooksLikeApiKey(a.secret.substr(0, a.secret.size() - 1) + "!"));
}

TEST(Time, Rfc3339IsUtcWithMillisAndZ) {
  EXPECT_EQ(FormatRfc3339(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatRfc3339(1700000000123), "2023-11-14T22:13:20.123Z");
  EXPECT_EQ(FormatRfc3339(951782400007), "2000-02-29T00:00:00.007Z");
}

TEST(Text, Utf8LengthCountsCodePointsAndRejectsMalformed) {
  EXPECT_EQ(Utf8Length(""), 0u);
  EXPECT_EQ(Utf8Length("hello, world and more ascii"), 27u);
  EXPECT_EQ(Utf8Length("h\xc3\xa9llo"), 5u);                  // é
  EXPECT_EQ(Utf8Length("\xe2\x82\xac\xf0\x9f\x98\x80"), 2u);  // € and an emoji
  EXPECT_FALSE(Utf8Length("\xc0\x80"));                       // overlong NUL
  EXPECT_FALSE(Utf8Length("\xed\xa0\x80"));                   // surrogate
  EXPECT_FALSE(Utf8Length("\xf4\x90\x80\x80"));               // above U+10FFFF
  EXPECT_FALSE(Utf8Length("abc\xe2\x82"));                    // truncated
  EXPECT_FALSE(Utf8Length("\xff"));
  EXPECT_FALSE(Utf8Length("12345678\x80"));  // after the ASCII fast path
}

TEST(Text, ScrubUtf8KeepsCharactersAndReplacesEverythingElse) {
  EXPECT_EQ(ScrubUtf8("ok \xe2\x82\xac \xf0\x9f\x98\x80"), "ok \xe2\x82\xac \xf0\x9f\x98\x80");
  EXPECT_EQ(ScrubUtf8("caf\xe9!"), "caf\xEF\xBF\xBD!");  // Latin-1
  EXPECT_EQ(ScrubUtf8(std::string("a\0b", 3)),
            "a\xEF\xBF\xBD"
            "b");                                                                // NUL
  EXPECT_EQ(ScrubUtf8("\xc0\xaf"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong
  EXPECT_EQ(ScrubUtf8("\xed\xa0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(ScrubUtf8("x\xe2\x82"), "x\xEF\xBF\xBD\xEF\xBF\xBD");                // cut short
}

TEST(Text, BlankAndSlug) {
  EXPECT_TRUE(IsBlank(" \t\n"));
  EXPECT_TRUE(IsBlank(""));
  EXPECT_FALSE(IsBlank(" x "));
  EXPECT_EQ(Slugify("Fix the typo in the Quickstart!", 40), "fix-the-typo-in-the-quickstart");
  EXPECT_EQ(Slugify("  --  ", 40), "");
  EXPECT_EQ(Slugify("Document the rate limits of the API", 20), "document-the-rate");
  EXPECT_LE(Slugify(std::string(100, 'a'), 40).size(), 40u);
}

TEST(Text, TrimSpaceTakesSpacesAndTabsFromBothEndsOnly) {
  EXPECT_EQ(TrimSpace(" \t a \t b\t "), "a \t b");
  EXPECT_EQ(TrimSpace("chunked"), "chunked");
  EXPECT_EQ(TrimSpace(""), "");
  EXPECT_EQ(TrimSpace(" \t \t"), "");
  // Line breaks and other whitespace are not HTTP's optional whitespace.
  EXPECT_EQ(TrimSpace("\r\n x \n"), "\r\n x \n");
  EXPECT_EQ(TrimSpace(" \v x\f "), "\v x\f");
  // A view into the argument, not a copy.
  std::string_view text = "  gzip ";
  EXPECT_EQ(TrimSpace(text).data(), text.data() + 2);
}

TEST(Text, TrimTakesTheGivenCharactersFromTheEndsItIsAskedTo) {
  EXPECT_EQ(Trim("  key  ", " "), "key");
  EXPECT_EQ(Trim("\t key \t", " "), "\t key \t");
  EXPECT_EQ(Trim("..a.b..", "."), "a.b");
  EXPECT_EQ(Trim("x\r\n \t", " \t\r\n"), "x");
  EXPECT_EQ(Trim("abc", ""), "abc");
  EXPECT_EQ(Trim("aaaa", "a"), "");
  EXPECT_EQ(Trim(std::string_view("\0a\0", 3), std::string_view("\0", 1)), "a");
  EXPECT_EQ(TrimLeft(" \t x \t ", " \t"), "x \t ");
  EXPECT_EQ(TrimLeft(" \t ", " \t"), "");
  EXPECT_EQ(TrimRight(" \t x \t ", " \t"), " \t x");
  EXPECT_EQ(TrimRight("---\t \r", " \t"), "---\t \r");
  EXPECT_EQ(TrimRight(" \t ", " \t"), "");
  EXPECT_EQ(TrimRight("", " "), "");
}

TEST(Text, ControlCharactersAreFoundWhereverTheyAre) {
  EXPECT_TRUE(HasControlCharacter(std::string(1, '\0'), true));
  EXPECT_TRUE(HasControlCharacter(std::string("ok\0", 3), true));
  EXPECT_TRUE(HasControlCharacter("bell\a", true));
  EXPECT_TRUE(HasControlCharacter("esc\x1b[31m", true));
  EXPECT_TRUE(HasControlCharacter("del\x7f", true));
  EXPECT_TRUE(HasControlCharacter("c1 \xc2\x85 next line", true));
  EXPECT_FALSE(HasControlCharacter("tab\tand\nlines\r\n", true));
  EXPECT_TRUE(HasControlCharacter("tab\t", false));
  EXPECT_FALSE(HasControlCharacter("caf\xc3\xa9 \xc2\xa0nbsp \xe2\x9c\x93", false));
}

// What a naive search would find: non-overlapping, left to right.
std::vector<size_t> NaiveFindAll(std::string_view text, std::string_view needle) {
  std::vector<size_t> out;
  if (needle.empty()) return out;
  for (size_t at = text.find(needle); at != std::string_view::npos;
       at = text.find(needle, at + needle.size())) {
    out.push_back(at);
  }
  return out;
}

TEST(Text, FindAllTakesOccurrencesAsAReplaceAllWouldWithoutOverlaps) {
  EXPECT_EQ(FindAll("aaaaaaa", "aaa"), (std::vector<size_t>{0, 3}));
  EXPECT_EQ(FindAll("abcabcab", "abcab"), (std::vector<size_t>{0}));
  EXPECT_EQ(FindAll("xyz", ""), std::vector<size_t>{});
  EXPECT_EQ(FindAll("ab", "abc"), std::vector<size_t>{});
  EXPECT_EQ(FindAll("abababab", "ab", 2), (std::vector<size_t>{0, 2}));
  // Against the plain search over texts of a small alphabet, where borders abound.
  uint32_t seed = 12345;
  auto next = [&seed] { return seed = seed * 1103515245 + 12345, (seed >> 16) & 0x7fff; };
  for (int round = 0; round < 2000; ++round) {
    std::string text, needle;
    for (size_t i = 0, n = next() % 60; i < n; ++i) text.push_back("ab"[next() % 2]);
    for (size_t i = 0, n = 1 + next() % 6; i < n; ++i) needle.push_back("ab"[next() % 2]);
    EXPECT_EQ(FindAll(text, needle), NaiveFindAll(text, needle)) << text << " / " << needle;
  }
}

TEST(Text, FindAllIsLinearOnTheTextsThatMakeAPlainSearchQuadratic) {
  // A plain find from each position compares up to the needle's length each
  // time: 2^20 * 2^19 steps here. Linear, it is a few million.
  std::string text(1 << 20, 'a');
  std::string needle(1 << 19, 'a');
  needle.back() = 'b';
  EXPECT_TRUE(FindAll(text, needle).empty());
  text.back() = 'b';
  EXPECT_EQ(FindAll(text, needle), (std::vector<size_t>{(1u << 20) - (1u << 19)}));
}

TEST(WorkBudget, EachMeterHasItsLimitAndASpentBudgetStaysSpent) {
  WorkBudget budget({.entries = 10, .bytes_read = 100});
  EXPECT_TRUE(budget.Charge(WorkBudget::Meter::kEntries, 10));
  EXPECT_TRUE(budget.Charge(WorkBudget::Meter::kBytesRead, 60));
  EXPECT_TRUE(budget.status().ok());
  EXPECT_FALSE(budget.Charge(WorkBudget::Meter::kEntries, 1));
  EXPECT_TRUE(budget.spent());
  EXPECT_EQ(budget.status().code(), Code::kResourceExhausted);
  EXPECT_NE(budget.status().message().find("10 tree entries visited"), std::string::npos)
      << budget.status().message();
  // Every meter is refused once one is spent.
  EXPECT_FALSE(budget.Charge(WorkBudget::Meter::kBytesRead, 1));
  EXPECT_FALSE(budget.Check());
  // The unlimited meters take what a walk of many entries charges.
  WorkBudget unlimited(WorkBudget::Limits{});
  EXPECT_TRUE(unlimited.Charge(WorkBudget::Meter::kBytesSearched, UINT64_MAX - 1));
  EXPECT_FALSE(unlimited.Charge(WorkBudget::Meter::kBytesSearched, 2));
}

TEST(WorkBudget, ACallsBudgetChargesTheTurnsAndEndsWithIt) {
  WorkBudget turn({.steps = 1000});
  WorkBudget call({.steps = 600}, nullptr, std::chrono::steady_clock::time_point::max(), &turn);
  EXPECT_TRUE(call.Charge(WorkBudget::Meter::kSteps, 500));
  EXPECT_EQ(turn.used(WorkBudget::Meter::kSteps), 500u);
  EXPECT_FALSE(call.Charge(WorkBudget::Meter::kSteps, 200));  // the call's own limit
  EXPECT_TRUE(call.own_limit_reached());
  EXPECT_FALSE(turn.spent());
  WorkBudget second({.steps = 600}, nullptr, std::chrono::steady_clock::time_point::max(), &turn);
  EXPECT_FALSE(second.Charge(WorkBudget::Meter::kSteps, 501));  // the turn's limit
  EXPECT_FALSE(second.own_limit_reached());
  EXPECT_TRUE(second.spent());
  EXPECT_EQ(second.why(), WorkBudget::Why::kLimit);
}

TEST(WorkBudget, CancellationAndTheDeadlineEndItWithinAFewThousandUnits) {
  CancelToken cancel;
  WorkBudget budget(WorkBudget::Limits{}, &cancel);
  EXPECT_TRUE(budget.Charge(WorkBudget::Meter::kEntries, 1));
  cancel.Cancel(CancelToken::Reason::kArchived);
  uint64_t charged = 0;
  while (budget.Charge(WorkBudget::Meter::kEntries, 1)) ++charged;
  EXPECT_LE(charged, WorkBudget::kUnitsBetweenLooks);
  EXPECT_TRUE(budget.cancelled());
  EXPECT_EQ(budget.why(), WorkBudget::Why::kCancelled);

  WorkBudget late(WorkBudget::Limits{}, nullptr, std::chrono::steady_clock::now());
  EXPECT_FALSE(late.Charge(WorkBudget::Meter::kBytesRead, 1));
  EXPECT_EQ(late.why(), WorkBudget::Why::kDeadline);
  EXPECT_NE(late.status().message().find("out of time"), std::string::npos);
}

TEST(Url, EveryShapeOfRemoteAndApiUrl) {
  auto u = ParseUrl("https://x-access-token:secret@GHE.example:8443/acme/docs.git?x=1#top");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->scheme, "https");
  EXPECT_EQ(u->host, "ghe.example");
  EXPECT_EQ(u->port, 8443);
  EXPECT_TRUE(u->has_userinfo);
  EXPECT_EQ(u->path, "/acme/docs.git");
  EXPECT_EQ(OriginText(*u), "https://ghe.example:8443") << "never the credentials or the path";

  u = ParseUrl("git@github.com:acme/docs.git");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->scheme, "ssh");
  EXPECT_EQ(u->port, 22);
  EXPECT_EQ(u->path, "acme/docs.git");

  u = ParseUrl("http://[::1]:3000");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->host, "::1");
  EXPECT_EQ(u->path, "");
  EXPECT_EQ(OriginText(*u), "http://[::1]:3000");
  EXPECT_EQ(ParseUrl("https://example.com/a")->port, 443);

  for (const char* bad :
       {"/srv/docs.git", "docs", "file:///srv/docs.git", "https://", "http://[::1", "https://h:0/",
        "https://h:65536/", "https://h:-1/", "1http://h/", "https://user@:80/"}) {
    EXPECT_FALSE(ParseUrl(bad)) << bad;
  }
}

TEST(Url, PercentEncodingRoundTripsEveryByte) {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  std::string encoded = PercentEncode(all);
  EXPECT_EQ(encoded.find_first_not_of(
                "%0123456789ABCDEFabcdefghijklmnopqrstuvwxyzGHIJKLMNOPQRSTUVWXYZ-._~"),
            std::string::npos);
  bool ok = true;
  EXPECT_EQ(PercentDecode(encoded, false, &ok), all);
  EXPECT_TRUE(ok);
  EXPECT_EQ(PercentEncode("a b/c"), "a%20b%2Fc");
  EXPECT_EQ(PercentDecode("a+b%2f", true, &ok), "a b/");
  for (const char* bad : {"%", "%4", "%zz", "%-1"}) {
    ok = true;
    EXPECT_EQ(PercentDecode(bad, false, &ok), "") << bad;
    EXPECT_FALSE(ok) << bad;
  }
  EXPECT_EQ(HexEncode(std::string("\x00\xff\x10", 3)), "00ff10");
}

TEST(ProjectSettings, UsableSettingsPassAndEachBadOneIsNamed) {
  Project good;
  good.repository = "https://github.com/acme/docs.git";
  good.base_ref = "main";
  good.forge = ForgeKind::kGithub;
  good.forge_token = "ghp_abc";
  good.models = {"gpt-4.1", " ", ""};
  good.write_paths = {"docs/**", "!docs/legal/"};
  ASSERT_TRUE(CheckProjectSettings(good).ok());
  EXPECT_EQ(good.models, std::vector<std::string>{"gpt-4.1"}) << "blank entries are dropped";
  good.site_root = "docs/en//";
  ASSERT_TRUE(CheckProjectSettings(good).ok());
  EXPECT_EQ(good.site_root, "docs/en") << "a trailing slash is dropped";

  struct Case {
    const char* named;
    std::function<void(Project&)> spoil;
  };
  for (const Case& c : std::vector<Case>{
           {"--repository", [](Project& p) { p.repository = ""; }},
           {"--repository", [](Project& p) { p.repository = std::string(2049, 'a'); }},
           {"credentials", [](Project& p) { p.repository = "https://u:pw@github.com/a/b"; }},
           {"--ref", [](Project& p) { p.base_ref = ""; }},
           {"--rate-limit", [](Project& p) { p.rate_limit_per_hour = 0; }},
           {"--rate-limit", [](Project& p) { p.rate_limit_per_hour = 1000001; }},
           {"needs --forge-token", [](Project& p) { p.forge_token.reset(); }},
           {"--forge-token must not", [](Project& p) { p.forge_token = "ghp abc"; }},
           {"--models entry", [](Project& p) { p.models = {"gpt 4"}; }},
           {"--models entries", [](Project& p) { p.models = std::vector<std::string>(65, "m"); }},
           {"--write-paths rule", [](Project& p) { p.write_paths = {"docs/../../etc"}; }},
           {"--write-paths rule", [](Project& p) { p.write_paths = {"!"}; }},
           {"--site-root", [](Project& p) { p.site_root = "../docs"; }},
           {"--site-root", [](Project& p) { p.site_root = "docs/../../etc"; }},
           {"--site-root", [](Project& p) { p.site_root = "/srv/docs"; }},
           {"--site-root", [](Project& p) { p.site_root = "docs/./en"; }},
           {"--site-root", [](Project& p) { p.site_root = "docs\\en"; }},
           {"--site-root", [](Project& p) { p.site_root = "docs\nen"; }},
           {"--site-root", [](Project& p) { p.site_root = std::string(513, 'd'); }},
       }) {
    Project p = good;
    c.spoil(p);
    Status s = CheckProjectSettings(p);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << c.named;
    EXPECT_NE(s.message().find(c.named), std::string::npos) << s.message();
  }
  Project local = good;
  local.forge = ForgeKind::kLocal;
  local.forge_token.reset();
  EXPECT_TRUE(CheckProjectSettings(local).ok()) << "the local forge needs no token";
}

TEST(Naming, BranchUsesRandomTailOfIdAndSlug) {
  std::string id = "01a202ea-c483-7000-b7c4-c6f1ad82ddc7";
  EXPECT_EQ(BranchNameFor(id, "Fix the typo"), "docwright/c6f1ad82ddc7-fix-the-typo");
  EXPECT_EQ(BranchNameFor(id, "日本語"), "docwright/c6f1ad82ddc7");
}

TEST(Naming, BranchNamesAClientGivesFollowGitsRules) {
  for (const char* good : {"docs/faq", "feature-1", "a.b/c_d", "UPPER", "x@y", "a.lockx"}) {
    EXPECT_TRUE(CheckBranchName(good).ok()) << good;
  }
  EXPECT_TRUE(CheckBranchName(std::string(kMaxBranchNameChars, 'b')).ok());
  EXPECT_TRUE(BranchNameFor("01a202ea-c483-7000-b7c4-c6f1ad82ddc7", "Fix it").size() > 0 &&
              CheckBranchName(BranchNameFor("01a202ea-c483-7000-b7c4-c6f1ad82ddc7", "Fix it")).ok())
      << "the generated names pass too";
  for (const char* bad :
       {"",   "a..b",  "-x",     "a b",        "a~1",       "a^",   "a:b",  "a?", "a*",
        "a[", "a\\b",  "x.lock", "a/x.lock/b", "a//b",      "/a",   "a/",   ".a", "a/.b",
        "a.", "a@{1}", "@",      "HEAD",       "caf\u00e9", "a\tb", "a\x7f"}) {
    Status s = CheckBranchName(bad);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << bad;
    EXPECT_EQ(s.message().rfind("branch ", 0), 0u) << s.message();
  }
  EXPECT_FALSE(CheckBranchName(std::string(kMaxBranchNameChars + 1, 'b')).ok());
}

TEST(Naming, ModelResolutionOrder) {
  EXPECT_EQ(ResolveModel("a", "b", "c"), "a");
  EXPECT_EQ(ResolveModel(std::nullopt, "b", "c"), "b");
  EXPECT_EQ(ResolveModel(std::nullopt, std::nullopt, "c"), "c");
  EXPECT_FALSE(ResolveModel(std::nullopt, std::nullopt, std::nullopt));
}

TEST(JsonWriter, EscapesAndAlwaysProducesValidJson) {
  std::string out;
  JsonWriter w(&out);
  std::string tricky = "quote \" backslash \\ newline \n tab \t bell \x07 e\xcc\x81 bad \xff end";
  w.BeginObject().Key("a").String(tricky).Key("n").Null().Key("i").Int(-5).Key("b").Bool(true);
  w.Key("arr").BeginArray().String("x").Int(1).EndArray().EndObject();
  auto parsed = nlohmann::json::parse(out);
  EXPECT_EQ(parsed["n"], nullptr);
  EXPECT_EQ(parsed["i"], -5);
  EXPECT_EQ(parsed["b"], true);
  EXPECT_EQ(parsed["arr"], nlohmann::json::parse(R"(["x",1])"));
  std::string back = parsed["a"];
  EXPECT_EQ(back.substr(0, 40), tricky.substr(0, 40));
  EXPECT_NE(back.find("\xef\xbf\xbd"), std::string::npos);  // U+FFFD for the bad byte
}

}  // namespace
}  // namespace docwright
