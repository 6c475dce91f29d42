#include "support/openapi_conformance.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

namespace docwright::testing {
namespace {

using nlohmann::json;

std::vector<std::string> Segments(const std::string& path) {
  std::vector<std::string> out;
  std::string segment;
  std::istringstream in(path.size() > 1 ? path.substr(1) : "");
  while (std::getline(in, segment, '/')) out.push_back(segment);
  if (!path.empty() && path.back() == '/' && path.size() > 1) out.emplace_back();
  return out;
}

bool IsParameter(const std::string& segment) {
  return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

// How many of `pattern`'s segments `path` matches literally, or -1 if it does
// not match (a {parameter} matches any one segment, as the server's router).
int Match(const std::vector<std::string>& pattern, const std::vector<std::string>& path) {
  if (pattern.size() != path.size()) return -1;
  int literal = 0;
  for (size_t i = 0; i < path.size(); ++i) {
    if (IsParameter(pattern[i])) continue;
    if (pattern[i] != path[i]) return -1;
    ++literal;
  }
  return literal;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "text/plain; charset=utf-8" -> "text/plain".
std::string MediaType(const std::string& content_type) {
  std::string m = Lower(content_type.substr(0, content_type.find(';')));
  m.erase(std::remove(m.begin(), m.end(), ' '), m.end());
  return m;
}

const json& ErrorSchema() {
  static const json kError = {{"$ref", "#/components/schemas/Error"}};
  return kError;
}

// The document's `paths` object (an empty one if it has none).
const json& Paths() {
  static const json kEmpty = json::object();
  const json& doc = DocwrightOpenApi().document();
  auto it = doc.find("paths");
  return it != doc.end() && it->is_object() ? *it : kEmpty;
}

// The operation `op` (lower case) on the path template `route`; null if none.
const json& Operation(const std::string& route, const std::string& op) {
  static const json kNull;
  auto item = Paths().find(route);
  if (route.empty() || item == Paths().end()) return kNull;
  auto operation = item->find(op);
  return operation == item->end() ? kNull : *operation;
}

void Report(const std::string& what, const std::vector<std::string>& mismatches) {
  for (const std::string& m : mismatches) ADD_FAILURE() << what << " (docs/openapi.json): " << m;
}

}  // namespace

const OpenApiDocument& DocwrightOpenApi() {
  static const OpenApiDocument kDocument{DOCWRIGHT_OPENAPI};
  return kDocument;
}

std::string OpenApiRouteOf(const std::string& method, const std::string& target, bool* path_known) {
  const std::string path = target.substr(0, target.find_first_of("?#"));
  const std::vector<std::string> segments = Segments(path);
  const std::string op = Lower(method) == "head" ? "get" : Lower(method);
  const json& paths = Paths();
  std::string best, any;
  int best_literal = -1, any_literal = -1;
  for (const auto& [pattern, item] : paths.items()) {
    int literal = Match(Segments(pattern), segments);
    if (literal < 0) continue;
    if (literal > any_literal) any = pattern, any_literal = literal;
    if (item.contains(op) && literal > best_literal) best = pattern, best_literal = literal;
  }
  if (path_known) *path_known = !any.empty();
  return best.empty() ? any : best;
}

std::vector<std::string> OpenApiMismatches(const std::string& method, const std::string& route,
                                           int status, const std::string& body,
                                           const std::string& content_type,
                                           const std::map<std::string, std::string>& headers,
                                           bool check_headers) {
  const OpenApiDocument& doc = DocwrightOpenApi();
  const std::string op = Lower(method) == "head" ? "get" : Lower(method);
  const bool head = Lower(method) == "head";
  std::vector<std::string> out;
  const json& operation = Operation(route, op);
  if (operation.is_null()) {
    // No such operation: the answer is a refusal, with the error body.
    if (status < 400) {
      out.push_back(std::to_string(status) + " for an operation the document does not have");
      return out;
    }
    if (head && body.empty()) return out;
    json value = json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded()) {
      out.push_back("the error body is not JSON: " + body.substr(0, 200));
      return out;
    }
    for (const std::string& e : doc.Check(value, ErrorSchema())) out.push_back(e);
    return out;
  }
  std::string code = std::to_string(status);
  const json* response = &doc.Response(route, op, code);
  if (response->is_null()) response = &doc.Response(route, op, code.substr(0, 1) + "XX");
  if (response->is_null()) response = &doc.Response(route, op, "default");
  if (response->is_null()) {
    out.push_back("status " + code + " is not documented");
    return out;
  }
  if (check_headers && response->contains("headers")) {
    for (const auto& [name, header] : (*response)["headers"].items()) {
      const json& h = doc.Resolve(header);
      if (h.value("required", false) && !headers.count(Lower(name))) {
        out.push_back("the " + code + " answer lacks the header " + name);
      }
    }
  }
  const json content = response->value("content", json::object());
  if (content.empty()) {
    if (!body.empty())
      out.push_back("a " + code + " answer has no body, got " + body.substr(0, 200));
    return out;
  }
  if (head && body.empty()) return out;
  std::string media = content_type.empty() ? "application/json" : MediaType(content_type);
  if (!content.contains(media)) {
    out.push_back("the " + code + " answer's media type " + media + " is not one of " +
                  content.dump().substr(0, 200));
    return out;
  }
  if (media != "application/json") return out;  // a text page or stream: no JSON schema
  json value = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) {
    out.push_back("the " + code + " body is not JSON: " + body.substr(0, 200));
    return out;
  }
  for (const std::string& e : doc.Check(value, doc.ResponseSchema(route, op, code, media))) {
    out.push_back(e);
  }
  return out;
}

void ExpectConformsToOpenApi(const std::string& method, const std::string& route_pattern,
                             int status, const std::string& body) {
  Report(method + " " + route_pattern + " " + std::to_string(status),
         OpenApiMismatches(method, route_pattern, status, body));
}

void ExpectResponseConformsToOpenApi(const std::string& method, const std::string& target,
                                     const HttpResult& response) {
  if (response.status == 0) return;
  std::string route = OpenApiRouteOf(method, target);
  Report(method + " " + target + " (" + (route.empty() ? "no route" : route) + ") " +
             std::to_string(response.status),
         OpenApiMismatches(method, route, response.status, response.body,
                           response.Header("content-type"), response.headers,
                           /*check_headers=*/true));
}

void ExpectRawResponseConformsToOpenApi(const std::string& request_bytes,
                                        const HttpResult& response) {
  if (response.status == 0) return;
  // "METHOD SP target SP HTTP/1.x" with a method of upper-case letters.
  std::string line = request_bytes.substr(0, request_bytes.find("\r\n"));
  size_t sp1 = line.find(' ');
  size_t sp2 = sp1 == std::string::npos ? sp1 : line.find(' ', sp1 + 1);
  std::string method = line.substr(0, sp1);
  bool parses =
      sp2 != std::string::npos && !method.empty() &&
      std::all_of(method.begin(), method.end(), [](char c) { return c >= 'A' && c <= 'Z'; }) &&
      line.compare(sp2 + 1, 5, "HTTP/") == 0;
  if (parses) {
    ExpectResponseConformsToOpenApi(method, line.substr(sp1 + 1, sp2 - sp1 - 1), response);
    return;
  }
  if (response.status < 400) return;
  Report("the answer to a request that is not HTTP",
         OpenApiMismatches("", "", response.status, response.body));
}

void ExpectEventConformsToOpenApi(const nlohmann::json& event) {
  const OpenApiDocument& doc = DocwrightOpenApi();
  Report("event " + event.value("type", std::string("(no type)")) + " " +
             event.value("id", std::string()),
         doc.Check(event, json{{"$ref", "#/components/schemas/Event"}}));
}

}  // namespace docwright::testing
