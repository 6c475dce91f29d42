#include "agent/unconfigured_agent.h"

namespace docwright::agent {

AgentResult UnconfiguredAgent::Run(const TurnInput&, git::Workspace&, const TurnContext&,
                                   CancelToken&) {
  AgentResult r;
  r.error =
      "no language model is configured on this server: set DOCWRIGHT_LLM_PROVIDER, "
      "DOCWRIGHT_LLM_BASE_URL, DOCWRIGHT_LLM_API_KEY and DOCWRIGHT_MODEL, then send a "
      "follow-up message to retry";
  return r;
}

}  // namespace docwright::agent
