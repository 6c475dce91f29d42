// The forges' webhook payloads (api/forge_payloads.h) as GitHub, GitLab and
// Gitea send them (trimmed to the fields that matter, in their shapes), and
// the signatures that prove a delivery (api/hook_signature.h).
#include "api/forge_payloads.h"

#include <gtest/gtest.h>

#include "api/hook_signature.h"
#include "core/text.h"

namespace docwright {
namespace {

using Outcome = ParsedForgeHook::Outcome;

const std::string kBefore = "6113728f27ae82c7b1a177c8d03f9e96e0adf246";
const std::string kAfter = "0000000000000000000000000000000000000000";

constexpr const char* kGithubRepo = R"("repository": {
  "full_name": "acme/docs",
  "html_url": "https://github.com/acme/docs",
  "git_url": "git://github.com/acme/docs.git",
  "ssh_url": "git@github.com:acme/docs.git",
  "clone_url": "https://github.com/acme/docs.git"},
  "sender": {"login": "octocat", "id": 1})";

std::string GithubPush(const std::string& ref) {
  return R"({"ref": ")" + ref + R"(", "before": ")" + kBefore +
         R"(", "after": "76ae82fb2d9a7c46fa7cbe0a0b4b5c3bd7b3f5e1", "created": false,
    "deleted": false, "pusher": {"name": "octocat", "email": "o@example.com"}, )" +
         kGithubRepo + "}";
}

ParsedForgeHook Parse(ForgeKind forge, std::string_view name, const std::string& body,
                      std::string_view delivery = "72d3162e-cc78-11e3-81ab-4c9367dc0958") {
  return ParseForgeHook(forge, name, delivery, body);
}

TEST(ForgePayloadsTest, AGithubPushToABranchKeepsItsHeadsAndRepository) {
  auto p = Parse(ForgeKind::kGithub, "push", GithubPush("refs/heads/main"));
  ASSERT_EQ(p.outcome, Outcome::kEvent) << p.reason;
  const ForgeEvent& e = p.event;
  EXPECT_EQ(e.kind, ForgeEventKind::kPush);
  EXPECT_EQ(e.forge, ForgeKind::kGithub);
  EXPECT_EQ(e.delivery_id, "72d3162e-cc78-11e3-81ab-4c9367dc0958");
  EXPECT_EQ(e.branch, "main");
  EXPECT_EQ(e.before, kBefore);
  EXPECT_EQ(e.after, "76ae82fb2d9a7c46fa7cbe0a0b4b5c3bd7b3f5e1");
  EXPECT_EQ(e.sender, "octocat");
  EXPECT_EQ(
      e.repository_urls,
      (std::vector<std::string>{"https://github.com/acme/docs.git", "git@github.com:acme/docs.git",
                                "https://github.com/acme/docs", "git://github.com/acme/docs.git"}));
}

TEST(ForgePayloadsTest, TagPushesAndDeletedBranchesAreIgnored) {
  auto tag = Parse(ForgeKind::kGithub, "push", GithubPush("refs/tags/v1.2.0"));
  EXPECT_EQ(tag.outcome, Outcome::kIgnored);
  EXPECT_EQ(tag.reason, "a tag push");
  std::string deleted = GithubPush("refs/heads/old");
  deleted.replace(deleted.find("76ae82fb"), 40, kAfter);
  EXPECT_EQ(Parse(ForgeKind::kGithub, "push", deleted).outcome, Outcome::kIgnored);
  EXPECT_EQ(Parse(ForgeKind::kGitlab, "Tag Push Hook", "{}").outcome, Outcome::kIgnored);
}

std::string GithubIssueComment(const std::string& action, bool on_pull_request,
                               const std::string& body = "@docwright please add an example") {
  std::string pr =
      on_pull_request
          ? R"(, "pull_request": {"url": "https://api.github.com/repos/acme/docs/pulls/7",
             "html_url": "https://github.com/acme/docs/pull/7"})"
          : "";
  return R"({"action": ")" + action + R"(", "issue": {"number": 7,
      "html_url": "https://github.com/acme/docs/issues/7")" +
         pr + R"(}, "comment": {"id": 1362, "body": )" + "\"" + body + "\"" +
         R"(, "html_url": "https://github.com/acme/docs/pull/7#issuecomment-1362",
      "user": {"login": "maria"}}, )" +
         kGithubRepo + "}";
}

TEST(ForgePayloadsTest, AGithubCommentCountsOnlyOnAPullRequest) {
  auto on_issue = Parse(ForgeKind::kGithub, "issue_comment", GithubIssueComment("created", false));
  EXPECT_EQ(on_issue.outcome, Outcome::kIgnored);
  EXPECT_NE(on_issue.reason.find("issue"), std::string::npos) << on_issue.reason;

  auto on_pr = Parse(ForgeKind::kGithub, "issue_comment", GithubIssueComment("created", true));
  ASSERT_EQ(on_pr.outcome, Outcome::kEvent) << on_pr.reason;
  const ForgeEvent& e = on_pr.event;
  EXPECT_EQ(e.kind, ForgeEventKind::kComment);
  EXPECT_EQ(e.comment_kind, "comment");
  EXPECT_EQ(e.pr_number, 7);
  EXPECT_EQ(e.pr_url, "https://github.com/acme/docs/pull/7");
  EXPECT_EQ(e.comment_id, "1362");
  EXPECT_EQ(e.comment_body, "@docwright please add an example");
  EXPECT_TRUE(e.comment_created);
  EXPECT_EQ(e.sender, "octocat");

  auto edited = Parse(ForgeKind::kGithub, "issue_comment", GithubIssueComment("edited", true));
  ASSERT_EQ(edited.outcome, Outcome::kEvent);
  EXPECT_FALSE(edited.event.comment_created) << "an edit starts nothing";
}

TEST(ForgePayloadsTest, AnOversizedCommentIsCutToValidUtf8) {
  std::string big;
  while (big.size() < kMaxForgeCommentBytes + 100) big += "\xc3\xa9";  // é
  big = "a" + big;  // so a cut at the limit falls inside a character
  auto p = Parse(ForgeKind::kGithub, "issue_comment", GithubIssueComment("created", true, big));
  ASSERT_EQ(p.outcome, Outcome::kEvent) << p.reason;
  EXPECT_LE(p.event.comment_body.size(), kMaxForgeCommentBytes);
  EXPECT_GE(p.event.comment_body.size(), kMaxForgeCommentBytes - 4);
  EXPECT_TRUE(Utf8Length(p.event.comment_body).has_value());
}

TEST(ForgePayloadsTest, AGithubPullRequestClosedByAMergeSaysSo) {
  std::string body = R"({"action": "closed", "number": 12, "pull_request": {"number": 12,
      "html_url": "https://github.com/acme/docs/pull/12", "state": "closed", "merged": true,
      "head": {"ref": "docwright/fix-typo", "sha": "abc"}, "base": {"ref": "main"}}, )" +
                     std::string(kGithubRepo) + "}";
  auto p = Parse(ForgeKind::kGithub, "pull_request", body);
  ASSERT_EQ(p.outcome, Outcome::kEvent) << p.reason;
  EXPECT_EQ(p.event.kind, ForgeEventKind::kPullRequest);
  EXPECT_EQ(p.event.pr_action, "closed");
  EXPECT_TRUE(p.event.pr_merged);
  EXPECT_EQ(p.event.pr_number, 12);
  EXPECT_EQ(p.event.pr_head, "docwright/fix-typo");
  EXPECT_EQ(p.event.pr_base, "main");
}

TEST(ForgePayloadsTest, GithubReviewsAndReviewCommentsOnALine) {
  const std::string pr =
      R"("pull_request": {"number": 3, "html_url": "https://github.com/acme/docs/pull/3",
      "head": {"ref": "docwright/x"}, "base": {"ref": "main"}}, )";
  auto review = Parse(ForgeKind::kGithub, "pull_request_review",
                      R"({"action": "submitted", "review": {"id": 80, "body": "Needs work",
      "state": "changes_requested", "html_url": "https://github.com/acme/docs/pull/3#pullrequestreview-80",
      "user": {"login": "maria"}}, )" +
                          pr + kGithubRepo + "}");
  ASSERT_EQ(review.outcome, Outcome::kEvent) << review.reason;
  EXPECT_EQ(review.event.comment_kind, "review");
  EXPECT_EQ(review.event.review_state, "changes_requested");
  EXPECT_EQ(review.event.comment_id, "80");
  EXPECT_EQ(review.event.pr_head, "docwright/x");
  EXPECT_TRUE(review.event.comment_created);

  auto line = Parse(ForgeKind::kGithub, "pull_request_review_comment",
                    R"({"action": "created", "comment": {"id": 2001, "body": "@docwright reword",
      "path": "docs/intro.md", "line": null, "original_line": 14,
      "html_url": "https://github.com/acme/docs/pull/3#discussion_r2001"}, )" +
                        pr + kGithubRepo + "}");
  ASSERT_EQ(line.outcome, Outcome::kEvent) << line.reason;
  EXPECT_EQ(line.event.comment_kind, "review_comment");
  EXPECT_EQ(line.event.comment_path, "docs/intro.md");
  EXPECT_EQ(line.event.comment_line, 14);
  EXPECT_EQ(line.event.pr_number, 3);
}

constexpr const char* kGitlabProject = R"("project": {"id": 15, "name": "docs",
    "web_url": "https://gitlab.example.com/acme/docs",
    "git_ssh_url": "git@gitlab.example.com:acme/docs.git",
    "git_http_url": "https://gitlab.example.com/acme/docs.git",
    "path_with_namespace": "acme/docs"})";

TEST(ForgePayloadsTest, GitlabPushesMergeRequestsAndNotes) {
  auto push = Parse(ForgeKind::kGitlab, "Push Hook",
                    R"({"object_kind": "push", "before": ")" + kBefore +
                        R"(", "after": "da1560886d4f094c3e6c9ef40349f7d38b5d27d7",
      "ref": "refs/heads/main", "user_username": "jsmith", )" +
                        kGitlabProject + "}",
                    "");
  ASSERT_EQ(push.outcome, Outcome::kEvent) << push.reason;
  EXPECT_EQ(push.event.branch, "main");
  EXPECT_EQ(push.event.sender, "jsmith");
  EXPECT_EQ(push.event.repository_urls.front(), "https://gitlab.example.com/acme/docs.git");
  EXPECT_TRUE(push.event.delivery_id.starts_with("sha256:")) << "no delivery id: the body's hash";

  auto merged = Parse(ForgeKind::kGitlab, "Merge Request Hook",
                      R"({"object_kind": "merge_request", "user": {"username": "jsmith"},
      "object_attributes": {"iid": 4, "url": "https://gitlab.example.com/acme/docs/-/merge_requests/4",
      "source_branch": "docwright/fix", "target_branch": "main", "state": "merged",
      "action": "merge"}, )" +
                          std::string(kGitlabProject) + "}");
  ASSERT_EQ(merged.outcome, Outcome::kEvent) << merged.reason;
  EXPECT_EQ(merged.event.kind, ForgeEventKind::kPullRequest);
  EXPECT_EQ(merged.event.pr_action, "closed");
  EXPECT_TRUE(merged.event.pr_merged);
  EXPECT_EQ(merged.event.pr_head, "docwright/fix");

  const std::string mr =
      R"("merge_request": {"iid": 4, "url": "https://gitlab.example.com/acme/docs/-/merge_requests/4",
      "source_branch": "docwright/fix", "target_branch": "main"}, )";
  auto note = Parse(ForgeKind::kGitlab, "Note Hook",
                    R"({"object_kind": "note", "user": {"username": "jsmith"},
      "object_attributes": {"id": 1244, "note": "@docwright shorten this", "noteable_type": "MergeRequest",
      "type": "DiffNote", "action": "create", "url": "https://gitlab.example.com/acme/docs/-/merge_requests/4#note_1244",
      "position": {"new_path": "docs/setup.md", "new_line": 9}}, )" +
                        mr + kGitlabProject + "}");
  ASSERT_EQ(note.outcome, Outcome::kEvent) << note.reason;
  EXPECT_EQ(note.event.kind, ForgeEventKind::kComment);
  EXPECT_EQ(note.event.comment_kind, "review_comment");
  EXPECT_EQ(note.event.comment_path, "docs/setup.md");
  EXPECT_EQ(note.event.comment_line, 9);
  EXPECT_EQ(note.event.pr_number, 4);
  EXPECT_TRUE(note.event.comment_created);

  auto on_issue = Parse(ForgeKind::kGitlab, "Note Hook",
                        R"({"object_kind": "note", "object_attributes": {"id": 1, "note": "hi",
      "noteable_type": "Issue"}, )" +
                            std::string(kGitlabProject) + "}");
  EXPECT_EQ(on_issue.outcome, Outcome::kIgnored);
}

TEST(ForgePayloadsTest, GiteaPushesCommentsAndReviews) {
  const std::string repo = R"("repository": {"full_name": "acme/docs",
      "html_url": "https://gitea.example.com/acme/docs",
      "clone_url": "https://gitea.example.com/acme/docs.git",
      "ssh_url": "git@gitea.example.com:acme/docs.git"},
      "sender": {"login": "gitea", "username": "gitea"})";
  auto push = Parse(ForgeKind::kGitea, "push",
                    R"({"ref": "refs/heads/develop", "before": ")" + kBefore +
                        R"(", "after": "bffeb74224043ba2feb48d137756c8a9331c449a", )" + repo + "}");
  ASSERT_EQ(push.outcome, Outcome::kEvent) << push.reason;
  EXPECT_EQ(push.event.branch, "develop");
  EXPECT_EQ(push.event.repository_urls.size(), 3u);

  auto comment = Parse(ForgeKind::kGitea, "issue_comment",
                       R"({"action": "created", "is_pull": true, "issue": {"number": 5,
      "html_url": "https://gitea.example.com/acme/docs/pulls/5", "pull_request": {"merged": false}},
      "comment": {"id": 77, "body": "@docwright hi", "html_url": "https://gitea.example.com/acme/docs/pulls/5#issuecomment-77"}, )" +
                           repo + "}");
  ASSERT_EQ(comment.outcome, Outcome::kEvent) << comment.reason;
  EXPECT_EQ(comment.event.pr_number, 5);
  EXPECT_EQ(comment.event.comment_id, "77");

  auto rejected = Parse(ForgeKind::kGitea, "pull_request_rejected",
                        R"({"action": "reviewed", "number": 5, "pull_request": {"number": 5,
      "html_url": "https://gitea.example.com/acme/docs/pulls/5", "head": {"ref": "docwright/a"},
      "base": {"ref": "main"}}, "review": {"type": "pull_request_review_rejected",
      "content": "Not like this"}, )" +
                            repo + "}");
  ASSERT_EQ(rejected.outcome, Outcome::kEvent) << rejected.reason;
  EXPECT_EQ(rejected.event.comment_kind, "review");
  EXPECT_EQ(rejected.event.review_state, "changes_requested");
  EXPECT_EQ(rejected.event.comment_body, "Not like this");
  EXPECT_FALSE(rejected.event.comment_id.empty());
}

TEST(ForgePayloadsTest, PingsOtherEventsAndBadBodies) {
  EXPECT_EQ(Parse(ForgeKind::kGithub, "ping", R"({"zen": "Keep it simple."})").outcome,
            Outcome::kPing);
  EXPECT_EQ(Parse(ForgeKind::kGithub, "star", "{}").outcome, Outcome::kIgnored);
  EXPECT_EQ(Parse(ForgeKind::kGithub, "push", "[1, 2]").outcome, Outcome::kInvalid);
  EXPECT_EQ(Parse(ForgeKind::kGithub, "push", "{not json").outcome, Outcome::kInvalid);
  // Values of the wrong type count as absent.
  auto odd = Parse(ForgeKind::kGithub, "push",
                   R"({"ref": 5, "before": [], "after": {}, "repository": "x"})");
  EXPECT_EQ(odd.outcome, Outcome::kIgnored);
  // A delivery id with a control character is not kept as given.
  auto push = Parse(ForgeKind::kGithub, "push", GithubPush("refs/heads/main"), "a\nb");
  ASSERT_EQ(push.outcome, Outcome::kEvent);
  EXPECT_TRUE(push.event.delivery_id.starts_with("sha256:"));
}

TEST(HookSignatureTest, HmacSha256AsRfc4231AndEachForgesForm) {
  // RFC 4231, test case 2.
  EXPECT_EQ(HmacSha256Hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  const std::string secret = "s3cret", body = R"({"zen": "x"})";
  const std::string hex = HmacSha256Hex(secret, body);
  EXPECT_TRUE(HubSignatureValid(secret, "sha256=" + hex, body));
  EXPECT_TRUE(HubSignatureValid(secret, "SHA256=" + Lower(hex), body));
  EXPECT_FALSE(HubSignatureValid(secret, hex, body)) << "GitHub's form has its prefix";
  EXPECT_FALSE(HubSignatureValid(secret, "sha256=" + hex, body + " "));
  EXPECT_FALSE(HubSignatureValid("other", "sha256=" + hex, body));
  EXPECT_FALSE(HubSignatureValid(secret, "", body));
  EXPECT_TRUE(HexSignatureValid(secret, hex, body));
  EXPECT_FALSE(HexSignatureValid(secret, hex.substr(1), body));
  EXPECT_FALSE(HexSignatureValid("", HmacSha256Hex("", body), body)) << "no secret, no match";
  EXPECT_TRUE(TokenValid(secret, secret));
  EXPECT_FALSE(TokenValid(secret, "s3cre"));
  EXPECT_FALSE(TokenValid("", ""));
  std::string made = NewHookSecret();
  EXPECT_EQ(made.size(), 40u);
  EXPECT_NE(made, NewHookSecret());
}

}  // namespace
}  // namespace docwright
