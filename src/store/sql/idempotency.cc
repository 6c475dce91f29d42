// The SQL store: creates and follow-ups under an idempotency key.
//
// A key's row is looked up and written in the transaction that writes the job,
// after the project's lock (which every writer of the project's jobs takes):
// of two requests with one key, the second waits for the first's commit, then
// finds its row and replays it. The row's primary key (project, key) is what
// makes a key used once whatever the locks; a write that hits it anyway answers
// with the row that beat it.
#include "store/sql/internal.h"
#include "store/sql/statements.h"

namespace docwright::sql {
namespace {

constexpr int64_t kKeyTtlMillis =
    std::chrono::duration_cast<std::chrono::milliseconds>(kIdempotencyKeyTtl).count();

// Expired keys of the project one keyed write removes, besides its own: enough
// to keep up with any rate of keyed writes, bounded so no write pays for a
// backlog.
constexpr int64_t kExpiredKeysPerWrite = 16;

}  // namespace

Result<IdempotentWrite> SqlStore::CreateJobWithKey(const Scope& scope, const NewJob& job,
                                                   const IdempotentRequest& request) {
  QueuedClaim claim(*this);
  return WriteWithKey(
      scope, request,
      [&](Connection& c, const Project& p, UnixMillis now) {
        return InsertJob(c, p, job, now, &claim);
      },
      claim);
}

Result<IdempotentWrite> SqlStore::AddMessageWithKey(const Scope& scope, const std::string& job_id,
                                                    const NewMessage& message,
                                                    const IdempotentRequest& request) {
  QueuedClaim claim(*this);
  return WriteWithKey(
      scope, request,
      [&](Connection& c, const Project& p, UnixMillis now) {
        return AppendMessage(c, scope, p, job_id, message, now, &claim);
      },
      claim);
}

Result<IdempotentWrite> SqlStore::WriteWithKey(const Scope& scope, const IdempotentRequest& request,
                                               const JobWrite& write, QueuedClaim& claim) {
  IdempotentWrite out;
  bool inserting_key = false;
  std::string project_id;
  UnixMillis oldest = 0;
  std::function<void()> visible;
  if (std::function<void()> tell = claim.Visible()) {
    visible = [&out, tell = std::move(tell)] {
      if (out.outcome == IdempotentWrite::Outcome::kDone) tell();
    };
  }
  Status s = WriteAs(
      Commit::kDurable,
      [&](Connection& c) -> Status {
        out = IdempotentWrite();
        inserting_key = false;
        auto project = LoadProject(c, scope);
        if (!project.ok()) return project.status();
        project_id = project->id;
        Status locked = LockProjectForJobs(c, project->id);
        if (!locked.ok()) return locked;
        auto now = Now(c);
        if (!now.ok()) return now.status();
        oldest = *now - kKeyTtlMillis;
        Status swept = Run(c, kDeleteExpiredIdempotencyKeys,
                           {V(project->id), V(oldest), V(request.key), V(kExpiredKeysPerWrite)});
        if (!swept.ok()) return swept;
        auto kept = FindIdempotencyKey(c, project->id, request, oldest, &out);
        if (!kept.ok()) return kept.status();
        if (*kept) return Status();  // commits the sweep alone
        auto job = write(c, *project, *now);
        if (!job.ok()) return job.status();
        out.outcome = IdempotentWrite::Outcome::kDone;
        out.status = request.status;
        out.body = request.render(*job);
        out.job = std::move(*job);
        inserting_key = true;
        return Run(c, kInsertIdempotencyKey,
                   {V(project->id), V(request.key), V(request.route), V(request.body_sha256),
                    V(out.status), V(out.body), V(*now)});
      },
      visible);
  if (s.ok()) {
    if (out.job) AnnounceEvents(out.job->id);
    return out;
  }
  if (!inserting_key || s.code() != Code::kConflict) return s;
  // Another transaction wrote the key first (and has committed: PostgreSQL
  // reports the violation once it has): answer with what it stored.
  IdempotentWrite replay;
  bool kept = false;
  Status read = driver_->Read([&](Connection& c) -> Status {
    auto found = FindIdempotencyKey(c, project_id, request, oldest, &replay);
    if (!found.ok()) return found.status();
    kept = *found;
    return Status();
  });
  if (!read.ok()) return read;
  if (!kept) replay.outcome = IdempotentWrite::Outcome::kInProgress;
  return replay;
}

Result<bool> SqlStore::FindIdempotencyKey(Connection& c, const std::string& project_id,
                                          const IdempotentRequest& request, UnixMillis oldest,
                                          IdempotentWrite* out) {
  auto r = c.Exec(kSelectIdempotencyKey, {V(project_id), V(request.key), V(oldest)});
  if (!r.ok()) return r.status();
  if (!r->Next()) return false;
  *out = IdempotentWrite();
  if (r->Text("route") != request.route || r->Text("body_sha256") != request.body_sha256) {
    out->outcome = IdempotentWrite::Outcome::kKeyReused;
    return true;
  }
  out->outcome = IdempotentWrite::Outcome::kReplayed;
  out->status = static_cast<int>(r->Int("status"));
  out->body = r->Text("body");
  return true;
}

}  // namespace docwright::sql
