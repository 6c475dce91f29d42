// The git engine against remotes that do not answer: every fetch and push ends
// within its limits (idle, whole transfer, cancel), and a mirror held by
// someone else is reported busy instead of waited on forever. Loopback only.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>
#include <vector>

#include "git/file_lock.h"
#include "git/git.h"
#include "git/remote_origin.h"
#include "support/git_repo.h"
#include "support/silent_server.h"
#include "support/temp_dir.h"

namespace docwright::git {
namespace {

using namespace std::chrono_literals;
using docwright::testing::kGit;
using docwright::testing::Sh;
using docwright::testing::SilentServer;

// Runs `operation`, failing the test (and ending the process, which would
// otherwise hang) if it does not return within a generous bound. A hang guard,
// not a measure of speed.
template <typename F>
auto Returns(F operation) {
  auto done = std::async(std::launch::async, std::move(operation));
  if (done.wait_for(60s) != std::future_status::ready) {
    std::fprintf(stderr, "the git operation did not return within 60 s\n");
    std::_Exit(1);
  }
  return done.get();
}

class GitDeadlineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    remote_ = dir_ / "remote.git";
    std::string seed = dir_ / "seed";
    Sh(std::string(kGit) + " init -q --bare " + remote_);
    Sh(std::string(kGit) + " clone -q " + remote_ + " " + seed + " 2>/dev/null || true");
    std::ofstream(seed + "/index.md") << "# Home\n";
    Sh("cd " + seed + " && " + kGit + " add -A && " + kGit + " commit -qm init && " + kGit +
       " push -q origin main");
  }

  static TransferLimits Short() {
    TransferLimits limits;
    limits.connect_timeout = 2s;
    limits.idle_timeout = 1s;
    limits.transfer_timeout = 30s;
    limits.lock_timeout = 1s;
    return limits;
  }

  std::unique_ptr<Mirror> Open(const std::string& url, TransferLimits limits = Short()) {
    auto m = Mirror::Open(mirror_path(), url, Credentials{}, limits);
    EXPECT_TRUE(m.ok()) << m.status().message();
    return m.ok() ? std::move(*m) : nullptr;
  }

  // A commit in the mirror, from the local remote, ready to push elsewhere.
  std::string LocalCommit() {
    auto local = Open(remote_);
    auto head = local->FetchBranch("main");
    EXPECT_TRUE(head.ok()) << head.status().message();
    auto snap = local->OpenSnapshot(*head);
    EXPECT_TRUE(snap.ok());
    Workspace work(**snap);
    EXPECT_TRUE(work.Write("new.md", "# New\n").ok());
    auto commit = local->Commit(work, Identity{}, "new page");
    EXPECT_TRUE(commit.ok());
    return commit.ok() ? *commit : "";
  }

  std::string mirror_path() const { return dir_ / "mirrors/p1.git"; }

  testing::TempDir dir_;
  std::string remote_;
};

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_F(GitDeadlineTest, ASilentHttpRemoteFailsTheFetchAfterTheIdleTimeout) {
  SilentServer silent;
  auto mirror = Open("http://127.0.0.1:" + std::to_string(silent.port()) + "/repo.git");
  ASSERT_TRUE(mirror);
  auto fetched = Returns([&] { return mirror->FetchBranches({"main"}); });
  ASSERT_FALSE(fetched.ok());
  EXPECT_EQ(fetched.status().code(), Code::kUnavailable);
  EXPECT_TRUE(Contains(fetched.status().message(), "the remote sent nothing for 1 s"))
      << fetched.status().message();
  EXPECT_GE(silent.accepted(), 1);
  // The mirror is still usable, and has what it had.
  mirror.reset();
  auto local = Open(remote_);
  EXPECT_TRUE(local->FetchBranch("main").ok());
}

TEST_F(GitDeadlineTest, ASilentHttpRemoteFailsThePushAfterTheIdleTimeout) {
  std::string commit = LocalCommit();
  SilentServer silent;
  auto mirror = Open("http://127.0.0.1:" + std::to_string(silent.port()) + "/repo.git");
  ASSERT_TRUE(mirror);
  Status pushed = Returns([&] { return mirror->Push(commit, "docwright/silent", std::nullopt); });
  EXPECT_EQ(pushed.code(), Code::kUnavailable);
  EXPECT_TRUE(Contains(pushed.message(), "cannot push docwright/silent: the remote sent nothing"))
      << pushed.message();
}

TEST_F(GitDeadlineTest, ARemoteThatTricklesSlowerThanTheIdleTimeoutFails) {
  SilentServer trickle(2s);  // a byte every 2 s, idle timeout 1 s
  auto mirror = Open("http://127.0.0.1:" + std::to_string(trickle.port()) + "/repo.git");
  ASSERT_TRUE(mirror);
  auto fetched = Returns([&] { return mirror->FetchBranches({"main"}); });
  ASSERT_FALSE(fetched.ok());
  EXPECT_TRUE(Contains(fetched.status().message(), "the remote sent nothing for 1 s"))
      << fetched.status().message();
}

TEST_F(GitDeadlineTest, ARemoteThatTricklesForeverMeetsTheTransferDeadline) {
  SilentServer trickle(200ms);  // never idle for 1 s, never done
  TransferLimits limits = Short();
  limits.transfer_timeout = 2s;
  auto mirror = Open("http://127.0.0.1:" + std::to_string(trickle.port()) + "/repo.git", limits);
  ASSERT_TRUE(mirror);
  auto fetched = Returns([&] { return mirror->FetchBranches({"main"}); });
  ASSERT_FALSE(fetched.ok());
  EXPECT_EQ(fetched.status().code(), Code::kUnavailable);
  EXPECT_TRUE(Contains(fetched.status().message(), "took longer than its limit of 2 s"))
      << fetched.status().message();
}

TEST_F(GitDeadlineTest, CancellingStopsAFetchFromASilentRemote) {
  SilentServer silent;
  TransferLimits limits = Short();
  limits.idle_timeout = 60s;  // only the cancel can end it in time
  auto mirror = Open("http://127.0.0.1:" + std::to_string(silent.port()) + "/repo.git", limits);
  ASSERT_TRUE(mirror);
  std::atomic<bool> cancel{false};
  std::jthread canceller([&] {
    testing::WaitUntil([&] { return silent.accepted() > 0; });
    cancel = true;
  });
  auto start = std::chrono::steady_clock::now();
  auto fetched =
      Returns([&] { return mirror->FetchBranches({"main"}, [&] { return cancel.load(); }); });
  ASSERT_FALSE(fetched.ok());
  EXPECT_TRUE(Contains(fetched.status().message(), "cancelled")) << fetched.status().message();
  // Well before the idle timeout: it was the cancel that ended it.
  EXPECT_LT(std::chrono::steady_clock::now() - start, 30s);
}

TEST_F(GitDeadlineTest, ASilentSshRemoteFailsAfterTheIdleTimeout) {
  // libssh2 reads the socket itself, so this is the watchdog's work.
  SilentServer silent;
  auto mirror = Open("ssh://git@127.0.0.1:" + std::to_string(silent.port()) + "/repo.git");
  ASSERT_TRUE(mirror);
  auto fetched = Returns([&] { return mirror->FetchBranches({"main"}); });
  ASSERT_FALSE(fetched.ok());
  EXPECT_EQ(fetched.status().code(), Code::kUnavailable);
  EXPECT_TRUE(Contains(fetched.status().message(), "the remote sent nothing for 1 s"))
      << fetched.status().message();

  std::string commit = LocalCommit();
  mirror = Open("ssh://git@127.0.0.1:" + std::to_string(silent.port()) + "/repo.git");
  std::atomic<bool> cancel{false};
  TransferLimits limits = Short();
  limits.idle_timeout = 60s;
  mirror->SetLimits(limits);
  std::jthread canceller([&] {
    std::this_thread::sleep_for(500ms);
    cancel = true;
  });
  Status pushed = Returns([&] {
    return mirror->Push(commit, "docwright/ssh", std::nullopt, [&] { return cancel.load(); });
  });
  EXPECT_EQ(pushed.code(), Code::kUnavailable);
  EXPECT_TRUE(Contains(pushed.message(), "cancelled")) << pushed.message();
}

TEST_F(GitDeadlineTest, AMirrorLockedByAnotherProcessIsBusyNotWaitedOnForever) {
  auto mirror = Open(remote_);
  ASSERT_TRUE(mirror);
  // Another open file description holds the lock, as another process would.
  int fd = ::open((mirror_path() + "/docwright.lock").c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  auto fetched = Returns([&] { return mirror->FetchBranch("main"); });
  EXPECT_EQ(fetched.status().code(), Code::kUnavailable);
  EXPECT_TRUE(Contains(fetched.status().message(), "the mirror is busy"))
      << fetched.status().message();
  auto opened = Returns([&] { return Mirror::Open(mirror_path(), remote_, {}, Short()); });
  EXPECT_FALSE(opened.ok());
  EXPECT_TRUE(Contains(opened.status().message(), "busy")) << opened.status().message();
  ::close(fd);
  EXPECT_TRUE(mirror->FetchBranch("main").ok());
}

TEST_F(GitDeadlineTest, AnOperationBehindAStuckTransferInThisProcessIsBusy) {
  SilentServer silent;
  TransferLimits limits = Short();
  limits.idle_timeout = 5s;
  limits.lock_timeout = 500ms;
  auto mirror = Open("http://127.0.0.1:" + std::to_string(silent.port()) + "/repo.git", limits);
  ASSERT_TRUE(mirror);
  auto stuck = std::async(std::launch::async, [&] { return mirror->FetchBranches({"main"}); });
  ASSERT_TRUE(testing::WaitUntil([&] { return silent.accepted() > 0; }));
  auto second = Returns([&] { return mirror->FetchBranches({"main"}); });
  EXPECT_TRUE(Contains(second.status().message(), "the mirror is busy"))
      << second.status().message();
  EXPECT_FALSE(stuck.get().ok());
}

TEST_F(GitDeadlineTest, ARemoteRefLockWithoutDocwrightsRecordIsSomeoneElses) {
  // A lock docwright left when its process was killed is cleared by the next
  // push (tests/crash_test.cc, against the real binary); one it has no record
  // of, whatever its content, is another writer's and stays.
  std::string commit = LocalCommit();
  std::filesystem::create_directories(remote_ + "/refs/heads/docwright");
  std::string held = remote_ + "/refs/heads/docwright/held.lock";
  std::ofstream(held) << commit << "\n";
  auto mirror = Open(remote_);
  ASSERT_TRUE(mirror);
  Status refused = Returns([&] { return mirror->Push(commit, "docwright/held", std::nullopt); });
  EXPECT_EQ(refused.code(), Code::kUnavailable);
  EXPECT_TRUE(Contains(refused.message(), "holds git's lock on the branch")) << refused.message();
  EXPECT_TRUE(std::filesystem::exists(held));
  // A record that names a lock which is not the file it describes (the dead
  // process's lock was removed, another writer locked the branch since).
  std::ofstream(remote_ + "/docwright-ref-lock")
      << "docwright ref lock v1\nrefs/heads/docwright/held\n1 1\n"
      << commit << "\n";
  EXPECT_EQ(mirror->Push(commit, "docwright/held", std::nullopt).code(), Code::kUnavailable);
  EXPECT_TRUE(std::filesystem::exists(held));
  // A record naming a file outside the refs is not acted on either.
  std::string outside = remote_ + "/precious";
  std::ofstream(outside) << commit << "\n";
  std::ofstream(remote_ + "/docwright-ref-lock") << "docwright ref lock v1\nrefs/../precious\n0 0\n"
                                                 << commit << "\n";
  std::filesystem::remove(held);
  EXPECT_TRUE(mirror->Push(commit, "docwright/held", std::nullopt).ok());
  EXPECT_TRUE(std::filesystem::exists(outside));
  EXPECT_EQ(Sh("git --git-dir=" + remote_ + " rev-parse docwright/held"), commit);
  EXPECT_EQ(Sh("cat " + remote_ + "/docwright-ref-lock"), "")
      << "the record is cleared after a push";

  // Nor one that leads through a linked folder to a file that matches it in
  // every way, nor one that names a FIFO (opening it must not hang the push).
  std::filesystem::create_directories(dir_ / "elsewhere");
  std::string victim = dir_ / "elsewhere/victim.lock";
  std::ofstream(victim) << commit << "\n";
  std::filesystem::create_directory_symlink(dir_ / "elsewhere", remote_ + "/refs/heads/linked");
  struct stat st {};
  ASSERT_EQ(::stat(victim.c_str(), &st), 0);
  std::ofstream(remote_ + "/docwright-ref-lock")
      << "docwright ref lock v1\nrefs/heads/linked/victim\n"
      << st.st_dev << " " << st.st_ino << " "
      << (int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec) << "\n"
      << commit << "\n";
  EXPECT_TRUE(mirror->Push(commit, "docwright/after-link", std::nullopt).ok());
  EXPECT_TRUE(std::filesystem::exists(victim));
  ASSERT_EQ(::mkfifo((remote_ + "/refs/heads/docwright/fifo.lock").c_str(), 0600), 0);
  std::ofstream(remote_ + "/docwright-ref-lock")
      << "docwright ref lock v1\nrefs/heads/docwright/fifo\n0 0 0\n"
      << commit << "\n";
  Status fifo = Returns([&] { return mirror->Push(commit, "docwright/fifo", std::nullopt); });
  EXPECT_EQ(fifo.code(), Code::kUnavailable) << fifo.message();
}

TEST(FileLock, KnowsWhetherItsPreviousHolderDiedHoldingIt) {
  testing::TempDir dir;
  std::string path = dir / "mirror.lock";
  {
    auto first = FileLock::Acquire(path, 1s);
    ASSERT_TRUE(first.ok()) << first.status().message();
    EXPECT_FALSE(first->previous_holder_died()) << "a new lock file has had no holder";
  }
  auto next = FileLock::Acquire(path, 1s);
  ASSERT_TRUE(next.ok());
  EXPECT_FALSE(next->previous_holder_died()) << "the last holder let go";
  next = Status::Unavailable("let go");
  // A process killed while holding it: the kernel drops the flock, nothing else.
  pid_t child = fork();
  if (child == 0) {
    auto held = FileLock::Acquire(path, 1s);
    ::kill(::getpid(), SIGKILL);
    _exit(held.ok() ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  auto after = FileLock::Acquire(path, 1s);
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(after->previous_holder_died());
  // Waiting for a lock someone holds does not mark the file.
  {
    auto timed_out = FileLock::Acquire(path, 50ms);
    EXPECT_FALSE(timed_out.ok());
  }
  after = Status::Unavailable("let go");
  auto last = FileLock::Acquire(path, 1s);
  ASSERT_TRUE(last.ok());
  EXPECT_FALSE(last->previous_holder_died());
}

TEST(GitRemoteOrigin, SchemeHostAndPortDecide) {
  EXPECT_TRUE(SameOrigin("https://x:tok@github.com/a/b.git", "https://GitHub.com:443/a/b.git"));
  EXPECT_TRUE(SameOrigin("git@github.com:a/b.git", "ssh://git@github.com/a/b.git"));
  EXPECT_TRUE(SameOrigin("ssh://git@[::1]:2222/r", "ssh://[::1]:2222/other"));
  EXPECT_TRUE(SameOrigin("http://127.0.0.1:8080/r.git", "http://127.0.0.1:8080/r.git"));
  EXPECT_FALSE(SameOrigin("https://github.com/a/b.git", "http://github.com/a/b.git"));
  EXPECT_FALSE(SameOrigin("https://github.com/a/b.git", "https://github.com:8443/a/b.git"));
  EXPECT_FALSE(SameOrigin("https://github.com/a/b.git", "https://evil.example/a/b.git"));
  EXPECT_FALSE(SameOrigin("https://github.com@evil.example/a", "https://github.com/a"));
  EXPECT_FALSE(SameOrigin("/srv/repo.git", "/srv/repo.git"));  // no network origin
  EXPECT_FALSE(SameOrigin("https://github.com:99999/a", "https://github.com:99999/a"));
  auto origin = OriginOf("http://Example.COM/r.git");
  ASSERT_TRUE(origin);
  EXPECT_EQ(origin->host, "example.com");
  EXPECT_EQ(origin->port, 80);
  EXPECT_EQ(OriginOf("user@host.example:repo.git")->scheme, "ssh");
}

}  // namespace
}  // namespace docwright::git
