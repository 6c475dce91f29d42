// The agent's tools (docs/architecture.md, "The agent's tools"), over a workspace: exactly these
// names and parameters. Every path is checked (git::CheckPath), every output bounded,
// and every mistake of the model (bad JSON, a missing or mistyped argument, an
// unknown tool) is a tool error the model sees, never a failure of the turn.
//
// list_files, read_file and search read a context repository instead of the
// workspace when given its name as "repository", with the same checks and
// bounds; nothing writes to one.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agent/agent.h"
#include "agent/write_policy.h"
#include "git/git.h"
#include "llm/llm.h"

namespace docwright::agent {

inline constexpr size_t kMaxToolOutputBytes = 32 * 1024;
inline constexpr int kDefaultReadLines = 400;
inline constexpr size_t kMaxListEntries = 500;
inline constexpr size_t kMaxSearchResults = 100;
inline constexpr size_t kMaxSearchFiles = 20000;
inline constexpr size_t kMaxSearchVisits = 200000;    // entries of any kind, per search
inline constexpr size_t kMaxSearchBytes = 64u << 20;  // text scanned per search
inline constexpr size_t kMaxWriteBytes = 1 << 20;

struct ToolOutcome {
  std::string content;  // what the model is told
  bool is_error = false;
  // `finish` was called (with valid arguments): the turn's summary and title.
  bool finished = false;
  std::string summary;
  std::string title;
};

class Toolbox {
 public:
  // `policy`, if given, decides which paths write_file, edit_file, delete_file
  // and move_file may change; a refusal is a tool error. `context` are the
  // repositories the reading tools may name (their snapshots, unchanged). All
  // must outlive the toolbox.
  explicit Toolbox(git::Workspace& workspace, const WritePolicy* policy = nullptr,
                   const std::vector<ContextSnapshot>& context = {});

  // The tools' descriptions and JSON Schemas, for the model.
  static std::vector<llm::ToolSpec> Specs();

  // Runs tool `name` with `arguments` (JSON text as the model wrote it).
  ToolOutcome Call(const std::string& name, const std::string& arguments);

 private:
  // The workspace a reading tool's arguments name: the docs repository's, or
  // a context repository's; nullptr with `*error` set for an unknown name.
  git::Workspace* ReadTarget(const std::optional<std::string>& repository, std::string* error);

  git::Workspace& workspace_;
  const WritePolicy* policy_;
  // By name: workspaces over the context snapshots, never written.
  std::map<std::string, git::Workspace> context_;
};

}  // namespace docwright::agent
