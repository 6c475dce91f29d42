#include "core/review_json.h"

namespace docwright {

void WriteReviewFiles(const std::vector<ReviewFile>& files, JsonWriter& w) {
  w.BeginArray();
  for (const ReviewFile& f : files) {
    w.BeginObject();
    w.Key("path").String(f.path);
    w.Key("change").String(f.change);
    w.Key("from").OptString(f.from);
    w.Key("additions").Int(f.additions);
    w.Key("deletions").Int(f.deletions);
    w.Key("previewHtml").OptString(f.preview_html);
    w.EndObject();
  }
  w.EndArray();
}

void WriteStringList(const std::vector<std::string>& items, JsonWriter& w) {
  w.BeginArray();
  for (const std::string& s : items) w.String(s);
  w.EndArray();
}

}  // namespace docwright
