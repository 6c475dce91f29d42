#!/usr/bin/env bash
# Pipeline overhead: JOBS jobs (a 3-file edit each) on a generated 10,000-file
# docs repository, with an instant scripted model (the fake model server, OpenAI
# wire format) and the local forge, end to end through the HTTP API: create ->
# claim -> fetch -> model -> commit -> push -> pull request -> completed.
#
#   ./dw bench pipeline
#   JOBS=300 WORKERS=8 ./dw bench pipeline
#
# Target: at least 20 jobs/s on 2 cores. Also prints what the system prompt and
# the site map cost for this repository (bytes, and tokens at ~4 bytes a token).
# Reference, measured in the same run: the git command line committing the same
# 3-file change and pushing it to a new branch, per job (REF_JOBS of them).
set -euo pipefail
cd "$(dirname "$0")/../.."
JOBS="${JOBS:-1000}"
FILES="${FILES:-10000}"
WORKERS="${WORKERS:-8}"
CLIENTS="${CLIENTS:-8}"
REF_JOBS="${REF_JOBS:-50}"
build=build
work=$(mktemp -d /tmp/dw-bench-pipeline.XXXXXX)
# shellcheck source=../../scripts/lib.sh
. scripts/lib.sh
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com

now_ms() { date +%s%3N; }

# The repository: FILES Markdown pages in 50 sections, one commit.
make_docs_repo "$work/docs.git" "$FILES"

"$build/bench/pipeline_prompt" "$work/prompt-mirror.git" "$work/docs.git" main

# The model and the service.
"$build/tests/docwright_fake_model" --wire openai --key sk-bench --script bench/pipeline/model-script.json \
  > "$work/model.out" 2> "$work/model.err" &
pids+=($!)
model_url=$(wait_for_line "$work/model.out" 'http://127\.0\.0\.1:[0-9]+/v1')
export DOCWRIGHT_LLM_PROVIDER=openai DOCWRIGHT_LLM_BASE_URL="$model_url" \
  DOCWRIGHT_LLM_API_KEY=sk-bench DOCWRIGHT_MODEL=instant
dw="$build/docwright"
"$dw" serve --data-dir "$work/data" --listen 127.0.0.1:0 --workers "$WORKERS" \
  > "$work/serve.out" 2> "$work/serve.log" &
pids+=($!)
url=$(wait_for_line "$work/serve.log" 'listening on http://127\.0\.0\.1:[0-9]+')
url=${url#listening on }
org=$("$dw" org create --data-dir "$work/data" --name bench | tail -n1)
key=$("$dw" key create --data-dir "$work/data" --org "$org" | tail -n1)
project=$("$dw" project create --data-dir "$work/data" --org "$org" --repository "$work/docs.git" \
  --rate-limit 1000000 | tail -n1)

# Create every job (CLIENTS at a time), then wait until none is active.
t0=$(now_ms)
seq "$JOBS" | xargs -P "$CLIENTS" -I{} curl -sf -o /dev/null -X POST "$url/v2/agent/$project/job" \
  -H "Authorization: Bearer $key" -H "Content-Type: application/json" \
  -d '{"prompt": "Write three notes for run {}"}'
t_created=$(now_ms)
while curl -sf "$url/v2/agent/$project/jobs?status=active&limit=1" -H "Authorization: Bearer $key" \
    | grep -q '"id"'; do
  sleep 0.05
done
t1=$(now_ms)
failed=$(curl -sf "$url/v2/agent/$project/jobs?status=failed&limit=100" -H "Authorization: Bearer $key" \
  | grep -o '"id"' | wc -l || true)
branches=$(git --git-dir="$work/docs.git" for-each-ref refs/heads/docwright | wc -l)
elapsed=$((t1 - t0))
rate=$(awk -v n="$JOBS" -v ms="$elapsed" 'BEGIN { printf "%.1f", n * 1000 / ms }')

# Reference: the same change with the git command line, one branch per job.
git clone -q "$work/docs.git" "$work/ref"
r0=$(now_ms)
for i in $(seq "$REF_JOBS"); do
  git -C "$work/ref" checkout -q -b "ref/$i" main
  mkdir -p "$work/ref/notes/$i"
  for f in summary details faq; do printf -- '---\ntitle: %s\n---\n# %s\n' "$f" "$f" > "$work/ref/notes/$i/$f.md"; done
  git -C "$work/ref" add -A && git -C "$work/ref" commit -qm "Add notes"
  git -C "$work/ref" push -q origin "ref/$i"
done
r1=$(now_ms)
ref_rate=$(awk -v n="$REF_JOBS" -v ms="$((r1 - r0))" 'BEGIN { printf "%.1f", n * 1000 / ms }')

echo
echo "jobs: $JOBS on $FILES files, $WORKERS workers, $CLIENTS clients; $(nproc) cores"
echo "created in $((t_created - t0)) ms; all ended in $elapsed ms"
echo "branches pushed: $branches; failed jobs (first page): $failed"
echo "pipeline: $rate jobs/s (target: 20)"
echo "reference, git CLI commit + push of the same change: $ref_rate branches/s"
echo "ratio pipeline / reference: $(awk -v a="$rate" -v b="$ref_rate" 'BEGIN { printf "%.1f", a / b }')"
[ "$branches" -eq "$JOBS" ] || { echo "bench: expected $JOBS branches" >&2; exit 1; }
