// Must not compile: the runner takes the store's concerns a turn uses
// (runner/runner_stores.h), never the whole Store.
#include "store/store.h"
