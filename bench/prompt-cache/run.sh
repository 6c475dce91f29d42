#!/usr/bin/env bash
# Prompt caching: the token use of one 10-step agent turn on a real-sized site
# (1,548 files, the size of the site the issue measured), both wire formats,
# with caching on and off. The fake model applies each provider's documented
# caching rules, so the share measures docwright's requests.
#
#   ./dw bench prompt-cache
#   FILES=10000 ./dw bench prompt-cache
#
# Target: at least 70% of input tokens served from the cache with caching on.
set -euo pipefail
cd "$(dirname "$0")/../.."

BENCH="${PROMPT_CACHE_BENCH:-build/bench/prompt_cache_bench}"
FILES="${FILES:-1548}"
work=$(mktemp -d /tmp/dw-bench-prompt-cache.XXXXXX)
trap 'rm -rf "$work"' EXIT

# A docs-like repository of N files, as bench/job-start makes it.
git init -q --bare -b main "$work/remote.git"
python3 - "$FILES" <<'PY' | git --git-dir="$work/remote.git" fast-import --quiet
import sys
n = int(sys.argv[1])
out = sys.stdout.buffer
out.write(b"commit refs/heads/main\ncommitter bench <bench@example.com> 1700000000 +0000\n"
          b"data 4\ninit\n")
for i in range(n):
    section = i % 50
    body = (f"---\ntitle: Page {i}\n---\n# Page {i}\n\n" + "Some documentation text. " * 40 + "\n").encode()
    out.write(f"M 100644 inline docs/section-{section}/page-{i}.md\ndata {len(body)}\n".encode())
    out.write(body + b"\n")
out.write(b"\n")
PY

echo "one 10-step turn, $FILES files"
"$BENCH" "$work/mirror.git" "$work/remote.git" main
