# ember: the two commands (see README.md).
#   make demo  - install dependencies, build, train the demo CNN (`ember train`)
#   make test  - install dependencies, build, run every test (plus the sanitizer build's fast tests)
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: deps configure build demo test test-release test-asan bench clean

deps:
	./scripts/install-deps.sh

configure: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# Trains a small CNN on the UCI digits shipped in data/digits; prints `test accuracy: 0.9xx` last.
demo: build
	./$(BUILD)/bin/ember train --checkpoint $(BUILD)/ember-digits.safetensors

test-release: build
	cd $(BUILD) && ctest --output-on-failure --timeout 900 -j $(JOBS)

# Address and UB sanitizers over the fast tests (one kernel instruction set to halve the build).
test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEMBER_SANITIZE=ON \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO='-O1 -g1' \
	  -DEMBER_CPU_CAPABILITIES=avx512 $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure --timeout 900 -j $(JOBS) -L fast

test: test-release test-asan

bench:
	./bench/compare.sh

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
