# auth-handler — the two commands a newcomer needs are `make demo` and `make test`.
SWIFT ?= swift
BINARY = .build/debug/auth-handler
SWIFT_SOURCES = Package.swift Sources Tests

.PHONY: all deps build release demo test lint format bench clean

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

## The whole suite: dependencies, formatting, unit, process and end-to-end tests.
## One test target at a time: the end-to-end tests start many processes, and the unit tests include
## timing assertions (200 concurrent requests in under 2 s) that should not share two cores with them.
## Each target also has a hard time limit, so a hung test fails the run instead of stalling CI.
TEST_TIME_LIMIT ?= 900
test: deps lint
	$(SWIFT) build --build-tests
	timeout --signal=KILL $(TEST_TIME_LIMIT) $(SWIFT) test --skip-build --filter AuthHandlerTests
	timeout --signal=KILL $(TEST_TIME_LIMIT) $(SWIFT) test --skip-build --filter FakeIdPTests
	timeout --signal=KILL $(TEST_TIME_LIMIT) $(SWIFT) test --skip-build --filter EndToEndTests

bench:
	@scripts/install-deps.sh bench
	bench/run

clean:
	rm -rf .build
