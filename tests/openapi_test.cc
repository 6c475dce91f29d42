// docwright's own OpenAPI document (docs/openapi.json), black-box: the binary
// serves the file it was built with; the document is whole (every $ref
// resolves, every operation documents its errors) and keeps the reference's
// agent endpoints; the checker the fixture runs on every answer catches what
// it should; and every event of a job's live stream conforms to its type's
// schema.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <sstream>

#include "support/json_schema.h"
#include "support/openapi_conformance.h"
#include "support/service_fixture.h"

namespace docwright::testing {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Every "$ref" in `node`, with where it is.
void CollectRefs(const json& node, const std::string& at,
                 std::vector<std::pair<std::string, std::string>>* out) {
  if (node.is_object()) {
    for (const auto& [k, v] : node.items()) {
      if (k == "$ref" && v.is_string()) out->emplace_back(at, v.get<std::string>());
      CollectRefs(v, at + "/" + k, out);
    }
  } else if (node.is_array()) {
    for (size_t i = 0; i < node.size(); ++i)
      CollectRefs(node[i], at + "/" + std::to_string(i), out);
  }
}

using OpenApiTest = ServiceTest;

TEST_F(OpenApiTest, TheServedDocumentIsTheFileWithoutAKeyAndCacheable) {
  HttpResult r = client_->Send("GET", "/openapi.json");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.Header("content-type"), "application/json");
  EXPECT_EQ(r.body, ReadFile(DOCWRIGHT_OPENAPI)) << "the bytes of docs/openapi.json";
  json doc = json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_EQ(doc["openapi"], "3.1.0");
  EXPECT_TRUE(doc.contains("webhooks"));

  std::string tag = r.Header("etag");
  EXPECT_TRUE(std::regex_match(tag, std::regex("\"[0-9a-f]{32}\""))) << tag;
  EXPECT_NE(r.Header("cache-control").find("max-age="), std::string::npos);
  HttpResult again = client_->Send("GET", "/openapi.json", "", {{"If-None-Match", tag}});
  EXPECT_EQ(again.status, 304);
  EXPECT_TRUE(again.body.empty());
  EXPECT_EQ(again.Header("etag"), tag);
  HttpResult head = client_->Send("HEAD", "/openapi.json");
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.body.empty());
  // A key, even a wrong one, changes nothing: the document is public.
  EXPECT_EQ(Get("/openapi.json", "dw_not_a_key").status, 200);
  ExpectError(client_->Send("POST", "/openapi.json", "{}", {{"Content-Type", "application/json"}}),
              405, "POST /openapi.json");
}

TEST_F(OpenApiTest, TheDocumentIsWholeAndDocumentsEveryRoute) {
  const OpenApiDocument& doc = DocwrightOpenApi();
  const json& d = doc.document();
  std::vector<std::pair<std::string, std::string>> refs;
  CollectRefs(d, "", &refs);
  EXPECT_GT(refs.size(), 100u);
  for (const auto& [at, ref] : refs) {
    ASSERT_EQ(ref.rfind("#/", 0), 0u) << at;
    EXPECT_TRUE(d.contains(json::json_pointer(ref.substr(1)))) << at << ": dangling " << ref;
  }
  // The routes of api/api.cc's table.
  const std::set<std::pair<std::string, std::string>> routes = {
      {"/healthz", "get"},
      {"/openapi.json", "get"},
      {"/pulls/{id}", "get"},
      {"/pulls/{id}/merge", "post"},
      {"/v2/agent/{projectId}/job", "post"},
      {"/v2/agent/{projectId}/jobs", "get"},
      {"/v2/agent/{projectId}/job/{id}", "get"},
      {"/v2/agent/{projectId}/job/{id}/message", "post"},
      {"/v2/agent/{projectId}/job/{id}/messages", "get"},
      {"/v2/agent/{projectId}/job/{id}/archive", "post"},
      {"/v2/agent/{projectId}/job/{id}/stop", "post"},
      {"/v2/agent/{projectId}/job/{id}/events", "get"},
      {"/v2/agent/{projectId}/job/{id}/review", "get"},
      {"/v1/agent/{projectId}/job", "post"},
      {"/v1/agent/{projectId}/job/{id}", "get"},
      {"/v1/agent/{projectId}/jobs", "get"},
      {"/v2/agent/job/{id}", "get"},
      {"/v2/session", "post"},
      {"/v2/session", "get"},
      {"/v2/session/end", "post"},
      {"/v2/keys", "get"},
      {"/v2/keys", "post"},
      {"/v2/keys/{keyId}/revoke", "post"},
      {"/v2/projects", "get"},
      {"/v2/agent/{projectId}/context", "get"},
      {"/v2/agent/{projectId}/context", "post"},
      {"/v2/agent/{projectId}/context/{name}", "delete"},
      {"/v2/agent/{projectId}/workflows", "get"},
      {"/v2/agent/{projectId}/workflows", "post"},
      {"/v2/agent/{projectId}/workflows/{name}", "get"},
      {"/v2/agent/{projectId}/workflows/{name}", "patch"},
      {"/v2/agent/{projectId}/workflows/{name}", "delete"},
      {"/v2/agent/{projectId}/workflows/{name}/run", "post"},
      {"/v2/agent/{projectId}/workflows/{name}/runs", "get"},
      {"/hooks/{forge}/{projectId}", "post"},
  };
  std::set<std::pair<std::string, std::string>> documented;
  for (const auto& [path, item] : d["paths"].items()) {
    for (const auto& [method, op] : item.items()) {
      if (method == "parameters") continue;
      documented.emplace(path, method);
      const json& responses = op["responses"];
      // Every operation answers the HTTP layer's refusals with the error body.
      for (const char* status : {"400", "431", "500", "501", "503"}) {
        EXPECT_TRUE(responses.contains(status)) << method << " " << path << " " << status;
        EXPECT_FALSE(doc.ResponseSchema(path, method, status).is_null())
            << method << " " << path << " " << status;
      }
      bool keyed = !op.contains("security");
      // The sign-in takes no key but refuses a wrong one in the body.
      const bool signs_in = path == "/v2/session" && method == "post";
      // A forge's delivery takes no key but refuses a wrong signature.
      const bool signed_delivery = path == "/hooks/{forge}/{projectId}";
      EXPECT_EQ(responses.contains("401"), keyed || signs_in || signed_delivery)
          << method << " " << path;
      if (keyed) {
        EXPECT_TRUE(responses.contains("404")) << method << " " << path;
        // A member's key, or a session's write without its CSRF token.
        EXPECT_TRUE(responses.contains("403")) << method << " " << path;
        EXPECT_FALSE(
            doc.Resolve(responses["401"])["headers"].value("WWW-Authenticate", json()).is_null());
      }
      if (method == "post") {
        EXPECT_TRUE(responses.contains("413")) << path;
      }
    }
  }
  EXPECT_EQ(documented, routes);
  // Every event type has its schema, keyed by its name.
  const json& mapping = d["components"]["schemas"]["Event"]["discriminator"]["mapping"];
  for (const json& type : d["components"]["schemas"]["EventType"]["enum"]) {
    ASSERT_TRUE(mapping.contains(type.get<std::string>())) << type;
    EXPECT_EQ(doc.Resolve(
                  json{{"$ref", mapping[type.get<std::string>()]}})["properties"]["type"]["const"],
              type);
  }
  EXPECT_EQ(mapping.size(), d["components"]["schemas"]["EventType"]["enum"].size());
  EXPECT_TRUE(d["webhooks"]["jobEvent"]["post"].contains("requestBody"));
}

// A client of the reference's document works against docwright's: each of its
// agent operations is here, with each status it documents, and docwright's
// bodies pass the reference's schemas.
// docs/api.md documents each event type's payload with a JSON Schema: the
// document's, which the tests check every received event against.
TEST_F(OpenApiTest, TheEventsPayloadsInTheApiDocsAreTheDocumentsSchemas) {
  const OpenApiDocument& doc = DocwrightOpenApi();
  std::string api_md = DOCWRIGHT_OPENAPI;
  api_md.replace(api_md.rfind("openapi.json"), std::string("openapi.json").size(), "api.md");
  std::ifstream in(api_md);
  ASSERT_TRUE(in) << api_md;
  std::stringstream text;
  text << in.rdbuf();
  const std::string md = text.str();
  const json& mapping =
      doc.document()["components"]["schemas"]["Event"]["discriminator"]["mapping"];
  ASSERT_EQ(mapping.size(), 10u);
  for (const auto& [type, ref] : mapping.items()) {
    const std::string heading = "#### `" + type + "`";
    size_t at = md.find(heading);
    ASSERT_NE(at, std::string::npos) << type << " is not documented in docs/api.md";
    size_t open = md.find("```json\n", at);
    size_t close = md.find("\n```", open + 8);
    ASSERT_NE(open, std::string::npos) << type;
    ASSERT_NE(close, std::string::npos) << type;
    json documented = json::parse(md.substr(open + 8, close - open - 8));
    const json& schema = doc.Resolve(json{{"$ref", ref}});
    EXPECT_EQ(documented, schema["properties"]["data"]) << type;
  }
}

TEST_F(OpenApiTest, TheReferencesAgentEndpointsAreKept) {
  OpenApiDocument reference{DOCWRIGHT_REFERENCE_OPENAPI};
  const OpenApiDocument& ours = DocwrightOpenApi();
  for (const auto& [path, item] : reference.document()["paths"].items()) {
    for (const auto& [method, op] : item.items()) {
      ASSERT_TRUE(ours.document()["paths"].contains(path)) << path;
      ASSERT_TRUE(ours.document()["paths"][path].contains(method)) << method << " " << path;
      for (const auto& [status, _] : op["responses"].items()) {
        EXPECT_FALSE(ours.Response(path, method, status).is_null())
            << method << " " << path << " " << status;
      }
    }
  }
  json job = CreateJob("Fix the FAQ");
  WaitForEnd(job["id"]);
  json done = Get(Job(project_a_, job["id"]), key_a_).Json();
  // docwright's one deviation: no model configured anywhere is a null model.
  if (done["model"].is_null()) done.erase("model");
  for (const std::string& e : reference.Check(
           done, reference.ResponseSchema("/v2/agent/{projectId}/job/{id}", "get", "200"))) {
    ADD_FAILURE() << "the reference's AgentJob: " << e;
  }
  HttpResult missing = Get(Job(project_a_, "019a8f3e-5c2b-7d41-9a6e-3f0c2b8d4e71"), key_a_);
  ASSERT_EQ(missing.status, 404);
  for (const std::string& e :
       reference.Check(missing.Json(),
                       reference.ResponseSchema("/v2/agent/{projectId}/job/{id}", "get", "404"))) {
    ADD_FAILURE() << "the reference's Error: " << e;
  }
}

TEST_F(OpenApiTest, TheCheckerCatchesWhatItShould) {
  const std::string route = "/v2/agent/{projectId}/job/{id}";
  json job = CreateJob("Fix the FAQ");
  EXPECT_TRUE(OpenApiMismatches("GET", route, 200, job.dump()).empty());
  auto fails = [&](json body, const std::string& why, int status = 200) {
    EXPECT_FALSE(OpenApiMismatches("GET", route, status, body.dump()).empty()) << why;
  };
  json j = job;
  j.erase("summary");
  fails(j, "a member always sent is required");
  j = job;
  j["extra"] = 1;
  fails(j, "no member beyond the listed ones");
  j = job;
  j["status"] = "done";
  fails(j, "status is an enum");
  j = job;
  j["createdAt"] = nullptr;
  fails(j, "createdAt is never null");
  j = job;
  j["source"]["ref"] = "";
  fails(j, "ref is not empty");
  j = job;
  j["id"] = "not-an-id";
  fails(j, "ids are UUIDs");
  fails(json{{"error", "x"}, {"code", "no_such_code"}}, "error codes are an enum", 404);
  fails(json{{"error", "x"}}, "errors have a code", 404);
  EXPECT_FALSE(OpenApiMismatches("GET", route, 418, "{}").empty()) << "an undocumented status";
  EXPECT_FALSE(OpenApiMismatches("GET", route, 304, "{}").empty()) << "a 304 has no body";
  EXPECT_FALSE(OpenApiMismatches("GET", "", 404, "{\"error\":\"x\"}").empty())
      << "an unknown route's answer is the error body, code included";
  EXPECT_TRUE(
      OpenApiMismatches("GET", "", 404, "{\"error\":\"x\",\"code\":\"not_found\"}").empty());
  EXPECT_FALSE(OpenApiMismatches("GET", "", 200, "{}").empty()) << "no route, no success";
  // The route of a target: parameters match one segment; the method decides.
  EXPECT_EQ(OpenApiRouteOf("GET", Job(project_a_, "x") + "?a=b"), route);
  EXPECT_EQ(OpenApiRouteOf("HEAD", "/v2/agent/job/x"), "/v2/agent/job/{id}");
  EXPECT_EQ(OpenApiRouteOf("POST", Job(project_a_, "x") + "/stop"),
            "/v2/agent/{projectId}/job/{id}/stop");
  EXPECT_EQ(OpenApiRouteOf("GET", "/v2/agent/p/job/x/y/z"), "");
  EXPECT_EQ(OpenApiRouteOf("GET", "/healthz/"), "");

  // Events: their type picks the schema; a mismatch names where it is.
  json event = {{"id", job["id"].get<std::string>() + ".1"},
                {"type", "job.created"},
                {"version", 1},
                {"timestamp", job["createdAt"]},
                {"jobId", job["id"]},
                {"projectId", project_a_},
                {"sequence", 1},
                {"data", {{"job", job}, {"prompt", "Fix the FAQ"}}}};
  const json event_schema = {{"$ref", "#/components/schemas/Event"}};
  const OpenApiDocument& doc = DocwrightOpenApi();
  EXPECT_TRUE(doc.Check(event, event_schema).empty());
  json e = event;
  e["type"] = "job.exploded";
  EXPECT_FALSE(doc.Check(e, event_schema).empty());
  e = event;
  e["type"] = "turn.started";
  EXPECT_FALSE(doc.Check(e, event_schema).empty()) << "turn.started's data has seq and attempt";
  e = event;
  e["data"]["job"]["status"] = "done";
  std::vector<std::string> errors = doc.Check(e, event_schema);
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("data.job.status"), std::string::npos) << errors[0];
}

// The raw Server-Sent Events of one job, read over a loopback connection with
// an HTTP/1.0 request (so the body is the stream as it is, unframed).
class EventStreamReader {
 public:
  struct Event {
    std::string id, type;
    json data;
  };

  EventStreamReader(uint16_t port, const std::string& target, const std::string& key) {
    fd_ = ConnectLoopback(port, std::chrono::seconds(20));
    EXPECT_GE(fd_, 0);
    std::string request = "GET " + target +
                          " HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + key +
                          "\r\nAccept: text/event-stream\r\n\r\n";
    if (fd_ >= 0) {
      EXPECT_EQ(::send(fd_, request.data(), request.size(), MSG_NOSIGNAL),
                static_cast<ssize_t>(request.size()));
    }
  }
  ~EventStreamReader() {
    if (fd_ >= 0) ::close(fd_);
  }

  // The status line and headers (names in lower case); false if they never came.
  bool ReadHead(int* status, std::map<std::string, std::string>* headers) {
    size_t end;
    while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (!Fill()) return false;
    }
    std::istringstream head(buffer_.substr(0, end));
    buffer_.erase(0, end + 4);
    std::string line;
    std::getline(head, line);
    *status = line.size() > 12 ? std::atoi(line.substr(9, 3).c_str()) : 0;
    while (std::getline(head, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string name = line.substr(0, colon);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      (*headers)[name] = std::string(TrimSpaces(line.substr(colon + 1)));
    }
    return true;
  }

  // The next event (comments and the retry field skipped); false if the
  // stream ended or nothing came in time.
  bool Next(Event* event) {
    for (;;) {
      size_t end;
      while ((end = buffer_.find("\n\n")) == std::string::npos) {
        if (!Fill()) return false;
      }
      std::string block = buffer_.substr(0, end);
      buffer_.erase(0, end + 2);
      Event e;
      std::string data;
      std::istringstream lines(block);
      std::string line;
      while (std::getline(lines, line)) {
        if (line.rfind("id: ", 0) == 0) e.id = line.substr(4);
        if (line.rfind("event: ", 0) == 0) e.type = line.substr(7);
        if (line.rfind("data: ", 0) == 0) data += line.substr(6);
      }
      if (data.empty()) continue;  // a heartbeat, or the stream's retry field
      e.data = json::parse(data, nullptr, /*allow_exceptions=*/false);
      EXPECT_FALSE(e.data.is_discarded()) << data;
      *event = std::move(e);
      return true;
    }
  }

 private:
  static std::string TrimSpaces(std::string s) {
    while (!s.empty() && s.front() == ' ') s.erase(0, 1);
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
  }
  bool Fill() {
    if (fd_ < 0) return false;
    char chunk[4096];
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<size_t>(n));
    return true;
  }

  int fd_ = -1;
  std::string buffer_;
};

TEST_F(OpenApiTest, EveryEventOfAJobsLiveStreamConformsToItsTypesSchema) {
  // A first turn slow enough for the stream to be open before it ends.
  json job = CreateJob("Add a page about installing [sleep 300]");
  const std::string id = job["id"];
  const std::string target = Job(project_a_, id) + "/events";
  EventStreamReader stream(server_->port(), target, key_a_);
  int status = 0;
  std::map<std::string, std::string> headers;
  ASSERT_TRUE(stream.ReadHead(&status, &headers));
  ASSERT_EQ(status, 200);
  for (const std::string& e :
       OpenApiMismatches("GET", "/v2/agent/{projectId}/job/{id}/events", status, "",
                         headers["content-type"], headers, /*check_headers=*/true)) {
    ADD_FAILURE() << "the stream's answer: " << e;
  }

  std::set<std::string> seen;
  int64_t last_sequence = 0;
  // Reads events until one of type `until`, checking each.
  auto read_until = [&](const std::string& until) {
    EventStreamReader::Event e;
    while (stream.Next(&e)) {
      SCOPED_TRACE(e.type + " " + e.id);
      ExpectEventConformsToOpenApi(e.data);
      EXPECT_EQ(e.data.value("type", ""), e.type) << "the SSE event name is the event's type";
      EXPECT_EQ(e.id, std::to_string(e.data.value("sequence", int64_t{0})));
      EXPECT_EQ(e.data.value("sequence", int64_t{0}), last_sequence + 1) << "in order, none missed";
      EXPECT_EQ(e.data.value("jobId", ""), id);
      last_sequence = e.data.value("sequence", last_sequence + 1);
      seen.insert(e.type);
      if (e.type == until) return true;
    }
    ADD_FAILURE() << "the stream ended (or went quiet) before " << until;
    return false;
  };

  ASSERT_TRUE(read_until("job.completed"));
  ASSERT_EQ(Post(Job(project_a_, id) + "/message", Prompt("Then the quickstart"), key_a_).status,
            200);
  ASSERT_TRUE(read_until("job.completed"));
  ASSERT_EQ(Post(Job(project_a_, id) + "/message", Prompt("Break [fail the model gave up]"), key_a_)
                .status,
            200);
  ASSERT_TRUE(read_until("job.failed"));
  ASSERT_EQ(Post(Job(project_a_, id) + "/archive", "", key_a_, "").status, 200);
  ASSERT_TRUE(read_until("job.archived"));

  const json& types = DocwrightOpenApi().document()["components"]["schemas"]["EventType"]["enum"];
  for (const json& type : types) {
    EXPECT_TRUE(seen.count(type.get<std::string>())) << "no " << type << " event was checked";
  }
}

}  // namespace
}  // namespace docwright::testing
