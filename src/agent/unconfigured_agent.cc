#include "agent/unconfigured_agent.h"

namespace docwright {

TurnResult UnconfiguredAgent::RunTurn(const TurnInput&, CancelToken&) {
  TurnResult r;
  r.succeeded = false;
  r.error =
      "no language model is configured on this server: set DOCWRIGHT_LLM_PROVIDER, "
      "DOCWRIGHT_LLM_BASE_URL, DOCWRIGHT_LLM_API_KEY and DOCWRIGHT_MODEL, then send a "
      "follow-up message to retry";
  return r;
}

}  // namespace docwright
