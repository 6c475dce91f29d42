#!/usr/bin/env bash
# One tenant's large reads against another's writes: organisation A floods the
# transcript of a job holding about 1 MiB of prompts (FLOODERS connections, wrk)
# while organisation B creates jobs one after another; B's create latency is
# measured under the flood and, as the reference in the same run, without it.
# The ratio (median under flood / median idle) is what the flood costs B.
#
#   ./dw bench fair-reads
#   BIN=/path/to/other/docwright ./dw bench fair-reads   # another build, same machine
#   FLOODERS=64 CREATES=100 FLOOD_SECONDS=90 ./dw bench fair-reads
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="${BIN:-build/docwright}"
FLOODERS="${FLOODERS:-32}"
CREATES="${CREATES:-40}"
FLOOD_SECONDS="${FLOOD_SECONDS:-40}"  # long enough for the creates under flood
work=$(mktemp -d /tmp/dw-bench-fair-reads.XXXXXX)
# shellcheck source=../../scripts/lib.sh
. scripts/lib.sh
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
# No model: each turn fails at once, which is all a transcript of prompts needs.
unset DOCWRIGHT_LLM_PROVIDER DOCWRIGHT_LLM_BASE_URL DOCWRIGHT_LLM_API_KEY DOCWRIGHT_MODEL

make_docs_repo "$work/docs.git" 10
data=(--data-dir "$work/data")
tenant() {  # prints "KEY PROJECT" of a new organisation named $1
  local org key project
  org=$("$BIN" org create "${data[@]}" --name "$1" | tail -n1)
  key=$("$BIN" key create "${data[@]}" --org "$org" | tail -n1)
  project=$("$BIN" project create "${data[@]}" --org "$org" --repository "$work/docs.git" \
    --rate-limit 1000000 | tail -n1)
  echo "$key $project"
}
read -r key_a project_a < <(tenant flooder)
read -r key_b project_b < <(tenant writer)
"$BIN" serve "${data[@]}" --listen 127.0.0.1:0 --access-log off > "$work/serve.out" 2> "$work/serve.log" &
pids+=($!)
url=$(wait_for_line "$work/serve.log" 'listening on http://127\.0\.0\.1:[0-9]+')
url="${url#listening on }"

post() {  # $1 key, $2 path, $3 body file; prints the HTTP status
  curl -s -o "$work/post.out" -w '%{http_code}' -X POST "$url$2" -H "Authorization: Bearer $1" \
    -H "Content-Type: application/json" --data-binary "@$3"
}
head -c 30000 /dev/zero | tr '\0' 'p' | sed 's/.*/{"prompt": "&"}/' > "$work/big.json"
[ "$(post "$key_a" "/v2/agent/$project_a/job" "$work/big.json")" = 201 ]
job=$(sed -n 's/.*"id": *"\([^"]*\)".*/\1/p' "$work/post.out" | head -n1)
sent=1
while [ $sent -lt 32 ]; do
  case "$(post "$key_a" "/v2/agent/$project_a/job/$job/message" "$work/big.json")" in
    200) sent=$((sent + 1)) ;;
    429) sleep 0.2 ;;  # its queue is full: let the turns run down
    *) echo "bench: a follow-up failed: $(cat "$work/post.out")" >&2; exit 1 ;;
  esac
done
sleep 1
transcript="$url/v2/agent/$project_a/job/$job/messages"
bytes=$(curl -s -H "Authorization: Bearer $key_a" "$transcript" | wc -c)

echo '{"prompt": "Write a note [bench]"}' > "$work/small.json"
# B's create latency in ms, CREATES of them one after another: "median p90".
measure() {
  local i
  for i in $(seq "$CREATES"); do
    curl -s -o /dev/null -w '%{time_total}\n' -X POST "$url/v2/agent/$project_b/job" \
      -H "Authorization: Bearer $key_b" -H "Content-Type: application/json" \
      --data-binary "@$work/small.json"
  done | sort -n | awk '{ v[NR] = $1 * 1000 } END {
    printf "%.1f %.1f\n", v[int((NR + 1) / 2)], v[int(NR * 0.9)] }'
}
read -r idle_median idle_p90 < <(measure)
wrk -t2 -c"$FLOODERS" -d"${FLOOD_SECONDS}s" -H "Authorization: Bearer $key_a" "$transcript" \
  > "$work/wrk.out" 2>&1 &
wrk_pid=$!
pids+=($wrk_pid)
sleep 2
t0=$SECONDS
read -r flood_median flood_p90 < <(measure)
if [ $((SECONDS - t0 + 2)) -ge "$FLOOD_SECONDS" ]; then
  echo "bench: the creates outlasted the flood; raise FLOOD_SECONDS" >&2
fi
wait "$wrk_pid" || true
codes=$(grep -E 'Non-2xx|Requests/sec' "$work/wrk.out" | tr -s ' ' | paste -sd ';' - || true)

echo "binary: $BIN; $(nproc) cores; transcript page: $bytes bytes; $FLOODERS flooding connections (wrk)"
echo "flood: $codes"
echo "B's create, idle:        median $idle_median ms, p90 $idle_p90 ms ($CREATES creates)"
echo "B's create, under flood: median $flood_median ms, p90 $flood_p90 ms"
awk -v f="$flood_median" -v i="$idle_median" 'BEGIN { printf "ratio (median under flood / idle): %.1fx\n", f / i }'
