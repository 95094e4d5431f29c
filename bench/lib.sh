# Helpers shared by the bench/*.sh scripts; sourced, not run. The caller sets
# `seconds`. Sourcing makes `work` (a temporary directory) and the array `pids`, and traps EXIT to kill every pid in
# it and remove the directory.

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# wrk's summary as `RPS P99`: `Requests/sec: N` and the 99% line of --latency. Fails loudly when any answer
# was not 2xx/3xx: a benchmark of error pages measures nothing. Socket errors are reported, not fatal.
measure() {
    local url=$1 name=${2:-wrk}
    wrk -t2 -c64 -d"${seconds}s" --latency "$url" >"$work/$name.wrk"
    if grep -q 'Non-2xx or 3xx responses' "$work/$name.wrk"; then
        echo "bench: $name: wrk saw answers other than 2xx/3xx; the numbers would be worthless:" >&2
        cat "$work/$name.wrk" >&2
        return 1
    fi
    if grep -q 'Socket errors' "$work/$name.wrk"; then
        echo "bench: $name: $(grep 'Socket errors' "$work/$name.wrk" | sed 's/^ *//')" >&2
    fi
    awk '/Requests\/sec/ {rps = $2} $1 == "99%" {p99 = $2} END {printf "%d %s\n", rps, p99}' "$work/$name.wrk"
}

# start_server NAME PREFIX COMMAND...: starts COMMAND in the background (stderr to $work/NAME.err), waits for
# its stdout line starting with PREFIX (up to 30 s; no polling: it reads the pipe) and sets `started_url` to
# the rest of that line. The rest of its stdout is drained to $work/NAME.out so it never blocks on a full pipe.
start_server() {
    local name=$1 prefix=$2 fd line
    shift 2
    mkfifo "$work/$name.fifo"
    "$@" >"$work/$name.fifo" 2>"$work/$name.err" &
    pids+=($!)
    exec {fd}<"$work/$name.fifo"
    started_url=
    while IFS= read -r -t 30 -u "$fd" line; do
        if [[ $line == "$prefix"* ]]; then
            started_url=${line#"$prefix"}
            break
        fi
        echo "$line" >>"$work/$name.out"
    done
    if [[ -z $started_url ]]; then
        echo "bench: $name did not print '$prefix…' within 30 s; its stderr:" >&2
        tail -n 20 "$work/$name.err" >&2
        return 1
    fi
    cat <&"$fd" >>"$work/$name.out" &
    pids+=($!)
    exec {fd}<&-
}

# free_port: prints a loopback TCP port that was free a moment ago.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_nginx_with NAME PORT HTTP_BODY: nginx (2 workers) with HTTP_BODY inside its `http { }` block, listening on
# 127.0.0.1:PORT (the body's server blocks say so); waits until the port accepts connections.
start_nginx_with() {
    local name=$1 port=$2 body=$3
    mkdir -p "$work/$name"
    cat >"$work/$name/nginx.conf" <<CONF
worker_processes 2;
pid $work/$name/nginx.pid;
error_log $work/$name/error.log;
events { worker_connections 1024; }
http {
    access_log off;
$body
}
CONF
    nginx -c "$work/$name/nginx.conf" -p "$work/$name" -g 'daemon off;' &
    pids+=($!)
    for _ in $(seq 100); do (echo >/dev/tcp/127.0.0.1/"$port") 2>/dev/null && return 0; sleep 0.05; done
    echo "bench: nginx $name did not listen on 127.0.0.1:$port within 5 s:" >&2
    cat "$work/$name/error.log" >&2
    return 1
}

# start_balancer PORT URL...: nginx (2 workers) on 127.0.0.1:PORT balancing round robin over the daemons at URL...
# (http://host:port), with upstream keep-alive; it passes the Host header and X-Forwarded-For/-Proto, which a daemon
# uses only when its `trustedProxies` names 127.0.0.1 (docs/CONFIG.md).
start_balancer() {
    local port=$1 url servers=
    shift
    for url in "$@"; do servers+="
        server ${url#http://};"; done
    start_nginx_with balancer "$port" "
    upstream auth_handlers {$servers
        keepalive 64;
    }
    server {
        listen 127.0.0.1:$port;
        location / {
            proxy_pass http://auth_handlers;
            proxy_http_version 1.1;
            proxy_set_header Connection '';
            proxy_set_header Host \$http_host;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto \$scheme;
        }
    }"
}

# start_nginx: nginx answering every path with a static 302 on a free loopback port (2 workers); sets
# `nginx_url`.
start_nginx() {
    local port
    port=$(free_port)
    start_nginx_with nginx "$port" "
    server {
        listen 127.0.0.1:$port;
        location / { return 302 https://idp.example/authorize?client_id=bench; }
    }"
    nginx_url="http://127.0.0.1:$port"
}

# write_daemon_config NAME STORE_JSON [PUBLIC_URL]: $work/NAME.json for `auth-handler serve` on 127.0.0.1:0 with that
# store, the one OIDC provider google.com at the fake IdP ($idp, secret in $work/client-secret), the app's $redirect,
# no backend, and the shared $work/state-key (so that several instances open each other's cookies). Every request
# comes from 127.0.0.1, and callbacks that exchange a code count against startRateLimit (docs/CONFIG.md): the limit
# is set far above what a run makes, so the sign-in rows measure sign-ins, not 429s. `providerCallLimit` is 256,
# above the sign-in bench's 200 flows, so that no callback waits for a provider call of another (CONFIG.md).
write_daemon_config() {
    local name=$1 store=$2 public=${3:-}
    cat >"$work/$name.json" <<JSON
{
  "listen": ["127.0.0.1:0"],
  ${public:+\"publicURL\": \"$public\",}
  "stateKey": {"file": "$work/state-key"},
  "store": $store,
  "requireResultChallenge": true,
  "startRateLimit": {"perMinute": 100000000, "burst": 100000000},
  "providerCallLimit": 256,
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
}

# new_state_key: a random state key (32 bytes, base64url) in $work/state-key (docs/CONFIG.md `stateKey`).
new_state_key() {
    head -c 32 /dev/urandom | basenc --base64url | tr -d '=\n' >"$work/state-key"
}

# Debian's PostgreSQL server binaries (initdb, postgres, pg_isready).
pg=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)

# start_postgres: a throwaway PostgreSQL in $work/pg (`initdb` with a random password and scram-sha-256; as `nobody`
# when run as root, since PostgreSQL refuses root), on a free port of 127.0.0.1 with fsync and synchronous_commit on
# (a real server's settings but for its size); waits until it accepts connections. Sets `pg_port` and exports
# PGPASSWORD for psql.
start_postgres() {
    local as_owner=()
    [[ -x $pg/initdb ]] || { echo "bench: PostgreSQL's initdb is missing (make bench installs postgresql)" >&2; return 1; }
    if [[ $(id -u) == 0 ]]; then
        as_owner=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
        chmod 711 "$work"
    fi
    mkdir "$work/pg"
    head -c 24 /dev/urandom | basenc --base64url >"$work/pg/password"
    [[ $(id -u) == 0 ]] && chown -R 65534:65534 "$work/pg"
    (cd "$work/pg" && "${as_owner[@]}" "$pg/initdb" -D data -U postgres --pwfile=password -A scram-sha-256 -E UTF8 \
        --no-instructions >initdb.log 2>&1) || { echo "bench: initdb failed:" >&2; cat "$work/pg/initdb.log" >&2; return 1; }
    pg_port=$(free_port)
    (cd "$work/pg" && exec "${as_owner[@]}" "$pg/postgres" -D data -k "$work/pg" -p "$pg_port" \
        -c listen_addresses=127.0.0.1 -c max_connections=200 >postgres.log 2>&1) &
    pids+=($!)
    for _ in $(seq 200); do "$pg/pg_isready" -q -h 127.0.0.1 -p "$pg_port" && break; sleep 0.05; done
    "$pg/pg_isready" -q -h 127.0.0.1 -p "$pg_port" || { echo "bench: postgres did not start:" >&2; cat "$work/pg/postgres.log" >&2; return 1; }
    PGPASSWORD=$(cat "$work/pg/password")
    export PGPASSWORD
}

# postgres_database NAME: creates the empty database NAME on start_postgres's server and prints the
# `backend.database` JSON that names it (docs/CONFIG.md: `poolSize` 8, `statementTimeoutMs` 2000).
postgres_database() {
    psql -q -h 127.0.0.1 -p "$pg_port" -U postgres -d postgres -c "CREATE DATABASE $1" >/dev/null
    echo "{\"kind\": \"postgres\", \"url\": \"postgresql://postgres@127.0.0.1:$pg_port/$1\", \"password\": {\"file\": \"$work/pg/password\"}, \"poolSize\": 8, \"statementTimeoutMs\": 2000}"
}
