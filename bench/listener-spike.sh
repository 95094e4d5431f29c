#!/usr/bin/env bash
# The listener spike (BENCHMARKS.md "Choosing the listener"): the bare listener answering a static 302, in five
# libmicrohttpd configurations, against nginx's `return 302`, alternating within each round so that every variant and
# the reference see the same neighbours. Each round measures every server once (wrk -t2 -c64); the ratio is taken
# against nginx's figure from the same round. Prints one line per variant:
# `NAME median-ratio min-ratio max-ratio median-rps median-cpu-us-per-request` (nginx's own line has ratio 1), where the
# CPU is the server's user + system time over the run (its worker processes for nginx), from /proc/PID/stat: on a
# shared machine it moves less with the neighbours than requests per second. BENCH_ROUNDS (default 5) rounds.
# With BENCH_WITH_START=1 the sign-in start (`auth-handler serve`, memory store, as in bench/start.sh) joins the rounds
# as `start-memory`.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${BENCH_SECONDS:-3}
rounds=${BENCH_ROUNDS:-5}
bench=${BENCH_BIN_DIR:-.build/release}/auth-handler-bench
source bench/lib.sh

declare -A urls server_pid
# cpu_ticks PID: user + system clock ticks of PID and its children processes (nginx's workers).
cpu_ticks() {
    local total=0 pid
    for pid in "$1" $(pgrep -P "$1" || true); do
        total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat")))
    done
    echo "$total"
}
# NAME and its serve-302 options: the pool twice the 64 KiB header limit (before), four times it (now) or
# libmicrohttpd's default 32 KiB; the answer from a suspended task (before) or at once on the MHD thread.
variants=("pool128k-task:--pool 131072" "pool32k-task:--pool 32768" "pool128k-immediate:--pool 131072 --immediate"
    "pool256k-immediate:--pool 262144 --immediate" "pool32k-immediate:--pool 32768 --immediate")
for variant in "${variants[@]}"; do
    name=${variant%%:*}
    # shellcheck disable=SC2086 # the options are words
    start_server "$name" "listening on " "$bench" serve-302 ${variant#*:}
    urls[$name]="http://$started_url/__/auth/handler"
    server_pid[$name]=${pids[-2]} # the server (the last pid is its stdout drain)
done
names=("${variants[@]%%:*}")
if [[ ${BENCH_WITH_START:-0} == 1 ]]; then
    binary=${BENCH_BIN_DIR:-.build/release}/auth-handler
    start_server fake-idp "fake-idp listening on " "$binary" fake-idp --listen 127.0.0.1:0
    idp=$started_url
    printf 'fake-client-secret' >"$work/client-secret"
    new_state_key
    redirect=http://127.0.0.1/app
    write_daemon_config start-memory '{"kind": "memory"}'
    start_server start-memory "auth-handler listening on " "$binary" serve --config "$work/start-memory.json"
    server_pid[start-memory]=${pids[-2]}
    challenge=$(printf 'bench-verifier' | openssl dgst -sha256 -binary | basenc --base64url | tr -d '=')
    urls[start-memory]="$started_url/__/auth/handler?providerId=google.com&redirectUrl=$redirect&resultChallenge=$challenge"
    # Warm-up: the first start fetches the discovery document.
    curl -sS -o /dev/null --max-time 10 "${urls[start-memory]}"
    names+=(start-memory)
fi
start_nginx
urls[nginx]="$nginx_url/__/auth/handler"
server_pid[nginx]=${pids[-1]}
ticks_per_second=$(getconf CLK_TCK)

results=""
for round in $(seq "$rounds"); do
    for name in nginx "${names[@]}"; do
        before=$(cpu_ticks "${server_pid[$name]}")
        rps=$(measure "${urls[$name]}" "$name" | awk '{print $1}')
        after=$(cpu_ticks "${server_pid[$name]}")
        requests=$(awk '/requests in/ {print $1}' "$work/$name.wrk")
        cpu_us=$(awk -v t=$((after - before)) -v hz="$ticks_per_second" -v n="$requests" 'BEGIN {printf "%.1f", t / hz * 1e6 / n}')
        results+="$round $name $rps $cpu_us"$'\n'
    done
done
echo "$results" >&2
awk '
    NF == 4 { rps[$1, $2] = $3; cpu[$1, $2] = $4; names[$2] = 1; rounds[$1] = 1 }
    function median(list, n,    i, j, t) {
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (list[j] < list[i]) { t = list[i]; list[i] = list[j]; list[j] = t }
        return n % 2 ? list[(n + 1) / 2] : (list[n / 2] + list[n / 2 + 1]) / 2
    }
    END {
        for (name in names) {
            n = 0
            for (r in rounds) { n++; ratio[n] = rps[r, name] / rps[r, "nginx"]; raw[n] = rps[r, name]; us[n] = cpu[r, name] }
            med = median(ratio, n); lo = ratio[1]; hi = ratio[n]
            printf "%s %.2f %.2f %.2f %d %.1f\n", name, med, lo, hi, median(raw, n), median(us, n)
        }
    }' <<<"$results" | sort
