#!/usr/bin/env bash
# Event streams: STREAMS clients on one node each hold GET
# /v2/agent/{projectId}/job/{id}/events open on one job; then a follow-up is
# posted and the time until its first event (job.message_added) has reached
# every stream is measured, ROUNDS times.
#
#   bench/streams/run.sh                  # 1,000 streams, 5 rounds, SQLite
#   STREAMS=2000 ROUNDS=10 bench/streams/run.sh
#
# Prints the node's memory per open stream (resident memory before and after
# the streams opened, divided by their number) and the fan-out time (median and
# p99 over streams, per round). References measured in the same run: nginx's
# memory per open keep-alive connection (the same number, idle), and the time
# of one follow-up POST's own round trip on this node.
set -euo pipefail
cd "$(dirname "$0")/../.."
STREAMS="${STREAMS:-1000}"
ROUNDS="${ROUNDS:-5}"
BIN="${DOCWRIGHT_BIN:-build/docwright}"
ulimit -n "$(ulimit -Hn)"
work=$(mktemp -d /tmp/dw-bench-streams.XXXXXX)
chmod 755 "$work"
# shellcheck source=../../scripts/lib.sh
. scripts/lib.sh

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

data="$work/data"
org=$("$BIN" org create --name bench --data-dir "$data" | tail -n1)
key=$("$BIN" key create --org "$org" --data-dir "$data" | tail -n1)
project=$("$BIN" project create --org "$org" --repository https://git.example/acme/docs \
  --no-check --rate-limit 1000000 --data-dir "$data" | tail -n1)
port=$(free_port)
# No model is configured: each turn fails at once, which is all the events need.
"$BIN" serve --data-dir "$data" --listen "127.0.0.1:$port" --workers 1 --access-log off \
  --max-connections-per-ip $((STREAMS + 100)) --event-streams-per-key $((STREAMS + 10)) \
  2>"$work/serve.log" &
dw_pid=$!
pids+=("$dw_pid")
for _ in $(seq 100); do
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  sleep 0.05
done

ng_port=$(free_port)
mkdir -p "$work/www"
echo '{}' > "$work/www/index.json"
chmod -R a+rX "$work/www"
cat > "$work/nginx.conf" <<NGINX
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections $((STREAMS + 100)); }
http {
  access_log off;
  keepalive_timeout 600s;
  keepalive_requests 100000000;
  server { listen 127.0.0.1:$ng_port; root $work/www; }
}
NGINX
nginx -g 'daemon off;' -c "$work/nginx.conf" -p "$work" &
pids+=($!)
for _ in $(seq 100); do
  curl -fsS "http://127.0.0.1:$ng_port/index.json" >/dev/null 2>&1 && break
  sleep 0.05
done
ng_worker=$(pgrep -P "$(cat "$work/nginx.pid")" | head -n1)

python3 - "$port" "$key" "$project" "$STREAMS" "$ROUNDS" "$dw_pid" "$ng_port" "$ng_worker" <<'PY'
import json, selectors, socket, statistics, sys, time, urllib.request

port, key, project, n, rounds, dw_pid, ng_port, ng_pid = sys.argv[1:]
n, rounds, port, ng_port = int(n), int(rounds), int(port), int(ng_port)
auth = {"Authorization": "Bearer " + key, "Content-Type": "application/json"}
base = f"http://127.0.0.1:{port}/v2/agent/{project}"

def rss(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])

def post(path, body):
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(), headers=auth)
    with urllib.request.urlopen(req) as r:
        return json.load(r)

def get(path):
    req = urllib.request.Request(base + path, headers=auth)
    with urllib.request.urlopen(req) as r:
        return json.load(r)

def wait_ended(job_id):
    while get(f"/job/{job_id}")["status"] == "active":
        time.sleep(0.02)

job = post("/job", {"prompt": "Document the rate limits"})["id"]
wait_ended(job)
last = 0

def open_all(host_port, request, count):
    socks = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", host_port))
        s.sendall(request)
        socks.append(s)
    return socks

# nginx: the same number of open, idle keep-alive connections.
ng_before = rss(ng_pid)
ng_socks = open_all(ng_port, b"GET /index.json HTTP/1.1\r\nHost: x\r\n\r\n", n)
for s in ng_socks:
    s.recv(4096)
time.sleep(0.5)
ng_per = (rss(ng_pid) - ng_before) * 1024 / n

# docwright: the streams, each read up to the job's latest event.
dw_before = rss(dw_pid)
req = (f"GET /v2/agent/{project}/job/{job}/events HTTP/1.0\r\nHost: x\r\n"
       f"Authorization: Bearer {key}\r\n\r\n").encode()
socks = open_all(port, req, n)
sel = selectors.DefaultSelector()
bufs = {}
for s in socks:
    s.setblocking(False)
    sel.register(s, selectors.EVENT_READ)
    bufs[s] = b""

def read_until(marker, deadline):
    """Reads every stream until each has `marker` after its offset; returns
    the arrival time of it on each stream."""
    arrived = {}
    now = time.monotonic()
    for s in socks:  # already read, in an earlier wait's chunk
        at = bufs[s].find(marker)
        if at >= 0:
            arrived[s] = now
            bufs[s] = bufs[s][at + len(marker):]
    while len(arrived) < len(socks) and time.monotonic() < deadline:
        for key_, _ in sel.select(timeout=0.5):
            s = key_.fileobj
            chunk = s.recv(65536)
            if not chunk:
                raise SystemExit("a stream closed")
            bufs[s] += chunk
            at = bufs[s].find(marker)
            if s not in arrived and at >= 0:
                arrived[s] = time.monotonic()
                bufs[s] = bufs[s][at + len(marker):]  # what follows is the next wait's
    if len(arrived) < len(socks):
        raise SystemExit(f"only {len(arrived)} of {len(socks)} streams got {marker!r}")
    return arrived

read_until(b"event: job.failed", time.monotonic() + 60)
time.sleep(0.5)
dw_per = (rss(dw_pid) - dw_before) * 1024 / n

print(f"{n} streams open on one job; {rounds} rounds")
print(f"memory per open stream: docwright {dw_per / 1024:.1f} KiB | "
      f"nginx, per idle keep-alive connection: {ng_per / 1024:.1f} KiB | "
      f"ratio {dw_per / ng_per if ng_per > 0 else float('nan'):.2f}")
medians, p99s, posts = [], [], []
for r in range(rounds):
    t0 = time.monotonic()
    post(f"/job/{job}/message", {"prompt": f"Round {r}"})
    t_post = time.monotonic()
    arrived = read_until(b"event: job.message_added", t0 + 60)
    times = sorted((t - t0) * 1000 for t in arrived.values())
    med, p99 = statistics.median(times), times[int(len(times) * 0.99) - 1]
    medians.append(med); p99s.append(p99); posts.append((t_post - t0) * 1000)
    print(f"round {r + 1}: follow-up POST {posts[-1]:.1f} ms; its event on every stream: "
          f"median {med:.1f} ms, p99 {p99:.1f} ms, last {times[-1]:.1f} ms")
    wait_ended(job)
    read_until(b"event: job.failed", time.monotonic() + 60)
print(f"median over rounds: fan-out p99 {statistics.median(p99s):.1f} ms to {n} streams; "
      f"the POST's own round trip {statistics.median(posts):.1f} ms; "
      f"ratio {statistics.median(p99s) / statistics.median(posts):.1f}")
PY
