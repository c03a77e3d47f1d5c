// Note [CUDA libraries loaded on first use]: cuBLAS is not loaded with libember.so, opens on
// first use by the toolkit's soname, and a missing library or entry point is a clear error.
// Runs without a GPU: opening a library and resolving a symbol needs no device.
#if defined(EMBER_WITH_CUDA)
#include <cublas_v2.h>
#include <dlfcn.h>

#include <string>

#include "ember/cuda/lazy_library.h"
#include "test_util.h"

namespace ember::test {
namespace {

// Read before main(), after libember.so and its static constructors: whether cuBLAS was
// mapped with the library (a later test may load it).
const bool cublas_loaded_at_start =
    ::dlopen(EMBER_CUDA_SONAME("libcublas", CUBLAS_VER_MAJOR), RTLD_NOW | RTLD_NOLOAD) != nullptr;

TEST(CudaLazyLibrary, CublasIsNotLoadedWithTheLibrary) {
  EXPECT_FALSE(cublas_loaded_at_start) << "libember.so should open cuBLAS on first use, not at start";
}

TEST(CudaLazyLibrary, ResolvesTypedEntryPointsOfTheToolkitsLibrary) {
  EXPECT_STREQ(EMBER_CUDA_SONAME("libcublas", 13), "libcublas.so.13");
  cuda::detail::LazyLibrary lib(EMBER_CUDA_SONAME("libcublas", CUBLAS_VER_MAJOR), "cuBLAS");
  auto* status_name = lib.resolve(&cublasGetStatusName, "cublasGetStatusName");
  ASSERT_NE(status_name, nullptr);
  // The loaded library answers as the header's declaration says.
  EXPECT_STREQ(status_name(CUBLAS_STATUS_SUCCESS), "CUBLAS_STATUS_SUCCESS");
  EXPECT_STREQ(status_name(CUBLAS_STATUS_NOT_INITIALIZED), "CUBLAS_STATUS_NOT_INITIALIZED");
  auto* get_version = lib.resolve(&cublasGetProperty, "cublasGetProperty");
  int major = -1;
  ASSERT_EQ(get_version(MAJOR_VERSION, &major), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(major, CUBLAS_VER_MAJOR);
}

TEST(CudaLazyLibrary, MissingLibraryOrSymbolIsAClearError) {
  cuda::detail::LazyLibrary missing("libember_no_such_library.so.7", "NoSuchLib");
  EXPECT_ERROR_WITH(missing.symbol("anything"), "NoSuchLib is needed here but libember_no_such_library.so.7 could "
                                                "not be loaded");
  // The failure is remembered, not retried into a different message.
  EXPECT_ERROR_WITH(missing.symbol("anything"), "could not be loaded");
  cuda::detail::LazyLibrary lib(EMBER_CUDA_SONAME("libcublas", CUBLAS_VER_MAJOR), "cuBLAS");
  EXPECT_ERROR_WITH(lib.symbol("cublasNoSuchEntryPoint_v9"), "has no entry point cublasNoSuchEntryPoint_v9");
  EXPECT_NE(lib.symbol("cublasCreate_v2"), nullptr);  // the library itself opened
}

}  // namespace
}  // namespace ember::test
#endif  // EMBER_WITH_CUDA
