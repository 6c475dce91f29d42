#!/usr/bin/env python3
"""Times a job's start as a client sees it, for bench/job-start/run.sh: from the
moment its POST is handed to the kernel, whole, to the moment the model receives
the turn's first request (a line the fake model writes to ARRIVALS, a FIFO). One
job at a time, each waited for until it ends, so every arrival is the job's own.

    first_request.py URL PROJECT KEY ARRIVALS N

The client stays out of the way of what it measures, on a machine of 2 cores:
the POST is one write on a connection of its own, and the client then sleeps in
reads (its response, then the FIFO) rather than polling a file.

Prints one line per job: its start in microseconds (the first is the cold one:
the node's mirror of the repository is empty)."""
import http.client
import json
import os
import select
import socket
import sys
import time
import urllib.parse

url, project, key, arrivals, n = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
parts = urllib.parse.urlsplit(url)
status_conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
post = socket.create_connection((parts.hostname, parts.port), timeout=60)
post.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
fifo = os.open(arrivals, os.O_RDONLY | os.O_NONBLOCK)
pending = b""


def job_status(job):
    status_conn.request("GET", f"/v2/agent/{project}/job/{job}", headers=headers)
    reply = status_conn.getresponse()
    return reply.status, reply.read()


def create(i):
    """Sends the POST in one write; returns (sent in µs since the epoch, status, body)."""
    body = json.dumps({"prompt": f"Look over the guides, run {i}"}).encode()
    request = (f"POST /v2/agent/{project}/job HTTP/1.1\r\nHost: {parts.netloc}\r\n"
               f"Authorization: Bearer {key}\r\nContent-Type: application/json\r\n"
               f"Content-Length: {len(body)}\r\n\r\n").encode() + body
    sent = time.time_ns() // 1000
    post.sendall(request)
    reply = http.client.HTTPResponse(post)
    reply.begin()
    return sent, reply.status, reply.read()


def next_arrival(deadline):
    """The next arrival's time in µs since the epoch, sleeping in select until it comes."""
    global pending
    while b"\n" not in pending:
        left = deadline - time.time()
        if left <= 0:
            return None
        ready, _, _ = select.select([fifo], [], [], left)
        if ready:
            pending += os.read(fifo, 4096)
    line, pending = pending.split(b"\n", 1)
    return int(line)


def drain():
    """Forgets arrivals already written: a job's later requests."""
    global pending
    pending = b""
    while select.select([fifo], [], [], 0)[0]:
        if not os.read(fifo, 4096):
            break


for i in range(n):
    drain()
    sent, status, data = create(i)
    if status != 201:
        sys.exit(f"first_request: job {i}: HTTP {status}: {data[:200]!r}")
    job = json.loads(data)["id"]
    deadline = time.time() + 60
    arrived = next_arrival(deadline)
    if arrived is None:
        sys.exit(f"first_request: job {i}: the model was never asked")
    print(arrived - sent, flush=True)
    # The job ends before the next is posted.
    while True:
        status, data = job_status(job)
        if status == 200 and json.loads(data).get("status") != "active":
            break
        if time.time() > deadline:
            sys.exit(f"first_request: job {i} did not end")
        time.sleep(0.005)
