# DuktapeCore — the commands in the README. Each target installs what it needs.
SWIFT ?= swift
DUKTAPE_SOURCE := /usr/share/duktape/duktape.c
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps bench-deps build test demo bench clean

# Debian's duktape-dev ships the engine's amalgamated source and headers, which the CDuktape
# target compiles (see README, "How the engine is built").
deps:
	@if [ ! -f $(DUKTAPE_SOURCE) ] || [ ! -f /usr/include/duktape.h ]; then \
		echo "Installing duktape-dev..."; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq duktape-dev; \
	fi

# The benchmarks also need JavaScriptCore's C API (the comparison engine) and hyperfine.
bench-deps: deps
	@if ! pkg-config --exists javascriptcoregtk-4.1 2>/dev/null || ! command -v hyperfine >/dev/null; then \
		echo "Installing libjavascriptcoregtk-4.1-dev and hyperfine..."; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libjavascriptcoregtk-4.1-dev hyperfine pkg-config; \
	fi

build: deps
	$(SWIFT) build

test: deps
	$(SWIFT) test

demo: deps
	$(SWIFT) build
	$(SWIFT) run dukjs demo
	@echo; echo "== Example: blocks (Swift closures as JavaScript functions)"
	@$(SWIFT) run blocks
	@echo; echo "== Example: export (Swift objects and classes in JavaScript)"
	@$(SWIFT) run export

# Runs W0-W9 against raw Duktape and JavaScriptCore and writes Benchmarks/RESULTS.md.
bench: bench-deps
	Benchmarks/scripts/run.sh

clean:
	rm -rf .build .build-*
