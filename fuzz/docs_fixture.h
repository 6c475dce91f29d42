// A small documentation repository for the docs targets: the docs layer reads a
// site only through git::Workspace, so each input is laid as edits over a
// snapshot of this base (made once per process with the git command line, as
// the tests make theirs) and checked as the agent's edits would be.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "docs/docs.h"
#include "fuzz_check.h"
#include "git/git.h"

namespace docwright::fuzz {

class DocsBase {
 public:
  // A plain Markdown site with a page in a folder, an MDX page, an image and
  // links between them; the inputs add configurations and pages.
  DocsBase() {
    char tmpl[] = "/tmp/docwright-fuzz-XXXXXX";
    FUZZ_CHECK(mkdtemp(tmpl) != nullptr);
    dir_ = tmpl;
    std::string seed = dir_ + "/seed";
    Put(seed + "/index.md",
        "---\ntitle: Home\n---\n# Home\n\nSee [setup](guide/setup.md) and "
        "![logo](img/logo.png).\n");
    Put(seed + "/guide/setup.md", "# Setup\n\nBack [home](../index.md).\n\n```sh\nrun\n```\n");
    Put(seed + "/guide/advanced.mdx",
        "---\ntitle: Advanced\n---\n<Note>\n  See [setup](./setup.md).\n</Note>\n");
    Put(seed + "/img/logo.png", std::string("\x89PNG\r\n\x1a\n\0\0\0", 11));
    std::string git =
        "git -c user.name=Fuzz -c user.email=fuzz@example.com -c init.defaultBranch=main";
    std::string cmd = "set -e; cd " + seed + "; " + git + " init -q; " + git + " add -A; " + git +
                      " commit -qm base; " + git + " init -q --bare ../remote.git; " + git +
                      " push -q ../remote.git HEAD:main";
    FUZZ_CHECK(std::system(cmd.c_str()) == 0);
    auto mirror = git::Mirror::Open(dir_ + "/mirror.git", dir_ + "/remote.git", {});
    FUZZ_CHECK(mirror.ok());
    mirror_ = std::move(*mirror);
    auto head = mirror_->FetchBranch("main");
    FUZZ_CHECK(head.ok());
    auto snapshot = mirror_->OpenSnapshot(*head);
    FUZZ_CHECK(snapshot.ok());
    snapshot_ = std::move(*snapshot);
  }
  ~DocsBase() {
    snapshot_.reset();
    mirror_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  const git::Snapshot& snapshot() const { return *snapshot_; }

 private:
  static void Put(const std::string& path, const std::string& content) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << content;
  }

  std::string dir_;
  std::unique_ptr<git::Mirror> mirror_;
  std::unique_ptr<git::Snapshot> snapshot_;
};

// The base, made on first use and removed when the process exits.
inline const DocsBase& Base() {
  static DocsBase base;
  return base;
}

// Builds the site map and runs the checks over `files`, and checks what their
// contracts in docs/docs.h promise.
inline void CheckSite(const git::Workspace& files) {
  docs::SiteMap map = docs::BuildSiteMap(files, {.max_files = 200});
  FUZZ_CHECK(map.pages.size() <= 200);
  for (size_t budget : {size_t{0}, size_t{200}, size_t{4000}})
    FUZZ_CHECK(map.Render(budget).size() <= budget);

  constexpr size_t kMaxProblems = 20;
  docs::CheckReport report =
      docs::CheckChanges(files, {.max_problems = kMaxProblems, .max_notes = kMaxProblems});
  for (const auto* list : {&report.problems, &report.notes}) {
    const std::vector<docs::Problem>& problems = *list;
    FUZZ_CHECK(problems.size() <= kMaxProblems);
    for (size_t i = 0; i < problems.size(); ++i) {
      FUZZ_CHECK(problems[i].line >= 0 && !problems[i].message.empty());
      if (i > 0) {
        // Problems by severity, then file and line; notes by file and line.
        const docs::Problem& a = problems[i - 1];
        const docs::Problem& b = problems[i];
        bool by_kind = list == &report.problems;
        if (by_kind) FUZZ_CHECK(a.kind <= b.kind);
        if (!by_kind || a.kind == b.kind) {
          FUZZ_CHECK(a.path < b.path || (a.path == b.path && a.line <= b.line));
        }
      }
    }
  }
  // The count of what was left out is said exactly when something was.
  size_t found = 0;
  for (const docs::KindCount& c : report.counts) found += c.problems;
  FUZZ_CHECK(found >= report.problems.size());
  FUZZ_CHECK((found > report.problems.size()) == !report.more_problems.empty());
}

}  // namespace docwright::fuzz
