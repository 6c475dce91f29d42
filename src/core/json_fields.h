// Fields of parsed JSON that nobody vetted (model replies, site configurations):
// a missing field, or one of another type, reads as the fallback and never
// throws. For nlohmann::json and nlohmann::ordered_json alike.
#pragma once

#include <cstdint>
#include <string>

namespace docwright {

template <typename Json>
std::string StringField(const Json& object, const char* key, std::string fallback = "") {
  if (!object.is_object()) return fallback;
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->template get<std::string>() : fallback;
}

template <typename Json>
int64_t IntField(const Json& object, const char* key) {
  if (!object.is_object()) return 0;
  auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->template get<int64_t>() : 0;
}

}  // namespace docwright
