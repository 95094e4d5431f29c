# auth-handler — the two commands a newcomer needs are `make demo` and `make test`.
SWIFT ?= swift
BINARY = .build/debug/auth-handler
SWIFT_SOURCES = Package.swift Sources Tests fuzz/Sources
## Every build refuses an import of a module its target does not declare (docs/ARCHITECTURE.md "Module map"); without
## the check SwiftPM lets such an import through whenever the module happens to be built already.
BUILD_FLAGS = --explicit-target-dependency-import-check error

.PHONY: all deps build release install install-files deb package-test demo test unit browser-test fuzz fuzz-smoke lint \
	format bench soak clean

all: build

deps:
	@scripts/install-deps.sh test

build: deps
	$(SWIFT) build $(BUILD_FLAGS)

## The release binary links the Swift runtime and Foundation statically, so it needs only Debian's libraries
## (libc, libcurl, OpenSSL, libmicrohttpd, SQLite) and nothing from the toolchain's directory.
RELEASE_BINARY = .build/release/auth-handler
release: deps
	$(SWIFT) build $(BUILD_FLAGS) -c release --static-swift-stdlib --product auth-handler

## `make install PREFIX=/usr/local DESTDIR=...`: the release binary, both systemd units with "/usr/local/" in them
## rewritten to PREFIX/, and the README, docs/ and example config as documentation. Units go where systemd looks
## for them: /lib/systemd/system for PREFIX=/usr (Debian's place for a package's units), else
## PREFIX/lib/systemd/system. Nothing is written to /etc: the configuration is the administrator's
## (docs/OPERATIONS.md "Run it as a service").
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(PREFIX)/bin
DOCDIR = $(PREFIX)/share/doc/auth-handler
UNITDIR ?= $(if $(filter /usr,$(PREFIX)),/lib/systemd/system,$(PREFIX)/lib/systemd/system)
install: release
	$(MAKE) --no-print-directory install-files

## install without building: copies what `make release` built.
install-files:
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(DOCDIR)/docs
	install -m 0755 $(RELEASE_BINARY) $(DESTDIR)$(BINDIR)/auth-handler
	for unit in auth-handler.service auth-handler.socket; do \
	    sed 's|/usr/local/|$(PREFIX)/|g' systemd/$$unit > $(DESTDIR)$(UNITDIR)/$$unit && \
	    chmod 0644 $(DESTDIR)$(UNITDIR)/$$unit || exit 1; \
	done
	install -m 0644 README.md $(DESTDIR)$(DOCDIR)/README.md
	install -m 0644 docs/*.md $(DESTDIR)$(DOCDIR)/docs/
	install -m 0644 Config/example.json $(DESTDIR)$(DOCDIR)/example.json

## auth-handler_VERSION_ARCH.deb in this directory, built with dpkg-deb from `make install PREFIX=/usr`
## (scripts/build-deb.sh: Depends: from dpkg-shlibdeps, a postinst that reloads systemd).
DEB_COMPRESSION ?= -Zxz
deb: release
	DEB_COMPRESSION='$(DEB_COMPRESSION)' scripts/build-deb.sh

## Builds the .deb, unpacks it, and checks the packaged binary and units (Tests/Packaging/package-test.sh).
## It reuses the release build when it is up to date, and packs with gzip (about 5 s instead of xz's 50 s
## here), so the .deb it leaves is larger than `make deb`'s but otherwise the same.
PACKAGE_TEST_TIME_LIMIT ?= 300
package-test:
	$(MAKE) --no-print-directory deb DEB_COMPRESSION=-Zgzip
	timeout --kill-after=15 $(PACKAGE_TEST_TIME_LIMIT) Tests/Packaging/package-test.sh

## A real sign-in against the built-in fake IdP, in one process, no browser needed.
demo: build
	$(BINARY) demo --headless

## Formatting, then function length: a function (signature to closing brace) over LONG_FUNCTION_LIMIT lines fails.
## `scripts/long-functions.py` with no arguments lists those over 60 lines, the ones worth splitting next.
LONG_FUNCTION_LIMIT ?= 80
lint:
	$(SWIFT) format lint --strict --recursive $(SWIFT_SOURCES)
	/usr/bin/python3 scripts/long-functions.py $(LONG_FUNCTION_LIMIT) Sources fuzz/Sources bench/Sources
	/usr/bin/python3 scripts/module-map.py --check

format:
	$(SWIFT) format --in-place --recursive $(SWIFT_SOURCES)

## The whole suite: dependencies, formatting, unit, process, end-to-end tests, 10 s of each fuzz target, real-browser
## tests, then the packaging test (a static release build, so the first run adds a few minutes).
## The Swift tests run in eleven runs: the HTTP layer's tests and the Redis store's time-outs assert timing
## (200 concurrent requests in under 2 s, keep-alive, idle time-outs, a hung Redis) and must not share the two cores' cooperative threads with CPU-bound crypto tests
## (RSA key generation) or with the end-to-end tests' processes; the PostgreSQL store's own tests (a stopped server
## answered within its statement timeout, one after another in their suite) run alone after the other unit tests,
## as no other test's CPU may delay their pool's threads past that bound; the end-to-end stalled-Redis tests (answers within
## one command timeout), the slow-client test (200 slow-header connections while a sign-in is served within 2 s), the accounts' timing tests (p99 latency under hashing load, sign-in answered alike in time),
## the two-instance accounts test (503 within PostgreSQL's statement timeout, PostgreSQL stopped and hung mid-load)
## and the reset-while-PostgreSQL-hangs test (200 at once) run after the other end-to-end tests, each alone. Each run
## has a hard time limit, so a hung test fails the run instead of stalling CI.
TEST_TIME_LIMIT ?= 900
TEST = timeout --signal=KILL $(TEST_TIME_LIMIT) $(SWIFT) test --skip-build
test: deps lint
	$(SWIFT) build $(BUILD_FLAGS) --build-tests
	$(TEST) --filter 'AuthHandlerTests\.(HTTP|StoreRedis)'
	$(TEST) --filter AuthHandlerTests --skip 'AuthHandlerTests\.(HTTP|StoreRedis|AccountStorePostgresTests)'
	$(TEST) --filter AuthHandlerTests.AccountStorePostgresTests
	$(TEST) --filter AuthHandlerClientTests
	$(TEST) --filter FakeIdPTests
	$(TEST) --filter EndToEndTests --skip \
		'EndToEndTests\.(EndToEndRedisStallTests|EndToEndSlowClientTests|EndToEndAccountsTimingTests|EndToEndAccountsMultiInstanceTests|EndToEndAccountsResetHangTests)'
	$(TEST) --filter EndToEndTests.EndToEndRedisStallTests
	$(TEST) --filter EndToEndTests.EndToEndSlowClientTests
	$(TEST) --filter EndToEndTests.EndToEndAccountsTimingTests
	$(TEST) --filter EndToEndTests.EndToEndAccountsMultiInstanceTests
	$(TEST) --filter EndToEndTests.EndToEndAccountsResetHangTests
	$(FUZZ_SMOKE)
	$(BROWSER_TEST)
	$(MAKE) --no-print-directory package-test

## The in-process unit tests alone, for the edit-test loop: everything in AuthHandlerTests and AuthHandlerClientTests
## but the HTTP layer's and the Redis store's timing tests; no fake-IdP process, no end-to-end, fuzz, browser or
## packaging run. About 30 s on a warm build; `make test` runs the same tests as part of the whole suite.
UNIT_TIME_LIMIT ?= 120
unit:
	$(SWIFT) build $(BUILD_FLAGS) --build-tests
	timeout --signal=KILL $(UNIT_TIME_LIMIT) $(SWIFT) test --skip-build --filter 'AuthHandlerTests|AuthHandlerClientTests' \
		--skip 'AuthHandlerTests\.(HTTP|StoreRedis)'

## Real-browser sign-ins: headless Chromium through chromedriver against `serve` and `fake-idp`
## (Tests/Browser/): the sign-in endpoints themselves (browser_signin_test.py), then the browser module behind nginx
## (browser_client_test.py), then the pages people see (browser_pages_test.py): the error page, the sign-in picker
## and the --once done page, whose screenshots at 360, 390 and 1280 px (and 390 px dark) are kept as test artifacts
## in .build/test-artifacts/pages/ (under .build/, so git ignores them), then device sign-in (browser_device_test.py):
## `auth-handler login` waits while Chromium enters its code and confirms or cancels, then the module's account
## calls against backend `accounts` (browser_accounts_test.py), then the picker's e-mail entry with JavaScript off
## and on (browser_picker_accounts_test.py: sign-up, sign-in, reset through a real SMTP server), each of these two
## once with the accounts on SQLite and once on PostgreSQL (ACCOUNTS_DATABASE=postgres: a throwaway server of
## Debian's postgresql, initdb'd in a temporary directory, on a free port of 127.0.0.1; about 40 s more), then
## `auth-handler demo` without --headless and its sample page (browser_demo_test.py; the demo is SQLite by design).
## Debian's python3 has python3-selenium and python3-aiosmtpd.
## `timeout` sends SIGTERM first, so each test stops its browsers and servers; SIGKILL 15 s later if it has not.
BROWSER_TEST_TIME_LIMIT ?= 300
BROWSER_PYTHON ?= /usr/bin/python3
BROWSER_TEST = timeout --kill-after=15 $(BROWSER_TEST_TIME_LIMIT) $(BROWSER_PYTHON) Tests/Browser/browser_signin_test.py \
	&& timeout --kill-after=15 $(BROWSER_TEST_TIME_LIMIT) $(BROWSER_PYTHON) Tests/Browser/browser_client_test.py \
	&& timeout --kill-after=15 $(BROWSER_TEST_TIME_LIMIT) $(BROWSER_PYTHON) Tests/Browser/browser_pages_test.py \
	&& timeout --kill-after=15 $(BROWSER_TEST_TIME_LIMIT) $(BROWSER_PYTHON) Tests/Browser/browser_device_test.py \
	&& ACCOUNTS_DATABASE=sqlite timeout --kill-after=15 $(BROWSER_TEST_TIME_LIMIT) $(BROWSER_PYTHON) Tests/Browser/browser_accounts_test.py \
	&& ACCOUNTS_DATABASE=postgres timeout --kill-after=15 $(BROWSER_TEST_TIME_LIMIT) $(BROWSER_PYTHON) Tests/Browser/browser_accounts_test.py \
	&& ACCOUNTS_DATABASE=sqlite timeout --kill-after=15 $(BROWSER_TEST_TIME_LIMIT) $(BROWSER_PYTHON) Tests/Browser/browser_picker_accounts_test.py \
	&& ACCOUNTS_DATABASE=postgres timeout --kill-after=15 $(BROWSER_TEST_TIME_LIMIT) $(BROWSER_PYTHON) Tests/Browser/browser_picker_accounts_test.py \
	&& timeout --kill-after=15 $(BROWSER_TEST_TIME_LIMIT) $(BROWSER_PYTHON) Tests/Browser/browser_demo_test.py
browser-test: build
	$(BROWSER_TEST)

## libFuzzer over every parser of outside input (fuzz/, CONTRIBUTING.md "Fuzzing"): builds
## fuzz/Sources/auth-handler-fuzz with -sanitize=fuzzer,address in .build/fuzz, then runs each target for
## FUZZ_SECONDS from its seeds in fuzz/corpus/ and prints executions, exec/s and coverage per target. `make test` runs each for 10 s (fuzz-smoke), so that a parser
## change that breaks the harness, or a crash the seeds reach, fails the suite.
FUZZ_SECONDS ?= 300
FUZZ_SMOKE = FUZZ_SECONDS=10 fuzz/run
fuzz:
	@scripts/install-deps.sh build
	FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run

fuzz-smoke:
	@scripts/install-deps.sh build
	$(FUZZ_SMOKE)

bench:
	@scripts/install-deps.sh bench
	bench/run

## SOAK_SECONDS (default 600) of mixed traffic against the release daemon (bench/soak.py): sign-ins over every
## protocol, IdP failures, replays and floods; writes bench/soak.md and the RSS plot bench/soak-rss.svg, and fails
## when any answer was unexpected.
SOAK_SECONDS ?= 600
soak: release
	@scripts/install-deps.sh bench
	/usr/bin/python3 bench/soak.py --seconds $(SOAK_SECONDS)

clean:
	rm -rf .build auth-handler_*.deb
