// Internal to the runner (runner/runner.h): Runner::Impl, split by concern over
// several files:
//   runner.cc     the threads: start, stop, a thread's end; Runner's methods
//   workers.cc    the workers: waiting for work (the wake-up protocol), claims
//   outcomes.cc   a claimed turn run by the TurnHandler, its outcome recorded
//   heartbeat.cc  the heartbeat: lease renewals, and the watchdog
//
// Locking: one mutex, mu_, guards every member marked GUARDED_BY(mu_), and the
// fields of Thread (reached through threads_ or Running::thread). The store and
// the handler are never called under it. Clang checks the annotations
// (-Wthread-safety).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <future>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/mutex.h"
#include "runner/runner.h"

namespace docwright {

class Runner::Impl : public std::enable_shared_from_this<Runner::Impl> {
 public:
  Impl(RunnerStores store, TurnHandler& handler, RunnerOptions options);
  RunnerStores& store() { return store_; }

  // runner.cc
  void Start() EXCLUDES(mu_);
  bool Stop() EXCLUDES(mu_);

  // workers.cc
  // Wakes an idle worker to claim. `announce`: a turn was just queued here
  // (StoreWatcher::turn_queued_here), so the worker claims without looking first
  // (Store::ClaimTurn's look_first); false for a wake-up that only may find
  // work (another node's notice, the next of a backlog).
  void Wake(bool announce) EXCLUDES(mu_);
  // TurnTaker::reserve: when a worker idles that no other wake-up or
  // hand-off is for, keeps it for the turn being queued (a hand-off under way)
  // and names the lease to claim the turn under; else nullopt.
  std::optional<ClaimFor> Reserve() EXCLUDES(mu_);
  // TurnTaker::claimed, inside the write that claimed the turn under a
  // lease Reserve gave: hands the turn to the worker kept for it (handed_),
  // to start on while the write commits; false (the write undoes the claim)
  // when the runner is stopping or no such reservation is open. Never calls
  // the store.
  bool Claimed(const ClaimFor& owner, TurnInput claimed, std::shared_future<bool> committed)
      EXCLUDES(mu_);
  // TurnTaker::unclaimed: ends a reservation no turn was handed for.
  void Unclaimed(const ClaimFor& owner) EXCLUDES(mu_);
  void StopJob(const std::string& job_id) EXCLUDES(mu_);
  void CancelJob(const std::string& job_id) EXCLUDES(mu_);

 private:
  using Clock = std::chrono::steady_clock;

  // A thread of this runner (its fields under mu_). `abandoned`: the watchdog
  // gave up on its turn and a new worker took its place, or Stop() left it
  // behind; it exits as soon as the turn returns, recording nothing.
  // `held_project`: the project of the turn given up on, counted as a turn
  // running of that project (and its organisation) by every claim of this
  // runner until the thread really ends (Store::ClaimTurn's held projects).
  struct Thread {
    std::thread thread;
    bool done = false;
    bool abandoned = false;
    std::string held_project;
  };

  // A claimed turn being run here. Keyed by a run id: the same turn may be
  // claimed again by another worker of this process after a lost lease.
  struct Running {
    int64_t turn_id = 0;
    std::string job_id;
    std::string project_id;
    std::string worker_id;
    std::shared_ptr<CancelToken> cancel;
    Clock::time_point renewed_at;  // the last successful claim or renewal
    Clock::time_point started_at;
    std::optional<Clock::time_point> cancelled_at;  // seen cancelled by the watchdog
    Thread* thread = nullptr;
    // Of a turn handed over before its claim's write committed (Handed): its
    // lease is renewed once that write has committed, not before (another
    // connection would not see it yet). Invalid: committed before.
    std::shared_future<bool> committed;
  };

  // A turn claimed by a write that queued it (Reserve, Claimed) for an idle
  // worker to run, under the lease owner it was claimed as, handed over before
  // that write committed: `committed` tells whether it did.
  struct Handed {
    std::string worker_id;
    TurnInput input;
    std::shared_future<bool> committed;
    Clock::time_point handed_at;
  };

  // Whether the write that handed a turn over committed it (Handed), learned
  // once and kept: waits until `deadline` at most (awake for the first
  // kHandOffWatch: the commit is a matter of microseconds, a sleeping thread's
  // wake-up as long again). A write still open then is taken as failed: a
  // claim it makes after all expires unrenewed, and the turn runs again
  // elsewhere. Thread-safe.
  class CommitWait {
   public:
    CommitWait(std::shared_future<bool> committed, Clock::time_point deadline)
        : committed_(std::move(committed)), deadline_(deadline) {}
    bool Get() EXCLUDES(mu_);

   private:
    // Held over the whole of Get(): one thread waits, the others then read
    // result_.
    Mutex mu_;
    const std::shared_future<bool> committed_;
    const Clock::time_point deadline_;
    std::optional<bool> result_ GUARDED_BY(mu_);
  };
  // What `committed` says now: nullopt while its write is open.
  static std::optional<bool> CommittedNow(const std::shared_future<bool>& committed);
  // What an idle worker woke to: a turn handed to it, or a wake-up to claim
  // (`announced`: Wake(true)'s).
  struct Work {
    bool announced = false;
    std::optional<Handed> handed;
  };

  // A turn the watchdog gave up on, whose outcome is recorded once mu_ is
  // released (a deadline's only).
  struct GivenUp {
    int64_t turn_id;
    std::string worker_id, job_id;
    bool deadline;
  };

  // runner.cc
  void StartWorker() REQUIRES(mu_);
  void ThreadDone(Thread& t) EXCLUDES(mu_);
  // Every thread ended (or was given up on), and no reservation is open.
  bool AllDone() REQUIRES(mu_);

  // workers.cc
  void WorkerLoop(Thread& self, const std::string& worker_id) EXCLUDES(mu_);
  // Waits for work (WaitForWork): a handed turn first, then a wake-up; an
  // empty Work when stopping or after a poll interval.
  Work IdleWait() EXCLUDES(mu_);
  Work WaitForWork(MutexLock& lock) REQUIRES(mu_);
  // Whether an idle worker may leave for anything but a handed turn: every
  // hand-off keeps an idle worker to take it (handoffs_ < idle_).
  bool MayLeave() REQUIRES(mu_) { return idle_ - 1 >= handoffs_; }
  // Whether a reservation's turn is yet to be handed over with no idle worker
  // awake for it (spinning_).
  bool HandOffUnwatched() REQUIRES(mu_) {
    return handoffs_ - static_cast<int>(handed_.size()) > spinning_;
  }
  // Waits awake, without the lock, for handoff_events_ to pass `seen`, at most
  // kHandOffWatch: a worker reserved for a hand-off is running when the turn
  // comes, rather than being woken then (tens to hundreds of microseconds on
  // a virtual machine's idle CPU). Yields the CPU to any other runnable thread.
  void WatchForHandOff(uint64_t seen);
  static constexpr std::chrono::microseconds kHandOffWatch{1000};
  Work TakeHanded() REQUIRES(mu_);
  // Gives back a turn claimed for a worker that will not run it (a stop),
  // once its write has committed (waiting until `deadline` at most); nothing
  // if it did not.
  void GiveBack(const Handed& handed, Clock::time_point deadline) EXCLUDES(mu_);
  void WakeOne(bool announce) REQUIRES(mu_);
  // Takes one of wakeups_ (> 0); true if it was an announcement.
  bool TakeWakeup() REQUIRES(mu_);
  std::vector<std::string> HeldProjects() EXCLUDES(mu_);
  std::vector<std::string> HeldProjectsLocked() REQUIRES(mu_);
  bool IsStopping() EXCLUDES(mu_);

  // outcomes.cc
  // `handed`: set for a turn handed over (Handed); null for one this worker
  // claimed. Nothing of the turn is written until its write has committed.
  void RunTurn(Thread& self, const std::string& worker_id, TurnInput input,
               const Handed* handed = nullptr) EXCLUDES(mu_);
  TurnOutcome Handle(const TurnInput& input, CancelToken& cancel);
  // The outcome to record for a turn the handler returned `interrupted`;
  // nullopt when it is not to be finished (it was handed back, archived or
  // lost): then the tokens it spent are charged to it (Charge).
  std::optional<TurnOutcome> AfterInterruption(const TurnInput& input, const std::string& worker_id,
                                               const CancelToken& cancel,
                                               const TurnOutcome& interrupted);
  // Adds what `outcome` used to its turn and job without finishing the turn
  // (Store::ChargeTurnUsage): the tokens were spent however the turn ends.
  void Charge(const TurnInput& input, const TurnOutcome& outcome) EXCLUDES(mu_);
  std::string DeadlineError() const;
  void Record(int64_t turn_id, const std::string& worker_id, const std::string& job_id, int seq,
              const TurnOutcome& outcome) EXCLUDES(mu_);

  // heartbeat.cc
  void HeartbeatLoop() EXCLUDES(mu_);
  std::vector<GivenUp> Watch(Clock::time_point now) REQUIRES(mu_);
  void GiveUp(Running& r, std::vector<GivenUp>& given_up) REQUIRES(mu_);
  // Renews the leases of the turns of `snapshot` (running_ as the pass began),
  // in one call to the store, and acts on each one's answer.
  void Renew(const std::vector<std::pair<uint64_t, Running>>& snapshot) EXCLUDES(mu_);
  // Acts on a turn's renewal: true if there was nothing to do but note it
  // renewed (kHeld, or a kStopRequested the turn was told of already).
  bool Renewed(const Running& running, const Result<LeaseState>& state) EXCLUDES(mu_);

  RunnerStores store_;
  TurnHandler& handler_;
  const RunnerOptions options_;
  std::string worker_prefix_;

  Mutex mu_;
  std::condition_variable work_cv_;       // idle workers wait here
  std::condition_variable heartbeat_cv_;  // the heartbeat thread waits here
  std::condition_variable done_cv_;       // Stop() waits here for threads to end
  int wakeups_ GUARDED_BY(mu_) = 0;
  int announced_ GUARDED_BY(mu_) = 0;  // of wakeups_, those announcing a queued turn
  int idle_ GUARDED_BY(mu_) = 0;       // workers in IdleWait
  // Reservations open (Reserve, until Claimed) and their turns waiting in
  // handed_: each keeps one of idle_ for itself.
  int handoffs_ GUARDED_BY(mu_) = 0;
  std::deque<Handed> handed_ GUARDED_BY(mu_);
  // Idle workers awake for a hand-off under way (WaitForWork): at most one for
  // each reservation whose turn is not in handed_ yet.
  int spinning_ GUARDED_BY(mu_) = 0;
  // Counts the reservations, the ends of hand-offs (Claimed, Unclaimed) and
  // the stop: what an awake worker watches without the lock.
  std::atomic<uint64_t> handoff_events_{0};
  int claiming_ GUARDED_BY(mu_) = 0;                // reservations open: Stop() waits for them
  std::set<std::string> reserved_ GUARDED_BY(mu_);  // their leases' owners
  bool poller_ GUARDED_BY(mu_) = false;       // an idle worker is polling the store (IdleWait)
  uint64_t next_worker_ GUARDED_BY(mu_) = 0;  // also names each reservation's lease
  bool started_ GUARDED_BY(mu_) = false;
  bool stopping_ GUARDED_BY(mu_) = false;
  uint64_t last_run_id_ GUARDED_BY(mu_) = 0;
  std::map<uint64_t, Running> running_ GUARDED_BY(mu_);
  std::list<Thread> threads_ GUARDED_BY(mu_);  // a list: a Thread stays put
  int holding_threads_ GUARDED_BY(mu_) = 0;    // of threads_, not done with a held_project
};

}  // namespace docwright
