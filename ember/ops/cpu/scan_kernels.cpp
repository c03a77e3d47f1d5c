// CPU kernels of the scans along one dim: cumsum, cumprod, cummax/cummin (with indices) and
// logcumsumexp. The input is contiguous and viewed as [outer, len, inner]; when inner is 1
// each row is scanned serially, otherwise a block of inner columns is scanned together so
// the column loop vectorizes. Sums accumulate like PyTorch's CPU kernels (float in double).
#include <cmath>
#include <limits>
#include <vector>

#include "ember/core/parallel.h"
#include "ember/ops/convert.h"
#include "ember/ops/op_def.h"
#include "ember/ops/reduce.h"

namespace ember::cpu {
inline namespace EMBER_CPU_NS {
namespace {

constexpr CpuCapability kCap = CpuCapability(EMBER_CPU_CAP_INDEX);
constexpr int64_t kGrain = 32768;
constexpr int64_t kCols = 256;

// Runs acc = step(acc, x) along len for every (outer, inner) position; emit(acc, i, o_off)
// stores the running value of element i of the line whose output offset is o_off.
template <class S, class A, class Init, class Step, class Emit>
void scan(const ScanPlan& p, const Init& init, const Step& step, const Emit& emit) {
  const S* in = reinterpret_cast<const S*>(p.in);
  int64_t outer = p.outer, len = p.len, inner = p.inner;
  if (outer * inner == 0 || len == 0) return;
  if (inner == 1) {
    parallel_for(0, outer, std::max<int64_t>(1, kGrain / len), [&](int64_t b, int64_t e) {
      // Four rows at a time: independent chains hide the latency of each step.
      constexpr int kRows = 4;
      int64_t o = b;
      for (; o + kRows <= e; o += kRows) {
        A acc[kRows];
        for (int r = 0; r < kRows; ++r) acc[r] = init();
        for (int64_t i = 0; i < len; ++i) {
          for (int r = 0; r < kRows; ++r) {
            int64_t off = (o + r) * len + i;
            step(acc[r], in[off], i);
            emit(acc[r], i, off);
          }
        }
      }
      for (; o < e; ++o) {
        const S* x = in + o * len;
        A acc = init();
        for (int64_t i = 0; i < len; ++i) {
          step(acc, x[i], i);
          emit(acc, i, o * len + i);
        }
      }
    });
    return;
  }
  int64_t nchunk = (inner + kCols - 1) / kCols;
  int64_t work = std::max<int64_t>(1, kGrain / (len * std::min(inner, kCols)));
  parallel_for(0, outer * nchunk, work, [&](int64_t b, int64_t e) {
    A acc[kCols];
    for (int64_t u = b; u < e; ++u) {
      int64_t o = u / nchunk, c0 = (u % nchunk) * kCols, w = std::min(kCols, inner - c0);
      for (int64_t j = 0; j < w; ++j) acc[j] = init();
      for (int64_t i = 0; i < len; ++i) {
        int64_t base = (o * len + i) * inner + c0;
        const S* x = in + base;
        for (int64_t j = 0; j < w; ++j) {
          step(acc[j], x[j], i);
          emit(acc[j], i, base + j);
        }
      }
    }
  });
}

// Accumulation types: integers in int64, floating in double, complex in complex<double>.
template <class S> using scan_acc_t =
    std::conditional_t<std::is_integral_v<S>, int64_t,
    std::conditional_t<is_complex_v<compute_t<S>>, Complex<double>, double>>;
template <class S> using scan_out_t = std::conditional_t<std::is_integral_v<S>, int64_t, S>;

template <bool kProd>
void cumsum_cumprod_kernel(const ScanPlan& p) {
  visit_dtype<kAllTypes>(p.in_dtype, kProd ? "cumprod" : "cumsum", [&](auto tag) {
    using S = typename decltype(tag)::type;
    using A = scan_acc_t<S>;
    using Out = scan_out_t<S>;
    EMBER_INTERNAL_ASSERT(p.out_dtype == scalar_type_of<Out>);
    Out* out = reinterpret_cast<Out*>(p.out);
    scan<S, A>(
        p, [] { return A(kProd ? 1 : 0); },
        [](A& acc, S x, int64_t) {
          if constexpr (kProd) acc = acc * convert<A>(x);
          else acc += convert<A>(x);
        },
        [out](const A& acc, int64_t, int64_t off) { out[off] = convert<Out>(acc); });
  });
}

// cummax/cummin: NaN sticks (and takes the index of the newest NaN); ties take the later index.
template <bool kMax>
void cumext_kernel(const ScanPlan& p) {
  visit_dtype<kBoolType | kRealTypes>(p.in_dtype, kMax ? "cummax" : "cummin", [&](auto tag) {
    using S = typename decltype(tag)::type;
    using C = compute_t<S>;
    struct A { C v; int64_t i; };
    S* out = reinterpret_cast<S*>(p.out);
    int64_t* idx = reinterpret_cast<int64_t*>(p.out2);
    scan<S, A>(
        p, [] { return A{C(0), -1}; },
        [](A& acc, S xs, int64_t i) {
          C x = static_cast<C>(xs);
          bool take = acc.i < 0;
          if constexpr (std::is_floating_point_v<C>) {
            take = take || x != x || (acc.v == acc.v && (kMax ? x >= acc.v : x <= acc.v));
          } else {
            take = take || (kMax ? x >= acc.v : x <= acc.v);
          }
          if (take) acc = {x, i};
        },
        [out, idx](const A& acc, int64_t, int64_t off) {
          out[off] = convert<S>(acc.v);
          idx[off] = acc.i;
        });
  });
}

// log(exp(a) + exp(b)) without overflow; equal infinities stay as they are, NaN propagates.
template <class T> T log_add_exp(T a, T b) {
  T lo = std::isnan(b) ? b : std::min(a, b), hi = std::isnan(b) ? b : std::max(a, b);
  if (lo != hi || std::isfinite(lo)) return hi + std::log1p(std::exp(lo - hi));
  return a;
}

void logcumsumexp_kernel(const ScanPlan& p) {
  visit_dtype<kFloatingTypes>(p.in_dtype, "logcumsumexp", [&](auto tag) {
    using S = typename decltype(tag)::type;
    using A = std::conditional_t<std::is_same_v<S, double>, double, float>;
    S* out = reinterpret_cast<S*>(p.out);
    scan<S, A>(
        p, [] { return -std::numeric_limits<A>::infinity(); },
        [](A& acc, S x, int64_t) { acc = log_add_exp(acc, A(x)); },
        [out](const A& acc, int64_t, int64_t off) { out[off] = convert<S>(acc); });
  });
}

const KernelRegistrar<ScanFn> r_cumsum("cumsum", kCPU, kCap, &cumsum_cumprod_kernel<false>);
const KernelRegistrar<ScanFn> r_cumprod("cumprod", kCPU, kCap, &cumsum_cumprod_kernel<true>);
const KernelRegistrar<ScanFn> r_cummax("cummax", kCPU, kCap, &cumext_kernel<true>);
const KernelRegistrar<ScanFn> r_cummin("cummin", kCPU, kCap, &cumext_kernel<false>);
const KernelRegistrar<ScanFn> r_logcumsumexp("logcumsumexp", kCPU, kCap, &logcumsumexp_kernel);

}  // namespace
}  // namespace EMBER_CPU_NS
}  // namespace ember::cpu
