// Real git repositories for tests, made and changed with the git command line as
// a person would.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace docwright::testing {

// Runs a shell command; fails the test if it fails. Returns its output, trimmed.
inline std::string Sh(const std::string& cmd) {
  std::string out;
  FILE* p = popen(("set -e; " + cmd + " 2>&1").c_str(), "r");
  std::array<char, 4096> buf{};
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  int rc = pclose(p);
  EXPECT_EQ(rc, 0) << cmd << "\n" << out;
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

// git with a fixed identity and default branch, whatever the machine's config.
inline const char* const kGit =
    "git -c user.name=Person -c user.email=person@example.com -c init.defaultBranch=main "
    "-c advice.detachedHead=false";

// A bare repository at `bare` whose branch "main" holds a small documentation site.
inline void MakeDocsRemote(const std::string& bare) {
  std::string seed = bare + ".seed";
  Sh(std::string(kGit) + " init -q --bare " + bare);
  Sh(std::string(kGit) + " init -q " + seed);
  auto write = [&](const std::string& path, const std::string& content) {
    std::filesystem::create_directories(std::filesystem::path(seed + "/" + path).parent_path());
    std::ofstream(seed + "/" + path) << content;
  };
  write("docs.json", "{\"name\": \"Acme\", \"navigation\": [\"index\", \"quickstart\"]}\n");
  write("index.mdx", "---\ntitle: Home\n---\n# Acme\n\nWelcome to the Acme docs.\n");
  write("quickstart.mdx", "---\ntitle: Quickstart\n---\n# Quickstart\n\nInstal the CLI.\n");
  Sh("cd " + seed + " && " + kGit + " add -A && " + kGit + " commit -qm 'Initial docs' && " + kGit +
     " push -q " + bare + " HEAD:main");
  std::filesystem::remove_all(seed);
}

// A bare repository at `bare` whose branch "main" holds a copy of the files under
// `source` (tests/data/sample-docs, say).
inline void MakeRemoteFrom(const std::string& bare, const std::string& source) {
  std::string seed = bare + ".seed";
  Sh(std::string(kGit) + " init -q --bare " + bare);
  Sh(std::string(kGit) + " init -q " + seed);
  Sh("cp -R '" + source + "'/. " + seed + "/");
  Sh("cd " + seed + " && " + kGit + " add -A && " + kGit + " commit -qm 'Initial docs' && " + kGit +
     " push -q " + bare + " HEAD:main");
  std::filesystem::remove_all(seed);
}

// A bare repository at `bare` whose branch "main" holds `files` (path, content),
// one commit; a code repository to read as context, say.
inline void MakeRemoteWith(const std::string& bare,
                           const std::vector<std::pair<std::string, std::string>>& files) {
  std::string seed = bare + ".seed";
  Sh(std::string(kGit) + " init -q --bare " + bare);
  Sh(std::string(kGit) + " init -q " + seed);
  for (const auto& [path, content] : files) {
    std::filesystem::create_directories(std::filesystem::path(seed + "/" + path).parent_path());
    std::ofstream(seed + "/" + path) << content;
  }
  Sh("cd " + seed + " && " + kGit + " add -A && " + kGit + " commit -qm 'Initial code' && " + kGit +
     " push -q " + bare + " HEAD:main");
  std::filesystem::remove_all(seed);
}

// The content of `rev:path` in `repo` ("" and a failed expectation if absent).
inline std::string ShowFile(const std::string& repo, const std::string& rev_path) {
  return Sh("git --git-dir=" + repo + " show '" + rev_path + "'");
}

}  // namespace docwright::testing
