#!/usr/bin/env bash
# The relying party most operators would pick instead: mod_auth_openidc (Debian's libapache2-mod-auth-openidc) on
# Apache mpm_event (2 processes x 64 threads), pointed at the fake IdP with PKCE S256, beside auth-handler (memory
# store) in the same run. Prints
#   `openidc-start RPS P99 ROUND` and `ours-start RPS P99 ROUND`: wrk on the start, with a browser `Accept` header (without
#   text/html mod_auth_openidc answers 401 instead of redirecting); every answer must be a 302;
#   `openidc-cpu MS ROUND` and `ours-cpu MS ROUND`: server CPU (user + system, /proc) per sequential complete sign-in over
#   BENCH_OPENIDC_SIGNINS (default 200): for mod_auth_openidc the protected URL, the IdP and the callback
#   (bench/openidc_signin.py); for ours the same plus the redemption (`auth-handler-bench signin`, one flow).
# Needs apache2 and libapache2-mod-auth-openidc (make bench installs them), wrk, curl.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${BENCH_SECONDS:-3}
signins=${BENCH_OPENIDC_SIGNINS:-200}
binary=${BENCH_BIN_DIR:-.build/release}/auth-handler
bench=${BENCH_BIN_DIR:-.build/release}/auth-handler-bench
source bench/lib.sh

start_server fake-idp "fake-idp listening on " "$binary" fake-idp --listen 127.0.0.1:0
idp=$started_url

# Apache, run by hand from a config of its own; its workers run as www-data, so the directory must be readable.
port=$(free_port)
chmod 755 "$work"
mkdir -p "$work/apache"
modules=/usr/lib/apache2/modules
cat >"$work/apache/httpd.conf" <<CONF
ServerName 127.0.0.1
Listen 127.0.0.1:$port
PidFile $work/apache/httpd.pid
ErrorLog $work/apache/error.log
LogFormat "%h %l %u %t \"%r\" %>s %b" common
CustomLog $work/apache/access.log common
LoadModule mpm_event_module $modules/mod_mpm_event.so
LoadModule authn_core_module $modules/mod_authn_core.so
LoadModule authz_core_module $modules/mod_authz_core.so
LoadModule authz_user_module $modules/mod_authz_user.so
LoadModule auth_openidc_module $modules/mod_auth_openidc.so
User www-data
Group www-data
ServerLimit 2
StartServers 2
ThreadsPerChild 64
MaxRequestWorkers 128
OIDCProviderMetadataURL $idp/oidc/.well-known/openid-configuration
OIDCClientID fake-client-id
OIDCClientSecret fake-client-secret
OIDCRedirectURI http://127.0.0.1:$port/__/auth/handler
OIDCCryptoPassphrase bench-passphrase-not-a-secret
OIDCPKCEMethod S256
OIDCScope "openid email"
OIDCAuthRequestParams login_hint=alice
<Location />
    AuthType openid-connect
    Require valid-user
</Location>
CONF
apache2 -f "$work/apache/httpd.conf" -DFOREGROUND &
pids+=($!)
apache_pid=$!
for _ in $(seq 100); do (echo >/dev/tcp/127.0.0.1/"$port") 2>/dev/null && break; sleep 0.05; done
protected="http://127.0.0.1:$port/app"
status=$(curl -sS -o /dev/null -w '%{http_code}' -H 'Accept: text/html' "$protected")
[[ $status == 302 ]] || { echo "openidc bench: mod_auth_openidc answered $status:" >&2; tail -5 "$work/apache/error.log" >&2; exit 1; }

printf 'fake-client-secret' >"$work/client-secret"
new_state_key
redirect=http://127.0.0.1/app
write_daemon_config ours '{"kind": "memory"}'
start_server ours "auth-handler listening on " "$binary" serve --config "$work/ours.json"
ours_pid=${pids[-2]}
challenge=$(printf 'bench-verifier' | openssl dgst -sha256 -binary | basenc --base64url | tr -d '=')
start="$started_url/__/auth/handler?providerId=google.com&redirectUrl=$redirect&resultChallenge=$challenge"
curl -sS -o /dev/null --max-time 10 "$start"

# cpu_ticks PID: user + system clock ticks of PID and its children (Apache's worker processes).
cpu_ticks() {
    local total=0 pid
    for pid in "$1" $(pgrep -P "$1" || true); do
        total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)))
    done
    echo "$total"
}
hz=$(getconf CLK_TCK)
per_signin() { awk -v t="$1" -v hz="$hz" -v n="$signins" 'BEGIN {printf "%.2f", t / hz * 1000 / n}'; }

browser_measure() {
    local url=$1 name=$2
    wrk -t2 -c64 -d"${seconds}s" --latency -H 'Accept: text/html,application/xhtml+xml' "$url" >"$work/$name.wrk"
    if grep -q 'Non-2xx or 3xx responses' "$work/$name.wrk"; then
        echo "openidc bench: $name: answers other than 2xx/3xx" >&2
        cat "$work/$name.wrk" >&2
        return 1
    fi
    awk '/Requests\/sec/ {rps = $2} $1 == "99%" {p99 = $2} END {printf "%d %s\n", rps, p99}' "$work/$name.wrk"
}

# BENCH_ROUNDS rounds (default 3), alternating, the reference first; one line per figure and round.
for round in $(seq "${BENCH_ROUNDS:-3}"); do
    echo "openidc-start $(browser_measure "$protected" openidc) $round"
    echo "ours-start $(browser_measure "$start" ours) $round"

    before=$(cpu_ticks "$apache_pid")
    python3 bench/openidc_signin.py "$protected" "$signins" >/dev/null
    echo "openidc-cpu $(per_signin $(($(cpu_ticks "$apache_pid") - before))) $round"

    before=$(cpu_ticks "$ours_pid")
    driver=$("$bench" signin "$started_url/__/auth/handler?providerId=google.com" "$redirect" --concurrency 1 \
        --total "$signins" --seconds 600)
    # The driver prints RATE P50 P99 ERRORS COMPLETED CORES; a failed sign-in makes the figure worthless.
    [[ $(awk '{print $4}' <<<"$driver") == 0 ]] || { echo "openidc bench: ours: $driver" >&2; exit 1; }
    echo "ours-cpu $(per_signin $(($(cpu_ticks "$ours_pid") - before))) $round"
done
