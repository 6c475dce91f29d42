#include "cli/cli.h"

#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <functional>

#include "cli/admin_commands.h"
#include "cli/common.h"
#include "cli/job_commands.h"
#include "cli/project_commands.h"
#include "cli/serve_command.h"
#include "cli/usage_command.h"
#include "cli/workflow_commands.h"
#include "core/version.h"

namespace docwright {

int RunCli(int argc, char** argv, const AgentFactory& make_agent) {
  // Everything docwright writes (the database with forge tokens, the mirrors of
  // private repositories, lock files) is for its own user only: 0700 folders and
  // 0600 files, whoever created the data dir.
  ::umask(077);
  auto logger = spdlog::stderr_color_mt("docwright");
  // Times in UTC, RFC 3339, as the API gives them: log lines and job records
  // compare at a glance, whatever the machine's zone.
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %^%l%$ %v", spdlog::pattern_time_type::utc);
  spdlog::set_default_logger(logger);
  spdlog::cfg::load_env_levels();  // SPDLOG_LEVEL=debug etc.

  CLI::App app{"docwright: background AI agent jobs on documentation repositories"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "docwright " + std::string(Version()) + " (commit " +
                                        std::string(Commit()) + ")");
  Common common;
  std::function<int()> action;

  AddServeCommands(app, common, action, make_agent);
  AddAdminCommands(app, common, action);
  AddUsageCommand(app, common, action);

  // project
  AddProjectCommands(app, common, action);
  AddQuickstartCommand(app, common, action);

  // workflow
  AddWorkflowCommands(app, common, action);

  AddJobCommands(app, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ValidationError& e) {
    // A value outside its option's range is refused like the values the
    // commands check themselves: exit code 1.
    app.exit(e);
    return 1;
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return action ? action() : 0;
}

}  // namespace docwright
