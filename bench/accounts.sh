#!/usr/bin/env bash
# The accounts backend (HTTP-API.md §3.10) beside its references, in one run:
#   argon2   one argon2id hash at OWASP's first parameters (m=19456 KiB, t=2, p=1) in process (`auth-handler-bench
#            argon2`), against Debian's `argon2` command at the same parameters (its own reported time, median of
#            $rounds; both CPU time, the command's from clock(3)): the target is at most 1.1x its time;
#   refresh  refresh grants per second (`POST /__/auth/token`, each answer's successor used next) from 16 clients;
#   signin   password sign-ins per second from 64 clients at once, against what the cores can hash: cores x 1000 /
#            the argon2 command's milliseconds per hash;
#   probe    while 64 password sign-ins are in flight, the p99 of `/healthz` and of a provider start (targets:
#            50 ms and 100 ms).
# The daemon: the release build, SQLite in the temporary directory, the hashing budget set far above the load, and
# 127.0.0.1 trusted as a proxy so that each flow is its own client (X-Forwarded-For).
# Prints `argon2 OURS_MS REF_MS RATIO`, `refresh RATE P50 P99 ERRORS COMPLETED busy N`, `signin RATE P50 P99 ERRORS COMPLETED busy N
# CEILING`, `probe HEALTHZ_P99 START_P99`.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${BENCH_SECONDS:-5}
rounds=${BENCH_ARGON2_ROUNDS:-10}
bin=${BENCH_BIN_DIR:-.build/release}
source bench/lib.sh

for tool in "$bin/auth-handler" "$bin/auth-handler-bench"; do
    [[ -x $tool ]] || { echo "accounts bench: $tool is not built (swift build -c release)" >&2; exit 1; }
done
command -v argon2 >/dev/null || { echo "accounts bench: Debian's argon2 command is missing (apt-get install argon2)" >&2; exit 1; }

ours_argon2=$("$bin/auth-handler-bench" argon2 "$((rounds * 2))" | awk '{print $2}')
ref_argon2=$(for _ in $(seq "$rounds"); do
    printf 'correct horse battery staple' | argon2 saltsaltsaltsalt -id -t 2 -k 19456 -p 1 | awk '/seconds/ {print $1 * 1000}'
done | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
awk -v o="$ours_argon2" -v r="$ref_argon2" 'BEGIN {printf "argon2 %.2f %.2f %.2f\n", o, r, o / r}'

start_server fake-idp "fake-idp listening on " "$bin/auth-handler" fake-idp --listen 127.0.0.1:0
idp=$started_url
printf 'fake-client-secret' >"$work/client-secret"
new_state_key
port=$(free_port)
cat >"$work/accounts.json" <<JSON
{
  "listen": ["127.0.0.1:$port"],
  "publicURL": "http://127.0.0.1:$port",
  "stateKey": {"file": "$work/state-key"},
  "store": {"kind": "sqlite", "path": "$work/state.sqlite"},
  "trustedProxies": ["127.0.0.1/32"],
  "startRateLimit": {"perMinute": 100000000, "burst": 100000000},
  "allowedRedirectURLs": ["http://127.0.0.1/app"],
  "backend": {"kind": "accounts", "database": {"kind": "sqlite", "path": "$work/accounts.sqlite"},
              "password": {"rateLimit": {"perMinute": 1000000, "burst": 1000000}}},
  "providers": {"google.com": {"clientId": "fake-client-id", "clientSecret": {"file": "$work/client-secret"},
                               "issuer": "$idp/oidc"}}
}
JSON
start_server daemon "auth-handler listening on " "$bin/auth-handler" serve --config "$work/accounts.json"
base=$started_url
challenge=$(printf 'bench-verifier' | openssl dgst -sha256 -binary | basenc --base64url | tr -d '=')
start="$base/__/auth/handler?providerId=google.com&redirectUrl=http://127.0.0.1/app&resultChallenge=$challenge"
curl -sS -o /dev/null --max-time 10 "$start" # warm-up: discovery

"$bin/auth-handler-bench" accounts "$base" refresh --seconds "$seconds" --concurrency 16
"$bin/auth-handler-bench" accounts "$base" signin --seconds "$seconds" --concurrency 64 \
    | awk -v cores="$(nproc)" -v ms="$ref_argon2" '{printf "%s %.1f\n", $0, cores * 1000 / ms}'
"$bin/auth-handler-bench" accounts "$base" signin --seconds "$seconds" --concurrency 64 --probe "$start" \
    | awk '{print "probe", $10, $12}'
