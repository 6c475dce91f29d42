// `docwright job follow` and `job create --follow`: a job's events from its
// event stream, printed as they come, until the job ends. Internal to cli/.
#pragma once

#include <string>

#include "client/api_client.h"

namespace docwright {

struct FollowOptions {
  std::string project;
  std::string job_id;
  bool json = false;        // each event's JSON on a line of its own
  double timeout_s = 3600;  // then exit 1
};

// Follows the job from its first event, resuming after a dropped connection
// (with Last-Event-ID, a bounded number of times in a row, with backoff) until
// a job.completed, job.failed or job.archived event that is the job's present
// state. Prints to stdout: one progress line rewritten in place when stdout is
// a terminal (and a line for each turn's end and pull request), else a line per
// event; text from the job (prompts, model output) is printed without control
// characters. Returns the exit code: 0 when the job completed or was archived,
// 1 when it failed, on a timeout, or on an error (printed on stderr).
int FollowJob(ApiClient& client, const FollowOptions& options);

}  // namespace docwright
