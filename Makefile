# Rainforest and Canopy. `make setup` once, then `make run`.
SWIFT ?= swift
# A recipe's pipe fails when its first command does (the tests' output goes through tee).
SHELL := bash
.SHELLFLAGS := -o pipefail -c
# Each test run's output, for its report (.ci/test-report: counts and the 20 slowest tests).
LOGS := .build/logs
BIN := .build/release/rainforest
# What the build, the tests and the headless renderer need from Debian: SDL2 and its image and
# font libraries; the codecs (libjpeg-turbo, libpng, libwebp, giflib for animated GIFs, libheif
# for HEIC and AVIF), EXIF (libexif), colour management (Little CMS), MD5 for thumbnails' names
# (libssl), font fallback (fontconfig) and the fonts it falls back to, bidirectional text
# (FriBiDi); for the tests, libheif's encoder, Ghostscript's ICC profiles, ImageMagick; Mesa,
# Xvfb and xdotool for windows; valgrind for the bench.
APT_PACKAGES := pkg-config libsdl2-dev libsdl2-ttf-dev libsdl2-image-dev \
                libjpeg62-turbo-dev libpng-dev libwebp-dev libgif-dev libheif-dev libexif-dev liblcms2-dev libssl-dev \
                libfontconfig-dev libfribidi-dev fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji \
                libheif-examples libgs-common \
                libgl1-mesa-dri libegl-mesa0 xvfb xauth xdotool imagemagick \
                valgrind binutils
# Options for `make run`, e.g. make run ARGS="--cards 200".
ARGS ?=
BENCH_ARGS ?= --scenario all --mode both --cards 1000 --speed 1000,3000,8000 --duration 10 --json bench.json

# `make test-tsan`: Canopy's tests, and CanopyGraphics' concurrent ones, under ThreadSanitizer, in a
# build directory of their own so that neither build invalidates the other.
TSAN_BUILD := .build/tsan
TSAN_SWIFT_FLAGS := --sanitize=thread --scratch-path $(TSAN_BUILD)
# TSan cannot see Synchronization.Mutex's contended paths; .ci/tsan-mutex.c tells it (and says why).
# It is built with the clang that comes with the Swift toolchain (it needs Swift's calling convention).
TSAN_MUTEX := $(TSAN_BUILD)/libtsan-mutex.so
CLANG ?= $(firstword $(wildcard $(dir $(realpath $(shell command -v $(SWIFT))))clang) clang)
# The rest of CanopyGraphics' tests draw pixels on one thread: slow under TSan, and nothing to race.
TSAN_TESTS := --filter '^CanopyTests\.' \
              --filter '^CanopyGraphicsTests\.(ImageCache|ImageCacheRemoval|TextLayoutCache|TextLayout)Tests/' \
              --filter '^CanopyGraphicsTests\.ImageDecoderTests/testConcurrent'
# A report fails the run: halt_on_error stops the tests at the first one, with exit code 66.
# Every report of a run, not just the first: make test-tsan TSAN_RUN_OPTIONS="halt_on_error=0 ..." (still fails).
TSAN_RUN_OPTIONS ?= halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/.ci/tsan.supp

# `make test-asan`: every test under AddressSanitizer with LeakSanitizer, in a build directory of
# its own. Any report fails: an address error stops the process at once (halt_on_error), a leak
# is reported when the process exits and fails its exit status. lld links (gold warns about
# every one of ASan's outlined checks); the Swift backtracer is off, so ASan's reports are whole.
ASAN_BUILD := .build/asan
ASAN_SWIFT_FLAGS := --sanitize=address --scratch-path $(ASAN_BUILD) -Xswiftc -use-ld=lld
# LeakSanitizer cannot scan a library once it is unloaded: .ci/lsan-keep-libraries.c keeps them
# all loaded (and says why). .ci/lsan.supp names the two reports that are not ours (Swift's
# runtime, and libdbus under SDL_Init), each with how it was shown. XCTest's own state is made
# visible to LeakSanitizer by Tests/CanopyTests/LeakSanitizerRoot.swift.
ASAN_KEEP_LIBRARIES := $(ASAN_BUILD)/liblsan-keep-libraries.so
ASAN_RUN_OPTIONS ?= detect_leaks=1 halt_on_error=1
# CI's AddressSanitizer run leaves out the short soaks (SoakTests: 10% of the run, the same
# viewer code as the other end-to-end tests and the ASan scroll); make ci-full runs them too.
ASAN_TESTS ?= --skip '^RainforestTests\.SoakTests/'
ASAN_ENV = SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="$(ASAN_RUN_OPTIONS)" \
           LSAN_OPTIONS="suppressions=$(CURDIR)/.ci/lsan.supp print_suppressions=0" LD_PRELOAD="$(CURDIR)/$(ASAN_KEEP_LIBRARIES)"
TSAN_ENV = TSAN_OPTIONS="$(TSAN_RUN_OPTIONS)" LD_PRELOAD="$(CURDIR)/$(TSAN_MUTEX)"
# `make scroll-tsan`, `make scroll-asan`: the bench's headless scroll over 1,000 cards by the
# sanitized debug build of the tests' binary, at SCROLL_SPEEDS pt/s (at that speed a sanitized
# build starts displays and cancels most as their cards leave), stopping after every
# SCROLL_SETTLE pt (three screens) until the visible cards are displayed. With stops, the run is
# SCROLL_SECONDS x SCROLL_SPEEDS points long (9,000), the stops left out of its time, so however
# slow the build or the machine, it stops at 2,400, 4,800 and 7,200 pt and cards land. The
# 1280 x 800 window shows at least two cards (at most 548 pt tall) in each column, none of them
# seen at another stop or on the first screen, so a run lands at least 4 x (3 + 1) displays:
# fewer than SCROLL_MIN_DISPLAYS fails the step.
SCROLL_SECONDS ?= 3
SCROLL_SPEEDS ?= 3000
SCROLL_SETTLE ?= 2400
SCROLL_MIN_DISPLAYS ?= 16
SCROLL_ARGS = bench --scenario scrolling --cards 1000 --size 1280x800 --speed $(SCROLL_SPEEDS) \
              --duration $(SCROLL_SECONDS) --settle-every $(SCROLL_SETTLE) --min-displays $(SCROLL_MIN_DISPLAYS) --timeout 600
# `make fuzz`: the libFuzzer targets (Fuzz/run says how they are built), side by side, each for
# its fixed number of inputs (Fuzz/run); FUZZ_SECONDS=600 runs each for that long instead.
# FUZZ_TARGETS picks some: cards-file, image-header, layout.
FUZZ_SECONDS ?=
FUZZ_TARGETS ?=
# `make docs`: Canopy's documentation (Sources/Canopy/Canopy.docc and the doc comments) by the
# toolchain's docc, from the symbol graph the compiler emits for Canopy, in a build directory of
# its own (the extra compiler flags would rebuild the main build's modules each time). Any
# diagnostic in the catalog, and a link to a symbol that is not there (or is ambiguous) anywhere,
# fails it, so the articles cannot rot; docc's other warnings about doc comments in the sources
# (a parameter left undocumented) are printed and pass, since --warnings-as-errors would fail
# on those too.
DOCS_BUILD := .build/docs
DOCS_SYMBOL_GRAPHS := $(CURDIR)/$(DOCS_BUILD)/symbol-graphs
DOCS_ARCHIVE := $(DOCS_BUILD)/Canopy.doccarchive
DOCC ?= $(firstword $(wildcard $(dir $(realpath $(shell command -v $(SWIFT))))docc) docc)
# `make lint`, `make format`: swift-format (the toolchain's `swift format`) with .swift-format,
# over everything Swift that is ours.
FORMAT_PATHS := Sources Tests Fuzz Package.swift

.PHONY: setup build run install uninstall test test-tsan test-asan scroll-tsan scroll-asan fuzz bench clean \
        test-slow ci ci-slow ci-full docs lint format

setup:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "setup: everything is installed"; exit 0; fi; \
	if [ "$$(id -u)" -eq 0 ]; then sudo=""; \
	elif command -v sudo >/dev/null 2>&1; then sudo="sudo"; \
	else echo "setup: installing$$missing needs root or sudo" >&2; exit 1; fi; \
	echo "setup: installing$$missing"; \
	$$sudo apt-get update -qq && \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing
	@command -v $(SWIFT) >/dev/null || { echo "setup: Swift 6 is needed (swift.org/install)" >&2; exit 1; }

# The app, and the bare SDL program the bench compares the compositor with (bench --scenario compositor).
build:
	$(SWIFT) build -c release --product rainforest
	$(SWIFT) build -c release --product bare-sdl-floor

run: build
	$(BIN) $(ARGS)

# `make install`: the viewer for this user (PREFIX=~/.local) or the machine (PREFIX=/usr/local):
# the binary, its resources (found as share/rainforest beside the binary's folder), an icon and a
# .desktop entry for images and folders, so that the desktop lists it and file managers offer it.
# The binary links the Swift runtime of the toolchain that built it (it must stay installed).
PREFIX ?= $(HOME)/.local
BINDIR := $(DESTDIR)$(PREFIX)/bin
DATADIR := $(DESTDIR)$(PREFIX)/share
ICONDIR := $(DATADIR)/icons/hicolor
install: build
	install -d $(BINDIR) $(DATADIR)/rainforest $(DATADIR)/applications $(ICONDIR)/256x256/apps $(ICONDIR)/64x64/apps
	install -m 755 $(BIN) $(BINDIR)/rainforest
	cp -R Resources/. $(DATADIR)/rainforest/
	$(BIN) icon --size 256 --output $(ICONDIR)/256x256/apps/rainforest.png
	$(BIN) icon --size 64 --output $(ICONDIR)/64x64/apps/rainforest.png
	sed 's|@BINDIR@|$(PREFIX)/bin|g' packaging/rainforest.desktop.in > $(DATADIR)/applications/rainforest.desktop
	@if command -v update-desktop-database >/dev/null; then update-desktop-database -q $(DATADIR)/applications; fi
	@if command -v gtk-update-icon-cache >/dev/null; then gtk-update-icon-cache -q -t $(ICONDIR); fi
	@echo "installed $(BINDIR)/rainforest; the desktop lists Rainforest (it opens folders and photos)"

uninstall:
	rm -f $(BINDIR)/rainforest $(DATADIR)/applications/rainforest.desktop
	rm -f $(ICONDIR)/256x256/apps/rainforest.png $(ICONDIR)/64x64/apps/rainforest.png
	rm -rf $(DATADIR)/rainforest
	@if command -v update-desktop-database >/dev/null; then update-desktop-database -q $(DATADIR)/applications; fi
	@echo "removed Rainforest from $(DESTDIR)$(PREFIX)"

# Runs the tests its arguments name (after `swift test --skip-build`) with the environment in
# $(1), their output also in $(LOGS)/$(2).log, then reports their counts and the slowest.
# The tests' thumbnails (Rainforest shares the desktop's for --images) go to a folder of their
# own, emptied before each run, never to the user's $XDG_CACHE_HOME.
TEST_CACHE_HOME := $(CURDIR)/.build/test-cache
define run-tests
@mkdir -p $(LOGS); rm -rf $(TEST_CACHE_HOME); mkdir -p $(TEST_CACHE_HOME)
status=0; XDG_CACHE_HOME=$(TEST_CACHE_HOME) $(1) $(SWIFT) test --skip-build --disable-swift-testing $(3) 2>&1 | tee $(LOGS)/$(2).log || status=$$?; \
  .ci/test-report $(LOGS)/$(2).log; exit $$status
endef

test:
	$(SWIFT) build --build-tests
	$(call run-tests,,test,)

# The whole suite with every core kept busy by another process (.ci/with-busy-cores): what a
# slow minute on a shared machine does to it. It must pass all the same.
test-slow:
	.ci/with-busy-cores $(MAKE) test

test-tsan: $(TSAN_MUTEX)
	$(SWIFT) build --build-tests $(TSAN_SWIFT_FLAGS)
	$(call run-tests,$(TSAN_ENV),test-tsan,$(TSAN_SWIFT_FLAGS) $(TSAN_TESTS))

scroll-tsan: $(TSAN_MUTEX)
	$(SWIFT) build --build-tests $(TSAN_SWIFT_FLAGS)
	env -u DISPLAY -u WAYLAND_DISPLAY $(TSAN_ENV) $(TSAN_BUILD)/debug/rainforest $(SCROLL_ARGS)

test-asan: $(ASAN_KEEP_LIBRARIES)
	$(SWIFT) build --build-tests $(ASAN_SWIFT_FLAGS)
	$(call run-tests,$(ASAN_ENV),test-asan,$(ASAN_SWIFT_FLAGS) $(ASAN_TESTS))

scroll-asan: $(ASAN_KEEP_LIBRARIES)
	$(SWIFT) build --build-tests $(ASAN_SWIFT_FLAGS)
	env -u DISPLAY -u WAYLAND_DISPLAY $(ASAN_ENV) $(ASAN_BUILD)/debug/rainforest $(SCROLL_ARGS)

fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/run $(FUZZ_TARGETS)

# What CI runs (.ci/run): setup, the lint, the tests, both sanitizers and their scrolls, the
# fuzzers, and a summary of each step's time and counts.
ci:
	bash .ci/run
# CI with every core busy: it must still pass, well inside CI's time.
ci-slow:
	.ci/with-busy-cores bash .ci/run
# CI with what it leaves out for its time, by hand: every test under AddressSanitizer (CI runs
# those where it finds things, ASAN_TESTS), then the fuzzers for ten minutes each.
ci-full:
	ASAN_TESTS= CI_BUDGET_SECONDS=86400 bash .ci/run
	$(MAKE) fuzz FUZZ_SECONDS=600

$(ASAN_KEEP_LIBRARIES): .ci/lsan-keep-libraries.c
	@mkdir -p $(@D)
	$(CLANG) -O2 -Wall -Wextra -fPIC -shared $< -o $@

$(TSAN_MUTEX): .ci/tsan-mutex.c
	@mkdir -p $(@D)
	$(CLANG) -O2 -Wall -Wextra -fPIC -shared $< -o $@ -ldl

bench: build
	$(BIN) bench $(BENCH_ARGS)

# The symbol graphs are written when Canopy compiles, so they are kept between runs: a build with
# nothing to recompile leaves the last ones, which are still current. docc names a file of the
# catalog by its name (Canopy.md:12:5), a source file by its path from the catalog (../Node/...).
docs:
	@mkdir -p $(DOCS_SYMBOL_GRAPHS)/Canopy
	$(SWIFT) build --target Canopy --scratch-path $(DOCS_BUILD) \
	  -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc $(DOCS_SYMBOL_GRAPHS)
	cp $(DOCS_SYMBOL_GRAPHS)/Canopy.symbols.json $(DOCS_SYMBOL_GRAPHS)/Canopy@*.symbols.json $(DOCS_SYMBOL_GRAPHS)/Canopy/
	rm -rf $(DOCS_ARCHIVE)
	$(DOCC) convert Sources/Canopy/Canopy.docc --additional-symbol-graph-dir $(DOCS_SYMBOL_GRAPHS)/Canopy \
	  --output-path $(DOCS_ARCHIVE) --fallback-display-name Canopy --fallback-bundle-identifier Canopy \
	  --transform-for-static-hosting 2>&1 | tee $(DOCS_BUILD)/docc.log
	@awk '/^(warning|error): / { message = $$0; next } \
	     /^  --> / && message != "" { if ($$2 !~ /^\.\./ || message ~ /doesn.t exist at|is ambiguous/) { print "docs: " message " (" $$2 ")"; failed = 1 } message = "" } \
	     END { if (failed) print "docs: failed: broken links or problems in the catalog (above)"; exit failed }' $(DOCS_BUILD)/docc.log
	@echo "docs: $(DOCS_ARCHIVE)"
	@echo "docs: to read it, python3 -m http.server --directory $(DOCS_ARCHIVE) 8000, then open http://localhost:8000/documentation/canopy/"

# Fails on any finding, and says how many; `make format` rewrites the files in place, which fixes
# all but the few findings that need a person (the rule's message says what to change).
lint:
	@mkdir -p $(LOGS)
	status=0; $(SWIFT) format lint --strict --parallel -r $(FORMAT_PATHS) 2>&1 | tee $(LOGS)/lint.log || status=$$?; \
	  findings=$$(grep -cE ': (warning|error): \[' $(LOGS)/lint.log || true); \
	  if [ $$status -ne 0 ]; then echo "lint: $$findings findings"; else echo "lint: no findings"; fi; exit $$status

format:
	$(SWIFT) format format --in-place --parallel -r $(FORMAT_PATHS)

clean:
	rm -rf .build bench.json
