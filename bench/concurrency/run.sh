#!/usr/bin/env bash
# Turns in flight: N jobs posted at once to one node (`docwright serve`, SQLite,
# the local forge) whose model answers every request after DELAY_MS (the fake
# model server, OpenAI wire format; four requests a job). Reports, for each N in
# SIZES, the time until every job ended against the ideal (four delays: every
# job waiting on the model at once, nothing else), and the node's peak memory.
#
#   ./dw bench concurrency
#   SIZES="100 1000" DELAY_MS=1000 WORKERS=1000 ./dw bench concurrency
#   EDIT=1 ./dw bench concurrency        # each job also commits, pushes, opens a PR
#   PERF=/tmp/node.perf ./dw bench concurrency   # also profiles the node (perf record -e cpu-clock -g)
#
# Target: within 1.5x of the ideal at 1,000 jobs, under 1 GiB.
set -euo pipefail
cd "$(dirname "$0")/../.."
SIZES="${SIZES:-100 1000}"
DELAY_MS="${DELAY_MS:-1000}"
WORKERS="${WORKERS:-}"   # empty: the node's default
FILES="${FILES:-1000}"
EDIT="${EDIT:-0}"
build=build
# shellcheck source=../../scripts/lib.sh
. scripts/lib.sh

now_ms() { date +%s%3N; }

script=bench/concurrency/model-script.json
[ "$EDIT" = 1 ] && script=bench/concurrency/edit-script.json
# The delay of every step, as asked.
script_file=$(mktemp /tmp/dw-bench-concurrency-script.XXXXXX.json)
sed "s/\"delay_ms\": 1000/\"delay_ms\": $DELAY_MS/" "$script" > "$script_file"

run_size() {
  local n="$1"
  # `work` is global: scripts/lib.sh removes it on exit
  work=$(mktemp -d /tmp/dw-bench-concurrency.XXXXXX)
  make_docs_repo "$work/docs.git" "$FILES"
  pids=()
  "$build/tests/docwright_fake_model" --wire openai --key sk-bench --script "$script_file" \
    > "$work/model.out" 2> "$work/model.err" &
  pids+=($!)
  local model_url
  model_url=$(wait_for_line "$work/model.out" 'http://127\.0\.0\.1:[0-9]+/v1')
  local dw="$build/docwright"
  local org key project
  org=$("$dw" org create --data-dir "$work/data" --name bench | tail -n1)
  key=$("$dw" key create --data-dir "$work/data" --org "$org" | tail -n1)
  project=$("$dw" project create --data-dir "$work/data" --org "$org" \
    --repository "$work/docs.git" --rate-limit 1000000 | tail -n1)
  DOCWRIGHT_LLM_PROVIDER=openai DOCWRIGHT_LLM_BASE_URL="$model_url" \
    DOCWRIGHT_LLM_API_KEY=sk-bench DOCWRIGHT_MODEL=delayed \
    "$dw" serve --data-dir "$work/data" --listen 127.0.0.1:0 ${WORKERS:+--workers "$WORKERS"} \
      --max-connections-per-ip 100000 > "$work/serve.out" 2> "$work/serve.log" &
  local serve_pid=$!
  pids+=($serve_pid)
  local url
  url=$(wait_for_line "$work/serve.log" 'listening on http://127\.0\.0\.1:[0-9]+')
  url=${url#listening on }
  local idle_kib
  idle_kib=$(awk '/VmRSS/ {print $2}' "/proc/$serve_pid/status")
  local perf_pid=""
  if [ -n "${PERF:-}" ]; then
    perf record -q -e cpu-clock ${PERF_CALLGRAPH:---call-graph dwarf,16384} -p "$serve_pid" -o "$PERF.$n" 2> "$work/perf.err" &
    perf_pid=$!
    sleep 0.5
  fi

  # Post every job at once: one curl, 64 requests at a time (a process per
  # request would cost the client more than the server), then wait until none
  # is active.
  local i
  for i in $(seq "$n"); do
    printf 'url = "%s"\nheader = "Authorization: Bearer %s"\nheader = "Content-Type: application/json"\ndata = "{\\"prompt\\": \\"Check the pages, run %s\\"}"\noutput = /dev/null\nwrite-out = "%%{http_code}\\n"\n%s\n' \
      "$url/v2/agent/$project/job" "$key" "$i" "$([ "$i" -lt "$n" ] && echo next)"
  done > "$work/posts.curl"
  local t0 t_created t1
  t0=$(now_ms)
  curl -s --no-progress-meter --parallel --parallel-max 64 --config "$work/posts.curl" \
    > "$work/posts.codes" || true
  t_created=$(now_ms)
  local accepted
  accepted=$(grep -c '^201$' "$work/posts.codes" || true)
  if [ "$accepted" -ne "$n" ]; then
    echo "bench: $accepted of $n jobs were accepted; answers: $(sort "$work/posts.codes" | uniq -c | tr '\n' ' ')" >&2
    exit 1
  fi
  local peak_threads=0 threads
  while curl -sf "$url/v2/agent/$project/jobs?status=active&limit=1" -H "Authorization: Bearer $key" \
      | grep -q '"id"'; do
    threads=$(awk '/Threads/ {print $2}' "/proc/$serve_pid/status")
    [ "$threads" -gt "$peak_threads" ] && peak_threads=$threads
    sleep 0.05
  done
  t1=$(now_ms)
  local peak_kib failed completed cpu_s
  peak_kib=$(awk '/VmHWM/ {print $2}' "/proc/$serve_pid/status")
  # User + system CPU time of the node, from /proc/PID/stat (fields 14 and 15, in ticks).
  cpu_s=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.1f", ($14 + $15) / hz }' "/proc/$serve_pid/stat")
  completed=$(sqlite3 "$work/data/docwright.db" "SELECT COUNT(*) FROM jobs WHERE status = 'completed'" 2>/dev/null || echo "?")
  failed=$(sqlite3 "$work/data/docwright.db" "SELECT COUNT(*) FROM jobs WHERE status = 'failed'" 2>/dev/null || echo "?")
  local elapsed=$((t1 - t0)) ideal=$((4 * DELAY_MS))
  local spread
  spread=$(sqlite3 "$work/data/docwright.db" "SELECT (SELECT MAX(created_at) - MIN(created_at) FROM jobs) || ' ms; turns started over ' || (SELECT MAX(started_at) - MIN(started_at) FROM turns) || ' ms, the last ' || (SELECT MAX(t.started_at - j.created_at) FROM turns t JOIN jobs j ON j.id = t.job_id) || ' ms at most after its job was created'" 2>/dev/null || echo "?")
  if [ -n "$perf_pid" ]; then
    kill -INT "$perf_pid" 2>/dev/null || true
    wait "$perf_pid" 2>/dev/null || true
  fi
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  echo
  echo "jobs: $n at once, ${WORKERS:-the default number of} workers, model delay ${DELAY_MS} ms x 4 requests, edit=$EDIT, $(nproc) cores"
  echo "posted in $((t_created - t0)) ms; all ended in $elapsed ms; completed $completed, failed $failed"
  echo "jobs created over $spread"
  echo "node CPU: $cpu_s s ($(awk -v c="$cpu_s" -v ms="$elapsed" -v n="$n" 'BEGIN { printf "%.1f ms a job", c * 1000 / n }'))"
  echo "ideal: $ideal ms; ratio to the ideal: $(awk -v a="$elapsed" -v b="$ideal" 'BEGIN { printf "%.2f", a / b }') (target: 1.5 at 1000)"
  echo "memory: peak $((peak_kib / 1024)) MiB (idle $((idle_kib / 1024)) MiB), $(( (peak_kib - idle_kib) / n )) KiB a job in flight; peak threads $peak_threads (target: under 1 GiB)"
  rm -rf "$work"
}

for n in $SIZES; do run_size "$n"; done
rm -f "$script_file"
