// Must not compile: the runner does not know the HTTP API.
#include "api/api.h"
