// Must not compile: core/ includes nothing of ours.
#include "http/client.h"
