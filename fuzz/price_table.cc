// The operator's price file (core/usage.h). Whatever it holds: parsing ends
// with a table or an error, never a crash; a table keeps its bounds (a
// currency of 1 to 8 capital letters, at most kMaxPricedModels models, each
// price 0 to 1,000,000), and its costs are never negative.
#include <cmath>

#include "core/usage.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace docwright;
  std::string_view text = fuzz::AsText(data, size);
  Result<PriceTable> table = PriceTable::Parse(text);
  if (!table.ok()) {
    FUZZ_CHECK(table.status().code() == Code::kInvalidArgument);
    FUZZ_CHECK(!table.status().message().empty());
    return 0;
  }
  FUZZ_CHECK(!table->currency().empty() && table->currency().size() <= 8);
  std::vector<std::string> models = table->Models();
  FUZZ_CHECK(models.size() <= kMaxPricedModels);
  const TokenUsage usages[] = {
      {},
      {.input_tokens = 1000,
       .output_tokens = 10,
       .cached_input_tokens = 600,
       .cache_write_tokens = 100},
      {.input_tokens = INT64_MAX, .output_tokens = INT64_MAX},
      {.input_tokens = -5, .cached_input_tokens = 7},
  };
  for (const std::string& model : models) {
    std::optional<ModelPrice> price = table->Find(model);
    FUZZ_CHECK(price.has_value());
    for (double p : {price->input, price->cached_input, price->cache_write, price->output}) {
      FUZZ_CHECK(std::isfinite(p) && p >= 0 && p <= 1000000);
    }
    for (const TokenUsage& usage : usages) {
      std::optional<int64_t> cost = table->CostMicros(model, usage);
      FUZZ_CHECK(cost.has_value() && *cost >= 0);
    }
    // A longer name under a prefix key is priced by it or a longer one.
    if (model.ends_with('*')) FUZZ_CHECK(table->Find(model.substr(0, model.size() - 1) + "x"));
  }
  return 0;
}
