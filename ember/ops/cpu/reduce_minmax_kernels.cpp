// CPU kernels of the comparison reductions: amax/amin, aminmax, and the index-producing
// max/min(dim) and argmax/argmin. NaN wins (propagates) and ties go to the first index.
#include "ember/ops/cpu/reduce_loops.h"
#include "ember/ops/dispatch.h"

namespace ember::cpu {
inline namespace EMBER_CPU_NS {
namespace {

constexpr CpuCapability kCap = CpuCapability(EMBER_CPU_CAP_INDEX);
constexpr DtypeSet kMinMaxTypes = kBoolType | kRealTypes;

// Compute type of comparisons: Half/BFloat16 compare in float; bools are 0/1 bytes.
template <class S> using cmp_t = std::conditional_t<std::is_same_v<S, bool>, uint8_t, compute_t<S>>;
template <class C> C lowest() {
  if constexpr (kIsFloat<C>) return -std::numeric_limits<C>::infinity();
  else return std::numeric_limits<C>::lowest();
}
template <class C> C highest() {
  if constexpr (kIsFloat<C>) return std::numeric_limits<C>::infinity();
  else return std::numeric_limits<C>::max();
}

// ---- amax, amin ----------------------------------------------------------------------------
template <class S, bool kMax, class OutT>
struct MinMaxOp {
  using C = cmp_t<S>;
  using A = C;
  using Out = OutT;
  using Out2 = char;
  static constexpr bool kDirect = true;
  C load(S x) const { return convert<C>(x); }
  A identity() const { return kMax ? lowest<C>() : highest<C>(); }
  void reduce_block(A& acc, const C* x, int64_t n, int64_t) const {
    acc = vec_minmax<kMax>(x, n, acc, Identity{});
  }
  void combine(A& a, const A& b) const { a = pick<kMax>(a, b); }
  void accumulate_row(A* acc, const C* x, int64_t n, int64_t) const {
    using V = vec_t<C>;
    constexpr int W = kLanes<C>;
    int64_t i = 0;
    for (; i + W <= n; i += W) vstore(acc + i, vpick<kMax>(vload(acc + i), vload(x + i)));
    for (; i < n; ++i) acc[i] = pick<kMax>(acc[i], x[i]);
    (void)sizeof(V);
  }
  void write(const A& a, Out* o, Out2*) const { *o = convert<Out>(a); }
};

template <bool kMax>
void minmax_kernel(const ReducePlan& p, const ReduceArgs&) {
  visit_dtype<kMinMaxTypes>(p.in_dtype, kMax ? "amax" : "amin", [&](auto tag) {
    using S = typename decltype(tag)::type;
    if constexpr (std::is_same_v<S, bool>) run_reducer<uint8_t>(p, MinMaxOp<uint8_t, kMax, bool>{});
    else run_reducer<S>(p, MinMaxOp<S, kMax, S>{});
  });
}

// ---- aminmax -------------------------------------------------------------------------------
template <class S, class OutT>
struct AMinMaxOp {
  using C = cmp_t<S>;
  struct A { C lo, hi; };
  using Out = OutT;
  using Out2 = OutT;
  static constexpr bool kDirect = true;
  C load(S x) const { return convert<C>(x); }
  A identity() const { return {highest<C>(), lowest<C>()}; }
  void reduce_block(A& acc, const C* x, int64_t n, int64_t) const {
    using V = vec_t<C>;
    constexpr int W = kLanes<C>;
    int64_t i = 0;
    if (n >= 2 * W) {
      V lo0 = vload(x), hi0 = lo0, lo1 = vload(x + W), hi1 = lo1;
      for (i = 2 * W; i + 2 * W <= n; i += 2 * W) {
        V a = vload(x + i), b = vload(x + i + W);
        lo0 = vpick<false>(lo0, a);
        hi0 = vpick<true>(hi0, a);
        lo1 = vpick<false>(lo1, b);
        hi1 = vpick<true>(hi1, b);
      }
      lo0 = vpick<false>(lo0, lo1);
      hi0 = vpick<true>(hi0, hi1);
      for (int l = 0; l < W; ++l) {
        acc.lo = pick<false>(acc.lo, C(lo0[l]));
        acc.hi = pick<true>(acc.hi, C(hi0[l]));
      }
    }
    for (; i < n; ++i) {
      acc.lo = pick<false>(acc.lo, x[i]);
      acc.hi = pick<true>(acc.hi, x[i]);
    }
  }
  void combine(A& a, const A& b) const {
    a.lo = pick<false>(a.lo, b.lo);
    a.hi = pick<true>(a.hi, b.hi);
  }
  void accumulate_row(A* acc, const C* x, int64_t n, int64_t) const {
    for (int64_t i = 0; i < n; ++i) {
      acc[i].lo = pick<false>(acc[i].lo, x[i]);
      acc[i].hi = pick<true>(acc[i].hi, x[i]);
    }
  }
  void write(const A& a, Out* o, Out2* o2) const {
    *o = convert<Out>(a.lo);
    *o2 = convert<Out2>(a.hi);
  }
};

void aminmax_kernel(const ReducePlan& p, const ReduceArgs&) {
  visit_dtype<kMinMaxTypes>(p.in_dtype, "aminmax", [&](auto tag) {
    using S = typename decltype(tag)::type;
    if constexpr (std::is_same_v<S, bool>) run_reducer<uint8_t>(p, AMinMaxOp<uint8_t, bool>{});
    else run_reducer<S>(p, AMinMaxOp<S, S>{});
  });
}

// ---- max/min with indices, argmax/argmin ---------------------------------------------------
// A block is scanned for its best value with vector code; only when that beats the running
// best is the block searched again (in cache) for the value's first index.
template <class S, bool kMax, class OutT, bool kValues>
struct ArgOp {
  using C = cmp_t<S>;
  struct A { C v; int64_t i; };
  using Out = std::conditional_t<kValues, OutT, int64_t>;  // values, or indices (argmax)
  using Out2 = std::conditional_t<kValues, int64_t, char>; // indices of max/min(dim)
  static constexpr bool kDirect = true;

  static bool better(C x, C best) {
    if constexpr (kIsFloat<C>) return (kMax ? x > best : x < best) || (x != x && best == best);
    else return kMax ? x > best : x < best;
  }
  C load(S x) const { return convert<C>(x); }
  A identity() const { return {C(0), -1}; }
  void reduce_block(A& acc, const C* x, int64_t n, int64_t idx0) const {
    constexpr int64_t kSub = 2048;
    for (int64_t b = 0; b < n; b += kSub) {
      int64_t m = std::min(kSub, n - b);
      C v = vec_minmax<kMax>(x + b, m, x[b], Identity{});
      if (acc.i < 0 || better(v, acc.v)) {
        acc.v = v;
        acc.i = idx0 + b + find_first(x + b, m, v);
      }
    }
  }
  void combine(A& a, const A& b) const {
    if (b.i >= 0 && (a.i < 0 || better(b.v, a.v))) a = b;
  }
  // Outer reductions: values and indices in separate arrays, so the row update vectorizes.
  struct Cols {
    static constexpr int64_t kN = 256;
    bool started = false;
    C v[kN];
    int64_t ix[kN];
    void init(const ArgOp&, int64_t) { started = false; }
    void accumulate(const ArgOp&, const C* x, int64_t w, int64_t idx) {
      if (!started) {
        for (int64_t j = 0; j < w; ++j) {
          v[j] = x[j];
          ix[j] = idx;
        }
        started = true;
        return;
      }
      for (int64_t j = 0; j < w; ++j) {
        bool t = better(x[j], v[j]);
        v[j] = t ? x[j] : v[j];
        ix[j] = t ? idx : ix[j];
      }
    }
    void combine(const ArgOp&, const Cols& o, int64_t w) {
      if (!o.started) return;
      for (int64_t j = 0; j < w; ++j) {
        if (!started || better(o.v[j], v[j])) {
          v[j] = o.v[j];
          ix[j] = o.ix[j];
        }
      }
      started = true;
    }
    A get(int64_t i) const { return {started ? v[i] : C(0), started ? ix[i] : -1}; }
  };
  void write(const A& a, Out* o, Out2* o2) const {
    if constexpr (kValues) {
      *o = convert<Out>(a.v);
      *o2 = a.i;
    } else {
      *o = a.i;
    }
  }
};

template <bool kMax>
void arg_kernel(const ReducePlan& p, const ReduceArgs& args) {
  visit_dtype<kMinMaxTypes>(p.in_dtype, kMax ? "max" : "min", [&](auto tag) {
    using S = typename decltype(tag)::type;
    using Raw = std::conditional_t<std::is_same_v<S, bool>, uint8_t, S>;
    EMBER_INTERNAL_ASSERT(args.with_values ? p.out_dtype == p.in_dtype : p.out_dtype == kLong);
    if (args.with_values) run_reducer<Raw>(p, ArgOp<Raw, kMax, S, true>{});
    else run_reducer<Raw>(p, ArgOp<Raw, kMax, S, false>{});
  });
}

const KernelRegistrar<ReduceFn> r_amax("amax", kCPU, kCap, &minmax_kernel<true>);
const KernelRegistrar<ReduceFn> r_amin("amin", kCPU, kCap, &minmax_kernel<false>);
const KernelRegistrar<ReduceFn> r_aminmax("aminmax", kCPU, kCap, &aminmax_kernel);
const KernelRegistrar<ReduceFn> r_max_idx("max_dim", kCPU, kCap, &arg_kernel<true>);
const KernelRegistrar<ReduceFn> r_min_idx("min_dim", kCPU, kCap, &arg_kernel<false>);

}  // namespace
}  // namespace EMBER_CPU_NS
}  // namespace ember::cpu
