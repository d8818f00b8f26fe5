#!/usr/bin/env bash
# A throwaway Postgres cluster for the sync tests and benchmarks.
#
#   pg-cluster.sh start DIR [PORT]   create (first time) and start; prints `export ...` lines for eval
#   pg-cluster.sh stop DIR           stop it and remove DIR
#   pg-cluster.sh restart DIR        restart with the same settings
#   pg-cluster.sh url DIR            print the `export ...` lines again
#
# Usage: eval "$(scripts/pg-cluster.sh start /tmp/pgdev)"
# PG_DURABLE=1 keeps Postgres's durable defaults (fsync on), for benchmarks.
set -euo pipefail

PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}

die() { echo "pg-cluster.sh: $*" >&2; exit 1; }

# Postgres refuses to run as root; as root we run its binaries as the `postgres` user.
as_pg() {
    if [[ $EUID -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# The eval-able lines; the password is hex, so it needs no URL escaping.
print_url() {
    local dir=$1 port password
    port=$(cat "$dir/port")
    password=$(cat "$dir/admin-password")
    echo "export DIARY_TEST_PG_URL=postgres://diary_admin:$password@127.0.0.1:$port/diary_test"
    echo "export DIARY_TEST_PG_DIR=$dir"
}

# A port nothing answers on: bash's /dev/tcp connect fails when the port is free.
free_port() {
    local port
    for port in $(seq 55432 55999); do
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return; fi
    done
    die "no free port between 55432 and 55999"
}

# Descriptors the caller left open (a test runner's pipes and sockets) would pass on to the
# server: it counts them against its own file limit (and refuses to start past ~950) and
# would hold the caller's pipes open. The server gets 0-2 only; 255 is bash's own script.
close_inherited() {
    local fd
    for fd in /proc/$$/fd/*; do
        fd=${fd##*/}
        if [[ $fd -gt 2 && $fd -ne 255 ]]; then eval "exec $fd>&-" 2>/dev/null || true; fi
    done
}

is_running() { as_pg "$PG_BIN/pg_ctl" -D "$1/data" status >/dev/null 2>&1; }

start() {
    local dir=$1 port=${2:-}
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)   # the socket directory setting needs an absolute path
    if [[ ! -f "$dir/data/PG_VERSION" ]]; then
        [[ -n "$port" ]] || port=$(free_port)
        echo "$port" >"$dir/port"
        # The cluster's files, socket and password file must belong to the server's user;
        # root can still read the password file (mode 0600 only keeps other users out).
        [[ $EUID -eq 0 ]] && chown postgres: "$dir"
        (umask 077; od -An -tx1 -N16 /dev/urandom | tr -d ' \n' >"$dir/admin-password")
        [[ $EUID -eq 0 ]] && chown postgres: "$dir/admin-password"
        # Byte-order text comparisons everywhere (HLC strings rely on it); C.UTF-8 when the
        # system has it, plain C otherwise.
        local locale=C
        locale -a 2>/dev/null | grep -qix 'c\.utf-\?8' && locale=C.UTF-8
        as_pg "$PG_BIN/initdb" -D "$dir/data" -U diary_admin --pwfile="$dir/admin-password" \
            --auth-local=scram-sha-256 --auth-host=scram-sha-256 -E UTF8 --locale="$locale" >"$dir/initdb.log" 2>&1 \
            || { cat "$dir/initdb.log" >&2; die "initdb failed"; }
        # Settings go into postgresql.conf so that a restart keeps them: only loopback, the
        # socket inside DIR (not /var/run, which may not exist or be shared), and for a
        # test server no waiting on the disk.
        {
            echo "listen_addresses = '127.0.0.1'"
            echo "port = $port"
            echo "unix_socket_directories = '$dir'"
            echo "max_connections = 200"
            if [[ "${PG_DURABLE:-}" != 1 ]]; then
                echo "fsync = off"
                echo "synchronous_commit = off"
                echo "full_page_writes = off"
            fi
        } | as_pg tee -a "$dir/data/postgresql.conf" >/dev/null
    fi
    port=$(cat "$dir/port")
    if ! is_running "$dir"; then
        as_pg "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -s start >/dev/null \
            || { tail -20 "$dir/server.log" >&2; die "the server did not start (port $port taken?)"; }
    fi
    # The test database, once (re-running start must not fail).
    local psql=(psql -X -q -At -h "$dir" -p "$port" -U diary_admin -d postgres)
    if [[ -z $(PGPASSWORD=$(cat "$dir/admin-password") "${psql[@]}" -c "SELECT 1 FROM pg_database WHERE datname = 'diary_test'") ]]; then
        PGPASSWORD=$(cat "$dir/admin-password") "${psql[@]}" -c "CREATE DATABASE diary_test"
    fi
    print_url "$dir"
}

stop() {
    local dir=$1
    [[ -d "$dir" ]] || return 0
    rmdir "$dir" 2>/dev/null && return 0   # empty (a start that failed early): just remove it
    # Remove only what looks like one of our clusters, never an arbitrary folder.
    [[ -f "$dir/admin-password" || -f "$dir/data/PG_VERSION" ]] || die "$dir is not a cluster made by this script"
    if [[ -f "$dir/data/PG_VERSION" ]] && is_running "$dir"; then
        as_pg "$PG_BIN/pg_ctl" -D "$dir/data" -m fast -w -s stop >/dev/null
    fi
    rm -rf "$dir"
}

restart() {
    local dir=$1
    [[ -f "$dir/data/PG_VERSION" ]] || die "no cluster in $dir"
    as_pg "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m fast -w -s restart >/dev/null \
        || { tail -20 "$dir/server.log" >&2; die "the server did not restart"; }
}

close_inherited
[[ $# -ge 2 ]] || die "usage: pg-cluster.sh start DIR [PORT] | stop DIR | restart DIR | url DIR"
case $1 in
    start) start "$2" "${3:-}" ;;
    stop) stop "$2" ;;
    restart) restart "$2" ;;
    url) [[ -f "$2/port" ]] || die "no cluster in $2"; print_url "$(cd "$2" && pwd)" ;;
    *) die "unknown command $1" ;;
esac
