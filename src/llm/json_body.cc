#include "llm/json_body.h"

#include <nlohmann/json.hpp>

#include "core/json_writer.h"
#include "core/text.h"

namespace docwright::llm {
namespace {

using nlohmann::json;

constexpr int kMaxDepth = 64;

std::string NlohmannDump(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

// A string as nlohmann writes it: well-formed UTF-8 by the product's own JSON
// writer, which escapes it alike; the rest (the replacement's rules are
// nlohmann's own) by nlohmann.
void AppendString(const std::string& s, std::string& out) {
  if (Utf8Length(s)) {
    AppendJsonString(s, &out);
  } else {
    out += NlohmannDump(json(s));
  }
}

void Append(const json& value, int depth, std::string& out) {
  if (depth > kMaxDepth) {
    out += NlohmannDump(value);
    return;
  }
  switch (value.type()) {
    case json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, member] : value.items()) {
        if (!first) out += ',';
        first = false;
        AppendString(key, out);
        out += ':';
        Append(member, depth + 1, out);
      }
      out += '}';
      return;
    }
    case json::value_t::array: {
      out += '[';
      bool first = true;
      for (const json& element : value) {
        if (!first) out += ',';
        first = false;
        Append(element, depth + 1, out);
      }
      out += ']';
      return;
    }
    case json::value_t::string:
      AppendString(value.get_ref<const std::string&>(), out);
      return;
    default:  // numbers, booleans, null, binary, discarded: as nlohmann writes them
      out += NlohmannDump(value);
      return;
  }
}

}  // namespace

std::string DumpJson(const json& value) {
  std::string out;
  Append(value, 0, out);
  return out;
}

}  // namespace docwright::llm
