// Note [CUDA libraries loaded on first use]: cuBLAS (and cuSOLVER, cuFFT) are not loaded with
// libember.so; each opens on
// first use by the toolkit's soname, and a missing library or entry point is a clear error.
// Runs without a GPU: opening a library and resolving a symbol needs no device.
#if defined(EMBER_WITH_CUDA)
#include <cublas_v2.h>
#include <cufft.h>
#include <cusolverDn.h>
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

const bool cusolver_loaded_at_start =
    ::dlopen(EMBER_CUDA_SONAME("libcusolver", CUSOLVER_VER_MAJOR), RTLD_NOW | RTLD_NOLOAD) != nullptr;
const bool cufft_loaded_at_start =
    ::dlopen(EMBER_CUDA_SONAME("libcufft", CUFFT_VER_MAJOR), RTLD_NOW | RTLD_NOLOAD) != nullptr;

TEST(CudaLazyLibrary, CublasIsNotLoadedWithTheLibrary) {
  EXPECT_FALSE(cublas_loaded_at_start) << "libember.so should open cuBLAS on first use, not at start";
  EXPECT_FALSE(cusolver_loaded_at_start) << "libember.so should open cuSOLVER on first use, not at start";
  EXPECT_FALSE(cufft_loaded_at_start) << "libember.so should open cuFFT on first use, not at start";
}

TEST(CudaLazyLibrary, CusolverCublasLtAndCufftOpenByTheToolkitsSonames) {
  // The entry points ember resolves exist in the toolkit's libraries (no GPU needed).
  cuda::detail::LazyLibrary solver(EMBER_CUDA_SONAME("libcusolver", CUSOLVER_VER_MAJOR), "cuSOLVER");
  for (const char* name : {"cusolverDnCreate", "cusolverDnXgetrf", "cusolverDnXgetrs", "cusolverDnXpotrf",
                           "cusolverDnXgeqrf", "cusolverDnXsyevd", "cusolverDnXgesvd", "cusolverDnZungqr"})
    EXPECT_NE(solver.symbol(name), nullptr) << name;
  int major = -1;
  // decltype(&f){}: f's type, not its address (the tests do not link these libraries, and an
  // unoptimized build keeps an address it takes as a reference to the symbol).
  auto* get_property = solver.resolve(decltype(&cusolverGetProperty){}, "cusolverGetProperty");
  ASSERT_EQ(get_property(MAJOR_VERSION, &major), CUSOLVER_STATUS_SUCCESS);
  EXPECT_EQ(major, CUSOLVER_VER_MAJOR);
  cuda::detail::LazyLibrary lt(EMBER_CUDA_SONAME("libcublasLt", CUBLAS_VER_MAJOR), "cuBLASLt");
  for (const char* name : {"cublasLtCreate", "cublasLtMatmul", "cublasLtMatmulAlgoGetHeuristic",
                           "cublasLtMatmulPreferenceSetAttribute"})
    EXPECT_NE(lt.symbol(name), nullptr) << name;
  cuda::detail::LazyLibrary fft(EMBER_CUDA_SONAME("libcufft", CUFFT_VER_MAJOR), "cuFFT");
  for (const char* name : {"cufftCreate", "cufftMakePlanMany64", "cufftExecZ2D", "cufftSetStream"})
    EXPECT_NE(fft.symbol(name), nullptr) << name;
  int version = 0;
  ASSERT_EQ(fft.resolve(decltype(&cufftGetVersion){}, "cufftGetVersion")(&version), CUFFT_SUCCESS);
  EXPECT_EQ(version / 1000, CUFFT_VER_MAJOR);
}

TEST(CudaLazyLibrary, ResolvesTypedEntryPointsOfTheToolkitsLibrary) {
  EXPECT_STREQ(EMBER_CUDA_SONAME("libcublas", 13), "libcublas.so.13");
  cuda::detail::LazyLibrary lib(EMBER_CUDA_SONAME("libcublas", CUBLAS_VER_MAJOR), "cuBLAS");
  auto* status_name = lib.resolve(decltype(&cublasGetStatusName){}, "cublasGetStatusName");
  ASSERT_NE(status_name, nullptr);
  // The loaded library answers as the header's declaration says.
  EXPECT_STREQ(status_name(CUBLAS_STATUS_SUCCESS), "CUBLAS_STATUS_SUCCESS");
  EXPECT_STREQ(status_name(CUBLAS_STATUS_NOT_INITIALIZED), "CUBLAS_STATUS_NOT_INITIALIZED");
  auto* get_version = lib.resolve(decltype(&cublasGetProperty){}, "cublasGetProperty");
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
