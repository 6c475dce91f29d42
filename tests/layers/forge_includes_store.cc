// Must not compile: forge/ stores local pull requests through
// core/local_pull_request.h, never the store itself.
#include "store/store.h"
