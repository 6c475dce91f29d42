// The workflows' engine of `serve` and `worker` (workflows/engine.h): its
// options and its start. Internal to cli/.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "git/mirror_pool.h"
#include "store/store.h"
#include "workflows/engine.h"

namespace CLI {
class App;
}

namespace docwright {

struct WorkflowFlags {
  int64_t tick_ms = 15000;
  int64_t poll_interval_ms = 60000;
  std::string clock_file;  // tests: "now" is the RFC 3339 time this file holds
};

// --workflow-tick, --workflow-poll-interval and (hidden) --workflow-clock-file.
void AddWorkflowOptions(CLI::App* cmd, WorkflowFlags& flags);

// The engine, started, sharing `mirrors` with the node's turns and reaching
// the forges as they do (`forge_events`). `store` must outlive it; stop it
// before the store closes.
std::unique_ptr<workflows::WorkflowEngine> StartWorkflowEngine(
    Store& store, std::shared_ptr<git::MirrorPool> mirrors, const WorkflowFlags& flags,
    workflows::ForgeEventContext forge_events);

}  // namespace docwright
