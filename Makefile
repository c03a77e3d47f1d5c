# ember: the two commands (see README.md).
#   make demo  - install dependencies, build, train the demo CNN (`ember train`)
#   make test  - install dependencies, build, run every test; then the sanitizer build (clang,
#                ASan + UBSan) runs the fast tests, every fuzz target's regression inputs and a
#                brief fuzzing run of each
#   make fuzz  - build the libFuzzer targets (clang) and fuzz each for FUZZ_SECONDS
#   make test-arm64 - cross-build for 64-bit Arm (aarch64) and run the tests under qemu
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
ARM64_BUILD ?= build-arm64
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
# The kernel instruction set the Release build compiles: the widest this machine runs (AVX-512
# where the CPU has AVX-512 F, BW, VL and DQ, as the run-time dispatch asks), the only one its
# tests can reach; the sanitizer build below compiles and tests the baseline ("default"). A plain
# `cmake` configure compiles every set (EMBER_CPU_CAPABILITIES in CMakeLists.txt), as a build for
# other machines must (scripts/cpu-caps.sh says what each set cost in build time).
CPU_CAPS ?= $(shell ./scripts/cpu-caps.sh)
# The CUDA kernels' device code: machine code for the H100/H200 (sm_90) and PTX where a GPU is
# present, PTX alone (compute_90, which the driver compiles when it loads it) where none is: no
# test can run device code there, and ptxas was half of nvcc's time (pointwise_kernels_2.cu:
# 41 of 78 s), about two minutes of a 2-core CI run. cicc still compiles every kernel to PTX, so a
# kernel that does not compile fails the build either way.
CUDA_ARCHS ?= $(shell nvidia-smi -L >/dev/null 2>&1 && echo 90 || echo 90-virtual)
RELEASE_FLAGS = -DCMAKE_BUILD_TYPE=Release -DEMBER_CPU_CAPABILITIES='$(CPU_CAPS)' -DCMAKE_CUDA_ARCHITECTURES='$(CUDA_ARCHS)'

.PHONY: deps configure build demo test test-release test-asan fuzz-configure fuzz-build fuzz test-fuzz bench clean \
	configure-arm64 build-arm64 test-arm64

deps:
	./scripts/install-deps.sh

# make test's Release build runs each test binary as one CTest test (a few shards for the longest):
# 2,668 processes, each loading libember and parsing the golden files, took half of the 303 s the
# suite ran per test case. `ctest -R` still selects binaries; a plain configure lists every case.
configure: deps
	cmake -S . -B $(BUILD) -G Ninja $(RELEASE_FLAGS) -DEMBER_TEST_PER_BINARY=ON $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# Trains a small CNN on the UCI digits shipped in data/digits; prints `test accuracy: 0.9xx` last.
# Installs and builds only what the demo needs (the library and the `ember` command).
demo:
	./scripts/install-deps.sh --demo
	cmake -S . -B $(BUILD) -G Ninja $(RELEASE_FLAGS) $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS) --target ember-cli
	./$(BUILD)/bin/ember train --checkpoint $(BUILD)/ember-digits.safetensors

test-release: build
	cd $(BUILD) && ctest --output-on-failure --timeout 900 -j $(JOBS)

# One sanitizer build for both jobs (it used to be two, gcc's for the tests and clang's for
# the fuzzers, which made `make test` compile the library three times): clang with ASan and
# UBSan, the library with the fuzzer's coverage, one kernel instruction set. It builds the
# libFuzzer targets for every reader of untrusted input (fuzz/, README "Fuzzing") and the test
# suite, whose fast tests run under the sanitizers one binary per process (a process start
# costs more under ASan, and CTest would start one per test case).
fuzz-configure: deps
	cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DEMBER_FUZZ=ON -DEMBER_BUILD_TESTS=ON \
	  -DEMBER_TEST_PER_BINARY=ON -DEMBER_CUDA=OFF \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO='-O1 -g1' -DCMAKE_C_FLAGS_RELWITHDEBINFO='-O1 -g1' \
	  -DEMBER_CPU_CAPABILITIES=default $(CMAKE_FLAGS)

fuzz-build: fuzz-configure
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_targets

test-asan: fuzz-configure
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	cd $(FUZZ_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	  ctest --output-on-failure --timeout 1800 -j $(JOBS) -L fast

# Each target (or those in FUZZ_TARGETS, e.g. FUZZ_TARGETS="tar zip") for FUZZ_SECONDS from its
# seeds, its regression inputs and the corpus it grew before; prints executions, exec/s, coverage.
fuzz: fuzz-build
	./fuzz/run.sh all $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# In the test suite: every regression input once, then ~6 s of fuzzing per target (CI time; `make fuzz` fuzzes longer).
test-fuzz: fuzz-build
	cd $(FUZZ_BUILD) && ctest --output-on-failure --timeout 900 -j $(JOBS) -L fuzz_regress
	cd $(FUZZ_BUILD) && ctest --output-on-failure --timeout 900 -j $(JOBS) -L fuzz_brief

test: test-release test-asan test-fuzz

# 64-bit Arm (README "64-bit Arm"): Debian's cross compiler and arm64 packages
# (install-deps.sh --arm64), the toolchain file cmake/aarch64-linux-gnu.cmake; the programs run
# under qemu-aarch64-static (CTest starts them through it), one process per test binary (a
# process start under qemu costs what a short test does).
configure-arm64:
	./scripts/install-deps.sh --arm64
	cmake -S . -B $(ARM64_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake -DEMBER_CUDA=OFF -DEMBER_TEST_PER_BINARY=ON $(CMAKE_FLAGS)

build-arm64: configure-arm64
	cmake --build $(ARM64_BUILD) -j $(JOBS)

test-arm64: build-arm64
	./scripts/arm64-binfmt.sh
	cd $(ARM64_BUILD) && ctest --output-on-failure --timeout 3600 -j $(JOBS)

bench:
	./bench/compare.sh

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(ARM64_BUILD)
