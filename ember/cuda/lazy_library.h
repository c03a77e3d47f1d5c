// The CUDA math libraries (cuBLAS, later cuDNN, cuSOLVER, cuFFT) opened on first use.
//
// Note [CUDA libraries loaded on first use]
// Linking libcublas.so made every process that loads libember.so (the `ember` command, each
// test, a user's CPU-only program) run cuBLASLt's static constructors at start: about 60 ms
// and 100 MB mapped, measured with perf on a 2-core Xeon, before main(). PyTorch and
// LibTorch hide this behind libtorch_cuda.so; ember opens such libraries with dlopen the
// first time a kernel needs them, by the soname of the toolkit it was compiled against, and
// resolves each entry point into a table of function pointers typed from the library's own
// header (so a signature change is a compile error). The dynamic loader finds them as it
// would have for a link: LD_LIBRARY_PATH, libember.so's RUNPATH, the ld.so cache. A missing
// library or entry point is an ember::Error naming both, raised by the op that needed it.
// libcudart stays linked: it loads the driver lazily itself and costs nothing at start.
#pragma once
#include <mutex>
#include <string>

// "libcublas.so.13" from ("libcublas", CUBLAS_VER_MAJOR): the soname of the toolkit's library.
#define EMBER_CUDA_SONAME(stem, major) stem ".so." EMBER_CUDA_SONAME_STR_(major)
#define EMBER_CUDA_SONAME_STR_(major) #major

namespace ember::cuda::detail {

class LazyLibrary {
 public:
  // `soname`: what dlopen is asked for ("libcublas.so.13"); `what`: the name in errors.
  LazyLibrary(std::string soname, std::string what) : soname_(std::move(soname)), what_(std::move(what)) {}
  LazyLibrary(const LazyLibrary&) = delete;
  LazyLibrary& operator=(const LazyLibrary&) = delete;

  // The address of `name`; opens the library on the first call. Raises ember::Error when
  // the library cannot be opened or lacks the symbol.
  void* symbol(const char* name);

  // symbol() cast to the type of the declaration it stands for: resolve(&cublasCreate_v2, "cublasCreate_v2").
  template <class Fn>
  Fn* resolve(Fn* /*declared*/, const char* name) {
    return reinterpret_cast<Fn*>(symbol(name));
  }

 private:
  std::string soname_, what_;
  std::once_flag opened_;
  void* handle_ = nullptr;
  std::string open_error_;
};

}  // namespace ember::cuda::detail
