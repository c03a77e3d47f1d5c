// CUDA kernels of the accumulating reductions over a ReducePlan (Note [Reduction plan]):
// sum, nansum and mean, prod, all/any, count_nonzero, amax/amin, aminmax, var/std (+ mean), vector norms,
// and the index-producing max/min(dim) and argmax/argmin.
//
// Note [CUDA reductions]
// Each output (kept position) is reduced by a warp whose lanes stride over the reduced
// elements (coalesced when the reduced dims are innermost), or, when the kept dims are
// innermost and the reduced ones are not (a column sum), by one thread per output, so that
// neighbouring threads read neighbouring elements. When there are too few outputs to fill the
// GPU (a full reduction), the reduced range is split into chunks reduced in parallel into a
// buffer of partial results, which a second kernel combines per output. Lanes combine through
// shared memory, so any accumulator type works. Accumulators: float for Half, BFloat16 and
// float (as PyTorch's CUDA kernels), double, int64 for bool and integers, complex64/128.
// The order of additions differs from the CPU's, so float results differ in the last bits.
#include "ember/cuda/caching_allocator.h"
#include "ember/ops/cuda/loops.cuh"
#include "ember/ops/reduce.h"

namespace ember::cuda {
namespace {

// Bool and the real types: what orders (a named constant: nvcc's host pass rejects the
// expression as a template argument in some contexts).
constexpr DtypeSet kOrderedTypes = kBoolType | kRealTypes;

constexpr int kReduceThreads = 256;
constexpr int kWarps = kReduceThreads / 32;

struct ReduceDesc {
  const char* in;
  char* out;
  char* out2;  // var_mean's mean, or null
  int nk, nr;
  int64_t ksize[kMaxReduceDims], kin[kMaxReduceDims], kout[kMaxReduceDims], kout2[kMaxReduceDims];
  int64_t rsize[kMaxReduceDims], rin[kMaxReduceDims];
  int64_t num_outputs, reduce_numel;
  int64_t splits, chunk;  // the reduced range in `splits` chunks of `chunk` elements
};

struct KeptOffsets {
  int64_t in = 0, out = 0, out2 = 0;
};
__device__ __forceinline__ KeptOffsets kept_offsets(const ReduceDesc& d, int64_t k) {
  KeptOffsets o;
  for (int i = 0; i < d.nk; ++i) {
    const int64_t q = k / d.ksize[i], idx = k - q * d.ksize[i];
    k = q;
    o.in += idx * d.kin[i];
    o.out += idx * d.kout[i];
    o.out2 += idx * d.kout2[i];
  }
  return o;
}

__device__ __forceinline__ int64_t reduced_offset(const ReduceDesc& d, int64_t r) {
  if (d.nr == 1) return r * d.rin[0];
  int64_t off = 0;
  for (int i = 0; i < d.nr; ++i) {
    const int64_t q = r / d.rsize[i];
    off += (r - q * d.rsize[i]) * d.rin[i];
    r = q;
  }
  return off;
}

// The reduced range [r0, r1) of this block's chunk (blockIdx.y).
__device__ __forceinline__ void chunk_bounds(const ReduceDesc& d, int64_t& r0, int64_t& r1) {
  r0 = int64_t(blockIdx.y) * d.chunk;
  r1 = r0 + d.chunk < d.reduce_numel ? r0 + d.chunk : d.reduce_numel;
}

// ---- the reductions: In (storage) -> A (accumulator) -> Out ----
template <class S, bool kNan>
struct SumR {
  using In = S;
  using C = std::conditional_t<std::is_integral_v<S>, int64_t, compute_t<S>>;
  using A = C;
  using Out = std::conditional_t<std::is_integral_v<S>, int64_t, S>;
  bool mean = false;
  double divisor = 1;
  __device__ A identity() const { return A(0); }
  __device__ A load(S x) const {
    const C c = convert<C>(x);
    if constexpr (kNan && !std::is_integral_v<C> && !is_complex_v<C>) return c != c ? A(0) : c;
    else return c;
  }
  __device__ void combine(A& a, const A& b) const { a += b; }
  __device__ Out finish(const A& a) const {
    if constexpr (std::is_integral_v<A>) {
      return convert<Out>(a);
    } else if constexpr (is_complex_v<A>) {
      using R = real_t<A>;
      return convert<Out>(mean ? A(R(double(a.real()) / divisor), R(double(a.imag()) / divisor)) : a);
    } else {
      return convert<Out>(mean ? A(double(a) / divisor) : a);
    }
  }
};

template <class S>
struct ProdR {
  using In = S;
  using A = std::conditional_t<std::is_integral_v<S>, int64_t, compute_t<S>>;
  using Out = std::conditional_t<std::is_integral_v<S>, int64_t, S>;
  __device__ A identity() const { return A(1); }
  __device__ A load(S x) const { return convert<A>(x); }
  __device__ void combine(A& a, const A& b) const { a = a * b; }
  __device__ Out finish(const A& a) const { return convert<Out>(a); }
};

template <class S, bool kAll, class OutT>
struct AllAnyR {
  using In = S;
  using A = uint8_t;
  using Out = OutT;
  __device__ A identity() const { return kAll ? 1 : 0; }
  __device__ A load(S x) const { return convert<bool>(x) ? 1 : 0; }
  __device__ void combine(A& a, const A& b) const { a = kAll ? (a < b ? a : b) : (a > b ? a : b); }
  __device__ Out finish(const A& a) const { return Out(a != 0); }
};

// amax/amin: NaN wins, as on the CPU.
template <class S, bool kMax>
struct MinMaxR {
  using In = S;
  using A = std::conditional_t<std::is_same_v<S, bool>, uint8_t, compute_t<S>>;
  using Out = S;
  __device__ A identity() const {
    if constexpr (std::is_floating_point_v<A>)
      return kMax ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::infinity();
    else return kMax ? std::numeric_limits<A>::lowest() : std::numeric_limits<A>::max();
  }
  __device__ A load(S x) const { return convert<A>(x); }
  __device__ void combine(A& a, const A& b) const {
    if constexpr (std::is_floating_point_v<A>) {
      if (a != a) return;
      if (b != b) { a = b; return; }
    }
    if (kMax ? b > a : b < a) a = b;
  }
  __device__ Out finish(const A& a) const { return convert<Out>(a); }
};

// count_nonzero: int64 counts (convert<bool>: complex values count when either part is non-zero).
template <class S>
struct CountR {
  using In = S;
  using A = int64_t;
  using Out = int64_t;
  __device__ A identity() const { return 0; }
  __device__ A load(S x) const { return convert<bool>(x) ? 1 : 0; }
  __device__ void combine(A& a, const A& b) const { a += b; }
  __device__ Out finish(const A& a) const { return a; }
};

// aminmax: both at once (NaN wins each), min into out and max into out2.
template <class S>
struct AMinMaxR {
  using In = S;
  using C = std::conditional_t<std::is_same_v<S, bool>, uint8_t, compute_t<S>>;
  struct A {
    C lo, hi;
  };
  using Out = S;
  MinMaxR<S, false> lo_op;
  MinMaxR<S, true> hi_op;
  __device__ A identity() const { return {lo_op.identity(), hi_op.identity()}; }
  __device__ A load(S x) const {
    const C c = convert<C>(x);
    return {c, c};
  }
  __device__ void combine(A& a, const A& b) const {
    lo_op.combine(a.lo, b.lo);
    hi_op.combine(a.hi, b.hi);
  }
  __device__ Out finish(const A& a) const { return convert<Out>(a.lo); }
  __device__ Out finish2(const A& a) const { return convert<Out>(a.hi); }
};

// max/min(dim) (values into out, indices into out2) and argmax/argmin (indices into out):
// the best value and its first index; NaN beats every number, as on the CPU. Elements
// arrive out of order, so equal values keep the lower index. max or min is a run-time
// field: one kernel set per dtype serves both (fewer kernels to compile).
template <class S, bool kValues>
struct ArgR {
  using In = S;
  using C = std::conditional_t<std::is_same_v<S, bool>, uint8_t, compute_t<S>>;
  struct A {
    C v;
    int64_t i;
  };
  using Out = std::conditional_t<kValues, S, int64_t>;
  bool max = true;
  static __device__ bool is_nan(C x) {
    if constexpr (std::is_floating_point_v<C>) return x != x;
    else return false;
  }
  __device__ A identity() const { return {C(0), -1}; }
  __device__ A load(S x, int64_t r) const { return {convert<C>(x), r}; }
  __device__ void combine(A& a, const A& b) const {
    if (b.i < 0) return;
    if (a.i < 0) {
      a = b;
      return;
    }
    const bool an = is_nan(a.v), bn = is_nan(b.v);
    const bool better = (bn && !an) || (!an && !bn && (max ? b.v > a.v : b.v < a.v));
    const bool same = (an && bn) || (!an && !bn && b.v == a.v);
    if (better || (same && b.i < a.i)) a = b;
  }
  __device__ Out finish(const A& a) const {
    if constexpr (kValues) return convert<Out>(a.v);
    else return a.i;
  }
  __device__ int64_t finish2(const A& a) const { return a.i; }
};

// var/std (+ mean): Welford's update per element, Chan's merge of partial results, in double
// (as the CPU's accumulators).
struct VarAcc {
  double n, mean, m2;
};
template <class S>
struct VarR {
  using In = S;
  using A = VarAcc;
  using Out = S;
  using C = compute_t<S>;
  int64_t correction = 1;
  bool take_sqrt = false;
  __device__ A identity() const { return {0, 0, 0}; }
  __device__ A load(S x) const { return {1, double(convert<C>(x)), 0}; }
  __device__ void combine(A& a, const A& b) const {
    if (b.n == 0) return;
    if (a.n == 0) {
      a = b;
      return;
    }
    const double n = a.n + b.n, delta = b.mean - a.mean;
    a.mean += delta * (b.n / n);
    a.m2 += b.m2 + delta * delta * (a.n * b.n / n);
    a.n = n;
  }
  __device__ Out finish(const A& a) const {
    const double dof = a.n - double(correction);
    const double var = a.m2 / (dof > 0 ? dof : 0);
    return convert<Out>(C(take_sqrt ? ::sqrt(var) : var));
  }
  __device__ Out finish2(const A& a) const {
    return convert<Out>(C(a.n == 0 ? __longlong_as_double(0x7ff8000000000000ll) : a.mean));
  }
};

// Vector norms (linalg_vector_norm): kind 0 counts non-zeros, 1 sums |x|, 2 sums x^2 (then
// sqrt), 3 and 4 take max and min of |x| (NaN wins), 5 sums |x|^p (then the p-th root); |x| of
// a complex number is its modulus. Accumulated in double, as on the CPU.
__device__ __forceinline__ float pow_of(float a, float b) { return ::powf(a, b); }
__device__ __forceinline__ double pow_of(double a, double b) { return ::pow(a, b); }
template <class S>
struct NormR {
  using In = S;
  using C = real_t<compute_t<S>>;
  using A = double;
  using Out = real_t<S>;
  int kind = 2;
  double p = 2;
  __device__ A identity() const { return kind == 4 ? __longlong_as_double(0x7ff0000000000000ll) : 0.0; }
  __device__ A load(S x) const {
    C a;
    if constexpr (is_complex_v<S>) {
      const auto z = convert<compute_t<S>>(x);
      a = C(::hypot(double(z.real()), double(z.imag())));
    } else {
      const C v = convert<C>(x);
      a = v < C(0) ? -v : v;
    }
    switch (kind) {
      case 0: return a != C(0) ? 1.0 : 0.0;
      case 2: return double(a) * double(a);
      case 5: return double(pow_of(a, C(p)));
      default: return double(a);
    }
  }
  __device__ void combine(A& a, const A& b) const {
    if (kind == 3) a = (b > a || b != b) && a == a ? b : a;
    else if (kind == 4) a = (b < a || b != b) && a == a ? b : a;
    else a += b;
  }
  __device__ Out finish(const A& a) const {
    const double r = kind == 2 ? ::sqrt(a) : kind == 5 ? ::pow(a, 1.0 / p) : a;
    return convert<Out>(C(r));
  }
};

// ---- kernels ----
// Op::load(x), or Op::load(x, r) for ops that want the element's reduced index r.
template <class Op>
__device__ __forceinline__ typename Op::A load_at(const Op& op, const typename Op::In& x, int64_t r) {
  if constexpr (requires { op.load(x, r); }) return op.load(x, r);
  else return op.load(x);
}

// The output(s) of one kept position: Op::finish, and Op::finish2 into out2 where the op has
// a second result (var_mean) and it was asked for.
template <class Op>
__device__ __forceinline__ void write_outputs(const ReduceDesc& d, const Op& op, const KeptOffsets& o,
                                              const typename Op::A& acc) {
  reinterpret_cast<typename Op::Out*>(d.out)[o.out] = op.finish(acc);
  if constexpr (requires { op.finish2(acc); }) {
    if (d.out2) reinterpret_cast<decltype(op.finish2(acc))*>(d.out2)[o.out2] = op.finish2(acc);
  }
}

template <class Op>
__device__ __forceinline__ void write_result(const ReduceDesc& d, const Op& op, typename Op::A* partial, int64_t k,
                                             int64_t split, const KeptOffsets& o, const typename Op::A& acc) {
  if (d.splits == 1) write_outputs(d, op, o, acc);
  else partial[k * d.splits + split] = acc;
}

// A warp per output, lanes striding over the reduced elements.
template <class Op>
__global__ void __launch_bounds__(kReduceThreads) reduce_warp_kernel(ReduceDesc d, Op op, typename Op::A* partial) {
  using A = typename Op::A;
  __shared__ alignas(16) unsigned char smem[kReduceThreads * sizeof(A)];
  A* buf = reinterpret_cast<A*>(smem) + (threadIdx.x / 32) * 32;
  const int lane = threadIdx.x % 32;
  const int64_t k = int64_t(blockIdx.x) * kWarps + threadIdx.x / 32;
  if (k >= d.num_outputs) return;  // the whole warp leaves together
  const KeptOffsets o = kept_offsets(d, k);
  const auto* base = reinterpret_cast<const typename Op::In*>(d.in) + o.in;
  int64_t r0, r1;
  chunk_bounds(d, r0, r1);
  A acc = op.identity();
  for (int64_t r = r0 + lane; r < r1; r += 32) op.combine(acc, load_at(op, base[reduced_offset(d, r)], r));
  buf[lane] = acc;
  __syncwarp();
  for (int s = 16; s > 0; s >>= 1) {
    if (lane < s) {
      A v = buf[lane];
      op.combine(v, buf[lane + s]);
      buf[lane] = v;
    }
    __syncwarp();
  }
  if (lane == 0) write_result(d, op, partial, k, blockIdx.y, o, buf[0]);
}

// A thread per output (kept dims innermost: neighbouring threads read neighbouring elements).
template <class Op>
__global__ void __launch_bounds__(kReduceThreads) reduce_thread_kernel(ReduceDesc d, Op op, typename Op::A* partial) {
  using A = typename Op::A;
  const int64_t k = int64_t(blockIdx.x) * kReduceThreads + threadIdx.x;
  if (k >= d.num_outputs) return;
  const KeptOffsets o = kept_offsets(d, k);
  const auto* base = reinterpret_cast<const typename Op::In*>(d.in) + o.in;
  int64_t r0, r1;
  chunk_bounds(d, r0, r1);
  A acc = op.identity();
  for (int64_t r = r0; r < r1; ++r) op.combine(acc, load_at(op, base[reduced_offset(d, r)], r));
  write_result(d, op, partial, k, blockIdx.y, o, acc);
}

// Combines each output's partial results.
template <class Op>
__global__ void __launch_bounds__(kReduceThreads) reduce_finish_kernel(ReduceDesc d, Op op, const typename Op::A* partial) {
  const int64_t k = int64_t(blockIdx.x) * kReduceThreads + threadIdx.x;
  if (k >= d.num_outputs) return;
  typename Op::A acc = op.identity();
  for (int64_t s = 0; s < d.splits; ++s) op.combine(acc, partial[k * d.splits + s]);
  write_outputs(d, op, kept_offsets(d, k), acc);
}

template <class Op>
void launch_reduction(const ReducePlan& p, const Op& op) {
  EMBER_INTERNAL_ASSERT(p.out_dtype == scalar_type_of<typename Op::Out>, "CUDA reduction output dtype ", p.out_dtype);
  if (p.num_outputs == 0) return;
  ReduceDesc d{};
  d.in = p.in;
  d.out = p.out;
  d.out2 = p.out2;
  d.nk = p.nk;
  d.nr = p.nr;
  for (int i = 0; i < p.nk; ++i)
    d.ksize[i] = p.ksize[i], d.kin[i] = p.kin[i], d.kout[i] = p.kout[i], d.kout2[i] = p.kout2[i];
  for (int i = 0; i < p.nr; ++i) d.rsize[i] = p.rsize[i], d.rin[i] = p.rin[i];
  d.num_outputs = p.num_outputs;
  d.reduce_numel = p.reduce_numel;
  // Kept dims innermost and reduced ones not: a thread per output; otherwise a warp.
  const bool per_thread = p.nk > 0 && p.kin[0] == 1 && p.ksize[0] > 1 && !(p.nr > 0 && p.rin[0] == 1);
  // Enough parallel work for a large GPU (about 132 SMs x 2048 threads); split the reduced
  // range when the outputs alone do not give it, in chunks of at least 4096 elements.
  constexpr int64_t kTargetThreads = int64_t(132) * 2048, kMinChunk = 4096;
  const int64_t threads = d.num_outputs * (per_thread ? 1 : 32);
  int64_t splits = 1;
  if (threads < kTargetThreads && d.reduce_numel > kMinChunk)
    splits = std::min<int64_t>({(kTargetThreads + threads - 1) / threads, (d.reduce_numel + kMinChunk - 1) / kMinChunk,
                                65535});
  d.chunk = std::max<int64_t>(1, (d.reduce_numel + splits - 1) / splits);
  d.splits = std::max<int64_t>(1, (d.reduce_numel + d.chunk - 1) / d.chunk);
  using A = typename Op::A;
  cudaStream_t stream = getCurrentCUDAStream().stream();
  A* partial = d.splits > 1 ? static_cast<A*>(CUDACachingAllocator::raw_alloc(size_t(d.num_outputs * d.splits) * sizeof(A)))
                            : nullptr;
  const int64_t per_block = per_thread ? kReduceThreads : kWarps;
  const dim3 grid(unsigned((d.num_outputs + per_block - 1) / per_block), unsigned(d.splits));
  EMBER_CHECK(grid.x <= 0x7fffffffu, "CUDA reduction: too many outputs (", d.num_outputs, ")");
  if (per_thread) reduce_thread_kernel<<<grid, kReduceThreads, 0, stream>>>(d, op, partial);
  else reduce_warp_kernel<<<grid, kReduceThreads, 0, stream>>>(d, op, partial);
  EMBER_CUDA_CHECK(cudaGetLastError());
  if (partial) {
    reduce_finish_kernel<<<unsigned((d.num_outputs + kReduceThreads - 1) / kReduceThreads), kReduceThreads, 0, stream>>>(
        d, op, partial);
    EMBER_CUDA_CHECK(cudaGetLastError());
    CUDACachingAllocator::raw_delete(partial);  // stream-ordered: reused only after the kernels
  }
}

template <bool kNan>
void sum_kernel(const ReducePlan& p, const ReduceArgs& args) {
  constexpr DtypeSet kSet = kNan ? (kBoolType | kRealTypes) : kAllTypes;
  visit_dtype<kSet>(p.in_dtype, kNan ? "nansum" : "sum", [&](auto tag) {
    using S = typename decltype(tag)::type;
    SumR<S, kNan> op;
    op.mean = args.mean;
    op.divisor = args.p;
    launch_reduction(p, op);
  });
}

void prod_kernel(const ReducePlan& p, const ReduceArgs&) {
  visit_dtype<kAllTypes>(p.in_dtype, "prod", [&](auto tag) { launch_reduction(p, ProdR<typename decltype(tag)::type>{}); });
}

template <bool kAll>
void all_any_kernel(const ReducePlan& p, const ReduceArgs&) {
  visit_dtype<kAllTypes>(p.in_dtype, kAll ? "all" : "any", [&](auto tag) {
    using S = typename decltype(tag)::type;
    if constexpr (std::is_same_v<S, uint8_t>) launch_reduction(p, AllAnyR<S, kAll, uint8_t>{});
    else launch_reduction(p, AllAnyR<S, kAll, bool>{});
  });
}

template <bool kMax>
void minmax_kernel(const ReducePlan& p, const ReduceArgs&) {
  visit_dtype<kOrderedTypes>(p.in_dtype, kMax ? "amax" : "amin",
                                      [&](auto tag) { launch_reduction(p, MinMaxR<typename decltype(tag)::type, kMax>{}); });
}

void count_nonzero_kernel(const ReducePlan& p, const ReduceArgs&) {
  visit_dtype<kAllTypes>(p.in_dtype, "count_nonzero",
                         [&](auto tag) { launch_reduction(p, CountR<typename decltype(tag)::type>{}); });
}

void aminmax_kernel(const ReducePlan& p, const ReduceArgs&) {
  visit_dtype<kOrderedTypes>(p.in_dtype, "aminmax",
                                      [&](auto tag) { launch_reduction(p, AMinMaxR<typename decltype(tag)::type>{}); });
}

template <bool kMax>
void arg_kernel(const ReducePlan& p, const ReduceArgs& args) {
  visit_dtype<kOrderedTypes>(p.in_dtype, kMax ? "max" : "min", [&](auto tag) {
    using S = typename decltype(tag)::type;
    if (args.with_values) launch_reduction(p, ArgR<S, true>{kMax});
    else launch_reduction(p, ArgR<S, false>{kMax});
  });
}

void var_kernel(const ReducePlan& p, const ReduceArgs& args) {
  visit_dtype<kFloatingTypes>(p.in_dtype, "var", [&](auto tag) {
    VarR<typename decltype(tag)::type> op;
    op.correction = args.correction;
    op.take_sqrt = args.take_sqrt;
    launch_reduction(p, op);
  });
}

void norm_kernel(const ReducePlan& p, const ReduceArgs& args) {
  visit_dtype<kFloatingAndComplexTypes>(p.in_dtype, "norm", [&](auto tag) {
    NormR<typename decltype(tag)::type> op;
    const double ord = args.p;
    op.p = ord;
    op.kind = ord == 0 ? 0 : ord == 1 ? 1 : ord == 2 ? 2 : std::isinf(ord) ? (ord > 0 ? 3 : 4) : 5;
    launch_reduction(p, op);
  });
}

const KernelRegistrar<ReduceFn> r_norm("linalg_vector_norm", kCUDA, CpuCapability::Default, &norm_kernel);
const KernelRegistrar<ReduceFn> r_var("var_mean", kCUDA, CpuCapability::Default, &var_kernel);
const KernelRegistrar<ReduceFn> r_sum("sum", kCUDA, CpuCapability::Default, &sum_kernel<false>);
const KernelRegistrar<ReduceFn> r_nansum("nansum", kCUDA, CpuCapability::Default, &sum_kernel<true>);
const KernelRegistrar<ReduceFn> r_prod("prod", kCUDA, CpuCapability::Default, &prod_kernel);
const KernelRegistrar<ReduceFn> r_all("all", kCUDA, CpuCapability::Default, &all_any_kernel<true>);
const KernelRegistrar<ReduceFn> r_any("any", kCUDA, CpuCapability::Default, &all_any_kernel<false>);
const KernelRegistrar<ReduceFn> r_amax("amax", kCUDA, CpuCapability::Default, &minmax_kernel<true>);
const KernelRegistrar<ReduceFn> r_amin("amin", kCUDA, CpuCapability::Default, &minmax_kernel<false>);
const KernelRegistrar<ReduceFn> r_count("count_nonzero", kCUDA, CpuCapability::Default, &count_nonzero_kernel);
const KernelRegistrar<ReduceFn> r_aminmax("aminmax", kCUDA, CpuCapability::Default, &aminmax_kernel);
const KernelRegistrar<ReduceFn> r_max_idx("max_dim", kCUDA, CpuCapability::Default, &arg_kernel<true>);
const KernelRegistrar<ReduceFn> r_min_idx("min_dim", kCUDA, CpuCapability::Default, &arg_kernel<false>);

}  // namespace
}  // namespace ember::cuda
