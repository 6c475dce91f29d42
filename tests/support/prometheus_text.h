// A strict reader of the Prometheus text exposition format (0.0.4), for tests:
// it accepts only what the format allows and what docwright promises on top,
// and names the first thing wrong. Checked: every line is a comment, a blank
// line or a sample; # HELP and # TYPE at most once per family and before its
// samples; a family's samples together; metric and label names valid; label
// values quoted with only \\, \" and \n escaped; values floats (or +Inf, -Inf,
// NaN); no series twice; counters' samples not negative; histograms' buckets
// with increasing `le`, counts cumulative, a last bucket le="+Inf" equal to
// _count, and a _sum. Not thread-safe; pure.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace docwright::testing {

struct PromSample {
  std::string name;                           // as written: "x_bucket", "x_sum"...
  std::map<std::string, std::string> labels;  // unescaped
  double value = 0;
};

struct PromFamily {
  std::string name;
  std::string help;  // unescaped
  std::string type;  // counter, gauge, histogram, summary, untyped
  std::vector<PromSample> samples;
};

struct PromParse {
  std::string error;  // empty when the text is valid; else "line N: what"
  std::map<std::string, PromFamily> families;

  bool ok() const { return error.empty(); }
  // The value of the sample `name` with exactly `labels`; -1 when absent.
  double Value(const std::string& name, const std::map<std::string, std::string>& labels) const;
  // The sum over every sample named `name` whose labels include `match`.
  double Sum(const std::string& name, const std::map<std::string, std::string>& match = {}) const;
  // Every label value of every sample.
  std::vector<std::string> LabelValues() const;
};

PromParse ParsePrometheusText(std::string_view text);

}  // namespace docwright::testing
