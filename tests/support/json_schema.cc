#include "support/json_schema.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>

namespace docwright::testing {
namespace {

using nlohmann::json;

const json& Null() {
  static const json kNull;
  return kNull;
}

bool HasType(const json& v, const std::string& type) {
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "string") return v.is_string();
  if (type == "integer") return v.is_number_integer();
  if (type == "number") return v.is_number();
  if (type == "boolean") return v.is_boolean();
  return false;
}

bool IsDateTime(const std::string& s) {
  static const std::regex kRfc3339(
      R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2}))");
  return std::regex_match(s, kRfc3339);
}

bool IsUri(const std::string& s) {
  static const std::regex kUri(R"([A-Za-z][A-Za-z0-9+.-]*:[^\s]*)");
  return std::regex_match(s, kUri);
}

// Keywords that only describe: they constrain nothing.
const std::set<std::string>& Annotations() {
  static const std::set<std::string> kSet = {"description", "title",      "example",  "examples",
                                             "default",     "deprecated", "readOnly", "writeOnly"};
  return kSet;
}

}  // namespace

OpenApiDocument::OpenApiDocument(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  if (!in.good()) return;
  doc_ = json::parse(in, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(doc_.is_discarded()) << path << " is not JSON";
  if (doc_.is_discarded()) doc_ = json();
}

const json& OpenApiDocument::ResponseSchema(const std::string& path, const std::string& method,
                                            const std::string& status,
                                            const std::string& media_type) const {
  const json::json_pointer at("/paths/" + std::regex_replace(path, std::regex("/"), "~1") + "/" +
                              method + "/responses/" + status + "/content/" +
                              std::regex_replace(media_type, std::regex("/"), "~1") + "/schema");
  return doc_.contains(at) ? doc_.at(at) : Null();
}

std::vector<std::string> OpenApiDocument::Check(const json& value, const json& schema) const {
  std::vector<std::string> errors;
  if (schema.is_null()) {
    errors.push_back("no schema");
    return errors;
  }
  CheckAt(value, schema, "$", errors, 0);
  return errors;
}

void OpenApiDocument::CheckAt(const json& v, const json& s, const std::string& at,
                              std::vector<std::string>& errors, int depth) const {
  auto fail = [&](const std::string& why) { errors.push_back(at + ": " + why); };
  if (depth > 64) return fail("schema nests too deep (a $ref cycle?)");
  if (!s.is_object()) return fail("the schema is not an object");
  if (auto ref = s.find("$ref"); ref != s.end()) {
    std::string r = ref->get<std::string>();
    if (r.rfind("#/", 0) != 0) return fail("unsupported $ref " + r);
    json::json_pointer p(r.substr(1));
    if (!doc_.contains(p)) return fail("dangling $ref " + r);
    return CheckAt(v, doc_.at(p), at, errors, depth + 1);
  }
  for (const auto& [key, _] : s.items()) {
    static const std::set<std::string> kKnown = {
        "type",   "nullable", "enum",  "required", "properties", "additionalProperties",
        "items",  "oneOf",    "anyOf", "allOf",    "format",     "minimum",
        "maximum"};
    if (!kKnown.count(key) && !Annotations().count(key)) fail("unsupported keyword " + key);
  }
  if (v.is_null()) {
    if (!s.value("nullable", false) && s.contains("type")) fail("null where it is not nullable");
    return;
  }
  if (auto type = s.find("type"); type != s.end() && !HasType(v, type->get<std::string>())) {
    return fail("expected " + type->get<std::string>() + ", got " + v.dump());
  }
  if (auto e = s.find("enum"); e != s.end()) {
    bool found = false;
    for (const json& option : *e) found = found || option == v;
    if (!found) fail(v.dump() + " is not one of " + e->dump());
  }
  if (auto f = s.find("format"); f != s.end() && v.is_string()) {
    const std::string& text = v.get_ref<const std::string&>();
    if (*f == "date-time" && !IsDateTime(text)) fail("not a date-time: " + text);
    if (*f == "uri" && !IsUri(text)) fail("not a URI: " + text);
  }
  if (v.is_number()) {
    if (auto m = s.find("minimum"); m != s.end() && v < *m) fail("below " + m->dump());
    if (auto m = s.find("maximum"); m != s.end() && v > *m) fail("above " + m->dump());
  }
  if (v.is_object()) {
    if (auto req = s.find("required"); req != s.end()) {
      for (const json& name : *req) {
        if (!v.contains(name.get<std::string>())) fail("missing " + name.get<std::string>());
      }
    }
    const json props = s.value("properties", json::object());
    for (const auto& [key, value] : v.items()) {
      if (props.contains(key)) {
        CheckAt(value, props[key], at + "." + key, errors, depth + 1);
        continue;
      }
      auto extra = s.find("additionalProperties");
      if (extra == s.end()) continue;
      if (extra->is_boolean()) {
        if (!extra->get<bool>()) fail("unexpected member " + key);
      } else {
        CheckAt(value, *extra, at + "." + key, errors, depth + 1);
      }
    }
  }
  if (v.is_array()) {
    if (auto items = s.find("items"); items != s.end()) {
      for (size_t i = 0; i < v.size(); ++i) {
        CheckAt(v[i], *items, at + "[" + std::to_string(i) + "]", errors, depth + 1);
      }
    }
  }
  auto matching = [&](const json& options) {
    int n = 0;
    for (const json& option : options) {
      std::vector<std::string> sub;
      CheckAt(v, option, at, sub, depth + 1);
      n += sub.empty();
    }
    return n;
  };
  if (auto all = s.find("allOf"); all != s.end()) {
    for (const json& option : *all) CheckAt(v, option, at, errors, depth + 1);
  }
  if (auto any = s.find("anyOf"); any != s.end() && matching(*any) == 0) {
    fail("matches none of anyOf");
  }
  if (auto one = s.find("oneOf"); one != s.end()) {
    int n = matching(*one);
    if (n != 1) fail("matches " + std::to_string(n) + " of oneOf, not exactly one");
  }
}

}  // namespace docwright::testing
