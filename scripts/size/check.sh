#!/usr/bin/env bash
# Units a reader can hold (docs/architecture.md, "Code style"): no source file
# under src/ over 700 lines, and no function over 100 lines, counted as
# universal-ctags counts one (its first to its last line, lambdas inside it
# included). Prints each unit over its limit and fails; prints nothing and
# succeeds otherwise.
#   scripts/size/check.sh [DIR...]      (default: src)
set -euo pipefail
cd "$(dirname "$0")/../.."
max_file=${DW_MAX_FILE_LINES:-700}
max_function=${DW_MAX_FUNCTION_LINES:-100}
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(src)

command -v ctags >/dev/null || { echo "size: ctags (universal-ctags) not found" >&2; exit 2; }
ctags --version 2>/dev/null | grep -q 'Universal Ctags' ||
  { echo "size: ctags is not universal-ctags" >&2; exit 2; }

over=0
while IFS= read -r file; do
  lines=$(wc -l <"$file")
  if [ "$lines" -gt "$max_file" ]; then
    echo "size: $file has $lines lines (at most $max_file)"
    over=1
  fi
done < <(find "${dirs[@]}" -type f \( -name '*.cc' -o -name '*.h' \) | sort)

# f: function definitions; their end line comes from the `end` field.
while read -r first last name file; do
  n=$((last - first + 1))
  if [ "$n" -gt "$max_function" ]; then
    echo "size: $file:$first: $name has $n lines (at most $max_function)"
    over=1
  fi
done < <(ctags -R --languages=C++ --kinds-C++=f --fields=+ne -x \
           --_xformat='%{line} %{end} %N %F' "${dirs[@]}" | sort -k4,4 -k1,1n)
exit $over
