#include "core/usage.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>

namespace docwright {
namespace {

using nlohmann::json;

// The price file is three objects deep ({"models": {"name": {...}}}); anything
// deeper is refused before nlohmann builds it (its tree is freed recursively).
constexpr int kMaxPriceFileDepth = 3;
constexpr size_t kMaxModelNameBytes = 200;
constexpr double kMaxPrice = 1000000;
// ParseCost's ceiling, in currency units, and the largest cost a turn records.
constexpr int64_t kMaxCostUnits = 1000000000000;
// One turn's cost at most (a billion currency units): sums of any number of
// turns a store can hold stay far from int64's limit in both drivers.
constexpr long double kMaxCostMicros = 1e15L;

// Whether the nesting of `text`'s arrays and objects stays within `max_depth`
// (strings skipped, escapes included). Malformed text is left to the parser.
bool WithinDepth(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > max_depth) return false;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return true;
}

// A model name or "prefix*" key: printable ASCII of the characters model names
// use, a '*' only at its end.
bool ValidModelKey(std::string_view key) {
  if (key.empty() || key.size() > kMaxModelNameBytes) return false;
  for (size_t i = 0; i < key.size(); ++i) {
    char c = key[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.' || c == ':' || c == '/' || c == '@' ||
              (c == '*' && i + 1 == key.size());
    if (!ok) return false;
  }
  return true;
}

// A quoted, bounded name for error messages (the key may be anything).
std::string Quoted(std::string_view key) {
  std::string out = "\"";
  for (char c : key.substr(0, 60)) {
    out += (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') ? c : '?';
  }
  return out + (key.size() > 60 ? "...\"" : "\"");
}

Result<double> PriceField(const json& prices, const char* key, const std::string& where,
                          std::optional<double> fallback) {
  auto it = prices.find(key);
  if (it == prices.end()) {
    if (fallback) return *fallback;
    return Status::InvalidArgument(where + " has no \"" + key + "\" price");
  }
  if (!it->is_number()) {
    return Status::InvalidArgument(where + "'s \"" + key + "\" must be a number");
  }
  double value = it->get<double>();
  if (!std::isfinite(value) || value < 0 || value > kMaxPrice) {
    return Status::InvalidArgument(where + "'s \"" + key +
                                   "\" must be from 0 to 1000000 (per million tokens)");
  }
  return value;
}

Result<ModelPrice> ParseModelPrice(const std::string& name, const json& prices) {
  std::string where = "the model " + Quoted(name);
  if (!prices.is_object()) {
    return Status::InvalidArgument(where + " must be an object of prices");
  }
  for (const auto& [key, value] : prices.items()) {
    if (key != "input" && key != "cachedInput" && key != "cacheWrite" && key != "output") {
      return Status::InvalidArgument(where + " has an unknown field " + Quoted(key) +
                                     " (input, cachedInput, cacheWrite, output)");
    }
  }
  ModelPrice price;
  auto input = PriceField(prices, "input", where, std::nullopt);
  if (!input.ok()) return input.status();
  auto output = PriceField(prices, "output", where, std::nullopt);
  if (!output.ok()) return output.status();
  auto cached = PriceField(prices, "cachedInput", where, *input);
  if (!cached.ok()) return cached.status();
  auto write = PriceField(prices, "cacheWrite", where, *input);
  if (!write.ok()) return write.status();
  price.input = *input;
  price.output = *output;
  price.cached_input = *cached;
  price.cache_write = *write;
  return price;
}

// 1234567 as "1,234,567".
std::string Grouped(int64_t n) {
  bool negative = n < 0;
  uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  std::string digits = std::to_string(magnitude);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return negative ? "-" + out : out;
}

std::string_view OwnerName(BudgetOwner owner) {
  return owner == BudgetOwner::kProject ? "the project's" : "the organisation's";
}

}  // namespace

Result<PriceTable> PriceTable::Parse(std::string_view text) {
  if (text.size() > kMaxPriceFileBytes) {
    return Status::InvalidArgument("the price file is over " + std::to_string(kMaxPriceFileBytes) +
                                   " bytes");
  }
  if (!WithinDepth(text, kMaxPriceFileDepth)) {
    return Status::InvalidArgument("the price file nests deeper than its format does");
  }
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) return Status::InvalidArgument("the price file is not valid JSON");
  if (!root.is_object()) {
    return Status::InvalidArgument("the price file must be an object with currency and models");
  }
  for (const auto& [key, value] : root.items()) {
    if (key != "currency" && key != "models") {
      return Status::InvalidArgument("the price file has an unknown field " + Quoted(key) +
                                     " (currency, models)");
    }
  }
  PriceTable table;
  auto currency = root.find("currency");
  if (currency == root.end() || !currency->is_string()) {
    return Status::InvalidArgument(
        "the price file's \"currency\" must be a string such as \"USD\"");
  }
  table.currency_ = currency->get<std::string>();
  bool letters = !table.currency_.empty() && table.currency_.size() <= 8 &&
                 std::all_of(table.currency_.begin(), table.currency_.end(),
                             [](char c) { return c >= 'A' && c <= 'Z'; });
  if (!letters) {
    return Status::InvalidArgument(
        "the price file's \"currency\" must be 1 to 8 capital letters (an ISO 4217 code such as "
        "\"USD\")");
  }
  auto models = root.find("models");
  if (models == root.end() || !models->is_object()) {
    return Status::InvalidArgument(
        "the price file's \"models\" must be an object of models and their prices");
  }
  if (models->size() > kMaxPricedModels) {
    return Status::InvalidArgument("the price file names more than " +
                                   std::to_string(kMaxPricedModels) + " models");
  }
  for (const auto& [name, prices] : models->items()) {
    if (!ValidModelKey(name)) {
      return Status::InvalidArgument(
          "the price file's model " + Quoted(name) +
          " is not a model name (1 to 200 of letters, digits and -_.:/@, or a prefix ending in "
          "*)");
    }
    auto price = ParseModelPrice(name, prices);
    if (!price.ok()) return Status::InvalidArgument("the price file: " + price.status().message());
    table.models_[name] = *price;
  }
  return table;
}

Result<PriceTable> PriceTable::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::InvalidArgument("cannot read the price file " + path);
  std::string text;
  text.resize(kMaxPriceFileBytes + 1);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return Status::InvalidArgument("cannot read the price file " + path);
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxPriceFileBytes) {
    return Status::InvalidArgument("the price file " + path + " is over " +
                                   std::to_string(kMaxPriceFileBytes) + " bytes");
  }
  auto table = Parse(text);
  if (!table.ok()) return Status::InvalidArgument(path + ": " + table.status().message());
  return table;
}

std::optional<ModelPrice> PriceTable::Find(std::string_view model) const {
  if (auto exact = models_.find(model); exact != models_.end() && !exact->first.ends_with('*')) {
    return exact->second;
  }
  const ModelPrice* best = nullptr;
  size_t best_length = 0;
  for (const auto& [key, price] : models_) {
    if (!key.ends_with('*')) continue;
    std::string_view prefix = std::string_view(key).substr(0, key.size() - 1);
    if (model.starts_with(prefix) && (!best || prefix.size() > best_length)) {
      best = &price;
      best_length = prefix.size();
    }
  }
  if (!best) return std::nullopt;
  return *best;
}

std::optional<int64_t> PriceTable::CostMicros(std::string_view model,
                                              const TokenUsage& usage) const {
  std::optional<ModelPrice> price = Find(model);
  if (!price) return std::nullopt;
  auto count = [](int64_t n) { return static_cast<long double>(std::max<int64_t>(n, 0)); };
  long double cached = count(usage.cached_input_tokens);
  long double written = count(usage.cache_write_tokens);
  long double uncached = std::max(0.0L, count(usage.input_tokens) - cached - written);
  // Prices are per million tokens, so price * tokens is micros.
  long double micros = uncached * price->input + cached * price->cached_input +
                       written * price->cache_write + count(usage.output_tokens) * price->output;
  return static_cast<int64_t>(std::llround(std::min(micros, kMaxCostMicros)));
}

std::vector<std::string> PriceTable::Models() const {
  std::vector<std::string> names;
  names.reserve(models_.size());
  for (const auto& entry : models_) names.push_back(entry.first);
  return names;
}

std::string FormatCost(int64_t micros, std::string_view currency) {
  bool negative = micros < 0;
  uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(micros) : static_cast<uint64_t>(micros);
  std::string fraction = std::to_string(magnitude % 1000000);
  fraction.insert(0, 6 - fraction.size(), '0');
  while (fraction.size() > 2 && fraction.back() == '0') fraction.pop_back();
  std::string out = (negative ? "-" : "") + std::to_string(magnitude / 1000000) + "." + fraction;
  if (!currency.empty()) out += " " + std::string(currency);
  return out;
}

Result<int64_t> ParseCost(std::string_view text) {
  auto refuse = [] {
    return Status::InvalidArgument(
        "a cost is a number of currency units, at most 1000000000000 with at most six decimals "
        "(\"50\", \"12.5\")");
  };
  size_t dot = text.find('.');
  std::string_view whole = text.substr(0, dot);
  std::string_view fraction =
      dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  auto digits = [](std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (whole.empty() || whole.size() > 13 || !digits(whole)) return refuse();
  if (dot != std::string_view::npos &&
      (fraction.empty() || fraction.size() > 6 || !digits(fraction))) {
    return refuse();
  }
  int64_t units = 0;
  for (char c : whole) units = units * 10 + (c - '0');
  int64_t micros_part = 0;
  for (size_t i = 0; i < 6; ++i)
    micros_part = micros_part * 10 + (i < fraction.size() ? fraction[i] - '0' : 0);
  if (units > kMaxCostUnits || (units == kMaxCostUnits && micros_part > 0)) return refuse();
  return units * 1000000 + micros_part;
}

double CostUnits(int64_t micros) { return static_cast<double>(micros) / 1e6; }

UnixMillis MonthStart(UnixMillis now) {
  using namespace std::chrono;
  sys_days day = floor<days>(sys_time<milliseconds>(milliseconds(now)));
  year_month_day date(day);
  sys_days first = date.year() / date.month() / 1;
  return duration_cast<milliseconds>(first.time_since_epoch()).count();
}

std::string MonthName(UnixMillis now) {
  using namespace std::chrono;
  year_month_day date(floor<days>(sys_time<milliseconds>(milliseconds(now))));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02u", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()));
  return buf;
}

std::string TokenBudgetName(BudgetOwner owner, int64_t tokens) {
  return std::string(OwnerName(owner)) + " monthly token budget (" + Grouped(tokens) + " tokens)";
}

std::string CostBudgetName(BudgetOwner owner, int64_t micros, std::string_view currency) {
  return std::string(OwnerName(owner)) + " monthly cost budget (" + FormatCost(micros, currency) +
         ")";
}

std::optional<std::string> BudgetSpentError(BudgetOwner owner, const MonthlyBudget& budget,
                                            const Spend& spent, std::string_view currency,
                                            UnixMillis now) {
  if (budget.tokens && spent.tokens >= *budget.tokens) {
    return TokenBudgetName(owner, *budget.tokens) + " is spent: " + Grouped(spent.tokens) +
           " tokens used in " + MonthName(now);
  }
  if (budget.cost_micros && spent.cost_micros >= *budget.cost_micros) {
    return CostBudgetName(owner, *budget.cost_micros, currency) +
           " is spent: " + FormatCost(spent.cost_micros, currency) + " used in " + MonthName(now);
  }
  return std::nullopt;
}

std::optional<std::string> SpendLimit::Crossed(std::string_view model,
                                               const TokenUsage& used) const {
  if (tokens_left && used.total() >= *tokens_left) {
    return "the turn was stopped after it crossed " + tokens_budget;
  }
  if (prices && cost_micros_left) {
    std::optional<int64_t> cost = prices->CostMicros(model, used);
    if (cost && *cost >= *cost_micros_left) {
      return "the turn was stopped after it crossed " + cost_budget;
    }
  }
  return std::nullopt;
}

}  // namespace docwright
