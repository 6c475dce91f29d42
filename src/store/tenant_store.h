// TenantStore: the store's concern of who may do what: organisations, their
// API keys and sign-in sessions, and their projects (store.h bundles it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/api_key.h"
#include "core/job.h"
#include "core/status.h"
#include "store/scope.h"

namespace docwright {

// A project's jobs by status (Store::CountJobs).
struct ProjectJobCounts {
  std::string project_id;
  int64_t active = 0;
  int64_t completed = 0;
  int64_t failed = 0;
  int64_t archived = 0;
};

// Owns the rows of organisations, API keys (their hashes only), sessions
// (their token hashes only) and projects. Every method is thread-safe and
// blocks on the database (a read or a write transaction); errors are values:
// NotFound for what does not exist, or belongs to another organisation;
// InvalidArgument for what breaks a documented rule; Unavailable when the
// database cannot be reached. A write that returns OK is durable and seen by
// every node at once (one database); a node's read cache (CachedStore) sees
// another node's write within its ttl, or at once where the store announces
// writes (Store::AnnouncesChanges).
class TenantStore {
 public:
  virtual ~TenantStore() = default;

  // --- Organisations and API keys ---
  virtual Result<Org> CreateOrg(const std::string& name) = 0;
  virtual Result<Org> GetOrg(const std::string& org_id) = 0;
  // Every organisation, oldest first (for the operator's `org list`).
  virtual Result<std::vector<Org>> ListOrgs() = 0;
  // Replaces the organisation's name, cap of turns in flight and budget with `org`'s.
  // NotFound if no organisation has its id.
  virtual Status UpdateOrg(const Org& org) = 0;
  // Stores a key whose id, prefix and secret_hash the caller made.
  virtual Status CreateApiKey(const ApiKey& key) = 0;
  virtual Result<std::vector<ApiKey>> ListApiKeys(const std::string& org_id) = 0;
  // Idempotent. NotFound if there is no such key. Ends the key's sessions in
  // the same transaction, and is announced (keys_changed).
  virtual Status RevokeApiKey(const std::string& key_id) = 0;
  // The unrevoked key whose secret hashes to `secret_hash`; NotFound otherwise.
  virtual Result<ApiKey> FindActiveApiKey(const std::string& secret_hash) = 0;
  // Makes each key's last_used_at the later of its own and the time given with
  // it (key id, time). Keys that do not exist are skipped. Not announced: a
  // listing may show a use a little late. As a claim, not flushed to the disk
  // on its own (a power loss may lose the last uses).
  virtual Status RecordKeyUses(const std::vector<std::pair<std::string, UnixMillis>>& uses) = 0;

  // --- Sign-in sessions (core/api_key.h) ---
  // Stores `session`; NotFound if its key does not exist. Removes a bounded
  // number of expired sessions on the way, so they do not pile up.
  virtual Status CreateSession(const Session& session) = 0;
  // The session whose token hashes to `token_hash`, if it has not expired as of
  // `now` and its key is not revoked, with that key; NotFound otherwise.
  virtual Result<ActiveSession> FindSession(const std::string& token_hash, UnixMillis now) = 0;
  // Ends the session (sign-out). Idempotent; announced (keys_changed).
  virtual Status DeleteSession(const std::string& token_hash) = 0;

  // --- Projects ---
  // Stores `project`; its id and created_at are assigned by the store.
  virtual Result<Project> CreateProject(Project project) = 0;
  virtual Result<Project> GetProject(const Scope& scope) = 0;
  // The project `project_id`, whatever its organisation: for the process's own
  // work on it (merging a local pull request the API already authorised), never
  // to answer a request with. NotFound if there is none.
  virtual Result<Project> GetProjectById(const std::string& project_id) = 0;
  virtual Result<std::vector<Project>> ListProjects(const std::string& org_id) = 0;
  // How many jobs of each status each of the organisation's projects has, in one
  // grouped read; a project without jobs is not listed.
  virtual Result<std::vector<ProjectJobCounts>> CountJobs(const std::string& org_id) = 0;
  // Replaces the project's settings (all but id, org_id, created_at and
  // archived_at) with `project`'s. NotFound if no project has its id.
  virtual Status UpdateProject(const Project& project) = 0;
  // Archives the project: CreateJob and AddMessage then refuse it (Conflict);
  // turns under way finish; its jobs stay readable. Idempotent.
  virtual Result<Project> ArchiveProject(const Scope& scope) = 0;
  // Removes the project and all its jobs, messages, turns, steps and local pull
  // requests. Conflict while one of its jobs is active.
  virtual Status DeleteProject(const Scope& scope) = 0;
};

}  // namespace docwright
