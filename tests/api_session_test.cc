// Sign-in sessions, key roles and project limits, the keys and projects
// endpoints, black-box: the real binary over loopback HTTP (docs/api.md,
// "Authentication"). Every answer is checked against docs/openapi.json by the
// fixture's client.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "support/service_fixture.h"

namespace docwright::testing {
namespace {

class SessionTest : public ServiceTest {
 protected:
  // Signs in with `key`; the session's cookie ("dw_session=...") and csrf token.
  struct SignedIn {
    std::string cookie;
    std::string csrf;
    HttpResult response;
  };
  SignedIn SignIn(const std::string& key, Headers extra = {}) {
    extra.emplace_back("Content-Type", "application/json");
    SignedIn s;
    s.response = client_->Send("POST", "/v2/session", json{{"key", key}}.dump(), extra);
    EXPECT_EQ(s.response.status, 200) << s.response.body;
    std::string set_cookie = s.response.Header("set-cookie");
    s.cookie = set_cookie.substr(0, set_cookie.find(';'));
    json body = s.response.Json();
    if (body.is_object() && body["csrfToken"].is_string()) s.csrf = body["csrfToken"];
    return s;
  }

  // A request with the session's cookie (and `csrf` as X-Docwright-CSRF if not empty).
  HttpResult WithCookie(const std::string& method, const std::string& target, const SignedIn& s,
                        const std::string& csrf, Headers extra = {}, const std::string& body = "") {
    extra.emplace_back("Cookie", "theme=dark; " + s.cookie);
    if (!csrf.empty()) extra.emplace_back("X-Docwright-CSRF", csrf);
    if (!body.empty()) extra.emplace_back("Content-Type", "application/json");
    return client_->Send(method, target, body, extra);
  }

  // A new key of organisation A made by `creator` through POST /v2/keys.
  json NewKey(const std::string& creator, json body, int expected = 201) {
    HttpResult r = Post("/v2/keys", body.dump(), creator);
    EXPECT_EQ(r.status, expected) << body.dump() << ": " << r.body;
    return r.Json();
  }

  // A second project of organisation A.
  std::string SecondProject() {
    return Admin({"project", "create", "--org", org_a_, "--repository", remote_a_, "--no-check"})
        .LastLine();
  }

  std::string Origin() const { return "http://127.0.0.1:" + std::to_string(server_->port()); }
};

TEST_F(SessionTest, AMemberKeyRunsJobsButIsRefusedTheKeys) {
  json member = NewKey(key_a_, {{"name", "reader"}});
  EXPECT_EQ(member["role"], "member") << "member is the default role";
  EXPECT_EQ(member["projects"], nullptr);
  std::string key = member["key"];
  HttpResult keys = Get("/v2/keys", key);
  ExpectError(keys, 403, "member lists keys");
  EXPECT_EQ(keys.Json()["code"], "forbidden");
  ExpectError(Post("/v2/keys", json{{"name", "x"}}.dump(), key), 403, "member creates a key");
  EXPECT_EQ(Get(Jobs(project_a_) + "s", key).status, 200);
  EXPECT_EQ(Post(Jobs(project_a_), Prompt("Fix it [nochange]"), key).status, 201);
  EXPECT_EQ(Get("/v2/projects", key).status, 200);
  EXPECT_EQ(Get("/v2/keys", key_a_).status, 200) << "an admin key may";
}

TEST_F(SessionTest, AKeyLimitedToAProjectDoesNotSeeAnother) {
  std::string q = SecondProject();
  ASSERT_FALSE(q.empty());
  HttpResult made = Post(Jobs(q), Prompt("Work in Q [nochange]"), key_a_);
  ASSERT_EQ(made.status, 201) << made.body;
  std::string job = made.Json()["id"];
  std::string key = NewKey(key_a_, {{"name", "p only"}, {"projects", {project_a_}}})["key"];

  ExpectError(Get(Jobs(q) + "s", key), 404, "list of Q");
  ExpectError(Get(Job(q, job), key), 404, "job of Q");
  ExpectError(Get("/v2/agent/job/" + job, key), 404, "job of Q by id");
  ExpectError(Get(Job(q, job) + "/events", key), 404, "events of Q");
  ExpectError(Get("/v1/agent/" + q + "/job/" + job, key), 404, "v1 job of Q");
  ExpectError(Post(Jobs(q), Prompt("more"), key), 404, "create in Q");
  // Exactly as a project that does not exist.
  EXPECT_EQ(Get(Jobs(q) + "s", key).Json()["error"],
            Get(Jobs("019a8f3e-5c2b-7d41-9a6e-3f0c2b8d4e71") + "s", key).Json()["error"]);
  EXPECT_EQ(Get(Job(q, job), key_a_).status, 200) << "the unlimited key sees it";
  EXPECT_EQ(Get("/v2/agent/job/" + job, key_a_).status, 200);
  EXPECT_EQ(Get(Jobs(project_a_) + "s", key).status, 200);

  json projects = Get("/v2/projects", key).Json()["projects"];
  ASSERT_EQ(projects.size(), 1u) << projects.dump();
  EXPECT_EQ(projects[0]["id"], project_a_);
  json all = Get("/v2/projects", key_a_).Json()["projects"];
  ASSERT_EQ(all.size(), 2u) << all.dump();
  EXPECT_EQ(all[0]["id"], project_a_) << "oldest first";
  EXPECT_EQ(all[1]["id"], q);
  EXPECT_EQ(all[1]["jobs"]["active"].get<int>() + all[1]["jobs"]["completed"].get<int>() +
                all[1]["jobs"]["failed"].get<int>(),
            1);
  EXPECT_EQ(all[1]["ref"], "main");
}

TEST_F(SessionTest, AnAdminLimitedToAProjectGrantsNoMoreThanItHas) {
  std::string q = SecondProject();
  std::string limited =
      NewKey(key_a_, {{"name", "p admin"}, {"role", "admin"}, {"projects", {project_a_}}})["key"];
  ExpectError(Post("/v2/keys", json{{"name", "all"}, {"role", "member"}}.dump(), limited), 403,
              "an unlimited key");
  ExpectError(
      Post("/v2/keys", json{{"name", "q"}, {"role", "admin"}, {"projects", {q}}}.dump(), limited),
      403, "an admin key for Q");
  ExpectError(Post("/v2/keys", json{{"name", "pq"}, {"projects", {project_a_, q}}}.dump(), limited),
              403, "a key for P and Q");
  json ok = NewKey(limited, {{"name", "p member"}, {"projects", {project_a_}}});
  EXPECT_EQ(ok["projects"], json::array({project_a_}));
  EXPECT_EQ(ok["key"].get<std::string>().rfind("dw_", 0), 0u);
  // It lists only the keys within its limits: a key for Q would name a project
  // it must not know of, and the unlimited keys have rights it lacks.
  NewKey(key_a_, {{"name", "q member"}, {"projects", {q}}});
  HttpResult listed = client_->Send("GET", "/v2/keys", "", Auth(limited));
  ASSERT_EQ(listed.status, 200) << listed.body;
  std::set<std::string> names;
  json keys = listed.Json()["keys"];
  for (const json& k : keys) names.insert(k["name"].get<std::string>());
  EXPECT_EQ(names, (std::set<std::string>{"p admin", "p member"})) << listed.body;
  EXPECT_EQ(listed.body.find(q), std::string::npos) << listed.body;
  // The unlimited admin may name any project of its organisation, and no other.
  ExpectError(Post("/v2/keys", json{{"name", "b"}, {"projects", {project_b_}}}.dump(), key_a_), 400,
              "a project of another organisation");
  ExpectError(Post("/v2/keys", json{{"name", ""}}.dump(), key_a_), 400, "an empty name");
  ExpectError(Post("/v2/keys", json{{"name", "x"}, {"role", "owner"}}.dump(), key_a_), 400,
              "an unknown role");
}

TEST_F(SessionTest, SignInSetsAStrictHttpOnlyCookie) {
  SignedIn s = SignIn(key_a_);
  std::string set_cookie = s.response.Header("set-cookie");
  EXPECT_TRUE(
      std::regex_match(set_cookie, std::regex("dw_session=dws_[0-9A-Za-z]{43}; Path=/; HttpOnly; "
                                              "SameSite=Strict; Max-Age=43200")))
      << set_cookie;
  EXPECT_EQ(set_cookie.find("Secure"), std::string::npos) << "the public URL is http";
  json info = s.response.Json();
  EXPECT_EQ(info["org"]["id"], org_a_);
  EXPECT_EQ(info["org"]["name"], "acme");
  EXPECT_EQ(info["key"]["role"], "admin");
  EXPECT_TRUE(info["expiresAt"].is_string());
  EXPECT_EQ(info.dump().find(key_a_), std::string::npos) << "the key is never echoed";

  HttpResult again = WithCookie("GET", "/v2/session", s, "");
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.Json()["csrfToken"], s.csrf);
  // A read needs no CSRF token.
  EXPECT_EQ(WithCookie("GET", Jobs(project_a_) + "s", s, "").status, 200);
  // A Bearer key has no session.
  json bearer = Get("/v2/session", key_a_).Json();
  EXPECT_EQ(bearer["csrfToken"], nullptr);
  EXPECT_EQ(bearer["expiresAt"], nullptr);
  // The Bearer header wins over the cookie.
  HttpResult both = client_->Send("GET", "/v2/session", "",
                                  {{"Authorization", "Bearer " + key_b_}, {"Cookie", s.cookie}});
  EXPECT_EQ(both.Json()["org"]["id"], org_b_);
  ExpectError(client_->Send("GET", "/v2/session"), 401, "no key, no cookie");
}

TEST_F(SessionTest, ACookieWriteNeedsTheCsrfTokenAndTheServicesOrigin) {
  SignedIn s = SignIn(key_a_);
  HttpResult bare = WithCookie("POST", Jobs(project_a_), s, "", {}, Prompt("x [nochange]"));
  ExpectError(bare, 403, "no CSRF header");
  EXPECT_EQ(bare.Json()["code"], "csrf");
  ExpectError(
      WithCookie("POST", Jobs(project_a_), s, std::string(43, 'a'), {}, Prompt("x [nochange]")),
      403, "a wrong CSRF token");
  ExpectError(WithCookie("POST", Jobs(project_a_), s, s.csrf, {{"Origin", "http://evil.example"}},
                         Prompt("x [nochange]")),
              403, "another origin");
  EXPECT_EQ(WithCookie("POST", Jobs(project_a_), s, s.csrf, {}, Prompt("x [nochange]")).status,
            201);
  // Without a public URL, the service's origin is the Host a browser sends.
  const std::string host = "127.0.0.1:" + std::to_string(server_->port());
  EXPECT_EQ(WithCookie("POST", Jobs(project_a_), s, s.csrf, {{"Host", host}, {"Origin", Origin()}},
                       Prompt("x [nochange]"))
                .status,
            201);
  ExpectError(WithCookie("POST", Jobs(project_a_), s, s.csrf,
                         {{"Host", host}, {"Origin", "https://127.0.0.1:1"}}, Prompt("x")),
              403, "another port");
  // A sign-in from another site's page is refused too.
  HttpResult foreign =
      client_->Send("POST", "/v2/session", json{{"key", key_a_}}.dump(),
                    {{"Content-Type", "application/json"}, {"Origin", "http://evil.example"}});
  ExpectError(foreign, 403, "sign-in from another origin");
}

TEST_F(SessionTest, RevokingAKeyEndsItsSessionAndItsBearerAtOnce) {
  json made = NewKey(key_a_, {{"name", "laptop"}, {"role", "admin"}});
  std::string key = made["key"];
  SignedIn s = SignIn(key);
  ASSERT_EQ(WithCookie("GET", "/v2/session", s, "").status, 200);
  ASSERT_EQ(Get(Jobs(project_a_) + "s", key).status, 200);

  HttpResult revoked = Post("/v2/keys/" + made["id"].get<std::string>() + "/revoke", "", key_a_);
  ASSERT_EQ(revoked.status, 200) << revoked.body;
  EXPECT_TRUE(revoked.Json()["revokedAt"].is_string());
  ExpectError(WithCookie("GET", "/v2/session", s, ""), 401, "the session after revocation");
  ExpectError(Get(Jobs(project_a_) + "s", key), 401, "the key after revocation");
  // A key of another organisation is not found.
  std::string b_key_id = Get("/v2/keys", key_b_).Json()["keys"][0]["id"];
  ExpectError(Post("/v2/keys/" + b_key_id + "/revoke", "", key_a_), 404, "another org's key");
  EXPECT_EQ(Get("/v2/session", key_b_).status, 200);
}

TEST_F(SessionTest, SignOutEndsTheSession) {
  SignedIn s = SignIn(key_a_);
  HttpResult out = WithCookie("POST", "/v2/session/end", s, s.csrf);
  ASSERT_EQ(out.status, 204) << out.body;
  EXPECT_EQ(out.Header("set-cookie"), "dw_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict");
  ExpectError(WithCookie("GET", "/v2/session", s, ""), 401, "after sign-out");
  EXPECT_EQ(Get("/v2/session", key_a_).status, 200) << "the key itself still works";
}

TEST_F(SessionTest, SignInWithAWrongKeyIsRefusedAndAttemptsAreBounded) {
  auto attempt = [&](const std::string& key) {
    return client_->Send("POST", "/v2/session", json{{"key", key}}.dump(),
                         {{"Content-Type", "application/json"}});
  };
  ExpectError(attempt("dw_" + std::string(43, 'x')), 401, "an unknown key");
  ExpectError(attempt("not a key"), 401, "a malformed key");
  ExpectError(client_->Send("POST", "/v2/session", "{}", {{"Content-Type", "application/json"}}),
              400, "no key");
  // Ten attempts a minute from one address; the three above counted.
  int refused_at = 0;
  for (int i = 4; i <= 12 && refused_at == 0; ++i) {
    HttpResult r = attempt("dw_" + std::string(43, 'y'));
    if (r.status == 429) {
      refused_at = i;
      int retry = std::stoi(r.Header("retry-after"));
      EXPECT_GE(retry, 1);
      EXPECT_LE(retry, 60);
    } else {
      EXPECT_EQ(r.status, 401) << r.body;
    }
  }
  EXPECT_EQ(refused_at, 11);
  ExpectError(attempt(key_a_), 429, "a right key is bounded too");
}

TEST_F(SessionTest, KeysAreListedNewestFirstWithTheirLastUse) {
  json made = NewKey(key_a_, {{"name", "second"}});
  HttpResult r = Get("/v2/keys", key_a_);
  ASSERT_EQ(r.status, 200) << r.body;
  json keys = r.Json()["keys"];
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0]["id"], made["id"]);
  EXPECT_EQ(keys[0]["lastUsedAt"], nullptr) << "never used";
  EXPECT_EQ(keys[1]["name"], "ci");
  EXPECT_EQ(keys[1]["role"], "admin") << "a key from before roles";
  EXPECT_TRUE(keys[1]["lastUsedAt"].is_string()) << "used by this very listing";
  EXPECT_FALSE(keys[0].contains("key")) << "a secret is never listed";
  // The command line shows roles and projects too.
  std::string listed = Admin({"key", "list", "--org", org_a_}).out;
  EXPECT_NE(listed.find("member"), std::string::npos) << listed;
  EXPECT_NE(listed.find("all projects"), std::string::npos) << listed;
}

// With an https public URL: the cookie is Secure, and the origin a browser's
// write must come from is the public URL's.
class SecureSessionTest : public SessionTest {
 protected:
  void StartDefaultServer() override {
    StartServer(kScripted, {"--lease-seconds", "1", "--public-url", "https://docs.example.com",
                            "--session-lifetime", "600"});
  }
};

TEST_F(SecureSessionTest, AnHttpsPublicUrlMakesTheCookieSecure) {
  SignedIn s = SignIn(key_a_);
  std::string set_cookie = s.response.Header("set-cookie");
  EXPECT_NE(set_cookie.find("; Max-Age=600; Secure"), std::string::npos) << set_cookie;
  EXPECT_EQ(WithCookie("POST", Jobs(project_a_), s, s.csrf,
                       {{"Origin", "https://docs.example.com"}}, Prompt("x [nochange]"))
                .status,
            201);
  ExpectError(WithCookie("POST", Jobs(project_a_), s, s.csrf, {{"Origin", Origin()}},
                         Prompt("x [nochange]")),
              403, "the listening address is not the public origin");
}

}  // namespace
}  // namespace docwright::testing
