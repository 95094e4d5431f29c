#!/usr/bin/env bash
# Whole accounts ID tokens against bare ECDSA P-256 signatures, in the same run (issue 25: at least 0.7× of
# `openssl speed ecdsap256`). Ours: `auth-handler-bench idtoken` builds the claims, serializes, encodes and signs a
# token, and parses, verifies and checks one as a bearer token (one core, best of three rounds). Reference:
# `openssl speed -seconds 5 ecdsap256`, one core, a bare sign or verify of a digest. Both rates are per second of CPU
# time (openssl speed divides by its user time unless given -elapsed), so a loaded machine does not skew the ratio.
# Prints `sign OURS OPENSSL RATIO` and `verify OURS OPENSSL RATIO`.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${BENCH_SECONDS:-5}
bench=${BENCH_BIN_DIR:-.build/release}/auth-handler-bench

[[ -x $bench ]] || { echo "idtoken bench: $bench is not built (swift build -c release --product auth-handler-bench)" >&2; exit 1; }

ours=$("$bench" idtoken "$seconds")
reference=$(openssl speed -seconds 5 ecdsap256 2>/dev/null | awk '/ecdsa \(nistp256\)/ {print $(NF - 1), $NF}')
[[ -n $reference ]] || { echo "idtoken bench: no ecdsa (nistp256) line from openssl speed" >&2; exit 1; }

ours_sign=$(awk '$1 == "idtoken-sign" {print $2}' <<<"$ours")
ours_verify=$(awk '$1 == "idtoken-verify" {print $2}' <<<"$ours")
read -r ref_sign ref_verify <<<"$reference"
awk -v o="$ours_sign" -v r="$ref_sign" 'BEGIN {printf "sign %d %d %.2f\n", o, r, o / r}'
awk -v o="$ours_verify" -v r="$ref_verify" 'BEGIN {printf "verify %d %d %.2f\n", o, r, o / r}'
