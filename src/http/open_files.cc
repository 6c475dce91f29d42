// The process's limit of open files, and the connections it leaves room for
// (http/server.h).
#include <sys/resource.h>

#include <algorithm>
#include <cstdint>

#include "http/server.h"

namespace docwright {

size_t RaiseOpenFileLimit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return 1024;
  if (lim.rlim_cur < lim.rlim_max) {
    rlimit raised = lim;
    raised.rlim_cur = lim.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) lim = raised;
  }
  return lim.rlim_cur == RLIM_INFINITY ? SIZE_MAX : static_cast<size_t>(lim.rlim_cur);
}

size_t MaxConnectionsForFdLimit(size_t wanted, size_t reserve) {
  size_t fds = RaiseOpenFileLimit();
  if (fds == SIZE_MAX) return wanted;
  return std::max<size_t>(16, std::min(wanted, fds > reserve * 2 ? fds - reserve : fds / 2));
}

}  // namespace docwright
