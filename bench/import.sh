#!/usr/bin/env bash
# `auth-handler accounts import` of 100,000 Firebase users (docs/ACCOUNTS.md "Imported users"; issue 27's target:
# under a minute on SQLite and on PostgreSQL): a generated `firebase auth:export` file (random 64-byte scrypt hashes and 10-byte salts,
# every third user with a google.com identity and custom claims; hashes are checked lazily, at sign-in, so their
# values do not change the import's cost), imported into the accounts database a `serve` made and stopped, then
# imported again (every localId stored: all skipped), then exported.
# Prints `import USERS SECONDS USERS_PER_S`, `reimport USERS SECONDS`, `export USERS SECONDS`.
set -euo pipefail
cd "$(dirname "$0")/.."
users=${BENCH_IMPORT_USERS:-100000}
bin=${BENCH_BIN_DIR:-.build/release}
seconds=1
source bench/lib.sh

[[ -x $bin/auth-handler ]] || { echo "import bench: $bin/auth-handler is not built (swift build -c release)" >&2; exit 1; }

python3 - "$users" "$work/firebase.json" <<'PY'
import base64, json, os, sys
count, path = int(sys.argv[1]), sys.argv[2]
users = []
for i in range(count):
    user = {"localId": "import%022d" % i, "email": "user%d@example.com" % i, "emailVerified": i % 2 == 0,
            "passwordHash": base64.b64encode(os.urandom(64)).decode(), "salt": base64.b64encode(os.urandom(10)).decode(),
            "displayName": "User %d" % i, "createdAt": "1486324027000", "lastSignedInAt": "1486324028000",
            "providerUserInfo": [{"providerId": "password", "rawId": "user%d@example.com" % i}]}
    if i % 3 == 0:
        user["providerUserInfo"].append({"providerId": "google.com", "rawId": "g%d" % i})
        user["customAttributes"] = '{"tier": %d}' % (i % 7)
    users.append(user)
json.dump({"users": users}, open(path, "w"))
PY
printf '%s' 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==' >"$work/signer-key"
new_state_key
# Instances on PostgreSQL share their signing key (docs/CONFIG.md `signingKey`), so the config names one.
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/signing-key.pem" 2>/dev/null

timed() {
    local started ended
    started=$(date +%s.%N)
    "$@" >"$work/last.out"
    ended=$(date +%s.%N)
    awk -v s="$started" -v e="$ended" 'BEGIN {printf "%.2f", e - s}'
}

# bench_import ENGINE DATABASE_JSON: the import, the import again and the export on that database.
bench_import() {
    local engine=$1 database=$2 port config took exported
    port=$(free_port)
    config=$work/import-$engine.json
    cat >"$config" <<JSON
{
  "listen": ["127.0.0.1:$port"],
  "publicURL": "http://127.0.0.1:$port",
  "stateKey": {"file": "$work/state-key"},
  "store": {"kind": "memory"},
  "allowedRedirectURLs": ["http://127.0.0.1/app"],
  "backend": {"kind": "accounts", "database": $database, "signingKey": {"file": "$work/signing-key.pem"},
              "importedHashes": {"firebase": {"signerKey": {"file": "$work/signer-key"}, "saltSeparator": "Bw==",
                                              "rounds": 8, "memCost": 14}}}
}
JSON
    # The database's schema is made by `serve`'s first start (the command never creates it).
    start_server "daemon-$engine" "auth-handler listening on " "$bin/auth-handler" serve --config "$config"
    kill "${pids[-2]}"
    wait "${pids[-2]}" 2>/dev/null || true
    took=$(timed "$bin/auth-handler" accounts import --format firebase "$work/firebase.json" --config "$config")
    grep -q "imported $users user(s); skipped 0" "$work/last.out" || { cat "$work/last.out" >&2; exit 1; }
    awk -v e="$engine" -v n="$users" -v t="$took" 'BEGIN {printf "import-%s %d %.2f %.0f\n", e, n, t, n / t}'
    took=$(timed "$bin/auth-handler" accounts import --format firebase "$work/firebase.json" --config "$config")
    grep -q "imported 0 user(s); skipped $users" "$work/last.out" || { cat "$work/last.out" >&2; exit 1; }
    echo "reimport-$engine $users $took"
    took=$(timed "$bin/auth-handler" accounts export --config "$config")
    exported=$(grep -c '"localId"' "$work/last.out")
    echo "export-$engine $exported $took"
}

bench_import sqlite "{\"kind\": \"sqlite\", \"path\": \"$work/accounts.sqlite\"}"
start_postgres
bench_import postgres "$(postgres_database bench_import)"
