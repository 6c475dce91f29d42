// Times the git engine's side of a turn, for bench/job-start/run.sh:
//   start MIRROR REMOTE BRANCH N   claim to first model request: fetch the branch and
//                                  the base, open the snapshot, build the system
//                                  prompt with its site map
//   commit MIRROR REMOTE BRANCH N  a 3-file edit: workspace, commit, push a new branch
// Prints the median and the minimum over N runs, in microseconds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "agent/model_agent.h"
#include "git/git.h"

using namespace docwright;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s start|commit MIRROR REMOTE BRANCH N\n", argv[0]);
    return 2;
  }
  std::string mode = argv[1], branch = argv[4];
  int n = std::stoi(argv[5]);
  auto mirror = git::Mirror::Open(argv[2], argv[3], git::Credentials{});
  if (!mirror.ok()) {
    std::fprintf(stderr, "%s\n", mirror.status().message().c_str());
    return 1;
  }
  // The first fetch fills the mirror; a turn always finds it filled.
  auto head = (*mirror)->FetchBranch(branch);
  if (!head.ok()) {
    std::fprintf(stderr, "%s\n", head.status().message().c_str());
    return 1;
  }
  std::vector<double> micros;
  for (int i = 0; i < n; ++i) {
    auto t0 = Clock::now();
    if (mode == "start") {
      // As a first turn does: the job's branch (absent) and the base, in one fetch.
      auto heads = (*mirror)->FetchBranches({"docwright/000000000000-bench", branch});
      if (!heads.ok() || !heads->at(branch)) return 1;
      auto snap = (*mirror)->OpenSnapshot(*heads->at(branch));
      git::Workspace work(**snap);
      std::string prompt =
          agent::ModelAgent::SystemPrompt(work, agent::AgentBudgets{}.max_site_map_bytes);
      if (prompt.empty()) return 1;
    } else {
      auto snap = (*mirror)->OpenSnapshot(*head);
      git::Workspace work(**snap);
      for (int f = 0; f < 3; ++f) {
        std::string path =
            "docs/section-" + std::to_string(f) + "/page-" + std::to_string(f) + ".md";
        auto page = work.Read(path);
        if (!page.ok()) return 1;
        if (!work.Write(path, page->text + "\nEdited in run " + std::to_string(i) + ".\n").ok())
          return 1;
      }
      auto commit = (*mirror)->Commit(work, git::Identity{}, "Edit three pages");
      if (!commit.ok()) {
        std::fprintf(stderr, "%s\n", commit.status().message().c_str());
        return 1;
      }
      Status pushed = (*mirror)->Push(*commit, "bench/run-" + std::to_string(i), std::nullopt);
      if (!pushed.ok()) {
        std::fprintf(stderr, "%s\n", pushed.message().c_str());
        return 1;
      }
    }
    micros.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  std::sort(micros.begin(), micros.end());
  std::printf("%.0f %.0f\n", micros[micros.size() / 2], micros.front());
  return 0;
}
