#!/usr/bin/env bash
# Complete sign-ins per second (start → fake IdP auto-approve → callback → redeem) against the release daemon,
# driven by the compiled driver (`auth-handler-bench signin`, our libcurl multi client) with the fake IdP's token
# endpoint delayed (BENCH_TOKEN_DELAY_MS, default 100 ms, queued through its control API) and
# BENCH_SIGNIN_CONCURRENCY (default 200; the daemons run with `providerCallLimit` 256, above it, so that no
# callback is answered 503, HTTP-API.md §3.2) flows at once: one instance on the memory store, one on SQLite, one on
# Redis, and two on Redis behind nginx (round robin). The driver's own ceiling is the same walk against nginx
# answering every step with a canned 302/303/200.
# Every server listens on 127.0.0.1 and is started and stopped here; redis-server listens on a Unix socket,
# without persistence. For each run it prints
#   NAME SIGNINS_PER_S P50 P99 ERRORS COMPLETED DRIVER_CORES HANDLER_MS_PER_SIGNIN IDP_MS_PER_SIGNIN HANDLER_CORES
# where the CPU figures come from /proc/PID/stat (utime + stime) before and after the run: the handler's CPU time
# per completed sign-in (both instances together for redis-2), the fake IdP's, and the handler's cores in use.
# A failed sign-in is counted, reported on stderr, and fails the script at the end.
# Needs redis-server and nginx (make bench installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${BENCH_SECONDS:-3}
concurrency=${BENCH_SIGNIN_CONCURRENCY:-200}
token_delay=${BENCH_TOKEN_DELAY_MS:-100}
bin_dir=${BENCH_BIN_DIR:-.build/release}
binary=$bin_dir/auth-handler
driver=$bin_dir/auth-handler-bench
source bench/lib.sh

for program in "$binary" "$driver"; do
    [[ -x $program ]] || { echo "signin bench: $program is not built (swift build -c release)" >&2; exit 1; }
done

redirect=http://127.0.0.1/app

# cpu_ticks PID...: the processes' user + system CPU time so far, in clock ticks (proc(5), fields 14 and 15).
cpu_ticks() {
    local total=0 pid
    for pid in "$@"; do
        # The command name (field 2) may hold spaces: count the fields after its closing parenthesis.
        total=$((total + $(sed 's/^.*) //' "/proc/$pid/stat" | awk '{print $12 + $13}')))
    done
    echo "$total"
}

# drive NAME START_URL [PID...]: the driver's line for NAME, then the CPU figures of the PIDs (the handler
# instances) and of the fake IdP. Failed sign-ins are reported on stderr and fail the script at the end.
drive() {
    local name=$1 url=$2 line handler_before handler_after idp_before idp_after hz
    shift 2
    hz=$(getconf CLK_TCK)
    handler_before=$(cpu_ticks "$@") idp_before=$(cpu_ticks "${idp_pid:-$$}")
    if ! line=$("$driver" signin "$url/__/auth/handler?providerId=google.com" "$redirect" \
        --seconds "$seconds" --concurrency "$concurrency" 2>"$work/$name.driver-errors"); then
        echo "signin bench: $name: the driver failed:" >&2
        cat "$work/$name.driver-errors" >&2
        for log in "$work"/*.err; do
            [[ -s $log ]] && { echo "--- $log" >&2; tail -n 5 "$log" >&2; }
        done
        exit 1
    fi
    handler_after=$(cpu_ticks "$@") idp_after=$(cpu_ticks "${idp_pid:-$$}")
    if [[ $(awk '{print $4}' <<<"$line") != 0 ]]; then
        echo "signin bench: $name: $(awk '{print $4}' <<<"$line") sign-ins failed, e.g.:" >&2
        cat "$work/$name.driver-errors" >&2
        failed_runs+=("$name")
    fi
    if (($# == 0)); then
        echo "$name $line n/a n/a n/a"
        return
    fi
    awk -v line="$line" -v name="$name" -v h=$((handler_after - handler_before)) -v i=$((idp_after - idp_before)) \
        -v hz="$hz" -v s="$seconds" 'BEGIN {
            split(line, f, " "); n = f[5] > 0 ? f[5] : 1
            printf "%s %s %.3f %.3f %.2f\n", name, line, h / hz * 1000 / n, i / hz * 1000 / n, h / hz / s }'
}
failed_runs=()

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
idp_pid=${pids[-2]} # the last pid is its stdout drain
# Every token call waits BENCH_TOKEN_DELAY_MS, as a real IdP's would: the control API's `delay`, queued for all calls.
curl -sS --fail -o /dev/null -X POST -H 'Content-Type: application/json' \
    --data "{\"endpoint\": \"oidc/token\", \"kind\": \"delay\", \"delayMs\": $token_delay, \"count\": 100000000}" \
    "$idp/__fake/failures"
printf 'fake-client-secret' >"$work/client-secret"
# Every instance must open the cookies the others sealed: one shared, random stateKey (docs/CONFIG.md).
new_state_key

redis_socket=$work/redis.sock
redis-server --port 0 --unixsocket "$redis_socket" --unixsocketperm 700 --save '' --appendonly no \
    --dir "$work" >"$work/redis.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do redis-cli -s "$redis_socket" ping >/dev/null 2>&1 && break; sleep 0.05; done
redis-cli -s "$redis_socket" ping >/dev/null || { echo "signin bench: redis-server did not start:" >&2; cat "$work/redis.log" >&2; exit 1; }

# start_daemon NAME STORE_JSON [PUBLIC_URL]: a daemon with that store; sets `started_url` and `daemon_pid`.
start_daemon() {
    local name=$1 store=$2 public=${3:-}
    write_daemon_config "$name" "$store" "$public"
    start_server "$name" "auth-handler listening on " "$binary" serve --config "$work/$name.json"
    daemon_pid=${pids[-2]} # the last pid is its stdout drain
}

start_daemon memory '{"kind": "memory"}'
drive memory "$started_url" "$daemon_pid"
kill "$daemon_pid"

start_daemon sqlite "{\"kind\": \"sqlite\", \"path\": \"$work/state.sqlite\"}"
drive sqlite "$started_url" "$daemon_pid"
kill "$daemon_pid"

redis_store="{\"kind\": \"redis\", \"url\": \"unix:$redis_socket\"}"
start_daemon redis "$redis_store"
drive redis "$started_url" "$daemon_pid"
kill "$daemon_pid"

# Two instances behind nginx: both send the IdP back to nginx (publicURL), which may pick either for any step.
redis-cli -s "$redis_socket" flushall >/dev/null
port=$(free_port)
start_daemon redis-a "$redis_store" "http://127.0.0.1:$port"
first=$started_url first_pid=$daemon_pid
start_daemon redis-b "$redis_store" "http://127.0.0.1:$port"
second=$started_url second_pid=$daemon_pid
start_balancer "$port" "$first" "$second"
drive redis-2 "http://127.0.0.1:$port" "$first_pid" "$second_pid"
kill "$first_pid" "$second_pid"
if ((${#failed_runs[@]})); then
    echo "signin bench: sign-ins failed in: ${failed_runs[*]}; the numbers above are not a clean run" >&2
    exit 1
fi
