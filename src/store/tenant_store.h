// TenantStore: the store's concern of who the tenants are: organisations and
// their projects (store.h bundles it). Their API keys and sign-in sessions are
// another concern (access_store.h), which the parts that run turns never see.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/job.h"  // Org, Project
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

// Owns the rows of organisations and projects. Every method is thread-safe and
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

  // --- Organisations ---
  virtual Result<Org> CreateOrg(const std::string& name) = 0;
  virtual Result<Org> GetOrg(const std::string& org_id) = 0;
  // Every organisation, oldest first (for the operator's `org list`).
  virtual Result<std::vector<Org>> ListOrgs() = 0;
  // Replaces the organisation's name, cap of turns in flight and budget with `org`'s.
  // NotFound if no organisation has its id.
  virtual Status UpdateOrg(const Org& org) = 0;

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
