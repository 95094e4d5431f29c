#!/usr/bin/env bash
# Slow clients: 1,024 slow-header connections (256 from each of 127.0.0.2-.5, a byte a second, bench/slow_clients.py)
# against `auth-handler serve` with its default listener settings (a 10 s request deadline, 256 connections per
# address), while one complete sign-in runs from 127.0.0.1 (`auth-handler-bench signin`, one flow: a warm-up sign-in,
# then the measured one). Prints `slow-clients SIGNIN OPEN CLOSED CLOSE_MEDIAN CLOSE_MIN CLOSE_MAX` (SIGNIN: the
# measured sign-in's latency as the driver prints it; CLOSE_*: seconds from each slow connection's open to its close);
# the target is a sign-in in ≤ 2 s and every slow connection closed at the deadline (HTTP-API.md §3.5, CONFIG.md
# `listener`).
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${BENCH_BIN_DIR:-.build/release}/auth-handler
bench=${BENCH_BIN_DIR:-.build/release}/auth-handler-bench
source bench/lib.sh

[[ -x $binary && -x $bench ]] || { echo "slow-clients bench: build the release binaries first" >&2; exit 1; }
# 1,024 connections need more descriptors than a shell's usual soft limit of 1,024 (the daemon would lower its
# connection limit to fit, HTTP-API.md §3.5): raise it as the systemd unit's LimitNOFILE= does, up to the hard limit.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

start_server fake-idp "fake-idp listening on " "$binary" fake-idp --listen 127.0.0.1:0
idp=$started_url
printf 'fake-client-secret' >"$work/client-secret"
new_state_key
redirect=http://127.0.0.1/app
write_daemon_config slow '{"kind": "memory"}'
start_server slow "auth-handler listening on " "$binary" serve --config "$work/slow.json"
port=${started_url##*:}
start="$started_url/__/auth/handler?providerId=google.com"
# Warm-up: discovery and JWKS cached, as in a running deployment.
"$bench" signin "$start" "$redirect" --total 1 --concurrency 1 --seconds 10 >/dev/null

result=$(python3 bench/slow_clients.py --port "$port" --per-address "${BENCH_SLOW_PER_ADDRESS:-256}" -- \
    "$bench" signin "$start" "$redirect" --total 1 --concurrency 1 --seconds 30)
echo "$result" >&2
# After "|": the driver's RATE P50 P99 ERRORS COMPLETED CORES; with one sign-in, P50 is its latency.
awk '{for (i = 1; i <= NF; i++) if ($i == "|") driver = i; print "slow-clients", $(driver + 2), $6, $8, $10, $11, $12}' <<<"$result"
