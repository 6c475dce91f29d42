#!/usr/bin/env bash
# Polling benchmark: GET /v2/agent/{projectId}/job/{id} with a valid key against
# nginx serving a static file of the same body size, both on this machine, both
# measured by wrk in this run (keep-alive, 64 connections).
#
#   ./dw bench poll                 # defaults: 7 rounds of 5 s each, wrk -t1
# wrk runs one thread so that, on a 2-core machine, the load generator takes the
# same share of CPU from both servers and neither is starved by it.
#   DURATION=20s ROUNDS=5 ./dw bench poll
#   DATABASE=postgres ./dw bench poll   # the node on PostgreSQL (a server started
#                                       # for the run, fsync on), not SQLite
#   ACCESS_LOG=file ./dw bench poll     # docwright with its access log (to a file in
#                                       # the run's dir; or stderr), nginx without one
#   METRICS=1 ./dw bench poll           # docwright with --metrics-listen, scraped
#                                       # once a second while it is measured (every
#                                       # request is counted and timed either way)
#   CONDITIONAL=1 ./dw bench poll       # conditional polls: each request carries the
#                                       # server's ETag in If-None-Match and is answered
#                                       # 304 without a body, by both servers
#
# Prints requests/s and p99 latency of each, the ratio, and whether the targets
# (>= 70% of nginx's requests/s, p99 < 5 ms) are met.
set -euo pipefail
cd "$(dirname "$0")/../.."

BIN="${DOCWRIGHT_BIN:-build/docwright}"
DURATION="${DURATION:-5s}"
ROUNDS="${ROUNDS:-7}"
CONNECTIONS="${CONNECTIONS:-64}"
THREADS="${THREADS:-1}"
SERVER_THREADS="${SERVER_THREADS:-1}"
DW_PORT="${DW_PORT:-18471}"
NGINX_PORT="${NGINX_PORT:-18472}"
METRICS_PORT="${METRICS_PORT:-18473}"

work=$(mktemp -d /tmp/dw-bench-poll.XXXXXX)
chmod 755 "$work"
dw_pid=""
scraper_pid=""
pg_state=""
cleanup() {
  [ -n "$scraper_pid" ] && kill "$scraper_pid" 2>/dev/null || true
  [ -n "$dw_pid" ] && kill "$dw_pid" 2>/dev/null || true
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  sleep 0.2
  [ -z "$pg_state" ] || tests/support/postgres.sh stop "$pg_state" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

data="$work/data"
database=()
if [ "${DATABASE:-sqlite}" = postgres ]; then
  pg_state="$work/postgres"
  DOCWRIGHT_PG_FSYNC=on tests/support/postgres.sh start "$pg_state" >&2
  admin=$(cat "$pg_state/url")
  psql -q "$admin" -c "CREATE DATABASE poll" >&2
  database=(--database "${admin/\/postgres\?//poll?}")
fi
org=$("$BIN" org create --name bench --data-dir "$data" "${database[@]}" | tail -n1)
key=$("$BIN" key create --org "$org" --data-dir "$data" "${database[@]}" | tail -n1)
project=$("$BIN" project create --org "$org" --repository https://git.example/acme/docs --no-check \
  --data-dir "$data" "${database[@]}" | tail -n1)

# The same number of I/O threads as nginx workers below; no agent workers are
# needed. No access log, as nginx below has none, unless ACCESS_LOG says.
access_log="${ACCESS_LOG:-off}"
[ "$access_log" = file ] && access_log="$work/access.log"
metrics=()
[ -n "${METRICS:-}" ] && metrics=(--metrics-listen "127.0.0.1:$METRICS_PORT")
"$BIN" serve --data-dir "$data" "${database[@]}" --listen "127.0.0.1:$DW_PORT" \
  --io-threads "$SERVER_THREADS" --workers 1 --access-log "$access_log" "${metrics[@]}" \
  2>"$work/serve.log" &
dw_pid=$!
for _ in $(seq 100); do
  curl -fsS "http://127.0.0.1:$DW_PORT/healthz" >/dev/null 2>&1 && break
  sleep 0.05
done

auth="Authorization: Bearer $key"
job=$(curl -fsS -X POST -H "$auth" -H 'Content-Type: application/json' \
  -d '{"prompt":"Document the rate limits on the API reference page"}' \
  "http://127.0.0.1:$DW_PORT/v2/agent/$project/job" | sed -E 's/^\{"id":"([^"]+)".*/\1/')
url="http://127.0.0.1:$DW_PORT/v2/agent/$project/job/$job"
# Wait for the turn to end so the body no longer changes.
for _ in $(seq 100); do
  body=$(curl -fsS -H "$auth" "$url")
  case "$body" in *'"status":"active"'*) sleep 0.05 ;; *) break ;; esac
done

mkdir -p "$work/www"
printf '%s' "$body" >"$work/www/job.json"
chmod -R a+rX "$work/www"
size=$(stat -c %s "$work/www/job.json")

cat >"$work/nginx.conf" <<NGINX
worker_processes $SERVER_THREADS;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 100000000;
  types { application/json json; }
  server {
    listen 127.0.0.1:$NGINX_PORT;
    root $work/www;
  }
}
NGINX
nginx -c "$work/nginx.conf" -p "$work"
for _ in $(seq 100); do
  curl -fsS "http://127.0.0.1:$NGINX_PORT/job.json" >/dev/null 2>&1 && break
  sleep 0.05
done

# Conditional polls: each server's own ETag for the body, sent back in
# If-None-Match; both must answer 304.
dw_cond=() ; ng_cond=()
if [ "${CONDITIONAL:-0}" = 1 ]; then
  dw_etag=$(curl -fsS -D - -o /dev/null -H "$auth" "$url" | tr -d '\r' | awk 'tolower($1) == "etag:" {print $2}')
  ng_etag=$(curl -fsS -D - -o /dev/null "http://127.0.0.1:$NGINX_PORT/job.json" | tr -d '\r' | awk 'tolower($1) == "etag:" {print $2}')
  [ -n "$dw_etag" ] && [ -n "$ng_etag" ] || { echo "error: no ETag from a server" >&2; exit 1; }
  for pair in "$url|$dw_etag" "http://127.0.0.1:$NGINX_PORT/job.json|$ng_etag"; do
    code=$(curl -s -o /dev/null -w '%{http_code}' -H "$auth" -H "If-None-Match: ${pair#*|}" "${pair%%|*}")
    [ "$code" = 304 ] || { echo "error: ${pair%%|*} answered $code, not 304" >&2; exit 1; }
  done
  dw_cond=(-H "If-None-Match: $dw_etag")
  ng_cond=(-H "If-None-Match: $ng_etag")
fi

# "Requests/sec" and the 99th percentile (in ms) of one wrk run of `$1` with
# the headers that follow it.
measure() {
  local out rps p99 target=$1
  shift
  out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -H "$auth" "$@" "$target")
  rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
  p99=$(awk '$1 == "99%" {v=$2; if (v ~ /us$/) {sub(/us$/,"",v); v=v/1000} else if (v ~ /ms$/) {sub(/ms$/,"",v)} else if (v ~ /s$/) {sub(/s$/,"",v); v=v*1000}; print v}' <<<"$out")
  if grep -q "Non-2xx" <<<"$out"; then
    echo "error: non-2xx responses from $target" >&2
    echo "$out" >&2
    exit 1
  fi
  echo "$rps $p99"
}

if [ -n "${METRICS:-}" ]; then
  # A scraper as Prometheus is one, but ten times keener than its usual 10-15 s.
  (while sleep 1; do curl -fsS "http://127.0.0.1:$METRICS_PORT/metrics" >/dev/null || exit 1; done) &
  scraper_pid=$!
fi
echo "body: $size bytes${METRICS:+ (metrics scraped every second)}${CONDITIONAL:+ (conditional: 304s without a body)}; wrk -t$THREADS -c$CONNECTIONS -d$DURATION; $ROUNDS rounds; $(nproc) cores"
# Warm both up, then alternate so drift affects both alike.
wrk -t"$THREADS" -c"$CONNECTIONS" -d2s -H "$auth" "$url" >/dev/null
wrk -t"$THREADS" -c"$CONNECTIONS" -d2s "http://127.0.0.1:$NGINX_PORT/job.json" >/dev/null
ratios=() ; dw_all=() ; ng_all=() ; dw_p99s=() ; ng_p99s=()
for r in $(seq "$ROUNDS"); do
  read -r dw_rps dw_p99 < <(measure "$url" "${dw_cond[@]}")
  read -r ng_rps ng_p99 < <(measure "http://127.0.0.1:$NGINX_PORT/job.json" "${ng_cond[@]}")
  ratio=$(awk -v a="$dw_rps" -v b="$ng_rps" 'BEGIN {printf "%.3f", a / b}')
  printf 'round %d: docwright %8.0f req/s p99 %6.2f ms | nginx %8.0f req/s p99 %6.2f ms | ratio %s\n' \
    "$r" "$dw_rps" "$dw_p99" "$ng_rps" "$ng_p99" "$ratio"
  ratios+=("$ratio"); dw_all+=("$dw_rps"); ng_all+=("$ng_rps")
  dw_p99s+=("$dw_p99"); ng_p99s+=("$ng_p99")
done

# Each round measures both servers back to back, so its ratio cancels slow drift
# in the machine's speed; the median of the rounds' ratios is the result.
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio=$(median "${ratios[@]}")
p99=$(median "${dw_p99s[@]}")
echo "median over $ROUNDS rounds: docwright $(median "${dw_all[@]}") req/s p99 $p99 ms;" \
  "nginx $(median "${ng_all[@]}") req/s p99 $(median "${ng_p99s[@]}") ms; ratio $ratio"
verdict=$(awk -v r="$ratio" -v p="$p99" 'BEGIN {print (r >= 0.70 && p < 5) ? "met" : "NOT met"}')
echo "target (ratio >= 0.70, p99 < 5 ms): $verdict"
