// Must not compile: the workflows' engine never sees API keys or sign-in sessions.
#include "store/access_store.h"
