#!/usr/bin/env bash
# One job end to end, without a real language model: a SCRIPTED fake model (it
# speaks the OpenAI wire format and follows model-script.json), the sample docs
# site of tests/data/sample-docs in a bare repository, and the local forge.
#   scripts/demo/run.sh BUILD_DIR
# Prints the job and its prLink, then keeps serving so the pull request page can be
# opened, until Ctrl-C (DW_DEMO_EXIT=1: stop at once).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$(cd "${1:?usage: run.sh BUILD_DIR}" && pwd)"
work="$(mktemp -d /tmp/docwright-demo.XXXXXX)"
# shellcheck source=../lib.sh
. "$root/scripts/lib.sh"
trap 'exit 0' INT TERM

# The repository: the sample site, on branch main.
git -c init.defaultBranch=main init -q --bare "$work/docs.git"
git -c init.defaultBranch=main init -q "$work/seed"
cp -R "$root/tests/data/sample-docs/." "$work/seed/"
git -C "$work/seed" add -A
git -C "$work/seed" -c user.name=Demo -c user.email=demo@example.com commit -qm "Sample docs"
git -C "$work/seed" push -q "$work/docs.git" HEAD:main

# The scripted model.
"$build/tests/docwright_fake_model" --wire openai --key sk-demo --script "$here/model-script.json" \
  > "$work/model.out" 2> "$work/model.err" &
pids+=($!)
model_url=$(wait_for_line "$work/model.out" 'http://127\.0\.0\.1:[0-9]+/v1')

# The service.
export DOCWRIGHT_LLM_PROVIDER=openai DOCWRIGHT_LLM_BASE_URL="$model_url" \
  DOCWRIGHT_LLM_API_KEY=sk-demo DOCWRIGHT_MODEL=scripted-demo-model
dw="$build/docwright"
"$dw" serve --data-dir "$work/data" --listen 127.0.0.1:0 > "$work/serve.out" 2> "$work/serve.log" &
pids+=($!)
url=$(wait_for_line "$work/serve.log" 'listening on http://127\.0\.0\.1:[0-9]+')
url=${url#listening on }

org=$("$dw" org create --data-dir "$work/data" --name demo | tail -n1)
key=$("$dw" key create --data-dir "$work/data" --org "$org" | tail -n1)
project=$("$dw" project create --data-dir "$work/data" --org "$org" --repository "$work/docs.git" | tail -n1)

echo "docwright demo: a SCRIPTED fake model stands in for a real LLM (see $here/model-script.json)."
echo "service: $url   repository: $work/docs.git"
echo
echo "POST $url/v2/agent/$project/job"
echo '  {"prompt": "Fix the typo in the quickstart and add a troubleshooting page"}'
job=$(DOCWRIGHT_URL="$url" DOCWRIGHT_API_KEY="$key" "$dw" job create --project "$project" \
  --prompt "Fix the typo in the quickstart and add a troubleshooting page" --wait --json)
echo
echo "The job, once it ended:"
echo "$job"
pr=$(printf '%s' "$job" | grep -oE '"prLink":"[^"]*"' | cut -d'"' -f4 || true)
if [ -z "$pr" ]; then
  echo "demo: the job has no pull request" >&2
  exit 1
fi
echo
echo "Pull request: $pr"
echo "Branch on the remote:"
git --git-dir="$work/docs.git" log --format='  %h %an: %s' -1 "$(printf '%s' "$job" | grep -oE '"ref":"[^"]*"' | cut -d'"' -f4)"
if [ "${DW_DEMO_EXIT:-0}" = 1 ]; then exit 0; fi
echo
echo "Open the pull request in a browser; Ctrl-C stops the demo and removes its files."
wait
