// Docs sites in real repositories for the docs tests: files committed with the
// git command line to a bare repository, read through a mirror, a snapshot and a
// workspace, and edited in the workspace as the agent would.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "docs/docs.h"
#include "git/git.h"
#include "support/git_repo.h"
#include "support/temp_dir.h"

namespace docwright::testing {

using Files = std::map<std::string, std::string>;

class DocsSiteTest : public ::testing::Test {
 protected:
  // Commits `files` to the main branch of a new bare repository and opens a
  // workspace over it, as a job would.
  git::Workspace& Open(const Files& files) {
    std::string bare = dir_ / "remote.git";
    std::string seed = dir_ / "seed";
    Sh(std::string(kGit) + " init -q --bare " + bare);
    Sh(std::string(kGit) + " init -q " + seed);
    for (const auto& [path, content] : files) {
      std::filesystem::path file = seed + "/" + path;
      std::filesystem::create_directories(file.parent_path());
      std::ofstream(file, std::ios::binary) << content;
    }
    Sh("cd " + seed + " && " + kGit + " add -A && " + kGit + " commit -qm site && " + kGit +
       " push -q " + bare + " HEAD:main");
    auto mirror = git::Mirror::Open(dir_ / "mirror.git", bare, git::Credentials{});
    EXPECT_TRUE(mirror.ok()) << mirror.status().message();
    mirror_ = std::move(*mirror);
    auto head = mirror_->FetchBranch("main");
    EXPECT_TRUE(head.ok()) << head.status().message();
    auto snapshot = mirror_->OpenSnapshot(*head);
    EXPECT_TRUE(snapshot.ok()) << snapshot.status().message();
    snapshot_ = std::move(*snapshot);
    work_ = std::make_unique<git::Workspace>(*snapshot_);
    return *work_;
  }

  void Write(const std::string& path, const std::string& content) {
    Status s = work_->Write(path, content);
    ASSERT_TRUE(s.ok()) << s.message();
  }

  testing::TempDir dir_;
  std::unique_ptr<git::Mirror> mirror_;
  std::unique_ptr<git::Snapshot> snapshot_;
  std::unique_ptr<git::Workspace> work_;
};

// A 1 KiB mkdocs.yml whose nav stands for 10^10 entries through YAML aliases.
inline std::string MkDocsAliasBomb() {
  std::string yaml = "site_name: Bomb\nx0: &a0 [";
  for (int i = 0; i < 10; ++i) yaml += std::string(i ? ", " : "") + "{p: index.md}";
  yaml += "]\n";
  for (int level = 1; level < 10; ++level) {
    yaml += "x" + std::to_string(level) + ": &a" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i) {
      yaml += std::string(i ? ", " : "") + "{g: *a" + std::to_string(level - 1) + "}";
    }
    yaml += "]\n";
  }
  return yaml + "nav:\n  - All: *a9\n";
}

// The navigation as "group | page | path | title" rows, easy to compare.
inline std::vector<std::string> Rows(const docs::SiteMap& map) {
  std::vector<std::string> rows;
  for (const docs::NavEntry& e : map.navigation) {
    rows.push_back(e.group + " | " + e.page + " | " + e.path + " | " + e.title);
  }
  return rows;
}

inline std::vector<std::string> Rows(const std::vector<docs::Problem>& problems) {
  std::vector<std::string> rows;
  for (const docs::Problem& p : problems) {
    rows.push_back(p.path + ":" + std::to_string(p.line) + ": " + p.message);
  }
  return rows;
}

inline std::vector<std::string> Rows(const docs::CheckReport& report) {
  return Rows(report.problems);
}

}  // namespace docwright::testing
