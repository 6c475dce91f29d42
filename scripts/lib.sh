# Shared by the scripts that start docwright and its fakes as background processes
# (scripts/demo/run.sh, bench/pipeline/run.sh). Source it after setting `work` to
# a scratch directory: on exit, the processes in `pids` are stopped and `work` is
# removed.
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
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
