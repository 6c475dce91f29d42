// A SUMMARY.md (GitBook, mdBook) as docs/internal.h ReadSummary reads it. Checks
// the bounds its contract promises: at most kMaxNavEntries entries, each label
// and destination a bounded copy, groups bounded whatever the nesting, lines
// within the text.
#include <string>

#include "docs/internal.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace docwright;
  std::string_view text = fuzz::AsText(data, size);
  docs::Limits limits;
  docs::Budget budget(limits);
  bool complete = true;
  std::vector<docs::SummaryItem> items = docs::ReadSummary(text, budget, &complete);
  FUZZ_CHECK(items.size() <= docs::kMaxNavEntries);
  int previous = 0;
  for (const docs::SummaryItem& item : items) {
    FUZZ_CHECK(item.label.size() <= docs::kMaxNameBytes);
    FUZZ_CHECK(item.destination.size() <= 4 * docs::kMaxNameBytes);
    FUZZ_CHECK(item.group.size() <= 5 * docs::kMaxNameBytes);
    FUZZ_CHECK(item.line > previous && item.line <= static_cast<int>(size) + 1);
    previous = item.line;
  }
  return 0;
}
