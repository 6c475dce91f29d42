// Domain types of docwright and the job state machine: the heart of core/, the
// domain and small shared utilities that every room links and that link no room.
//
// A Job belongs to a Project, which belongs to an Org. Each prompt sent to a job
// (the first one and every follow-up) is a Message and creates one Turn: the unit
// of work a runner claims. Turns of one job run one at a time, in message order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/time.h"

namespace docwright {

// Limits of the public API, in one place.
inline constexpr size_t kMaxPromptChars = 65536;
inline constexpr size_t kMaxModelNameChars = 200;
inline constexpr int64_t kDefaultRateLimitPerHour = 100;
inline constexpr int kMaxTurnAttempts = 3;
// Messages (the first prompt and its follow-ups) one job may have; a job that
// has them all takes no more (409).
inline constexpr int kMaxMessagesPerJob = 1000;
// Follow-ups waiting behind a job's running turn; more are refused (429) until
// the queue runs down.
inline constexpr int kMaxQueuedFollowUps = 10;
// Earlier messages a turn is given: the job's first and the latest this many.
inline constexpr int kMaxHistoryMessages = 20;
// A project's model allow-list and write rules: entries and their size.
inline constexpr size_t kMaxProjectListEntries = 64;
inline constexpr size_t kMaxProjectListEntryChars = 256;
// The longest Project::site_root.
inline constexpr size_t kMaxSiteRootChars = 512;

// The most turns an organisation or a project may cap its turns in flight at.
inline constexpr int64_t kMaxActiveCap = 100000;

// Tokens a model read and wrote: for one reply, one turn, or a whole job.
// `input_tokens` counts every token of the prompt, those read from the
// provider's prompt cache and those written to it included (so both providers
// count alike: Anthropic reports the three apart, OpenAI the cached ones within
// its prompt tokens); `cached_input_tokens` and `cache_write_tokens` are the
// parts of it billed at the cache's prices (core/usage.h).
struct TokenUsage {
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  int64_t cached_input_tokens = 0;  // of input_tokens: read from the prompt cache
  int64_t cache_write_tokens = 0;   // of input_tokens: written to the prompt cache

  // Every token, read or written: what a token budget counts.
  int64_t total() const { return input_tokens + output_tokens; }

  TokenUsage& operator+=(const TokenUsage& more) {
    input_tokens += more.input_tokens;
    output_tokens += more.output_tokens;
    cached_input_tokens += more.cached_input_tokens;
    cache_write_tokens += more.cache_write_tokens;
    return *this;
  }
  bool operator==(const TokenUsage&) const = default;
};

// What turns used, added up (a job's, or a project's on one day with one model,
// core/usage.h's UsageRow): tokens by kind, and the estimated cost of those
// turns whose model the price table named when they ended.
struct UsageTotals {
  TokenUsage tokens;
  int64_t cost_micros = 0;     // millionths of the price table's currency
  int64_t turns = 0;           // turns that ended and used the model
  int64_t unpriced_turns = 0;  // of `turns`: no price was known for their model

  UsageTotals& operator+=(const UsageTotals& more) {
    tokens += more.tokens;
    cost_micros += more.cost_micros;
    turns += more.turns;
    unpriced_turns += more.unpriced_turns;
    return *this;
  }
  bool operator==(const UsageTotals&) const = default;
};

// A monthly spending cap of a project or an organisation (the calendar month
// in UTC): none, either or both of a number of tokens (TokenUsage::total) and
// an estimated cost in millionths of the price table's currency.
struct MonthlyBudget {
  std::optional<int64_t> tokens;
  std::optional<int64_t> cost_micros;

  bool empty() const { return !tokens && !cost_micros; }
};

struct Org {
  std::string id;
  std::string name;
  // Turns of the organisation's jobs running at once, on all nodes; none: no cap.
  std::optional<int64_t> max_active;
  UnixMillis created_at = 0;
  // Spending cap of all its projects' turns together (core/usage.h).
  MonthlyBudget budget;
};

// What a key may do (core/api_key.h): an admin everything, keys included; a
// member its organisation's jobs only.
enum class KeyRole { kAdmin, kMember };

// The most projects a key may be limited to.
inline constexpr size_t kMaxKeyProjects = 100;

struct ApiKey {
  std::string id;
  std::string org_id;
  std::string name;
  std::string prefix;               // the first characters of the key, to recognise it in lists
  std::string secret_hash;          // SHA-256 of the whole key; the key itself is never stored
  KeyRole role = KeyRole::kMember;  // the least, unless a role is given
  // Set: the only projects the key reaches (ids; maybe none); unset: all of its
  // organisation's.
  std::optional<std::vector<std::string>> projects;
  UnixMillis created_at = 0;
  // When the key last authenticated a request, to the minute (recorded in the
  // background; see Store::RecordKeyUses).
  std::optional<UnixMillis> last_used_at;
  std::optional<UnixMillis> revoked_at;
};

enum class ForgeKind { kLocal, kGithub, kGitlab, kGitea };
std::string_view ToString(ForgeKind f);
std::optional<ForgeKind> ParseForge(std::string_view s);

// How a run's changes are published.
enum class PublishMode {
  kPullRequest,  // a branch and its pull request, as every job
  kPush,         // straight onto the base branch, if the checks report no new problem
  kAutomerge     // a pull request, merged once its checks pass
};
std::string_view ToString(PublishMode m);  // "pull_request", "push", "automerge"
std::optional<PublishMode> ParsePublishMode(std::string_view s);

struct Project {
  std::string id;
  std::string org_id;
  std::string repository;  // URL or path of the documentation repository
  std::string base_ref;    // branch pull requests target
  ForgeKind forge = ForgeKind::kLocal;
  std::optional<std::string> forge_api_url;
  std::optional<std::string> forge_token;  // secret: never logged, never listed
  // SSH remotes: the private key file to log in with, and the known_hosts file
  // the server's host key must be listed in.
  std::optional<std::string> ssh_key_path;
  std::optional<std::string> ssh_known_hosts_path;
  std::optional<std::string> model;  // overrides the server's default model
  // The models a job may name (its "model" field); empty: any. The project's and
  // the server's default models are always allowed.
  std::vector<std::string> models;
  // What the agent may change beyond, or not within, its default (the docs
  // site's files): gitignore-style patterns, later ones winning; "!" refuses.
  // See agent/write_policy.h.
  std::vector<std::string> write_paths;
  // The folder of the docs site in the repository (its configuration file's, or
  // for plain Markdown its pages'), relative, no ".."; "" finds the site by its
  // configuration file (docs::Limits::site_root).
  std::string site_root;
  int64_t rate_limit_per_hour = kDefaultRateLimitPerHour;
  // Turns of the project's jobs running at once, on all nodes; none: no cap.
  std::optional<int64_t> max_active;
  UnixMillis created_at = 0;
  // Set once archived: no new job or follow-up; running turns finish.
  std::optional<UnixMillis> archived_at;
  // How jobs' changes are published unless a workflow says otherwise.
  PublishMode publish = PublishMode::kPullRequest;
  // The secret the forge's webhooks (POST /hooks/{forge}/{project id}) are
  // signed or sent with (core/forge_event.h); none: deliveries are refused.
  // Secret: sealed at rest, never logged, never listed.
  std::optional<std::string> hook_secret;
  // The handle a comment on a job's pull request mentions ("@docwright ...")
  // to become a follow-up of that job; 1 to 39 of [A-Za-z0-9-_].
  std::string mention_handle = "docwright";
  // Spending cap of the project's turns (core/usage.h); the organisation's
  // applies as well.
  MonthlyBudget budget;
};

enum class JobStatus { kActive, kCompleted, kArchived, kFailed };
std::string_view ToString(JobStatus s);
std::optional<JobStatus> ParseJobStatus(std::string_view s);

struct Job {
  std::string id;
  std::string project_id;
  JobStatus status = JobStatus::kActive;
  std::string repository;  // source.repository
  std::string ref;         // source.ref: the branch the agent works on
  // The model shown: resolved when the job was made and again as each turn starts
  // (ResolveModel), so a job made before any model was configured uses the one
  // configured since.
  std::optional<std::string> model;
  std::optional<std::string> requested_model;  // the job's own choice (create or follow-up)
  bool draft = false;
  std::optional<std::string> pr_link;
  std::optional<std::string> summary;
  std::optional<std::string> error;
  UnixMillis created_at = 0;
  UnixMillis updated_at = 0;
  std::optional<UnixMillis> archived_at;
  // Set when a workflow started the job (core/workflow.h): what triggered it,
  // as RunTriggerJson writes it, and the workflow's id.
  std::optional<std::string> trigger;
  std::optional<std::string> workflow_id;
  // The context repositories (core/workflow.h) its turns read, by name;
  // nullopt: all of the project's.
  std::optional<std::vector<std::string>> context;
  // How the job's changes are published (its workflow's mode, else the
  // project's, when it was created).
  PublishMode publish = PublishMode::kPullRequest;
  // Set when a turn published straight onto the base branch (PublishMode::kPush,
  // or kAutomerge once merged): the commit, and its page on the forge if it has
  // one. prLink stays what it was (null when no pull request was ever opened).
  std::optional<std::string> commit_sha;
  std::optional<std::string> commit_url;
  // What became of the job's pull request on the forge: "open", "merged",
  // "closed"; nullopt while it has none or nothing is known.
  std::optional<std::string> pr_state;
  // What the job's turns used so far, all together: kept on the job's row and
  // added to as each turn ends (Store::FinishTurn), so reading it costs nothing.
  UsageTotals usage;
  // Every field equal (the API's memo of rendered jobs, api/job_renderings.h,
  // relies on this covering every field a job's JSON shows).
  bool operator==(const Job&) const = default;
};

enum class TurnState { kQueued, kRunning, kSucceeded, kFailed, kCancelled };
std::string_view ToString(TurnState s);
std::optional<TurnState> ParseTurnState(std::string_view s);
inline bool IsFinished(TurnState s) {
  return s == TurnState::kSucceeded || s == TurnState::kFailed || s == TurnState::kCancelled;
}

// One prompt of a job and the outcome of the turn it created.
struct Message {
  std::string job_id;
  int seq = 0;  // 1 for the creating prompt, then 2, 3, ... in arrival order
  std::string prompt;
  UnixMillis created_at = 0;
  TurnState state = TurnState::kQueued;
  int attempts = 0;
  std::optional<std::string> summary;
  std::optional<std::string> error;
  std::optional<UnixMillis> finished_at;
  int64_t input_tokens = 0;  // used by the turn (TokenUsage's meaning)
  int64_t output_tokens = 0;
  int64_t cached_input_tokens = 0;
  int64_t cache_write_tokens = 0;
  std::string usage_model;             // the model the turn used, "" if none
  std::optional<int64_t> cost_micros;  // its estimated cost; none: no price known
};

// --- State machine -------------------------------------------------------------
// Pure rules; the store applies them inside its transactions.

// Status of a job after a follow-up message arrives. Archived jobs refuse it.
Result<JobStatus> StatusAfterFollowUp(JobStatus current);

// Status of a job whose turn just ended. `more_turns_queued`: later messages are
// waiting, so the job stays active. An archived job stays archived.
JobStatus StatusAfterTurn(JobStatus current, bool turn_succeeded, bool more_turns_queued);

// The model a job uses: the one its creator asked for, else the project's, else
// the server's default; nullopt when none is configured.
std::optional<std::string> ResolveModel(const std::optional<std::string>& requested,
                                        const std::optional<std::string>& project_model,
                                        const std::optional<std::string>& server_default);

// Whether a job may ask for `requested`: InvalidArgument, naming the allowed
// ones, unless the project lists no models (any is allowed), lists it, or it is
// the project's or the server's default.
Status CheckRequestedModel(const Project& project, const std::optional<std::string>& requested,
                           const std::optional<std::string>& server_default);

// --- Naming --------------------------------------------------------------------

// The branch a job works on: "docwright/<12 random hex digits of the id>-<slug>".
std::string BranchNameFor(std::string_view job_id, std::string_view prompt);

// The longest branch name a client may give a job.
inline constexpr size_t kMaxBranchNameChars = 200;

// Whether a client may name `branch` as the one a job works on: OK, or
// InvalidArgument saying why not. The rules of `git check-ref-format --branch`
// (no "..", "@{", "//", control characters, spaces or any of ~^:?*[\; no part
// starting with "." or ending with ".lock"; not starting or ending with "/",
// not ending with "."; not "@"), and, because the name travels in HTTP headers
// and command lines, printable ASCII only, 1 to kMaxBranchNameChars, not
// starting with "-", not "HEAD". Pure: the api layer checks a name before any
// git code sees it.
Status CheckBranchName(std::string_view branch);

}  // namespace docwright
