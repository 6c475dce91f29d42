#!/usr/bin/env python3
"""What an unauthenticated client can make the server hold: opens N connections to
`docwright serve` over loopback, each sending what the attack of issue 9 sent, and
reports the server's resident memory before, at its peak and after they close.

    flood.py BINARY N body     GET /healthz with a 1 MiB body on each connection
    flood.py BINARY N header   a 16 KB header line, never finished, on each

The reference is what the clients sent: the server should hold a small fraction
of it per connection, whatever the framing.
"""
import re
import socket
import subprocess
import sys
import tempfile
import time


def main():
    binary, n, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    data_dir = tempfile.mkdtemp(prefix="dw-bench-flood-")
    server = subprocess.Popen(
        [binary, "serve", "--data-dir", data_dir, "--listen", "127.0.0.1:0", "--workers", "0",
         "--max-connections-per-ip", "100000"],
        stderr=subprocess.PIPE, text=True)
    port = None
    for line in server.stderr:
        m = re.search(r"listening on http://127.0.0.1:(\d+)", line)
        if m:
            port = int(m.group(1))
            break

    def kib(field):
        with open(f"/proc/{server.pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        return 0

    warm = socket.create_connection(("127.0.0.1", port))
    warm.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    warm.recv(1000)
    warm.close()
    before = kib("VmRSS")
    body = b"x" * (1 << 20)
    sent = 0
    clients = []
    for _ in range(n):
        c = socket.create_connection(("127.0.0.1", port))
        c.settimeout(5)
        try:
            if mode == "body":
                head = b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n"
                c.sendall(head)
                sent += len(head)
                c.sendall(body)
                sent += len(body)
            else:
                head = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 16000
                c.sendall(head)
                sent += len(head)
        except OSError:
            pass  # the server answered early and closed: what it refused to read
        clients.append(c)
    time.sleep(0.5)
    peak = kib("VmHWM")
    for c in clients:
        c.close()
    time.sleep(1)
    after = kib("VmRSS")
    server.terminate()
    server.wait()
    per = (peak - before) / n
    offered = (1 << 20) if mode == "body" else 16000
    print(f"{mode}: {n} connections, {offered // 1024} KiB offered by each: server RSS {before} KiB "
          f"before, peak +{peak - before} KiB ({per:.1f} KiB a connection, "
          f"{per / (offered / 1024):.3f} of what each offered), {after} KiB after they closed")


if __name__ == "__main__":
    main()
