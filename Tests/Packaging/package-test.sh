#!/usr/bin/env bash
# Checks the built .deb (`make package-test` builds it first): unpacks it with dpkg-deb -x and checks
# - the layout: binary, both units, docs, an empty /etc/auth-handler/credentials/, no conffiles;
# - the maintainer scripts: postinst reloads systemd; postrm purge removes the state directory;
# - the binary: no library from the Swift toolchain (ldd), every library it links is covered by Depends:,
#   `--version` is the package version, and it serves /healthz with a clean environment (empty
#   LD_LIBRARY_PATH, a PATH without the toolchain);
# - the installed units: ExecStart names the installed binary, `systemd-analyze security --offline=true`
#   exposure <= 1.2, `systemd-analyze verify` clean with ExecStart pointing at the unpacked binary;
# - `make install-files` with the default PREFIX=/usr/local.
# Prints one line per check, then `N passed, N failed`; exits non-zero on any failure.
# Usage: Tests/Packaging/package-test.sh [PACKAGE.deb]
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
max_exposure=1.2

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok    $1"; }
fail() { failed=$((failed + 1)); echo "FAIL  $1"; [[ $# -lt 2 ]] || sed 's/^/      /' <<<"$2"; }
finish() {
    echo "$passed passed, $failed failed"
    [[ $failed -eq 0 ]]
    exit
}

work=$(mktemp -d)
server_pid=
cleanup() {
    if [[ -n $server_pid ]]; then
        kill -KILL "$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

version=$(sed -n 's/.*static let string = "\([^"]*\)".*/\1/p' Sources/AuthHandlerSystem/Version.swift)
arch=$(dpkg --print-architecture)
deb=${1:-$root/auth-handler_${version}_${arch}.deb}
if [[ ! -f $deb ]]; then
    fail "package exists: $deb (run make deb)"
    finish
fi
pass "package exists: $(basename "$deb")"

# The toolchain's libraries: /opt/swift/usr/lib when swift is /opt/swift/usr/bin/swift.
swift_path=$(command -v swift || true)
if [[ -n $swift_path ]]; then
    toolchain_lib=$(cd "$(dirname "$(readlink -f "$swift_path")")/../lib" && pwd)
else
    toolchain_lib=/opt/swift/usr/lib
fi

# --- the package's metadata and layout --------------------------------------------------------------------
pkgroot=$work/root
dpkg-deb -x "$deb" "$pkgroot"
dpkg-deb -e "$deb" "$work/DEBIAN"
field() { dpkg-deb -f "$deb" "$1"; }

[[ $(field Package) == auth-handler && $(field Version) == "$version" && $(field Architecture) == "$arch" ]] &&
    pass "control: auth-handler $version $arch" ||
    fail "control: expected auth-handler $version $arch" "$(field Package) $(field Version) $(field Architecture)"

expected_files=(
    usr/bin/auth-handler
    lib/systemd/system/auth-handler.service
    lib/systemd/system/auth-handler.socket
    usr/share/doc/auth-handler/README.md
    usr/share/doc/auth-handler/docs/OPERATIONS.md
    usr/share/doc/auth-handler/docs/CONFIG.md
    usr/share/doc/auth-handler/example.json
)
missing=()
for f in "${expected_files[@]}"; do [[ -f $pkgroot/$f ]] || missing+=("$f"); done
[[ ${#missing[@]} -eq 0 ]] && pass "layout: binary, units under /lib/systemd/system, docs" ||
    fail "layout: missing ${missing[*]}" "$(cd "$pkgroot" && find . | sort)"

etc_files=$(cd "$pkgroot" && find etc -mindepth 1 ! -type d 2>/dev/null)
credentials_mode=$(stat -c %a "$pkgroot/etc/auth-handler/credentials" 2>/dev/null)
[[ -z $etc_files && ! -e $work/DEBIAN/conffiles && $credentials_mode == 700 ]] &&
    pass "no conffiles; /etc/auth-handler/credentials/ empty, mode 0700" ||
    fail "conffile-free /etc: files '$etc_files', conffiles $( [[ -e $work/DEBIAN/conffiles ]] && echo present || echo absent), credentials mode '$credentials_mode'"

owners=$(dpkg-deb -c "$deb" | awk '{print $2}' | sort -u)
[[ $owners == root/root ]] && pass "every file owned by root/root" || fail "owners: $owners"

[[ -x $work/DEBIAN/postinst ]] && sh -n "$work/DEBIAN/postinst" && grep -q 'systemctl daemon-reload' "$work/DEBIAN/postinst" &&
    pass "postinst: valid sh, reloads systemd" || fail "postinst" "$(cat "$work/DEBIAN/postinst" 2>&1)"

# postrm purge under a root of the test's own ($DPKG_ROOT, as `dpkg --root` sets it): the state directory
# (StateDirectory= with DynamicUser=, so /var/lib/private/auth-handler and the /var/lib/auth-handler link to it)
# goes; what sits beside it and the administrator's /etc/auth-handler stay. The machine's own state is not touched.
purge_root=$work/purge-root
mkdir -p "$purge_root/var/lib/private/auth-handler" "$purge_root/var/lib/private/other" \
    "$purge_root/etc/auth-handler/credentials"
echo key >"$purge_root/var/lib/private/auth-handler/state.key"
echo db >"$purge_root/var/lib/private/auth-handler/state.sqlite"
ln -s private/auth-handler "$purge_root/var/lib/auth-handler"
echo other >"$purge_root/var/lib/private/other/data"
echo secret >"$purge_root/etc/auth-handler/credentials/state-key"
purge_output=$(DPKG_ROOT=$purge_root sh "$work/DEBIAN/postrm" purge 2>&1)
purge_status=$?
if [[ $purge_status -eq 0 && ! -e $purge_root/var/lib/private/auth-handler && ! -L $purge_root/var/lib/auth-handler &&
    -f $purge_root/var/lib/private/other/data && -f $purge_root/etc/auth-handler/credentials/state-key ]]; then
    pass "postrm purge: removes /var/lib/private/auth-handler (state.key) and its link, keeps /etc and the rest"
else
    fail "postrm purge: status $purge_status, left $(cd "$purge_root" && find . | sort | tr '\n' ' ')" \
        "$purge_output$(cat "$work/DEBIAN/postrm")"
fi

# --- the binary ---------------------------------------------------------------------------------------------
binary=$pkgroot/usr/bin/auth-handler
clean_env=(env -i "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" "LD_LIBRARY_PATH=" "HOME=$work")

ldd_output=$("${clean_env[@]}" ldd "$binary" 2>&1)
if grep -qF "$toolchain_lib" <<<"$ldd_output" || grep -q 'not found' <<<"$ldd_output"; then
    fail "ldd: no library from $toolchain_lib, none missing" "$ldd_output"
else
    pass "ldd: $(grep -c '=>' <<<"$ldd_output") libraries, none from $toolchain_lib"
fi

# Each library the binary names (DT_NEEDED) must come from a Debian package that Depends: lists.
depends=$(field Depends)
depends_packages=" $(sed 's/ *([^)]*)//g; s/,/ /g' <<<"$depends") "
uncovered=()
while read -r soname; do
    # "libc.so.6 => /lib/.../libc.so.6 (0x...)", or for the dynamic loader "/lib64/ld-linux-x86-64.so.2 (0x...)".
    path=$(awk -v so="$soname" '$1 == so && $2 == "=>" {print $3} $1 ~ ("/" so "$") {print $1}' <<<"$ldd_output" | head -1)
    package=
    for candidate in "$path" "$(readlink -f "$path")"; do
        [[ -n $package || -z $candidate ]] || package=$(dpkg -S "$candidate" 2>/dev/null | head -1 | cut -d: -f1)
    done
    [[ -n $package && $depends_packages == *" $package "* ]] || uncovered+=("$soname(${package:-no package})")
done < <(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[[ ${#uncovered[@]} -eq 0 ]] && pass "Depends covers every linked library: $depends" ||
    fail "Depends ($depends) misses ${uncovered[*]}"

binary_version=$("${clean_env[@]}" "$binary" --version 2>&1)
[[ $binary_version == *"$version"* ]] && pass "--version: $binary_version" ||
    fail "--version: expected $version" "$binary_version"

# serve on 127.0.0.1:0 with the memory store, read its "listening on" line, GET /healthz, stop it.
cat > "$work/config.json" <<'EOF'
{"listen": ["127.0.0.1:0"], "store": {"kind": "memory"}}
EOF
mkfifo "$work/stdout"
"${clean_env[@]}" "$binary" serve --config "$work/config.json" >"$work/stdout" 2>"$work/stderr" &
server_pid=$!
exec 3<"$work/stdout"
line=
read -r -t 20 -u 3 line
url=$(sed -n 's|^auth-handler listening on \(http://[^ ]*\)$|\1|p' <<<"$line")
if [[ -z $url ]]; then
    fail "serve prints its listening line" "stdout: '$line'; stderr: $(cat "$work/stderr")"
else
    status=$(curl -sS -o "$work/healthz" -w '%{http_code}' --max-time 10 "$url/healthz" 2>&1)
    [[ $status == 200 ]] && pass "serve: GET $url/healthz -> 200" ||
        fail "serve: GET $url/healthz -> $status" "$(cat "$work/healthz" "$work/stderr" 2>/dev/null)"
fi
kill -TERM "$server_pid" 2>/dev/null
wait "$server_pid"
status=$?
server_pid=
exec 3<&-
[[ $status -eq 0 ]] && pass "serve: exits 0 on SIGTERM" || fail "serve: exit status $status on SIGTERM" "$(cat "$work/stderr")"

# --- the installed units ------------------------------------------------------------------------------------
units=$pkgroot/lib/systemd/system
exec_start=$(sed -n 's/^ExecStart=//p' "$units/auth-handler.service")
[[ $exec_start == "/usr/bin/auth-handler serve "* ]] && ! grep -q /usr/local/ "$units/auth-handler.service" "$units/auth-handler.socket" &&
    pass "service: ExecStart=$exec_start, no /usr/local/ left" ||
    fail "service: paths not rewritten to /usr" "$(grep -n '/usr' "$units/auth-handler.service")"

security=$(systemd-analyze security --offline=true "$units/auth-handler.service" 2>&1)
exposure=$(sed -n 's/.*Overall exposure level for auth-handler.service: \([0-9.]*\).*/\1/p' <<<"$security")
if [[ -n $exposure ]] && awk -v e="$exposure" -v max="$max_exposure" 'BEGIN { exit !(e <= max) }'; then
    pass "systemd-analyze security: exposure $exposure <= $max_exposure"
else
    fail "systemd-analyze security: exposure '${exposure:-none}' > $max_exposure" "$(grep -v '✓' <<<"$security")"
fi

# systemd 252's verify checks that ExecStart's binary exists on the host, so verify copies of the installed
# units (same directory, so the socket finds its service) whose ExecStart names the unpacked binary.
verify_dir=$work/verify
mkdir "$verify_dir"
sed "s|^ExecStart=/usr/bin/auth-handler |ExecStart=$binary |" "$units/auth-handler.service" >"$verify_dir/auth-handler.service"
cp "$units/auth-handler.socket" "$verify_dir/"
verify=$(systemd-analyze verify "$verify_dir/auth-handler.service" "$verify_dir/auth-handler.socket" 2>&1)
verify_status=$?
[[ $verify_status -eq 0 && -z $verify ]] && pass "systemd-analyze verify: both units clean" ||
    fail "systemd-analyze verify: status $verify_status" "$verify"

# --- make install-files with the defaults -------------------------------------------------------------------
local_root=$work/usr-local
if make --no-print-directory install-files DESTDIR="$local_root" >"$work/install.log" 2>&1 &&
    [[ -x $local_root/usr/local/bin/auth-handler && -f $local_root/usr/local/share/doc/auth-handler/example.json ]] &&
    grep -qx 'ExecStart=/usr/local/bin/auth-handler serve --config /etc/auth-handler/config.json' \
        "$local_root/usr/local/lib/systemd/system/auth-handler.service" &&
    [[ -f $local_root/usr/local/lib/systemd/system/auth-handler.socket && ! -e $local_root/etc ]]; then
    pass "make install-files: PREFIX=/usr/local layout, units in /usr/local/lib/systemd/system, nothing in /etc"
else
    fail "make install-files with PREFIX=/usr/local" "$(cat "$work/install.log"; cd "$local_root" 2>/dev/null && find . | sort)"
fi

finish
