// Must not compile: the workflows' engine takes the store's concerns it uses
// (workflows/workflow_stores.h), never the whole Store.
#include "store/store.h"
