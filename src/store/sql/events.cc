// The SQL store: the jobs' events, written in the transaction of each change
// (AppendEvent) with their webhook deliveries (the outbox), and the steps of
// running turns, recorded as they happen.
#include "store/sql/internal.h"
#include "store/sql/statements.h"

namespace docwright::sql {
namespace {

JobEvent ReadEvent(const Rows& r) {
  JobEvent e;
  e.job_id = r.Text("job_id");
  e.sequence = r.Int("sequence");
  e.project_id = r.Text("project_id");
  // Every stored type was written from the vocabulary; a newer docwright's
  // unknown one reads as what it most likely is not, so it is never dropped.
  e.type = ParseEventType(r.Text("type")).value_or(EventType::kTurnStep);
  e.created_at = r.Int("created_at");
  e.data = r.Text("data");
  return e;
}

}  // namespace

Result<std::vector<JobEvent>> SqlStore::ListEvents(const Scope& scope, const std::string& job_id,
                                                   int64_t after_sequence, int limit) {
  return Read<std::vector<JobEvent>>([&](Connection& c) -> Result<std::vector<JobEvent>> {
    auto job = LoadJob(c, scope, job_id);
    if (!job.ok()) return job.status();
    auto r = c.Exec(kSelectEvents, {V(job_id), V(after_sequence), V(int64_t{limit})});
    if (!r.ok()) return r.status();
    std::vector<JobEvent> events;
    while (r->Next()) events.push_back(ReadEvent(*r));
    return events;
  });
}

Result<LeaseState> SqlStore::RecordStep(int64_t turn_id, const std::string& worker_id, int index,
                                        const TranscriptStep& step) {
  std::optional<LeaseState> result;
  std::string job_id;
  Status s = WriteAs(Commit::kLeaseOnly, [&](Connection& c) -> Status {
    result.reset();
    std::string project_id;
    {
      auto r = c.Exec(kSelectTurn, {V(turn_id)});
      if (!r.ok()) return r.status();
      if (!r->Next()) return Status::NotFound("turn not found");
      job_id = r->Text("job_id");
    }
    if (Status locked = Run(c, kLockJob, {V(job_id)}); !locked.ok()) return locked;
    int64_t seq = 0, attempt = 0;
    {
      auto r = c.Exec(kLockTurn, {V(turn_id)});
      if (!r.ok()) return r.status();
      if (!r->Next()) return Status::NotFound("turn not found");
      const std::string state = r->Text("state");
      if (state != "running" || r->Text("lease_owner") != worker_id) {
        result = state == "cancelled" ? LeaseState::kCancelled : LeaseState::kLost;
        return Status();
      }
      seq = r->Int("seq");
      attempt = r->Int("attempts");
    }
    auto job = LoadJobById(c, job_id);
    if (!job.ok()) return job.status();
    UnixMillis now = NowMillis();
    Status w = Run(c, kUpsertStep,
                   {V(job_id), V(seq), V(int64_t{index}), V(StepKindName(step.kind)), V(step.text),
                    V(step.tool), V(step.arguments), V(step.result), V(step.is_error)});
    if (w.ok()) w = Run(c, kTouchJob, {V(job_id), V(now)});
    if (w.ok()) {
      w = AppendEvent(c, job_id, job->project_id, EventType::kTurnStep,
                      TurnStepData(static_cast<int>(seq), static_cast<int>(attempt), index, step),
                      now);
    }
    if (!w.ok()) return w;
    result = LeaseState::kHeld;
    return Status();
  });
  if (!s.ok()) return s;
  if (*result == LeaseState::kHeld) AnnounceEvents(job_id);
  return *result;
}

Status SqlStore::AppendEvent(Connection& c, const std::string& job_id,
                             const std::string& project_id, EventType type, const std::string& data,
                             UnixMillis now) {
  auto sequence = One(c, kNextEvent, {V(job_id)});
  if (!sequence.ok()) return sequence.status();
  const std::string_view name = EventTypeName(type);
  Status w =
      Run(c, kInsertEvent, {V(job_id), V(*sequence), V(project_id), V(name), V(data), V(now)});
  if (!w.ok()) return w;
  // The outbox: the event's deliveries, committed with it or not at all. Only
  // an event some endpoint takes wakes the delivery workers: on a node whose
  // events go nowhere they do nothing per event.
  auto queued =
      c.Exec(kEnqueueDeliveries, {V(job_id), V(*sequence), V(project_id), V(name), V(now)});
  if (!queued.ok()) return queued.status();
  if (queued->affected() > 0) {
    c.NoteDeliveriesDue();
    if (Status told = Notify(c, "w"); !told.ok()) return told;
  }
  return Notify(c, "e:" + job_id);
}

Status SqlStore::WriteAs(Commit commit, const std::function<Status(Connection&)>& fn,
                         const std::function<void()>& visible) {
  bool due = false;
  bool queued = false;
  bool told = false;
  std::function<void()> tell;
  if (visible) {
    tell = [&] {
      visible();
      if (queued && !told) {
        told = true;
        AnnounceTurnQueued();
      }
    };
  }
  Status s = driver_->Write(
      commit,
      [&](Connection& c) -> Status {
        Status done = fn(c);
        // Of this attempt: a retried one starts afresh.
        due = c.deliveries_due();
        queued = c.turn_queued();
        return done;
      },
      tell);
  // Also when the commit failed (it may have been made): a wake-up that finds
  // nothing costs a look, a lost one a turn's or a delivery's promptness.
  if (queued && !told) AnnounceTurnQueued();
  if (due) AnnounceDeliveries();
  return s;
}

void SqlStore::Watch(StoreWatcher watcher) {
  {
    MutexLock lock(watchers_mu_);
    // This process's own writes, whatever the backend: told as they become
    // visible, before any announcement could arrive.
    if (watcher.turn_queued_here) turn_watchers_.push_back(watcher.turn_queued_here);
  }
  if (driver_->AnnouncesChanges()) {
    // The driver hears every node's announcements, this one's included.
    driver_->Watch(std::move(watcher));
    return;
  }
  if (!watcher.job_events && !watcher.webhook_deliveries) return;
  MutexLock lock(watchers_mu_);
  local_watchers_.push_back(std::move(watcher));
}

void SqlStore::TakeQueuedTurns(TurnTaker taker) {
  MutexLock lock(watchers_mu_);
  taker_ = std::move(taker);
}

TurnTaker SqlStore::Taker() {
  MutexLock lock(watchers_mu_);
  return taker_;
}

bool SqlStore::HasTurnListeners() {
  MutexLock lock(watchers_mu_);
  return !turn_watchers_.empty() || (taker_.reserve && taker_.claimed && taker_.unclaimed);
}

void SqlStore::AnnounceTurnQueued() {
  std::vector<std::function<void()>> watchers;
  {
    MutexLock lock(watchers_mu_);
    if (turn_watchers_.empty()) return;
    watchers = turn_watchers_;
  }
  for (const auto& w : watchers) w();
}

void SqlStore::AnnounceEvents(const std::string& job_id) {
  std::vector<StoreWatcher> watchers;
  {
    MutexLock lock(watchers_mu_);
    if (local_watchers_.empty()) return;
    watchers = local_watchers_;
  }
  for (const StoreWatcher& w : watchers) {
    if (w.job_events) w.job_events(job_id);
  }
}

void SqlStore::AnnounceDeliveries() {
  std::vector<StoreWatcher> watchers;
  {
    MutexLock lock(watchers_mu_);
    if (local_watchers_.empty()) return;
    watchers = local_watchers_;
  }
  for (const StoreWatcher& w : watchers) {
    if (w.webhook_deliveries) w.webhook_deliveries();
  }
}

}  // namespace docwright::sql
