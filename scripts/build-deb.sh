#!/usr/bin/env bash
# Builds auth-handler_VERSION_ARCH.deb from the release binary (`make deb` runs `make release` first).
# The package is `make install-files PREFIX=/usr DESTDIR=<staging>` plus DEBIAN/control and maintainer
# scripts, packed with dpkg-deb. Version: Sources/AuthHandlerSystem/Version.swift (the test checks that the binary's
# --version agrees); architecture: `dpkg --print-architecture`; Depends: dpkg-shlibdeps on the binary.
# It ships no conffile: /etc/auth-handler/ holds only an empty credentials/ directory (mode 0700), and the
# example configuration is documentation (/usr/share/doc/auth-handler/example.json).
# Usage: [DEB_COMPRESSION=-Zgzip] scripts/build-deb.sh [OUTPUT_DIR]   (default: the repository root)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
output_dir=$(cd "${1:-$root}" && pwd)
cd "$root"

version=$(sed -n 's/.*static let string = "\([^"]*\)".*/\1/p' Sources/AuthHandlerSystem/Version.swift)
[[ $version =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] || {
    echo "build-deb: no usable version in Sources/AuthHandlerSystem/Version.swift: '$version'" >&2
    exit 1
}
arch=$(dpkg --print-architecture)
maintainer=${DEB_MAINTAINER:-auth-handler maintainers <auth-handler@localhost>}
deb=$output_dir/auth-handler_${version}_${arch}.deb

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stage=$work/stage
make --no-print-directory install-files PREFIX=/usr DESTDIR="$stage" >/dev/null
# Debian ships binaries stripped (as dh_strip does): 76 MB -> 58 MB here. Swift's metadata lives in allocated
# sections, which strip keeps; only crash backtraces lose their function names.
strip --strip-unneeded "$stage/usr/bin/auth-handler"
install -d -m 0700 "$stage/etc/auth-handler/credentials"
install -d -m 0755 "$stage/DEBIAN"

# dpkg-shlibdeps wants a source tree: a debian/control stub naming the package is enough. It maps each
# library the binary links to the Debian package that provides it, with the minimum version its symbols need.
install -d "$work/src/debian"
printf 'Source: auth-handler\n\nPackage: auth-handler\nArchitecture: any\n' > "$work/src/debian/control"
shlibs=$(cd "$work/src" && dpkg-shlibdeps -O -e"$stage/usr/bin/auth-handler" 2>"$work/shlibdeps.err") || {
    cat "$work/shlibdeps.err" >&2
    echo "build-deb: dpkg-shlibdeps failed (a library from outside Debian, e.g. the Swift toolchain's?)" >&2
    exit 1
}
depends=${shlibs#shlibs:Depends=}
[[ -n $depends && $depends != "$shlibs" ]] || { echo "build-deb: unexpected dpkg-shlibdeps output: $shlibs" >&2; exit 1; }

cat > "$stage/DEBIAN/control" <<EOF
Package: auth-handler
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Depends: $depends, ca-certificates
Section: net
Priority: optional
Description: self-hosted sign-in handler (/__/auth/handler)
 Signs users in with Twitter (OAuth 1.0a), Google, Facebook, GitHub, Microsoft, Apple or any
 OIDC / OAuth 2 provider for apps, CLIs and desktop programs, keeping the provider secrets in one
 hardened systemd service. Enable it with: systemctl enable --now auth-handler.socket
EOF

# Maintainer scripts: only make systemd see the units that were added, changed or removed, and restart a
# running service onto the new binary after an upgrade. Nothing is enabled or started on install. A purge
# removes the service's state, as Debian policy §10.7.3 asks: the unit's StateDirectory= with DynamicUser=
# is /var/lib/private/auth-handler, reached through the symlink /var/lib/auth-handler (systemd.exec(5)); it
# holds the SQLite store and the generated state.key. rm -rf on the symlink removes the link only.
# /etc/auth-handler/ (the administrator's config and credentials) is left alone. $DPKG_ROOT is the root dpkg
# gives maintainer scripts (empty for the running system; set by `dpkg --root`, and by the packaging test).
cat > "$stage/DEBIAN/postinst" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = configure ] && [ -d /run/systemd/system ]; then
    systemctl daemon-reload || true
    if [ -n "$2" ]; then
        systemctl try-restart auth-handler.service || true
    fi
fi
EOF
cat > "$stage/DEBIAN/prerm" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = remove ] && [ -d /run/systemd/system ]; then
    systemctl stop auth-handler.socket auth-handler.service || true
fi
EOF
cat > "$stage/DEBIAN/postrm" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = remove ] && [ -d /run/systemd/system ]; then
    systemctl daemon-reload || true
fi
if [ "$1" = purge ]; then
    rm -rf "${DPKG_ROOT:-}/var/lib/private/auth-handler" "${DPKG_ROOT:-}/var/lib/auth-handler"
fi
EOF
chmod 0755 "$stage/DEBIAN/postinst" "$stage/DEBIAN/prerm" "$stage/DEBIAN/postrm"

rm -f "$deb"
# xz (dpkg-deb's default) takes ~50 s for the 58 MB binary here; `make package-test` asks for gzip (~5 s).
read -r -a compression <<<"${DEB_COMPRESSION:--Zxz}"
dpkg-deb --root-owner-group "${compression[@]}" --build "$stage" "$deb" >/dev/null
echo "build-deb: $deb (Depends: $depends, ca-certificates)"
