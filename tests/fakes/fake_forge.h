// Stateful fakes of the hosted forges' pull request APIs on loopback: GitHub
// (REST v3), GitLab (merge requests, API v4) and Gitea (API v1). Each checks every
// request the way the forge's API documents it (path, query, headers, JSON fields
// and their types) and records what does not conform as a violation; tests
// expect none. Pull requests live in memory.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/loopback_http_server.h"

namespace docwright::testing {

struct FakePull {
  int64_t number = 0;
  std::string head, base, title, body;
  bool open = true;
  bool draft = false;      // GitHub's flag; the others mark drafts in the title
  bool from_fork = false;  // its head branch is in a fork of the repository
  // Merging: refused while not mergeable (conflicts, required checks), and
  // when `head_sha` is set and the merge names another head. A merge closes it
  // and sets `merged` and `merge_commit` (a made-up commit id).
  bool mergeable = true;
  std::string head_sha;
  bool merged = false;
  std::string merge_commit;
};

// A comment the fake stored (Forge::Comment): on pull request `number`, as a
// reply in review comment `in_reply_to`'s thread when that is set (GitHub).
struct FakeComment {
  int64_t number = 0;
  std::string body;
  std::optional<std::string> in_reply_to;
};

class FakeForge {
 public:
  enum class Kind { kGithub, kGitlab, kGitea };

  // Serves repository "acme/docs"; requests must carry `token` as the forge
  // expects it.
  FakeForge(Kind kind, std::string token);
  ~FakeForge();

  // The API base URL (what --forge-api-url would be).
  std::string ApiUrl() const;
  uint16_t port() const;

  std::vector<FakePull> Pulls() const;
  // The web page of pull request `number`, as the forge's replies give it.
  std::string WebUrl(int64_t number) const;
  void AddPull(FakePull pull);                            // numbered by the fake
  void SetBase(int64_t number, const std::string& base);  // as a reviewer retargets it
  // Changes pull request `number` as people on the forge would (closing or
  // merging it, pushing to its head, making it unmergeable).
  void Change(int64_t number, const std::function<void(FakePull&)>& edit);
  // What account `login` may do in the repository, as the forge names it:
  // GitHub "admin", "maintain", "write", "triage", "read" or "none"; Gitea
  // "owner", "admin", "write", "read" or "none"; GitLab the member's
  // access_level ("30") or "none" for an account that is no member. An account
  // never set is one the forge does not know (404).
  void SetPermission(const std::string& login, const std::string& permission);
  // The comments posted on pull requests, in order (the pull request must exist).
  std::vector<FakeComment> Comments() const;
  std::vector<std::string> Violations() const;
  std::vector<LoopbackRequest> Requests() const;
  // Answers the next `count` requests with `response` instead of serving them.
  void FailNext(int count, LoopbackResponse response);
  // Serves the next create as a forge does when another request created the
  // same pull request a moment before: it is stored, and the reply is the
  // forge's "already exists" error.
  void RaceNextCreate();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace docwright::testing
