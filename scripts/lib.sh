# Shared by the scripts that start docwright and its fakes as background processes
# (scripts/demo/run.sh, bench/pipeline/run.sh). Source it after setting `work` to
# a scratch directory: on exit, the processes in `pids` are stopped and `work` is
# removed.
pids=()
pg_state=""
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [ -z "$pg_state" ] || tests/support/postgres.sh stop "$pg_state" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# wait_for_line FILE REGEX: prints the first match of REGEX in FILE, waiting up to
# 20 s for it to appear; else shows FILE and fails.
wait_for_line() {
  for _ in $(seq 1 400); do
    if line=$(grep -m1 -oE "$2" "$1" 2>/dev/null); then echo "$line"; return 0; fi
    sleep 0.05
  done
  echo "$(basename "$0"): timed out waiting for /$2/ in $1" >&2
  cat "$1" >&2
  return 1
}

# make_docs_repo BARE FILES: a bare repository at BARE whose main branch holds
# FILES Markdown pages in 50 sections (docs/section-K/page-N.md), one commit.
make_docs_repo() {
  git init -q --bare -b main "$1"
  python3 - "$2" <<'PY' | git --git-dir="$1" fast-import --quiet
import sys
n = int(sys.argv[1])
out = sys.stdout.buffer
out.write(b"commit refs/heads/main\ncommitter bench <bench@example.com> 1700000000 +0000\ndata 4\ninit\n")
for i in range(n):
    body = (f"---\ntitle: Page {i}\n---\n# Page {i}\n\n" + "Some documentation text. " * 40 + "\n").encode()
    out.write(f"M 100644 inline docs/section-{i % 50}/page-{i}.md\ndata {len(body)}\n".encode())
    out.write(body + b"\n")
out.write(b"\n")
PY
}

# postgres_database NAME: starts (once) a PostgreSQL server for this script, as
# the tests do (tests/support/postgres.sh), but with fsync on, as in production;
# creates the database NAME on it and prints its URL. Stopped on exit.
postgres_database() {
  if [ -z "$pg_state" ]; then
    pg_state="$work/postgres"
    DOCWRIGHT_PG_FSYNC=on tests/support/postgres.sh start "$pg_state" >&2
  fi
  local admin
  admin=$(cat "$pg_state/url")
  psql -q "$admin" -c "CREATE DATABASE $1" >&2
  echo "${admin/\/postgres\?//$1?}"
}
