// Must not compile: api/ knows the store and the domain, never git (DESIGN.md 2).
#include "git/git.h"
