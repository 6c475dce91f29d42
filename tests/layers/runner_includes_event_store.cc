// Must not compile: the runner does not write the event log or webhooks.
#include "store/event_store.h"
