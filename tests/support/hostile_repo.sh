#!/usr/bin/env bash
# Small bare git repositories of pathological shapes, for the tests that attack
# the service with them. Each shape is small on disk and quick to build (git
# stores a repeated object once), but expensive for a naive reader: one that
# walks every path, reads every blob, checks out the tree or lists every ref.
# Built with git plumbing only (hash-object, mktree, commit-tree, update-ref, a
# packed-refs file written directly), so nothing ever materialises the expensive
# view; needs bash, coreutils and git.
#
#   tests/support/hostile_repo.sh DIR SHAPE [OPTIONS]
#
# creates the bare repository DIR (which must not exist or be empty) and prints
# the id of its one commit, on `main` (HEAD -> refs/heads/main). The commit's
# root tree holds a small `index.md` ("# Home\n\nWelcome.\n") besides the
# shape, so that a tool that looks at the site still finds a page. Identity and
# dates are fixed: the same arguments give the same commit id.
#
# SHAPES (every number is decimal; defaults in parentheses)
#   tree-bomb --leaf file|link|submodule [--fanout N (1000)] [--depth D (3)]
#             [--under NAME (bomb)]
#       NAME/ holds N^D leaves in D+1 trees: each of the D-1 directory levels
#       has N entries d0000.. all naming the same tree below, the deepest tree
#       has N leaves f0000.md.. (names zero-padded to 4 digits, or more when N
#       needs them). A leaf is `file` (100644, one blob "x\n"), `link` (120000,
#       a symlink to "index.md", dangling: there is none beside it) or
#       `submodule` (160000, a gitlink to a commit the repository does not
#       hold). Default: 10^9 paths. Never `ls-tree -r` or check it out.
#   one-blob [--paths N (20000)] [--size BYTES (1048576)] [--per-dir K (1000)]
#       N paths many/p0000/page00000.md.. (K to a folder) naming one blob of
#       BYTES bytes of distinct text lines: N*BYTES bytes (20 GB) to read.
#   big-file [--size BYTES (41943040)] [--path PATH (big/data.md)]
#       one text file of exactly BYTES bytes, in 12-byte lines "row 0000001\n"..
#       (wider past 10^7 rows; a last, shorter line of dots when BYTES is not a
#       multiple of the line length).
#   deep [--depth N (2000)]
#       deep.md under N nested directories: n/n/.../n/deep.md, a path of
#       2N+7 bytes (4007: under PATH_MAX, it can be checked out). Git from 2.43
#       refuses trees deeper than core.maxTreeDepth, 2048 by default.
#   long-names [--count N (1000)] [--length L (250)]
#       N files in long/, with distinct names of L bytes (number, then a's,
#       then .md), naming one small blob. Names over 255 bytes (NAME_MAX) are
#       valid in git but cannot be checked out.
#   wide [--entries N (600000)]
#       one folder wide/ of N entries f0000000.md.. naming one small blob: a
#       single tree object of about 39*N bytes (23 MB), a few hundred KB packed.
#   many-refs [--count N (100000)]
#       N more branches, refs/heads/b/000000.., all at the main commit, in a
#       packed-refs file.
set -euo pipefail
shopt -s inherit_errexit

usage() {
  [ $# -eq 0 ] || echo "hostile_repo.sh: $*" >&2
  cat >&2 <<'EOF'
usage: hostile_repo.sh DIR SHAPE [OPTIONS]
  tree-bomb --leaf file|link|submodule [--fanout N] [--depth D] [--under NAME]
  one-blob [--paths N] [--size BYTES] [--per-dir K]
  big-file [--size BYTES] [--path PATH]
  deep [--depth N]
  long-names [--count N] [--length L]
  many-refs [--count N]
  wide [--entries N]
EOF
  exit 2
}

die() {
  echo "hostile_repo.sh: $*" >&2
  exit 1
}

# --- arguments ---------------------------------------------------------------

[ $# -ge 2 ] || usage
dir=$1 shape=$2
shift 2

declare -A opt
case "$shape" in
  tree-bomb) opt=([leaf]='' [fanout]=1000 [depth]=3 [under]=bomb) ;;
  one-blob) opt=([paths]=20000 [size]=1048576 [per-dir]=1000) ;;
  big-file) opt=([size]=41943040 [path]=big/data.md) ;;
  deep) opt=([depth]=2000) ;;
  long-names) opt=([count]=1000 [length]=250) ;;
  many-refs) opt=([count]=100000) ;;
  wide) opt=([entries]=600000) ;;
  *) usage "unknown shape: $shape" ;;
esac
while [ $# -gt 0 ]; do
  [[ $1 =~ ^--([a-z-]+)$ && -v "opt[${BASH_REMATCH[1]}]" ]] || usage "$shape takes no option $1"
  [ $# -ge 2 ] || usage "$1 needs a value"
  opt[${1#--}]=$2
  shift 2
done

# check_number NAME MIN: opt[NAME] is a decimal number >= MIN; strips leading 0s.
check_number() {
  if ! [[ ${opt[$1]} =~ ^[0-9]{1,15}$ ]] || ((10#${opt[$1]} < $2)); then
    usage "--$1 must be a number >= $2, not '${opt[$1]}'"
  fi
  opt[$1]=$((10#${opt[$1]}))
}

# check_path NAME: opt[NAME] is a relative path of plain names (no ., .., .git,
# nothing mktree would unquote), and does not clash with index.md.
check_path() {
  local part parts
  IFS=/ read -ra parts <<<"${opt[$1]}"
  [[ ${opt[$1]} =~ ^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$ && ${parts[0]} != index.md ]] ||
    usage "--$1 must be a relative path of [A-Za-z0-9._-] names other than index.md"
  for part in "${parts[@]}"; do
    [[ $part != . && $part != .. && ${part,,} != .git ]] || usage "--$1 may not hold '$part'"
  done
}

case "$shape" in
  tree-bomb)
    [[ ${opt[leaf]} =~ ^(file|link|submodule)$ ]] || usage "--leaf must be file, link or submodule"
    check_number fanout 1
    check_number depth 1
    check_path under
    [[ ${opt[under]} != */* ]] || usage "--under must be a single name"
    ;;
  one-blob)
    check_number paths 1
    check_number size 0
    check_number per-dir 1
    ;;
  big-file)
    check_number size 0
    check_path path
    ;;
  deep) check_number depth 1 ;;
  long-names)
    check_number count 1
    check_number length 1
    last=$((opt[count] - 1))
    ((opt[length] >= ${#last} + 3)) ||
      usage "--length must be at least $((${#last} + 3)) for ${opt[count]} names"
    ;;
  many-refs) check_number count 1 ;;
  wide) check_number entries 1 ;;
esac

if [ -e "$dir" ]; then
  [ -d "$dir" ] || die "$dir exists and is not a directory"
  [ -z "$(ls -A "$dir")" ] || die "$dir exists and is not empty"
fi

# --- git ---------------------------------------------------------------------

# A fixed identity and date, and no user or system configuration (signing,
# hooks, templates), so that the same arguments give the same commit.
export GIT_AUTHOR_NAME='docwright tests' GIT_AUTHOR_EMAIL='tests@docwright.invalid'
export GIT_COMMITTER_NAME='docwright tests' GIT_COMMITTER_EMAIL='tests@docwright.invalid'
export GIT_AUTHOR_DATE='1700000000 +0000' GIT_COMMITTER_DATE='1700000000 +0000'
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_COMMON_DIR GIT_INDEX_FILE \
  GIT_WORK_TREE GIT_NAMESPACE GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT

git init -q --bare --template= -b main "$dir"
GIT_DIR=$(cd "$dir" && pwd)
export GIT_DIR

# One `git mktree --batch` builds every tree: the deep shape needs thousands of
# them, one on top of the other, and a git process for each would take seconds.
# Its pipes are copied to plain descriptors, which (unlike a coproc's) reach
# the subshells of $(...) and pipelines. mktree sorts the entries itself, and
# lets gitlinks name commits it does not have (it checks every other object).
# It serves one tree at a time: nothing here builds two trees concurrently.
coproc MKTREE { git mktree --batch; }
mktree_pid=$! # MKTREE_PID goes when the coproc ends
exec {mktree_in}>&"${MKTREE[1]}" {mktree_out}<&"${MKTREE[0]}"
# Closed the way bash knows of (it sets MKTREE to -1), so that mktree sees its
# end of input when we close ours. shellcheck misreads the {MKTREE[i]} form.
# shellcheck disable=SC1083,SC2093
exec {MKTREE[1]}>&- {MKTREE[0]}<&-

# tree: stdin holds `git ls-tree` lines (no empty line); prints the tree id.
tree() {
  local id
  { cat && echo; } >&"$mktree_in"
  read -r id <&"$mktree_out"
  echo "$id"
}

# blob: writes stdin as a blob; prints its id.
blob() {
  git hash-object -w --stdin
}

# entries FIRST LAST FORMAT: the lines FORMAT % n for n = FIRST..LAST, where
# FORMAT holds one numeric conversion such as %04.0f (seq's format).
entries() {
  seq -f "$3" "$1" "$2"
}

# width N MIN: the digits of N-1, at least MIN: the zero-padded width of the
# numbers 0..N-1.
width() {
  local last=$(($1 - 1))
  echo $((${#last} > $2 ? ${#last} : $2))
}

# text BYTES PREFIX SUFFIX MIN: exactly BYTES bytes of distinct lines
# PREFIX<n>SUFFIX, n = 1, 2, ... zero-padded to one width (MIN digits or more),
# then, when BYTES is not a multiple of the line length, one shorter line of
# dots. seq stops on its own: piping it into `head -c` could kill it with
# SIGPIPE, which pipefail would report.
text() {
  local bytes=$1 prefix=$2 suffix=$3 digits=$4 len lines rest dots
  while :; do
    len=$((${#prefix} + digits + ${#suffix} + 1))
    lines=$((bytes / len))
    ((${#lines} > digits)) || break
    digits=${#lines}
  done
  if ((lines > 0)); then
    entries 1 "$lines" "$prefix%0$digits.0f$suffix"
  fi
  rest=$((bytes - lines * len))
  if ((rest > 0)); then
    printf -v dots '%*s' $((rest - 1)) ''
    printf '%s\n' "${dots// /.}"
  fi
}

# entry_at PATH MODE TYPE ID: the root tree's entry for PATH when PATH names
# ID, building the trees between bottom-up.
entry_at() {
  local parts entry id i
  IFS=/ read -ra parts <<<"$1"
  entry="$2 $3 $4"$'\t'"${parts[-1]}"
  for ((i = ${#parts[@]} - 2; i >= 0; i--)); do
    # tree's protocol, without its subshells: deep has thousands of levels.
    printf '%s\n\n' "$entry" >&"$mktree_in"
    read -r id <&"$mktree_out"
    entry="040000 tree $id"$'\t'"${parts[i]}"
  done
  echo "$entry"
}

# commit_main ENTRIES: commits on main a root tree of index.md and ENTRIES
# (ls-tree lines, maybe none); prints the commit id.
commit_main() {
  local index root commit
  index=$(printf '# Home\n\nWelcome.\n' | blob)
  root=$({
    printf '100644 blob %s\tindex.md\n' "$index"
    if [ -n "$1" ]; then printf '%s\n' "$1"; fi
  } | tree)
  commit=$(echo "hostile repository: $shape" | git commit-tree "$root")
  git update-ref refs/heads/main "$commit"
  echo "$commit"
}

# --- shapes (each prints the root tree's entries for the shape) --------------

tree_bomb() {
  local n=${opt[fanout]} w mode type id level sub
  w=$(width "$n" 4)
  case "${opt[leaf]}" in
    file) mode=100644 type=blob id=$(echo x | blob) ;;
    link) mode=120000 type=blob id=$(printf index.md | blob) ;;
    submodule) mode=160000 type=commit id=$(echo 'docwright: no such submodule commit' | git hash-object --stdin) ;;
  esac
  sub=$(entries 0 $((n - 1)) "$mode $type $id"$'\t'"f%0$w.0f.md" | tree)
  for ((level = 1; level < opt[depth]; level++)); do
    sub=$(entries 0 $((n - 1)) "040000 tree $sub"$'\t'"d%0$w.0f" | tree)
  done
  printf '040000 tree %s\t%s\n' "$sub" "${opt[under]}"
}

one_blob() {
  local n=${opt[paths]} k=${opt[per-dir]} id folders fw pw i first last sub many=()
  id=$(text "${opt[size]}" 'line ' ' of the same page: search me' 5 | blob)
  folders=$(((n + k - 1) / k))
  fw=$(width "$folders" 4)
  pw=$(width "$n" 5)
  for ((i = 0; i < folders; i++)); do
    first=$((i * k))
    last=$((first + k < n ? first + k - 1 : n - 1))
    sub=$(entries "$first" "$last" "100644 blob $id"$'\t'"page%0$pw.0f.md" | tree)
    printf -v "many[i]" "040000 tree %s\tp%0${fw}d" "$sub" "$i"
  done
  printf '040000 tree %s\tmany\n' "$(printf '%s\n' "${many[@]}" | tree)"
}

big_file() {
  local id
  id=$(text "${opt[size]}" 'row ' '' 7 | blob)
  entry_at "${opt[path]}" 100644 blob "$id"
}

deep() {
  local id path
  id=$(printf '# Deep\n\nAt the bottom.\n' | blob)
  printf -v path '%*s' "${opt[depth]}" ''
  entry_at "${path// /n/}deep.md" 100644 blob "$id"
}

long_names() {
  local n=${opt[count]} len=${opt[length]} w id pad
  w=$(width "$n" 1)
  id=$(printf '# Long\n\nA page with a long name.\n' | blob)
  printf -v pad '%*s' $((len - w - 3)) ''
  printf '040000 tree %s\tlong\n' \
    "$(entries 0 $((n - 1)) "100644 blob $id"$'\t'"%0$w.0f${pad// /a}.md" | tree)"
}

# Prints no entries: the refs come after the commit, in many_refs_pack.
wide() {
  local n=${opt[entries]} w id
  w=$(width "$n" 1)
  id=$(printf '# Wide\n' | blob)
  printf '040000 tree %s\twide\n' \
    "$(entries 0 $((n - 1)) "100644 blob $id"$'\t'"f%0$w.0f.md" | tree)"
}

many_refs() {
  :
}

# many_refs_pack COMMIT: writes packed-refs with the refs b/NNNNNN at COMMIT,
# sorted as git sorts them (byte order: the numbers are zero-padded).
many_refs_pack() {
  local n=${opt[count]} w
  w=$(width "$n" 6)
  {
    echo '# pack-refs with: peeled fully-peeled sorted '
    entries 0 $((n - 1)) "$1 refs/heads/b/%0$w.0f"
  } >"$GIT_DIR/packed-refs"
}

# --- main --------------------------------------------------------------------

# One after the other: the shape and commit_main share the one mktree.
shape_entries=$("${shape//-/_}")
commit=$(commit_main "$shape_entries")
[ "$shape" != many-refs ] || many_refs_pack "$commit"

exec {mktree_in}>&- {mktree_out}<&-
wait "$mktree_pid"
echo "$commit"
