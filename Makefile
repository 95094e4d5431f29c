# auth-handler — the two commands a newcomer needs are `make demo` and `make test`.
SWIFT ?= swift
BINARY = .build/debug/auth-handler
SWIFT_SOURCES = Package.swift Sources Tests

.PHONY: all deps build release demo test browser-test lint format bench clean

all: build

deps:
	@scripts/install-deps.sh test

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

## A real sign-in against the built-in fake IdP, in one process, no browser needed.
demo: build
	$(BINARY) demo --headless

lint:
	$(SWIFT) format lint --strict --recursive $(SWIFT_SOURCES)

format:
	$(SWIFT) format --in-place --recursive $(SWIFT_SOURCES)

## The whole suite: dependencies, formatting, unit, process, end-to-end and real-browser tests.
## The Swift tests run in four runs: the HTTP layer's tests assert timing (200 concurrent requests in under 2 s, keep-alive,
## idle time-outs) and must not share the two cores' cooperative threads with CPU-bound crypto tests
## (RSA key generation) or with the end-to-end tests' processes. Each run has a hard time limit, so a
## hung test fails the run instead of stalling CI.
TEST_TIME_LIMIT ?= 900
TEST = timeout --signal=KILL $(TEST_TIME_LIMIT) $(SWIFT) test --skip-build
test: deps lint
	$(SWIFT) build --build-tests
	$(TEST) --filter 'AuthHandlerTests\.HTTP'
	$(TEST) --filter AuthHandlerTests --skip 'AuthHandlerTests\.HTTP'
	$(TEST) --filter FakeIdPTests
	$(TEST) --filter EndToEndTests
	$(BROWSER_TEST)

## Real-browser sign-ins: headless Chromium through chromedriver against `serve` and `fake-idp`
## (Tests/Browser/). Debian's python3 has python3-selenium. `timeout` sends SIGTERM first, so the test stops
## its browsers and servers; SIGKILL 15 s later if it has not.
BROWSER_TEST_TIME_LIMIT ?= 300
BROWSER_PYTHON ?= /usr/bin/python3
BROWSER_TEST = timeout --kill-after=15 $(BROWSER_TEST_TIME_LIMIT) $(BROWSER_PYTHON) Tests/Browser/browser_signin_test.py
browser-test: build
	$(BROWSER_TEST)

bench:
	@scripts/install-deps.sh bench
	bench/run

clean:
	rm -rf .build
