// Must not compile: the event machinery takes the store's concerns it uses,
// never the whole Store.
#include "store/store.h"
