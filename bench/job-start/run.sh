#!/usr/bin/env bash
# Job start: from a claimed turn to its first model request (fetch the branch and the
# base, open the snapshot, build the system prompt with the site's map)
# for generated docs repositories of 1,000, 10,000 and 100,000 files, against
# `git clone --depth 1` of the same repository from the same local bare remote.
# Then a 3-file change: workspace + commit + push, against the git command line's
# edit + add + commit + push in a worktree.
#
#   ./dw bench job-start
#   SIZES="1000 10000" RUNS=20 ./dw bench job-start
#
# SERVED_PAGES=1500 SERVED_JOBS=41: a job's start on a served Mintlify site (below);
# SIZES=none SERVED_JOBS=121 ./dw bench job-start: that part alone;
# BASE=other/docwright ROUNDS=4: also against another build, alternating.
#
# Targets: the three sizes within 2x of each other; at least 20x faster than the
# shallow clone at 10,000 files; the commit + push not slower than the git CLI.
set -euo pipefail
cd "$(dirname "$0")/../.."

BENCH="${JOB_START_BENCH:-build/bench/job_start_bench}"
SIZES="${SIZES:-1000 10000 100000}"
START_RUNS="${START_RUNS:-201}"
RUNS="${RUNS:-15}"
CLONES="${CLONES:-3}"
work=$(mktemp -d /tmp/dw-bench-job-start.XXXXXX)
trap 'rm -rf "$work"' EXIT
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com

# A docs-like repository of N files in one commit, written with fast-import.
generate() {
  local n=$1 dir=$2
  git init -q --bare -b main "$dir"
  python3 - "$n" <<'PY' | git --git-dir="$dir" fast-import --quiet
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
}

now_us() { date +%s%6N; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# The median time, in microseconds, of CLONES shallow clones of the bare repository $1.
clone_us() {
  local times=() c t0
  for c in $(seq "$CLONES"); do
    rm -rf "$work/clone"
    t0=$(now_us)
    git clone -q --depth 1 "file://$1" "$work/clone"
    times+=($(( $(now_us) - t0 )))
  done
  median "${times[@]}"
}

# SIZES=none: the served part only (the generated repositories' writes, still
# going to the disk, would slow its flushes and its clone).
if [ "$SIZES" != none ]; then
printf '%-8s %14s %14s %18s %8s\n' files "start (ms)" "best (ms)" "clone --depth 1" speedup
declare -A start_ms
for n in $SIZES; do
  remote="$work/remote-$n.git"
  generate "$n" "$remote"
  read -r med best < <("$BENCH" start "$work/mirror-$n.git" "$remote" main "$START_RUNS")
  clone=$(clone_us "$remote")
  start_ms[$n]=$(awk -v m="$med" 'BEGIN {printf "%.2f", m / 1000}')
  printf '%-8s %14.2f %14.2f %15.1f ms %7.0fx\n' "$n" "$(awk -v m="$med" 'BEGIN {print m/1000}')" \
    "$(awk -v m="$best" 'BEGIN {print m/1000}')" "$(awk -v c="$clone" 'BEGIN {print c/1000}')" \
    "$(awk -v c="$clone" -v m="$med" 'BEGIN {print c/m}')"
done
spread=$(printf '%s\n' "${start_ms[@]}" | sort -g | awk 'NR==1 {lo=$1} {hi=$1} END {printf "%.2f", hi/lo}')
echo "largest / smallest start time: ${spread}x (target: within 2x)"

# Commit + push of a 3-file change, on the 10,000-file repository (or the first size).
n=$(printf '%s\n' $SIZES | grep -x 10000 || printf '%s\n' $SIZES | head -n1)
remote="$work/remote-$n.git"
read -r ours_med ours_best < <("$BENCH" commit "$work/mirror-$n.git" "$remote" main "$RUNS")
git clone -q "file://$remote" "$work/tree"
cli=()
for i in $(seq "$RUNS"); do
  t0=$(now_us)
  (
    cd "$work/tree"
    git checkout -q -B "cli/run-$i" origin/main
    for f in 0 1 2; do echo "Edited in run $i." >>"docs/section-$f/page-$f.md"; done
    git add -A
    git commit -qm "Edit three pages"
    git push -q origin "cli/run-$i"
  )
  cli+=($(( $(now_us) - t0 )))
done
cli_med=$(median "${cli[@]}")
printf 'commit + push, 3 files, %s-file repo: docwright %.1f ms, git CLI %.1f ms (%.1fx)\n' "$n" \
  "$(awk -v m="$ours_med" 'BEGIN {print m/1000}')" "$(awk -v c="$cli_med" 'BEGIN {print c/1000}')" \
  "$(awk -v c="$cli_med" -v m="$ours_med" 'BEGIN {print c/m}')"
fi

# A job's start on a served site, as a client sees it: `docwright serve` (SQLite,
# the local forge, its default settings) on a Mintlify repository of
# SERVED_PAGES pages, and the fake model, which notes the moment each request
# arrives. One job at a time: from its POST to the model's first request (create,
# claim, fetch, snapshot, site map and write policy, the repository's
# instructions, the system prompt). The first job is cold (the node's mirror is
# empty and nothing is cached); the rest are warm. Reference: `git clone --depth
# 1` of the same repository. Targets: warm start at most 10 ms, at least 100x
# faster than the shallow clone.
SERVED_PAGES="${SERVED_PAGES:-1500}"
SERVED_JOBS="${SERVED_JOBS:-41}"
if [ "$SERVED_PAGES" -gt 0 ]; then
  pids=()
  trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$work"' EXIT
  site="$work/site.git"
  git init -q --bare -b main "$site"
  python3 bench/job-start/mintlify_site.py "$SERVED_PAGES" | git --git-dir="$site" fast-import --quiet
  files=$(git --git-dir="$site" ls-tree -r main | wc -l)
  printf '[{"tool_calls": [{"name": "finish", "arguments": {"title": "Nothing to change", "summary": "The guides are right."}}]}]\n' \
    > "$work/finish.json"
  # The arrivals go through a FIFO, which the client sleeps on; this shell
  # holds it open (read and write, which does not block), so the model can open
  # it before a client does, and a client that ends does not end it.
  mkfifo "$work/arrivals"
  exec 3<>"$work/arrivals"
  build/tests/docwright_fake_model --wire openai --key sk-bench --script "$work/finish.json" \
    --arrivals "$work/arrivals" > "$work/model.out" 2> "$work/model.err" &
  pids+=($!)
  for _ in $(seq 400); do grep -q 'listening on' "$work/model.out" 2>/dev/null && break; sleep 0.05; done
  model_url=$(grep -oE 'http://127\.0\.0\.1:[0-9]+/v1' "$work/model.out")
  # The start of each of SERVED_JOBS jobs, in microseconds, the first cold: a
  # node of the docwright binary $1 on a data directory of its own, stopped after.
  served_starts() {
    local dw=$1 data org key project pid url
    data=$(mktemp -d "$work/data.XXXXXX")
    org=$("$dw" org create --data-dir "$data" --name bench | tail -n1)
    key=$("$dw" key create --data-dir "$data" --org "$org" | tail -n1)
    project=$("$dw" project create --data-dir "$data" --org "$org" --repository "$site" \
      --rate-limit 1000000 | tail -n1)
    DOCWRIGHT_LLM_PROVIDER=openai DOCWRIGHT_LLM_BASE_URL="$model_url" \
      DOCWRIGHT_LLM_API_KEY=sk-bench DOCWRIGHT_MODEL=instant \
      "$dw" serve --data-dir "$data" --listen 127.0.0.1:0 > "$data/serve.out" 2> "$data/serve.log" &
    pid=$!
    pids+=($pid)
    for _ in $(seq 400); do grep -q 'listening on' "$data/serve.log" 2>/dev/null && break; sleep 0.05; done
    url=$(grep -oE 'listening on http://127\.0\.0\.1:[0-9]+' "$data/serve.log" | head -n1)
    url=${url#listening on }
    python3 bench/job-start/first_request.py "$url" "$project" "$key" "$work/arrivals" "$SERVED_JOBS"
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  }
  # BASE=path/to/docwright: that binary's nodes and this build's, one after the
  # other, ROUNDS times each, on the same site and model: the same run's
  # reference for a change.
  if [ -n "${BASE:-}" ]; then
    base_warm=() ours_warm=()
    for _ in $(seq "${ROUNDS:-4}"); do
      mapfile -t s < <(served_starts "$BASE")
      base_warm+=("${s[@]:1}")
      mapfile -t s < <(served_starts build/docwright)
      ours_warm+=("${s[@]:1}")
    done
    b=$(median "${base_warm[@]}")
    o=$(median "${ours_warm[@]}")
    echo
    printf 'warm job start, %d jobs each, alternating nodes: %s %.2f ms, this build %.2f ms (%.2fx)\n' \
      "${#ours_warm[@]}" "$BASE" "$(awk -v m="$b" 'BEGIN {print m/1000}')" \
      "$(awk -v m="$o" 'BEGIN {print m/1000}')" "$(awk -v b="$b" -v o="$o" 'BEGIN {print b/o}')"
  fi
  mapfile -t starts < <(served_starts build/docwright)
  clone=$(clone_us "$site")
  warm=$(median "${starts[@]:1}")
  best=$(printf '%s\n' "${starts[@]:1}" | sort -g | head -n1)
  echo
  echo "served Mintlify site, $SERVED_PAGES pages ($files files), one job at a time, $(nproc) cores:"
  printf 'job start, POST to first model request: cold %.1f ms; warm median %.2f ms, best %.2f ms (%d jobs; target: at most 10 ms)\n' \
    "$(awk -v m="${starts[0]}" 'BEGIN {print m/1000}')" "$(awk -v m="$warm" 'BEGIN {print m/1000}')" \
    "$(awk -v m="$best" 'BEGIN {print m/1000}')" "$(( ${#starts[@]} - 1 ))"
  printf 'git clone --depth 1: %.1f ms; warm start faster by %.0fx (target: 100x)\n' \
    "$(awk -v c="$clone" 'BEGIN {print c/1000}')" "$(awk -v c="$clone" -v m="$warm" 'BEGIN {print c/m}')"
fi
