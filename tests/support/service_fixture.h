// The fixture of black-box tests: the real binary on a loopback port with a fresh
// data dir, two organisations each with a key and a project on a bare repository,
// spoken to over HTTP and administered through its command line.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "core/api_key.h"
#include "store/sqlite_store.h"
#include "support/git_repo.h"
#include "support/http_client.h"
#include "support/openapi_conformance.h"
#include "support/secrets.h"
#include "support/server_process.h"
#include "support/temp_dir.h"

namespace docwright::testing {

using nlohmann::json;
using Headers = std::vector<std::pair<std::string, std::string>>;

inline const char* const kScripted = DOCWRIGHT_SCRIPTED_BIN;  // the scripted test agent
inline const char* const kReal = DOCWRIGHT_BIN;               // the real service

class ServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    remote_a_ = dir_ / "acme-docs.git";
    remote_b_ = dir_ / "globex-docs.git";
    MakeDocsRemote(remote_a_);
    MakeDocsRemote(remote_b_);
    // The tenants are made in this process, in the store the server then opens,
    // as `org create`, `key create` and `project create` make them (the admin
    // commands have tests of their own).
    {
      auto store =
          OpenSqliteStore(dir_ / "docwright.db", testing::KeyFileSecrets(dir_ / "secret.key"));
      ASSERT_TRUE(store.ok()) << store.status().message();
      AddTenant(**store, "acme", remote_a_, &org_a_, &key_a_, &project_a_);
      AddTenant(**store, "globex", remote_b_, &org_b_, &key_b_, &project_b_);
    }
    StartDefaultServer();
  }

  static void AddTenant(Store& store, const std::string& name, const std::string& remote,
                        std::string* org, std::string* key, std::string* project) {
    auto o = store.CreateOrg(name);
    ASSERT_TRUE(o.ok()) << o.status().message();
    *org = o->id;
    GeneratedApiKey k = GenerateApiKey(*org, "ci");
    ASSERT_TRUE(store.CreateApiKey(k.record).ok());
    *key = k.secret;
    Project p;
    p.org_id = *org;
    p.repository = remote;
    p.base_ref = "main";
    auto made = store.CreateProject(p);
    ASSERT_TRUE(made.ok()) << made.status().message();
    *project = made->id;
  }

  // The server every test starts with: the scripted test agent.
  virtual void StartDefaultServer() { StartServer(kScripted, {"--lease-seconds", "1"}); }

  // `env` ("NAME=value") is added to the server's environment.
  void StartServer(const char* binary, std::vector<std::string> args,
                   std::vector<std::string> env = {}) {
    server_ = std::make_unique<ServerProcess>(binary, dir_.path(), std::move(args), std::move(env));
    ASSERT_TRUE(server_->Start()) << server_->Log();
    client_ = std::make_unique<HttpClient>(server_->port());
    client_->SetResponseCheck(CheckAgainstOpenApi);
  }

  // Every answer the service gives this fixture's client (Get, Post, and the
  // tests' own client_->Send and SendRaw) is checked against docs/openapi.json:
  // the operation's documented response for the status, or the error body for
  // a route the document does not have. A client a test makes for itself can
  // take the same check with SetResponseCheck.
  static void CheckAgainstOpenApi(const std::string& method, const std::string& target,
                                  const HttpResult& response) {
    if (method.empty()) {
      ExpectRawResponseConformsToOpenApi(target, response);
    } else {
      ExpectResponseConformsToOpenApi(method, target, response);
    }
  }

  CommandResult Admin(std::vector<std::string> args, int expected_exit = 0) {
    args.push_back("--data-dir");
    args.push_back(dir_.path());
    CommandResult r = RunCommand(kScripted, args);
    EXPECT_EQ(r.exit_code, expected_exit) << r.out << r.err;
    return r;
  }

  // The first column of the first row of `sql` (a COUNT, say), read from the
  // server's database as another process would; -1 if there is no row.
  virtual int64_t Count(const std::string& sql) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open((dir_ / "docwright.db").c_str(), &db), SQLITE_OK);
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
    int64_t n = sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : -1;
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return n;
  }

  // Fairness, read from the database: the job `newcomer` arrived while the
  // backlog of `backlog_project` still waited (over 100 turns not yet started),
  // and at most `most` of the backlog's turns started between its arrival and
  // its own start.
  void ExpectNewcomerWaitedForAtMost(const std::string& backlog_project,
                                     const std::string& newcomer, int64_t most) {
    const std::string started =
        "(SELECT t.started_at FROM turns t WHERE t.job_id = '" + newcomer + "')";
    const std::string created = "(SELECT created_at FROM jobs WHERE id = '" + newcomer + "')";
    const std::string backlog =
        "FROM turns t JOIN jobs j ON j.id = t.job_id WHERE j.project_id = '" + backlog_project +
        "'";
    EXPECT_GT(Count("SELECT COUNT(*) " + backlog + " AND (t.started_at IS NULL OR " +
                    "t.started_at > " + started + ")"),
              100)
        << "the newcomer must arrive while the backlog waits";
    EXPECT_LE(Count("SELECT COUNT(*) " + backlog + " AND t.started_at >= " + created +
                    " AND t.started_at < " + started),
              most);
  }

  static Headers Auth(const std::string& key) { return {{"Authorization", "Bearer " + key}}; }

  HttpResult Post(const std::string& target, const std::string& body, const std::string& key,
                  const std::string& content_type = "application/json") {
    Headers h = Auth(key);
    if (!content_type.empty()) h.emplace_back("Content-Type", content_type);
    return client_->Send("POST", target, body, h);
  }
  HttpResult Get(const std::string& target, const std::string& key) {
    return client_->Send("GET", target, "", Auth(key));
  }

  static std::string Jobs(const std::string& project) { return "/v2/agent/" + project + "/job"; }
  static std::string Job(const std::string& project, const std::string& id) {
    return Jobs(project) + "/" + id;
  }
  static std::string Prompt(const std::string& p) { return json{{"prompt", p}}.dump(); }

  json CreateJob(const std::string& prompt) {
    HttpResult r = Post(Jobs(project_a_), Prompt(prompt), key_a_);
    EXPECT_EQ(r.status, 201) << r.body;
    return r.Json();
  }

  json WaitForEnd(const std::string& id,
                  std::chrono::milliseconds timeout = std::chrono::milliseconds(20000)) {
    return WaitForEnd(id, project_a_, timeout);
  }
  json WaitForEnd(const std::string& id, const std::string& project,
                  std::chrono::milliseconds timeout = std::chrono::milliseconds(20000)) {
    json job;
    bool ended = WaitUntil(
        [&] {
          HttpResult r = Get(Job(project, id), key_a_);
          job = r.Json();
          return r.status == 200 && job["status"] != "active";
        },
        timeout);
    EXPECT_TRUE(ended) << "job " << id << " still active: " << job.dump();
    return job;
  }

  // A link to a page of this server's local forge.
  void ExpectLocalPullRequestLink(const json& link) {
    ASSERT_TRUE(link.is_string()) << link;
    EXPECT_TRUE(
        std::regex_match(link.get<std::string>(),
                         std::regex("http://127\\.0\\.0\\.1:" + std::to_string(server_->port()) +
                                    "/pulls/[A-Za-z0-9]{22}")))
        << link;
  }
  static std::string PathOf(const json& link) {
    std::string url = link.is_string() ? link.get<std::string>() : "";
    size_t host = url.find("://");
    return host == std::string::npos ? url : url.substr(url.find('/', host + 3));
  }

  // Every error: its status, a JSON body with a non-empty "error", and a server
  // that answers the next request normally.
  void ExpectError(const HttpResult& r, int status, const std::string& context = "") {
    EXPECT_EQ(r.status, status) << context << ": " << r.body;
    json body = r.Json();
    ASSERT_TRUE(body.is_object()) << context << ": " << r.body;
    ASSERT_TRUE(body.contains("error") && body["error"].is_string()) << context << ": " << r.body;
    EXPECT_FALSE(body["error"].get<std::string>().empty());
    EXPECT_TRUE(body.contains("code") && body["code"].is_string()) << context << ": " << r.body;
    EXPECT_EQ(r.Header("content-type"), "application/json");
    EXPECT_EQ(client_->Send("GET", "/healthz").status, 200) << "after " << context;
  }

  TempDir dir_;
  std::string org_a_, key_a_, project_a_, org_b_, key_b_, project_b_;
  std::string remote_a_, remote_b_;  // bare repositories of the two projects
  std::unique_ptr<ServerProcess> server_;
  std::unique_ptr<HttpClient> client_;
};

}  // namespace docwright::testing
