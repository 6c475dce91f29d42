// The price table, costs and budgets of core/usage.h: pure values, tested as
// such (the budgets' enforcement over real turns is tests/budget_test.cc).
#include "core/usage.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "support/temp_dir.h"

namespace docwright {
namespace {

constexpr const char* kPrices = R"({
  "currency": "USD",
  "models": {
    "claude-sonnet-4-5": {"input": 3, "cachedInput": 0.3, "cacheWrite": 3.75, "output": 15},
    "claude-sonnet-4*": {"input": 2, "output": 10},
    "claude-*": {"input": 1, "output": 5},
    "gpt-4o": {"input": 2.5, "cachedInput": 1.25, "output": 10}
  }
})";

PriceTable Table(std::string_view json = kPrices) {
  auto table = PriceTable::Parse(json);
  EXPECT_TRUE(table.ok()) << table.status().message();
  return table.ok() ? *table : PriceTable();
}

// The error of parsing `json`, "" if it parses.
std::string ParseError(std::string_view json) {
  auto table = PriceTable::Parse(json);
  return table.ok() ? "" : table.status().message();
}

TEST(PriceTableTest, ReadsModelsAndDefaultsTheCachePricesToTheInputPrice) {
  PriceTable t = Table();
  EXPECT_EQ(t.currency(), "USD");
  EXPECT_FALSE(t.empty());
  auto sonnet = t.Find("claude-sonnet-4-5");
  ASSERT_TRUE(sonnet);
  EXPECT_DOUBLE_EQ(sonnet->input, 3);
  EXPECT_DOUBLE_EQ(sonnet->cached_input, 0.3);
  EXPECT_DOUBLE_EQ(sonnet->cache_write, 3.75);
  EXPECT_DOUBLE_EQ(sonnet->output, 15);
  auto gpt = t.Find("gpt-4o");
  ASSERT_TRUE(gpt);
  EXPECT_DOUBLE_EQ(gpt->cache_write, 2.5) << "left out: the input price";
  EXPECT_EQ(t.Models(), (std::vector<std::string>{"claude-*", "claude-sonnet-4*",
                                                  "claude-sonnet-4-5", "gpt-4o"}));
}

TEST(PriceTableTest, FindsTheExactNameThenTheLongestPrefix) {
  PriceTable t = Table();
  EXPECT_DOUBLE_EQ(t.Find("claude-sonnet-4-5")->input, 3);
  EXPECT_DOUBLE_EQ(t.Find("claude-sonnet-4-6")->input, 2) << "claude-sonnet-4* beats claude-*";
  EXPECT_DOUBLE_EQ(t.Find("claude-haiku-4-5")->input, 1);
  EXPECT_FALSE(t.Find("gpt-4o-mini")) << "an exact name is no prefix";
  EXPECT_FALSE(t.Find("claude")) << "shorter than every prefix";
  EXPECT_FALSE(t.Find(""));
  EXPECT_FALSE(PriceTable().Find("gpt-4o"));
  EXPECT_TRUE(PriceTable().empty());
}

TEST(PriceTableTest, RefusesBadFilesNamingWhatIsWrong) {
  EXPECT_NE(ParseError("not json").find("not valid JSON"), std::string::npos);
  EXPECT_NE(ParseError("[]").find("must be an object"), std::string::npos);
  EXPECT_NE(ParseError(R"({"models": {}})").find("currency"), std::string::npos);
  EXPECT_NE(ParseError(R"({"currency": "usd", "models": {}})").find("capital letters"),
            std::string::npos);
  EXPECT_NE(ParseError(R"({"currency": "TOOLONGCUR", "models": {}})").find("capital letters"),
            std::string::npos);
  EXPECT_NE(ParseError(R"({"currency": "USD"})").find("\"models\""), std::string::npos);
  EXPECT_NE(ParseError(R"({"currency": "USD", "models": {}, "extra": 1})").find("\"extra\""),
            std::string::npos);
  EXPECT_NE(ParseError(R"({"currency": "USD", "models": {"m": {"input": 1}}})")
                .find("no \"output\" price"),
            std::string::npos);
  EXPECT_NE(ParseError(R"({"currency": "USD", "models": {"m": {"input": -1, "output": 1}}})")
                .find("from 0 to 1000000"),
            std::string::npos);
  EXPECT_NE(ParseError(R"({"currency": "USD", "models": {"m": {"input": 1e7, "output": 1}}})")
                .find("from 0 to 1000000"),
            std::string::npos);
  EXPECT_NE(ParseError(R"({"currency": "USD", "models": {"m": {"input": "3", "output": 1}}})")
                .find("must be a number"),
            std::string::npos);
  EXPECT_NE(ParseError(R"({"currency": "USD", "models": {"m": {"input": 1, "output": 1, "x": 2}}})")
                .find("unknown field \"x\""),
            std::string::npos);
  EXPECT_NE(ParseError(R"({"currency": "USD", "models": {"a*b": {"input": 1, "output": 1}}})")
                .find("not a model name"),
            std::string::npos);
  EXPECT_NE(ParseError(R"({"currency": "USD", "models": {"": {"input": 1, "output": 1}}})")
                .find("not a model name"),
            std::string::npos);
  EXPECT_NE(ParseError(R"({"currency": "USD", "models": {"m": 3}})").find("object of prices"),
            std::string::npos);
  // Deep nesting is refused before it is built.
  std::string deep = R"({"currency": "USD", "models": {"m": {"input": )" +
                     std::string(100000, '[') + std::string(100000, ']') + "}}}";
  EXPECT_NE(ParseError(deep).find("nests deeper"), std::string::npos);
  // Too big, and too many models.
  EXPECT_NE(ParseError(std::string(kMaxPriceFileBytes + 1, ' ')).find("over"), std::string::npos);
  std::string many = R"({"currency": "USD", "models": {)";
  for (size_t i = 0; i <= kMaxPricedModels; ++i) {
    many +=
        (i ? "," : "") + std::string("\"m") + std::to_string(i) + R"(": {"input": 1, "output": 1})";
  }
  many += "}}";
  EXPECT_NE(ParseError(many).find("more than 1000 models"), std::string::npos);
}

TEST(PriceTableTest, LoadsAFileAndNamesItInErrors) {
  testing::TempDir dir;
  std::string path = dir / "prices.json";
  std::ofstream(path) << kPrices;
  auto table = PriceTable::Load(path);
  ASSERT_TRUE(table.ok()) << table.status().message();
  EXPECT_EQ(table->currency(), "USD");
  auto missing = PriceTable::Load(dir / "missing.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kInvalidArgument);
  EXPECT_NE(missing.status().message().find("missing.json"), std::string::npos);
  std::ofstream(dir / "bad.json") << "{";
  auto bad = PriceTable::Load(dir / "bad.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("bad.json"), std::string::npos);
  std::ofstream(dir / "big.json") << std::string(kMaxPriceFileBytes + 10, ' ');
  auto big = PriceTable::Load(dir / "big.json");
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("over"), std::string::npos);
}

TEST(CostTest, PricesEachKindOfTokenAndRoundsToTheNearestMicro) {
  PriceTable t = Table();
  // 1,000,000 input of which 600,000 cached and 100,000 written; 10,000 output:
  // 300,000 * 3 + 600,000 * 0.3 + 100,000 * 3.75 + 10,000 * 15 micros.
  TokenUsage u{.input_tokens = 1000000,
               .output_tokens = 10000,
               .cached_input_tokens = 600000,
               .cache_write_tokens = 100000};
  EXPECT_EQ(t.CostMicros("claude-sonnet-4-5", u), 900000 + 180000 + 375000 + 150000);
  // Rounding: 1 token at 0.3 per million is 0.3 micros, 2 are 0.6.
  EXPECT_EQ(
      t.CostMicros("claude-sonnet-4-5", TokenUsage{.input_tokens = 1, .cached_input_tokens = 1}),
      0);
  EXPECT_EQ(
      t.CostMicros("claude-sonnet-4-5", TokenUsage{.input_tokens = 2, .cached_input_tokens = 2}),
      1);
  // 1 output token of gpt-4o: 10 micros; 3 input tokens: 7.5, rounded up.
  EXPECT_EQ(t.CostMicros("gpt-4o", TokenUsage{.input_tokens = 3}), 8);
  EXPECT_EQ(t.CostMicros("gpt-4o", TokenUsage{.output_tokens = 1}), 10);
  EXPECT_EQ(t.CostMicros("gpt-4o", TokenUsage{}), 0);
  EXPECT_FALSE(t.CostMicros("unknown-model", u)) << "not priced";
  // Counts that do not add up never make a negative cost.
  EXPECT_EQ(t.CostMicros("gpt-4o", TokenUsage{.input_tokens = 1, .cached_input_tokens = 5}),
            static_cast<int64_t>(5 * 1.25 + 0.5));
  // Absurd counts stay within int64.
  auto huge = t.CostMicros("claude-sonnet-4-5", TokenUsage{.output_tokens = INT64_MAX});
  ASSERT_TRUE(huge);
  EXPECT_GT(*huge, 0);
}

TEST(CostTest, FormatsAndParsesCosts) {
  EXPECT_EQ(FormatCost(12345678, "USD"), "12.345678 USD");
  EXPECT_EQ(FormatCost(12500000, "USD"), "12.50 USD");
  EXPECT_EQ(FormatCost(4200, "USD"), "0.0042 USD");
  EXPECT_EQ(FormatCost(0, "EUR"), "0.00 EUR");
  EXPECT_EQ(FormatCost(50000000, ""), "50.00");
  EXPECT_EQ(FormatCost(-1500000, "USD"), "-1.50 USD");
  EXPECT_DOUBLE_EQ(CostUnits(12500000), 12.5);

  EXPECT_EQ(*ParseCost("50"), 50000000);
  EXPECT_EQ(*ParseCost("12.5"), 12500000);
  EXPECT_EQ(*ParseCost("0.25"), 250000);
  EXPECT_EQ(*ParseCost("0.000001"), 1);
  EXPECT_EQ(*ParseCost("1000000000000"), 1000000000000LL * 1000000);
  for (const char* bad : {"", "-1", "+1", "1.", ".5", "1.0000001", "abc", "1e3", "1,5", " 1",
                          "1000000000000.01", "99999999999999"}) {
    auto parsed = ParseCost(bad);
    EXPECT_FALSE(parsed.ok()) << bad;
    if (!parsed.ok()) {
      EXPECT_EQ(parsed.status().code(), Code::kInvalidArgument);
    }
  }
}

TEST(BudgetMonthTest, StartsOnTheFirstOfTheMonthInUtc) {
  // 2026-11-26T10:14:10.123Z
  EXPECT_EQ(MonthStart(1795688050123), 1793491200000);  // 2026-11-01T00:00:00Z
  EXPECT_EQ(MonthName(1795688050123), "2026-11");
  EXPECT_EQ(MonthStart(1793491200000), 1793491200000) << "the first instant is its own start";
  EXPECT_EQ(MonthStart(1793491199999), 1790812800000) << "the last ms of October";
  EXPECT_EQ(MonthName(1793491199999), "2026-10");
  EXPECT_EQ(MonthStart(1709251199999), 1706745600000) << "29 February 2024";
  EXPECT_EQ(MonthStart(0), 0);
  EXPECT_EQ(MonthName(0), "1970-01");
  EXPECT_EQ(MonthStart(-1), -2678400000) << "31 December 1969 is in December";
}

TEST(BudgetRulesTest, SaysWhichBudgetIsSpent) {
  constexpr UnixMillis kNov = 1795688050123;
  MonthlyBudget tokens{.tokens = 1000000};
  EXPECT_FALSE(BudgetSpentError(BudgetOwner::kProject, tokens, Spend{.tokens = 999999}, "", kNov));
  EXPECT_EQ(BudgetSpentError(BudgetOwner::kProject, tokens, Spend{.tokens = 1000412}, "", kNov),
            "the project's monthly token budget (1,000,000 tokens) is spent: 1,000,412 tokens "
            "used in 2026-11");
  EXPECT_TRUE(BudgetSpentError(BudgetOwner::kProject, tokens, Spend{.tokens = 1000000}, "", kNov))
      << "reached is spent";
  MonthlyBudget cost{.cost_micros = 50000000};
  EXPECT_FALSE(BudgetSpentError(BudgetOwner::kOrganisation, cost, Spend{.cost_micros = 49999999},
                                "USD", kNov));
  EXPECT_EQ(
      BudgetSpentError(BudgetOwner::kOrganisation, cost,
                       Spend{.tokens = 5, .cost_micros = 50120000}, "USD", kNov),
      "the organisation's monthly cost budget (50.00 USD) is spent: 50.12 USD used in 2026-11");
  EXPECT_FALSE(BudgetSpentError(BudgetOwner::kProject, MonthlyBudget{},
                                Spend{.tokens = INT64_MAX, .cost_micros = INT64_MAX}, "", kNov))
      << "no budget, nothing spent";
}

TEST(BudgetRulesTest, ASpendLimitIsCrossedOnceTheTurnUsesWhatIsLeft) {
  PriceTable prices = Table();
  SpendLimit limit;
  limit.tokens_left = 1000;
  limit.tokens_budget = TokenBudgetName(BudgetOwner::kProject, 1000000);
  EXPECT_EQ(limit.tokens_budget, "the project's monthly token budget (1,000,000 tokens)");
  EXPECT_FALSE(limit.Crossed("gpt-4o", TokenUsage{.input_tokens = 900, .output_tokens = 99}));
  EXPECT_EQ(limit.Crossed("gpt-4o", TokenUsage{.input_tokens = 900, .output_tokens = 100}),
            "the turn was stopped after it crossed the project's monthly token budget "
            "(1,000,000 tokens)");

  SpendLimit cost;
  cost.cost_micros_left = 100;  // 10 output tokens of gpt-4o
  cost.cost_budget = CostBudgetName(BudgetOwner::kOrganisation, 50000000, "USD");
  EXPECT_FALSE(cost.Crossed("gpt-4o", TokenUsage{.output_tokens = 1000}))
      << "without a price table, cost is not capped";
  cost.prices = &prices;
  EXPECT_FALSE(cost.Crossed("gpt-4o", TokenUsage{.output_tokens = 9}));
  EXPECT_EQ(cost.Crossed("gpt-4o", TokenUsage{.output_tokens = 10}),
            "the turn was stopped after it crossed the organisation's monthly cost budget "
            "(50.00 USD)");
  EXPECT_FALSE(cost.Crossed("unpriced-model", TokenUsage{.output_tokens = 1000000}))
      << "an unpriced model's cost is not known";
  EXPECT_FALSE(SpendLimit{}.Crossed("gpt-4o", TokenUsage{.output_tokens = INT64_MAX / 2}));
}

}  // namespace
}  // namespace docwright
