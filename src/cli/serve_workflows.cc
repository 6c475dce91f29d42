#include "cli/serve_workflows.h"

#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>

#include "workflows/clock_file.h"

namespace docwright {

void AddWorkflowOptions(CLI::App* cmd, WorkflowFlags& flags) {
  cmd->add_option("--workflow-tick", flags.tick_ms,
                  "milliseconds between the workflows' rounds: schedules due, queued runs "
                  "(default 15000)")
      ->check(CLI::Range(int64_t{10}, int64_t{3600} * 1000))
      ->envname("DOCWRIGHT_WORKFLOW_TICK");
  cmd->add_option("--workflow-poll-interval", flags.poll_interval_ms,
                  "milliseconds between polls of the repositories workflows watch for pushes "
                  "and merges (default 60000)")
      ->check(CLI::Range(int64_t{0}, int64_t{24} * 3600 * 1000))
      ->envname("DOCWRIGHT_WORKFLOW_POLL_INTERVAL");
  // For tests: schedules read "now" from a file instead of the machine's clock.
  cmd->add_option("--workflow-clock-file", flags.clock_file)->group("");
}

std::unique_ptr<workflows::WorkflowEngine> StartWorkflowEngine(
    Store& store, std::shared_ptr<git::MirrorPool> mirrors, const WorkflowFlags& flags,
    workflows::ForgeEventContext forge_events) {
  workflows::WorkflowEngineOptions options;
  options.forge_events = std::move(forge_events);
  options.tick = std::chrono::milliseconds(flags.tick_ms);
  options.poll_interval = std::chrono::milliseconds(flags.poll_interval_ms);
  if (!flags.clock_file.empty()) {
    spdlog::warn("workflows: the time is read from {} (--workflow-clock-file), not the clock",
                 flags.clock_file);
    options.clock = workflows::FileClock(flags.clock_file);
  }
  auto engine =
      std::make_unique<workflows::WorkflowEngine>(store, std::move(mirrors), std::move(options));
  engine->Start();
  return engine;
}

}  // namespace docwright
