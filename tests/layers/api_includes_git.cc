// Must not compile: api/ knows the store and the domain, never git
// (docs/architecture.md, "The layers").
#include "git/git.h"
