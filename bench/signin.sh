#!/usr/bin/env bash
# Complete sign-ins per second (start → fake IdP auto-approve → callback → redeem, bench/signin_driver.py) against
# the release daemon: one instance on SQLite, one on Redis, and two on Redis behind nginx (round robin). The
# driver's own ceiling is the same walk against nginx answering every step with a canned 302/200.
# Every server listens on 127.0.0.1 and is started and stopped here; redis-server listens on a Unix socket,
# without persistence. Prints `NAME SIGNINS_PER_S P99 DRIVER_CPU_CORES COMPLETED` for ceiling, sqlite, redis,
# redis-2. Needs redis-server, nginx and /usr/bin/python3 (make bench installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${BENCH_SECONDS:-3}
concurrency=${BENCH_SIGNIN_CONCURRENCY:-32}
binary=${BENCH_BIN_DIR:-.build/release}/auth-handler
source bench/lib.sh

[[ -x $binary ]] || { echo "signin bench: $binary is not built (swift build -c release)" >&2; exit 1; }

redirect=http://127.0.0.1/app

# drive NAME START_URL: the driver's line for NAME; a failed sign-in ends the whole benchmark.
drive() {
    local name=$1 url=$2 line
    if ! line=$(/usr/bin/python3 bench/signin_driver.py --seconds "$seconds" --concurrency "$concurrency" \
        "$url/__/auth/handler?providerId=google.com" "$redirect"); then
        echo "signin bench: $name: a sign-in failed (above); the numbers would be worthless" >&2
        for log in "$work"/*.err; do
            [[ -s $log ]] && { echo "--- $log" >&2; tail -n 5 "$log" >&2; }
        done
        exit 1
    fi
    echo "$name $line"
}

# The driver's ceiling: nginx plays handler, IdP and redemption with canned answers.
port=$(free_port)
start_nginx_with ceiling "$port" "
    server {
        listen 127.0.0.1:$port;
        location = /__/auth/handler {
            if (\$arg_code) { return 303 $redirect?code=bench-result-code; }
            add_header Set-Cookie 'auth-handler-bench=sealed; Path=/__/auth/handler; HttpOnly' always;
            return 302 http://127.0.0.1:$port/oidc/authorize?client_id=bench&state=bench-state;
        }
        location = /oidc/authorize { return 302 http://127.0.0.1:$port/__/auth/handler?code=c&state=bench-state; }
        location = /__/auth/result { default_type application/json; return 200 '{\"idToken\":\"bench\"}'; }
    }"
drive ceiling "http://127.0.0.1:$port"
kill "${pids[-1]}"

start_server fake-idp "fake-idp listening on " "$binary" fake-idp --listen 127.0.0.1:0
idp=$started_url
printf 'fake-client-secret' >"$work/client-secret"
# Every instance must open the cookies the others sealed: one shared, random stateKey (docs/CONFIG.md).
head -c 32 /dev/urandom | basenc --base64url | tr -d '=\n' >"$work/state-key"

redis_socket=$work/redis.sock
redis-server --port 0 --unixsocket "$redis_socket" --unixsocketperm 700 --save '' --appendonly no \
    --dir "$work" >"$work/redis.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do redis-cli -s "$redis_socket" ping >/dev/null 2>&1 && break; sleep 0.05; done
redis-cli -s "$redis_socket" ping >/dev/null || { echo "signin bench: redis-server did not start:" >&2; cat "$work/redis.log" >&2; exit 1; }

# start_daemon NAME STORE_JSON [PUBLIC_URL]: a daemon with that store; sets `started_url` and `daemon_pid`.
start_daemon() {
    local name=$1 store=$2 public=${3:-}
    cat >"$work/$name.json" <<JSON
{
  "listen": ["127.0.0.1:0"],
  ${public:+\"publicURL\": \"$public\",}
  "stateKey": {"file": "$work/state-key"},
  "store": $store,
  "requireResultChallenge": true,
  "allowedRedirectURLs": ["$redirect"],
  "backend": {"kind": "none"},
  "providers": {
    "google.com": {
      "clientId": "fake-client-id",
      "clientSecret": {"file": "$work/client-secret"},
      "issuer": "$idp/oidc"
    }
  }
}
JSON
    start_server "$name" "auth-handler listening on " "$binary" serve --config "$work/$name.json"
    daemon_pid=${pids[-2]} # the last pid is its stdout drain
}

start_daemon sqlite "{\"kind\": \"sqlite\", \"path\": \"$work/state.sqlite\"}"
drive sqlite "$started_url"
kill "$daemon_pid"

redis_store="{\"kind\": \"redis\", \"url\": \"unix:$redis_socket\"}"
start_daemon redis "$redis_store"
drive redis "$started_url"
kill "$daemon_pid"

# Two instances behind nginx: both send the IdP back to nginx (publicURL), which may pick either for any step.
redis-cli -s "$redis_socket" flushall >/dev/null
port=$(free_port)
start_daemon redis-a "$redis_store" "http://127.0.0.1:$port"
first=$started_url first_pid=$daemon_pid
start_daemon redis-b "$redis_store" "http://127.0.0.1:$port"
second=$started_url second_pid=$daemon_pid
start_nginx_with balancer "$port" "
    upstream auth_handlers {
        server ${first#http://};
        server ${second#http://};
        keepalive 64;
    }
    server {
        listen 127.0.0.1:$port;
        location / {
            proxy_pass http://auth_handlers;
            proxy_http_version 1.1;
            proxy_set_header Connection '';
            proxy_set_header Host \$http_host;
        }
    }"
drive redis-2 "http://127.0.0.1:$port"
kill "$first_pid" "$second_pid"
