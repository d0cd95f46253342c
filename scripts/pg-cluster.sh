#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on a loopback port, for the tests: `eval "$(scripts/pg-cluster.sh start PORT)"`
# prints the exports (ROUNDTABLE_TEST_PG_URL, ROUNDTABLE_TEST_PG_DIR); `scripts/pg-cluster.sh stop DIR` stops and removes it.
# PostgreSQL refuses to run as root, so the cluster runs as the `postgres` user, in a folder of its own.
set -euo pipefail
B=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
case "${1:-}" in
  start)
    port=${2:-55433}
    d=$(mktemp -d /tmp/roundtable-pg-XXXXXX)
    chown postgres "$d"
    runuser -u postgres -- "$B/initdb" -D "$d/data" -A trust -U postgres >/dev/null
    # fsync stays on: the durability tests and the bench measure what a real deployment does.
    runuser -u postgres -- "$B/pg_ctl" -D "$d/data" -o "-p $port -k $d -c listen_addresses=127.0.0.1 -c max_connections=300" -l "$d/log" -w start >/dev/null
    echo "export ROUNDTABLE_TEST_PG_URL=postgres://postgres@127.0.0.1:$port/postgres ROUNDTABLE_TEST_PG_DIR=$d"
    ;;
  stop)
    d=${2:?usage: pg-cluster.sh stop DIR}
    runuser -u postgres -- "$B/pg_ctl" -D "$d/data" -m fast -w stop >/dev/null || true
    rm -rf "$d"
    ;;
  *)
    echo "usage: pg-cluster.sh start [PORT] | stop DIR" >&2
    exit 2
    ;;
esac
