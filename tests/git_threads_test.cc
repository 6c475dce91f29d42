// A mirror shared by the turns of one project on many threads (the threaded
// tests: run under ThreadSanitizer too).
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "git/git.h"
#include "support/git_repo.h"
#include "support/temp_dir.h"

namespace docwright::git {
namespace {

using docwright::testing::MakeDocsRemote;

// Many turns open and close snapshots of one mirror at once: each has a handle
// of its own while it lives, taken from and given back to the kept ones.
TEST(GitThreads, SnapshotsOpenedOnManyThreadsEachReadThroughAHandleOfTheirOwn) {
  testing::TempDir dir;
  const std::string remote = dir / "remote.git";
  MakeDocsRemote(remote);
  auto mirror = Mirror::Open(dir / "mirrors/p1.git", remote, Credentials{});
  ASSERT_TRUE(mirror.ok()) << mirror.status().message();
  auto head = (*mirror)->FetchBranch("main");
  ASSERT_TRUE(head.ok()) << head.status().message();
  std::atomic<int> read{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        auto snap = (*mirror)->OpenSnapshot(*head);
        if (!snap.ok()) continue;
        auto page = (*snap)->Read(i % 2 ? "index.mdx" : "quickstart.mdx");
        auto listed = (*snap)->List("");
        if (page.ok() && listed.ok() && listed->size() == 3) ++read;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(read.load(), 160);
}

}  // namespace
}  // namespace docwright::git
