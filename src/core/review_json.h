// A review's lists (core/review.h) as JSON arrays, written once for both of
// their readers: the API's view of a review (docs/api.md, "Review of a job's
// branch") and the store's columns (store/sql/reviews.cc), which hold them as
// the API shows them. Pure functions: any thread.
#pragma once

#include <string>
#include <vector>

#include "core/json_writer.h"
#include "core/review.h"

namespace docwright {

void WriteReviewFiles(const std::vector<ReviewFile>& files, JsonWriter& w);
void WriteStringList(const std::vector<std::string>& items, JsonWriter& w);

}  // namespace docwright
