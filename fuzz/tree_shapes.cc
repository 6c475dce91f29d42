// Repositories of every shape the input describes, read as a turn reads them:
// each input is a tree that repeats one folder `fanout` times at each of up to 4
// levels (up to 128^4 paths in a handful of objects), with leaves of one kind or
// mixed, beside an index page and a configuration. The walks, listings,
// searches, the site map, the checks and the diff run over it charging one
// budget; each must stay within its own bounds and the budget, whatever the
// shape (libFuzzer's -timeout catches a walk that does not).
//
// Input bytes: [leaf kind] [depth] [fanout of each level...] then the leaf
// file's content. Kind: 0 file, 1 link, 2 submodule, 3 mixed (by position).
#include <git2.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "agent/tools.h"
#include "core/work_budget.h"
#include "docs/docs.h"
#include "fuzz_check.h"
#include "git/git.h"

namespace docwright::fuzz {
namespace {

// A mirror to write the shapes into, and a libgit2 handle on its objects.
class ShapeRepo {
 public:
  ShapeRepo() {
    char tmpl[] = "/tmp/docwright-fuzz-shapes-XXXXXX";
    FUZZ_CHECK(mkdtemp(tmpl) != nullptr);
    dir_ = tmpl;
    std::string remote = dir_ + "/remote.git";
    FUZZ_CHECK(std::system(("git init -q --bare " + remote).c_str()) == 0);
    auto mirror = git::Mirror::Open(dir_ + "/mirror.git", remote, {});
    FUZZ_CHECK(mirror.ok());
    mirror_ = std::move(*mirror);
    git_libgit2_init();
    // Gitlinks name commits the repository does not hold, as real ones do.
    git_libgit2_opts(GIT_OPT_ENABLE_STRICT_OBJECT_CREATION, 0);
    git_libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE, static_cast<ssize_t>(32 << 20));
    FUZZ_CHECK(git_repository_open_bare(&repo_, (dir_ + "/mirror.git").c_str()) == 0);
  }
  ~ShapeRepo() {
    git_repository_free(repo_);
    mirror_.reset();
    git_libgit2_shutdown();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  git_repository* repo() { return repo_; }
  git::Mirror& mirror() { return *mirror_; }

 private:
  std::string dir_;
  std::unique_ptr<git::Mirror> mirror_;
  git_repository* repo_ = nullptr;
};

ShapeRepo& Repo() {
  static ShapeRepo repo;
  return repo;
}

git_oid Blob(git_repository* repo, std::string_view content) {
  git_oid id;
  FUZZ_CHECK(git_blob_create_from_buffer(&id, repo, content.data(), content.size()) == 0);
  return id;
}

// A tree of `entries` (name, mode, id).
git_oid Tree(git_repository* repo,
             const std::vector<std::tuple<std::string, git_filemode_t, git_oid>>& entries) {
  git_treebuilder* builder = nullptr;
  FUZZ_CHECK(git_treebuilder_new(&builder, repo, nullptr) == 0);
  for (const auto& [name, mode, id] : entries) {
    FUZZ_CHECK(git_treebuilder_insert(nullptr, builder, name.c_str(), &id, mode) == 0);
  }
  git_oid tree;
  FUZZ_CHECK(git_treebuilder_write(&tree, builder) == 0);
  git_treebuilder_free(builder);
  return tree;
}

std::string Name(const char* prefix, size_t i, const char* suffix) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%s%03zu%s", prefix, i, suffix);
  return buf;
}

// The commit of the shape the input describes.
std::string MakeShape(git_repository* repo, std::string_view input) {
  const int kind = input.empty() ? 0 : static_cast<unsigned char>(input[0]) % 4;
  const size_t depth = input.size() < 2 ? 1 : 1 + static_cast<unsigned char>(input[1]) % 4;
  std::vector<size_t> fanout;
  for (size_t i = 0; i < depth; ++i) {
    size_t at = 2 + i;
    // Up to 128 a level: 128^4 paths are as far past every limit as 256^4.
    fanout.push_back(at < input.size() ? 1 + static_cast<unsigned char>(input[at]) % 128 : 1);
  }
  std::string_view content = input.size() > 2 + depth ? input.substr(2 + depth) : "x\n";
  git_oid leaf = Blob(repo, content.substr(0, 4096));
  git_oid link = Blob(repo, "../index.md");
  std::vector<std::tuple<std::string, git_filemode_t, git_oid>> entries;
  for (size_t i = 0; i < fanout.back(); ++i) {
    int k = kind == 3 ? static_cast<int>(i % 3) : kind;
    git_filemode_t mode = k == 0   ? GIT_FILEMODE_BLOB
                          : k == 1 ? GIT_FILEMODE_LINK
                                   : GIT_FILEMODE_COMMIT;
    entries.emplace_back(Name("f", i, ".md"), mode, k == 1 ? link : leaf);
  }
  git_oid below = Tree(repo, entries);
  for (size_t level = depth - 1; level-- > 0;) {
    entries.clear();
    for (size_t i = 0; i < fanout[level]; ++i) {
      entries.emplace_back(Name("d", i, ""), GIT_FILEMODE_TREE, below);
    }
    below = Tree(repo, entries);
  }
  git_oid root = Tree(
      repo, {{"bomb", GIT_FILEMODE_TREE, below},
             {"index.md", GIT_FILEMODE_BLOB, Blob(repo, "# Home\n\nSee [a](bomb/d000/f000.md).\n")},
             {"mkdocs.yml", GIT_FILEMODE_BLOB,
              Blob(repo, "site_name: Shapes\nnav:\n  - index.md\n  - bomb/d000/f000.md\n")}});
  git_tree* tree = nullptr;
  FUZZ_CHECK(git_tree_lookup(&tree, repo, &root) == 0);
  git_signature* sig = nullptr;
  FUZZ_CHECK(git_signature_new(&sig, "Fuzz", "fuzz@example.com", 1700000000, 0) == 0);
  git_oid commit;
  FUZZ_CHECK(
      git_commit_create(&commit, repo, nullptr, sig, sig, nullptr, "shape", tree, 0, nullptr) == 0);
  git_signature_free(sig);
  git_tree_free(tree);
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, &commit);
  return hex;
}

constexpr uint64_t kEntries = 400000;

}  // namespace
}  // namespace docwright::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace docwright;
  fuzz::ShapeRepo& repo = fuzz::Repo();
  std::string commit = fuzz::MakeShape(repo.repo(), fuzz::AsText(data, size));
  auto snapshot = repo.mirror().OpenSnapshot(commit);
  FUZZ_CHECK(snapshot.ok());
  WorkBudget budget({.entries = fuzz::kEntries,
                     .bytes_read = 64u << 20,
                     .bytes_searched = 64u << 20,
                     .steps = 2'000'000});
  (*snapshot)->SetBudget(&budget);

  bool cut = false;
  auto files = (*snapshot)->Walk("", 200, &cut);
  if (files.ok()) {
    FUZZ_CHECK(files->size() <= 200);
    FUZZ_CHECK(std::is_sorted(files->begin(), files->end()));
    FUZZ_CHECK(budget.used(WorkBudget::Meter::kEntries) <= 200 * git::kWalkVisitsPerPath + 8);
  }

  git::Workspace work(**snapshot);
  agent::Toolbox tools(work);
  for (const char* args : {"{}", "{\"path\": \"bomb\"}", "{\"path\": \"bomb/d000\"}"}) {
    agent::ToolOutcome listed = tools.Call("list_files", args);
    FUZZ_CHECK(listed.content.size() <= agent::kMaxToolOutputBytes + 200);
  }
  for (const char* args : {"{\"pattern\": \"x\"}", "{\"pattern\": \"Home\", \"path\": \"bomb\"}"}) {
    agent::ToolOutcome found = tools.Call("search", args);
    FUZZ_CHECK(found.content.size() <= agent::kMaxToolOutputBytes + 200);
  }
  docs::SiteMap map = docs::BuildSiteMap(work, {.max_files = 200, .turn = &budget});
  FUZZ_CHECK(map.pages.size() <= 200);

  // An edit beside the shape, checked and compared as a finished turn is.
  (void)work.Write("index.md", "# Home\n\nChanged.\n");
  (void)work.Delete("bomb/d000/f000.md");
  docs::CheckReport report = docs::CheckChanges(work, {.max_files = 200, .turn = &budget});
  FUZZ_CHECK(report.problems.size() <= 50);
  auto changed = repo.mirror().Commit(work, git::Identity{}, "edit");
  if (changed.ok()) {
    auto diff = repo.mirror().Diff(commit, *changed, 1 << 16, &budget);
    if (diff.ok()) FUZZ_CHECK(diff->patch.size() <= (1 << 16));
  }
  return 0;
}
