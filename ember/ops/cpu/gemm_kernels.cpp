// The fallback GEMM for dtypes no BLAS library handles: the integer types (uint8, int8,
// int16, int32, int64). Blocked loops over packed panels, parallel over the batch and row
// blocks; compiled once per instruction set. Registered as the "_gemm_fallback" kernel.
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "ember/core/parallel.h"
#include "ember/ops/blas.h"
#include "ember/ops/dispatch.h"
#include "ember/ops/op_def.h"

namespace ember::cpu {
inline namespace EMBER_CPU_NS {
namespace {

// Integer products are accumulated modulo 2^32 (2^64 for int64) in unsigned arithmetic:
// truncating to the storage type at the end gives the same wrapped result that PyTorch's
// accumulation in the storage type gives, without signed-overflow undefined behaviour.
template <class T>
using acc_t = std::conditional_t<(sizeof(T) > 4), uint64_t, uint32_t>;

constexpr int64_t kMB = 64, kNB = 256, kKB = 256;

// Element (i, p) of op(X) where X is stored row-major with row stride ld.
template <class T>
inline T at(const T* x, BlasTrans t, int64_t ld, int64_t i, int64_t p) {
  return t == BlasTrans::N ? x[i * ld + p] : x[p * ld + i];
}

template <class T>
void gemm_one_block(const GemmArgs& g, const T* a, const T* b, T* c, int64_t i0, int64_t i1,
                    std::vector<acc_t<T>>& apack, std::vector<acc_t<T>>& bpack, std::vector<acc_t<T>>& acc) {
  using U = acc_t<T>;
  const int64_t n = g.n, k = g.k;
  const U alpha = U(g.alpha.to<int64_t>());
  const U beta = U(g.beta.to<int64_t>());
  const bool read_c = g.beta.to<int64_t>() != 0;
  const int64_t mb = i1 - i0;
  for (int64_t j0 = 0; j0 < n; j0 += kNB) {
    const int64_t nb = std::min(kNB, n - j0);
    std::fill(acc.begin(), acc.begin() + mb * nb, U(0));
    for (int64_t p0 = 0; p0 < k; p0 += kKB) {
      const int64_t kb = std::min(kKB, k - p0);
      // Pack op(B)[p0:p0+kb, j0:j0+nb] and op(A)[i0:i1, p0:p0+kb] contiguously.
      for (int64_t p = 0; p < kb; ++p)
        for (int64_t j = 0; j < nb; ++j) bpack[p * nb + j] = U(at(b, g.tb, g.ldb, p0 + p, j0 + j));
      for (int64_t i = 0; i < mb; ++i)
        for (int64_t p = 0; p < kb; ++p) apack[i * kb + p] = U(at(a, g.ta, g.lda, i0 + i, p0 + p));
      for (int64_t i = 0; i < mb; ++i) {
        U* __restrict__ crow = acc.data() + i * nb;
        const U* __restrict__ arow = apack.data() + i * kb;
        for (int64_t p = 0; p < kb; ++p) {
          const U av = arow[p];
          const U* __restrict__ brow = bpack.data() + p * nb;
          for (int64_t j = 0; j < nb; ++j) crow[j] += av * brow[j];
        }
      }
    }
    for (int64_t i = 0; i < mb; ++i) {
      T* crow = c + (i0 + i) * g.ldc + j0;
      const U* arow = acc.data() + i * nb;
      if (read_c) {
        for (int64_t j = 0; j < nb; ++j) crow[j] = T(alpha * arow[j] + beta * U(crow[j]));
      } else {
        for (int64_t j = 0; j < nb; ++j) crow[j] = T(alpha * arow[j]);
      }
    }
  }
}

template <class T>
void gemm_fallback_typed(const GemmArgs& g) {
  const T* a = static_cast<const T*>(g.a);
  const T* b = static_cast<const T*>(g.b);
  T* c = static_cast<T*>(g.c);
  const int64_t mblocks = (g.m + kMB - 1) / kMB;
  const int64_t tasks = g.batch * mblocks;
  // Grain: enough multiply-adds per chunk to amortise a parallel region.
  const int64_t work_per_task = std::max<int64_t>(1, std::min(kMB, g.m) * g.n * std::max<int64_t>(g.k, 1));
  const int64_t grain = std::max<int64_t>(1, (int64_t(1) << 16) / work_per_task);
  parallel_for(0, tasks, grain, [&](int64_t t0, int64_t t1) {
    std::vector<acc_t<T>> apack(kMB * kKB), bpack(kKB * kNB), acc(kMB * kNB);
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t bi = t / mblocks, i0 = (t % mblocks) * kMB, i1 = std::min(g.m, i0 + kMB);
      gemm_one_block<T>(g, a + bi * g.stride_a, b + bi * g.stride_b, c + bi * g.stride_c, i0, i1, apack, bpack, acc);
    }
  });
}

void gemm_fallback(const GemmArgs& g) {
  if (g.m == 0 || g.n == 0 || g.batch == 0) return;
  constexpr DtypeSet kInts = kIntegralTypes;
  visit_dtype<kInts>(g.dtype, "gemm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gemm_fallback_typed<T>(g);
  });
}

const KernelRegistrar<GemmFn> gemm_fallback_reg("_gemm_fallback", kCPU, CpuCapability(EMBER_CPU_CAP_INDEX),
                                                &gemm_fallback);

}  // namespace
}  // namespace EMBER_CPU_NS
}  // namespace ember::cpu
