#!/usr/bin/env bash
# Installs the Debian packages auth-handler builds, tests and benchmarks with, when any is missing.
# As root it runs apt-get itself; otherwise it prints the exact command to run and fails.
# Usage: scripts/install-deps.sh [build|test|bench]   (each set includes the ones before it)
set -euo pipefail

level=${1:-test}
packages=(pkg-config libssl-dev libcurl4-openssl-dev libmicrohttpd-dev libsqlite3-dev libhiredis-dev libqrencode-dev
    libargon2-dev libidn2-dev libcrypt-dev libpq-dev)
if [[ $level == test || $level == bench ]]; then
    # Independent reference implementations the test suite checks our protocol code against.
    packages+=(python3 python3-oauthlib python3-jwt)
    # Debian's argon2 command: the Argon2id hashes are checked against it (CryptoArgon2idTests).
    packages+=(argon2)
    # The accounts tests (Tests/EndToEndTests, docs/ACCOUNTS.md): a real SMTP server receives the daemon's mail, and
    # PyJWT with cryptography verifies its ID tokens by discovery.
    packages+=(python3-aiosmtpd python3-cryptography)
    # The Redis store's tests start their own redis-server (Tests/AuthHandlerTests/RedisTestServer.swift); the
    # scale-out tests (Tests/EndToEndTests/EndToEndScaleOutTests.swift) also read its keys with redis-cli and put
    # nginx in front of two instances; the browser-module test (Tests/Browser/browser_client_test.py) serves its app
    # page with nginx and proxies /__/auth/ through it.
    packages+=(redis-server redis-tools nginx-light)
    # The accounts store's PostgreSQL engine: the tests run their own server (initdb in a temporary directory as an
    # unprivileged user; Tests/TestSupport/PostgresTestServer.swift, and PostgresServer in
    # Tests/Browser/browser_signin_test.py for the accounts browser tests, which also use its psql).
    packages+=(postgresql)
    # The real-browser test (Tests/Browser/): headless Chromium driven through WebDriver.
    packages+=(chromium chromium-driver python3-selenium)
    # The packaging test (Tests/Packaging/): dpkg-shlibdeps (dpkg-dev, which pulls in binutils for readelf),
    # systemd-analyze (systemd), and curl for /healthz.
    packages+=(dpkg-dev binutils systemd curl)
fi
if [[ $level == bench ]]; then
    packages+=(wrk hyperfine openssl curl)
    # The relying party operators would pick instead, run beside ours in the same run (bench/openidc.sh).
    packages+=(apache2 libapache2-mod-auth-openidc)
fi

missing=()
for package in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
    [[ $status == "install ok installed" ]] || missing+=("$package")
done

if ! command -v swift >/dev/null 2>&1; then
    echo "install-deps: the Swift 6 toolchain is not on PATH; install it (e.g. under /opt/swift) and add its usr/bin to PATH" >&2
    exit 1
fi

if [[ ${#missing[@]} -eq 0 ]]; then
    exit 0
fi

command="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
    echo "install-deps: missing Debian packages: ${missing[*]}" >&2
    echo "install-deps: run as root:  $command" >&2
    exit 1
fi
echo "install-deps: installing ${missing[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
