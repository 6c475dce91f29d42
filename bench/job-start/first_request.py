#!/usr/bin/env python3
"""Times a job's start as a client sees it, for bench/job-start/run.sh: from the
moment its POST is sent to the moment the model receives the turn's first request
(the fake model's --arrivals file). One job at a time, each waited for until it
ends, so every arrival is the job's own.

    first_request.py URL PROJECT KEY ARRIVALS N

Prints one line per job: its start in microseconds (the first is the cold one:
the node's mirror of the repository is empty)."""
import http.client
import json
import os
import sys
import time
import urllib.parse

url, project, key, arrivals, n = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
parts = urllib.parse.urlsplit(url)
conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}


def request(method, path, body=None):
    conn.request(method, path, body=body, headers=headers)
    reply = conn.getresponse()
    data = reply.read()
    return reply.status, data


def arrivals_seen():
    try:
        with open(arrivals) as f:
            return [int(line) for line in f if line.strip()]
    except FileNotFoundError:
        return []


for i in range(n):
    before = len(arrivals_seen())
    body = json.dumps({"prompt": f"Look over the guides, run {i}"})
    sent = time.time_ns() // 1000
    status, data = request("POST", f"/v2/agent/{project}/job", body)
    if status != 201:
        sys.exit(f"first_request: job {i}: HTTP {status}: {data[:200]!r}")
    job = json.loads(data)["id"]
    deadline = time.time() + 60
    seen = arrivals_seen()
    while len(seen) <= before:
        if time.time() > deadline:
            sys.exit(f"first_request: job {i}: the model was never asked")
        time.sleep(0.0005)
        seen = arrivals_seen()
    print(seen[before] - sent, flush=True)
    # The job ends before the next is posted.
    while True:
        status, data = request("GET", f"/v2/agent/{project}/job/{job}")
        if status == 200 and json.loads(data).get("status") != "active":
            break
        if time.time() > deadline:
            sys.exit(f"first_request: job {i} did not end")
        time.sleep(0.005)
