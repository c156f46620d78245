# DuktapeCore — the commands in the README. Each target installs what it needs.
SWIFT ?= swift
DUKTAPE_SOURCE := /usr/share/duktape/duktape.c
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps bench-deps bench-check-deps build test test-sanitize demo bench bench-check fuzz fuzz-build clean test262 promises-aplus docs snippets

# Debian's duktape-dev ships the engine's amalgamated source and headers, which the CDuktape
# target compiles (see README, "How the engine is built").
# DuktapeWeb inflates gzip and deflate bodies with the system zlib (zlib1g-dev). The web tests
# also serve static files with Python's http.server.
# ES2015+ syntax is lowered by TypeScript's compiler (node-typescript: a JavaScript file, run in
# Duktape; no Node needed). Without it, ES5 still runs (README, "Modern JavaScript").
TYPESCRIPT := /usr/share/nodejs/typescript/lib/typescript.js
deps:
	@if [ ! -f $(DUKTAPE_SOURCE) ] || [ ! -f /usr/include/duktape.h ] || [ ! -f /usr/include/zlib.h ] || ! command -v python3 >/dev/null \
		|| [ ! -f $(TYPESCRIPT) ]; then \
		echo "Installing duktape-dev, zlib1g-dev, python3 and node-typescript..."; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends duktape-dev zlib1g-dev python3 node-typescript; \
	fi
	@# The WebSocket tests: Python's websockets (13 or later, PyPI) as an independent peer, and
	@# openssl for a self-signed wss server.
	@if ! python3 -c 'import websockets.asyncio.server' 2>/dev/null; then \
		echo "Installing Python's websockets..."; \
		python3 -m pip --version >/dev/null 2>&1 || { $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
			$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pip; }; \
		python3 -m pip install -q 'websockets>=13' 2>/dev/null || python3 -m pip install -q --break-system-packages 'websockets>=13'; \
	fi
	@command -v openssl >/dev/null || { $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssl; }

# The instruction counts (`make bench-check`, and a table in RESULTS.md) need valgrind.
bench-check-deps: deps
	@if ! command -v valgrind >/dev/null || ! command -v strip >/dev/null; then \
		echo "Installing valgrind and binutils..."; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind binutils; \
	fi

# The benchmarks also need JavaScriptCore's C API (the comparison engine), hyperfine, Node (the
# comparison for W10 and W11) and matplotlib (the chart).
bench-deps: deps bench-check-deps
	@if ! pkg-config --exists javascriptcoregtk-4.1 2>/dev/null || ! command -v hyperfine >/dev/null || ! command -v node >/dev/null \
		|| ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null || ! command -v curl >/dev/null; then \
		echo "Installing libjavascriptcoregtk-4.1-dev, hyperfine, nodejs, python3-matplotlib and curl..."; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libjavascriptcoregtk-4.1-dev hyperfine pkg-config \
			python3-matplotlib curl $$(command -v node >/dev/null || echo nodejs); \
	fi

build: deps
	$(SWIFT) build

# `make test`: the whole suite, built with AddressSanitizer and LeakSanitizer; `make
# test-sanitize`: the whole suite under ThreadSanitizer. Each in its own build folder; any report
# fails the run; no report of this package's code is suppressed (ThreadSanitizer's file names
# two of the Swift runtime's own, see Tests/ThreadSanitizer.supp). (`swift test` runs the suite without a sanitizer.
# Both sanitized builds take about as long as a plain one, and the AddressSanitizer run about
# as long as a plain run: a plain `make test` besides them made CI 50 minutes.) One exception:
# the loader example's child process runs without LeakSanitizer's exit check (ExamplesTests
# says why: Swift side tables of pages still being torn down at exit).
# - The test bundle runs only its Swift Testing tests (there are no XCTest ones): `swift test`
#   would also start XCTest's empty run, whose suite objects leak (LeakSanitizer, XCTest 6.3).
# - ASan's use-after-return mode is off: it moves locals to a heap "fake stack", which breaks
#   the native stack guard (it compares the frame address with the thread's stack bounds, see
#   shims.c), and its allocator degrades over a long run (google/sanitizers#1483); Duktape's
#   longjmp-based errors make that quadratic (the memory-limit tests took over 5 minutes).
# - C code (the engine, zlib, NIO's C parts) is compiled with -O1, as the sanitizers' authors
#   advise; Swift stays a debug build. At a debug build's -O0 the engine interprets several
#   times slower, and the whole suite under AddressSanitizer took 613 s here (over 840 s in CI,
#   where four network tests ran out of time); with -O1, 182 s.
# - Each run is three processes: the suites that lower modern syntax through the transpiler,
#   then the web host's (DuktapeWebTests), then all the others. Swift Testing starts every test
#   at once on a pool of two threads (two cores), and a synchronous test holds its thread until
#   it ends: under ThreadSanitizer, CPU-bound core and runtime tests held both for minutes, and
#   network tests waiting on them ran out of their 60 s (WebLoader) and 120 s limits (no race
#   reported; each passed alone in 2 s). Split, each process passes: 30, 171 and 498 tests.
SANITIZED_TESTS = debug/DuktapeCorePackageTests.xctest --testing-library swift-testing
SANITIZED_BUILD = $(SWIFT) build --build-tests -Xcc -O1
TRANSPILER_SUITES = ModernSyntax|JSScriptTests|DukjsModernTests
WEB_SUITES = DuktapeWebTests
ASAN_RUN = ASAN_OPTIONS=detect_stack_use_after_return=0:detect_leaks=1 .build-asan/$(SANITIZED_TESTS)
# Under ThreadSanitizer the Swift runtime's crash handler must stay off: it clones a process to
# take the backtrace, and ThreadSanitizer's clone interceptor fails a CHECK in that child, which
# is all a crashed run then printed. Without it a trap prints Swift's own "Fatal error" line, and
# a bad access ThreadSanitizer's report with its stack. The suppressions are the Swift runtime's
# (Tests/ThreadSanitizer.supp says which and why), none of this package's code.
# At most 6 tests at once: Swift 6.3's Swift Testing starts every test at once, and on a 2-core
# machine ThreadSanitizer's slowdown then left the web suite's network tests (hundreds of
# requests, servers and 64 MB streams in flight together) waiting past their 60 s timeouts; this
# failed the same way at the last commit that had passed CI. Capped, the web suite takes 51 s.
TSAN_RUN = SWIFT_BACKTRACE=enable=no TSAN_OPTIONS=halt_on_error=1:suppressions=$(CURDIR)/Tests/ThreadSanitizer.supp .build-tsan/$(SANITIZED_TESTS) \
	--experimental-maximum-parallelization-width 6
test: deps
	$(SANITIZED_BUILD) --sanitize=address --scratch-path .build-asan
	$(ASAN_RUN) --filter '$(TRANSPILER_SUITES)'
	$(ASAN_RUN) --filter '$(WEB_SUITES)' --skip '$(TRANSPILER_SUITES)'
	$(ASAN_RUN) --skip '$(TRANSPILER_SUITES)|$(WEB_SUITES)'

# `make snippets`: every Swift example of the README, the DocC articles and the doc comments that
# claim output (`// prints:`) is generated into Tests/DocSnippets (Documentation/snippets.py says
# how blocks are wrapped and marked), built as a consumer's code is (warnings as errors) in the
# AddressSanitizer build folder `make test` filled (only the examples compile), and run; what
# each prints must be what its document says. Then a package made of the README's Package.swift
# lines, depending on this checkout by path, is built in a folder of its own and run.
snippets: deps
	/usr/bin/python3 Documentation/snippets.py generate Tests/DocSnippets
	DUKTAPECORE_SNIPPETS=1 $(SWIFT) build -Xcc -O1 --sanitize=address --scratch-path .build-asan --product doc-snippets
	ASAN_OPTIONS=detect_stack_use_after_return=0:detect_leaks=1 /usr/bin/python3 Documentation/snippets.py run .build-asan/debug/doc-snippets Tests/DocSnippets
	/usr/bin/python3 Documentation/snippets.py consumer . .build/consumer

# `make docs`: a DocC archive per library, by swift-docc-plugin, with every warning an error
# (an unresolved symbol or article link fails the build): .build/docs/<module>.doccarchive.
DOCC_TARGETS = DuktapeCore DuktapeRuntime DuktapeWeb
docs: deps
	@mkdir -p .build/docs
	@for target in $(DOCC_TARGETS); do \
		$(SWIFT) package --disable-sandbox --allow-writing-to-directory .build/docs generate-documentation \
			--target $$target --warnings-as-errors --output-path .build/docs/$$target.doccarchive || exit 1; \
	done
	@echo "Documentation: $(foreach t,$(DOCC_TARGETS),.build/docs/$(t).doccarchive)"

# The web suites once timed out together under ThreadSanitizer (ten fetches with no response
# head within 60 s, no race reported). The cause was the Swift runtime, not the network: generic
# code that is not specialized (a debug build; _StringProcessing's `firstRange(of:)` in any
# build) looks up prespecialized generic metadata such as Range<Int> for each element, and each
# lookup takes one process-wide lock, a priority-inheritance futex. The transpiler's byte search
# did that for every byte of every page script; with ThreadSanitizer's slower critical section
# and dispatch adding threads while they waited, about forty threads queued on that lock. The
# search is C's now (Transpiler.needsLoweringThoughParsed), and the test servers' too.
# The same lock stalled the web suite again (2 of 4 runs, and CI): swift-nio masks WebSocket
# payloads a byte a step through `enumerated()`, a metadata lookup per byte in a debug build,
# and four event-loop threads masking 64 MB streams queued on it for a minute and a half while
# every other connection's accepts, timeouts and heartbeats waited. Frames are masked and
# written by our own code now (DuktapeWeb's WebSocketFraming), and the web suite takes 51 s.
test-sanitize: deps
	$(SANITIZED_BUILD) --sanitize=thread --scratch-path .build-tsan
	$(TSAN_RUN) --filter '$(TRANSPILER_SUITES)'
	$(TSAN_RUN) --filter '$(WEB_SUITES)' --skip '$(TRANSPILER_SUITES)'
	$(TSAN_RUN) --skip '$(TRANSPILER_SUITES)|$(WEB_SUITES)'

# A conformance run against test262 (not part of CI): TEST262 names a checkout of tc39/test262;
# a deterministic sample of TEST262_SAMPLE ES5 and ES2015 tests runs through dukjs (see
# Conformance/test262.py for what is sampled and what is not run).
TEST262_SAMPLE ?= 250
test262: deps
	@test -d "$(TEST262)/test" || { echo "make test262 TEST262=<a checkout of tc39/test262>"; exit 2; }
	$(SWIFT) build -c release --product dukjs
	/usr/bin/python3 Conformance/test262.py "$(TEST262)" .build/release/dukjs --sample $(TEST262_SAMPLE)

# The Promises/A+ compliance suite (872 tests) under `dukjs run`, with the engine's Promise as
# the adapter: `make promises-aplus PROMISES_TESTS=<a checkout of promises-aplus/promises-tests>`.
promises-aplus: deps
	@test -d "$(PROMISES_TESTS)/lib/tests" || { echo "make promises-aplus PROMISES_TESTS=<a checkout of promises-aplus/promises-tests>"; exit 2; }
	$(SWIFT) build --product dukjs
	bash Conformance/promises-aplus.sh "$(PROMISES_TESTS)" .build/debug/dukjs

demo: deps
	$(SWIFT) build
	$(SWIFT) run dukjs demo
	@echo; echo "== Example: blocks (Swift closures as JavaScript functions)"
	@$(SWIFT) run blocks
	@echo; echo "== Example: export (Swift objects and classes in JavaScript)"
	@$(SWIFT) run export
	@echo; echo "== Example: async (event loop, timers, promises both ways, console, require)"
	@$(SWIFT) run async
	@echo; echo "== Example: loader (WebLoader: GET, POST, upload, download, streamed download)"
	@$(SWIFT) run loader
	@echo; echo "== Example: bridges ($$flex and WebViewJavascriptBridge on a served page)"
	@$(SWIFT) run bridges

# Runs W0-W11 against raw Duktape (unprotected and protected), JavaScriptCore and Node, and
# writes Benchmarks/RESULTS.md and Benchmarks/RESULTS.svg.
bench: bench-deps
	Benchmarks/scripts/run.sh

# The performance gate (CI runs it): instructions per operation of ours, counted by callgrind
# (repeatable whatever else the machine runs), against Benchmarks/instruction-thresholds.json;
# fails when one workload costs more than its threshold + 5 %. Thresholds change only in
# commits of their own that say why.
bench-check: bench-check-deps
	$(SWIFT) build -c release --package-path Benchmarks --product instruction-probe
	/usr/bin/python3 Benchmarks/scripts/instructions.py Benchmarks/.build/release/instruction-probe \
		--check Benchmarks/instruction-thresholds.json

# libFuzzer harnesses (Fuzz/, see its Package.swift): each runs SECONDS seconds, starting from
# the committed seeds (Fuzz/Corpus) plus what earlier runs kept (Fuzz/.corpus), with the
# dictionary Fuzz/NAME.dict when there is one (else Fuzz/js.dict). A crash, a leak
# or a failed round trip stops the run and leaves the input in Fuzz/.findings.
# `make fuzz SECONDS=600 FUZZERS=convert` runs one harness for ten minutes.
SECONDS ?= 60
FUZZERS ?= evaluate convert callbacks bridge peers hybrid
FUZZ_BUILD = $(SWIFT) build -c release --package-path Fuzz --scratch-path Fuzz/.build \
	-Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address -Xswiftc -use-ld=lld
fuzz-build: deps
	$(FUZZ_BUILD)

fuzz: fuzz-build
	@mkdir -p Fuzz/.findings
	@for name in $(FUZZERS); do \
		mkdir -p Fuzz/.corpus/$$name; \
		echo "== fuzz-$$name for $(SECONDS) s"; \
		SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_stack_use_after_return=0 Fuzz/.build/release/fuzz-$$name \
			Fuzz/.corpus/$$name Fuzz/Corpus/$$name -dict=$$(test -f Fuzz/$$name.dict && echo Fuzz/$$name.dict || echo Fuzz/js.dict) \
			-max_total_time=$(SECONDS) \
			-max_len=4096 -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 \
			-artifact_prefix=Fuzz/.findings/$$name- || exit 1; \
	done

clean:
	rm -rf .build .build-*
