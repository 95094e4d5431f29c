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
test: deps lint
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

bench:
	@scripts/install-deps.sh bench
	bench/run

clean:
	rm -rf .build
