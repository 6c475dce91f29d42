// The Store: every durable fact of docwright, behind one interface.
//
// Implementations: SqliteStore (embedded default). A PostgreSQL implementation
// follows the same contract. All methods are thread-safe. A method that returns
// OK for a write has made that write durable (it survives a crash of the process
// or the machine).
//
// Tenancy is enforced here, not only in the API: every job-level method takes a
// Scope, and a project of another organisation is NotFound, exactly as a project
// that does not exist.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/job.h"
#include "core/turn.h"
#include "core/status.h"

namespace docwright {

// Who is asking: an organisation, and the project it names.
struct Scope {
  std::string org_id;
  std::string project_id;
};

struct NewJob {
  std::string prompt;
  std::optional<std::string> requested_model;  // the creator's choice, if any
  std::optional<std::string> default_model;    // the server's, used after the project's
  bool draft = false;
};

struct JobQuery {
  std::optional<JobStatus> status;
  int limit = 20;
  std::optional<std::string> after_id;  // exclusive; jobs are listed newest first
};

struct JobPage {
  std::vector<Job> jobs;
  std::optional<std::string> next_after_id;  // set when more jobs follow
};

struct MessageQuery {
  int after_seq = 0;  // exclusive
  int limit = 100;
};

struct MessagePage {
  std::vector<Message> messages;
  std::optional<int> next_after_seq;  // set when more messages follow
};

// A turn a runner holds a lease on.
struct ClaimedTurn {
  int64_t turn_id = 0;
  int attempt = 0;  // 1 for the first run, 2+ for re-runs after a lost lease
  Job job;
  Project project;
  Message message;                // the prompt this turn carries out
  // Earlier messages of the job, in order: the first one and the latest
  // kMaxHistoryMessages, however long the job is.
  std::vector<Message> history;
};

struct TurnOutcome {
  bool succeeded = false;
  std::optional<std::string> pr_link;  // kept from earlier turns when not set
  std::optional<std::string> summary;
  std::optional<std::string> error;    // set when !succeeded
  std::vector<TranscriptStep> steps;   // replaces those of an earlier attempt
  TokenUsage usage;
};

// A pull request of the embedded "local" forge: docwright stores and shows it.
// One per (project, head branch). `id` is unguessable: it is the only secret of
// the page that shows it (a browser link cannot carry an API key).
struct LocalPullRequest {
  std::string id;
  std::string project_id;
  int64_t number = 0;  // per project: 1, 2, ...
  std::string head;    // the branch with the changes
  std::string base;    // the branch it targets
  std::string title;
  std::string body;
  std::string diff;    // unified diff of head against base, bounded by its writer
  bool draft = false;
  UnixMillis created_at = 0;
  UnixMillis updated_at = 0;
  // Set when its job was archived: the body and diff are gone, and the page says
  // only that it was closed.
  std::optional<UnixMillis> archived_at;
};

// Local pull request ids: 22 base62 characters (about 131 random bits).
inline constexpr size_t kPullRequestIdLength = 22;
inline bool LooksLikePullRequestId(std::string_view id) {
  if (id.size() != kPullRequestIdLength) return false;
  for (char c : id) {
    bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!alnum) return false;
  }
  return true;
}
// Where the API serves a local pull request's page, under the public URL.
inline std::string PullRequestPagePath(std::string_view id) {
  return "/pulls/" + std::string(id);
}

enum class LeaseState {
  kHeld,      // renewed
  kLost,      // another worker holds it now, or the turn ended elsewhere
  kCancelled  // the job was archived: stop working on it
};

class Store {
 public:
  virtual ~Store() = default;

  // --- Organisations and API keys ---
  virtual Result<Org> CreateOrg(const std::string& name) = 0;
  virtual Result<Org> GetOrg(const std::string& org_id) = 0;
  // Stores a key whose id, prefix and secret_hash the caller made.
  virtual Status CreateApiKey(const ApiKey& key) = 0;
  virtual Result<std::vector<ApiKey>> ListApiKeys(const std::string& org_id) = 0;
  // Idempotent. NotFound if there is no such key.
  virtual Status RevokeApiKey(const std::string& key_id) = 0;
  // The unrevoked key whose secret hashes to `secret_hash`; NotFound otherwise.
  virtual Result<ApiKey> FindActiveApiKey(const std::string& secret_hash) = 0;

  // --- Projects ---
  // Stores `project`; its id and created_at are assigned by the store.
  virtual Result<Project> CreateProject(Project project) = 0;
  virtual Result<Project> GetProject(const Scope& scope) = 0;
  virtual Result<std::vector<Project>> ListProjects(const std::string& org_id) = 0;
  // Replaces the project's settings (all but id, org_id and created_at) with
  // `project`'s. NotFound if no project has its id.
  virtual Status UpdateProject(const Project& project) = 0;

  // --- Jobs ---
  // Creates the job, its first message and its first turn in one transaction,
  // unless the project's rate limit (creates + messages per hour) is reached:
  // then RateLimited with the seconds until a slot frees.
  virtual Result<Job> CreateJob(const Scope& scope, const NewJob& job) = 0;
  virtual Result<Job> GetJob(const Scope& scope, const std::string& job_id) = 0;
  virtual Result<JobPage> ListJobs(const Scope& scope, const JobQuery& query) = 0;
  // Appends a follow-up message and its turn; the job becomes active. Conflict
  // for an archived job or one with kMaxMessagesPerJob messages; RateLimited as
  // CreateJob, and when kMaxQueuedFollowUps follow-ups already wait.
  virtual Result<Job> AddMessage(const Scope& scope, const std::string& job_id,
                                 const std::string& prompt) = 0;
  // Archives the job and cancels its unfinished turns. Idempotent.
  virtual Result<Job> ArchiveJob(const Scope& scope, const std::string& job_id) = 0;
  // The job's messages in order, a page at a time.
  virtual Result<MessagePage> ListMessages(const Scope& scope, const std::string& job_id,
                                           const MessageQuery& query) = 0;
  // The steps of the job's turns `from_seq` to `to_seq`, in order, by message.
  virtual Result<std::vector<std::pair<int, TranscriptStep>>> ListSteps(const Scope& scope,
                                                                      const std::string& job_id,
                                                                      int from_seq,
                                                                      int to_seq) = 0;
  // The tokens the job's turns used, all turns together.
  virtual Result<TokenUsage> JobUsage(const Scope& scope, const std::string& job_id) = 0;
  // All of them; for tests and tools on small jobs.
  Result<std::vector<Message>> ListMessages(const Scope& scope, const std::string& job_id) {
    MessageQuery q;
    q.limit = 1 << 30;
    auto page = ListMessages(scope, job_id, q);
    if (!page.ok()) return page.status();
    return std::move(page->messages);
  }

  // --- Turns: the work queue ---
  // Claims the oldest runnable turn: queued, or running with an expired lease,
  // and the first unfinished turn of its job (so a job's turns run in order, one
  // at a time). A turn whose lease expired `max_attempts` times is failed instead,
  // with its job. nullopt when nothing is runnable.
  virtual Result<std::optional<ClaimedTurn>> ClaimTurn(const std::string& worker_id,
                                                       std::chrono::milliseconds lease,
                                                       int max_attempts) = 0;
  virtual Result<LeaseState> RenewLease(int64_t turn_id, const std::string& worker_id,
                                        std::chrono::milliseconds lease) = 0;
  // Records the outcome and moves the job on (see StatusAfterTurn). Returns
  // kLost (and changes nothing) if the worker no longer holds the turn.
  virtual Result<LeaseState> FinishTurn(int64_t turn_id, const std::string& worker_id,
                                        const TurnOutcome& outcome) = 0;
  // Gives the turn back untouched, for another worker to claim at once; the
  // attempt does not count. Used on graceful shutdown.
  virtual Status ReleaseTurn(int64_t turn_id, const std::string& worker_id) = 0;

  // --- Pull requests of the local forge ---
  // Creates the project's pull request for `pr.head`, or updates the title, body,
  // diff and draft flag of the one that exists; id, number and created_at are
  // assigned by the store on creation. Returns the stored pull request.
  virtual Result<LocalPullRequest> UpsertPullRequest(const LocalPullRequest& pr) = 0;
  // NotFound unless a pull request has this id.
  virtual Result<LocalPullRequest> GetPullRequest(const std::string& id) = 0;

  // Cheap liveness check for /healthz.
  virtual Status Ping() = 0;
};

// Opens (creating and migrating as needed) the store `url` names:
// "sqlite:///abs/path.db", "sqlite:relative.db", a plain file path, or
// "postgres://..." (not available in this build: a clear error).
Result<std::unique_ptr<Store>> OpenStore(const std::string& url);

}  // namespace docwright
