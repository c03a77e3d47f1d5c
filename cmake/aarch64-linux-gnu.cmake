# Cross-building ember for 64-bit Arm Linux (issue 19, README "64-bit Arm"): Debian's cross
# compiler (g++-aarch64-linux-gnu) against Debian's arm64 packages installed beside the host's
# (multiarch: /usr/lib/aarch64-linux-gnu, /usr/include/aarch64-linux-gnu), plus the few arm64
# -dev packages that cannot be installed beside their amd64 twins (oneDNN's and Gloo's headers
# differ per architecture), unpacked into EMBER_ARM64_DEB_ROOT by scripts/install-deps.sh --arm64.
# Programs built here run under qemu-aarch64-static (CMAKE_CROSSCOMPILING_EMULATOR).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static)
if(NOT EMBER_ARM64_DEB_ROOT)
  set(EMBER_ARM64_DEB_ROOT ${CMAKE_CURRENT_LIST_DIR}/../build-arm64-deps)
endif()
get_filename_component(EMBER_ARM64_DEB_ROOT ${EMBER_ARM64_DEB_ROOT} ABSOLUTE)
# Searched before /usr: the unpacked packages' headers and libraries (lib/aarch64-linux-gnu, lib).
list(PREPEND CMAKE_PREFIX_PATH ${EMBER_ARM64_DEB_ROOT}/usr)
# The JIT's code generator: arm64 LLVM 14 headers (llvm-14-dev, unpacked) and libLLVM (libllvm14:arm64).
set(EMBER_LLVM_PREFIX ${EMBER_ARM64_DEB_ROOT}/usr/lib/llvm-14)
# pkg-config (RE2) reads the arm64 .pc files only.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
