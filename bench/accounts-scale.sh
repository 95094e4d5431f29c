#!/usr/bin/env bash
# The accounts backend on PostgreSQL and on two instances (issue 27; docs/OPERATIONS.md "Two instances on Redis and
# PostgreSQL behind nginx"), each beside its reference in the same run:
#   refresh  refresh grants per second (`POST /__/auth/token`, each answer's successor used next, 16 clients) on
#            PostgreSQL, beside the same on SQLite;
#   signin   password sign-ins per second (64 clients, each its own address) on two instances sharing one Redis
#            session store and one PostgreSQL database behind nginx (round robin), beside one such instance.
# Servers: Debian's PostgreSQL (`initdb` in the temporary directory, as `nobody` when run as root, on a free port of
# 127.0.0.1, fsync on: a real server's settings but for its size), redis-server on a Unix socket, nginx, the release
# daemons; every one on 127.0.0.1 and stopped at the end. Each run gets a fresh database (the driver signs its users
# up first). Prints `NAME RATE P50 P99 ERRORS COMPLETED busy N` for refresh-sqlite, refresh-postgres, signin-1 and
# signin-2.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${BENCH_SECONDS:-5}
bin=${BENCH_BIN_DIR:-.build/release}
source bench/lib.sh

for tool in "$bin/auth-handler" "$bin/auth-handler-bench" "$pg/initdb" /usr/sbin/nginx "$(command -v redis-server)"; do
    [[ -x $tool ]] || { echo "accounts-scale bench: $tool is missing (swift build -c release; make bench installs the rest)" >&2; exit 1; }
done

start_postgres

redis_socket=$work/redis.sock
redis-server --port 0 --unixsocket "$redis_socket" --unixsocketperm 700 --save '' --appendonly no \
    --dir "$work" >"$work/redis.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do redis-cli -s "$redis_socket" ping >/dev/null 2>&1 && break; sleep 0.05; done

new_state_key
# The instances on one database share the key that signs their ID tokens (docs/CONFIG.md `signingKey`).
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/signing-key.pem" 2>/dev/null

# daemon NAME PUBLIC_PORT STORE DATABASE: starts `serve` on a free port with that store and accounts database JSON,
# publicURL http://127.0.0.1:PUBLIC_PORT (its own port when PUBLIC_PORT is 0); sets `started_url`.
daemon() {
    local name=$1 public=$2 store=$3 database=$4 port
    port=$(free_port)
    [[ $public == 0 ]] && public=$port
    cat >"$work/$name.json" <<JSON
{
  "listen": ["127.0.0.1:$port"],
  "publicURL": "http://127.0.0.1:$public",
  "stateKey": {"file": "$work/state-key"},
  "store": $store,
  "trustedProxies": ["127.0.0.1/32"],
  "allowedRedirectURLs": ["http://127.0.0.1/app"],
  "backend": {"kind": "accounts", "database": $database, "signingKey": {"file": "$work/signing-key.pem"},
              "password": {"rateLimit": {"perMinute": 1000000, "burst": 1000000}}},
  "providers": {}
}
JSON
    start_server "$name" "auth-handler listening on " "$bin/auth-handler" serve --config "$work/$name.json"
}
redis_store="{\"kind\": \"redis\", \"url\": \"unix:$redis_socket\"}"
# drive NAME BASE MODE CONCURRENCY: the driver's line, named NAME.
drive() {
    "$bin/auth-handler-bench" accounts "$2" "$3" --seconds "$seconds" --concurrency "$4" | sed "s/^$3 /$1 /"
}

daemon refresh-sqlite 0 "$redis_store" "{\"kind\": \"sqlite\", \"path\": \"$work/accounts.sqlite\"}"
drive refresh-sqlite "$started_url" refresh 16
kill "${pids[-2]}"
daemon refresh-postgres 0 "$redis_store" "$(postgres_database bench_refresh)"
drive refresh-postgres "$started_url" refresh 16
kill "${pids[-2]}"

daemon signin-1 0 "$redis_store" "$(postgres_database bench_signin_one)"
drive signin-1 "$started_url" signin 64
kill "${pids[-2]}"

front=$(free_port)
database=$(postgres_database bench_signin_two)
daemon signin-2a "$front" "$redis_store" "$database"
first=$started_url
daemon signin-2b "$front" "$redis_store" "$database"
second=$started_url
start_balancer "$front" "$first" "$second"
drive signin-2 "http://127.0.0.1:$front" signin 64
