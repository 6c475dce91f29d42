#!/usr/bin/env bash
# CPU milliseconds a job by stage of a turn, from a profile of a node taken by a
# benchmark (PERF=FILE ./dw bench pipeline|concurrency: perf record -e cpu-clock
# with DWARF call graphs) and the node's CPU time a job the benchmark printed:
#
#   bench/perf-stages.sh /tmp/pipeline.perf.sqlite-1 23.9
#
# Each stage's share is the inclusive share (callees included) of the functions
# that carry it out; the stages nest nowhere, so their sum is at most the whole.
set -euo pipefail
data="$1" per_job_ms="$2"
report=$(perf report -i "$data" --children --sort sym --stdio -g none 2>/dev/null | grep '%')
share() {  # the largest inclusive share of a symbol matching $1
  printf "%s\n" "$report" | { grep -E "\] ($1)\$" || true; } | awk '{ gsub("%", "", $1); if ($1 > m) m = $1 } END { printf "%.2f", m + 0 }'
}
printf '%-34s %8s %10s\n' stage share "ms a job"
total=0
while IFS='|' read -r stage pattern; do
  s=$(share "$pattern")
  total=$(awk -v t="$total" -v s="$s" 'BEGIN { print t + s }')
  printf '%-34s %7.1f%% %10.2f\n' "$stage" "$s" "$(awk -v s="$s" -v c="$per_job_ms" 'BEGIN { print s * c / 100 }')"
done <<'STAGES'
HTTP API (create, polls)|docwright::Api::Handle
claim|docwright::sql::SqlStore::ClaimTurn
fetch|docwright::git::Mirror::FetchBranches
snapshot|docwright::git::Mirror::OpenSnapshot
site map and write policy|docwright::docs::BuildSiteMap|docwright::docs::SharedSiteMap
context repositories|docwright::RepositoryTurns::ReadContext
model requests (build, send, parse)|docwright::llm::\(anonymous namespace\)::HttpModel::Complete
tools|docwright::agent::\(anonymous namespace\)::CarryOutToolCalls
checks (the agent's)|docwright::agent::\(anonymous namespace\)::TurnRun::Check|TurnRun::Check
commit|docwright::git::Mirror::Commit
push|docwright::git::Mirror::Push
branch story (checks, review)|docwright::RepositoryTurns::TellStory
pull request|docwright::RepositoryTurns::OpenPullRequest
steps recorded|docwright::sql::SqlStore::RecordStep
outcome recorded|docwright::Runner::Impl::Record
lease renewals|docwright::Runner::Impl::Renew|docwright::Runner::Impl::RenewAll
webhook delivery workers|docwright::events::DeliveryWorkers::Run
STAGES
printf '%-34s %7.1f%% %10.2f\n' "(stages above)" "$total" "$(awk -v s="$total" -v c="$per_job_ms" 'BEGIN { print s * c / 100 }')"
