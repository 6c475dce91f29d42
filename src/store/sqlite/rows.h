// Internal to the SQLite store: rows of its SELECTs made records. Each reader
// takes its columns by name (statements.h), in whatever order they come.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/job.h"
#include "store/sqlite/connection.h"
#include "store/store.h"

namespace docwright::sqlite {

Job ReadJob(const Query& q);
Project ReadProject(const Query& q);
ApiKey ReadKey(const Query& q);
LocalPullRequest ReadPullRequest(const Query& q);
Message ReadMessage(const Query& q);

// A project's lists are stored one entry a line (entries never hold a newline).
std::string JoinLines(const std::vector<std::string>& items);
std::vector<std::string> SplitLines(std::string_view text);

}  // namespace docwright::sqlite
