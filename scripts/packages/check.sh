#!/usr/bin/env bash
# Does `./dw` install everything a build and the test stages use?
#
# A build that passes where someone once installed a package by hand fails on a
# fresh machine. This finds every file from outside the source tree that a build
# read (headers, from ninja's dependency log) or linked (libraries on the link
# lines), and every tool the test stages run, finds the Debian package that owns
# each (dpkg's database), and checks that the package is one `./dw` installs:
# the declared packages and everything they Depend on, recursively (Recommends
# are not installed: ./dw installs with --no-install-recommends). Packages every
# Debian system has (Essential: yes, or Priority: required) count as installed.
#
#   scripts/packages/check.sh --packages "P1 P2 ..." [--build DIR]... [--tool NAME]...
#
# --build DIR   a configured and built ninja build directory (repeatable)
# --tool NAME   a command the test stages run: a name looked up in PATH, or an
#               absolute path; a glob names every match (repeatable)
# Prints one line per problem, naming the package to add, and exits 1 if there
# is any; exits 0 silently otherwise (2: bad usage or a tool of its own missing).
set -euo pipefail

declared=()
builds=()
tools=()
while [ $# -gt 0 ]; do
  case "$1" in
    --packages) read -r -a declared <<<"${2:?--packages needs a list}"; shift 2 ;;
    --build) builds+=("${2:?--build needs a directory}"); shift 2 ;;
    --tool) tools+=("${2:?--tool needs a name}"); shift 2 ;;
    *) echo "check.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ ${#declared[@]} -gt 0 ] || { echo "check.sh: --packages is empty" >&2; exit 2; }
for t in dpkg-query apt-cache ninja; do
  command -v "$t" >/dev/null || { echo "check.sh: $t is needed" >&2; exit 2; }
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# --- What ./dw installs: the declared packages, their Depends, and the base system.
apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
  --no-replaces --no-enhances "${declared[@]}" 2>/dev/null |
  awk '!/^ / { sub(/:.*/, ""); print }' >"$work/closure"
# A virtual package (<name>) is satisfied by its providers, which apt-cache
# lists as its dependencies above; the name alone is kept for completeness.
printf '%s\n' "${declared[@]}" >>"$work/closure"
dpkg-query -W -f='${Package} ${Essential} ${Priority}\n' |
  awk '$2 == "yes" || $3 == "required" { print $1 }' >>"$work/closure"
sed -e 's/^<\(.*\)>$/\1/' "$work/closure" | sort -u >"$work/installed"

# --- What was used: files from outside the tree.
: >"$work/files"
for b in "${builds[@]}"; do
  [ -f "$b/build.ninja" ] || { echo "check.sh: no $b/build.ninja (build first)" >&2; exit 2; }
  # Headers the compiler read, but the build's own (its source and build trees).
  bdir="$(cd "$b" && pwd)"
  sdir="$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$b/CMakeCache.txt" 2>/dev/null)"
  ninja -C "$b" -t deps 2>/dev/null | awk -v b="$bdir/" -v s="${sdir:-$bdir}/" \
    '/^    \// && index($1, b) != 1 && index($1, s) != 1 { print $1 }' >>"$work/files" || true
  # Libraries the linker was given, by path or by -lNAME.
  ninja -C "$b" -t commands 2>/dev/null | grep -E ' -o [^ ]+ ' | tr ' ' '\n' >"$work/words" || true
  grep -E '^/usr/.*\.(so|a)(\.[0-9.]+)?$' "$work/words" >>"$work/files" || true
  for name in $(sed -n 's/^-l\([A-Za-z0-9_+.-]*\)$/\1/p' "$work/words" | sort -u); do
    found=""
    for ext in so a; do
      path="$(${CXX:-c++} -print-file-name="lib$name.$ext" 2>/dev/null || true)"
      if [ -n "$path" ] && [ "$path" != "lib$name.$ext" ] && [ -e "$path" ]; then
        found="$(realpath -s "$path")"
        break
      fi
    done
    if [ -z "$found" ]; then
      echo "-l$name: no such library on this machine" >>"$work/problems"
    else
      echo "$found" >>"$work/files"
    fi
  done
done
for t in "${tools[@]}"; do
  matched=0
  if [[ "$t" == /* ]]; then
    for p in $t; do [ -e "$p" ] && { echo "$p" >>"$work/files"; matched=1; }; done
  else
    p="$(command -v "$t" || true)"
    [ -n "$p" ] && { echo "$p" >>"$work/files"; matched=1; }
  fi
  [ $matched -eq 1 ] || echo "tool $t: not found on this machine" >>"$work/problems"
done
sort -u -o "$work/files" "$work/files"

# --- Who owns each file. dpkg knows a file by the path its package shipped; a
# file reached through a symbolic link (multiarch aliases, alternatives) is asked
# for again by its real path, and, /usr being merged, by its path without /usr
# (packages of Debian 12 still list /lib/... and /bin/...). One dpkg-query for
# all of them: thousands of headers, one read of the database.
owners() { # files on stdin -> "path<TAB>pkg" lines for those dpkg knows
  # (dpkg-query fails when some path is unknown: those are looked at below)
  { tr '\n' '\0' | xargs -0 -r dpkg-query -S 2>/dev/null || true; } |
    awk '{ i = index($0, ": /"); pk = substr($0, 1, i - 1); path = substr($0, i + 2)
           n = split(pk, a, ", "); for (k = 1; k <= n; k++) { sub(/:.*/, "", a[k]); print path "\t" a[k] } }'
}
owners <"$work/files" >"$work/owned"
cut -f1 "$work/owned" | sort -u >"$work/known"
: >"$work/aliases"
comm -23 "$work/files" "$work/known" | while IFS= read -r f; do
  real="$(realpath "$f" 2>/dev/null || echo "$f")"
  printf '%s\t%s\n' "$f" "$real"
  [[ "$real" != /usr/* ]] || printf '%s\t%s\n' "$f" "${real#/usr}"
done >"$work/aliases"
cut -f2 "$work/aliases" | sort -u | owners >"$work/owned2"
# Back from the alias to the file the build used.
awk -F'\t' 'NR == FNR { by[$1] = by[$1] " " $2; next }
             ($2 in by) { n = split(by[$2], a, " "); for (k = 1; k <= n; k++) print $1 "\t" a[k] }' \
  "$work/owned2" "$work/aliases" >>"$work/owned"

# Each file: fine if any owner is installed; else the owner to add.
awk -F'\t' -v installed="$work/installed" -v files="$work/files" '
  BEGIN { while ((getline p < installed) > 0) ok[p] = 1 }
  { if ($2 in ok) good[$1] = 1; else if (!($1 in need)) need[$1] = $2 }
  END {
    while ((getline f < files) > 0) {
      if (f in good) continue
      if (f in need) print need[f] ": not installed by ./dw (used: " f ")"
      else print f ": belongs to no Debian package (installed by hand?)"
    }
  }' "$work/owned" >>"$work/problems"

if [ -s "$work/problems" ]; then
  # One line per missing package, with the first file that needs it.
  sort -u -t: -k1,1 "$work/problems" | sed 's/^/check.sh: /' >&2
  exit 1
fi
