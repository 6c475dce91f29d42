// The request target of an HTTP request ("/v2/agent/p/job?limit=10"), split into
// decoded path segments and query parameters. It sees bytes straight from the
// network, so it is a unit of its own, fuzzed by fuzz/request_target.cc.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace docwright {

struct RequestTarget {
  // The path after its leading '/', split at '/' and then decoded: "/a/b" is
  // {"a", "b"}, "/a/" is {"a", ""}: one segment per '/', except "/" alone, which
  // has none.
  std::vector<std::string> segments;
  // The query's key=value pairs in order, decoded; pairs with an empty key are
  // dropped, and a pair without '=' has an empty value.
  std::vector<std::pair<std::string, std::string>> query;
  // False if the path does not start with '/' or an escape is malformed; the
  // other fields are then incomplete and must not be used.
  bool ok = true;
};

// Never fails otherwise; linear in the size of `target`.
RequestTarget ParseTarget(std::string_view target);

// A query parameter's value as a whole decimal integer in [lo, hi]: false (and
// `*out` untouched) for anything else (signs other than '-', spaces, empty).
bool ParseIntParam(std::string_view value, int lo, int hi, int* out);

}  // namespace docwright
