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

printf '%-8s %14s %14s %18s %8s\n' files "start (ms)" "best (ms)" "clone --depth 1" speedup
declare -A start_ms
for n in $SIZES; do
  remote="$work/remote-$n.git"
  generate "$n" "$remote"
  read -r med best < <("$BENCH" start "$work/mirror-$n.git" "$remote" main "$START_RUNS")
  clones=()
  for c in $(seq "$CLONES"); do
    rm -rf "$work/clone"
    t0=$(now_us)
    git clone -q --depth 1 "file://$remote" "$work/clone"
    clones+=($(( $(now_us) - t0 )))
  done
  clone=$(median "${clones[@]}")
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
