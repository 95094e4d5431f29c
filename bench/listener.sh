#!/usr/bin/env bash
# HTTP listener throughput: our libmicrohttpd listener vs nginx, both answering a static 302 on loopback.
# Prints `ours RPS P99` and `nginx RPS P99`. Needs wrk and nginx (make bench installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${BENCH_SECONDS:-3}
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# wrk's summary: `Requests/sec: N` and the 99% line of --latency.
measure() {
    wrk -t2 -c64 -d"${seconds}s" --latency "$1" >"$work/wrk.txt"
    awk '/Requests\/sec/ {rps = $2} $1 == "99%" {p99 = $2} END {printf "%d %s\n", rps, p99}' "$work/wrk.txt"
}

${BENCH_BIN_DIR:-.build/release}/auth-handler-bench serve-302 >"$work/ours.txt" &
pids+=($!)
for _ in $(seq 100); do grep -q listening "$work/ours.txt" && break; sleep 0.05; done
address=$(awk '/listening on/ {print $3}' "$work/ours.txt")
[[ -n $address ]] || { echo "listener bench: our server did not start" >&2; exit 1; }
echo "ours $(measure "http://$address/__/auth/handler")"
kill "${pids[0]}"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$work/nginx.conf" <<CONF
worker_processes 2;
pid $work/nginx.pid;
error_log $work/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    server {
        listen 127.0.0.1:$port;
        location / { return 302 https://idp.example/authorize?client_id=bench; }
    }
}
CONF
nginx -c "$work/nginx.conf" -p "$work" -g 'daemon off;' &
pids+=($!)
for _ in $(seq 100); do (echo >/dev/tcp/127.0.0.1/"$port") 2>/dev/null && break; sleep 0.05; done
echo "nginx $(measure "http://127.0.0.1:$port/__/auth/handler")"
