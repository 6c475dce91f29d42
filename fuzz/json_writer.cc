// The JSON views are written by JsonWriter, not by a JSON library: whatever the
// strings in a job (prompts, summaries, errors come from users and models), the
// output must parse, and parse back to what was written. The input drives a
// random document (objects, arrays, strings, numbers, booleans, nulls) written
// both with JsonWriter and as an nlohmann value, and the two are compared.
#include "core/json_writer.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <nlohmann/json.hpp>
#include <string>

#include "fuzz_check.h"

namespace docwright {
namespace {

using Json = nlohmann::ordered_json;

// What JsonWriter promises for invalid UTF-8, written independently of it: each
// byte that does not start a well-formed sequence (Unicode's table 3-7) becomes
// U+FFFD; well-formed sequences are kept.
std::string Expected(std::string_view s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
    auto in = [&](size_t k, int lo, int hi) {
      return i + k < s.size() && b(k) >= lo && b(k) <= hi;
    };
    size_t len = 0;
    unsigned char c = b(0);
    if (c <= 0x7f)
      len = 1;
    else if (c >= 0xc2 && c <= 0xdf)
      len = in(1, 0x80, 0xbf) ? 2 : 0;
    else if (c == 0xe0)
      len = in(1, 0xa0, 0xbf) && in(2, 0x80, 0xbf) ? 3 : 0;
    else if ((c >= 0xe1 && c <= 0xec) || c == 0xee || c == 0xef)
      len = in(1, 0x80, 0xbf) && in(2, 0x80, 0xbf) ? 3 : 0;
    else if (c == 0xed)
      len = in(1, 0x80, 0x9f) && in(2, 0x80, 0xbf) ? 3 : 0;
    else if (c == 0xf0)
      len = in(1, 0x90, 0xbf) && in(2, 0x80, 0xbf) && in(3, 0x80, 0xbf) ? 4 : 0;
    else if (c >= 0xf1 && c <= 0xf3)
      len = in(1, 0x80, 0xbf) && in(2, 0x80, 0xbf) && in(3, 0x80, 0xbf) ? 4 : 0;
    else if (c == 0xf4)
      len = in(1, 0x80, 0x8f) && in(2, 0x80, 0xbf) && in(3, 0x80, 0xbf) ? 4 : 0;
    if (len == 0) {
      out += "\xef\xbf\xbd";
      ++i;
    } else {
      out.append(s.substr(i, len));
      i += len;
    }
  }
  return out;
}

// Writes one value with `w` and returns it as nlohmann sees it.
Json WriteValue(FuzzedDataProvider& in, JsonWriter& w, int depth) {
  int kind = in.ConsumeIntegralInRange(0, depth >= 8 ? 4 : 6);
  switch (kind) {
    case 0: {
      std::string s = in.ConsumeRandomLengthString(256);
      w.String(s);
      return Json(Expected(s));
    }
    case 1: {
      auto v = in.ConsumeIntegral<int64_t>();
      w.Int(v);
      return Json(v);
    }
    case 2: {
      bool v = in.ConsumeBool();
      w.Bool(v);
      return Json(v);
    }
    case 3:
      w.Null();
      return Json(nullptr);
    case 4: {
      std::optional<std::string> v;
      if (in.ConsumeBool()) v = in.ConsumeRandomLengthString(64);
      w.OptString(v);
      return v ? Json(Expected(*v)) : Json(nullptr);
    }
    case 5: {
      Json a = Json::array();
      w.BeginArray();
      for (int n = in.ConsumeIntegralInRange(0, 6); n > 0 && in.remaining_bytes() > 0; --n) {
        a.push_back(WriteValue(in, w, depth + 1));
      }
      w.EndArray();
      return a;
    }
    default: {
      Json o = Json::object();
      w.BeginObject();
      for (int n = in.ConsumeIntegralInRange(0, 6); n > 0 && in.remaining_bytes() > 0; --n) {
        std::string key = in.ConsumeRandomLengthString(32);
        w.Key(key);
        // A repeated key keeps its first place and its last value, as the parser does.
        o[Expected(key)] = WriteValue(in, w, depth + 1);
      }
      w.EndObject();
      return o;
    }
  }
}

}  // namespace
}  // namespace docwright

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace docwright;
  FuzzedDataProvider in(data, size);
  std::string out;
  JsonWriter w(&out);
  Json expected = WriteValue(in, w, 0);
  Json parsed = Json::parse(out, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) std::fprintf(stderr, "unparsable output: %s\n", out.c_str());
  FUZZ_CHECK(!parsed.is_discarded());
  FUZZ_CHECK(parsed == expected);
  // A string alone, as AppendJsonString writes one.
  std::string one;
  AppendJsonString(fuzz::AsText(data, size), &one);
  Json s = Json::parse(one, nullptr, /*allow_exceptions=*/false);
  FUZZ_CHECK(s.is_string() && s.get<std::string>() == Expected(fuzz::AsText(data, size)));
  return 0;
}
