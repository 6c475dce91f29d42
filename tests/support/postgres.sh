#!/usr/bin/env bash
# The PostgreSQL server of a test run: Debian's binaries (the highest
# /usr/lib/postgresql/*/bin, or DOCWRIGHT_POSTGRES_BIN), a throwaway cluster in a
# fresh /tmp/docwright-pg.XXXXXX, reached only through a Unix socket in that
# directory (no TCP), trust auth for the superuser `docwright`. Run as root (CI), the cluster belongs to nobody,
# since initdb and postgres refuse root; /tmp is where nobody can reach it.
# fsync and full-page writes are off: the tests kill docwright, never the
# database, and the cluster is thrown away after the run. DOCWRIGHT_PG_FSYNC=on
# keeps them on, as a production server has them (the benchmarks do).
# DOCWRIGHT_PG_EXTRA_CONF: more lines for postgresql.conf (a benchmark's logging, say).
#   tests/support/postgres.sh start STATE_DIR   start one, unless STATE_DIR/url names
#                                               one that answers; STATE_DIR/url then holds
#                                               the admin URL, STATE_DIR/data the temp dir
#   tests/support/postgres.sh stop STATE_DIR    stop it and remove the temp dir (no
#                                               server: nothing to do)
# STATE_DIR/lock serialises starts and stops on one state dir.
# ctest runs these as the fixture PostgresServer.Start/Stop (tests/CMakeLists.txt);
# support/postgres_database.cc runs them when a test binary is run by hand.
set -euo pipefail

usage() {
  echo "usage: $0 start|stop STATE_DIR" >&2
  exit 2
}
[ $# -eq 2 ] || usage
case "$1" in start | stop) ;; *) usage ;; esac
cmd="$1"
mkdir -p "$2"
state="$(cd "$2" && pwd)"

bin="${DOCWRIGHT_POSTGRES_BIN:-$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin \
  -type d 2>/dev/null | sort -V | tail -n 1)}"
if [ -z "$bin" ] || [ ! -x "$bin/pg_ctl" ]; then
  # No server installed: nothing to stop; and to start, a failure only under
  # ./dw test and CI. Elsewhere the tests that need it skip (they find no url),
  # and the other tests, which ctest holds back when a fixture fails, still run.
  [ "$cmd" = start ] || exit 0
  rm -f "$state/url" "$state/data"
  echo "postgres.sh: no PostgreSQL server in ${bin:-/usr/lib/postgresql/*/bin}" \
    "(Debian package postgresql; ./dw test installs it)" >&2
  [ -z "${CI:-}${DOCWRIGHT_REQUIRE_TEST_TOOLS:-}" ] || exit 1
  exit 0
fi

# Runs a server binary as the owner of the cluster: nobody when we are root.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"
  else
    "$@"
  fi
}

# Runs "$@" with only file descriptors 0-2 open: the server pg_ctl leaves running
# would hold any other open all its life (our lock on the state dir, a pipe of
# whoever ran this script, which would then wait for its end).
without_other_fds() {
  (
    for fd in /proc/self/fd/*; do
      fd="${fd##*/}"
      [ "$fd" -le 2 ] || eval "exec $fd>&-"
    done
    "$@"
  )
}

# The temp dir named by STATE_DIR/data, if it is one of ours (it is removed).
recorded_data() {
  local data
  data="$(cat "$state/data" 2>/dev/null || true)"
  case "$data" in
    /tmp/docwright-pg.*) [ -d "$data" ] && echo "$data" ;;
  esac
  return 0
}

# Stops the cluster in temp dir $1 if it runs (fast: its sessions are ended),
# then removes the dir.
stop_cluster() {
  local data="$1"
  if (cd "$data" && as_owner "$bin/pg_ctl" -D "$data/db" status >/dev/null 2>&1); then
    (cd "$data" && as_owner "$bin/pg_ctl" -D "$data/db" stop -m fast -w -t 60 >/dev/null 2>&1) ||
      (cd "$data" && as_owner "$bin/pg_ctl" -D "$data/db" stop -m immediate -w -t 30 >/dev/null) ||
      true
  fi
  rm -rf "$data"
}

# One start or stop at a time on a state dir.
exec 9>"$state/lock"
flock 9

case "$cmd" in
  start)
    if [ -f "$state/url" ] && "$bin/pg_isready" -q -t 5 -d "$(cat "$state/url")"; then
      exit 0
    fi
    # A server named here that no longer answers: clear what is left of it.
    old="$(recorded_data)"
    [ -z "$old" ] || stop_cluster "$old"
    rm -f "$state/url" "$state/data"

    data="$(mktemp -d /tmp/docwright-pg.XXXXXX)"
    started=0
    # Says what failed with the log that tells why (initdb's, or the server's).
    fail() {
      echo "postgres.sh: $1" >&2
      local log="$data/log"
      [ $started -eq 1 ] || log="$data/initdb.log"
      if [ -s "$log" ]; then
        echo "---- $log" >&2
        tail -n 100 "$log" >&2
      fi
      [ $started -eq 0 ] || stop_cluster "$data"
      rm -rf "$data"
      exit 1
    }
    [ "$(id -u)" -ne 0 ] || chown nobody:nogroup "$data"
    cd "$data"
    as_owner "$bin/initdb" -D "$data/db" -U docwright --auth=trust -E UTF8 --locale=C -N \
      >"$data/initdb.log" 2>&1 || fail "initdb failed"
    cat >>"$data/db/postgresql.conf" <<EOF

# docwright tests (tests/support/postgres.sh)
listen_addresses = ''
unix_socket_directories = '$data'
port = 5432
max_connections = 500
shared_buffers = 64MB
fsync = ${DOCWRIGHT_PG_FSYNC:-off}
full_page_writes = ${DOCWRIGHT_PG_FSYNC:-off}
${DOCWRIGHT_PG_EXTRA_CONF:-}
EOF
    started=1
    without_other_fds as_owner "$bin/pg_ctl" -D "$data/db" -l "$data/log" -w -t 60 start \
      >/dev/null 2>&1 ||
      fail "the server did not start"
    url="postgresql://docwright@/postgres?host=$data"
    "$bin/pg_isready" -q -t 10 -d "$url" || fail "the server does not answer at $url"
    echo "$data" >"$state/data"
    echo "$url" >"$state/url.new"
    mv "$state/url.new" "$state/url"
    ;;
  stop)
    data="$(recorded_data)"
    [ -z "$data" ] || stop_cluster "$data"
    rm -f "$state/url" "$state/data"
    ;;
esac
