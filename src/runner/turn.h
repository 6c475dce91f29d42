// The contract between the runner and what carries out a turn: the runner claims
// turns and records their outcome; a TurnHandler does the work in between.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/job.h"

namespace docwright {

// Tells a running turn to stop. The agent checks it between steps (and may sleep
// on it); the runner sets it when the job is archived, the lease is lost, or the
// process shuts down.
class CancelToken {
 public:
  enum class Reason { kNone, kArchived, kLeaseLost, kShutdown };

  void Cancel(Reason why) {
    {
      std::lock_guard lock(mu_);
      if (reason_ != Reason::kNone) return;
      reason_ = why;
      cancelled_.store(true, std::memory_order_release);
    }
    cv_.notify_all();
  }
  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }
  Reason reason() const {
    std::lock_guard lock(mu_);
    return reason_;
  }
  // Sleeps up to `d`; returns true if cancelled meanwhile.
  template <typename Rep, typename Period>
  bool WaitFor(std::chrono::duration<Rep, Period> d) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, d, [&] { return reason_ != Reason::kNone; });
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<bool> cancelled_{false};
  Reason reason_ = Reason::kNone;
};

struct TurnInput {
  Job job;
  Project project;
  Message message;               // the prompt to carry out now
  std::vector<Message> history;  // earlier prompts of this job and their outcomes
  int attempt = 1;               // >1 when re-run after a crash: start from scratch
};

struct TurnResult {
  bool succeeded = false;
  std::optional<std::string> pr_link;
  std::optional<std::string> summary;
  std::optional<std::string> error;  // for the job record: clear, and free of secrets
  // The agent stopped early because `cancel` was set; the rest is meaningless.
  // A turn that ran to its end is recorded even if `cancel` was set meanwhile.
  bool interrupted = false;
};

class TurnHandler {
 public:
  virtual ~TurnHandler() = default;
  // Carries out one turn. Runs on a worker thread; may be called concurrently for
  // different jobs. Must return soon after `cancel` is set, with `interrupted`
  // set if it stopped short. Must not throw; the runner treats an exception as a
  // failed turn.
  virtual TurnResult RunTurn(const TurnInput& input, CancelToken& cancel) = 0;
};

}  // namespace docwright
