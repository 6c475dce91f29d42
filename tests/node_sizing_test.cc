// The default number of turns in flight (cli/node_sizing.h): the computation
// over a node's limits, the parsers of the kernel's files on what the kernel
// writes and on what it never would, and the reading of a system laid out on
// disk.
#include "cli/node_sizing.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>

#include "support/temp_dir.h"

namespace docwright {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kGiB = uint64_t{1} << 30;
constexpr int kMaxWorkers = 2000;  // serve's --workers at most

NodeLimits BigMachine() {
  NodeLimits l;
  l.descriptors_found = 1024;
  l.descriptors = 1048576;
  l.memory_bytes = 24 * kGiB;
  l.threads = 127431;
  return l;
}

TEST(NodeSizingTest, ABigMachineRunsTheDefaultsMostAndSaysWhy) {
  WorkerSizing sized = SizeWorkers(BigMachine(), kMaxWorkers);
  EXPECT_EQ(sized.workers, 1000);
  EXPECT_TRUE(sized.why.starts_with("1000 turns in flight (the default's most)")) << sized.why;
  EXPECT_NE(sized.why.find("24 GiB of memory (MemTotal)"), std::string::npos) << sized.why;
  EXPECT_NE(sized.why.find("1048576 descriptors (soft limit raised from 1024)"), std::string::npos)
      << sized.why;
  EXPECT_NE(sized.why.find("127431 threads"), std::string::npos) << sized.why;
}

TEST(NodeSizingTest, A512MiBCgroupGivesAQuarterOfItAtOneMiBATurn) {
  NodeLimits l = BigMachine();
  l.memory_bytes = 512 * kMiB;
  l.memory_from_cgroup = true;
  WorkerSizing sized = SizeWorkers(l, kMaxWorkers);
  EXPECT_EQ(sized.workers, 128);
  EXPECT_NE(sized.why.find("1/4 of the memory at 1 MiB a turn"), std::string::npos) << sized.why;
  EXPECT_NE(sized.why.find("512 MiB of memory (the cgroup's memory.max)"), std::string::npos)
      << sized.why;
  // What the default allows fits the memory it was given: the turns' share.
  EXPECT_LE(sized.workers * kTurnMemoryBytes, *l.memory_bytes / kTurnMemoryShare);
}

TEST(NodeSizingTest, A1024DescriptorLimitLeavesHalfOfWhatIsLeftToTurns) {
  NodeLimits l = BigMachine();
  l.descriptors_found = l.descriptors = 1024;
  WorkerSizing sized = SizeWorkers(l, kMaxWorkers);
  EXPECT_EQ(sized.workers, (1024 - 256) / 2 / 8);  // 48
  EXPECT_NE(sized.why.find("half the descriptors left at 8 a turn"), std::string::npos)
      << sized.why;
  EXPECT_EQ(sized.why.find("raised"), std::string::npos) << sized.why;
  // The turns' descriptors and those kept beside them fit the limit.
  EXPECT_LE(kDescriptorsBesideTurns + sized.workers * kTurnDescriptors, 1024u);
}

TEST(NodeSizingTest, AThreadLimitBoundsTheTurnsAndATinyOneGivesTheLeast) {
  NodeLimits l = BigMachine();
  l.threads = 528;
  EXPECT_EQ(SizeWorkers(l, kMaxWorkers).workers, (528 - 128) / 2);  // 200
  l.threads = 100;  // less than the process needs beside its turns
  WorkerSizing sized = SizeWorkers(l, kMaxWorkers);
  EXPECT_EQ(sized.workers, kLeastDefaultWorkers);
  EXPECT_NE(sized.why.find("the default's least; the threads left at 2 a turn would allow 0"),
            std::string::npos)
      << sized.why;
}

TEST(NodeSizingTest, TheResultStaysWithinTheLeastAndTheMostWorkersTakes) {
  NodeLimits none;  // nothing known: nothing bounds but the default's most
  WorkerSizing sized = SizeWorkers(none, kMaxWorkers);
  EXPECT_EQ(sized.workers, kMostDefaultWorkers);
  EXPECT_NE(sized.why.find("memory unknown, no descriptor limit, no thread limit"),
            std::string::npos)
      << sized.why;
  NodeLimits starved = BigMachine();
  starved.memory_bytes = 0;
  starved.descriptors = 0;
  EXPECT_EQ(SizeWorkers(starved, kMaxWorkers).workers, kLeastDefaultWorkers);
  EXPECT_EQ(SizeWorkers(BigMachine(), 16).workers, 16);
  EXPECT_EQ(SizeWorkers(BigMachine(), 0).workers, 0);  // never over what --workers takes
  NodeLimits huge = BigMachine();
  huge.memory_bytes = UINT64_MAX;
  huge.descriptors = UINT64_MAX;
  huge.threads = UINT64_MAX;
  EXPECT_EQ(SizeWorkers(huge, kMaxWorkers).workers, kMostDefaultWorkers);
}

TEST(NodeSizingTest, TheCgroupV2PathIsFoundAmongV1Lines) {
  EXPECT_EQ(ParseCgroupV2Path("0::/user.slice/user-1000.slice/session-2.scope\n"),
            "/user.slice/user-1000.slice/session-2.scope");
  // A hybrid host: the v1 controllers' lines, then the v2 one.
  EXPECT_EQ(ParseCgroupV2Path("12:memory:/docker/abc\n"
                              "4:cpu,cpuacct:/docker/abc\n"
                              "1:name=systemd:/docker/abc\n"
                              "0::/system.slice/docwright.service\n"),
            "/system.slice/docwright.service");
  EXPECT_EQ(ParseCgroupV2Path("0::/\n"), "/");  // a container's own namespace
  // cgroup v1 alone: no v2 path, whatever the memory controller says.
  EXPECT_EQ(ParseCgroupV2Path("9:name=systemd:/\n4:memory:/process_api/61f3\n1:cpu:/\n"),
            std::nullopt);
}

TEST(NodeSizingTest, AHostileOrOddCgroupLineGivesNoPath) {
  for (std::string text :
       {std::string(), std::string("\n\n"), std::string("garbage"), std::string("0::"),
        std::string("0::\n"), std::string("0::relative/path\n"), std::string("0::/a/../../etc\n"),
        std::string("0::/a/./b\n"), std::string("0::/..\n"), std::string("0::/a//b\n"),
        std::string("0::/a/\n"), std::string("0::/a\tb\n"), std::string("0::/a\0b\n", 8),
        "0::/" + std::string(5000, 'a') + "\n"}) {
    EXPECT_EQ(ParseCgroupV2Path(text), std::nullopt) << text;
  }
  // A line that starts like the v2 one further on does not count.
  EXPECT_EQ(ParseCgroupV2Path("10::/x\n"), std::nullopt);
}

TEST(NodeSizingTest, LimitNumbersAreReadAsTheKernelWritesThemAndNothingElse) {
  EXPECT_EQ(ParseLimitNumber("536870912\n"), 536870912u);
  EXPECT_EQ(ParseLimitNumber("127431\n"), 127431u);
  EXPECT_EQ(ParseLimitNumber("0\n"), 0u);
  EXPECT_EQ(ParseLimitNumber("18446744073709551615\n"), UINT64_MAX);
  EXPECT_EQ(ParseLimitNumber("max\n"), std::nullopt);  // no limit
  for (std::string text : {"", "\n", "   ", "-1", "+5", "12abc", "1 2", "0x10", "1e9", "max max",
                           "18446744073709551616", "99999999999999999999999", "\xff\xfe", "MAX"}) {
    EXPECT_EQ(ParseLimitNumber(text), std::nullopt) << text;
  }
}

TEST(NodeSizingTest, MemTotalIsReadFromMeminfo) {
  const std::string meminfo =
      "MemTotal:       24523648 kB\n"
      "MemFree:        21023456 kB\n"
      "MemAvailable:   22876512 kB\n";
  EXPECT_EQ(ParseMemTotal(meminfo), uint64_t{24523648} * 1024);
  EXPECT_EQ(ParseMemTotal("MemFree: 1 kB\nMemTotal: 2048 kB"), uint64_t{2048} * 1024);
  for (std::string text :
       {"", "MemFree: 1 kB\n", "MemTotal:\n", "MemTotal: kB\n", "MemTotal: -5 kB\n",
        "MemTotal: 12 MB\n", "MemTotal: 99999999999999999999 kB\n",
        "MemTotal: 18446744073709551615 kB\n", "MemTotal: 12 kB trailing\n"}) {
    EXPECT_EQ(ParseMemTotal(text), std::nullopt) << text;
  }
}

// A system laid out on disk: /proc's files and a cgroup v2 hierarchy.
class NodeLimitsFilesTest : public ::testing::Test {
 protected:
  void Write(const std::string& path, const std::string& text) {
    std::filesystem::create_directories(std::filesystem::path(dir_ / path).parent_path());
    std::ofstream(dir_ / path, std::ios::binary) << text;
  }
  SystemFiles Files() { return SystemFiles{.proc = dir_ / "proc", .cgroup = dir_ / "cgroup"}; }

  static std::optional<uint64_t> NprocLimit() {
    rlimit lim{};
    if (getrlimit(RLIMIT_NPROC, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return std::nullopt;
    return lim.rlim_cur;
  }

  testing::TempDir dir_;
};

TEST_F(NodeLimitsFilesTest, TheLowestLimitOnTheCgroupsPathHoldsAndTheSoftFileLimitIsRaised) {
  Write("proc/self/cgroup", "4:memory:/elsewhere\n0::/system.slice/docwright.service\n");
  Write("proc/meminfo", "MemTotal:       24523648 kB\n");
  Write("proc/sys/kernel/threads-max", "190000\n");
  Write("cgroup/system.slice/docwright.service/memory.max", "max\n");
  Write("cgroup/system.slice/memory.max", "536870912\n");  // the parent's bound holds
  Write("cgroup/system.slice/docwright.service/pids.max", "4915\n");
  NodeLimits l = ReadNodeLimits(Files());
  EXPECT_EQ(l.memory_bytes, 512 * kMiB);
  EXPECT_TRUE(l.memory_from_cgroup);
  std::optional<uint64_t> nproc = NprocLimit();
  EXPECT_EQ(l.threads, std::min<uint64_t>(4915, nproc.value_or(UINT64_MAX)));
  rlimit files{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &files), 0);
  EXPECT_EQ(files.rlim_cur, files.rlim_max);
  if (files.rlim_max != RLIM_INFINITY) {
    EXPECT_EQ(l.descriptors, files.rlim_max);
    ASSERT_TRUE(l.descriptors_found.has_value());
    EXPECT_LE(*l.descriptors_found, files.rlim_max);
  }
  EXPECT_LE(SizeWorkers(l, kMaxWorkers).workers, 128);  // a quarter of 512 MiB, or less
}

TEST_F(NodeLimitsFilesTest, WithoutACgroupLimitTheMachinesMemoryCounts) {
  Write("proc/self/cgroup", "0::/user.slice\n");
  Write("proc/meminfo", "MemTotal:       2097152 kB\n");  // 2 GiB
  Write("cgroup/user.slice/memory.max", "max\n");
  Write("cgroup/memory.max", "68719476736\n");  // above the machine's memory
  NodeLimits l = ReadNodeLimits(Files());
  EXPECT_EQ(l.memory_bytes, 2 * kGiB);
  EXPECT_FALSE(l.memory_from_cgroup);
}

TEST_F(NodeLimitsFilesTest, HostileFilesBoundNothingAndAreNotReadPastTheirBound) {
  // A cgroup path that climbs out, a limit file of a megabyte of digits, and
  // garbage where numbers belong.
  Write("proc/self/cgroup", "0::/../../escape\n");
  Write("escape/memory.max", "1\n");
  Write("proc/meminfo", "MemTotal: " + std::string(1 << 20, '9') + " kB\n");
  Write("proc/sys/kernel/threads-max", "many\n");
  NodeLimits l = ReadNodeLimits(Files());
  EXPECT_EQ(l.memory_bytes, std::nullopt);
  EXPECT_FALSE(l.memory_from_cgroup);
  EXPECT_EQ(l.threads, NprocLimit());

  Write("proc/self/cgroup", "0::/big\n");
  Write("cgroup/big/memory.max", std::string(1 << 20, '1'));
  Write("proc/meminfo", "MemTotal:       4194304 kB\n");
  l = ReadNodeLimits(Files());
  EXPECT_EQ(l.memory_bytes, 4 * kGiB);  // the oversized file is not read
}

TEST_F(NodeLimitsFilesTest, NothingToReadLeavesEveryFileBoundOut) {
  NodeLimits l = ReadNodeLimits(Files());  // no such files at all
  EXPECT_EQ(l.memory_bytes, std::nullopt);
  EXPECT_EQ(l.threads, NprocLimit());
  WorkerSizing sized = SizeWorkers(l, kMaxWorkers);
  EXPECT_GE(sized.workers, kLeastDefaultWorkers);
  EXPECT_LE(sized.workers, kMostDefaultWorkers);
}

}  // namespace
}  // namespace docwright
