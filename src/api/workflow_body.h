// The JSON bodies that define a workflow (POST .../workflows, PATCH
// .../workflows/{name}) and that add a context repository (POST .../context):
// bytes from the network, parsed into the core types, their shape checked
// here and their rules by CheckWorkflow / CheckWorkflowName afterwards. Free
// functions without state, callable from any thread.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "core/status.h"
#include "core/workflow.h"

namespace docwright {

// Reads the members of a workflow body into `into`: "name", "title",
// "prompt", "trigger" ({"kind", "cron", "timeZone", "repository", "branch"};
// given, it replaces the whole trigger), "context", "publish", "model",
// "runsPerDay", "enabled"; a member left out keeps `into`'s value, null sets
// an optional one to none. Other members are ignored. `given` (if not null)
// receives the names of the members read. InvalidArgument, naming the member,
// for a body that is not UTF-8 JSON object or a member of the wrong type.
Status ParseWorkflowBody(std::string_view body, Workflow* into, std::set<std::string>* given);

// {"name", "repository", "branch"?}: the name checked by CheckWorkflowName,
// the repository 1 to 2048 bytes without control characters or blanks around
// it, the branch (null or left out: the remote's default) by CheckBranchName.
Result<ContextRepository> ParseContextRepositoryBody(std::string_view body);

// {"prompt"?: text}, the text to append to a run's prompt ("" if none); an
// empty body is no text.
Result<std::string> ParseRunBody(std::string_view body);

}  // namespace docwright
