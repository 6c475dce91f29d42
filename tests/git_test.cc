// The git engine against real repositories: a bare "remote" on disk, filled and
// changed by the git command line as a person would.
#include "git/git.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "support/git_http_server.h"
#include "support/git_repo.h"
#include "support/hostile_repo.h"
#include "support/ssh_server.h"
#include "support/temp_dir.h"

namespace docwright::git {
namespace {

using docwright::testing::kGit;
using docwright::testing::Sh;

class GitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    remote_ = dir_ / "remote.git";
    seed_ = dir_ / "seed";
    Sh(std::string(kGit) + " init -q --bare " + remote_);
    Sh(std::string(kGit) + " clone -q " + remote_ + " " + seed_ + " 2>/dev/null || true");
    Write("docs/index.md", "---\ntitle: Home\n---\n# Welcome\n");
    Write("docs/guide/install.md", "# Install\nRun the installer.\n");
    Write("docs/guide/usage.md", "# Usage\n");
    Write("mint.json", "{\"name\": \"Acme\"}\n");
    Write("script.sh", "#!/bin/sh\necho hi\n");
    Sh("chmod +x " + seed_ + "/script.sh");
    // A PNG header and NUL bytes: binary by any rule, whatever random bytes follow.
    Sh("printf '\\211PNG\\r\\n\\032\\n\\000\\000\\000\\rIHDR' > " + seed_ +
       "/logo.png && head -c 300 /dev/urandom >> " + seed_ + "/logo.png");
    Sh("head -c 2000000 /dev/zero | tr '\\0' 'a' > " + seed_ + "/big.txt");
    Sh("ln -s /etc/passwd " + seed_ + "/passwd.md");
    Sh("cd " + seed_ + " && " + kGit + " add -A && " + kGit + " commit -qm init");
    // A submodule entry (a gitlink), as a repository that vendors another has.
    std::string head = Sh("cd " + seed_ + " && git rev-parse HEAD");
    Sh("cd " + seed_ + " && git update-index --add --cacheinfo 160000," + head + ",vendor/theme");
    Sh("cd " + seed_ + " && " + kGit + " commit -qm vendor && " + kGit + " push -q origin main");
    head_ = Sh("cd " + seed_ + " && git rev-parse HEAD");
  }

  void Write(const std::string& path, const std::string& content) {
    std::filesystem::create_directories(std::filesystem::path(seed_ + "/" + path).parent_path());
    std::ofstream(seed_ + "/" + path) << content;
  }

  std::unique_ptr<Mirror> OpenMirror(const std::string& url) {
    auto m = Mirror::Open(dir_ / "mirrors/p1.git", url, Credentials{});
    EXPECT_TRUE(m.ok()) << m.status().message();
    return std::move(*m);
  }

  // The branch head after a fetch that must succeed.
  static std::string Fetch(Mirror& mirror, const std::string& branch) {
    auto head = mirror.FetchBranch(branch);
    EXPECT_TRUE(head.ok()) << head.status().message();
    return head.ok() ? *head : std::string(40, '0');
  }
  static std::unique_ptr<Snapshot> Snap(Mirror& mirror, const std::string& commit) {
    auto snap = mirror.OpenSnapshot(commit);
    EXPECT_TRUE(snap.ok()) << snap.status().message();
    return snap.ok() ? std::move(*snap) : nullptr;
  }

  std::string RemoteFile(const std::string& rev_path) {
    return Sh("git --git-dir=" + remote_ + " show " + rev_path);
  }

  testing::TempDir dir_;
  std::string remote_, seed_, head_;
};

TEST(GitPath, OnlyRepoRelativePathsInsideTheTree) {
  EXPECT_EQ(*CheckPath("docs/index.md"), "docs/index.md");
  EXPECT_EQ(*CheckPath("./docs//index.md"), "docs/index.md");
  for (const char* bad :
       {"", "/etc/passwd", "../x", "docs/../../x", ".git/config", "a/.git/HEAD", ".", "./",
        ".GIT/config", "docs/.Git/x", ".git./x", ".git /x", "GIT~1/x", "a\\b.md", "new\nline.md"}) {
    EXPECT_FALSE(CheckPath(bad).ok()) << bad;
  }
  EXPECT_TRUE(CheckPath(".github/workflows/ci.yml").ok());
  EXPECT_TRUE(CheckPath("docs/.gitignore").ok());
}

TEST(GitRedact, UrlsLoseTheirUserInformation) {
  EXPECT_EQ(RedactCredentials("failed for https://user:hunter2@host/x.git: 403"),
            "failed for https://***@host/x.git: 403");
  EXPECT_EQ(RedactCredentials("http://tok@127.0.0.1:9/a and ssh://git@h/b"),
            "http://***@127.0.0.1:9/a and ssh://***@h/b");
  EXPECT_EQ(RedactCredentials("no url, a@b"), "no url, a@b");
  EXPECT_EQ(RedactCredentials("https://host/p@q"), "https://host/p@q");
  // Database URLs and libpq's key=value form carry passwords as parameters too.
  EXPECT_EQ(RedactCredentials("postgresql://dw:s3cret@db:5432/dw?sslmode=require"),
            "postgresql://***@db:5432/dw?sslmode=require");
  EXPECT_EQ(RedactCredentials("postgresql://db/dw?user=dw&password=s3cret&sslmode=require"),
            "postgresql://db/dw?user=dw&password=***&sslmode=require");
  EXPECT_EQ(RedactCredentials("host=db password=s3cret dbname=dw"),
            "host=db password=*** dbname=dw");
}

TEST_F(GitTest, FetchesIntoABareMirrorAndReadsFromObjects) {
  auto mirror = OpenMirror(remote_);
  auto head = mirror->FetchBranch("main");
  ASSERT_TRUE(head.ok()) << head.status().message();
  EXPECT_EQ(*head, head_);
  // A bare mirror: no checkout anywhere.
  EXPECT_TRUE(std::filesystem::exists(dir_ / "mirrors/p1.git/HEAD"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "mirrors/p1.git/docs"));

  auto snap = mirror->OpenSnapshot(*head);
  ASSERT_TRUE(snap.ok());
  auto index = (*snap)->Read("docs/index.md");
  ASSERT_TRUE(index.ok());
  EXPECT_EQ(index->text, "---\ntitle: Home\n---\n# Welcome\n");
  auto root = (*snap)->List("");
  ASSERT_TRUE(root.ok());
  std::vector<std::string> names;
  for (auto& e : *root) names.push_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"big.txt", "docs", "logo.png", "mint.json",
                                             "passwd.md", "script.sh", "vendor"}));
  auto files = (*snap)->Walk("docs", 100);
  ASSERT_TRUE(files.ok());
  EXPECT_EQ(*files, (std::vector<std::string>{"docs/guide/install.md", "docs/guide/usage.md",
                                              "docs/index.md"}));
  EXPECT_EQ((*snap)->Walk("", 2)->size(), 2u) << "bounded";
  EXPECT_EQ((*snap)->Read("docs/nope.md").status().code(), Code::kNotFound);
  EXPECT_EQ((*snap)->Read("../etc/passwd").status().code(), Code::kInvalidArgument);
}

// A fetch from a repository on this machine reads its heads through a handle
// the mirror keeps, and a snapshot reads through a handle an earlier snapshot
// gave back: both see what changed since they were opened (refs moved, loose
// or packed, objects fetched since, a remote replaced at its path).
TEST_F(GitTest, KeptHandlesSeeWhatChangedSinceTheyWereOpened) {
  auto mirror = OpenMirror(remote_);
  const std::string first = Fetch(*mirror, "main");
  {
    auto snap = Snap(*mirror, first);
    ASSERT_NE(snap, nullptr);
    EXPECT_TRUE(snap->Read("docs/index.md").ok());
  }  // its handle is kept
  auto push = [&](const std::string& path) {
    Write(path, "# " + path + "\n");
    Sh("cd " + seed_ + " && " + kGit + " add -A && " + kGit + " commit -qm '" + path + "' && " +
       kGit + " push -q origin main");
    return Sh("cd " + seed_ + " && git rev-parse HEAD");
  };
  const std::string second = push("docs/second.md");
  EXPECT_EQ(Fetch(*mirror, "main"), second) << "a loose ref moved";
  Sh("git --git-dir=" + remote_ + " pack-refs --all");
  const std::string third = push("docs/third.md");
  Sh("git --git-dir=" + remote_ + " pack-refs --all");
  EXPECT_EQ(Fetch(*mirror, "main"), third) << "a packed ref moved";
  {
    auto snap = Snap(*mirror, third);  // through the kept handle
    ASSERT_NE(snap, nullptr);
    auto page = snap->Read("docs/third.md");
    ASSERT_TRUE(page.ok()) << page.status().message();
    EXPECT_EQ(page->text, "# docs/third.md\n");
  }

  // Another repository at the remote's path: its heads, not the kept ones.
  const std::string other = dir_ / "other.git";
  testing::MakeDocsRemote(other);
  std::filesystem::remove_all(remote_);
  std::filesystem::rename(other, remote_);
  const std::string replaced = Sh("git --git-dir=" + remote_ + " rev-parse main");
  ASSERT_NE(replaced, third);
  EXPECT_EQ(Fetch(*mirror, "main"), replaced);
  auto snap = Snap(*mirror, replaced);
  ASSERT_NE(snap, nullptr);
  EXPECT_FALSE(snap->Read("docs/third.md").ok());
}

TEST_F(GitTest, DiffShowsWhatABranchChangesSinceItForked) {
  auto mirror = OpenMirror(remote_);
  auto snap = Snap(*mirror, Fetch(*mirror, "main"));
  Workspace work(*snap);
  ASSERT_TRUE(work.Write("docs/guide/install.md", "# Install\nUse the package manager.\n").ok());
  ASSERT_TRUE(work.Write("docs/new.md", "# New\n").ok());
  ASSERT_TRUE(work.Move("logo.png", "images/logo.png").ok());
  auto commit = mirror->Commit(work, Identity{}, "edit");
  ASSERT_TRUE(commit.ok());
  ASSERT_TRUE(mirror->Push(*commit, "docwright/diff", std::nullopt).ok());
  // main moves on after the fork: its change is not the branch's.
  Write("docs/guide/usage.md", "# Usage\nChanged on main.\n");
  Sh("cd " + seed_ + " && " + kGit + " commit -qam 'main moves' && " + kGit +
     " push -q origin main");
  std::string main_head = Fetch(*mirror, "main");

  auto diff = mirror->Diff(main_head, *commit, 1 << 20);
  ASSERT_TRUE(diff.ok()) << diff.status().message();
  EXPECT_EQ(diff->files,
            (std::vector<std::string>{"docs/guide/install.md", "docs/new.md", "images/logo.png"}));
  EXPECT_NE(diff->patch.find("-Run the installer.\n+Use the package manager.\n"), std::string::npos)
      << diff->patch;
  EXPECT_NE(diff->patch.find("rename from logo.png"), std::string::npos) << diff->patch;
  EXPECT_EQ(diff->patch.find("Changed on main"), std::string::npos);
  EXPECT_FALSE(diff->truncated);

  auto cut = mirror->Diff(main_head, *commit, 200);
  ASSERT_TRUE(cut.ok());
  EXPECT_TRUE(cut->truncated);
  EXPECT_LE(cut->patch.size(), 200u);
  EXPECT_EQ(cut->patch.back(), '\n') << "cut at a line";
}

// What a review of a branch needs: each file's change and lines, the merge
// base, the branch's edits taken onto a workspace over that base for the
// checks, and an image's bytes.
TEST_F(GitTest, DiffNamesEachChangeAndTheMergeBaseAndAWorkspaceTakesTheBranch) {
  auto mirror = OpenMirror(remote_);
  std::string fork = Fetch(*mirror, "main");
  auto snap = Snap(*mirror, fork);
  Workspace work(*snap);
  ASSERT_TRUE(work.Write("docs/guide/install.md", "# Install\nUse it.\nThen run it.\n").ok());
  ASSERT_TRUE(work.Write("docs/new.md", "# New\n").ok());
  ASSERT_TRUE(work.Delete("docs/guide/usage.md").ok());
  ASSERT_TRUE(work.Move("logo.png", "images/logo.png").ok());
  auto commit = mirror->Commit(work, Identity{}, "edit");
  ASSERT_TRUE(commit.ok());
  ASSERT_TRUE(mirror->Push(*commit, "docwright/review", std::nullopt).ok());
  Write("docs/index.md", "# Moved on\n");
  Sh("cd " + seed_ + " && " + kGit + " commit -qam 'main moves' && " + kGit +
     " push -q origin main");
  std::string main_head = Fetch(*mirror, "main");

  auto diff = mirror->Diff(main_head, *commit, 1 << 20);
  ASSERT_TRUE(diff.ok()) << diff.status().message();
  EXPECT_EQ(diff->merge_base, fork);
  ASSERT_EQ(diff->changes.size(), diff->files.size());
  ASSERT_EQ(diff->changes.size(), 4u);
  using Kind = DiffFile::Kind;
  EXPECT_EQ(diff->changes[0].path, "docs/guide/install.md");
  EXPECT_EQ(diff->changes[0].kind, Kind::kModified);
  EXPECT_EQ(diff->changes[0].additions, 2);
  EXPECT_EQ(diff->changes[0].deletions, 1);
  EXPECT_EQ(diff->changes[1].path, "docs/guide/usage.md");
  EXPECT_EQ(diff->changes[1].kind, Kind::kDeleted);
  EXPECT_EQ(diff->changes[1].deletions, 1);
  EXPECT_EQ(diff->changes[2].path, "docs/new.md");
  EXPECT_EQ(diff->changes[2].kind, Kind::kAdded);
  EXPECT_EQ(diff->changes[2].additions, 1);
  EXPECT_EQ(diff->changes[3].path, "images/logo.png");
  EXPECT_EQ(diff->changes[3].kind, Kind::kRenamed);
  EXPECT_EQ(diff->changes[3].from, "logo.png");

  // The branch as edits over its merge base: what the checks of a whole branch read.
  auto head = Snap(*mirror, *commit);
  Workspace branch(*snap);
  for (const DiffFile& f : diff->changes) {
    ASSERT_TRUE(branch.Take(*head, f.path).ok()) << f.path;
    if (f.from) {
      ASSERT_TRUE(branch.Take(*head, *f.from).ok()) << *f.from;
    }
  }
  EXPECT_EQ(branch.Read("docs/guide/install.md")->text, "# Install\nUse it.\nThen run it.\n");
  EXPECT_FALSE(branch.IsFile("docs/guide/usage.md"));
  EXPECT_FALSE(branch.IsFile("logo.png"));
  EXPECT_TRUE(branch.IsFile("images/logo.png"));
  EXPECT_EQ(branch.Changes().size(), 5u);  // a move is two paths
  EXPECT_FALSE(branch.Take(*head, "passwd.md").ok()) << "a link is not a file to take";

  // An image's bytes, within a limit.
  auto png = head->ReadBytes("images/logo.png", 1 << 20);
  ASSERT_TRUE(png.ok()) << png.status().message();
  EXPECT_EQ(png->substr(1, 3), "PNG");
  EXPECT_FALSE(head->ReadBytes("images/logo.png", 10).ok());
  EXPECT_FALSE(head->ReadBytes("images/none.png", 1 << 20).ok());
}

TEST_F(GitTest, LinksSubmodulesBinariesAndHugeFilesAreNeverReadWhole) {
  auto mirror = OpenMirror(remote_);
  auto snap = Snap(*mirror, Fetch(*mirror, "main"));
  ASSERT_TRUE(snap);
  auto link = snap->Read("passwd.md");
  ASSERT_FALSE(link.ok());
  EXPECT_NE(link.status().message().find("symbolic link"), std::string::npos);
  auto sub = snap->Read("vendor/theme");
  ASSERT_FALSE(sub.ok());
  EXPECT_NE(sub.status().message().find("submodule"), std::string::npos);
  EXPECT_FALSE(snap->List("vendor/theme").ok()) << "a submodule is not a directory to enter";
  auto big = snap->Read("big.txt");
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("too large"), std::string::npos);
  auto png = snap->Read("logo.png");
  ASSERT_TRUE(png.ok());
  EXPECT_TRUE(png->binary);
  EXPECT_TRUE(png->text.empty());
}

// The diff reads as git's: modes made, lost and changed, a link as its target,
// a submodule as the commits it names, a move unchanged as a rename.
TEST_F(GitTest, DiffShowsModesLinksAndSubmodulesAsGitDoes) {
  auto mirror = OpenMirror(remote_);
  std::string main_head = Fetch(*mirror, "main");
  Sh("cd " + seed_ +
     " && chmod -x script.sh && ln -sfn /etc/hosts passwd.md && printf "
     "'#!/bin/sh\\n' > run.sh && chmod +x run.sh && git mv docs/guide/usage.md docs/usage.md");
  Sh("cd " + seed_ + " && " + kGit + " add -A && git update-index --add --cacheinfo 160000," +
     main_head + ",vendor/theme && " + kGit + " commit -qm modes && " + kGit +
     " push -q origin HEAD:modes");
  auto diff = mirror->Diff(main_head, Fetch(*mirror, "modes"), 1 << 20);
  ASSERT_TRUE(diff.ok()) << diff.status().message();
  const std::string& p = diff->patch;
  EXPECT_NE(p.find("diff --git a/script.sh b/script.sh\nold mode 100755\nnew mode 100644\n"),
            std::string::npos)
      << p;
  EXPECT_NE(p.find("diff --git a/run.sh b/run.sh\nnew file mode 100755\n--- /dev/null\n+++ "
                   "b/run.sh\n@@"),
            std::string::npos)
      << p;
  EXPECT_NE(p.find("-/etc/passwd\n"), std::string::npos) << p;
  EXPECT_NE(p.find("+/etc/hosts\n"), std::string::npos) << p;
  EXPECT_NE(p.find("diff --git a/vendor/theme b/vendor/theme\n-Subproject commit "),
            std::string::npos)
      << p;
  EXPECT_NE(p.find("+Subproject commit " + main_head + "\n"), std::string::npos) << p;
  EXPECT_NE(p.find("rename from docs/guide/usage.md\nrename to docs/usage.md\n"), std::string::npos)
      << p;
  EXPECT_EQ(p.find("\nindex "), std::string::npos) << "no header but the one written";
}

TEST_F(GitTest, BadRemotesAndBranchesGiveClearErrors) {
  auto mirror = OpenMirror(remote_);
  auto missing = mirror->FetchBranch("no-such-branch");
  EXPECT_EQ(missing.status().code(), Code::kNotFound) << missing.status().message();
  EXPECT_EQ(mirror->FetchBranch("bad..name").status().code(), Code::kInvalidArgument);

  Sh("git init -q --bare " + dir_ / "empty.git");
  auto empty = Mirror::Open(dir_ / "mirrors/empty.git", dir_ / "empty.git", Credentials{});
  ASSERT_TRUE(empty.ok());
  auto none = (*empty)->FetchBranch("main");
  EXPECT_EQ(none.status().code(), Code::kNotFound);
  EXPECT_NE(none.status().message().find("empty"), std::string::npos);

  for (const std::string& url : {dir_ / "nowhere.git", "file://" + dir_ / "nowhere.git",
                                 std::string("http://127.0.0.1:1/x.git")}) {
    auto gone = Mirror::Open(dir_ / "mirrors/gone.git", url, Credentials{});
    ASSERT_TRUE(gone.ok());
    auto unreachable = (*gone)->FetchBranch("main");
    EXPECT_EQ(unreachable.status().code(), Code::kUnavailable)
        << url << ": " << unreachable.status().message();
    EXPECT_NE(unreachable.status().message().find("cannot fetch"), std::string::npos);
  }
}

TEST_F(GitTest, WorkspaceEditsCommitOnTopOfTheBaseAndPushANewBranch) {
  auto mirror = OpenMirror(remote_);
  auto snap = Snap(*mirror, Fetch(*mirror, "main"));
  ASSERT_TRUE(snap);
  Workspace work(*snap);
  ASSERT_TRUE(work.Write("docs/guide/install.md", "# Install\nUse the package manager.\n").ok());
  ASSERT_TRUE(work.Write("docs/cli/index.md", "# CLI\n").ok());
  ASSERT_TRUE(work.Delete("docs/guide/usage.md").ok());
  ASSERT_TRUE(work.Move("logo.png", "images/logo.png").ok());
  EXPECT_EQ(work.Write("docs", "x").code(), Code::kInvalidArgument) << "a directory";
  EXPECT_EQ(work.Write("mint.json/x.md", "x").code(), Code::kInvalidArgument) << "under a file";
  EXPECT_EQ(work.Write("/abs.md", "x").code(), Code::kInvalidArgument);
  EXPECT_EQ(work.Delete("docs/none.md").code(), Code::kNotFound);
  EXPECT_EQ(work.Move("mint.json", "docs/index.md").code(), Code::kConflict);

  // Reads and listings see the edits.
  EXPECT_EQ(work.Read("docs/cli/index.md")->text, "# CLI\n");
  EXPECT_EQ(work.Read("docs/guide/usage.md").status().code(), Code::kNotFound);
  std::vector<std::string> docs;
  auto listed = work.List("docs");
  ASSERT_TRUE(listed.ok());
  for (auto& e : *listed) docs.push_back(e.name);
  EXPECT_EQ(docs, (std::vector<std::string>{"cli", "guide", "index.md"}));
  EXPECT_EQ(work.Changes().size(), 5u);

  auto commit =
      mirror->Commit(work, Identity{"docwright", "bot@docwright.test"}, "Update install docs");
  ASSERT_TRUE(commit.ok()) << commit.status().message();
  ASSERT_TRUE(mirror->Push(*commit, "docwright/abc-update-install", std::nullopt).ok());

  std::string branch = "docwright/abc-update-install";
  EXPECT_EQ(RemoteFile(branch + ":docs/guide/install.md"), "# Install\nUse the package manager.");
  EXPECT_EQ(RemoteFile(branch + ":docs/cli/index.md"), "# CLI");
  EXPECT_EQ(Sh("git --git-dir=" + remote_ + " ls-tree -r --name-only " + branch + " docs/guide"),
            "docs/guide/install.md");
  EXPECT_EQ(Sh("git --git-dir=" + remote_ + " rev-parse " + branch + ":images/logo.png"),
            Sh("git --git-dir=" + remote_ + " rev-parse main:logo.png"))
      << "a moved binary keeps its bytes";
  EXPECT_EQ(Sh("git --git-dir=" + remote_ + " rev-parse " + branch + "^"), head_);
  EXPECT_EQ(Sh("git --git-dir=" + remote_ + " log -1 --format=%an%n%s " + branch),
            "docwright\nUpdate install docs");
  // Untouched entries are the very same objects: only changed paths were rewritten.
  for (const char* same : {"big.txt", "script.sh", "passwd.md", "vendor/theme", "mint.json"}) {
    EXPECT_EQ(Sh("git --git-dir=" + remote_ + " ls-tree " + branch + " " + same),
              Sh("git --git-dir=" + remote_ + " ls-tree main " + same))
        << same;
  }
  EXPECT_EQ(Sh("git --git-dir=" + remote_ + " rev-parse main"), head_) << "main is untouched";
}

TEST_F(GitTest, EditsThatCannotBeCommittedAreRefusedWhenMade) {
  auto mirror = OpenMirror(remote_);
  auto snap = Snap(*mirror, Fetch(*mirror, "main"));
  ASSERT_TRUE(snap);
  Workspace work(*snap);
  for (const char* path : {"passwd.md", "passwd.md/x.md", "vendor/theme", "vendor/theme/x.md",
                           "docs", "mint.json/x.md"}) {
    EXPECT_EQ(work.Write(path, "x").code(), Code::kInvalidArgument) << path;
  }
  // A file may become a directory once it is deleted; the commit has both.
  ASSERT_TRUE(work.Delete("mint.json").ok());
  ASSERT_TRUE(work.Write("mint.json/x.md", "# Now a folder\n").ok());
  auto listed = work.List("mint.json");
  ASSERT_TRUE(listed.ok()) << listed.status().message();
  ASSERT_EQ(listed->size(), 1u);
  // Binary content, written or moved, is never read back as text.
  ASSERT_TRUE(work.Move("logo.png", "images/logo.png").ok());
  EXPECT_TRUE(work.Read("images/logo.png")->binary);
  ASSERT_TRUE(work.Write("data.bin", std::string("a\0b", 3)).ok());
  EXPECT_TRUE(work.Read("data.bin")->binary);
  // Editing an executable keeps it executable.
  ASSERT_TRUE(work.Write("script.sh", "#!/bin/sh\necho bye\n").ok());
  // Moves take any file as it is: over the read limit, and with its mode.
  EXPECT_FALSE(work.Read("big.txt").ok()) << "too large to read";
  ASSERT_TRUE(work.Move("big.txt", "assets/big.txt").ok());
  EXPECT_EQ(work.Read("assets/big.txt").status().code(), Code::kInvalidArgument);
  ASSERT_TRUE(work.Write("tools/run.sh", "placeholder").ok());
  ASSERT_TRUE(work.Delete("tools/run.sh").ok());
  ASSERT_TRUE(work.Move("script.sh", "bin/script.sh").ok());
  EXPECT_EQ(work.Read("bin/script.sh")->text, "#!/bin/sh\necho bye\n")
      << "the edited content moves";
  // A directory whose files are all deleted is gone.
  ASSERT_TRUE(work.Delete("docs/guide/install.md").ok());
  ASSERT_TRUE(work.Delete("docs/guide/usage.md").ok());
  EXPECT_EQ(work.List("docs/guide").status().code(), Code::kNotFound);
  auto commit = mirror->Commit(work, Identity{}, "restructure");
  ASSERT_TRUE(commit.ok()) << commit.status().message();
  ASSERT_TRUE(mirror->Push(*commit, "docwright/restructure", std::nullopt).ok());
  EXPECT_EQ(RemoteFile("docwright/restructure:mint.json/x.md"), "# Now a folder");
  EXPECT_EQ(Sh("git --git-dir=" + remote_ + " rev-parse docwright/restructure:assets/big.txt"),
            Sh("git --git-dir=" + remote_ + " rev-parse main:big.txt"));
  EXPECT_EQ(
      Sh("git --git-dir=" + remote_ + " ls-tree docwright/restructure big.txt script.sh tools"), "")
      << "moved away, and a file written then deleted leaves nothing";
  EXPECT_EQ(RemoteFile("docwright/restructure:bin/script.sh"), "#!/bin/sh\necho bye");
  EXPECT_EQ(
      Sh("git --git-dir=" + remote_ + " ls-tree docwright/restructure bin/script.sh").substr(0, 6),
      "100755")
      << "edited, then moved: still executable";
  EXPECT_EQ(Sh("git --git-dir=" + remote_ + " ls-tree docwright/restructure docs/guide"), "");
}

TEST_F(GitTest, MovedFilesKeepTheirModeAndMovingBackIsNoChange) {
  auto mirror = OpenMirror(remote_);
  auto snap = Snap(*mirror, Fetch(*mirror, "main"));
  ASSERT_TRUE(snap);
  Workspace work(*snap);
  ASSERT_TRUE(work.Move("script.sh", "bin/script.sh").ok());
  ASSERT_TRUE(work.Move("logo.png", "img/logo.png").ok());
  ASSERT_TRUE(work.Move("img/logo.png", "logo.png").ok());
  auto changes = work.Changes();
  EXPECT_EQ(changes.size(), 2u) << "the logo moved back: no change";
  auto commit = mirror->Commit(work, Identity{}, "move");
  ASSERT_TRUE(commit.ok()) << commit.status().message();
  ASSERT_TRUE(mirror->Push(*commit, "docwright/move", std::nullopt).ok());
  EXPECT_EQ(Sh("git --git-dir=" + remote_ + " ls-tree docwright/move bin/script.sh").substr(0, 6),
            "100755");
}

TEST_F(GitTest, PushIsALeaseOnTheHeadTheTurnStartedFrom) {
  auto mirror = OpenMirror(remote_);
  std::string branch = "docwright/lease";
  std::string h1;
  {
    auto snap = Snap(*mirror, Fetch(*mirror, "main"));
    ASSERT_TRUE(snap);
    Workspace work(*snap);
    ASSERT_TRUE(work.Write("docs/a.md", "a\n").ok());
    h1 = *mirror->Commit(work, Identity{}, "first");
    ASSERT_TRUE(mirror->Push(h1, branch, std::nullopt).ok());
    EXPECT_EQ(mirror->Push(h1, branch, std::nullopt).code(), Code::kConflict)
        << "a new branch must not exist yet";
  }
  // A reviewer drops the bot's commit: the branch goes back to main.
  Sh("git --git-dir=" + remote_ + " update-ref refs/heads/" + branch + " " + head_);
  auto snap = Snap(*mirror, h1);  // the turn started from h1
  ASSERT_TRUE(snap);
  Workspace work(*snap);
  ASSERT_TRUE(work.Write("docs/b.md", "b\n").ok());
  auto c = mirror->Commit(work, Identity{}, "second");
  ASSERT_TRUE(c.ok());
  // A fast-forward of what the remote has now, but not built on it: refused.
  EXPECT_EQ(mirror->Push(*c, branch, h1).code(), Code::kConflict);
  EXPECT_EQ(Sh("git --git-dir=" + remote_ + " rev-parse " + branch), head_);
}

TEST_F(GitTest, ABranchDeletedOnTheRemoteIsGoneFromTheMirror) {
  auto mirror = OpenMirror(remote_);
  Sh("git --git-dir=" + remote_ + " branch gone main");
  Fetch(*mirror, "gone");
  Sh("git --git-dir=" + remote_ + " branch -D gone");
  EXPECT_EQ(mirror->FetchBranch("gone").status().code(), Code::kNotFound);
}

TEST_F(GitTest, LockFilesLeftByACrashedProcessDoNotBlockTheMirror) {
  auto mirror = OpenMirror(remote_);
  auto snap = Snap(*mirror, Fetch(*mirror, "main"));
  Workspace work(*snap);
  ASSERT_TRUE(work.Write("docs/after-crash.md", "# Hi\n").ok());
  auto commit = mirror->Commit(work, Identity{}, "after a crash");
  ASSERT_TRUE(commit.ok());
  // What a process killed in the middle of a push or fetch leaves behind.
  std::string root = dir_ / "mirrors/p1.git";
  for (const char* stale :
       {"refs/docwright/push/docwright/crash.lock", "refs/remotes/origin/docwright/crash.lock",
        "refs/remotes/origin/main.lock", "packed-refs.lock"}) {
    std::filesystem::create_directories(std::filesystem::path(root + "/" + stale).parent_path());
    std::ofstream(root + "/" + stale) << "";
  }
  Status pushed = mirror->Push(*commit, "docwright/crash", std::nullopt);
  EXPECT_TRUE(pushed.ok()) << pushed.message();
  auto fetched = mirror->FetchBranches({"main", "docwright/crash"});
  ASSERT_TRUE(fetched.ok()) << fetched.status().message();
  EXPECT_EQ(fetched->at("docwright/crash"), *commit);
}

// A bare repository on the same machine is written directly, not through a
// transport: the objects a push leaves must be complete, the lease must hold for
// loose and packed refs alike, and racing writers must never both win.
TEST_F(GitTest, LocalRemotesTakeCompleteObjectsAndKeepTheLease) {
  auto a = OpenMirror(remote_);
  auto b = Mirror::Open(dir_ / "mirrors/p2.git", "file://" + remote_, Credentials{});
  ASSERT_TRUE(b.ok()) << b.status().message();
  auto commit_on = [](Mirror& mirror, const std::string& head, const std::string& path) {
    auto snap = mirror.OpenSnapshot(head);
    EXPECT_TRUE(snap.ok());
    Workspace work(**snap);
    EXPECT_TRUE(work.Write(path, "# " + path + "\n").ok());
    EXPECT_TRUE(work.Write("docs/guide/usage.md", "# Usage\nBy " + path + "\n").ok());
    auto commit = mirror.Commit(work, Identity{}, "add " + path);
    EXPECT_TRUE(commit.ok()) << commit.status().message();
    return commit.ok() ? *commit : std::string();
  };

  // Two mirrors race to create the same branch, many times: one wins each race.
  std::string main_a = Fetch(*a, "main"), main_b = Fetch(**b, "main");
  for (int round = 0; round < 20; ++round) {
    std::string branch = "docwright/race-" + std::to_string(round);
    std::string ca = commit_on(*a, main_a, "docs/new/a.md");
    std::string cb = commit_on(**b, main_b, "docs/new/b.md");
    Status pa, pb;
    std::thread ta([&] { pa = a->Push(ca, branch, std::nullopt); });
    std::thread tb([&] { pb = (*b)->Push(cb, branch, std::nullopt); });
    ta.join();
    tb.join();
    ASSERT_NE(pa.ok(), pb.ok()) << pa.message() << " / " << pb.message();
    Status lost = pa.ok() ? pb : pa;
    EXPECT_EQ(lost.code(), Code::kConflict) << lost.message();
    EXPECT_EQ(Sh("git --git-dir=" + remote_ + " rev-parse " + branch), pa.ok() ? ca : cb);
  }

  // Packed refs: the lease reads and updates them as it does loose ones.
  std::string branch = "docwright/packed";
  std::string first = commit_on(*a, main_a, "docs/packed/one.md");
  ASSERT_TRUE(a->Push(first, branch, std::nullopt).ok());
  Sh("git --git-dir=" + remote_ + " pack-refs --all");
  ASSERT_FALSE(std::filesystem::exists(remote_ + "/refs/heads/" + branch)) << "the ref is packed";
  EXPECT_EQ(Fetch(**b, branch), first) << "b has never seen this commit: it is fetched";
  std::string second = commit_on(**b, first, "docs/packed/two.md");
  EXPECT_EQ((*b)->Push(second, branch, main_b).code(), Code::kConflict) << "not the head";
  ASSERT_TRUE((*b)->Push(second, branch, first).ok());
  std::string stale = commit_on(*a, first, "docs/packed/three.md");
  EXPECT_EQ(a->Push(stale, branch, first).code(), Code::kConflict) << "the branch moved";
  EXPECT_EQ(Sh("git --git-dir=" + remote_ + " rev-parse " + branch), second);
  EXPECT_EQ(RemoteFile(branch + ":docs/packed/two.md"), "# docs/packed/two.md");

  // Whatever was pushed, every object in the remote is whole and reachable ones
  // are all there.
  Sh("git --git-dir=" + remote_ + " fsck --strict --no-dangling --connectivity-only");
  Sh("git --git-dir=" + remote_ + " fsck --strict --no-dangling");

  // A lock someone holds for long is reported as such, and nothing is changed.
  std::string locked = commit_on(*a, main_a, "docs/locked.md");
  std::ofstream(remote_ + "/refs/heads/docwright/locked.lock") << "";
  Status refused = a->Push(locked, "docwright/locked", std::nullopt);
  EXPECT_EQ(refused.code(), Code::kUnavailable) << refused.message();
  EXPECT_NE(refused.message().find("locked"), std::string::npos) << refused.message();
  EXPECT_FALSE(std::filesystem::exists(remote_ + "/refs/heads/docwright/locked"));

  // A repository with a working tree is refused, as git refuses a push to one.
  Sh("git clone -q " + remote_ + " " + dir_ / "worktree");
  auto w = Mirror::Open(dir_ / "mirrors/w.git", dir_ / "worktree", Credentials{});
  ASSERT_TRUE(w.ok());
  std::string on_worktree = commit_on(**w, Fetch(**w, "main"), "docs/w.md");
  EXPECT_FALSE((*w)->Push(on_worktree, "docwright/w", std::nullopt).ok());
  EXPECT_EQ(Sh("git -C " + dir_ / "worktree" + " branch --list docwright/w"), "");
}

// Written directly: objects land loose (no pack is sent), a commit whose parent
// the remote lacks brings its parent along, and a remote replaced after first
// use is seen as it is now.
TEST_F(GitTest, LocalRemotesGetEveryMissingObjectEvenAfterBeingReplaced) {
  auto mirror = Mirror::Open(dir_ / "mirrors/l.git", "file://localhost" + remote_, Credentials{});
  ASSERT_TRUE(mirror.ok()) << mirror.status().message();
  Mirror& m = **mirror;
  auto commit_on = [&](const std::string& head, const std::string& path) {
    auto snap = m.OpenSnapshot(head);
    EXPECT_TRUE(snap.ok());
    Workspace work(**snap);
    EXPECT_TRUE(work.Write(path, "# " + path + "\n").ok());
    auto commit = m.Commit(work, Identity{}, "add " + path);
    EXPECT_TRUE(commit.ok()) << commit.status().message();
    return commit.ok() ? *commit : std::string();
  };
  auto packs = [&] {
    size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(remote_ + "/objects/pack")) {
      n += e.path().extension() == ".pack";
    }
    return n;
  };
  std::string main_head = Fetch(m, "main");
  size_t packs_before = packs();
  std::string first = commit_on(main_head, "docs/first.md");
  ASSERT_TRUE(m.Push(first, "docwright/first", std::nullopt).ok());
  EXPECT_EQ(packs(), packs_before) << "the objects were written, not sent as a pack";
  EXPECT_EQ(RemoteFile("docwright/first:docs/first.md"), "# docs/first.md");

  // The remote packs what it has (a handle kept from the push above would go on
  // finding `first` in that pack), then is re-created with main only.
  Sh("git --git-dir=" + remote_ + " repack -adq");
  std::string fresh = dir_ / "fresh.git";
  Sh(std::string(kGit) + " init -q --bare " + fresh + " && cd " + seed_ + " && " + kGit +
     " push -q " + fresh + " main");
  std::filesystem::remove_all(remote_);
  std::filesystem::rename(fresh, remote_);
  // A commit on top of `first`: both must arrive.
  std::string second = commit_on(first, "docs/second.md");
  ASSERT_TRUE(m.Push(second, "docwright/second", std::nullopt).ok());
  EXPECT_EQ(RemoteFile("docwright/second:docs/first.md"), "# docs/first.md");
  EXPECT_EQ(RemoteFile("docwright/second:docs/second.md"), "# docs/second.md");
  EXPECT_EQ(Sh("git --git-dir=" + remote_ + " rev-parse docwright/second^"), first);
  Sh("git --git-dir=" + remote_ + " fsck --strict --no-dangling");
  auto heads = m.FetchBranches({"main", "docwright/first", "docwright/second"});
  ASSERT_TRUE(heads.ok()) << heads.status().message();
  EXPECT_EQ(heads->at("docwright/first"), std::nullopt) << "gone with the old remote";
  EXPECT_EQ(heads->at("docwright/second"), second);

  // Never a forced update: a commit that does not descend from the head.
  std::string aside = commit_on(main_head, "docs/aside.md");
  Status refused = m.Push(aside, "docwright/second", second);
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("fast-forward"), std::string::npos) << refused.message();
  EXPECT_EQ(Sh("git --git-dir=" + remote_ + " rev-parse docwright/second"), second);
}

TEST_F(GitTest, NothingToCommitIsAnError) {
  auto mirror = OpenMirror(remote_);
  auto snap = Snap(*mirror, Fetch(*mirror, "main"));
  ASSERT_TRUE(snap);
  Workspace work(*snap);
  ASSERT_TRUE(work.Write("mint.json", "{\"name\": \"Acme\"}\n").ok());  // the same content
  EXPECT_TRUE(work.Changes().empty());
  EXPECT_EQ(mirror->Commit(work, Identity{}, "x").status().code(), Code::kInvalidArgument);
}

TEST_F(GitTest, PushRefusesToOverwriteWorkPushedMeanwhile) {
  auto mirror = OpenMirror(remote_);
  std::string branch = "docwright/abc-typo";
  {
    auto snap = Snap(*mirror, Fetch(*mirror, "main"));
    ASSERT_TRUE(snap);
    Workspace work(*snap);
    ASSERT_TRUE(work.Write("docs/index.md", "# Welcome!\n").ok());
    ASSERT_TRUE(
        mirror->Push(*mirror->Commit(work, Identity{}, "first turn"), branch, std::nullopt).ok());
  }
  // The follow-up turn starts from the branch head...
  auto turn_head = mirror->FetchBranch(branch);
  ASSERT_TRUE(turn_head.ok());
  // ...meanwhile a person pushes to the pull request's branch.
  Sh("cd " + seed_ + " && " + kGit + " fetch -q origin " + branch + " && " + kGit +
     " checkout -q -b review FETCH_HEAD && echo 'reviewed' > docs/review.md && " + kGit +
     " add -A && " + kGit + " commit -qm review && " + kGit + " push -q origin HEAD:" + branch);
  auto snap = Snap(*mirror, *turn_head);
  ASSERT_TRUE(snap);
  Workspace work(*snap);
  ASSERT_TRUE(work.Write("docs/guide/usage.md", "# Usage\nMore.\n").ok());
  auto stale = mirror->Commit(work, Identity{}, "second turn");
  ASSERT_TRUE(stale.ok());
  Status refused = mirror->Push(*stale, branch, *turn_head);
  EXPECT_EQ(refused.code(), Code::kConflict) << refused.message();
  EXPECT_EQ(RemoteFile(branch + ":docs/review.md"), "reviewed") << "the person's work survives";

  // Retried from the new head, the same edit goes on top of the person's commit.
  auto new_head = mirror->FetchBranch(branch);
  ASSERT_TRUE(new_head.ok());
  EXPECT_NE(*new_head, *turn_head);
  auto snap2 = Snap(*mirror, *new_head);
  ASSERT_TRUE(snap2);
  Workspace again(*snap2);
  ASSERT_TRUE(again.Write("docs/guide/usage.md", "# Usage\nMore.\n").ok());
  ASSERT_TRUE(
      mirror->Push(*mirror->Commit(again, Identity{}, "second turn"), branch, *new_head).ok());
  EXPECT_EQ(RemoteFile(branch + ":docs/review.md"), "reviewed");
  EXPECT_EQ(RemoteFile(branch + ":docs/guide/usage.md"), "# Usage\nMore.");
}

TEST_F(GitTest, FileUrlsWorkAndCredentialsNeverAppearInErrors) {
  auto mirror = Mirror::Open(dir_ / "mirrors/f.git", "file://" + remote_, Credentials{});
  ASSERT_TRUE(mirror.ok());
  EXPECT_EQ(*(*mirror)->FetchBranch("main"), head_);
  auto secret = Mirror::Open(dir_ / "mirrors/s.git", "http://user:hunter2@127.0.0.1:1/x.git",
                             Credentials{"tok_secret"});
  ASSERT_TRUE(secret.ok());
  auto r = (*secret)->FetchBranch("main");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().find("hunter2"), std::string::npos) << r.status().message();
  EXPECT_EQ(r.status().message().find("tok_secret"), std::string::npos);
  EXPECT_EQ(std::string(Sh("cat " + dir_ / "mirrors/s.git/config")).find("hunter2"),
            std::string::npos)
      << "the remote URL is not stored";
}

TEST_F(GitTest, SmartHttpWithATokenFetchesAndPushes) {
  testing::GitHttpServer server(dir_.path(), "tok_right");
  auto mirror =
      Mirror::Open(dir_ / "mirrors/http.git", server.Url("remote.git"), Credentials{"tok_right"});
  ASSERT_TRUE(mirror.ok());
  auto head = (*mirror)->FetchBranch("main");
  ASSERT_TRUE(head.ok()) << head.status().message();
  EXPECT_EQ(*head, head_);
  auto snap = Snap(**mirror, *head);
  ASSERT_TRUE(snap);
  Workspace work(*snap);
  ASSERT_TRUE(work.Write("docs/http.md", "# Over HTTP\n").ok());
  auto commit = (*mirror)->Commit(work, Identity{}, "over http");
  ASSERT_TRUE(commit.ok());
  Status pushed = (*mirror)->Push(*commit, "docwright/http", std::nullopt);
  ASSERT_TRUE(pushed.ok()) << pushed.message();
  EXPECT_EQ(RemoteFile("docwright/http:docs/http.md"), "# Over HTTP");
  EXPECT_GT(server.requests(), 2);
}

// An archived job's fetch or push is abandoned as data moves: the fetch leaves
// the mirror as it was, the push updates no branch.
TEST_F(GitTest, FetchAndPushAreAbandonedWhenCancelled) {
  testing::GitHttpServer server(dir_.path(), "tok_right");
  auto mirror =
      Mirror::Open(dir_ / "mirrors/http.git", server.Url("remote.git"), Credentials{"tok_right"});
  ASSERT_TRUE(mirror.ok());
  int asked = 0;
  // Not yet cancelled when asked before the fetch; cancelled once data arrives.
  auto fetched = (*mirror)->FetchBranches({"main"}, [&asked] { return ++asked > 1; });
  ASSERT_FALSE(fetched.ok());
  EXPECT_NE(fetched.status().message().find("cancelled"), std::string::npos)
      << fetched.status().message();
  EXPECT_GT(asked, 1) << "asked while the fetch was under way";
  EXPECT_FALSE((*mirror)->OpenSnapshot(head_).ok()) << "the mirror got no commit";

  auto head = (*mirror)->FetchBranch("main");
  ASSERT_TRUE(head.ok()) << head.status().message();
  auto snap = Snap(**mirror, *head);
  ASSERT_TRUE(snap);
  Workspace work(*snap);
  ASSERT_TRUE(work.Write("docs/cancelled.md", "# Never pushed\n").ok());
  auto commit = (*mirror)->Commit(work, Identity{}, "cancelled");
  ASSERT_TRUE(commit.ok());
  asked = 0;
  Status pushed = (*mirror)->Push(*commit, "docwright/cancelled", std::nullopt,
                                  [&asked] { return ++asked > 1; });
  EXPECT_FALSE(pushed.ok());
  EXPECT_NE(pushed.message().find("cancelled"), std::string::npos) << pushed.message();
  EXPECT_EQ(Sh("git --git-dir=" + remote_ + " branch --list docwright/cancelled"), "");
  // Not cancelled: the same push goes through.
  Status again =
      (*mirror)->Push(*commit, "docwright/cancelled", std::nullopt, [] { return false; });
  EXPECT_TRUE(again.ok()) << again.message();
  EXPECT_EQ(RemoteFile("docwright/cancelled:docs/cancelled.md"), "# Never pushed");
}

TEST_F(GitTest, SshWithAKeyFetchesAndPushesToAKnownHostOnly) {
  testing::SshServer ssh(dir_ / "ssh");
  DOCWRIGHT_START_SSH_SERVER(ssh);
  Credentials key;
  key.ssh_key_path = ssh.client_key();
  key.ssh_known_hosts_path = ssh.known_hosts();
  auto mirror = Mirror::Open(dir_ / "mirrors/ssh.git", ssh.Url(remote_), key);
  ASSERT_TRUE(mirror.ok());
  auto head = (*mirror)->FetchBranch("main");
  ASSERT_TRUE(head.ok()) << head.status().message();
  EXPECT_EQ(*head, head_);
  auto snap = Snap(**mirror, *head);
  ASSERT_TRUE(snap);
  Workspace work(*snap);
  ASSERT_TRUE(work.Write("docs/ssh.md", "# Over SSH\n").ok());
  auto commit = (*mirror)->Commit(work, Identity{}, "over ssh");
  ASSERT_TRUE(commit.ok());
  Status pushed = (*mirror)->Push(*commit, "docwright/ssh", std::nullopt);
  ASSERT_TRUE(pushed.ok()) << pushed.message();
  EXPECT_EQ(RemoteFile("docwright/ssh:docs/ssh.md"), "# Over SSH");

  // A key the server does not know: refused, clearly.
  Credentials stranger = key;
  stranger.ssh_key_path = ssh.other_key();
  auto refused = Mirror::Open(dir_ / "mirrors/stranger.git", ssh.Url(remote_), stranger);
  ASSERT_TRUE(refused.ok());
  auto denied = (*refused)->FetchBranch("main");
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.status().code(), Code::kUnauthenticated) << denied.status().message();

  // A server whose host key is not listed, or listed as another key: never
  // talked to, and nothing is pushed.
  std::ofstream(dir_ / "empty_known_hosts") << "";
  std::ofstream(dir_ / "wrong_known_hosts")
      << "[127.0.0.1]:" << ssh.Url("").substr(ssh.Url("").rfind(':') + 1)
      << " ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDxjtS7yFbbMGUh/dWUMCVcbF+XUk2shoPrEkH5Fi8Kc\n";
  for (const char* file : {"empty_known_hosts", "wrong_known_hosts"}) {
    Credentials unknown = key;
    unknown.ssh_known_hosts_path = dir_ / file;
    auto m = Mirror::Open(dir_ / "mirrors/" + file, ssh.Url(remote_), unknown);
    ASSERT_TRUE(m.ok());
    auto fetched = (*m)->FetchBranch("main");
    ASSERT_FALSE(fetched.ok()) << file;
    EXPECT_EQ(fetched.status().code(), Code::kUnauthenticated);
    EXPECT_NE(fetched.status().message().find("host key"), std::string::npos)
        << fetched.status().message();
    EXPECT_NE(fetched.status().message().find(file), std::string::npos);
  }
}

TEST(GitKnownHosts, MatchesNamesPortsHashesAndRevocations) {
  // A made-up key blob; known_hosts holds it in base64.
  const std::string blob = std::string("\0\0\0\x0bssh-ed25519\0\0\0\x03key", 22);
  const std::string b64 = "AAAAC3NzaC1lZDI1NTE5AAAAA2tleQ==";
  const std::string other = "AAAAC3NzaC1lZDI1NTE5AAAAA290aA==";
  EXPECT_TRUE(KnownHostsAccepts("git.example ssh-ed25519 " + b64 + "\n", "git.example", 22, blob));
  EXPECT_TRUE(
      KnownHostsAccepts("GIT.example,10.0.0.1 ssh-ed25519 " + b64, "git.example", 22, blob));
  EXPECT_FALSE(KnownHostsAccepts("git.example ssh-ed25519 " + other, "git.example", 22, blob));
  EXPECT_FALSE(KnownHostsAccepts("git.example ssh-ed25519 " + b64, "git.example", 2222, blob))
      << "another port is another host";
  EXPECT_TRUE(
      KnownHostsAccepts("[git.example]:2222 ssh-ed25519 " + b64, "git.example", 2222, blob));
  EXPECT_TRUE(KnownHostsAccepts("*.example ssh-ed25519 " + b64, "git.example", 22, blob));
  EXPECT_FALSE(
      KnownHostsAccepts("*.example,!git.example ssh-ed25519 " + b64, "git.example", 22, blob));
  EXPECT_FALSE(KnownHostsAccepts("# git.example ssh-ed25519 " + b64, "git.example", 22, blob));
  EXPECT_FALSE(
      KnownHostsAccepts("git.example ssh-ed25519 " + b64 + "\n@revoked * ssh-ed25519 " + b64,
                        "git.example", 22, blob));
  EXPECT_FALSE(KnownHostsAccepts("@cert-authority * ssh-ed25519 " + b64, "git.example", 22, blob));
  // A star in a pattern is a wildcard even where the name holds a star.
  EXPECT_FALSE(KnownHostsAccepts("*h ssh-ed25519 " + b64 + "\n@revoked * ssh-ed25519 " + b64, "*h",
                                 22, blob));
  EXPECT_TRUE(KnownHostsAccepts("a*c ssh-ed25519 " + b64, "a*xc", 22, blob));
  // ssh-keygen -H: HMAC-SHA1 of the name, keyed by a random salt.
  std::string hashed = testing::Sh("printf 'git.example ssh-ed25519 " + b64 + "\\n' > " +
                                   std::string("/tmp/dw_kh_$$") +
                                   " && ssh-keygen -H -f /tmp/dw_kh_$$ >/dev/null 2>&1 && "
                                   "grep -v '^#' /tmp/dw_kh_$$; rm -f /tmp/dw_kh_$$*");
  ASSERT_EQ(hashed.rfind("|1|", 0), 0u) << hashed;
  EXPECT_TRUE(KnownHostsAccepts(hashed, "git.example", 22, blob));
  EXPECT_FALSE(KnownHostsAccepts(hashed, "other.example", 22, blob));
}

TEST_F(GitTest, SmartHttpWithAWrongOrNoTokenIsRefusedClearly) {
  testing::GitHttpServer server(dir_.path(), "tok_right");
  for (const auto& creds : {Credentials{"tok_wrong"}, Credentials{}}) {
    auto mirror = Mirror::Open(dir_ / "mirrors/denied.git", server.Url("remote.git"), creds);
    ASSERT_TRUE(mirror.ok());
    auto r = (*mirror)->FetchBranch("main");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Code::kUnauthenticated) << r.status().message();
    EXPECT_EQ(r.status().message().find("tok_wrong"), std::string::npos);
  }
  // A push with the wrong token is refused the same way, and changes nothing.
  std::string commit;
  {
    auto good = Mirror::Open(dir_ / "mirrors/good.git", remote_, Credentials{});
    auto snap = Snap(**good, Fetch(**good, "main"));
    ASSERT_TRUE(snap);
    Workspace work(*snap);
    ASSERT_TRUE(work.Write("x.md", "x").ok());
    auto made = (*good)->Commit(work, Identity{}, "x");
    ASSERT_TRUE(made.ok());
    commit = *made;
  }
  auto wrong =
      Mirror::Open(dir_ / "mirrors/good.git", server.Url("remote.git"), Credentials{"tok_wrong"});
  Status refused = (*wrong)->Push(commit, "docwright/denied", std::nullopt);
  EXPECT_EQ(refused.code(), Code::kUnauthenticated) << refused.message();
  EXPECT_EQ(Sh("git --git-dir=" + remote_ + " branch --list docwright/denied"), "");
}

// --- Hostile shapes: every walk, read and diff is bounded and charged ---------

// A mirror of a hostile repository of `shape` (hostile_repo.sh's arguments) and
// a snapshot of its main, charging `budget`.
struct HostileSnapshot {
  std::unique_ptr<Mirror> mirror;
  std::unique_ptr<Snapshot> snapshot;
  std::string head;
};
HostileSnapshot OpenHostile(const std::string& dir, const std::string& shape, WorkBudget* budget) {
  HostileSnapshot h;
  testing::MakeHostileRepo(dir + "/remote.git", shape);
  h.mirror = std::move(*Mirror::Open(dir + "/mirror.git", dir + "/remote.git", Credentials{}));
  h.head = *h.mirror->FetchBranch("main");
  h.snapshot = std::move(*h.mirror->OpenSnapshot(h.head));
  h.snapshot->SetBudget(budget);
  return h;
}

TEST(GitHostile, AWalkCountsEveryEntryWhateverItsKindAndFindsTheFilesNearTheTop) {
  for (const char* leaf : {"link", "submodule", "file"}) {
    testing::TempDir dir;
    WorkBudget budget(WorkBudget::TurnLimits());
    auto h = OpenHostile(dir.path(),
                         std::string("tree-bomb --fanout 1000 --depth 3 --leaf ") + leaf, &budget);
    bool cut = false;
    auto files = h.snapshot->Walk("", 600, &cut);
    ASSERT_TRUE(files.ok()) << files.status().message();
    EXPECT_TRUE(cut) << leaf;
    // Breadth first: the page beside the bomb is found, whatever the bomb holds
    // (its leaves are further down than the walk goes).
    EXPECT_EQ(*files, std::vector<std::string>{"index.md"}) << leaf;
    EXPECT_LE(budget.used(WorkBudget::Meter::kEntries), 600 * kWalkVisitsPerPath + 16) << leaf;
  }
}

TEST(GitHostile, ListingAFolderOfABillionFilesCostsItsOwnEntriesOnly) {
  testing::TempDir dir;
  WorkBudget budget(WorkBudget::TurnLimits());
  auto h = OpenHostile(dir.path(), "tree-bomb --leaf file", &budget);
  Workspace work(*h.snapshot);
  ASSERT_TRUE(work.Delete("bomb/d0000/d0000/f0000.md").ok());
  ASSERT_TRUE(work.Delete("bomb/d0001/d0000/f0000.md").ok());
  auto root = work.List("");
  ASSERT_TRUE(root.ok()) << root.status().message();
  ASSERT_EQ(root->size(), 2u);
  EXPECT_EQ((*root)[0].name, "bomb");
  auto bomb = work.List("bomb");
  ASSERT_TRUE(bomb.ok());
  EXPECT_EQ(bomb->size(), 1000u);
  // Whether each folder is still there after the deletions is decided from
  // the deletions, not from the billion files below.
  EXPECT_LT(budget.used(WorkBudget::Meter::kEntries), 100000u);
  EXPECT_TRUE(work.Delete("index.md").ok());
  EXPECT_EQ(work.List("")->size(), 1u);
}

TEST(GitHostile, ASpentBudgetRefusesReadsAndListingsAndStopsWalks) {
  testing::TempDir dir;
  WorkBudget budget({.bytes_read = 100});
  auto h = OpenHostile(dir.path(), "one-blob --paths 10 --size 4096", &budget);
  EXPECT_TRUE(h.snapshot->Read("index.md").ok());
  auto big = h.snapshot->Read("many/p0000/page00000.md");
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), Code::kResourceExhausted);
  EXPECT_NE(big.status().message().find("bytes read"), std::string::npos) << big.status().message();
  EXPECT_EQ(h.snapshot->List("").status().code(), Code::kResourceExhausted);
  EXPECT_EQ(h.snapshot->Walk("", 100).status().code(), Code::kResourceExhausted);
  // Without a budget the same snapshot reads again.
  h.snapshot->SetBudget(nullptr);
  EXPECT_TRUE(h.snapshot->Read("many/p0000/page00000.md").ok());
}

TEST(GitHostile, ALargeFileIsNamedInTheDiffWithItsSizesNotCompared) {
  testing::TempDir dir;
  auto h = OpenHostile(dir.path(), "big-file --size 3000000", nullptr);
  Workspace work(*h.snapshot);
  ASSERT_TRUE(work.Delete("big/data.md").ok());
  ASSERT_TRUE(work.Write("notes.md", "# Notes\n").ok());
  auto commit = h.mirror->Commit(work, Identity{}, "drop the dump");
  ASSERT_TRUE(commit.ok());
  auto diff = h.mirror->Diff(h.head, *commit, 1 << 20);
  ASSERT_TRUE(diff.ok()) << diff.status().message();
  EXPECT_EQ(diff->files, (std::vector<std::string>{"big/data.md", "notes.md"}));
  EXPECT_NE(
      diff->patch.find("diff --git a/big/data.md b/big/data.md\ndeleted file mode 100644\n"
                       "large file changed: 3000000 bytes before, 0 bytes after; not shown\n"),
      std::string::npos)
      << diff->patch.substr(0, 1000);
  EXPECT_EQ(diff->patch.find("row 0000001"), std::string::npos) << "never compared";
  EXPECT_NE(diff->patch.find("+# Notes"), std::string::npos) << "small files are";
  // A budget spent by the comparison stops it.
  WorkBudget small({.bytes_read = 10});
  auto stopped = h.mirror->Diff(h.head, *commit, 1 << 20, &small);
  EXPECT_EQ(stopped.status().code(), Code::kResourceExhausted);
}

TEST(GitHostile, ADiffOfMoreFilesThanItCanListSaysSo) {
  testing::TempDir dir;
  auto h = OpenHostile(dir.path(), "tree-bomb --leaf file --fanout 400 --depth 2", nullptr);
  const std::string git = std::string(kGit) + " --git-dir=" + dir.path() + "/remote.git";
  std::string base = Sh(git + " commit-tree -m base " + Sh(git + " rev-parse main:bomb/d0000"));
  Sh(git + " update-ref refs/heads/base " + base);
  auto base_head = h.mirror->FetchBranch("base");
  ASSERT_TRUE(base_head.ok());
  // 160,000 files added: more than a diff lists.
  auto diff = h.mirror->Diff(*base_head, h.head, 1 << 20);
  ASSERT_TRUE(diff.ok()) << diff.status().message();
  EXPECT_TRUE(diff->truncated);
  EXPECT_TRUE(diff->files.empty());
  EXPECT_NE(diff->patch.find("more than 100000 files changed"), std::string::npos) << diff->patch;
}

// What one turn's edits may hold in memory is bounded: bytes written and paths
// changed; past either, the write is refused with a clear error (which the
// model sees) and the edits so far stay.
TEST(GitHostile, AWorkspaceHoldsAtMostItsLimitsOfEdits) {
  testing::TempDir dir;
  auto h = OpenHostile(dir.path(), "one-blob --paths 2 --size 100", nullptr);
  Workspace work(*h.snapshot);
  const std::string mebibyte(1 << 20, 'm');
  for (size_t i = 0; i < kMaxChangedBytes / mebibyte.size(); ++i) {
    ASSERT_TRUE(work.Write("big/" + std::to_string(i) + ".md", mebibyte).ok()) << i;
  }
  Status over = work.Write("big/one-more.md", "x");
  EXPECT_EQ(over.code(), Code::kInvalidArgument);
  EXPECT_NE(over.message().find("over 64 MiB"), std::string::npos) << over.message();
  // Rewriting a file in place, smaller, is room enough.
  EXPECT_TRUE(work.Write("big/0.md", "small").ok());
  EXPECT_TRUE(work.Write("big/one-more.md", "x").ok());
  for (size_t i = work.Changes().size(); i < kMaxChangedPaths; ++i) {
    ASSERT_TRUE(work.Write("many/" + std::to_string(i) + ".md", "x").ok()) << i;
  }
  Status too_many = work.Write("many/last.md", "x");
  EXPECT_NE(too_many.message().find("10000 paths"), std::string::npos) << too_many.message();
  EXPECT_EQ(work.Move("index.md", "moved.md").code(), Code::kInvalidArgument);
}

// One folder of 600,000 entries is a 23 MB tree object in 1.6 MB of repository,
// and a commit message can be as large: their sizes are read from their headers
// and an object over the limit is refused by name, never loaded.
TEST(GitHostile, ObjectsTooLargeToReadAreRefusedFromTheirHeaders) {
  testing::TempDir dir;
  WorkBudget budget(WorkBudget::TurnLimits());
  auto h = OpenHostile(dir.path(), "wide --entries 600000", &budget);
  auto listed = h.snapshot->List("wide");
  ASSERT_FALSE(listed.ok());
  EXPECT_EQ(listed.status().code(), Code::kInvalidArgument);
  EXPECT_NE(listed.status().message().find("the folder wide is too large to read: 22800000 bytes"),
            std::string::npos)
      << listed.status().message();
  EXPECT_FALSE(h.snapshot->Read("wide/f000000.md").ok());
  auto walked = h.snapshot->Walk("", 600);
  ASSERT_TRUE(walked.ok()) << walked.status().message();
  EXPECT_EQ(*walked, std::vector<std::string>{"index.md"}) << "the folder is passed over";

  const std::string git = std::string(kGit) + " --git-dir=" + dir.path() + "/remote.git";
  Sh("head -c 2000000 /dev/zero | tr '\\0' m > " + dir.path() + "/message");
  std::string huge = Sh(git + " commit-tree -p main -F " + dir.path() + "/message main^{tree}");
  Sh(git + " update-ref refs/heads/huge " + huge);
  auto head = h.mirror->FetchBranch("huge");
  ASSERT_TRUE(head.ok()) << head.status().message();
  auto found = h.mirror->FindCommitMessage(*head, "Docwright-Job", 50);
  ASSERT_FALSE(found.ok());
  EXPECT_NE(found.status().message().find("too large to read"), std::string::npos);
  EXPECT_FALSE(h.mirror->OpenSnapshot(*head).ok());
}

// A branch can nest folders far deeper than any path a file system takes: the
// comparison needs no recursion, holds two trees at a time, and stops, saying
// why, at a path no reader takes. 5,000 levels are a path of 10,007 bytes,
// more than twice the limit's 4,096: what lies past the limit is never read,
// so deeper costs the test's git (20,000 levels took 48 s under ASan) and
// proves nothing more.
TEST(GitHostile, ADiffOfFoldersNestedFiveThousandDeepStopsAtThePathLimit) {
  testing::TempDir dir;
  auto h = OpenHostile(dir.path(), "deep --depth 5000", nullptr);
  const std::string git = std::string(kGit) + " --git-dir=" + dir.path() + "/remote.git";
  std::string only_index = Sh("printf '100644 blob %s\\tindex.md\\n' $(" + git +
                              " rev-parse main:index.md) | " + git + " mktree");
  std::string base = Sh(git + " commit-tree -m base " + only_index);
  Sh(git + " update-ref refs/heads/base " + base);
  auto base_head = h.mirror->FetchBranch("base");
  ASSERT_TRUE(base_head.ok());
  WorkBudget budget(WorkBudget::TurnLimits());
  auto diff = h.mirror->Diff(*base_head, h.head, 1 << 20, &budget);
  ASSERT_TRUE(diff.ok()) << diff.status().message();
  EXPECT_TRUE(diff->truncated);
  EXPECT_EQ(diff->patch, "[the changes are not shown: a path is longer than 4096 bytes]\n");
}

// A branch of a repository that holds a billion files changes one page: the
// comparison goes over what differs, not over the trees the two share.
TEST(GitHostile, AChangeBesideABillionFilesIsComparedAtOnce) {
  testing::TempDir dir;
  WorkBudget budget(WorkBudget::TurnLimits());
  auto h = OpenHostile(dir.path(), "tree-bomb --leaf file", &budget);
  Workspace work(*h.snapshot);
  ASSERT_TRUE(work.Write("index.md", "# Home\n\nWelcome back.\n").ok());
  auto commit = h.mirror->Commit(work, Identity{}, "welcome back");
  ASSERT_TRUE(commit.ok()) << commit.status().message();
  auto diff = h.mirror->Diff(h.head, *commit, 1 << 20, &budget);
  ASSERT_TRUE(diff.ok()) << diff.status().message();
  EXPECT_EQ(diff->files, std::vector<std::string>{"index.md"});
  EXPECT_LT(budget.used(WorkBudget::Meter::kEntries), 100000u);
}

}  // namespace
}  // namespace docwright::git
