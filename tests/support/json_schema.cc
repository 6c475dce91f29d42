#include "support/json_schema.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <mutex>
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
  if (type == "null") return v.is_null();
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

// Whether `v` has the type `type` names: one name, or (OpenAPI 3.1) a list of
// names. OpenAPI 3.0's `nullable` lets null through too.
bool TypeAllows(const json& v, const json& type, bool nullable) {
  if (v.is_null() && nullable) return true;
  if (type.is_string()) return HasType(v, type.get<std::string>());
  if (!type.is_array()) return false;
  for (const json& t : type) {
    if (t.is_string() && HasType(v, t.get<std::string>())) return true;
  }
  return false;
}

// `pattern` compiled (ECMA-262, as JSON Schema's), once: every response of the
// API tests is checked, and a pattern takes far longer to compile than to match.
const std::regex& Pattern(const std::string& pattern) {
  static std::mutex mu;
  static std::map<std::string, std::regex> compiled;
  std::lock_guard lock(mu);
  auto it = compiled.find(pattern);
  if (it == compiled.end()) it = compiled.emplace(pattern, std::regex(pattern)).first;
  return it->second;
}

// A string's length as JSON Schema counts it: in Unicode code points.
size_t CodePoints(const std::string& s) {
  return static_cast<size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// Keywords that only describe: they constrain nothing.
const std::set<std::string>& Annotations() {
  static const std::set<std::string> kSet = {"description", "title",     "example",
                                             "examples",    "default",   "deprecated",
                                             "readOnly",    "writeOnly", "$comment"};
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
  const json& response = Response(path, method, status);
  if (!response.is_object() || !response.contains("content")) return Null();
  const json& content = response["content"];
  if (!content.is_object() || !content.contains(media_type)) return Null();
  const json& media = content[media_type];
  return media.contains("schema") ? Resolve(media["schema"]) : Null();
}

const json& OpenApiDocument::Response(const std::string& path, const std::string& method,
                                      const std::string& status) const {
  const json::json_pointer at("/paths/" + std::regex_replace(path, std::regex("/"), "~1") + "/" +
                              method + "/responses/" + status);
  return doc_.contains(at) ? Resolve(doc_.at(at)) : Null();
}

const json& OpenApiDocument::Resolve(const json& node) const {
  const json* at = &node;
  for (int hops = 0; hops < 16 && at->is_object() && at->contains("$ref"); ++hops) {
    const json& ref = (*at)["$ref"];
    if (!ref.is_string() || ref.get_ref<const std::string&>().rfind("#/", 0) != 0) return Null();
    json::json_pointer p(ref.get<std::string>().substr(1));
    if (!doc_.contains(p)) return Null();
    at = &doc_.at(p);
  }
  return *at;
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
    CheckAt(v, doc_.at(p), at, errors, depth + 1);
    // OpenAPI 3.1: keywords beside a $ref apply too.
    if (s.size() == 1) return;
  }
  for (const auto& [key, _] : s.items()) {
    static const std::set<std::string> kKnown = {
        "$ref",          "type",      "nullable",   "enum",
        "const",         "required",  "properties", "additionalProperties",
        "items",         "oneOf",     "anyOf",      "allOf",
        "discriminator", "format",    "minimum",    "maximum",
        "minLength",     "maxLength", "minItems",   "maxItems",
        "pattern"};
    if (!kKnown.count(key) && !Annotations().count(key)) fail("unsupported keyword " + key);
  }
  const bool nullable = s.value("nullable", false);
  if (auto type = s.find("type"); type != s.end() && !TypeAllows(v, *type, nullable)) {
    if (v.is_null()) return fail("null where it is not nullable");
    return fail("expected " + type->dump() + ", got " + v.dump());
  }
  // OpenAPI 3.0: a nullable schema's other keywords are about the non-null values.
  if (v.is_null() && nullable) return;
  if (auto c = s.find("const"); c != s.end() && *c != v) {
    fail(v.dump() + " is not " + c->dump());
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
  if (v.is_string()) {
    const std::string& text = v.get_ref<const std::string&>();
    const size_t length = CodePoints(text);
    if (auto m = s.find("minLength"); m != s.end() && length < m->get<size_t>()) {
      fail("shorter than " + m->dump() + " characters");
    }
    if (auto m = s.find("maxLength"); m != s.end() && length > m->get<size_t>()) {
      fail("longer than " + m->dump() + " characters");
    }
    if (auto p = s.find("pattern"); p != s.end()) {
      // ECMA-262, unanchored, as JSON Schema says.
      if (!std::regex_search(text, Pattern(p->get<std::string>()))) {
        fail(v.dump() + " does not match " + p->dump());
      }
    }
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
    if (auto m = s.find("minItems"); m != s.end() && v.size() < m->get<size_t>()) {
      fail("fewer than " + m->dump() + " items");
    }
    if (auto m = s.find("maxItems"); m != s.end() && v.size() > m->get<size_t>()) {
      fail("more than " + m->dump() + " items");
    }
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
  // A discriminator picks the one option to check: its errors are the value's,
  // not "matches none of oneOf".
  if (auto d = s.find("discriminator"); d != s.end() && v.is_object()) {
    const std::string name = d->value("propertyName", "");
    const json mapping = d->value("mapping", json::object());
    auto tag = v.find(name);
    if (tag == v.end() || !tag->is_string()) return fail("missing the discriminator " + name);
    if (!mapping.contains(tag->get<std::string>())) {
      return fail(name + " " + tag->dump() + " is not one of the mapping's keys");
    }
    return CheckAt(v, json{{"$ref", mapping[tag->get<std::string>()]}},
                   at + "<" + tag->get<std::string>() + ">", errors, depth + 1);
  }
  if (auto one = s.find("oneOf"); one != s.end()) {
    int n = matching(*one);
    if (n != 1) fail("matches " + std::to_string(n) + " of oneOf, not exactly one");
  }
}

}  // namespace docwright::testing
