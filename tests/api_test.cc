// The API, black-box: the real binary on a loopback port with a fresh data dir,
// spoken to over HTTP: the job lifecycle, validation, authentication, tenancy,
// rate limits and listings. The HTTP server's own behaviour is in
// http_server_test.cc, processes and signals in system_test.cc, the command line
// in cli_test.cc.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <unistd.h>

#include <fstream>
#include <random>

#include <atomic>
#include <regex>
#include <set>
#include <thread>

#include "support/service_fixture.h"

namespace docwright::testing {
namespace {

using std::chrono::milliseconds;

using ApiTest = ServiceTest;

TEST_F(ApiTest, JobLifecycle) {
  json job = CreateJob("Fix the typo in the quickstart");
  std::string id = job["id"];
  EXPECT_EQ(job["status"], "active");
  EXPECT_EQ(job["prLink"], nullptr);
  EXPECT_EQ(job["source"]["repository"], remote_a_);
  EXPECT_EQ(job["source"]["ref"].get<std::string>().rfind("docwright/", 0), 0u);

  std::string branch = job["source"]["ref"];

  json done = WaitForEnd(id);
  EXPECT_EQ(done["status"], "completed");
  ExpectLocalPullRequestLink(done["prLink"]);
  EXPECT_TRUE(done["summary"].is_string());
  EXPECT_EQ(done["source"]["ref"], branch) << "the branch is fixed at creation";
  // The edit is a commit on the job's branch, on top of main, by the bot.
  EXPECT_EQ(ShowFile(remote_a_, branch + ":notes/" + id + "-1.md"),
            "Fix the typo in the quickstart");
  EXPECT_EQ(Sh("git --git-dir=" + remote_a_ + " rev-parse " + branch + "^"),
            Sh("git --git-dir=" + remote_a_ + " rev-parse main"));
  EXPECT_EQ(Sh("git --git-dir=" + remote_a_ + " log -1 --format=%an " + branch), "docwright");

  HttpResult follow =
      Post(Job(project_a_, id) + "/message", Prompt("Also fix the API page"), key_a_);
  ASSERT_EQ(follow.status, 200) << follow.body;
  EXPECT_EQ(follow.Json()["status"], "active");
  EXPECT_EQ(follow.Json()["prLink"], nullptr) << "prLink is null while active";
  EXPECT_EQ(follow.Json()["id"], id);
  json again = WaitForEnd(id);
  EXPECT_EQ(again["status"], "completed");
  EXPECT_EQ(again["prLink"], done["prLink"]) << "a follow-up updates the same pull request";
  EXPECT_EQ(ShowFile(remote_a_, branch + ":notes/" + id + "-2.md"), "Also fix the API page");
  EXPECT_EQ(ShowFile(remote_a_, branch + ":notes/" + id + "-1.md"),
            "Fix the typo in the quickstart");

  // The pull request's page: its title, branches and the diff of both turns.
  HttpResult page = client_->Send("GET", PathOf(again["prLink"]));
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(page.Header("content-type"), "text/html; charset=utf-8");
  EXPECT_NE(page.body.find("<title>Fix the typo in the quickstart · #1</title>"), std::string::npos)
      << page.body;
  EXPECT_NE(page.body.find("<code>" + branch + "</code> into <code>main</code>"),
            std::string::npos);
  EXPECT_NE(page.body.find("<div class=\"add\">+Also fix the API page</div>"), std::string::npos)
      << page.body;
  EXPECT_NE(page.body.find("notes/" + id + "-1.md"), std::string::npos);
  EXPECT_NE(page.Header("content-security-policy").find("default-src 'none'"), std::string::npos);

  HttpResult transcript = Get(Job(project_a_, id) + "/messages", key_a_);
  ASSERT_EQ(transcript.status, 200);
  json messages = transcript.Json()["messages"];
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0]["prompt"], "Fix the typo in the quickstart");
  EXPECT_EQ(messages[1]["prompt"], "Also fix the API page");
  EXPECT_EQ(messages[1]["turn"]["state"], "succeeded");

  HttpResult list = Get("/v2/agent/" + project_a_ + "/jobs", key_a_);
  ASSERT_EQ(list.status, 200);
  ASSERT_EQ(list.Json()["jobs"].size(), 1u);
  EXPECT_EQ(list.Json()["jobs"][0]["id"], id);
  EXPECT_EQ(list.Json()["nextCursor"], nullptr);

  HttpResult archived = Post(Job(project_a_, id) + "/archive", "", key_a_, "");
  ASSERT_EQ(archived.status, 200) << archived.body;
  EXPECT_EQ(archived.Json()["status"], "archived");
  EXPECT_TRUE(archived.Json()["archivedAt"].is_string());
  ExpectError(Post(Job(project_a_, id) + "/message", Prompt("more"), key_a_), 409,
              "follow-up to an archived job");
  HttpResult twice = Post(Job(project_a_, id) + "/archive", "", key_a_, "");
  EXPECT_EQ(twice.status, 200);
  EXPECT_EQ(twice.Json()["archivedAt"], archived.Json()["archivedAt"]);
  EXPECT_EQ(Get(Job(project_a_, id), key_a_).Json()["status"], "archived");
}

TEST_F(ApiTest, AJobThatChangesNothingCompletesWithoutAPullRequest) {
  json job = CreateJob("Check the quickstart [nochange]");
  json done = WaitForEnd(job["id"]);
  EXPECT_EQ(done["status"], "completed");
  EXPECT_EQ(done["prLink"], nullptr);
  EXPECT_EQ(Sh("git --git-dir=" + remote_a_ + " branch --list 'docwright/*'"), "")
      << "no branch is pushed without changes";
}

TEST_F(ApiTest, PullRequestPagesNeedTheirUnguessableIdAndEscapeContent) {
  json done = WaitForEnd(CreateJob("Say <script>alert(1)</script> & more")["id"]);
  ASSERT_EQ(done["status"], "completed") << done;
  HttpResult page = client_->Send("GET", PathOf(done["prLink"]));
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(page.body.find("<script>"), std::string::npos) << "content is escaped";
  EXPECT_NE(page.body.find("&lt;script&gt;alert(1)&lt;/script&gt; &amp; more"), std::string::npos);
  std::string path = PathOf(done["prLink"]);
  std::string guessed = path.substr(0, path.size() - 1) + (path.back() == 'a' ? "b" : "a");
  ExpectError(client_->Send("GET", guessed), 404, "a neighbouring id");
  ExpectError(client_->Send("GET", "/pulls/1"), 404, "a pull request number");
  ExpectError(client_->Send("POST", path), 405, "POST to a page");
}

TEST_F(ApiTest, AFollowUpBuildsOnWhatAPersonPushedToTheBranch) {
  std::string id = CreateJob("Start the FAQ")["id"];
  json done = WaitForEnd(id);
  ASSERT_EQ(done["status"], "completed") << done;
  std::string branch = done["source"]["ref"];
  // A reviewer pushes a fix to the pull request's branch.
  std::string clone = dir_ / "reviewer";
  Sh(std::string(kGit) + " clone -q -b " + branch + " " + remote_a_ + " " + clone);
  Sh("cd " + clone + " && echo 'Installed the CLI.' > quickstart.mdx && " + kGit +
     " commit -qam 'Reviewer fix' && " + kGit + " push -q origin " + branch);
  std::string reviewer_head = Sh("git -C " + clone + " rev-parse HEAD");

  ASSERT_EQ(Post(Job(project_a_, id) + "/message", Prompt("Add a second question"), key_a_).status,
            200);
  json again = WaitForEnd(id);
  EXPECT_EQ(again["status"], "completed") << again;
  EXPECT_EQ(again["prLink"], done["prLink"]);
  EXPECT_EQ(Sh("git --git-dir=" + remote_a_ + " rev-parse " + branch + "^"), reviewer_head)
      << "the follow-up's commit sits on the reviewer's";
  EXPECT_EQ(ShowFile(remote_a_, branch + ":quickstart.mdx"), "Installed the CLI.");
  EXPECT_EQ(ShowFile(remote_a_, branch + ":notes/" + id + "-2.md"), "Add a second question");
}

TEST_F(ApiTest, ABranchThatMovesDuringTheTurnIsRetriedOnceFromItsNewHead) {
  std::string id = CreateJob("Start the FAQ")["id"];
  json done = WaitForEnd(id);
  ASSERT_EQ(done["status"], "completed") << done;
  std::string branch = done["source"]["ref"];
  std::string clone = dir_ / "reviewer";
  Sh(std::string(kGit) + " clone -q -b " + branch + " " + remote_a_ + " " + clone);
  auto push_one = [&](const std::string& file) {
    Sh("cd " + clone + " && echo x > " + file + " && " + kGit + " add -A && " + kGit +
       " commit -qm " + file + " && " + kGit + " push -q origin " + branch);
  };
  auto turns_started = [&] {
    size_t n = 0;
    for (size_t at = server_->Log().find("turn 2 started"); at != std::string::npos;
         at = server_->Log().find("turn 2 started", at + 1)) {
      ++n;
    }
    return n;
  };

  // Moved once, while the agent works: carried out again from the new head.
  // The agent takes 2.5 s, so that the person's push lands while it works even
  // when other tests share the machine's cores.
  ASSERT_EQ(
      Post(Job(project_a_, id) + "/message", Prompt("Add a question [sleep 2500]"), key_a_).status,
      200);
  ASSERT_TRUE(WaitUntil([&] { return turns_started() == 1; }));
  push_one("moved-once.md");
  json again = WaitForEnd(id);
  EXPECT_EQ(again["status"], "completed") << again;
  EXPECT_NE(server_->Log().find("moved during the turn"), std::string::npos);
  EXPECT_EQ(ShowFile(remote_a_, branch + ":moved-once.md"), "x") << "the person's commit is kept";
  EXPECT_EQ(Sh("git --git-dir=" + remote_a_ + " log -1 --format=%an " + branch), "docwright");

  // Moved during both rounds: the turn fails with a clear error; nothing is lost.
  Sh("cd " + clone + " && " + kGit + " pull -q --ff-only origin " + branch);
  ASSERT_EQ(Post(Job(project_a_, id) + "/message", Prompt("Another [sleep 2500]"), key_a_).status,
            200);
  auto started = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = server_->Log().find(what); at != std::string::npos;
         at = server_->Log().find(what, at + 1)) {
      ++n;
    }
    return n;
  };
  ASSERT_TRUE(WaitUntil([&] { return started("turn 3 started") == 1; }));
  for (int round = 0; round < 2; ++round) {
    std::this_thread::sleep_for(milliseconds(600));  // the turn has fetched by now
    push_one("moved-" + std::to_string(round) + ".md");
    if (round == 0) {
      ASSERT_TRUE(WaitUntil([&] {
        size_t a = server_->Log().find("moved during the turn");
        return a != std::string::npos &&
               server_->Log().find("moved during the turn", a + 1) != std::string::npos;
      }));
    }
  }
  json failed = WaitForEnd(id);
  EXPECT_EQ(failed["status"], "failed") << failed;
  EXPECT_NE(failed["error"].get<std::string>().find("kept changing"), std::string::npos) << failed;
  EXPECT_EQ(ShowFile(remote_a_, branch + ":moved-1.md"), "x");
}

TEST_F(ApiTest, ConcurrentJobsOfOneProjectEachGetTheirBranchAndPullRequest) {
  std::vector<std::string> ids;
  for (int i = 0; i < 6; ++i)
    ids.push_back(CreateJob("Page " + std::to_string(i) + " [sleep 200]")["id"]);
  std::set<std::string> links;
  for (size_t i = 0; i < ids.size(); ++i) {
    json done = WaitForEnd(ids[i]);
    ASSERT_EQ(done["status"], "completed") << done;
    links.insert(done["prLink"].get<std::string>());
    EXPECT_EQ(ShowFile(remote_a_,
                       done["source"]["ref"].get<std::string>() + ":notes/" + ids[i] + "-1.md"),
              "Page " + std::to_string(i) + " [sleep 200]");
  }
  EXPECT_EQ(links.size(), ids.size()) << "one pull request per job";
  EXPECT_EQ(Sh("git --git-dir=" + remote_a_ + " branch --list 'docwright/*' | wc -l"), "6");
}

TEST_F(ApiTest, RepositoryProblemsFailTheJobWithAClearError) {
  std::string empty = dir_ / "empty.git";
  Sh(std::string(kGit) + " init -q --bare " + empty);
  // Made with --no-check: `project create` refuses a missing repository and a
  // missing branch; these are what a turn meets when the repository changes after.
  std::string empty_project =
      Admin({"project", "create", "--org", org_a_, "--repository", empty, "--ref", "main"})
          .LastLine();
  std::string missing_project = Admin({"project", "create", "--org", org_a_, "--repository",
                                       dir_ / "nowhere.git", "--no-check"})
                                    .LastLine();
  std::string wrong_ref = Admin({"project", "create", "--org", org_a_, "--repository", remote_a_,
                                 "--ref", "trunk", "--no-check"})
                              .LastLine();
  for (const auto& [project, expected] :
       std::vector<std::pair<std::string, std::string>>{{empty_project, "has no branch main"},
                                                        {missing_project, "cannot read"},
                                                        {wrong_ref, "has no branch trunk"}}) {
    HttpResult r = Post(Jobs(project), Prompt("Edit"), key_a_);
    ASSERT_EQ(r.status, 201);
    std::string id = r.Json()["id"];
    json job;
    // Named in the capture: clang 14 cannot capture a structured binding.
    ASSERT_TRUE(WaitUntil([&, &project = project] {
      job = Get(Job(project, id), key_a_).Json();
      return job["status"] != "active";
    }));
    EXPECT_EQ(job["status"], "failed");
    EXPECT_NE(job["error"].get<std::string>().find(expected), std::string::npos) << job;
  }
}

TEST_F(ApiTest, EveryJobFieldIsAlwaysPresent) {
  json job = CreateJob("Document the rate limits");
  std::set<std::string> keys;
  for (auto& [k, v] : job.items()) keys.insert(k);
  std::set<std::string> expected = {
      "id",    "status",  "source",  "model",      "prLink", "createdAt", "archivedAt", "updatedAt",
      "error", "summary", "trigger", "workflowId", "commit", "prState",   "publish",    "usage"};
  EXPECT_EQ(keys, expected);
  EXPECT_EQ(job["commit"], nullptr) << "nothing published onto the base branch";
  EXPECT_EQ(job["prState"], nullptr);
  EXPECT_EQ(job["publish"], "pull_request") << "the project's default";
  EXPECT_EQ(job["archivedAt"], nullptr);
  EXPECT_EQ(job["error"], nullptr);
  EXPECT_EQ(job["trigger"], nullptr) << "no workflow started it";
  EXPECT_EQ(job["workflowId"], nullptr);
  EXPECT_EQ(job["model"], nullptr) << "no model is configured anywhere";
  std::regex rfc3339(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)");
  EXPECT_TRUE(std::regex_match(job["createdAt"].get<std::string>(), rfc3339)) << job;
  EXPECT_TRUE(std::regex_match(job["id"].get<std::string>(),
                               std::regex("[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
                                          "[0-9a-f]{12}")));
  json failed = WaitForEnd(CreateJob("[fail no such page]")["id"]);
  EXPECT_EQ(failed["status"], "failed");
  EXPECT_EQ(failed["error"], "no such page");
  EXPECT_EQ(failed["prLink"], nullptr);
}

TEST_F(ApiTest, CreateExtensionsModelAndUnknownFields) {
  HttpResult r =
      Post(Jobs(project_a_),
           R"({"prompt":"x","model":"claude-sonnet","draft":true,"extra":{"a":1}})", key_a_);
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.Json()["model"], "claude-sonnet");
}

TEST_F(ApiTest, BadBodiesAreRefusedWithAClearError) {
  struct Case {
    std::string name, content_type, body;
    int status;
  };
  std::string too_long = Prompt(std::string(65537, 'a'));
  std::vector<Case> cases = {
      {"malformed JSON", "application/json", "{\"prompt\": ", 400},
      {"not an object", "application/json", "[\"prompt\"]", 400},
      {"a bare string", "application/json", "\"prompt\"", 400},
      {"missing prompt", "application/json", "{}", 400},
      {"null prompt", "application/json", "{\"prompt\":null}", 400},
      {"empty prompt", "application/json", "{\"prompt\":\"\"}", 400},
      {"blank prompt", "application/json", "{\"prompt\":\" \\n\\t \"}", 400},
      {"number prompt", "application/json", "{\"prompt\":5}", 400},
      {"array prompt", "application/json", "{\"prompt\":[\"a\"]}", 400},
      {"invalid UTF-8", "application/json", "{\"prompt\":\"caf\xe9\"}", 400},
      {"overlong UTF-8", "application/json", "{\"prompt\":\"\xc0\xaf\"}", 400},
      {"prompt over 65536 characters", "application/json", too_long, 400},
      {"model not a string", "application/json", "{\"prompt\":\"x\",\"model\":5}", 400},
      {"draft not a bool", "application/json", "{\"prompt\":\"x\",\"draft\":\"yes\"}", 400},
      {"empty body", "application/json", "", 400},
      {"text/plain", "text/plain", Prompt("x"), 415},
      {"no content type", "", Prompt("x"), 415},
      {"form", "application/x-www-form-urlencoded", "prompt=x", 415},
  };
  json job = CreateJob("first");
  for (const Case& c : cases) {
    ExpectError(Post(Jobs(project_a_), c.body, key_a_, c.content_type), c.status,
                "create: " + c.name);
    if (c.name.find("model") != std::string::npos || c.name.find("draft") != std::string::npos) {
      continue;  // create-only fields; a follow-up ignores them
    }
    ExpectError(Post(Job(project_a_, job["id"]) + "/message", c.body, key_a_, c.content_type),
                c.status, "message: " + c.name);
  }
  HttpResult r = Post(Jobs(project_a_), too_long, key_a_);
  EXPECT_NE(r.Json()["error"].get<std::string>().find("65536"), std::string::npos) << r.body;
  // Nothing of the refused requests was stored.
  EXPECT_EQ(Get("/v2/agent/" + project_a_ + "/jobs", key_a_).Json()["jobs"].size(), 1u);
  EXPECT_EQ(Get(Job(project_a_, job["id"]) + "/messages", key_a_).Json()["messages"].size(), 1u);
}

TEST_F(ApiTest, PromptLimitCountsCharactersNotBytes) {
  std::string e_acute = "\xc3\xa9";
  std::string at_limit;
  for (int i = 0; i < 65536; ++i) at_limit += e_acute;  // 131072 bytes, 65536 characters
  HttpResult ok = Post(Jobs(project_a_), Prompt(at_limit), key_a_);
  EXPECT_EQ(ok.status, 201) << ok.body.substr(0, 200);
  ExpectError(Post(Jobs(project_a_), Prompt(at_limit + "x"), key_a_), 400, "65537 characters");
  // Content-Type parameters and case do not matter.
  EXPECT_EQ(Post(Jobs(project_a_), Prompt("x"), key_a_, "Application/JSON; charset=utf-8").status,
            201);
}

TEST_F(ApiTest, BodyOverOneMebibyteIs413) {
  std::string huge = Prompt(std::string((1 << 20) + 10, 'a'));
  HttpResult r = Post(Jobs(project_a_), huge, key_a_);
  ExpectError(r, 413, "body over 1 MiB");
  EXPECT_EQ(Get("/v2/agent/" + project_a_ + "/jobs", key_a_).Json()["jobs"].size(), 0u);
}

TEST_F(ApiTest, UnknownRoutesAndMethods) {
  ExpectError(Get("/v2/agent/" + project_a_ + "/nothing", key_a_), 404, "unknown route");
  ExpectError(Get("/v1/agent/" + project_a_ + "/sessions", key_a_), 404, "v1");
  ExpectError(Get("/v1/agent/" + project_a_ + "/job", key_a_), 405, "v1 create is a POST");
  ExpectError(Get("/", key_a_), 404, "root");
  struct Case {
    std::string method, target, allow;
  };
  std::string job = Job(project_a_, "01a202ea-c483-7000-b7c4-c6f1ad82ddc7");
  for (const Case& c : std::vector<Case>{
           {"GET", Jobs(project_a_), "POST"},
           {"DELETE", job, "GET, HEAD"},
           {"PUT", job + "/message", "POST"},
           {"GET", job + "/archive", "POST"},
           {"POST", "/v2/agent/" + project_a_ + "/jobs", "GET, HEAD"},
           {"POST", "/healthz", "GET, HEAD"},
       }) {
    HttpResult r = client_->Send(c.method, c.target, "", Auth(key_a_));
    ExpectError(r, 405, c.method + " " + c.target);
    EXPECT_EQ(r.Header("allow"), c.allow) << c.method << " " << c.target;
  }
}

TEST_F(ApiTest, AuthenticationIsRequiredAndChecked) {
  std::string target = Jobs(project_a_);
  auto expect_401 = [&](const Headers& h, const std::string& what) {
    HttpResult r = client_->Send("POST", target, Prompt("x"), h);
    ExpectError(r, 401, what);
    EXPECT_NE(r.Header("www-authenticate").find("Bearer"), std::string::npos) << what;
  };
  expect_401({{"Content-Type", "application/json"}}, "no Authorization");
  expect_401({{"Authorization", "Basic dXNlcjpwYXNz"}, {"Content-Type", "application/json"}},
             "Basic");
  expect_401({{"Authorization", "Bearer"}, {"Content-Type", "application/json"}}, "empty");
  expect_401({{"Authorization", "Bearer not-a-key"}, {"Content-Type", "application/json"}},
             "malformed key");
  std::string unknown = "dw_" + std::string(43, 'A');
  expect_401({{"Authorization", "Bearer " + unknown}, {"Content-Type", "application/json"}},
             "unknown key");
  // 401 comes before anything about the project is revealed.
  ExpectError(client_->Send("GET", Job(project_b_, "x")), 401, "no key, other project");
  EXPECT_EQ(Get("/v2/agent/" + project_a_ + "/jobs", unknown).status, 401);
  EXPECT_EQ(Get("/v2/agent/" + project_a_ + "/jobs", key_a_).status, 200);
  // "bearer" in any case is accepted (RFC 7235: the scheme is case-insensitive).
  EXPECT_EQ(client_
                ->Send("GET", "/v2/agent/" + project_a_ + "/jobs", "",
                       {{"Authorization", "bearer " + key_a_}})
                .status,
            200);
}

TEST_F(ApiTest, RevokedKeyStopsWorking) {
  std::string key = Admin({"key", "create", "--org", org_a_, "--name", "temp"}).LastLine();
  std::string list = "/v2/agent/" + project_a_ + "/jobs";
  ASSERT_EQ(Get(list, key).status, 200);
  json keys = json::parse(Admin({"key", "list", "--org", org_a_, "--json"}).out);
  std::string key_id;
  for (auto& k : keys) {
    if (k["name"] == "temp") key_id = k["id"];
  }
  ASSERT_FALSE(key_id.empty());
  Admin({"key", "revoke", key_id});
  // The server sees revocations made by another process within its cache time.
  EXPECT_TRUE(WaitUntil([&] { return Get(list, key).status == 401; }, milliseconds(3000)));
  EXPECT_EQ(Get(list, key_a_).status, 200) << "other keys keep working";
}

TEST_F(ApiTest, OtherOrganisationsCannotSeeOrTouchAJob) {
  json job = CreateJob("private work [nochange]");
  std::string id = job["id"];
  WaitForEnd(id);
  std::string nonexistent_project = "01a202ea-0000-7000-8000-000000000000";
  HttpResult never = Get(Job(nonexistent_project, id), key_b_);
  ExpectError(never, 404, "nonexistent project");

  HttpResult r = Get(Job(project_a_, id), key_b_);
  ExpectError(r, 404, "get with another org's key");
  EXPECT_EQ(r.body, never.body) << "must not reveal that the project exists";
  ExpectError(Post(Jobs(project_a_), Prompt("steal"), key_b_), 404, "create");
  ExpectError(Post(Job(project_a_, id) + "/message", Prompt("x"), key_b_), 404, "message");
  ExpectError(Post(Job(project_a_, id) + "/archive", "", key_b_, ""), 404, "archive");
  ExpectError(Get(Job(project_a_, id) + "/messages", key_b_), 404, "transcript");
  ExpectError(Get("/v2/agent/" + project_a_ + "/jobs", key_b_), 404, "list");
  // The job through org B's own project: the job is not B's.
  ExpectError(Get(Job(project_b_, id), key_b_), 404, "via own project");
  ExpectError(Post(Job(project_b_, id) + "/archive", "", key_b_, ""), 404, "archive via own");

  json still = Get(Job(project_a_, id), key_a_).Json();
  EXPECT_EQ(still["status"], "completed");
  EXPECT_EQ(Get(Job(project_a_, id) + "/messages", key_a_).Json()["messages"].size(), 1u);
  EXPECT_EQ(Get("/v2/agent/" + project_a_ + "/jobs", key_a_).Json()["jobs"].size(), 1u);
}

TEST_F(ApiTest, UnknownProjectsAndJobsAre404) {
  ExpectError(Get(Job(project_a_, "01a202ea-c483-7000-b7c4-c6f1ad82ddc7"), key_a_), 404,
              "unknown job");
  ExpectError(Get(Job(project_a_, "..%2F..%2Fetc"), key_a_), 404, "malformed job id");
  ExpectError(Get(Job("no-such-project", "x"), key_a_), 404, "malformed project id");
  ExpectError(Post(Jobs("01a202ea-c483-7000-b7c4-c6f1ad82ddc7"), Prompt("x"), key_a_), 404,
              "unknown project");
}

TEST_F(ApiTest, RateLimitAppliesToCreatesAndMessagesNotPolls) {
  std::string limited = Admin({"project", "create", "--org", org_a_, "--repository", "/srv/x.git",
                               "--rate-limit", "2", "--no-check"})
                            .LastLine();
  HttpResult first = Post(Jobs(limited), Prompt("one [nochange]"), key_a_);
  ASSERT_EQ(first.status, 201);
  std::string id = first.Json()["id"];
  ASSERT_EQ(Post(Job(limited, id) + "/message", Prompt("two"), key_a_).status, 200);
  for (int i = 0; i < 20; ++i) ASSERT_EQ(Get(Job(limited, id), key_a_).status, 200);
  HttpResult refused = Post(Jobs(limited), Prompt("three"), key_a_);
  ExpectError(refused, 429, "third create");
  int retry_after = std::stoi(refused.Header("retry-after"));
  EXPECT_GT(retry_after, 0);
  EXPECT_LE(retry_after, 3600);
  ExpectError(Post(Job(limited, id) + "/message", Prompt("four"), key_a_), 429, "message");
  EXPECT_EQ(Post(Jobs(project_a_), Prompt("other project"), key_a_).status, 201);
}

TEST_F(ApiTest, ListPaginatesAndValidatesItsQuery) {
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i)
    ids.push_back(CreateJob("job " + std::to_string(i) + " [nochange]")["id"]);
  std::string base = "/v2/agent/" + project_a_ + "/jobs";
  std::vector<std::string> seen;
  std::string cursor;
  for (int page = 0; page < 5; ++page) {
    HttpResult r = Get(base + "?limit=2" + (cursor.empty() ? "" : "&cursor=" + cursor), key_a_);
    ASSERT_EQ(r.status, 200) << r.body;
    json page_body = r.Json();
    for (auto& j : page_body["jobs"]) seen.push_back(j["id"]);
    if (page_body["nextCursor"].is_null()) break;
    cursor = page_body["nextCursor"];
  }
  EXPECT_EQ(seen, std::vector<std::string>(ids.rbegin(), ids.rend()));
  ASSERT_EQ(Post(Job(project_a_, ids[2]) + "/archive", "", key_a_, "").status, 200);
  HttpResult archived = Get(base + "?status=archived", key_a_);
  ASSERT_EQ(archived.Json()["jobs"].size(), 1u);
  EXPECT_EQ(archived.Json()["jobs"][0]["id"], ids[2]);
  for (const char* bad :
       {"?limit=0", "?limit=101", "?limit=ten", "?status=done", "?cursor=bogus", "?limit=5%"}) {
    ExpectError(Get(base + bad, key_a_), 400, bad);
  }
}

// --- Idempotent POSTs and conditional polling ---

class KeyedApiTest : public ServiceTest {
 protected:
  HttpResult PostKeyed(const std::string& target, const std::string& body,
                       const std::string& idempotency_key, HttpClient* client = nullptr) {
    Headers h = Auth(key_a_);
    h.emplace_back("Content-Type", "application/json");
    h.emplace_back("Idempotency-Key", idempotency_key);
    return (client ? client : client_.get())->Send("POST", target, body, h);
  }
  HttpResult GetIfNoneMatch(const std::string& target, const std::string& tags) {
    Headers h = Auth(key_a_);
    h.emplace_back("If-None-Match", tags);
    return client_->Send("GET", target, "", h);
  }
  size_t JobCount() {
    return Get("/v2/agent/" + project_a_ + "/jobs?limit=100", key_a_).Json()["jobs"].size();
  }
};

TEST_F(KeyedApiTest, ARetriedCreateGetsTheFirstResponseAndMakesNoSecondJob) {
  const std::string body = Prompt("Fix the typo [nochange]");
  HttpResult first = PostKeyed(Jobs(project_a_), body, "create-1");
  ASSERT_EQ(first.status, 201) << first.body;
  EXPECT_EQ(first.Header("idempotent-replayed"), "");
  std::string id = first.Json()["id"];
  WaitForEnd(id);  // the job moves on; the replay is still the first answer
  HttpResult again = PostKeyed(Jobs(project_a_), body, "create-1");
  EXPECT_EQ(again.status, 201);
  EXPECT_EQ(again.body, first.body);
  EXPECT_EQ(again.Header("idempotent-replayed"), "true");
  EXPECT_EQ(again.Header("content-type"), "application/json");
  EXPECT_EQ(JobCount(), 1u);

  // The key names that request: another body, or the key on another endpoint, is 422.
  HttpResult other = PostKeyed(Jobs(project_a_), Prompt("Something else"), "create-1");
  ExpectError(other, 422, "another body");
  EXPECT_EQ(other.Json()["code"], "idempotency_key_reused");
  ExpectError(PostKeyed(Job(project_a_, id) + "/message", body, "create-1"), 422,
              "the key on a follow-up");
  // Per project: the other organisation's project has keys of its own.
  Headers h = Auth(key_b_);
  h.emplace_back("Content-Type", "application/json");
  h.emplace_back("Idempotency-Key", "create-1");
  EXPECT_EQ(client_->Send("POST", Jobs(project_b_), body, h).status, 201);
  EXPECT_EQ(JobCount(), 1u);
}

TEST_F(KeyedApiTest, KeysAreCheckedAndARefusedRequestKeepsNone) {
  ExpectError(PostKeyed(Jobs(project_a_), Prompt("x"), std::string(256, 'k')), 400, "long key");
  ExpectError(PostKeyed(Jobs(project_a_), Prompt("x"), "caf\xc3\xa9"), 400, "not ASCII");
  EXPECT_EQ(JobCount(), 0u);
  // A request refused for its body keeps nothing: the key then works.
  ExpectError(PostKeyed(Jobs(project_a_), "{\"prompt\": 7}", "k"), 400, "bad body");
  EXPECT_EQ(PostKeyed(Jobs(project_a_), Prompt("x [nochange]"), "k").status, 201);
  EXPECT_EQ(PostKeyed(Jobs(project_a_), Prompt("x [nochange]"), std::string(255, '~')).status, 201);
  // Without a key, every POST creates.
  EXPECT_EQ(Post(Jobs(project_a_), Prompt("y [nochange]"), key_a_).status, 201);
  EXPECT_EQ(Post(Jobs(project_a_), Prompt("y [nochange]"), key_a_).status, 201);
  EXPECT_EQ(JobCount(), 4u);
}

TEST_F(KeyedApiTest, ConcurrentRetriesWithOneKeyMakeOneJob) {
  constexpr int kClients = 16;
  const std::string body = Prompt("Once only [nochange]");
  std::vector<HttpResult> results(kClients);
  std::vector<std::thread> clients;
  for (int t = 0; t < kClients; ++t) {
    clients.emplace_back([&, t] {
      HttpClient own(server_->port());
      results[t] = PostKeyed(Jobs(project_a_), body, "burst", &own);
    });
  }
  for (auto& c : clients) c.join();
  int replayed = 0;
  for (const HttpResult& r : results) {
    EXPECT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(r.body, results[0].body);
    replayed += r.Header("idempotent-replayed") == "true";
  }
  EXPECT_EQ(replayed, kClients - 1);
  EXPECT_EQ(JobCount(), 1u);
}

TEST_F(KeyedApiTest, ARetriedFollowUpIsAddedOnce) {
  std::string id = CreateJob("Start [nochange]")["id"];
  WaitForEnd(id);
  const std::string path = Job(project_a_, id) + "/message";
  HttpResult first = PostKeyed(path, Prompt("More [nochange]"), "follow-1");
  ASSERT_EQ(first.status, 200) << first.body;
  HttpResult again = PostKeyed(path, Prompt("More [nochange]"), "follow-1");
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(again.body, first.body);
  EXPECT_EQ(again.Header("idempotent-replayed"), "true");
  WaitForEnd(id);
  EXPECT_EQ(Get(Job(project_a_, id) + "/messages", key_a_).Json()["messages"].size(), 2u);
}

TEST_F(KeyedApiTest, PollsCarryAnETagAndAnUnchangedJobIs304) {
  std::string id = CreateJob("Look around [nochange]")["id"];
  json ended = WaitForEnd(id);  // it no longer changes by itself
  const std::string path = Job(project_a_, id);
  HttpResult poll = Get(path, key_a_);
  ASSERT_EQ(poll.status, 200);
  EXPECT_EQ(poll.Json(), ended);
  std::string tag = poll.Header("etag");
  ASSERT_TRUE(std::regex_match(tag, std::regex("\"[0-9a-f]{32}\""))) << tag;

  for (const std::string& tags :
       {tag, "W/" + tag, "\"nope\", " + tag, "\"a\",W/" + tag + " , \"b\"", std::string("*")}) {
    HttpResult unchanged = GetIfNoneMatch(path, tags);
    EXPECT_EQ(unchanged.status, 304) << tags;
    EXPECT_EQ(unchanged.body, "") << tags;
    EXPECT_EQ(unchanged.Header("etag"), tag) << tags;
  }
  HttpResult other = GetIfNoneMatch(path, "\"0123\", W/\"abc\"");
  EXPECT_EQ(other.status, 200);
  EXPECT_EQ(other.body, poll.body);
  EXPECT_EQ(other.Header("etag"), tag);
  // The by-id route: the same body, the same tag.
  HttpResult by_id = GetIfNoneMatch("/v2/agent/job/" + id, tag);
  EXPECT_EQ(by_id.status, 304);
  EXPECT_EQ(by_id.Header("etag"), tag);

  // A follow-up changes the job: its body, and so its tag.
  ASSERT_EQ(Post(path + "/message", Prompt("Again [nochange]"), key_a_).status, 200);
  HttpResult changed = GetIfNoneMatch(path, tag);
  ASSERT_EQ(changed.status, 200);
  EXPECT_NE(changed.body, poll.body);
  EXPECT_NE(changed.Header("etag"), tag);
  json again = WaitForEnd(id);
  HttpResult latest = Get(path, key_a_);
  EXPECT_EQ(latest.Json(), again);
  EXPECT_EQ(GetIfNoneMatch(path, latest.Header("etag")).status, 304);
}

}  // namespace
}  // namespace docwright::testing
