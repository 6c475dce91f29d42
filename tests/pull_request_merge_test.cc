// The local forge's merge, black-box: the real binary with the scripted agent
// on a bare repository, spoken to over HTTP. A key of the pull request's
// organisation merges it (the base branch moves on the repository, checked with
// git), another organisation's key finds nothing, conflicts and impossible
// fast-forwards are refused with the base unchanged, and the page says Merged.
// The page's own rules: no inline script or style, the dashboard's policy,
// escaped content.
#include <gtest/gtest.h>

#include <regex>

#include "support/service_fixture.h"

namespace docwright::testing {
namespace {

using PullRequestMergeTest = ServiceTest;

constexpr const char* kPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'";

std::string Git(const std::string& repo) { return "git --git-dir=" + repo + " "; }

TEST_F(PullRequestMergeTest, AKeyOfTheOrganisationMergesAndTheBaseMoves) {
  json done = WaitForEnd(CreateJob("Fix the typo in the quickstart")["id"]);
  ASSERT_EQ(done["status"], "completed") << done;
  const std::string page = PathOf(done["prLink"]);
  const std::string merge = page + "/merge";
  const std::string branch = done["source"]["ref"];
  const std::string main_before = Sh(Git(remote_a_) + "rev-parse main");
  const std::string head = Sh(Git(remote_a_) + "rev-parse " + branch);

  HttpResult open = client_->Send("GET", page);
  ASSERT_EQ(open.status, 200);
  EXPECT_NE(open.body.find("data-test=\"pr-state\">Open</span>"), std::string::npos) << open.body;
  EXPECT_EQ(open.body.find("data-test=\"merge-button\""), std::string::npos)
      << "no session: no button";
  EXPECT_NE(open.body.find("sign in to the dashboard"), std::string::npos);

  ExpectError(client_->Send("POST", merge, "{}", {{"Content-Type", "application/json"}}), 401,
              "no key");
  ExpectError(Post(merge, R"({"method": "merge"})", key_b_), 404, "another organisation's key");
  ExpectError(Post(merge, R"({"method": "squash"})", key_a_), 400, "an unknown method");
  ExpectError(Post(merge, "method=merge", key_a_, "application/x-www-form-urlencoded"), 415,
              "a form");
  std::string neighbour = page.substr(0, page.size() - 1) + (page.back() == 'a' ? "b" : "a");
  ExpectError(Post(neighbour + "/merge", "{}", key_a_), 404, "an unknown pull request");
  EXPECT_EQ(Sh(Git(remote_a_) + "rev-parse main"), main_before) << "nothing refused moved main";

  HttpResult merged = Post(merge, R"({"method": "merge"})", key_a_);
  ASSERT_EQ(merged.status, 200) << merged.body;
  json body = merged.Json();
  EXPECT_EQ(body["state"], "merged");
  EXPECT_TRUE(body["mergedAt"].is_string());
  const std::string main_after = Sh(Git(remote_a_) + "rev-parse main");
  EXPECT_EQ(body["mergeCommit"], main_after);
  EXPECT_EQ(Sh(Git(remote_a_) + "rev-parse main^1"), main_before);
  EXPECT_EQ(Sh(Git(remote_a_) + "rev-parse main^2"), head);
  EXPECT_EQ(Sh(Git(remote_a_) + "log -1 --format=%s main"),
            "Merge branch '" + branch + "' into 'main'");
  EXPECT_EQ(ShowFile(remote_a_, "main:notes/" + done["id"].get<std::string>() + "-1.md"),
            "Fix the typo in the quickstart");

  ExpectError(Post(merge, "", key_a_, ""), 409, "merged twice");
  EXPECT_EQ(Sh(Git(remote_a_) + "rev-parse main"), main_after);

  HttpResult shown = client_->Send("GET", page);
  ASSERT_EQ(shown.status, 200);
  EXPECT_NE(shown.body.find("data-test=\"pr-state\">Merged</span>"), std::string::npos)
      << shown.body;
  EXPECT_NE(shown.body.find(main_after.substr(0, 12)), std::string::npos);
  EXPECT_EQ(shown.body.find("sign in to the dashboard"), std::string::npos)
      << "a merged pull request offers no merge";
}

// A key limited to other projects of the organisation cannot merge, even with
// the link; a merge names the branch commit it read, and a branch that moved
// since is not merged.
TEST_F(PullRequestMergeTest, OnlyAKeyOfTheProjectMergesAndOnlyTheCommitItRead) {
  json done = WaitForEnd(CreateJob("Fix the typo in the quickstart")["id"]);
  ASSERT_EQ(done["status"], "completed") << done;
  const std::string merge = PathOf(done["prLink"]) + "/merge";
  const std::string branch = done["source"]["ref"];
  const std::string main_before = Sh(Git(remote_a_) + "rev-parse main");
  const std::string head = Sh(Git(remote_a_) + "rev-parse " + branch);

  std::string other =
      Admin({"project", "create", "--org", org_a_, "--repository", remote_a_, "--no-check"}).out;
  other = other.substr(0, other.find_last_not_of("\n") + 1);
  other = other.substr(other.find_last_of('\n') + 1);
  for (const char* role : {"member", "admin"}) {
    std::string limited =
        Admin({"key", "create", "--org", org_a_, "--role", role, "--project", other}).out;
    limited = limited.substr(0, limited.find_last_not_of("\n") + 1);
    limited = limited.substr(limited.find_last_of('\n') + 1);
    ExpectError(Post(merge, R"({"method": "merge"})", limited), 404,
                std::string("a ") + role + " key limited to another project");
  }

  ExpectError(Post(merge, R"({"headCommit": "not-a-commit"})", key_a_), 400, "a malformed head");
  const std::string elsewhere(40, 'a');
  HttpResult moved = Post(merge, R"({"headCommit": ")" + elsewhere + R"("})", key_a_);
  ExpectError(moved, 409, "a head other than the branch's");
  EXPECT_NE(moved.body.find("review it again"), std::string::npos) << moved.body;
  EXPECT_EQ(Sh(Git(remote_a_) + "rev-parse main"), main_before) << "nothing refused moved main";

  HttpResult merged =
      Post(merge, R"({"method": "merge", "headCommit": ")" + head + R"("})", key_a_);
  ASSERT_EQ(merged.status, 200) << merged.body;
  EXPECT_EQ(Sh(Git(remote_a_) + "rev-parse main^2"), head);
}

TEST_F(PullRequestMergeTest, ImpossibleFastForwardsAndConflictsAreRefusedWithTheBaseUnchanged) {
  json first = WaitForEnd(CreateJob("First change")["id"]);
  json second = WaitForEnd(CreateJob("Second change")["id"]);
  ASSERT_EQ(first["status"], "completed") << first;
  ASSERT_EQ(second["status"], "completed") << second;
  // Both branches start from main: the first fast-forwards it...
  HttpResult ff = Post(PathOf(first["prLink"]) + "/merge", R"({"method": "fast-forward"})", key_a_);
  ASSERT_EQ(ff.status, 200) << ff.body;
  EXPECT_EQ(ff.Json()["mergeCommit"],
            Sh(Git(remote_a_) + "rev-parse " + first["source"]["ref"].get<std::string>()));
  EXPECT_EQ(Sh(Git(remote_a_) + "rev-parse main"), ff.Json()["mergeCommit"]);

  // ...and the second no longer can.
  const std::string main_before = Sh(Git(remote_a_) + "rev-parse main");
  const std::string second_merge = PathOf(second["prLink"]) + "/merge";
  HttpResult refused = Post(second_merge, R"({"method": "fast-forward"})", key_a_);
  ExpectError(refused, 409, "a fast-forward that is not possible");
  EXPECT_EQ(refused.Json()["code"], "conflict");
  EXPECT_NE(refused.Json()["error"].get<std::string>().find("cannot fast-forward"),
            std::string::npos)
      << refused.body;
  EXPECT_EQ(Sh(Git(remote_a_) + "rev-parse main"), main_before);

  // A person puts another file at the second branch's path on main: the merge
  // conflicts, and says where.
  const std::string path = "notes/" + second["id"].get<std::string>() + "-1.md";
  const std::string work = dir_ / "person";
  Sh(std::string(kGit) + " clone -q " + remote_a_ + " " + work);
  Sh("mkdir -p " + work + "/notes && echo 'mine' > " + work + "/" + path);
  Sh("cd " + work + " && " + kGit + " add -A && " + kGit + " commit -qm mine && " + kGit +
     " push -q origin HEAD:main");
  const std::string person = Sh(Git(remote_a_) + "rev-parse main");
  HttpResult conflict = Post(second_merge, R"({"method": "merge"})", key_a_);
  ExpectError(conflict, 409, "a conflict");
  EXPECT_EQ(conflict.Json()["code"], "conflict");
  EXPECT_NE(conflict.Json()["error"].get<std::string>().find(path), std::string::npos)
      << conflict.body;
  EXPECT_EQ(Sh(Git(remote_a_) + "rev-parse main"), person) << "the base is unchanged";
  HttpResult still = client_->Send("GET", PathOf(second["prLink"]));
  EXPECT_NE(still.body.find("data-test=\"pr-state\">Open</span>"), std::string::npos);
}

TEST_F(PullRequestMergeTest, ThePageHasNoInlineScriptOrStyleAndEscapesItsContent) {
  json done = WaitForEnd(CreateJob("Say <script>alert(1)</script> & more")["id"]);
  ASSERT_EQ(done["status"], "completed") << done;
  HttpResult page = client_->Send("GET", PathOf(done["prLink"]));
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(page.Header("content-security-policy"), kPolicy);
  EXPECT_EQ(page.Header("x-content-type-options"), "nosniff");
  EXPECT_EQ(page.Header("content-type"), "text/html; charset=utf-8");
  const std::string& html = page.body;
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt; &amp; more"), std::string::npos)
      << html;
  EXPECT_EQ(html.find("<script>"), std::string::npos) << "the title is escaped";
  // Every script is an external module of the dashboard's; no style element or
  // attribute, no event handler attribute.
  std::regex script("<script[^>]*>");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), script);
       it != std::sregex_iterator(); ++it) {
    EXPECT_TRUE(std::regex_search(it->str(), std::regex(R"( src="/ui/[a-z_]+\.js")"))) << it->str();
  }
  EXPECT_NE(html.find("<script type=\"module\" src=\"/ui/time.js\"></script>"), std::string::npos);
  EXPECT_NE(html.find("<link rel=\"stylesheet\" href=\"/ui/style.css\">"), std::string::npos);
  EXPECT_EQ(html.find("<style"), std::string::npos);
  EXPECT_FALSE(std::regex_search(html, std::regex(R"(<[^>]+\sstyle=)"))) << html;
  EXPECT_FALSE(std::regex_search(html, std::regex(R"(<[^>]+\son[a-z]+=)", std::regex::icase)));
  // Times for /ui/time.js to make local; diff rows with nothing between them.
  EXPECT_TRUE(std::regex_search(
      html, std::regex(R"(<time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z">)")))
      << html;
  EXPECT_NE(html.find("<div class=\"diff\" data-test=\"pr-diff\"><div class=\"file\">diff --git "),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("</div><div class=\"hunk\">@@ "), std::string::npos) << html;
  EXPECT_EQ(html.find("</div>\n<div class=\"add\">"), std::string::npos);
}

}  // namespace
}  // namespace docwright::testing
