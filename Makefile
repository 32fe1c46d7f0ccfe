# Rainforest and Canopy. `make setup` once, then `make run`.
SWIFT ?= swift
BIN := .build/release/rainforest
# What the build, the tests and the headless renderer need from Debian.
APT_PACKAGES := pkg-config libsdl2-dev libsdl2-ttf-dev libsdl2-image-dev \
                libjpeg62-turbo-dev libpng-dev libwebp-dev \
                libgl1-mesa-dri libegl-mesa0 xvfb xauth xdotool imagemagick
# Options for `make run`, e.g. make run ARGS="--cards 200".
ARGS ?=
BENCH_ARGS ?= --scenario all --cards 1000 --speed 1000,3000,8000 --duration 10 --json bench.json

.PHONY: setup build run test bench clean

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

bench: build
	$(BIN) bench $(BENCH_ARGS)

clean:
	rm -rf .build bench.json
