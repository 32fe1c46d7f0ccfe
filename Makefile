# Rainforest and Canopy. `make setup` once, then `make run`.
SWIFT ?= swift
BIN := .build/release/rainforest
# What the build, the tests and the headless renderer need from Debian.
APT_PACKAGES := pkg-config libsdl2-dev libsdl2-ttf-dev libsdl2-image-dev \
                libjpeg62-turbo-dev libpng-dev libwebp-dev \
                libgl1-mesa-dri libegl-mesa0 xvfb xauth xdotool imagemagick
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

.PHONY: setup build run test test-tsan bench clean

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

build:
	$(SWIFT) build -c release

run: build
	$(BIN) $(ARGS)

test:
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

test-tsan: $(TSAN_MUTEX)
	$(SWIFT) build --build-tests $(TSAN_SWIFT_FLAGS)
	TSAN_OPTIONS="$(TSAN_RUN_OPTIONS)" LD_PRELOAD="$(CURDIR)/$(TSAN_MUTEX)" \
	  $(SWIFT) test --skip-build $(TSAN_SWIFT_FLAGS) $(TSAN_TESTS)

$(TSAN_MUTEX): .ci/tsan-mutex.c
	@mkdir -p $(@D)
	$(CLANG) -O2 -Wall -Wextra -fPIC -shared $< -o $@ -ldl

bench: build
	$(BIN) bench $(BENCH_ARGS)

clean:
	rm -rf .build bench.json
