// The default number of turns a node runs at once (`serve` and `worker`
// without --workers or DOCWRIGHT_WORKERS): as many as the process's memory,
// open files and threads leave room for, at most kMostDefaultWorkers.
// docs/operations.md, "Turns in flight", explains the figures.
//
// Two halves: SizeWorkers, a pure computation over NodeLimits (what tests
// drive), and ReadNodeLimits, which reads them from the system. Reading never
// fails: a source that is missing, unreadable, too long or not what the kernel
// writes is left out (no bound from it), and nothing throws.
//
// Thread-safety: SizeWorkers and the parsers are pure. ReadNodeLimits and
// NodeWorkers change the process's soft limit on open files: call them from
// the start-up thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace docwright {

// --- What one turn in flight may take ---

// Memory the default allows a turn: twice the 525 KiB a turn was measured to
// hold (bench/concurrency: 1,000 turns waiting on a model on a 1,000-page
// repository: what it read of the repository, its transcript and conversation,
// its thread's stack as touched), rounded up. A turn may hold more, up to the
// bounds of docs/operations.md; the rest of the memory is there for those.
inline constexpr uint64_t kTurnMemoryBytes = uint64_t{1} << 20;
// The default gives turns this fraction (1/N) of the process's memory. The rest
// is for what the node holds beside them (the mirrors' pack windows, the caches
// of each commit's site map and checks, HTTP connections, SQLite's caches) and
// for the turns that hold more than the typical one.
inline constexpr uint64_t kTurnMemoryShare = 4;
// Descriptors one turn holds at most at once, counted from the code: while it
// fetches, the remote's socket (git/socket_stream.cc), the mirror's lock file
// (git/file_lock.h), the pack being received and its index, a ref's lock file;
// while it asks the model, its connection (one libcurl handle a turn, one
// connection cached: llm/providers.cc, http/client.cc) and libcurl's resolver's
// socket pair while it resolves the name; while it publishes, the push's socket
// and the hosted forge's connection. Pack files of a mirror are opened once per
// process, whatever the turns reading them (libgit2's cache), so they count
// among the descriptors beside the turns.
inline constexpr uint64_t kTurnDescriptors = 8;
// Descriptors kept beside the turns: the database (SQLite's writer and up to
// 32 readers, or PostgreSQL's pool of 16), the listening sockets, the logs, the
// mirrors' pack files. Of what is left, half goes to the turns and half to the
// HTTP server's connections and the webhook deliveries.
inline constexpr uint64_t kDescriptorsBesideTurns = 256;
// Threads one turn uses at most at once: its worker, and libcurl's resolver
// thread while it resolves a name.
inline constexpr uint64_t kTurnThreads = 2;
// Threads the process uses beside its turns: the HTTP server's (one per core
// and 8 for blocking work), the webhook delivery workers, the runner's
// heartbeat, the workflow engine, the store's listener and the log's writer.
inline constexpr uint64_t kThreadsBesideTurns = 128;
// The default's bounds: at most what a node is measured at (docs/architecture.md,
// "Quality bars", "In flight"), at least one turn running while another waits on the model.
inline constexpr int kMostDefaultWorkers = 1000;
inline constexpr int kLeastDefaultWorkers = 2;

// What bounds the turns a process may run. nullopt: no bound known.
struct NodeLimits {
  // RLIMIT_NOFILE's soft limit as the process found it, and the one in force
  // (the hard limit, once ReadNodeLimits raised it).
  std::optional<uint64_t> descriptors_found;
  std::optional<uint64_t> descriptors;
  // Memory the process may use: the lowest cgroup v2 memory.max on the path of
  // its cgroup, else (or if higher) the machine's MemTotal.
  std::optional<uint64_t> memory_bytes;
  bool memory_from_cgroup = false;
  // Threads the process may run: the lowest of RLIMIT_NPROC (which counts the
  // user's threads in every process), kernel.threads-max and the cgroup's
  // pids.max.
  std::optional<uint64_t> threads;
};

struct WorkerSizing {
  int workers = kLeastDefaultWorkers;
  // One line for the log: the number, what bounded it, and the limits found,
  // e.g. "1000 turns in flight (the default's most): 24 GiB of memory
  // (MemTotal), 1048576 descriptors, 63 thousand threads".
  std::string why;
};

// The default for `limits`: the lowest of kMostDefaultWorkers, the memory
// share over kTurnMemoryBytes, the turns' half of the descriptors over
// kTurnDescriptors and the threads left over kTurnThreads, clamped to
// [kLeastDefaultWorkers, max_workers].
WorkerSizing SizeWorkers(const NodeLimits& limits, int max_workers);

// Where ReadNodeLimits reads the system's files; tests point it elsewhere.
struct SystemFiles {
  std::string proc = "/proc";
  std::string cgroup = "/sys/fs/cgroup";  // the cgroup v2 hierarchy
};

// The limits of this process. Raises the soft limit on open files to the hard
// limit first, as servers do (descriptors_found says what it was).
NodeLimits ReadNodeLimits(const SystemFiles& files = {});

// --workers as given (0 or more), or for -1 (not given) the default for this
// process's limits, said in the log with why.
int NodeWorkers(int given, int max_workers);

// --- Parsers of the system's files, each bounded and total ---

// The path of the process's cgroup v2 ("0::/a/b" in /proc/self/cgroup): an
// absolute path of at most 4096 bytes, without "." or ".." parts or control
// characters; nullopt if there is no such line (cgroup v1 alone) or it is not
// such a path.
std::optional<std::string> ParseCgroupV2Path(std::string_view proc_self_cgroup);
// A limit as cgroup v2 and /proc/sys write it: a decimal number and a line
// break. nullopt for "max" (no limit), and for anything else: empty, signs,
// other characters, a number over UINT64_MAX.
std::optional<uint64_t> ParseLimitNumber(std::string_view text);
// MemTotal of /proc/meminfo, in bytes; nullopt if missing or malformed.
std::optional<uint64_t> ParseMemTotal(std::string_view meminfo);

}  // namespace docwright
