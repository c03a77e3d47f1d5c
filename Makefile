# ember: the two commands (see README.md).
#   make demo  - install dependencies, build, train the demo CNN (`ember train`)
#   make test  - install dependencies, build, run every test (plus the sanitizer build's fast tests
#                and a brief run of every fuzz target with its regression inputs)
#   make fuzz  - build the libFuzzer targets (clang) and fuzz each for FUZZ_SECONDS
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: deps configure build demo test test-release test-asan fuzz-build fuzz test-fuzz bench clean

deps:
	./scripts/install-deps.sh

configure: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# Trains a small CNN on the UCI digits shipped in data/digits; prints `test accuracy: 0.9xx` last.
# Installs and builds only what the demo needs (the library and the `ember` command).
demo:
	./scripts/install-deps.sh --demo
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS) --target ember-cli
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

# libFuzzer targets for every reader of untrusted input (fuzz/, README "Fuzzing"): clang with
# ASan, UBSan and coverage; the library only, without tests, and one kernel instruction set.
fuzz-build: deps
	cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DEMBER_FUZZ=ON -DEMBER_BUILD_TESTS=OFF \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO='-O1 -g1' -DCMAKE_C_FLAGS_RELWITHDEBINFO='-O1 -g1' \
	  -DEMBER_CPU_CAPABILITIES=default $(CMAKE_FLAGS)
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_targets

# Each target (or those in FUZZ_TARGETS, e.g. FUZZ_TARGETS="tar zip") for FUZZ_SECONDS from its
# seeds, its regression inputs and the corpus it grew before; prints executions, exec/s, coverage.
fuzz: fuzz-build
	./fuzz/run.sh all $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# In the test suite: every regression input once, then ~20 s of fuzzing per target.
test-fuzz: fuzz-build
	cd $(FUZZ_BUILD) && ctest --output-on-failure --timeout 900 -j $(JOBS) -L fuzz_regress
	cd $(FUZZ_BUILD) && ctest --output-on-failure --timeout 900 -j $(JOBS) -L fuzz_brief

test: test-release test-asan test-fuzz

bench:
	./bench/compare.sh

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
