// CUDA kernels of the scans (cumsum, cumprod, cummax/cummin with indices, logcumsumexp) over
// a contiguous input viewed as [outer, len, inner] (ScanPlan): a thread per line,
// neighbouring threads on neighbouring lines (coalesced when inner > 1). Accumulators and
// NaN rules as on the CPU (ember/ops/cpu/scan_kernels.cpp): int64 for bool and integers,
// double, complex128; cummax/cummin keep a NaN once seen (with the newest NaN's index) and
// take the later index on ties. Few long lines get a block each (cub's BlockScan over tiles,
// each tile's total carried into the next): every scan's step is an associative combine of
// partial results, so a line can be scanned in pieces.
#include <cub/block/block_scan.cuh>

#include "ember/ops/cuda/loops.cuh"
#include "ember/ops/reduce.h"

namespace ember::cuda {
namespace {

constexpr int kScanThreads = 256;

template <class S>
using scan_acc_t = std::conditional_t<std::is_integral_v<S>, int64_t,
                                      std::conditional_t<is_complex_v<compute_t<S>>, Complex<double>, double>>;
template <class S>
using scan_out_t = std::conditional_t<std::is_integral_v<S>, int64_t, S>;

template <class S, bool kProd>
__global__ void __launch_bounds__(kScanThreads)
scan_kernel(const S* in, scan_out_t<S>* out, int64_t outer, int64_t len, int64_t inner) {
  using A = scan_acc_t<S>;
  const int64_t line = int64_t(blockIdx.x) * kScanThreads + threadIdx.x;
  if (line >= outer * inner) return;
  const int64_t o = line / inner, j = line - o * inner;
  const int64_t base = o * len * inner + j;
  A acc = A(kProd ? 1 : 0);
  for (int64_t i = 0; i < len; ++i) {
    const A v = convert<A>(in[base + i * inner]);
    if constexpr (kProd) acc = acc * v;
    else acc += v;
    out[base + i * inner] = convert<scan_out_t<S>>(acc);
  }
}

// A block per line, for few long lines (a 1-d cumsum of millions): tiles of kScanThreads
// elements scanned by cub::BlockScan, each tile's total carried into the next. The additions
// are regrouped, so float sums differ from the serial order in the last bits.
template <class S, bool kProd>
__global__ void __launch_bounds__(kScanThreads)
scan_block_per_line(const S* in, scan_out_t<S>* out, int64_t len, int64_t inner) {
  using A = scan_acc_t<S>;
  using BlockScan = cub::BlockScan<A, kScanThreads>;
  __shared__ typename BlockScan::TempStorage temp;
  const int64_t line = blockIdx.x, o = line / inner, j = line - o * inner;
  const int64_t base = o * len * inner + j;
  auto op = [](const A& x, const A& y) {
    if constexpr (kProd) return A(x * y);
    else return A(x + y);
  };
  const A identity = A(kProd ? 1 : 0);
  A carry = identity;
  for (int64_t t0 = 0; t0 < len; t0 += kScanThreads) {
    const int64_t i = t0 + threadIdx.x;
    const A v = i < len ? convert<A>(in[base + i * inner]) : identity;
    A incl, total;
    BlockScan(temp).InclusiveScan(v, incl, op, total);
    if (i < len) out[base + i * inner] = convert<scan_out_t<S>>(op(carry, incl));
    carry = op(carry, total);
    __syncthreads();  // temp is reused by the next tile
  }
}

template <bool kProd>
void cumsum_cumprod_kernel(const ScanPlan& p) {
  visit_dtype<kAllTypes>(p.in_dtype, kProd ? "cumprod" : "cumsum", [&](auto tag) {
    using S = typename decltype(tag)::type;
    using Out = scan_out_t<S>;
    EMBER_INTERNAL_ASSERT(p.out_dtype == scalar_type_of<Out>, "cumsum on CUDA: output dtype ", p.out_dtype);
    const int64_t lines = p.outer * p.inner;
    if (lines == 0 || p.len == 0) return;
    cudaStream_t stream = getCurrentCUDAStream().stream();
    // Few long lines: a block each (a thread each would leave the GPU idle and walk the
    // line serially); otherwise a thread per line.
    if (lines <= 4096 && p.len >= 4 * kScanThreads) {
      scan_block_per_line<S, kProd><<<unsigned(lines), kScanThreads, 0, stream>>>(
          reinterpret_cast<const S*>(p.in), reinterpret_cast<Out*>(p.out), p.len, p.inner);
    } else {
      scan_kernel<S, kProd><<<unsigned((lines + kScanThreads - 1) / kScanThreads), kScanThreads, 0, stream>>>(
          reinterpret_cast<const S*>(p.in), reinterpret_cast<Out*>(p.out), p.outer, p.len, p.inner);
    }
    EMBER_CUDA_CHECK(cudaGetLastError());
  });
}

// A scan is op.init() (the identity), op.lift(x, i) (one element's partial result) and an
// associative op.combine(earlier, later); op.emit(acc, offset) writes a result.
// acc = combine(acc, lift(x, i)) along each line, a thread per line.
template <class S, class Op>
__global__ void __launch_bounds__(kScanThreads)
scan_lines(const S* in, int64_t outer, int64_t len, int64_t inner, Op op) {
  const int64_t line = int64_t(blockIdx.x) * kScanThreads + threadIdx.x;
  if (line >= outer * inner) return;
  const int64_t o = line / inner, j = line - o * inner;
  const int64_t base = o * len * inner + j;
  auto acc = op.init();
  for (int64_t i = 0; i < len; ++i) {
    acc = op.combine(acc, op.lift(in[base + i * inner], i));
    op.emit(acc, base + i * inner);
  }
}

// A block per line: tiles scanned by cub::BlockScan with op.combine, the running result of
// the earlier tiles combined in front.
template <class S, class Op>
__global__ void __launch_bounds__(kScanThreads)
scan_lines_by_block(const S* in, int64_t len, int64_t inner, Op op) {
  using A = decltype(op.init());
  using BlockScan = cub::BlockScan<A, kScanThreads>;
  __shared__ typename BlockScan::TempStorage temp;
  const int64_t line = blockIdx.x, o = line / inner, j = line - o * inner;
  const int64_t base = o * len * inner + j;
  auto combine = [&op](const A& x, const A& y) { return op.combine(x, y); };
  A carry = op.init();
  for (int64_t t0 = 0; t0 < len; t0 += kScanThreads) {
    const int64_t i = t0 + threadIdx.x;
    const A v = i < len ? op.lift(in[base + i * inner], i) : op.init();
    A incl, total;
    BlockScan(temp).InclusiveScan(v, incl, combine, total);
    if (i < len) op.emit(op.combine(carry, incl), base + i * inner);
    carry = op.combine(carry, total);
    __syncthreads();  // temp is reused by the next tile
  }
}

template <class S, class Op>
void launch_scan(const ScanPlan& p, const Op& op) {
  const int64_t lines = p.outer * p.inner;
  if (lines == 0 || p.len == 0) return;
  cudaStream_t stream = getCurrentCUDAStream().stream();
  if (lines <= 4096 && p.len >= 4 * kScanThreads) {
    scan_lines_by_block<S><<<unsigned(lines), kScanThreads, 0, stream>>>(reinterpret_cast<const S*>(p.in), p.len,
                                                                          p.inner, op);
  } else {
    scan_lines<S><<<unsigned((lines + kScanThreads - 1) / kScanThreads), kScanThreads, 0, stream>>>(
        reinterpret_cast<const S*>(p.in), p.outer, p.len, p.inner, op);
  }
  EMBER_CUDA_CHECK(cudaGetLastError());
}

template <class S>
struct CumExt {
  using C = std::conditional_t<std::is_same_v<S, bool>, uint8_t, compute_t<S>>;
  struct A {
    C v;
    int64_t i;
  };
  S* out;
  int64_t* idx;
  bool max;
  __device__ A init() const { return {C(0), -1}; }
  __device__ A lift(S xs, int64_t i) const { return {static_cast<C>(xs), i}; }
  // The later part wins when the earlier is empty, when it holds a NaN (the newest NaN
  // stays), or when the earlier holds none and the later's extreme is at least as extreme
  // (ties: the later index), as the serial rule.
  __device__ A combine(const A& a, const A& b) const {
    if (b.i < 0) return a;
    bool take = a.i < 0;
    if constexpr (std::is_floating_point_v<C>)
      take = take || b.v != b.v || (a.v == a.v && (max ? b.v >= a.v : b.v <= a.v));
    else take = take || (max ? b.v >= a.v : b.v <= a.v);
    return take ? b : a;
  }
  __device__ void emit(const A& acc, int64_t off) const {
    out[off] = convert<S>(acc.v);
    idx[off] = acc.i;
  }
};

template <class S>
struct LogCumSumExp {
  using A = std::conditional_t<std::is_same_v<S, double>, double, float>;
  S* out;
  __device__ A init() const { return -std::numeric_limits<A>::infinity(); }
  __device__ A lift(S xs, int64_t) const { return A(xs); }
  // log(exp(a) + exp(b)) without overflow; equal infinities stay, NaN propagates.
  __device__ A combine(A a, A b) const {
    const bool bn = b != b;
    const A lo = bn ? b : (a < b ? a : b), hi = bn ? b : (a < b ? b : a);
    return (lo != hi || ::isfinite(lo)) ? A(hi + ::log1p(::exp(lo - hi))) : a;
  }
  __device__ void emit(const A& acc, int64_t off) const { out[off] = convert<S>(acc); }
};

// A named constant: nvcc's host pass rejects the expression as a template argument here.
constexpr DtypeSet kOrderedTypes = kBoolType | kRealTypes;

template <bool kMax>
void cumext_kernel(const ScanPlan& p) {
  visit_dtype<kOrderedTypes>(p.in_dtype, kMax ? "cummax" : "cummin", [&](auto tag) {
    using S = typename decltype(tag)::type;
    launch_scan<S>(p, CumExt<S>{reinterpret_cast<S*>(p.out), reinterpret_cast<int64_t*>(p.out2), kMax});
  });
}

void logcumsumexp_kernel(const ScanPlan& p) {
  visit_dtype<kFloatingTypes>(p.in_dtype, "logcumsumexp", [&](auto tag) {
    using S = typename decltype(tag)::type;
    launch_scan<S>(p, LogCumSumExp<S>{reinterpret_cast<S*>(p.out)});
  });
}

const KernelRegistrar<ScanFn> r_cumsum("cumsum", kCUDA, CpuCapability::Default, &cumsum_cumprod_kernel<false>);
const KernelRegistrar<ScanFn> r_cumprod("cumprod", kCUDA, CpuCapability::Default, &cumsum_cumprod_kernel<true>);
const KernelRegistrar<ScanFn> r_cummax("cummax", kCUDA, CpuCapability::Default, &cumext_kernel<true>);
const KernelRegistrar<ScanFn> r_cummin("cummin", kCUDA, CpuCapability::Default, &cumext_kernel<false>);
const KernelRegistrar<ScanFn> r_logcumsumexp("logcumsumexp", kCUDA, CpuCapability::Default, &logcumsumexp_kernel);

}  // namespace
}  // namespace ember::cuda
