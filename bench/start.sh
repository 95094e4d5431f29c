#!/usr/bin/env bash
# Sign-in start throughput: `GET /__/auth/handler?providerId=google.com&…` against the release daemon, once with
# the memory store and once with SQLite. A start writes nothing to the store (HTTP-API.md §3.1): it draws state,
# PKCE verifier and nonce, seals them as JSON with AES-256-GCM into a cookie and answers 302 to the IdP.
# The OIDC provider is the fake IdP (`auth-handler fake-idp`), needed only for discovery, which the warm-up
# request fetches and the daemon then caches (so no start is rate limited).
# Prints `memory RPS P99` and `sqlite RPS P99`. Needs wrk and curl (make bench installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${BENCH_SECONDS:-3}
binary=${BENCH_BIN_DIR:-.build/release}/auth-handler
source bench/lib.sh

[[ -x $binary ]] || { echo "start bench: $binary is not built (swift build -c release)" >&2; exit 1; }

start_server fake-idp "fake-idp listening on " "$binary" fake-idp --listen 127.0.0.1:0
idp=$started_url
printf 'fake-client-secret' >"$work/client-secret"
new_state_key

redirect=http://127.0.0.1/app
# A fixed result challenge (43 base64url characters = SHA-256 of some verifier): the start only checks its form.
challenge=$(printf 'bench-verifier' | openssl dgst -sha256 -binary | basenc --base64url | tr -d '=')

# bench_store NAME STORE_JSON: a daemon with that store; warm-up, one checked start, then wrk.
bench_store() {
    local name=$1 store=$2 url headers status result
    write_daemon_config "$name" "$store"
    start_server "$name" "auth-handler listening on " "$binary" serve --config "$work/$name.json"
    url="$started_url/__/auth/handler?providerId=google.com&redirectUrl=$redirect&resultChallenge=$challenge"
    # Warm-up: the first start fetches the discovery document from the fake IdP.
    curl -sS -o /dev/null --max-time 10 "$url"
    # The checked start: a benchmark of 400s or 429s would be worthless.
    headers=$(curl -sS -o /dev/null -D - --max-time 10 "$url" | tr -d '\r')
    status=$(awk 'NR == 1 {print $2}' <<<"$headers")
    if [[ $status != 302 ]] || ! grep -qi '^set-cookie: auth-handler-' <<<"$headers" \
        || ! grep -qi "^location: $idp/oidc/authorize?" <<<"$headers"; then
        echo "start bench: $name: the start did not answer 302 to the fake IdP with the sign-in cookie:" >&2
        echo "$headers" >&2
        curl -sS -H 'Accept: application/json' "$url" >&2 || true
        echo >&2
        tail -n 5 "$work/$name.err" >&2
        exit 1
    fi
    result=$(measure "$url" "$name")
    echo "$name $result"
    kill "${pids[-2]}" # the daemon (the last pid is its stdout drain)
}

bench_store memory '{"kind": "memory"}'
bench_store sqlite "{\"kind\": \"sqlite\", \"path\": \"$work/state.sqlite\"}"
