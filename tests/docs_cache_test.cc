// The cache of what depends only on a commit (docs/commit_cache.h): its bounds
// and order, and the site maps and check reports it serves from real
// repositories, written by a turn or taken from a branch alike, never when a
// workspace has edits of its own or an answer was cut short from outside.
#include "docs/commit_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/turn.h"
#include "core/work_budget.h"
#include "docs/docs.h"
#include "support/docs_site.h"

namespace docwright::docs {
namespace {

using testing::Files;
using testing::kGit;
using testing::Rows;
using testing::Sh;

std::shared_ptr<const SiteMap> MapNamed(const std::string& name, size_t page_bytes = 1000) {
  SiteMap map;
  map.config_path = name;
  map.pages.push_back(std::string(page_bytes, 'p'));
  return std::make_shared<const SiteMap>(std::move(map));
}

// What one map of MapNamed's costs in a cache (keys of two characters).
size_t BytesOfOneMap() {
  CommitCache probe(CommitCache::Options{.max_bytes = size_t{1} << 30});
  probe.PutMap("k0", MapNamed("k0"));
  return probe.stats().bytes;
}

TEST(CommitCacheTest, KeepsWithinItsBytesAndDropsTheLeastRecentlyUsed) {
  const size_t one = BytesOfOneMap();
  ASSERT_GT(one, 1000u);
  CommitCache cache(CommitCache::Options{.max_bytes = 4 * one + one / 2, .max_entries = 100});
  for (const char* key : {"k1", "k2", "k3", "k4"}) cache.PutMap(key, MapNamed(key));
  EXPECT_EQ(cache.stats().entries, 4u);
  EXPECT_EQ(cache.stats().evictions, 0u);
  ASSERT_TRUE(cache.FindMap("k1"));  // k1 used last: k2 is now the oldest

  cache.PutMap("k5", MapNamed("k5"));
  CommitCache::Stats s = cache.stats();
  EXPECT_EQ(s.evictions, 1u);
  EXPECT_EQ(s.entries, 4u);
  EXPECT_LE(s.bytes, 4 * one + one / 2);
  EXPECT_FALSE(cache.FindMap("k2"));
  for (const char* key : {"k1", "k3", "k4", "k5"}) {
    std::shared_ptr<const SiteMap> map = cache.FindMap(key);
    ASSERT_TRUE(map) << key;
    EXPECT_EQ(map->config_path, key);
  }
}

TEST(CommitCacheTest, KeepsWithinItsEntries) {
  CommitCache cache(CommitCache::Options{.max_bytes = size_t{1} << 30, .max_entries = 2});
  cache.PutMap("k1", MapNamed("k1"));
  cache.PutMap("k2", MapNamed("k2"));
  cache.PutMap("k3", MapNamed("k3"));
  CommitCache::Stats s = cache.stats();
  EXPECT_EQ(s.entries, 2u);
  EXPECT_EQ(s.evictions, 1u);
  EXPECT_FALSE(cache.FindMap("k1"));
  EXPECT_TRUE(cache.FindMap("k2"));
  EXPECT_TRUE(cache.FindMap("k3"));
}

TEST(CommitCacheTest, RefusesAnAnswerLargerThanAQuarterOfItsBytes) {
  const size_t one = BytesOfOneMap();
  CommitCache tight(CommitCache::Options{.max_bytes = 4 * one - 1});
  tight.PutMap("k0", MapNamed("k0"));
  CommitCache::Stats s = tight.stats();
  EXPECT_EQ(s.refused, 1u);
  EXPECT_EQ(s.stores, 0u);
  EXPECT_EQ(s.entries, 0u);
  EXPECT_EQ(s.bytes, 0u);
  EXPECT_FALSE(tight.FindMap("k0"));

  CommitCache enough(CommitCache::Options{.max_bytes = 4 * one});
  enough.PutMap("k0", MapNamed("k0"));
  EXPECT_EQ(enough.stats().refused, 0u);
  EXPECT_TRUE(enough.FindMap("k0"));
}

TEST(CommitCacheTest, CountsHitsMissesAndStoresAndKeepsOneAnswerAKey) {
  CommitCache cache;
  EXPECT_FALSE(cache.FindMap("k"));
  std::shared_ptr<const SiteMap> map = MapNamed("k");
  cache.PutMap("k", map);
  EXPECT_EQ(cache.FindMap("k").get(), map.get()) << "shared, not copied";
  EXPECT_FALSE(cache.FindReport("k")) << "a map's key holds no report";
  size_t bytes = cache.stats().bytes;
  cache.PutMap("k", MapNamed("k"));  // the same key again: replaced, not added
  CommitCache::Stats s = cache.stats();
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 2u);
  EXPECT_EQ(s.stores, 2u);
  EXPECT_EQ(s.entries, 1u);
  EXPECT_EQ(s.bytes, bytes);
  EXPECT_EQ(s.evictions, 0u);

  auto report = std::make_shared<CheckReport>();
  report->more_problems = std::string(500, 'm');
  cache.PutReport("r", report);
  ASSERT_TRUE(cache.FindReport("r"));
  EXPECT_EQ(cache.FindReport("r")->more_problems, report->more_problems);
  EXPECT_GT(cache.stats().bytes, bytes + 500) << "a report's strings are counted";
}

TEST(CommitCacheTest, EightThreadsAtOnceKeepItsBoundsAndItsAnswers) {
  const size_t one = BytesOfOneMap();
  CommitCache cache(CommitCache::Options{.max_bytes = 12 * one, .max_entries = 16});
  constexpr int kThreads = 8;
  constexpr int kRounds = 2000;
  std::atomic<uint64_t> finds{0}, wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRounds; ++i) {
        std::string key = "k" + std::to_string((i * 7 + t * 13) % 40);
        if (i % 3 == 0) {
          cache.PutMap(key, MapNamed(key));
        } else {
          ++finds;
          std::shared_ptr<const SiteMap> map = cache.FindMap(key);
          if (map && map->config_path != key) ++wrong;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CommitCache::Stats s = cache.stats();
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_EQ(s.hits + s.misses, finds.load());
  EXPECT_GT(s.evictions, 0u);
  EXPECT_LE(s.entries, 16u);
  EXPECT_LE(s.bytes, 12 * one);
  EXPECT_GT(s.entries, 0u);
}

// A small Mintlify site; the branch "topic" breaks a link and deletes a page
// that the home page links to and navigation lists.
Files Site() {
  return {{"docs.json", R"({"name": "Acme", "navigation": ["index", "install", "old"]})"},
          {"index.mdx", "---\ntitle: Home\n---\n\nRead [install](/install) and [old](/old).\n"},
          {"install.mdx", "---\ntitle: Install\n---\n\nInstall it.\n"},
          {"old.mdx", "---\ntitle: Old\n---\n\nAn old page.\n"}};
}
const char* const kBrokenInstall = "---\ntitle: Install\n---\n\nInstall it, see [x](/nowhere).\n";

class DocsCacheTest : public testing::DocsSiteTest {
 protected:
  // Commits, over the site as the seed has it, `files` written and `deleted`
  // removed, pushes that to `branch` and opens a snapshot of it.
  git::Snapshot& Push(const std::string& branch, const Files& files,
                      const std::vector<std::string>& deleted = {}) {
    std::string seed = dir_ / "seed";
    for (const auto& [path, content] : files) std::ofstream(seed + "/" + path) << content;
    for (const std::string& path : deleted) std::filesystem::remove(seed + "/" + path);
    Sh("cd " + seed + " && " + kGit + " add -A && " + kGit + " commit -qm change && " + kGit +
       " push -q " + std::string(dir_ / "remote.git") + " HEAD:refs/heads/" + branch);
    auto head = mirror_->FetchBranch(branch);
    EXPECT_TRUE(head.ok()) << head.status().message();
    return OpenAt(*head);
  }
  // Another snapshot of `commit`, as a later turn opens.
  git::Snapshot& OpenAt(const std::string& commit) {
    auto opened = mirror_->OpenSnapshot(commit);
    EXPECT_TRUE(opened.ok()) << opened.status().message();
    snapshots_.push_back(std::move(*opened));
    return *snapshots_.back();
  }

  CommitCache cache_;
  std::vector<std::unique_ptr<git::Snapshot>> snapshots_;
};

TEST_F(DocsCacheTest, ASecondMapOfACommitIsTheFirstAndReadsNothing) {
  git::Workspace& work = Open(Site());
  std::shared_ptr<const SiteMap> first = SharedSiteMap(work, {.cache = &cache_});
  ASSERT_EQ(first->framework, Framework::kMintlify);
  EXPECT_EQ(cache_.stats().misses, 1u);
  EXPECT_EQ(cache_.stats().stores, 1u);

  // A later turn's snapshot of the same commit, charging a budget of its own.
  git::Snapshot& again = OpenAt(snapshot_->commit());
  WorkBudget reads(WorkBudget::Limits{});
  again.SetBudget(&reads);
  git::Workspace later(again);
  std::shared_ptr<const SiteMap> second = SharedSiteMap(later, {.cache = &cache_});
  again.SetBudget(nullptr);
  EXPECT_EQ(second.get(), first.get());
  EXPECT_EQ(cache_.stats().hits, 1u);
  EXPECT_EQ(reads.used(WorkBudget::Meter::kEntries), 0u) << "nothing listed";
  EXPECT_EQ(reads.used(WorkBudget::Meter::kBytesRead), 0u) << "nothing read";

  // Other limits that shape the map are another answer.
  SharedSiteMap(work, {.max_files = 10, .cache = &cache_});
  EXPECT_EQ(cache_.stats().misses, 2u);
}

TEST_F(DocsCacheTest, AMapMadeWhileTheRepositoryCouldNotBeReadIsNotKept) {
  Open(Site());
  // A commit of the mirror's own (its objects loose), whose page in navigation
  // is then damaged on disk: its title cannot be read, for want of the object
  // database, not of the page.
  const std::string page = "---\ntitle: Install again\n---\n\nInstall it again.\n";
  Write("install.mdx", page);
  auto commit = mirror_->Commit(*work_, git::Identity{}, "a new install page");
  ASSERT_TRUE(commit.ok()) << commit.status().message();
  const std::string id = git::BlobIdOf(page);
  const std::filesystem::path loose =
      std::filesystem::path(dir_ / "mirror.git") / "objects" / id.substr(0, 2) / id.substr(2);
  ASSERT_TRUE(std::filesystem::exists(loose)) << loose;
  std::filesystem::permissions(loose, std::filesystem::perms::owner_write,
                               std::filesystem::perm_options::add);
  std::ofstream(loose, std::ios::binary | std::ios::trunc) << "not a zlib stream";

  git::Snapshot& damaged = OpenAt(*commit);
  git::Workspace work(damaged);
  SharedSiteMap(work, {.cache = &cache_});
  EXPECT_GT(damaged.failed_reads(), 0u);
  EXPECT_EQ(cache_.stats().stores, 0u) << "a map of a repository read in part is not kept";
  SharedSiteMap(work, {.cache = &cache_});
  EXPECT_EQ(cache_.stats().hits, 0u);
  EXPECT_EQ(cache_.stats().misses, 2u);
}

TEST_F(DocsCacheTest, AnotherCommitMisses) {
  git::Workspace& work = Open(Site());
  std::shared_ptr<const SiteMap> before = SharedSiteMap(work, {.cache = &cache_});
  git::Snapshot& moved = Push("main", {{"new.mdx", "---\ntitle: New\n---\n\nNew.\n"}});
  git::Workspace after(moved);
  std::shared_ptr<const SiteMap> map = SharedSiteMap(after, {.cache = &cache_});
  EXPECT_NE(map.get(), before.get());
  EXPECT_EQ(cache_.stats().hits, 0u);
  EXPECT_EQ(cache_.stats().misses, 2u);
  EXPECT_NE(std::find(map->pages.begin(), map->pages.end(), "new.mdx"), map->pages.end());
}

TEST_F(DocsCacheTest, AWorkspaceWithEditsIsNeverServedFromTheCache) {
  git::Workspace& work = Open(Site());
  std::shared_ptr<const SiteMap> base = SharedSiteMap(work, {.cache = &cache_});
  Write("guide.mdx", "---\ntitle: Guide\n---\n\nA guide.\n");
  std::shared_ptr<const SiteMap> edited = SharedSiteMap(work, {.cache = &cache_});
  EXPECT_NE(edited.get(), base.get());
  EXPECT_NE(std::find(edited->pages.begin(), edited->pages.end(), "guide.mdx"),
            edited->pages.end());
  EXPECT_EQ(cache_.stats().hits, 0u);
  EXPECT_EQ(cache_.stats().stores, 1u) << "the map of edits is no commit's";
}

TEST_F(DocsCacheTest, AMapCutShortFromOutsideIsNotKeptOneCutByItsOwnStepsIs) {
  git::Workspace& work = Open(Site());
  CancelToken cancel;
  cancel.Cancel(CancelToken::Reason::kArchived);
  SharedSiteMap(work, {.cancel = &cancel, .cache = &cache_});
  SharedSiteMap(work, {.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1),
                       .cache = &cache_});
  WorkBudget turn(WorkBudget::Limits{.steps = 2});
  SharedSiteMap(work, {.turn = &turn, .cache = &cache_});
  {
    WorkBudget reads(WorkBudget::Limits{.entries = 1});
    snapshot_->SetBudget(&reads);
    SharedSiteMap(work, {.cache = &cache_});
    snapshot_->SetBudget(nullptr);
    EXPECT_TRUE(reads.spent());
  }
  EXPECT_EQ(cache_.stats().stores, 0u);
  EXPECT_EQ(cache_.stats().misses, 4u);

  // The whole map is kept when it is made whole.
  std::shared_ptr<const SiteMap> whole = SharedSiteMap(work, {.cache = &cache_});
  EXPECT_EQ(whole->navigation.size(), 3u);
  EXPECT_EQ(cache_.stats().stores, 1u);

  // The call's own step limit cuts the same commit the same way every time.
  std::shared_ptr<const SiteMap> cut = SharedSiteMap(work, {.max_steps = 2, .cache = &cache_});
  EXPECT_EQ(cache_.stats().stores, 2u);
  EXPECT_EQ(SharedSiteMap(work, {.max_steps = 2, .cache = &cache_}).get(), cut.get());
}

TEST_F(DocsCacheTest, AMapOfACommitIsRenderedOncePerSizeAndNoOtherMapIsKept) {
  git::Workspace& work = Open(Site());
  std::shared_ptr<const SiteMap> map = SharedSiteMap(work, {.cache = &cache_});
  ASSERT_FALSE(map->commit_key.empty());
  const uint64_t stores = cache_.stats().stores;

  std::shared_ptr<const std::string> text = SharedRender(*map, 4096, &cache_);
  EXPECT_EQ(*text, map->Render(4096));
  EXPECT_EQ(cache_.stats().stores, stores + 1);
  // A later turn on the same commit: the same text, not rendered again.
  git::Workspace later(OpenAt(snapshot_->commit()));
  std::shared_ptr<const SiteMap> again = SharedSiteMap(later, {.cache = &cache_});
  EXPECT_EQ(SharedRender(*again, 4096, &cache_).get(), text.get());
  // Another size is another text.
  std::shared_ptr<const std::string> small = SharedRender(*map, 80, &cache_);
  EXPECT_NE(small.get(), text.get());
  EXPECT_EQ(*small, map->Render(80));
  EXPECT_LE(small->size(), 80u);

  // A map of edits, a map cut short from outside and a map built by hand have
  // no key: rendered each time, never kept.
  const uint64_t kept = cache_.stats().stores;
  Write("guide.mdx", "---\ntitle: Guide\n---\n\nA guide.\n");
  std::shared_ptr<const SiteMap> edited = SharedSiteMap(work, {.cache = &cache_});
  EXPECT_TRUE(edited->commit_key.empty());
  EXPECT_NE(SharedRender(*edited, 4096, &cache_)->find("guide.mdx"), std::string::npos);
  CommitCache empty;  // (cache_ holds the whole map: a hit would not be cut)
  CancelToken cancel;
  cancel.Cancel(CancelToken::Reason::kArchived);
  EXPECT_TRUE(SharedSiteMap(later, {.cancel = &cancel, .cache = &empty})->commit_key.empty());
  SiteMap by_hand = BuildSiteMap(later);
  EXPECT_TRUE(by_hand.commit_key.empty());
  SharedRender(by_hand, 4096, &cache_);
  EXPECT_EQ(cache_.stats().stores, kept);
  // Without a cache, the text is the map's.
  EXPECT_EQ(*SharedRender(*map, 4096, nullptr), *text);
}

TEST_F(DocsCacheTest, TheSameChangesWrittenOrTakenFromABranchAreOneCheck) {
  Open(Site());
  git::Snapshot& topic = Push("topic", {{"install.mdx", kBrokenInstall}}, {"old.mdx"});

  // As the agent makes them: written and deleted over the base.
  git::Workspace written(*snapshot_);
  ASSERT_TRUE(written.Write("install.mdx", kBrokenInstall).ok());
  ASSERT_TRUE(written.Delete("old.mdx").ok());
  CheckReport agent = CheckChanges(written, {.cache = &cache_});
  ASSERT_FALSE(agent.problems.empty());
  EXPECT_EQ(cache_.stats().stores, 1u);

  // As the branch's story holds them: taken from the branch's commit.
  git::Workspace taken(*snapshot_);
  ASSERT_TRUE(taken.Take(topic, "install.mdx").ok());
  ASSERT_TRUE(taken.Take(topic, "old.mdx").ok());
  ASSERT_EQ(taken.Changes().at("install.mdx").kind, git::Change::Kind::kCopy);
  CheckReport story = CheckChanges(taken, {.cache = &cache_});
  EXPECT_EQ(cache_.stats().hits, 1u);
  EXPECT_EQ(cache_.stats().misses, 1u);
  EXPECT_EQ(Rows(story), Rows(agent));
  EXPECT_EQ(Rows(story.notes), Rows(agent.notes));
  // And what the check finds without the cache.
  EXPECT_EQ(Rows(CheckChanges(taken)), Rows(agent));
}

TEST_F(DocsCacheTest, OtherContentIsAnotherCheck) {
  git::Workspace& work = Open(Site());
  Write("install.mdx", kBrokenInstall);
  CheckReport first = CheckChanges(work, {.cache = &cache_});
  Write("install.mdx", "---\ntitle: Install\n---\n\nInstall it, see [x](/elsewhere).\n");
  CheckReport second = CheckChanges(work, {.cache = &cache_});
  EXPECT_EQ(cache_.stats().hits, 0u);
  EXPECT_EQ(cache_.stats().misses, 2u);
  ASSERT_EQ(second.problems.size(), 1u);
  EXPECT_NE(second.problems[0].message.find("/elsewhere"), std::string::npos);
  // Other limits that shape the report are another check as well.
  CheckChanges(work, {.max_problems = 1, .cache = &cache_});
  EXPECT_EQ(cache_.stats().misses, 3u);
}

TEST_F(DocsCacheTest, EveryLimitThatShapesAReportAndTheSiteRootAreInItsKey) {
  git::Workspace& work = Open(Site());
  Write("install.mdx", kBrokenInstall);
  CheckChanges(work, {.cache = &cache_});
  CheckChanges(work, {.max_files = 3, .cache = &cache_});
  CheckChanges(work, {.max_notes = 1, .cache = &cache_});
  CheckChanges(work, {.max_steps = 1000, .cache = &cache_});
  CheckChanges(work, {.site_root = "docs", .cache = &cache_});
  EXPECT_EQ(cache_.stats().misses, 5u);
  EXPECT_EQ(cache_.stats().hits, 0u);
  CheckChanges(work, {.max_steps = 1000, .cache = &cache_});
  EXPECT_EQ(cache_.stats().hits, 1u) << "the same limits are the same answer";
}

TEST_F(DocsCacheTest, AMoveAndItsBytesWrittenAnewOverTheDeletedPageAreOneCheck) {
  // The checks take a deleted page whose bytes were written elsewhere for a
  // move, however the workspace got there: one answer, the uncached one.
  Open(Site());
  git::Workspace moved(*snapshot_);
  ASSERT_TRUE(moved.Move("old.mdx", "archive/old.mdx").ok());
  CheckReport by_move = CheckChanges(moved, {.cache = &cache_});
  auto bytes = snapshot_->Read("old.mdx");
  ASSERT_TRUE(bytes.ok());
  git::Workspace rewritten(*snapshot_);
  ASSERT_TRUE(rewritten.Delete("old.mdx").ok());
  ASSERT_TRUE(rewritten.Write("archive/old.mdx", bytes->text).ok());
  CheckReport by_hand = CheckChanges(rewritten, {.cache = &cache_});
  EXPECT_EQ(cache_.stats().misses, 1u);
  EXPECT_EQ(cache_.stats().hits, 1u);
  EXPECT_EQ(Rows(by_move), Rows(CheckChanges(moved)));
  EXPECT_EQ(Rows(by_hand), Rows(CheckChanges(rewritten)));
  // Moved elsewhere: another check.
  git::Workspace elsewhere(*snapshot_);
  ASSERT_TRUE(elsewhere.Move("old.mdx", "archive/older.mdx").ok());
  CheckChanges(elsewhere, {.cache = &cache_});
  EXPECT_EQ(cache_.stats().misses, 2u);
}

TEST_F(DocsCacheTest, AReportCutShortFromOutsideIsNotKept) {
  git::Workspace& work = Open(Site());
  Write("install.mdx", kBrokenInstall);
  CancelToken cancel;
  cancel.Cancel(CancelToken::Reason::kArchived);
  CheckChanges(work, {.cancel = &cancel, .cache = &cache_});
  WorkBudget turn(WorkBudget::Limits{.steps = 5});
  CheckChanges(work, {.turn = &turn, .cache = &cache_});
  EXPECT_TRUE(turn.spent());
  EXPECT_EQ(cache_.stats().stores, 0u);

  CheckReport whole = CheckChanges(work, {.cache = &cache_});
  EXPECT_EQ(cache_.stats().stores, 1u);
  EXPECT_EQ(whole.problems.size(), 1u) << "the cut reports were not served";

  // Cut by its own steps: kept, and the note that says so comes with it.
  CheckReport cut = CheckChanges(work, {.max_steps = 5, .cache = &cache_});
  EXPECT_EQ(cache_.stats().stores, 2u);
  CheckReport again = CheckChanges(work, {.max_steps = 5, .cache = &cache_});
  EXPECT_EQ(cache_.stats().hits, 1u);
  EXPECT_EQ(Rows(again.notes), Rows(cut.notes));
}

}  // namespace
}  // namespace docwright::docs
