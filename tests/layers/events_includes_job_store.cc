// Must not compile: the event machinery sees the store's events, keys and
// wake-ups (dw_store_view in CMakeLists.txt), never its jobs and turns.
#include "store/job_store.h"
