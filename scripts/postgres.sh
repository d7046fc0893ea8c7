#!/usr/bin/env bash
# Starts or stops a throw-away PostgreSQL server on loopback for the test suite.
#   scripts/postgres.sh start DIR PORT   initdb + pg_ctl start as user postgres; prints the URL
#   scripts/postgres.sh stop DIR         pg_ctl stop and remove DIR
# Installs Debian's postgresql package first when no server binaries are found.
set -euo pipefail

find_bindir() {
  local dir
  for dir in /usr/lib/postgresql/*/bin; do
    [ -x "$dir/initdb" ] && { echo "$dir"; return 0; }
  done
  return 1
}

run_as_postgres() {
  if [ "$(id -un)" = postgres ]; then "$@"; else runuser -u postgres -- "$@"; fi
}

cmd=${1:?usage: postgres.sh start DIR PORT | stop DIR}
dir=${2:?missing DIR}
case "$cmd" in
  start)
    port=${3:?missing PORT}
    if ! bindir=$(find_bindir); then
      echo "PostgreSQL not found: installing Debian's postgresql package" >&2
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq >&2
      apt-get install -y -qq postgresql >&2
      bindir=$(find_bindir)
    fi
    id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
    mkdir -p "$dir"
    chown postgres "$dir"
    chmod 700 "$dir"
    run_as_postgres "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    run_as_postgres "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" start >&2 \
      || { cat "$dir/server.log" >&2; exit 1; }
    run_as_postgres "$bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -qc 'create database appstore_test' >&2
    echo "postgres://postgres@127.0.0.1:$port/appstore_test"
    ;;
  stop)
    if bindir=$(find_bindir) && [ -d "$dir/data" ]; then
      run_as_postgres "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
    fi
    rm -rf "$dir"
    ;;
  *)
    echo "usage: postgres.sh start DIR PORT | stop DIR" >&2
    exit 2
    ;;
esac
