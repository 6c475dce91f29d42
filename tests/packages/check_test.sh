#!/usr/bin/env bash
# scripts/packages/check.sh, the packages stage of ./dw test: it must fail,
# naming the package, when a build reads a header or links a library of a
# package outside the declared list, or a test stage runs a tool from one (or
# from no package at all), and pass when the list covers them.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
check="$root/scripts/packages/check.sh"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# A small project that includes <sqlite3.h> and links -lsqlite3 (libsqlite3-dev).
mkdir -p "$work/src"
cat >"$work/src/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(probe CXX)
add_executable(probe main.cc)
target_link_libraries(probe sqlite3)
CMAKE
cat >"$work/src/main.cc" <<'CC'
#include <sqlite3.h>
int main() { return sqlite3_libversion_number() > 0 ? 0 : 1; }
CC
cmake -S "$work/src" -B "$work/build" -G Ninja >/dev/null
cmake --build "$work/build" >/dev/null

base="build-essential cmake ninja-build"
cd "$root"

# 1. The library's package is not declared: the check fails and names it.
if scripts/packages/check.sh --packages "$base" --build "$work/build" 2>"$work/out"; then
  fail "a build using libsqlite3-dev passed with only '$base' declared"
fi
grep -q '^check.sh: libsqlite3-dev: not installed by ./dw' "$work/out" ||
  fail "the report does not name libsqlite3-dev: $(cat "$work/out")"

# 2. Declared: it passes.
"$check" --packages "$base libsqlite3-dev" --build "$work/build" 2>"$work/out" ||
  fail "a build covered by its packages failed: $(cat "$work/out")"

# 3. A test tool from an undeclared package fails; declared, passes.
if "$check" --packages "$base" --tool git 2>"$work/out"; then
  fail "git passed without the git package declared"
fi
grep -q '^check.sh: git: not installed by ./dw' "$work/out" || fail "git not named: $(cat "$work/out")"
"$check" --packages "$base git" --tool git 2>"$work/out" || fail "git declared, still: $(cat "$work/out")"

# 4. A tool no package installed (put there by hand) fails, as does a missing one.
printf '#!/bin/sh\n' >"$work/handmade" && chmod +x "$work/handmade"
if "$check" --packages "$base" --tool "$work/handmade" 2>"$work/out"; then
  fail "a hand-installed tool passed"
fi
grep -q 'belongs to no Debian package' "$work/out" || fail "hand install not named: $(cat "$work/out")"
if "$check" --packages "$base" --tool docwright-no-such-tool 2>"$work/out"; then
  fail "a missing tool passed"
fi
grep -q 'docwright-no-such-tool: not found' "$work/out" || fail "missing tool not named: $(cat "$work/out")"
echo "ok"
