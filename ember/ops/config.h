// at::show_config() and its parts (LibTorch's <ATen/Version.h>; Python's torch.__config__.show()
// and torch.backends.cpu.get_cpu_capability()): what this build of ember was compiled with and
// which kernel instruction set this process runs.
#pragma once
#include <string>

namespace ember {
// A description of the build, one "  - " line per part, as PyTorch's: compiler, C++ version,
// OpenMP, oneDNN, the kernel instruction sets compiled and the one in use, CUDA.
std::string show_config();
// The kernel instruction set in use: "DEFAULT", "AVX512" (x86-64) or "SVE" (AArch64). The
// highest set the CPU runs that this build compiled; EMBER_CPU_CAPABILITY=default (or PyTorch's
// ATEN_CPU_CAPABILITY=default) forces the baseline.
std::string get_cpu_capability();
std::string get_openmp_version();
std::string get_mkldnn_version();  // oneDNN, e.g. "Intel(R) MKL-DNN v2.6.3 (Git Hash ...)"
std::string get_mkl_version();     // "MKL not found": ember's BLAS is OpenBLAS
std::string get_cxx_flags();       // the flags the library's kernels were compiled with

namespace detail {
int cpu_kernel_set_in_use();  // CpuCapability's index (ops/op_def.h) of the kernels lookups find
}  // namespace detail
}  // namespace ember
