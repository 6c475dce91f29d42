// Must not compile: the runner never sees API keys or sign-in sessions.
#include "store/access_store.h"
