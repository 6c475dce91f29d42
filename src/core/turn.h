// What a turn is given: its job, project and prompt, and a way to be told to stop.
// Shared by the runner, which hands turns out, and the agent, which carries them.
#pragma once

#include <atomic>
#include <cstdint>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "core/job.h"

namespace docwright {

// One step of a turn's work, for the transcript: something the model said, a
// tool it called with its (bounded) arguments and result, or what the agent put
// in the model's context besides the instruction (the repository's own
// instruction file).
struct TranscriptStep {
  enum class Kind { kAssistant, kTool, kContext };
  Kind kind = Kind::kAssistant;
  std::string text;       // kAssistant: what the model said; kContext: what was added
  std::string tool;       // kTool: the tool's name
  std::string arguments;  // kTool: as the model sent them, bounded
  std::string result;     // kTool: what the model was told, bounded
  bool is_error = false;  // kTool: the call failed
};

struct TokenUsage {
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
};

// Tells a running turn to stop. The agent checks it between steps (and may sleep
// on it), and every blocking call of a turn asks it while it waits; the runner
// sets it when the job is archived, the lease is lost, the turn runs past its
// deadline, or the process shuts down.
class CancelToken {
 public:
  enum class Reason { kNone, kArchived, kLeaseLost, kShutdown, kDeadline };

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

}  // namespace docwright
