#!/usr/bin/env bash
# Pipeline overhead: JOBS jobs (a 3-file edit each) on a generated 10,000-file
# docs repository, with an instant scripted model (the fake model server, OpenAI
# wire format) and the local forge, end to end through the HTTP API: create ->
# claim -> fetch -> model -> commit -> push -> pull request -> completed.
#
#   ./dw bench pipeline
#   JOBS=300 WORKERS=8 ./dw bench pipeline
#   RUNS_OF="sqlite:1 postgres:1 postgres:2" ./dw bench pipeline   # the stores, the nodes
#   RUNS_OF="sqlite:1 sqlite:1:webhook" ./dw bench pipeline
#   PERF=/tmp/pipeline.perf ./dw bench pipeline   # profiles the (first) node: perf record -e cpu-clock
#   DOCWRIGHT_PG_EXTRA_CONF="log_min_duration_statement = 5" PG_LOG=/tmp/pg.log \
#     RUNS_OF=postgres:1 ./dw bench pipeline       # PostgreSQL's slow statements
#       # ":webhook": the project has a webhook endpoint (nginx answering 204, on
#       # this machine) taking every event type but turn.step: the outbox's cost
#       # on the pipeline, and the deliveries' throughput
#
# Target: at least 20 jobs/s on 2 cores. Also prints what the system prompt and
# the site map cost for this repository (bytes, and tokens at ~4 bytes a token).
# Reference, measured in the same run: the git command line committing the same
# 3-file change and pushing it to a new branch, per job (REF_JOBS of them).
set -euo pipefail
cd "$(dirname "$0")/../.."
JOBS="${JOBS:-1000}"
FILES="${FILES:-10000}"
WORKERS="${WORKERS:-8}"
CLIENTS="${CLIENTS:-8}"
REF_JOBS="${REF_JOBS:-50}"
# The runs, STORE:NODES each: SQLite on one node, PostgreSQL on one and on two.
RUNS_OF="${RUNS_OF:-sqlite:1}"
build=build
work=$(mktemp -d /tmp/dw-bench-pipeline.XXXXXX)
# shellcheck source=../../scripts/lib.sh
. scripts/lib.sh
# One key for every process of a run, as every node of one database needs
# (the admin commands and the nodes have data dirs of their own).
export DOCWRIGHT_SECRET_KEY_FILE="$work/secret.key"
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com

now_ms() { date +%s%3N; }

# The repository: FILES Markdown pages in 50 sections, one commit.
make_docs_repo "$work/docs.git" "$FILES"

"$build/bench/pipeline_prompt" "$work/prompt-mirror.git" "$work/docs.git" main

# The model and the service.
"$build/tests/docwright_fake_model" --wire openai --key sk-bench --script bench/pipeline/model-script.json \
  > "$work/model.out" 2> "$work/model.err" &
pids+=($!)
model_url=$(wait_for_line "$work/model.out" 'http://127\.0\.0\.1:[0-9]+/v1')
export DOCWRIGHT_LLM_PROVIDER=openai DOCWRIGHT_LLM_BASE_URL="$model_url" \
  DOCWRIGHT_LLM_API_KEY=sk-bench DOCWRIGHT_MODEL=instant
dw="$build/docwright"

# One run: JOBS jobs through NODES serve nodes (each with WORKERS workers) on
# the store $1 ("sqlite", or "postgres": a database of its own on a PostgreSQL
# server started for this script, with fsync on), on a repository of its own.
# Sets `rate` (jobs/s) and prints what it measured.
run_pipeline() {
  local store="$1" nodes="$2" hook="${3:-}" name="$1-$2${3:+-$3}"
  local remote="$work/$name.git"
  cp -r "$work/docs.git" "$remote"
  local database=()
  if [ "$store" = postgres ]; then
    database=(--database "$(postgres_database "pipeline_${nodes}")")
  else
    database=(--database "$work/$name.db")
  fi
  local org key project
  org=$("$dw" org create --data-dir "$work/$name-admin" "${database[@]}" --name bench | tail -n1)
  key=$("$dw" key create --data-dir "$work/$name-admin" "${database[@]}" --org "$org" | tail -n1)
  project=$("$dw" project create --data-dir "$work/$name-admin" "${database[@]}" --org "$org" \
    --repository "$remote" --rate-limit 1000000 | tail -n1)
  local hook_flags=() receiver_log=""
  if [ -n "$hook" ]; then
    start_receiver "$name"
    "$dw" project webhook add "$project" --data-dir "$work/$name-admin" "${database[@]}" \
      --url "http://127.0.0.1:$receiver_port/hook" >/dev/null
    hook_flags=(--webhook-allow-private)
  fi
  local urls=() node_pids=() i
  for i in $(seq "$nodes"); do
    "$dw" serve --data-dir "$work/$name-node-$i" "${database[@]}" --listen 127.0.0.1:0 \
      --workers "$WORKERS" "${hook_flags[@]}" --metrics-listen 127.0.0.1:0 \
      > "$work/$name-$i.out" 2> "$work/$name-$i.log" &
    pids+=($!)
    node_pids+=($!)
    local url
    url=$(wait_for_line "$work/$name-$i.log" 'listening on http://127\.0\.0\.1:[0-9]+')
    urls+=("${url#listening on }")
  done

  # Create every job (CLIENTS at a time, spread over the nodes), then wait until
  # none is active.
  local t0 t_created t1
  # One curl, CLIENTS requests at a time (a process per request would cost the
  # client more CPU than the server spends on the request).
  for i in $(seq "$JOBS"); do
    printf 'url = "%s"\nheader = "Authorization: Bearer %s"\nheader = "Content-Type: application/json"\ndata = "{\\"prompt\\": \\"Write three notes for run %s\\"}"\noutput = /dev/null\nwrite-out = "%%{http_code}\\n"\n%s\n' \
      "${urls[$((i % nodes))]}/v2/agent/$project/job" "$key" "$i" "$([ "$i" -lt "$JOBS" ] && echo next)"
  done > "$work/$name.posts"
  local perf_pid=""
  if [ -n "${PERF:-}" ]; then
    # The first node's CPU, by function (perf record -e cpu-clock).
    perf record -q -e cpu-clock ${PERF_CALLGRAPH:---call-graph dwarf,16384} -p "${node_pids[0]}" \
      -o "$PERF.$name" 2> "$work/$name.perf.err" &
    perf_pid=$!
    sleep 0.5
  fi
  t0=$(now_ms)
  curl -s --no-progress-meter --parallel --parallel-max "$CLIENTS" --config "$work/$name.posts" \
    > "$work/$name.codes" || true
  t_created=$(now_ms)
  while curl -sf "${urls[0]}/v2/agent/$project/jobs?status=active&limit=1" \
      -H "Authorization: Bearer $key" | grep -q '"id"'; do
    sleep 0.05
  done
  t1=$(now_ms)
  if [ -n "$perf_pid" ]; then
    kill -INT "$perf_pid" 2>/dev/null || true
    wait "$perf_pid" 2>/dev/null || true
  fi
  if [ -n "${PG_LOG:-}" ] && [ "$store" = postgres ]; then
    # The server's log (DOCWRIGHT_PG_EXTRA_CONF="log_min_duration_statement = 5", say).
    cp "$(cat "$work/postgres/data")/log" "$PG_LOG.$name"
  fi
  # The docs cache's hits and misses, and the store's transactions a job, from
  # the first node's metrics (the second node's, if any, are alike).
  local metrics_url scrape
  metrics_url=$(grep -oE 'metrics on http://127\.0\.0\.1:[0-9]+/metrics' "$work/$name-1.log" | head -n1)
  scrape=$(curl -sf "${metrics_url#metrics on }" || true)
  echo "$store, $nodes node(s): docs cache: $(printf '%s\n' "$scrape" | awk '/^docwright_docs_cache_(hits|misses|stores|evictions)_total / {sub("docwright_docs_cache_", "", $1); sub("_total", "", $1); printf "%s %s, ", $1, $2} /^docwright_docs_cache_bytes / {held = $2} END {printf "%.1f MiB held", held / 1048576}')"
  echo "$store, $nodes node(s): store transactions: $(printf '%s\n' "$scrape" | awk -v n="$JOBS" -v nodes="$nodes" '/^docwright_store_transaction_duration_seconds_count/ {match($0, /kind="[a-z]+"/); k = substr($0, RSTART + 6, RLENGTH - 7); c[k] += $2} END {for (k in c) printf "%s %d (%.1f a job), ", k, c[k], c[k] / n * nodes}')(node 1, scaled by the nodes)"
  local failed branches elapsed
  failed=$(curl -sf "${urls[0]}/v2/agent/$project/jobs?status=failed&limit=100" \
    -H "Authorization: Bearer $key" | grep -o '"id"' | wc -l || true)
  branches=$(git --git-dir="$remote" for-each-ref refs/heads/docwright | wc -l)
  elapsed=$((t1 - t0))
  rate=$(awk -v n="$JOBS" -v ms="$elapsed" 'BEGIN { printf "%.1f", n * 1000 / ms }')
  echo
  echo "$store, $nodes node(s): jobs: $JOBS on $FILES files, $WORKERS workers a node, $CLIENTS clients; $(nproc) cores"
  # The nodes' CPU time (user + system, from /proc/PID/stat), over the jobs.
  local cpu_s=0 p
  for p in "${node_pids[@]}"; do
    cpu_s=$(awk -v hz="$(getconf CLK_TCK)" -v sum="$cpu_s" '{ printf "%.2f", sum + ($14 + $15) / hz }' "/proc/$p/stat")
  done
  echo "$store, $nodes node(s): created in $((t_created - t0)) ms; all ended in $elapsed ms"
  echo "$store, $nodes node(s): node CPU $cpu_s s, $(awk -v c="$cpu_s" -v n="$JOBS" 'BEGIN { printf "%.2f", c * 1000 / n }') ms a job"
  echo "$store, $nodes node(s): branches pushed: $branches; failed jobs (first page): $failed"
  echo "$store, $nodes node(s)${hook:+, webhook}: pipeline: $rate jobs/s (target: 20)"
  [ "$branches" -eq "$JOBS" ] || { echo "bench: expected $JOBS branches" >&2; exit 1; }
  if [ -n "$hook" ]; then
    # Every job's created, turn.started, turn.ended, pull_request.opened and
    # job.completed, delivered (each a 204 in the receiver's log).
    local expected=$((JOBS * 5)) delivered=0 t_hooks
    for _ in $(seq 1200); do
      delivered=$(wc -l < "$receiver_log")
      [ "$delivered" -ge "$expected" ] && break
      sleep 0.05
    done
    t_hooks=$(now_ms)
    echo "$store, $nodes node(s), webhook: $delivered of $expected deliveries; all delivered" \
      "$((t_hooks - t0)) ms after the first create:" \
      "$(awk -v n="$delivered" -v ms="$((t_hooks - t0))" 'BEGIN { printf "%.0f", n * 1000 / ms }') deliveries/s"
    [ "$delivered" -ge "$expected" ] || { echo "bench: deliveries missing" >&2; exit 1; }
  fi
}

# A webhook receiver: nginx answering 204 to every POST, logging each; sets
# receiver_port and receiver_log.
receiver_port=""
start_receiver() {
  local dir="$work/receiver-$1"
  mkdir -p "$dir"
  receiver_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  cat > "$dir/nginx.conf" <<NGINX
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log;
events { worker_connections 1024; }
http {
  log_format plain '\$status';
  access_log $dir/access.log plain;
  server { listen 127.0.0.1:$receiver_port; location / { return 204; } }
}
NGINX
  receiver_log="$dir/access.log"
  : > "$receiver_log"
  nginx -g 'daemon off;' -c "$dir/nginx.conf" -p "$dir" >&2 &
  pids+=($!)
  for _ in $(seq 100); do
    curl -s -o /dev/null -X POST "http://127.0.0.1:$receiver_port/" && break
    sleep 0.05
  done
  : > "$receiver_log"
}

declare -A rates
for run in $RUNS_OF; do
  IFS=: read -r store nodes hook <<<"$run"
  run_pipeline "$store" "$nodes" "$hook"
  rates[$run]=$rate
done

# Reference: the same change with the git command line, one branch per job.
git clone -q "$work/docs.git" "$work/ref"
r0=$(now_ms)
for i in $(seq "$REF_JOBS"); do
  git -C "$work/ref" checkout -q -b "ref/$i" main
  mkdir -p "$work/ref/notes/$i"
  for f in summary details faq; do printf -- '---\ntitle: %s\n---\n# %s\n' "$f" "$f" > "$work/ref/notes/$i/$f.md"; done
  git -C "$work/ref" add -A && git -C "$work/ref" commit -qm "Add notes"
  git -C "$work/ref" push -q origin "ref/$i"
done
r1=$(now_ms)
ref_rate=$(awk -v n="$REF_JOBS" -v ms="$((r1 - r0))" 'BEGIN { printf "%.1f", n * 1000 / ms }')

echo
echo "reference, git CLI commit + push of the same change: $ref_rate branches/s"
for run in $RUNS_OF; do
  echo "ratio pipeline ($run) / reference: $(awk -v a="${rates[$run]}" -v b="$ref_rate" 'BEGIN { printf "%.1f", a / b }')"
done
if [ -n "${rates[sqlite:1]:-}" ] && [ -n "${rates[postgres:1]:-}" ]; then
  echo "ratio postgres / sqlite, one node: $(awk -v a="${rates[postgres:1]}" -v b="${rates[sqlite:1]}" 'BEGIN { printf "%.2f", a / b }')"
fi
if [ -n "${rates[sqlite:1]:-}" ] && [ -n "${rates[sqlite:1:webhook]:-}" ]; then
  echo "ratio with a webhook / without, sqlite: $(awk -v a="${rates[sqlite:1:webhook]}" -v b="${rates[sqlite:1]}" 'BEGIN { printf "%.2f", a / b }')"
fi
if [ -n "${rates[postgres:1]:-}" ] && [ -n "${rates[postgres:2]:-}" ]; then
  echo "ratio two nodes / one node, postgres: $(awk -v a="${rates[postgres:2]}" -v b="${rates[postgres:1]}" 'BEGIN { printf "%.2f", a / b }')"
fi
