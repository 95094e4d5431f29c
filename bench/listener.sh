#!/usr/bin/env bash
# HTTP listener throughput: our libmicrohttpd listener vs nginx, both answering a static 302 on loopback.
# Prints `ours RPS P99` and `nginx RPS P99`. Needs wrk and nginx (make bench installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${BENCH_SECONDS:-3}
source bench/lib.sh

# --immediate: answered on the listener's thread, as the daemon answers /healthz and /metrics (BENCHMARKS.md).
start_server ours "listening on " ${BENCH_BIN_DIR:-.build/release}/auth-handler-bench serve-302 --immediate
result=$(measure "http://$started_url/__/auth/handler" ours)
echo "ours $result"
kill "${pids[0]}"

start_nginx
result=$(measure "$nginx_url/__/auth/handler" nginx)
echo "nginx $result"
