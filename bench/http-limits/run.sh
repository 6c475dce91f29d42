#!/usr/bin/env bash
# What unauthenticated clients can make the server hold (issue 9's attacks):
# N connections each sending a 1 MiB body to /healthz, then N connections each
# sending an unfinished 16 KB header. The reference is what each client offered;
# the target is a bounded few KiB a connection, released when they close.
#
#   ./dw bench http-limits
#   N=500 ./dw bench http-limits
set -euo pipefail
cd "$(dirname "$0")/../.."
N="${N:-2000}"
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
python3 bench/http-limits/flood.py build/docwright "$N" body
python3 bench/http-limits/flood.py build/docwright "$N" header
