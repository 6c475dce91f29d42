// The command line: the job client against a running server, and the admin
// commands on the store.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include <atomic>
#include <regex>
#include <set>
#include <thread>

#include "support/git_http_server.h"
#include "support/secrets.h"
#include "support/service_fixture.h"

namespace docwright::testing {
namespace {

using std::chrono::milliseconds;

using CliTest = ServiceTest;

TEST_F(CliTest, JobClientCommands) {
  std::string url = "http://127.0.0.1:" + std::to_string(server_->port());
  auto job = [&](std::vector<std::string> args, int expected_exit) {
    args.insert(args.end(), {"--url", url, "--key", key_a_, "--project", project_a_});
    CommandResult r = RunCommand(kScripted, args);
    EXPECT_EQ(r.exit_code, expected_exit) << r.out << r.err;
    return r;
  };
  std::string id = job({"job", "create", "--prompt", "Fix the typo"}, 0).LastLine();
  ASSERT_EQ(Get(Job(project_a_, id), key_a_).status, 200) << id;
  json done = json::parse(job({"job", "wait", id, "--interval", "50"}, 0).LastLine());
  EXPECT_EQ(done["status"], "completed");
  EXPECT_EQ(json::parse(job({"job", "get", id}, 0).LastLine())["id"], id);
  json again = json::parse(
      job({"job", "message", id, "--prompt", "And the API page", "--wait", "--interval", "50"}, 0)
          .LastLine());
  EXPECT_EQ(again["status"], "completed");
  EXPECT_EQ(Get(Job(project_a_, id) + "/messages", key_a_).Json()["messages"].size(), 2u);

  json failed = json::parse(
      job({"job", "create", "--prompt", "[fail broken]", "--wait", "--interval", "50"}, 1)
          .LastLine());
  EXPECT_EQ(failed["error"], "broken");
  CommandResult denied =
      RunCommand(kScripted, {"job", "get", id, "--url", url, "--key", "dw_" + std::string(43, 'x'),
                             "--project", project_a_});
  EXPECT_EQ(denied.exit_code, 1);
  EXPECT_NE(denied.err.find("HTTP 401"), std::string::npos) << denied.err;
  {
    std::ofstream(dir_ / "huge.txt") << std::string((1 << 20) + 1, 'x');
    std::ofstream(dir_ / "prompt.txt") << "From a file [nochange]";
    CommandResult huge = job({"job", "create", "--prompt-file", dir_ / "huge.txt"}, 1);
    EXPECT_NE(huge.err.find("larger than 1 MiB"), std::string::npos) << huge.err;
    std::string from_file =
        job({"job", "create", "--prompt-file", dir_ / "prompt.txt"}, 0).LastLine();
    EXPECT_EQ(Get(Job(project_a_, from_file) + "/messages", key_a_).Json()["messages"][0]["prompt"],
              "From a file [nochange]");
  }
  CommandResult unreachable = RunCommand(
      kScripted,
      {"job", "get", id, "--url", "http://127.0.0.1:1", "--key", key_a_, "--project", project_a_});
  EXPECT_EQ(unreachable.exit_code, 1);
  EXPECT_NE(unreachable.err.find("cannot reach"), std::string::npos) << unreachable.err;
  EXPECT_EQ(unreachable.err.find(key_a_), std::string::npos);
}

TEST_F(CliTest, JobClientListsFollowsArchivesAndFindsJobsById) {
  std::string url = "http://127.0.0.1:" + std::to_string(server_->port());
  // DOCWRIGHT_PROJECT stands for --project; a job is found by its id alone.
  auto job = [&](std::vector<std::string> args, int expected_exit, bool with_project = true) {
    args.insert(args.end(), {"--url", url, "--key", key_a_});
    if (with_project) args.insert(args.end(), {"--project", project_a_});
    CommandResult r = RunCommand(kScripted, args);
    EXPECT_EQ(r.exit_code, expected_exit) << r.out << r.err;
    return r;
  };
  std::string first = job({"job", "create", "--prompt", "Fix the typo"}, 0).LastLine();
  std::string second =
      job({"job", "create", "--prompt", "[summary Checked {job}] [nochange]", "--wait"}, 0)
          .LastLine();
  second = json::parse(second)["id"];
  ASSERT_EQ(WaitForEnd(first)["status"], "completed");

  EXPECT_EQ(json::parse(job({"job", "get", first}, 0, false).LastLine())["id"], first);
  CommandResult elsewhere =
      RunCommand(kScripted, {"job", "get", first, "--url", url, "--key", key_b_});
  EXPECT_EQ(elsewhere.exit_code, 1);
  EXPECT_NE(elsewhere.err.find("HTTP 404"), std::string::npos) << elsewhere.err;

  // list: newest first, a page at a time, as a table or as the API's JSON.
  std::string table = job({"job", "list"}, 0).out;
  ASSERT_NE(table.find(first), std::string::npos) << table;
  EXPECT_LT(table.find(second), table.find(first)) << table;
  std::string paged = job({"job", "list", "--limit", "1"}, 0).out;
  EXPECT_NE(paged.find(second), std::string::npos);
  EXPECT_EQ(paged.find(first), std::string::npos);
  std::smatch more;
  ASSERT_TRUE(std::regex_search(paged, more, std::regex("more: --cursor (\\S+)"))) << paged;
  EXPECT_NE(job({"job", "list", "--limit", "1", "--cursor", more[1]}, 0).out.find(first),
            std::string::npos);
  json page = json::parse(job({"job", "list", "--json", "--status", "completed"}, 0).out);
  EXPECT_EQ(page["jobs"].size(), 2u);
  EXPECT_EQ(json::parse(job({"job", "list", "--json", "--status", "failed"}, 0).out)["jobs"].size(),
            0u);

  // transcript and follow show the turns' steps and outcomes.
  std::string transcript = job({"job", "transcript", second}, 0).out;
  EXPECT_NE(transcript.find("#1 succeeded"), std::string::npos) << transcript;
  EXPECT_NE(transcript.find("summary: Checked " + second), std::string::npos) << transcript;
  std::string failing =
      job({"job", "create", "--prompt", "[sleep 300] [fail no luck]"}, 0).LastLine();
  CommandResult followed = job({"job", "follow", failing, "--interval", "50"}, 1);
  EXPECT_NE(followed.out.find(" job.created "), std::string::npos) << followed.out;
  EXPECT_NE(followed.out.find("error: no luck"), std::string::npos) << followed.out;
  EXPECT_NE(followed.out.find("job.failed status: failed"), std::string::npos) << followed.out;

  // stop: nothing runs now, so there is nothing to stop.
  CommandResult idle = job({"job", "stop", second}, 1);
  EXPECT_NE(idle.err.find("no turn running"), std::string::npos) << idle.err;
  // archive: final; a follow-up is refused.
  EXPECT_EQ(json::parse(job({"job", "archive", first}, 0).LastLine())["status"], "archived");
  CommandResult refused = job({"job", "message", first, "--prompt", "More"}, 1);
  EXPECT_NE(refused.err.find("HTTP 409"), std::string::npos) << refused.err;
  json named = json::parse(
      job({"job", "message", second, "--prompt", "Again [nochange]", "--model", "m2"}, 0)
          .LastLine());
  EXPECT_EQ(named["model"], "m2");

  // --idempotency-key: the command run again with its key writes nothing more
  // and prints what the first run got; the key with another request is refused.
  std::vector<std::string> create_once = {
      "job", "create", "--prompt", "Once [nochange]", "--idempotency-key", "cli-create-1"};
  std::string keyed = job(create_once, 0).LastLine();
  EXPECT_EQ(job(create_once, 0).LastLine(), keyed);
  CommandResult reused = job(
      {"job", "create", "--prompt", "Another [nochange]", "--idempotency-key", "cli-create-1"}, 1);
  EXPECT_NE(reused.err.find("HTTP 422"), std::string::npos) << reused.err;
  std::vector<std::string> message_once = {
      "job", "message", keyed, "--prompt", "More [nochange]", "--idempotency-key", "cli-message-1"};
  std::string sent = job(message_once, 0).out;
  EXPECT_EQ(job(message_once, 0).out, sent);
  EXPECT_EQ(Get(Job(project_a_, keyed) + "/messages", key_a_).Json()["messages"].size(), 2u);
}

// The first hour, as the README tells it: a new data directory says what to do;
// quickstart makes an organisation, a key and a project in one step, and the
// curl it prints starts a first job that completes.
TEST_F(CliTest, QuickstartLeadsFromAnEmptyDataDirectoryToAFirstJob) {
  server_->Terminate();
  const std::string fresh = dir_ / "fresh-data";
  std::filesystem::create_directories(fresh);  // empty: where the log goes
  ServerProcess server(kScripted, fresh, {"--lease-seconds", "1"});
  ASSERT_TRUE(server.Start()) << server.Log();
  EXPECT_NE(server.Log().find("no organisation yet"), std::string::npos) << server.Log();
  EXPECT_NE(server.Log().find("docwright quickstart --data-dir " + fresh), std::string::npos);

  // Refused, and nothing made, when the repository is not usable.
  CommandResult bad = RunCommand(
      kScripted, {"quickstart", "--data-dir", fresh, "--repository", dir_ / "missing.git"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("does not exist"), std::string::npos) << bad.err;
  EXPECT_EQ(RunCommand(kScripted, {"org", "list", "--data-dir", fresh, "--json"}).out, "[]\n");

  const std::string url = "http://127.0.0.1:" + std::to_string(server.port());
  CommandResult made = RunCommand(kScripted, {"quickstart", "--data-dir", fresh, "--repository",
                                              remote_a_, "--url", url, "--json"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  json q = json::parse(made.out);
  EXPECT_EQ(q["project"]["ref"], "main");
  EXPECT_EQ(q["project"]["repository"], remote_a_);
  std::string key = q["key"];
  std::string curl = q["curl"];
  // The dashboard it names serves the sign-in page, where the key signs in.
  std::string dashboard = q["dashboard"];
  EXPECT_EQ(dashboard, url + "/ui/");
  HttpClient ui(server.port());
  EXPECT_EQ(ui.Send("GET", "/ui/").status, 200);
  // The printed curl, run as printed.
  json created = json::parse(Sh(curl));
  ASSERT_TRUE(created["id"].is_string()) << created;
  HttpClient client(server.port());
  std::string project = q["project"]["id"];
  json job;
  EXPECT_TRUE(WaitUntil([&] {
    job = client.Send("GET", Job(project, created["id"]), "", Auth(key)).Json();
    return job["status"] != "active";
  }));
  EXPECT_EQ(job["status"], "completed") << job;
  EXPECT_TRUE(job["prLink"].is_string()) << job;
  // The text form names the key once, and the same curl.
  CommandResult text = RunCommand(kScripted, {"quickstart", "--data-dir", fresh, "--repository",
                                              remote_a_, "--url", url, "--name", "second"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("DOCWRIGHT_API_KEY=dw_"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("curl -s -X POST '" + url + "/v2/agent/"), std::string::npos);
  EXPECT_EQ(server.Terminate(), 0);
}

TEST_F(CliTest, VersionAndOrganisationsAreListed) {
  CommandResult version = RunCommand(kScripted, {"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_TRUE(
      std::regex_search(version.out, std::regex(R"(^docwright \d+\.\d+\.\d+ \(commit \S+\))")))
      << version.out;
  json health = Get("/healthz", "").Json();
  EXPECT_EQ(health["status"], "ok");
  EXPECT_EQ(version.out.find(health["version"].get<std::string>()), 10u) << health;
  EXPECT_NE(version.out.find(health["commit"].get<std::string>()), std::string::npos) << health;

  std::string table = Admin({"org", "list"}).out;
  EXPECT_NE(table.find(org_a_ + "  acme"), std::string::npos) << table;
  EXPECT_NE(table.find(org_b_ + "  globex"), std::string::npos) << table;
  json listed = json::parse(Admin({"org", "list", "--json"}).out);
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0]["id"], org_a_);
}

TEST_F(CliTest, AdminCommands) {
  json org = json::parse(Admin({"org", "create", "--name", "initech", "--json"}).out);
  ASSERT_TRUE(org["id"].is_string());
  json key = json::parse(Admin({"key", "create", "--org", org["id"], "--json"}).out);
  std::string secret = key["key"];
  EXPECT_EQ(secret.rfind("dw_", 0), 0u);
  std::string listed = Admin({"key", "list", "--org", org["id"]}).out;
  EXPECT_EQ(listed.find(secret), std::string::npos) << "a key is shown only once";
  EXPECT_NE(listed.find(key["prefix"].get<std::string>()), std::string::npos);

  json project =
      json::parse(Admin({"project", "create", "--org", org["id"], "--repository",
                         "https://github.com/initech/docs", "--forge", "github", "--forge-token",
                         "ghp_x", "--model", "m1", "--rate-limit", "7", "--json", "--no-check"})
                      .out);
  EXPECT_EQ(project["forge"], "github");
  EXPECT_EQ(project["rateLimitPerHour"], 7);
  EXPECT_EQ(project["forgeTokenSet"], true);
  std::string projects = Admin({"project", "list", "--org", org["id"], "--json"}).out;
  EXPECT_NE(projects.find(project["id"].get<std::string>()), std::string::npos);
  EXPECT_EQ(projects.find("ghp_x"), std::string::npos) << "tokens are never listed";

  // Caps of turns in flight: set, shown, lifted with 0, refused out of range.
  EXPECT_EQ(project["maxActive"], nullptr);
  json capped = json::parse(
      Admin({"project", "update", project["id"], "--org", org["id"], "--max-active", "3", "--json"})
          .out);
  EXPECT_EQ(capped["maxActive"], 3);
  EXPECT_EQ(capped["rateLimitPerHour"], 7) << "what is not given stays";
  json lifted = json::parse(
      Admin({"project", "update", project["id"], "--org", org["id"], "--max-active", "0", "--json"})
          .out);
  EXPECT_EQ(lifted["maxActive"], nullptr);
  CommandResult negative =
      Admin({"project", "update", project["id"], "--org", org["id"], "--max-active", "-1"}, 1);
  EXPECT_NE(negative.err.find("--max-active"), std::string::npos) << negative.err;
  json org_capped =
      json::parse(Admin({"org", "update", org["id"], "--max-active", "5", "--json"}).out);
  EXPECT_EQ(org_capped["maxActive"], 5);
  EXPECT_EQ(org_capped["name"], "initech");
  json made_capped =
      json::parse(Admin({"org", "create", "--name", "hooli", "--max-active", "2", "--json"}).out);
  EXPECT_EQ(made_capped["maxActive"], 2);
  CommandResult too_many = Admin({"org", "update", org["id"], "--max-active", "100001"}, 1);
  EXPECT_NE(too_many.err.find("--max-active"), std::string::npos) << too_many.err;
  Admin({"org", "update", "01a202ea-0000-7000-8000-000000000000", "--max-active", "1"}, 1);

  // How the project's jobs publish: a pull request unless set, kept when not given.
  EXPECT_EQ(project["publish"], "pull_request");
  json pushes = json::parse(
      Admin({"project", "update", project["id"], "--org", org["id"], "--publish", "push", "--json"})
          .out);
  EXPECT_EQ(pushes["publish"], "push");
  json kept = json::parse(
      Admin({"project", "update", project["id"], "--org", org["id"], "--rate-limit", "8", "--json"})
          .out);
  EXPECT_EQ(kept["publish"], "push") << "what is not given stays";
  CommandResult bad_publish =
      Admin({"project", "update", project["id"], "--org", org["id"], "--publish", "yolo"}, 1);
  EXPECT_NE(bad_publish.err.find("--publish must be pull_request, push or automerge"),
            std::string::npos)
      << bad_publish.err;

  // Bad input: a clear message and a non-zero exit.
  CommandResult bad_forge =
      Admin({"project", "create", "--org", org["id"], "--repository", "r", "--forge", "svn"}, 1);
  EXPECT_NE(bad_forge.err.find("--forge"), std::string::npos);
  CommandResult no_org = Admin(
      {"project", "create", "--org", "01a202ea-0000-7000-8000-000000000000", "--repository", "r"},
      1);
  EXPECT_NE(no_org.err.find("organisation not found"), std::string::npos) << no_org.err;
  Admin({"project", "create", "--org", org["id"], "--repository", "r", "--rate-limit", "0"}, 1);
  Admin({"project", "create", "--org", org["id"], "--repository", "r", "--forge", "gitlab"}, 1);
  CommandResult not_a_repo =
      Admin({"project", "create", "--org", org["id"], "--repository", "https://github.com/initech",
             "--forge", "github", "--forge-token", "t"},
            1);
  EXPECT_NE(not_a_repo.err.find("owner/repository"), std::string::npos) << not_a_repo.err;
  for (const char* with_secret : {"https://bot:hunter2@git.example.com/initech/docs.git",
                                  "https://hunter2@git.example.com/initech/docs.git"}) {
    CommandResult password =
        Admin({"project", "create", "--org", org["id"], "--repository", with_secret}, 1);
    EXPECT_NE(password.err.find("--forge-token"), std::string::npos) << password.err;
    EXPECT_EQ(password.err.find("hunter2"), std::string::npos);
  }
  CommandResult newline = Admin(
      {"project", "create", "--org", org["id"], "--repository", "https://github.com/initech/docs",
       "--forge", "github", "--forge-token", "ghp_x\r\nX-Evil: 1"},
      1);
  EXPECT_NE(newline.err.find("control characters"), std::string::npos) << newline.err;
  CommandResult no_key =
      Admin({"project", "create", "--org", org["id"], "--repository",
             "ssh://git@git.example.com/docs.git", "--ssh-known-hosts", "/etc/hostname"},
            1);
  EXPECT_NE(no_key.err.find("--ssh-key"), std::string::npos) << no_key.err;
  CommandResult unreadable = Admin({"project", "create", "--org", org["id"], "--repository",
                                    "ssh://git@git.example.com/docs.git", "--ssh-key",
                                    dir_ / "no-such-key", "--ssh-known-hosts", "/etc/hostname"},
                                   1);
  EXPECT_NE(unreadable.err.find("cannot read"), std::string::npos) << unreadable.err;
  CommandResult no_workers =
      RunCommand(kScripted, {"worker", "--data-dir", dir_.path(), "--workers", "0"});
  EXPECT_EQ(no_workers.exit_code, 1);
  EXPECT_NE(no_workers.err.find("--workers"), std::string::npos);
  CommandResult threads =
      RunCommand(kScripted, {"serve", "--data-dir", dir_.path(), "--io-threads", "100000"});
  EXPECT_EQ(threads.exit_code, 1);
  EXPECT_NE(threads.err.find("--io-threads"), std::string::npos);
}

// `project create` and `update` reach the repository as a turn would, and refuse,
// saying what to do, what a turn would only fail on after the model was paid.
TEST_F(CliTest, ProjectsAreCheckedWhenMadeAndUpdated) {
  auto create = [&](std::vector<std::string> more, int expected_exit) {
    std::vector<std::string> args{"project", "create", "--org", org_a_, "--json"};
    args.insert(args.end(), more.begin(), more.end());
    return Admin(args, expected_exit);
  };
  auto refused = [&](std::vector<std::string> more, const std::string& why) {
    CommandResult r = create(std::move(more), 1);
    EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
  };
  const std::string missing = dir_ / "no-such.git";
  refused({"--repository", missing}, missing + " does not exist");
  std::filesystem::create_directories(dir_ / "plain-dir");
  refused({"--repository", dir_ / "plain-dir"}, "is not a git repository");
  const std::string work_tree = dir_ / "checkout";
  Sh(std::string(kGit) + " init -q " + work_tree);
  refused({"--repository", work_tree}, "is not a bare repository");
  refused({"--repository", work_tree}, "git clone --bare " + work_tree);
  refused({"--repository", remote_a_, "--ref", "trunk"}, "has no branch trunk");
  refused({"--repository", "nosuchscheme://x/y.git"}, "nosuchscheme");

  // A relative path is stored absolute; the base branch is the repository's HEAD.
  const std::string trunk = dir_ / "trunk.git";
  Sh("git -c init.defaultBranch=trunk init -q --bare " + trunk);
  Sh("git --git-dir=" + remote_a_ + " push -q " + trunk + " main:trunk main:other");
  std::string relative = std::filesystem::relative(trunk).string();
  ASSERT_NE(relative.front(), '/');
  json made = json::parse(create({"--repository", relative}, 0).out);
  EXPECT_EQ(made["repository"], trunk);
  EXPECT_EQ(made["ref"], "trunk");

  // An empty repository is allowed, and said to be.
  const std::string empty = dir_ / "empty.git";
  Sh("git -c init.defaultBranch=master init -q --bare " + empty);
  CommandResult empty_made = create({"--repository", empty}, 0);
  EXPECT_EQ(json::parse(empty_made.out)["ref"], "master");
  EXPECT_NE(empty_made.err.find("the repository is empty"), std::string::npos) << empty_made.err;

  // Over smart HTTP, a token the server refuses is refused here; never shown.
  std::filesystem::create_directories(dir_ / "served");
  Sh("git clone -q --bare " + remote_a_ + " " + (dir_ / "served/docs.git"));
  GitHttpServer http(dir_ / "served", "right-token");
  CommandResult bad_token =
      create({"--repository", http.Url("docs"), "--forge-token", "wrong-token"}, 1);
  EXPECT_NE(bad_token.err.find("refused the credentials"), std::string::npos) << bad_token.err;
  EXPECT_EQ(bad_token.err.find("wrong-token"), std::string::npos);
  EXPECT_EQ(
      json::parse(
          create({"--repository", http.Url("docs"), "--forge-token", "right-token"}, 0).out)["ref"],
      "main");

  // `update` takes every setting; a new repository or branch is checked the same.
  std::string id = made["id"];
  auto update = [&](std::vector<std::string> more, int expected_exit) {
    std::vector<std::string> args{"project", "update", id, "--org", org_a_, "--json"};
    args.insert(args.end(), more.begin(), more.end());
    return Admin(args, expected_exit);
  };
  EXPECT_NE(update({"--ref", "nope"}, 1).err.find("has no branch nope"), std::string::npos);
  EXPECT_NE(update({"--repository", missing}, 1).err.find("does not exist"), std::string::npos);
  EXPECT_EQ(json::parse(update({"--ref", "other"}, 0).out)["ref"], "other");
  json moved = json::parse(update({"--repository", remote_a_, "--ref", "main"}, 0).out);
  EXPECT_EQ(moved["repository"], remote_a_);
  EXPECT_EQ(moved["ref"], "main");
  EXPECT_EQ(json::parse(update({"--repository", missing, "--no-check"}, 0).out)["repository"],
            missing);

  // The docs site's folder: relative, inside the repository; "" finds it again.
  EXPECT_TRUE(json::parse(update({}, 0).out)["siteRoot"].is_null());
  EXPECT_EQ(json::parse(update({"--site-root", "docs/en/"}, 0).out)["siteRoot"], "docs/en");
  for (const char* outside : {"../elsewhere", "/docs", "docs/../..", "docs//en"}) {
    CommandResult r = update({"--site-root", outside}, 1);
    EXPECT_NE(r.err.find("--site-root must be a folder of the repository"), std::string::npos)
        << outside << ": " << r.err;
  }
  CommandResult shown = Admin({"project", "get", id, "--org", org_a_});
  EXPECT_NE(shown.out.find("site root      docs/en\n"), std::string::npos) << shown.out;
  EXPECT_TRUE(json::parse(update({"--site-root", ""}, 0).out)["siteRoot"].is_null());
  EXPECT_NE(Admin({"project", "get", id, "--org", org_a_}).out.find("(found by its configuration"),
            std::string::npos);
}

// An archived project takes no new job or follow-up, and keeps its history; a
// project is deleted only when none of its jobs is active.
TEST_F(CliTest, ProjectsAreArchivedAndDeleted) {
  std::string project =
      Admin({"project", "create", "--org", org_a_, "--repository", remote_a_}).LastLine();
  HttpResult made = Post(Jobs(project), Prompt("Fix it"), key_a_);
  ASSERT_EQ(made.status, 201);
  std::string done_job = made.Json()["id"];
  ASSERT_EQ(WaitForEnd(done_job, project)["status"], "completed");
  const std::string hold = dir_ / "hold";
  HttpResult running = Post(Jobs(project), Prompt("[await " + hold + "]"), key_a_);
  ASSERT_EQ(running.status, 201);
  std::string running_job = running.Json()["id"];

  json archived =
      json::parse(Admin({"project", "archive", project, "--org", org_a_, "--json"}).out);
  EXPECT_TRUE(archived["archivedAt"].is_string());
  HttpResult refused = Post(Jobs(project), Prompt("More"), key_a_);
  EXPECT_EQ(refused.status, 409);
  EXPECT_NE(refused.body.find("archived"), std::string::npos) << refused.body;
  EXPECT_EQ(Post(Job(project, done_job) + "/message", Prompt("More"), key_a_).status, 409);
  EXPECT_EQ(Get(Job(project, done_job), key_a_).status, 200) << "history is kept";
  EXPECT_NE(Admin({"project", "list", "--org", org_a_}).out.find(project + "  local"),
            std::string::npos);
  EXPECT_NE(Admin({"project", "list", "--org", org_a_}).out.find("archived"), std::string::npos);

  // The running turn finishes; until then the project cannot be deleted.
  CommandResult busy = Admin({"project", "delete", project, "--org", org_a_}, 1);
  EXPECT_NE(busy.err.find("active job"), std::string::npos) << busy.err;
  std::ofstream(hold) << "go";
  EXPECT_EQ(WaitForEnd(running_job, project)["status"], "completed");
  EXPECT_TRUE(std::filesystem::exists(dir_ / ("mirrors/" + project + ".git")));
  Admin({"project", "delete", project, "--org", org_a_});
  EXPECT_EQ(Get(Job(project, done_job), key_a_).status, 404);
  EXPECT_FALSE(std::filesystem::exists(dir_ / ("mirrors/" + project + ".git")));
  EXPECT_EQ(Admin({"project", "list", "--org", org_a_}).out.find(project), std::string::npos);
  Admin({"project", "delete", project, "--org", org_a_}, 1);
  // Another organisation's project is out of reach.
  Admin({"project", "archive", project_b_, "--org", org_a_}, 1);
  Admin({"project", "delete", project_b_, "--org", org_a_}, 1);
}

// The database and its backups hold a forge token sealed, never in the clear;
// the key that opens it is in its own owner-only file, which `secret-key`
// rotates and whose looser mode stops every command.
TEST_F(CliTest, ForgeTokensAreSealedInTheDatabaseAndItsBackups) {
  const std::string token = "ghp_CliSealedToken0123456789abcdef";
  const std::string key_file = dir_ / "secret.key";
  std::string project =
      Admin({"project", "create", "--org", org_a_, "--repository", "https://github.com/acme/docs",
             "--forge", "github", "--forge-token", token, "--no-check"})
          .LastLine();
  struct stat st {};
  ASSERT_EQ(::stat(key_file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);
  EXPECT_NE(
      Admin({"project", "list", "--org", org_a_, "--json"}).out.find("\"forgeTokenSet\":true"),
      std::string::npos);

  std::string copy = dir_ / "backups/sealed-copy.db";
  std::filesystem::create_directories(dir_ / "backups");
  Admin({"backup", "--to", copy});
  auto bytes = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  for (const std::string& file : {copy, dir_ / "docwright.db", dir_ / "docwright.db-wal"}) {
    EXPECT_EQ(bytes(file).find("CliSealedToken"), std::string::npos) << file;
  }
  EXPECT_NE(bytes(copy).find("dwenc:v1:"), std::string::npos) << "the copy holds it sealed";

  // Rotation: a new key first in the file, then every token sealed under it.
  std::string new_key = Admin({"secret-key", "add"}).LastLine();
  CommandResult rotated = Admin({"secret-key", "rotate"});
  EXPECT_NE(rotated.out.find("Sealed 1 secret again under key " + new_key), std::string::npos)
      << rotated.out;
  std::string database = bytes(dir_ / "docwright.db") + bytes(dir_ / "docwright.db-wal");
  EXPECT_NE(database.find("dwenc:v1:" + new_key + ":"), std::string::npos);
  EXPECT_NE(Admin({"secret-key", "rotate"}).out.find("Sealed 0 secrets"), std::string::npos);

  // A key file others may read stops every command that opens the database.
  ASSERT_EQ(::chmod(key_file.c_str(), 0640), 0);
  CommandResult refused = Admin({"project", "list", "--org", org_a_}, 1);
  EXPECT_NE(refused.err.find("chmod 600 " + key_file), std::string::npos) << refused.err;
  ASSERT_EQ(::chmod(key_file.c_str(), 0600), 0);
  Admin({"project", "delete", project, "--org", org_a_});
}

TEST_F(CliTest, BackupWritesAConsistentCopyWhileTheServiceWrites) {
  std::vector<std::string> before;
  for (int i = 0; i < 5; ++i) before.push_back(CreateJob("before the backup")["id"]);
  // Clients keep writing while the copy is taken.
  std::atomic<bool> stop{false};
  std::thread writer([&, port = server_->port()] {
    HttpClient http(port);
    Headers h = Auth(key_b_);
    h.emplace_back("Content-Type", "application/json");
    while (!stop) http.Send("POST", Jobs(project_b_), Prompt("during the backup"), h);
  });
  std::string copy = dir_ / "backups/docwright-copy.db";
  std::filesystem::create_directories(dir_ / "backups");
  CommandResult done = Admin({"backup", "--to", copy});
  stop = true;
  writer.join();
  EXPECT_NE(done.out.find("Wrote a copy"), std::string::npos) << done.out;
  struct stat st {};
  ASSERT_EQ(::stat(copy.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600) << "the copy holds secrets too";
  EXPECT_FALSE(std::filesystem::exists(copy + "-wal")) << "the copy is whole in one file";
  {
    auto restored = OpenSqliteStore(copy, testing::KeyFileSecrets(dir_ / "secret.key"));
    ASSERT_TRUE(restored.ok()) << restored.status().message();
    for (const std::string& id : before) {
      auto job = (*restored)->GetJob(Scope{org_a_, project_a_}, id);
      EXPECT_TRUE(job.ok()) << id;
    }
    EXPECT_TRUE((*restored)->FindActiveApiKey(HashApiKey(key_a_)).ok());
  }
  // A copy is never written over a file.
  CommandResult again = Admin({"backup", "--to", copy}, 1);
  EXPECT_NE(again.err.find("exists"), std::string::npos) << again.err;
  CommandResult nowhere = Admin({"backup", "--to", dir_ / "no-such-folder/copy.db"}, 1);
  EXPECT_NE(nowhere.err.find("cannot create"), std::string::npos) << nowhere.err;
}

// `project context` and `workflow` on the store, as an operator uses them: a
// context repository is reached before it is stored, a workflow goes through
// its whole life, and --json prints the API's shapes.
TEST_F(CliTest, ContextRepositoriesAndWorkflows) {
  auto ctx = [&](std::vector<std::string> args, int expected_exit = 0) {
    args.insert(args.begin(), {"project", "context"});
    args.insert(args.end(), {"--project", project_a_});
    return Admin(args, expected_exit);
  };
  auto wf = [&](std::vector<std::string> args, int expected_exit = 0) {
    args.insert(args.begin(), "workflow");
    args.insert(args.end(), {"--project", project_a_});
    return Admin(args, expected_exit);
  };
  EXPECT_EQ(ctx({"add", "--name", "sdk", "--repository", remote_b_}).LastLine(), "sdk");
  CommandResult unreachable =
      ctx({"add", "--name", "gone", "--repository", dir_ / "nothing.git"}, 1);
  EXPECT_NE(unreachable.err.find("error:"), std::string::npos) << unreachable.err;
  CommandResult no_branch =
      ctx({"add", "--name", "other", "--repository", remote_b_, "--branch", "nope"}, 1);
  EXPECT_NE(no_branch.err.find("nope"), std::string::npos) << no_branch.err;
  ctx({"add", "--name", "Bad Name", "--repository", remote_b_}, 1);
  json repos = json::parse(ctx({"list", "--json"}).out);
  ASSERT_EQ(repos["repositories"].size(), 1u) << repos;
  EXPECT_EQ(repos["repositories"][0]["name"], "sdk");
  EXPECT_TRUE(repos["repositories"][0]["branch"].is_null());
  EXPECT_NE(ctx({"list"}).out.find("sdk  " + remote_b_), std::string::npos);

  json made =
      json::parse(wf({"create", "--name", "weekly", "--prompt", "Check the links", "--cron",
                      "0 9 * * 1", "--time-zone", "Europe/Berlin", "--context", "sdk", "--json"})
                      .out);
  EXPECT_EQ(made["source"], "api");
  EXPECT_EQ(made["trigger"],
            json({{"kind", "schedule"}, {"cron", "0 9 * * 1"}, {"timeZone", "Europe/Berlin"}}));
  EXPECT_EQ(made["context"], json::array({"sdk"}));
  EXPECT_TRUE(made["nextRunAt"].is_string()) << made;
  wf({"create", "--name", "bad", "--prompt", "p", "--cron", "61 * * * *"}, 1);
  wf({"create", "--name", "bad", "--prompt", "p"}, 1);  // no trigger
  wf({"create", "--name", "bad", "--prompt", "p", "--manual", "--on-push"}, 1);
  wf({"create", "--name", "weekly", "--prompt", "p", "--manual"}, 1);  // taken

  std::string table = wf({"list"}).out;
  EXPECT_NE(table.find("weekly  api  cron 0 9 * * 1 Europe/Berlin  enabled  "), std::string::npos)
      << table;
  json listed = json::parse(wf({"list", "--json"}).out);
  ASSERT_EQ(listed["workflows"].size(), 1u) << listed;
  EXPECT_EQ(listed["workflows"][0]["id"], made["id"]);
  EXPECT_EQ(json::parse(wf({"get", "--name", "weekly", "--json"}).out), listed["workflows"][0]);
  // The API answers the same shape.
  EXPECT_EQ(Get("/v2/agent/" + project_a_ + "/workflows", key_a_).Json(), listed);

  json updated = json::parse(
      wf({"update", "--name", "weekly", "--on-merge", "sdk", "--branch", "main", "--json"}).out);
  EXPECT_EQ(updated["trigger"],
            json({{"kind", "merge"}, {"repository", "sdk"}, {"branch", "main"}}));
  EXPECT_EQ(updated["prompt"], "Check the links") << "what no flag names is kept";
  EXPECT_TRUE(updated["nextRunAt"].is_null());
  wf({"update", "--name", "weekly", "--time-zone", "UTC"}, 1);  // not a schedule now
  wf({"disable", "--name", "weekly"});
  EXPECT_EQ(json::parse(wf({"get", "--name", "weekly", "--json"}).out)["enabled"], false);
  wf({"enable", "--name", "weekly"});
  EXPECT_EQ(json::parse(wf({"get", "--name", "weekly", "--json"}).out)["enabled"], true);

  std::string id = wf({"run", "--name", "weekly"}).LastLine();
  json job = WaitForEnd(id);
  EXPECT_EQ(job["trigger"], json({{"kind", "manual"}, {"workflow", "weekly"}}));
  EXPECT_EQ(job["workflowId"], made["id"]);
  std::string after = wf({"list"}).out;
  EXPECT_NE(after.find("started " + id), std::string::npos) << after;

  ctx({"remove", "--name", "sdk"}, 1);  // the workflow names it
  wf({"delete", "--name", "weekly"});
  wf({"get", "--name", "weekly"}, 1);
  ctx({"remove", "--name", "sdk"});
  EXPECT_EQ(json::parse(ctx({"list", "--json"}).out)["repositories"], json::array());
}

}  // namespace
}  // namespace docwright::testing
