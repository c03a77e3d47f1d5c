// The machine's float32 FMA ceiling: 12 independent FMA chains per thread, in AVX-512 and
// in AVX2, on every OpenMP thread. matmul cannot beat this; bench/compare.sh prints it so
// that GEMM ratios can be read against what the hardware allows.
// Build: g++ -O2 -march=native -fopenmp bench/fma_peak.cpp -o fma_peak
#include <immintrin.h>
#include <omp.h>

#include <chrono>
#include <cstdio>

template <class V, class Fma>
double peak_gflops(Fma fma, V init, int lanes) {
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    const long iters = 20000000L * 16 / lanes / 8;
    float sink = 0;
    auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel reduction(+ : sink)
    {
      V acc[12];
      for (auto& a : acc) a = init;
      const V b = init, c = init;
      for (long it = 0; it < iters; ++it)
#pragma GCC unroll 12
        for (int i = 0; i < 12; ++i) acc[i] = fma(acc[i], b, c);
      float out[16];
      for (auto& a : acc) {
        __builtin_memcpy(out, &a, sizeof(float) * 4);
        sink += out[0];
      }
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double flops = 2.0 * lanes * 12 * double(iters) * omp_get_max_threads();
    if (flops / s > best) best = flops / s;
    if (sink == 1.2345f) std::puts("");  // keeps the chains alive
  }
  return best / 1e9;
}

int main() {
  std::printf("threads %d  avx512 fma %.0f GFLOP/s  avx2 fma %.0f GFLOP/s\n", omp_get_max_threads(),
              peak_gflops([](__m512 a, __m512 b, __m512 c) { return _mm512_fmadd_ps(a, b, c); },
                          _mm512_set1_ps(0.999f), 16),
              peak_gflops([](__m256 a, __m256 b, __m256 c) { return _mm256_fmadd_ps(a, b, c); },
                          _mm256_set1_ps(0.999f), 8));
}
