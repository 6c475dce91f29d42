#!/usr/bin/env bash
# What `cmake --install` puts down is a working service: the binary, a systemd
# unit whose ExecStart names that binary where it was installed, and the
# environment file's template, listing every variable the service reads and
# setting none. The unit must pass `systemd-analyze verify`, which works on
# the file alone (no running systemd needed).
#   tests/packaging/install_test.sh BUILD_DIR
# Exits 77 (skipped) without systemd-analyze, unless CI or
# DOCWRIGHT_REQUIRE_TEST_TOOLS is set: then that fails.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "${1:?usage: install_test.sh BUILD_DIR}" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }

# The install dirs this build was configured with.
cached() {
  sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"
}
bindir="$(cached CMAKE_INSTALL_BINDIR)"
unitdir="$(cached DW_SYSTEMD_UNIT_DIR)"
sysconfdir="$(cached CMAKE_INSTALL_SYSCONFDIR)"
[ -n "$bindir" ] && [ -n "$unitdir" ] && [ -n "$sysconfdir" ] ||
  fail "$build/CMakeCache.txt names no install dirs (CMAKE_INSTALL_BINDIR, DW_SYSTEMD_UNIT_DIR, CMAKE_INSTALL_SYSCONFDIR)"
# An absolute one would be written outside the temp prefix, on this machine.
for d in "$bindir" "$unitdir" "$sysconfdir"; do
  case "$d" in /*) skip "$build installs into $d, outside any prefix: not installed here" ;; esac
done

prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
  fail "cmake --install failed: $(cat "$work/install.log")"
bin="$prefix/$bindir/docwright"
unit="$prefix/$unitdir/docwright.service"
env="$prefix/$sysconfdir/docwright/docwright.env.example"
[ -x "$bin" ] || fail "no executable $bin"
[ -f "$unit" ] || fail "no unit $unit"
[ -f "$env" ] || fail "no environment template $env"
[ ! -e "$prefix/$sysconfdir/docwright/docwright.env" ] ||
  fail "the install wrote docwright.env itself: it would overwrite the operator's settings"
"$bin" serve --help >/dev/null || fail "the installed $bin does not run"

# ExecStart names the installed binary, by its absolute path.
exec_start="$(sed -n 's/^ExecStart=//p' "$unit")"
[ "$(printf '%s\n' "$exec_start" | wc -l)" -eq 1 ] || fail "not one ExecStart in $unit"
exec_bin="${exec_start%% *}"
case "$exec_bin" in /*) ;; *) fail "ExecStart's binary is not an absolute path: $exec_bin" ;; esac
[ "$(realpath -m "$exec_bin")" = "$(realpath "$bin")" ] ||
  fail "ExecStart runs $exec_bin, not the installed $bin"
case "$exec_start" in *" serve "*) ;; *) fail "ExecStart does not run serve: $exec_start" ;; esac

# The template sets nothing (every line a comment), so it can never ship a
# value, let alone a secret; and it names every variable serve and worker read.
# Only line numbers and names are shown: a value set there may be a real key.
if grep -vnE '^[[:space:]]*(#|$)' "$env" | cut -d= -f1 >"$work/set" && [ -s "$work/set" ]; then
  fail "the environment template sets variables (line:name): $(tr '\n' ' ' <"$work/set")"
fi
for v in $(grep -ohE '"DOCWRIGHT_[A-Z_]+"' "$root/src/cli/serve_command.cc" \
             "$root/src/cli/common.cc" "$root/src/core/crash_point.cc" | tr -d '"' | sort -u); do
  grep -qE "(^|[^A-Z_])$v([^A-Z_]|$)" "$env" || fail "the environment template does not mention $v"
done

if ! command -v systemd-analyze >/dev/null 2>&1; then
  msg="systemd-analyze not found (Debian package systemd; ./dw test installs it): the unit is not verified"
  [ -z "${CI+set}${DOCWRIGHT_REQUIRE_TEST_TOOLS+set}" ] || fail "$msg"
  skip "$msg"
fi
# verify exits 0 on a setting it ignores (an unknown key, a bad value), so any
# word about the unit counts as an error too; lines about other units (its
# dependencies on this machine) are shown, not counted.
rc=0
systemd-analyze verify "$unit" >"$work/verify.log" 2>&1 || rc=$?
cat "$work/verify.log" >&2
[ $rc -eq 0 ] || fail "systemd-analyze verify $unit exited $rc"
! grep -q 'docwright\.service' "$work/verify.log" ||
  fail "systemd-analyze verify reports problems in the unit (above)"
echo "ok"
