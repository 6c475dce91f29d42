// Must not compile: the store records events; it does not stream or deliver them.
#include "events/event_streams.h"
