// Must not compile: the event machinery knows the store and HTTP, never the API.
#include "api/api.h"
