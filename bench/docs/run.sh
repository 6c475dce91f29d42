#!/usr/bin/env bash
# The docs engine (site map + checks, as at the end of a turn) on generated
# Mintlify sites of 1,000 and 10,000 pages (nested navigation, links between
# pages, images, redirects, MDX), after appending to a page and adding a page
# with its navigation entry. The 1,000-page site is the reference: the target
# is linear growth, 10x the pages within 12x the time (site map, checks, and the
# checks after deleting a page, which read every page's links), and zero
# problems before the deletion.
#
#   ./dw bench docs
#   SIZES="1000 10000 20000" ./dw bench docs
set -euo pipefail
cd "$(dirname "$0")/../.."

BENCH="${DOCS_BENCH:-build/bench/docs_bench}"
SIZES="${SIZES:-1000 10000}"
work=$(mktemp -d /tmp/dw-bench-docs.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The largest site of the test corpus, with ten of its pages appended to.
echo "corpus site mintlify-large: $("$BENCH" tests/data/sites/mintlify-large "$work/corpus")"

ref_ms=""
ref_pages=""
for n in $SIZES; do
  line=$("$BENCH" "$n" "$work/site-$n")
  echo "$line"
  map=$(sed -E 's/.* map_ms=([0-9.]+).*/\1/' <<<"$line")
  check=$(sed -E 's/.* check_ms=([0-9.]+).*/\1/' <<<"$line")
  deleted=$(sed -E 's/.*check_after_delete_ms=([0-9.]+).*/\1/' <<<"$line")
  total=$(awk -v a="$map" -v b="$check" -v c="$deleted" 'BEGIN { print a + b + c }')
  if [[ -z "$ref_ms" ]]; then
    ref_ms=$total
    ref_pages=$n
  else
    awk -v t="$total" -v r="$ref_ms" -v n="$n" -v rn="$ref_pages" 'BEGIN {
      printf "  %dx the pages of the reference: %.1fx its time (target: within %.1fx)\n", n / rn, t / r, 1.2 * n / rn }'
  fi
done
