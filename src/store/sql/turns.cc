// The SQL store: the work queue. Turns are claimed, their leases renewed, and
// their outcomes recorded, each job moving on as its turns end.
#include <spdlog/spdlog.h>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <span>

#include "core/crash_point.h"
#include "store/sql/internal.h"
#include "store/sql/statements.h"

namespace docwright::sql {
namespace {

// The leases as kRenewLeases takes them: [[turn id, worker id], ...]. A worker
// id that is not UTF-8 is mended, and then holds no turn (kLost).
std::string LeasesJson(std::span<const HeldLease> leases) {
  nlohmann::json pairs = nlohmann::json::array();
  for (const HeldLease& held : leases) {
    pairs.push_back(nlohmann::json::array({held.turn_id, held.worker_id}));
  }
  return pairs.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

Result<std::optional<TurnInput>> SqlStore::ClaimTurn(const std::string& worker_id,
                                                     std::chrono::milliseconds lease,
                                                     int max_attempts,
                                                     const std::vector<std::string>& held_projects,
                                                     bool look_first) {
  const std::string held = HeldProjectsJson(held_projects);
  // Look before taking the claim's lock: idle workers poll, and a poll that
  // finds nothing must not queue behind claims and writes.
  if (look_first) {
    auto any = Read<bool>([&](Connection& c) -> Result<bool> {
      auto r = c.Exec(kFindRunnable, {V(held)});
      if (!r.ok()) return r.status();
      return r->size() > 0;
    });
    if (!any.ok()) return any.status();
    if (!*any) return std::optional<TurnInput>();
  }

  std::optional<TurnInput> claimed;
  std::vector<std::string> changed;  // jobs with new events
  Status s = WriteAs(Commit::kLeaseOnly, [&](Connection& c) -> Status {
    claimed.reset();
    changed.clear();
    if (Status locked = Run(c, kLockClaims, {}); !locked.ok()) return locked;
    // Turns that exhausted their attempts are failed on the way; bounded so one
    // call cannot loop for long.
    for (int round = 0; round < 64; ++round) {
      UnixMillis now = NowMillis();
      auto r = c.Exec(kClaimRunnable, {V(held)});
      if (!r.ok()) return r.status();
      if (!r->Next()) return Status();
      const int64_t turn_id = r->Int("id");
      const int64_t attempts = r->Int("attempts");
      if (r->Text("state") == "running" && attempts >= max_attempts) {
        std::string error = InterruptedError(attempts);
        Status w = Run(c, kDurableCommit, {});
        if (w.ok()) w = Run(c, kFailTurn, {V(turn_id), V(error), V(now)});
        if (w.ok()) {
          w = MoveJobAfterTurn(c, r->Text("job_id"), r->Int("seq"),
                               TurnOutcome{.succeeded = false, .error = error}, now);
        }
        if (!w.ok()) return w;
        changed.push_back(r->Text("job_id"));
        continue;
      }
      Status w = Run(c, kClaimTurn,
                     {V(turn_id), V(worker_id), V(static_cast<int64_t>(lease.count())), V(now)});
      if (!w.ok()) return w;
      auto input = LoadClaimed(c, turn_id, *r);
      if (!input.ok()) return input.status();
      if (Status opened = OpenProjectSecrets(input->project); !opened.ok()) {
        // Every attempt would fail alike (a key this process lacks, or an
        // altered value): the turn fails now, saying why, and the claim goes on.
        std::string error = "the project's secrets cannot be used: " + opened.message();
        w = Run(c, kDurableCommit, {});
        if (w.ok()) w = Run(c, kFailTurn, {V(turn_id), V(error), V(now)});
        if (w.ok()) {
          w = MoveJobAfterTurn(c, r->Text("job_id"), r->Int("seq"),
                               TurnOutcome{.succeeded = false, .error = error}, now);
        }
        if (!w.ok()) return w;
        changed.push_back(input->job.id);
        continue;
      }
      // A re-run starts over: the steps an earlier attempt recorded go.
      if (attempts > 0) w = Run(c, kDeleteSteps, {V(input->job.id), V(input->message.seq)});
      if (w.ok()) {
        w = AppendEvent(c, input->job.id, input->job.project_id, EventType::kTurnStarted,
                        TurnStartedData(input->message.seq, input->attempt), now);
      }
      if (!w.ok()) return w;
      changed.push_back(input->job.id);
      claimed = std::move(*input);
      return Status();
    }
    return Status();
  });
  if (!s.ok()) return s;
  for (const std::string& job_id : changed) AnnounceEvents(job_id);
  return claimed;
}

SqlStore::QueuedClaim::~QueuedClaim() {
  if (!owner_ || told_) return;
  // The write failed (or wrote nothing: a replay). Its commit's outcome may be
  // unknown (a connection lost at COMMIT): a claim it made is given back, which
  // does nothing if the claim was undone. The turn's taker drops it.
  Settle(false);
  if (claimed_turn_ != 0) (void)store_.ReleaseTurn(claimed_turn_, owner_->worker_id);
  if (!ended_) hook_.unclaimed(*owner_);
}

void SqlStore::QueuedClaim::Settle(bool committed) {
  if (!committed_) return;
  committed_->set_value(committed);
  committed_.reset();
}

void SqlStore::QueuedClaim::Reserve(const std::string& job_id) {
  if (asked_ || !hook_.reserve || !hook_.claimed || !hook_.unclaimed) return;
  asked_ = true;  // once a write: a retried transaction keeps its reservation
  try {
    owner_ = hook_.reserve();
  } catch (const std::exception& e) {
    spdlog::warn("job {}: cannot reserve a worker for its turn: {}", job_id, e.what());
    owner_.reset();
  }
}

Status SqlStore::QueuedClaim::Claim(Connection& c, const std::string& job_id, int64_t seq,
                                    UnixMillis now) {
  // An earlier attempt of this transaction was rolled back: what it handed
  // over was never committed.
  Settle(false);
  claimed_turn_ = 0;
  Reserve(job_id);
  if (!owner_) return Status();
  if (ended_) {
    // A transaction run again: its reservation went with an earlier attempt's
    // hand-off, told it was not committed. This turn is left to the workers.
    return Status();
  }
  if (Status s = Run(c, kSavepointClaim, {}); !s.ok()) return s;
  int64_t turn_id = 0;
  bool refused = false;
  Status claim = [&]() -> Status {
    if (Status locked = Run(c, kLockClaims, {}); !locked.ok()) return locked;
    auto r = c.Exec(kQueuedTurnRunnable,
                    {V(job_id), V(seq), V(HeldProjectsJson(owner_->held_projects))});
    if (!r.ok()) return r.status();
    if (!r->Next()) return Status();  // not runnable now: a worker takes it when it is
    const int64_t id = r->Int("id");
    auto loaded = LoadClaimed(c, id, *r);
    if (!loaded.ok()) return loaded.status();
    if (!store_.OpenProjectSecrets(loaded->project).ok()) {
      return Status();  // a worker's claim fails the turn, saying why (ClaimTurn)
    }
    Status w =
        Run(c, kClaimTurn,
            {V(id), V(owner_->worker_id), V(static_cast<int64_t>(owner_->lease.count())), V(now)});
    if (w.ok()) {
      w = AppendEvent(c, job_id, loaded->job.project_id, EventType::kTurnStarted,
                      TurnStartedData(loaded->message.seq, loaded->attempt), now);
    }
    if (!w.ok()) return w;
    // Handed over now, so that a worker starts on it while the write commits.
    std::promise<bool> committed;
    std::shared_future<bool> told = committed.get_future().share();
    bool took = false;
    ended_ = true;  // told, whatever the answer
    try {
      took = hook_.claimed(*owner_, std::move(*loaded), told);
    } catch (const std::exception& e) {
      spdlog::warn("job {}: cannot hand its turn over: {}", job_id, e.what());
    }
    if (!took) {
      refused = true;
      return Status();
    }
    committed_ = std::move(committed);
    turn_id = id;
    return Status();
  }();
  if (!claim.ok() || refused) {
    if (!claim.ok()) {
      spdlog::warn("job {}: cannot claim its turn as it is queued: {}", job_id, claim.message());
    }
    if (Status undone = Run(c, kUndoClaim, {}); !undone.ok()) return undone;
  }
  if (Status kept = Run(c, kKeepClaim, {}); !kept.ok()) return kept;
  claimed_turn_ = turn_id;
  return Status();
}

std::function<void()> SqlStore::QueuedClaim::Visible() {
  if (!store_.HasTurnListeners()) return nullptr;
  return [this] {
    if (told_) return;
    told_ = true;
    if (owner_) {
      Settle(true);
      if (!ended_) hook_.unclaimed(*owner_);
    }
  };
}

Result<TurnInput> SqlStore::LoadClaimed(Connection& c, int64_t turn_id, const Rows& runnable) {
  const std::string job_id = runnable.Text("job_id");
  const int64_t seq = runnable.Int("seq");
  TurnInput ct;
  ct.turn_id = turn_id;
  ct.attempt = static_cast<int>(runnable.Int("attempts") + 1);
  ct.stop_requested = runnable.Int("stop_requested") != 0;
  auto job = LoadJobById(c, job_id);
  if (!job.ok()) return job.status();
  ct.job = std::move(*job);
  {
    auto p = c.Exec(kSelectClaimedProject, {V(ct.job.project_id)});
    if (!p.ok()) return p.status();
    if (!p->Next()) return Status::Internal("project vanished");
    ct.project = ReadProject(*p);
    ct.org_budget = MonthlyBudget{.tokens = p->OptInt("org_token_budget"),
                                  .cost_micros = p->OptInt("org_cost_budget_micros")};
  }
  {
    auto m = c.Exec(kSelectMessagesUpTo, {V(job_id), V(seq), V(kMaxHistoryMessages)});
    if (!m.ok()) return m.status();
    while (m->Next()) ct.history.push_back(ReadMessage(*m));
  }
  if (ct.history.empty() || ct.history.back().seq != seq) {
    return Status::Internal("message of turn " + std::to_string(turn_id) + " is missing");
  }
  ct.message = std::move(ct.history.back());
  ct.history.pop_back();
  return ct;
}

Result<LeaseState> SqlStore::RenewLease(int64_t turn_id, const std::string& worker_id,
                                        std::chrono::milliseconds lease) {
  std::optional<LeaseState> result;
  Status s = WriteAs(Commit::kRenewal, [&](Connection& c) -> Status {
    result.reset();
    auto r =
        c.Exec(kRenewLease, {V(turn_id), V(worker_id), V(static_cast<int64_t>(lease.count()))});
    if (!r.ok()) return r.status();
    if (r->Next()) {
      result = r->Int(0) != 0 ? LeaseState::kStopRequested : LeaseState::kHeld;
      return Status();
    }
    auto lost = WhyNotHeld(c, turn_id);
    if (!lost.ok()) return lost.status();
    result = *lost;
    return Status();
  });
  if (!s.ok()) return s;
  return *result;
}

std::vector<Result<LeaseState>> SqlStore::RenewLeases(const std::vector<HeldLease>& leases,
                                                      std::chrono::milliseconds lease) {
  std::vector<Result<LeaseState>> out;
  out.reserve(leases.size());
  Status failed;
  for (size_t start = 0; start < leases.size(); start += kMaxLeasesPerRenewal) {
    const size_t n = std::min(kMaxLeasesPerRenewal, leases.size() - start);
    if (failed.ok()) {
      auto renewed = RenewLeaseChunk(std::span(leases).subspan(start, n), lease);
      if (renewed.ok()) {
        for (Result<LeaseState>& state : *renewed) out.push_back(std::move(state));
        continue;
      }
      // The database is likely out of reach: the rest are not tried, each
      // chunk would wait out its retries in vain.
      failed = renewed.status();
    }
    out.insert(out.end(), n, Result<LeaseState>(failed));
  }
  return out;
}

Result<std::vector<Result<LeaseState>>> SqlStore::RenewLeaseChunk(std::span<const HeldLease> leases,
                                                                  std::chrono::milliseconds lease) {
  const std::string pairs = LeasesJson(leases);
  std::vector<std::optional<Result<LeaseState>>> states;
  Status s = driver_->Write(Commit::kRenewal, [&](Connection& c) -> Status {
    states.assign(leases.size(), std::nullopt);
    auto renewed = c.Exec(kRenewLeases, {V(pairs), V(static_cast<int64_t>(lease.count()))});
    if (!renewed.ok()) return renewed.status();
    auto read = c.Exec(kSelectRenewedLeases, {V(pairs)});  // SQLite's answer
    if (!read.ok()) return read.status();
    for (Rows* rows : {&*renewed, &*read}) {
      while (rows->Next()) {
        const int64_t ord = rows->Int("ord");
        if (ord < 1 || ord > static_cast<int64_t>(leases.size())) {
          return Status::Internal("a lease renewal answered for a turn it was not given");
        }
        const HeldLease& held = leases[ord - 1];
        std::optional<Result<LeaseState>>& state = states[ord - 1];
        const std::optional<std::string> now_in = rows->OptText("state");
        if (!now_in) {
          state = Status::NotFound("turn not found");
        } else if (rows->Int("renewed") != 0) {
          state = rows->Int("stop_requested") != 0 ? LeaseState::kStopRequested : LeaseState::kHeld;
        } else if (*now_in == "running" && rows->OptText("lease_owner") == held.worker_id) {
          // Not renewed, yet held as of the statement's start (PostgreSQL): a
          // write to the turn committed meanwhile. Read what it did.
          auto why = WhyNotHeld(c, held.turn_id);
          if (!why.ok() && why.status().code() != Code::kNotFound) return why.status();
          state = std::move(why);
        } else {
          state = *now_in == "cancelled" ? LeaseState::kCancelled : LeaseState::kLost;
        }
      }
    }
    for (const auto& state : states) {
      if (!state) return Status::Internal("a lease renewal gave no state for a turn");
    }
    return Status();
  });
  if (!s.ok()) return s;
  std::vector<Result<LeaseState>> out;
  out.reserve(states.size());
  for (std::optional<Result<LeaseState>>& state : states) out.push_back(std::move(*state));
  return out;
}

Result<LeaseState> SqlStore::FinishTurn(int64_t turn_id, const std::string& worker_id,
                                        const TurnOutcome& outcome) {
  std::optional<LeaseState> result;
  std::string job_id;
  Status s = Write([&](Connection& c) -> Status {
    result.reset();
    {
      auto r = c.Exec(kSelectTurn, {V(turn_id)});
      if (!r.ok()) return r.status();
      if (!r->Next()) return Status::NotFound("turn not found");
      job_id = r->Text("job_id");
    }
    if (Status locked = Run(c, kLockJob, {V(job_id)}); !locked.ok()) return locked;
    int64_t seq = 0;
    {
      auto r = c.Exec(kLockTurn, {V(turn_id)});
      if (!r.ok()) return r.status();
      if (!r->Next()) return Status::NotFound("turn not found");
      const std::string state = r->Text("state");
      if (state != "running" || r->Text("lease_owner") != worker_id) {
        result = state == "cancelled" ? LeaseState::kCancelled : LeaseState::kLost;
      } else {
        seq = r->Int("seq");
      }
    }
    if (result) {
      // The outcome is not this worker's to record any more (archived, or the
      // turn was taken over), but the tokens it spent were spent.
      return AddTurnUsage(c, turn_id, job_id, outcome.usage, outcome.model, outcome.cost_micros);
    }
    UnixMillis now = NowMillis();
    std::string ended(ToString(outcome.succeeded ? TurnState::kSucceeded : TurnState::kFailed));
    // Added to, not replaced: an earlier attempt whose lease was lost may have
    // charged the turn already (ChargeTurnUsage).
    Status w = AddTurnUsage(c, turn_id, job_id, outcome.usage, outcome.model, outcome.cost_micros);
    if (w.ok()) {
      w = Run(
          c, kFinishTurn,
          {V(turn_id), V(ended), V(outcome.summary), V(outcome.error), V(now), V(outcome.model)});
    }
    if (w.ok()) w = RecordSteps(c, job_id, seq, outcome.steps);
    if (w.ok()) CrashPoint("store.turn-recording");
    if (w.ok()) w = MoveJobAfterTurn(c, job_id, seq, outcome, now);
    if (w.ok()) w = Notify(c, "t");  // the job's next turn, or a turn a cap held back
    if (!w.ok()) return w;
    result = LeaseState::kHeld;
    return Status();
  });
  if (!s.ok()) return s;
  if (*result == LeaseState::kHeld) AnnounceEvents(job_id);
  return *result;
}

Status SqlStore::ReleaseTurn(int64_t turn_id, const std::string& worker_id) {
  return Write([&](Connection& c) {
    Status s = Run(c, kReleaseTurn, {V(turn_id), V(worker_id)});
    return s.ok() ? Notify(c, "t") : s;
  });
}

Status SqlStore::RecordSteps(Connection& c, const std::string& job_id, int64_t seq,
                             const std::vector<TranscriptStep>& steps) {
  Status w = Run(c, kDeleteSteps, {V(job_id), V(seq)});
  for (size_t i = 0; w.ok() && i < steps.size(); ++i) {
    const TranscriptStep& step = steps[i];
    w = Run(c, kInsertStep,
            {V(job_id), V(seq), V(static_cast<int64_t>(i + 1)), V(StepKindName(step.kind)),
             V(step.text), V(step.tool), V(step.arguments), V(step.result), V(step.is_error)});
  }
  return w;
}

Status SqlStore::ChargeTurnUsage(int64_t turn_id, const TokenUsage& usage, const std::string& model,
                                 std::optional<int64_t> cost_micros) {
  return Write([&](Connection& c) -> Status {
    std::string job_id;
    {
      auto r = c.Exec(kSelectTurn, {V(turn_id)});
      if (!r.ok()) return r.status();
      if (!r->Next()) return Status::NotFound("turn not found");
      job_id = r->Text("job_id");
    }
    if (usage.total() == 0) return Status();
    if (Status locked = Run(c, kLockJob, {V(job_id)}); !locked.ok()) return locked;
    if (Status locked = Run(c, kLockTurn, {V(turn_id)}); !locked.ok()) return locked;
    return AddTurnUsage(c, turn_id, job_id, usage, model, cost_micros);
  });
}

Status SqlStore::AddTurnUsage(Connection& c, int64_t turn_id, const std::string& job_id,
                              const TokenUsage& used, const std::string& model,
                              std::optional<int64_t> cost_micros) {
  // A turn that used no model (a scripted one, or one that failed before its
  // first request) is not one of the job's turns of Job::usage; one is counted
  // once, and as unpriced while it has no cost, however often it is charged.
  struct Counted {
    int64_t counted = 0;
    int64_t unpriced = 0;
  };
  auto read = [&]() -> Result<Counted> {
    auto r = c.Exec(kSelectTurnCounted, {V(turn_id)});
    if (!r.ok()) return r.status();
    if (!r->Next()) return Status::NotFound("turn not found");
    int64_t counted = r->Int("counted");
    return Counted{.counted = counted, .unpriced = counted * r->Int("unpriced")};
  };
  auto before = read();
  if (!before.ok()) return before.status();
  Status w =
      Run(c, kAddTurnUsage,
          {V(turn_id), V(used.input_tokens), V(used.output_tokens), V(used.cached_input_tokens),
           V(used.cache_write_tokens), V(cost_micros), V(model)});
  if (!w.ok()) return w;
  auto after = read();
  if (!after.ok()) return after.status();
  return Run(c, kAddJobUsage,
             {V(job_id), V(used.input_tokens), V(used.output_tokens), V(used.cached_input_tokens),
              V(used.cache_write_tokens), V(cost_micros.value_or(0)),
              V(after->counted - before->counted), V(after->unpriced - before->unpriced)});
}

Status SqlStore::MoveJobAfterTurn(Connection& c, const std::string& job_id, int64_t seq,
                                  const TurnOutcome& outcome, UnixMillis now) {
  auto job = LoadJobById(c, job_id);
  if (!job.ok()) return job.status();
  auto more = One(c, kMoreTurnsAfter, {V(job_id), V(seq)});
  if (!more.ok()) return more.status();
  JobAfterTurn after = AfterTurn(*job, outcome, *more > 0);
  Status w =
      Run(c, kJobAfterTurn,
          {V(job_id), V(after.status), V(outcome.pr_link), V(outcome.summary), V(after.error),
           V(now), V(outcome.commit_sha), V(outcome.commit_url), V(outcome.pr_state)});
  if (w.ok()) w = Notify(c, "j:" + job_id);
  if (!w.ok()) return w;
  auto moved = LoadJobById(c, job_id);
  if (!moved.ok()) return moved.status();
  return AppendTurnEndedEvents(c, *job, *moved, static_cast<int>(seq), outcome, now);
}

Status SqlStore::AppendTurnEndedEvents(Connection& c, const Job& before, const Job& after, int seq,
                                       const TurnOutcome& outcome, UnixMillis now) {
  const std::string& project_id = after.project_id;
  Status w =
      AppendEvent(c, after.id, project_id, EventType::kTurnEnded, TurnEndedData(seq, outcome), now);
  // The turn opened the pull request, or updated it with a push.
  bool published = false;
  for (const TranscriptStep& step : outcome.steps) {
    published |= step.kind == TranscriptStep::Kind::kPublish && step.tool == kPublishPullRequest;
  }
  if (w.ok() && outcome.pr_link && published) {
    // Another pull request than the job had (a new branch after the earlier
    // one was merged) is opened, not updated.
    EventType type = before.pr_link == outcome.pr_link ? EventType::kPullRequestUpdated
                                                       : EventType::kPullRequestOpened;
    w = AppendEvent(c, after.id, project_id, type, PullRequestData(seq, *outcome.pr_link), now);
  }
  if (w.ok() && after.status != before.status) {
    if (after.status == JobStatus::kCompleted) {
      w = AppendEvent(c, after.id, project_id, EventType::kJobCompleted, JobData(after), now);
    } else if (after.status == JobStatus::kFailed) {
      w = AppendEvent(c, after.id, project_id, EventType::kJobFailed, JobData(after), now);
    }
  }
  return w;
}

Result<LeaseState> SqlStore::WhyNotHeld(Connection& c, int64_t turn_id) {
  auto r = c.Exec(kSelectTurn, {V(turn_id)});
  if (!r.ok()) return r.status();
  if (!r->Next()) return Status::NotFound("turn not found");
  return r->Text("state") == "cancelled" ? LeaseState::kCancelled : LeaseState::kLost;
}

}  // namespace docwright::sql
