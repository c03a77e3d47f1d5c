// CPU kernels of the accumulating reductions: sum/nansum/mean, prod, all/any,
// count_nonzero, vector norms and var/std (+ mean). Each op is a small struct following
// the contract in reduce_loops.h; the engine there does the iteration and threading.
#include "ember/ops/cpu/reduce_loops.h"
#include "ember/ops/dispatch.h"

namespace ember::cpu {
inline namespace EMBER_CPU_NS {
namespace {

constexpr CpuCapability kCap = CpuCapability(EMBER_CPU_CAP_INDEX);

// Types of sum and prod: bool/integers accumulate in int64; Half/BFloat16/float compute
// in float (sums accumulate block results in double); complex32/64 in complex64.
template <class S> struct AccTypes {
  static constexpr bool kInt = std::is_integral_v<S>;
  using C = std::conditional_t<kInt, int64_t, compute_t<S>>;
  using SumA = std::conditional_t<kInt, int64_t,
               std::conditional_t<is_complex_v<C>, Complex<double>, double>>;
  using Out = std::conditional_t<kInt, int64_t, S>;
};

// ---- sum, nansum, mean -------------------------------------------------------------------
template <class S, bool kNan>
struct SumOp {
  using C = typename AccTypes<S>::C;
  using A = typename AccTypes<S>::SumA;
  using Out = typename AccTypes<S>::Out;
  using Out2 = char;
  static constexpr bool kDirect = true;
  bool mean = false;
  double divisor = 1;  // mean: the number of reduced elements

  struct F {
    template <class V> EMBER_HD V operator()(V v) const {
      if constexpr (kNan && !std::is_integral_v<C>) return v != v ? V{} : v;
      else return v;
    }
  };
  C load(S x) const { return convert<C>(x); }
  A identity() const { return A(0); }
  void reduce_block(A& acc, const C* x, int64_t n, int64_t) const {
    if constexpr (is_complex_v<C>) {
      using R = real_t<C>;
      R r[2];
      cascade_sum<R, 2>(reinterpret_cast<const R*>(x), 2 * n, r, F{});
      acc += A(r[0], r[1]);
    } else {
      C r[1];
      cascade_sum<C, 1>(x, n, r, F{});
      acc += A(r[0]);
    }
  }
  void combine(A& a, const A& b) const { a += b; }
  void accumulate_row(A* acc, const C* x, int64_t n, int64_t) const {
    if constexpr (is_complex_v<C>) {
      for (int64_t i = 0; i < n; ++i) acc[i] += A(x[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) acc[i] += A(F{}(x[i]));
    }
  }
  // Outer reductions of float data: rows are summed in float, at full vector width, in runs
  // of kRun rows whose sums are then added in double (a two-level cascade).
  struct FloatCols {
    static constexpr int64_t kN = 1024, kRun = 16;
    int64_t rows = 0;
    float f[kN];
    double d[kN];
    void init(const SumOp&, int64_t w) {
      rows = 0;
      for (int64_t j = 0; j < w; ++j) f[j] = 0, d[j] = 0;
    }
    void accumulate(const SumOp&, const float* x, int64_t w, int64_t) {
      for (int64_t j = 0; j < w; ++j) f[j] += F{}(x[j]);
      if (++rows % kRun == 0) flush(w);
    }
    void flush(int64_t w) {
      for (int64_t j = 0; j < w; ++j) d[j] += f[j], f[j] = 0;
    }
    void combine(const SumOp&, const FloatCols& o, int64_t w) {
      for (int64_t j = 0; j < w; ++j) d[j] += double(o.d[j]) + double(o.f[j]);
    }
    A get(int64_t i) const { return d[i] + double(f[i]); }
  };
  using Cols = std::conditional_t<std::is_same_v<C, float>, FloatCols, DefaultCols<SumOp>>;

  void write(const A& a, Out* o, Out2*) const {
    if constexpr (std::is_integral_v<A>) {
      *o = convert<Out>(a);
    } else {
      *o = convert<Out>(mean ? a / divisor : a);
    }
  }
};

template <bool kNan>
void sum_kernel(const ReducePlan& p, const ReduceArgs& args) {
  constexpr DtypeSet kSet = kNan ? (kBoolType | kRealTypes) : kAllTypes;
  visit_dtype<kSet>(p.in_dtype, kNan ? "nansum" : "sum", [&](auto tag) {
    using S = typename decltype(tag)::type;
    using Out = typename SumOp<S, kNan>::Out;
    EMBER_INTERNAL_ASSERT(p.out_dtype == scalar_type_of<Out>);
    if constexpr (std::is_same_v<S, bool>) {
      run_reducer<uint8_t>(p, SumOp<uint8_t, kNan>{});  // bools are 0/1 bytes
    } else {
      SumOp<S, kNan> op;
      op.mean = args.mean;
      op.divisor = args.p;
      run_reducer<S>(p, op);
    }
  });
}

// ---- prod ----------------------------------------------------------------------------------
template <class S>
struct ProdOp {
  using C = typename AccTypes<S>::C;
  using A = C;
  using Out = typename AccTypes<S>::Out;
  using Out2 = char;
  static constexpr bool kDirect = true;
  C load(S x) const { return convert<C>(x); }
  A identity() const { return A(1); }
  void reduce_block(A& acc, const C* x, int64_t n, int64_t) const {
    if constexpr (is_complex_v<C>) {
      for (int64_t i = 0; i < n; ++i) acc = acc * x[i];
    } else {
      using V = vec_t<C>;
      constexpr int W = kLanes<C>;
      int64_t i = 0;
      if (n >= 2 * W) {
        V a0 = vload(x), a1 = vload(x + W);
        for (i = 2 * W; i + 2 * W <= n; i += 2 * W) {
          a0 *= vload(x + i);
          a1 *= vload(x + i + W);
        }
        a0 *= a1;
        for (int l = 0; l < W; ++l) acc *= a0[l];
      }
      for (; i < n; ++i) acc *= x[i];
    }
  }
  void combine(A& a, const A& b) const { a = a * b; }
  void accumulate_row(A* acc, const C* x, int64_t n, int64_t) const {
    for (int64_t i = 0; i < n; ++i) acc[i] = acc[i] * x[i];
  }
  void write(const A& a, Out* o, Out2*) const { *o = convert<Out>(a); }
};

void prod_kernel(const ReducePlan& p, const ReduceArgs&) {
  visit_dtype<kAllTypes>(p.in_dtype, "prod", [&](auto tag) {
    using S = typename decltype(tag)::type;
    if constexpr (std::is_same_v<S, bool>) run_reducer<uint8_t>(p, ProdOp<uint8_t>{});
    else run_reducer<S>(p, ProdOp<S>{});
  });
}

// ---- all, any ------------------------------------------------------------------------------
// Elements become 0/1 bytes; all is their min, any their max. uint8 (and bool) data are
// reduced in place: min/max of the raw bytes is non-zero exactly when all/any are.
template <class S, bool kAll, class OutT>
struct AllAnyOp {
  using C = uint8_t;
  using A = uint8_t;
  using Out = OutT;
  using Out2 = char;
  static constexpr bool kDirect = std::is_same_v<S, uint8_t>;
  C load(S x) const { return convert<bool>(x) ? 1 : 0; }
  A identity() const { return kAll ? 1 : 0; }
  void reduce_block(A& acc, const C* x, int64_t n, int64_t) const {
    acc = vec_minmax<!kAll>(x, n, acc, Identity{});
  }
  void combine(A& a, const A& b) const { a = kAll ? std::min(a, b) : std::max(a, b); }
  void accumulate_row(A* acc, const C* x, int64_t n, int64_t) const {
    for (int64_t i = 0; i < n; ++i) acc[i] = kAll ? std::min(acc[i], x[i]) : std::max(acc[i], x[i]);
  }
  void write(const A& a, Out* o, Out2*) const { *o = Out(a != 0); }
};

template <bool kAll>
void all_any_kernel(const ReducePlan& p, const ReduceArgs&) {
  visit_dtype<kAllTypes>(p.in_dtype, kAll ? "all" : "any", [&](auto tag) {
    using S = typename decltype(tag)::type;
    if constexpr (std::is_same_v<S, bool>) run_reducer<uint8_t>(p, AllAnyOp<uint8_t, kAll, bool>{});
    else if constexpr (std::is_same_v<S, uint8_t>) run_reducer<uint8_t>(p, AllAnyOp<uint8_t, kAll, uint8_t>{});
    else run_reducer<S>(p, AllAnyOp<S, kAll, bool>{});
  });
}

// ---- count_nonzero -------------------------------------------------------------------------
template <class S>
struct CountOp {
  using C = int64_t;
  using A = int64_t;
  using Out = int64_t;
  using Out2 = char;
  static constexpr bool kDirect = false;
  C load(S x) const { return convert<bool>(x) ? 1 : 0; }
  A identity() const { return 0; }
  void reduce_block(A& acc, const C* x, int64_t n, int64_t) const {
    C r[1];
    cascade_sum<C, 1>(x, n, r, Identity{});
    acc += r[0];
  }
  void combine(A& a, const A& b) const { a += b; }
  void accumulate_row(A* acc, const C* x, int64_t n, int64_t) const {
    for (int64_t i = 0; i < n; ++i) acc[i] += x[i];
  }
  void write(const A& a, Out* o, Out2*) const { *o = a; }
};

void count_nonzero_kernel(const ReducePlan& p, const ReduceArgs&) {
  visit_dtype<kAllTypes>(p.in_dtype, "count_nonzero", [&](auto tag) {
    using S = typename decltype(tag)::type;
    run_reducer<S>(p, CountOp<S>{});
  });
}

// ---- vector norms --------------------------------------------------------------------------
// kind: 0 counts non-zeros, 1 sums |x|, 2 sums x^2 then sqrt, 3 max |x|, 4 min |x|,
// 5 sums |x|^p then takes the 1/p power.
template <class S>
struct NormOp {
  using C = real_t<compute_t<S>>;
  using A = double;
  using Out = real_t<S>;
  using Out2 = char;
  static constexpr bool kDirect = !is_complex_v<S>;
  int kind = 2;
  double p = 2;

  C load(S x) const {
    if constexpr (is_complex_v<S>) {
      auto z = convert<compute_t<S>>(x);
      return std::hypot(z.real(), z.imag());
    } else {
      return convert<C>(x);
    }
  }
  A identity() const { return kind == 4 ? std::numeric_limits<double>::infinity() : 0.0; }
  void reduce_block(A& acc, const C* x, int64_t n, int64_t) const {
    C r[1];
    switch (kind) {
      case 0:
        cascade_sum<C, 1>(x, n, r, [](auto v) {
          using V = decltype(v);
          return v != V{} ? V{} + C(1) : V{};
        });
        acc += r[0];
        break;
      case 1: cascade_sum<C, 1>(x, n, r, AbsF{}); acc += r[0]; break;
      case 2: cascade_sum<C, 1>(x, n, r, [](auto v) { return v * v; }); acc += r[0]; break;
      case 3: acc = pick<true>(acc, double(vec_minmax<true>(x, n, C(0), AbsF{}))); break;
      case 4:
        acc = pick<false>(acc, double(vec_minmax<false>(x, n, std::numeric_limits<C>::infinity(), AbsF{})));
        break;
      default: {
        C s = 0, pc = C(p);
        for (int64_t i = 0; i < n; ++i) s += std::pow(std::abs(x[i]), pc);
        acc += s;
      }
    }
  }
  void combine(A& a, const A& b) const {
    if (kind == 3) a = pick<true>(a, b);
    else if (kind == 4) a = pick<false>(a, b);
    else a += b;
  }
  void accumulate_row(A* acc, const C* x, int64_t n, int64_t) const {
    switch (kind) {
      case 0: for (int64_t i = 0; i < n; ++i) acc[i] += x[i] != C(0) ? 1.0 : 0.0; break;
      case 1: for (int64_t i = 0; i < n; ++i) acc[i] += double(std::abs(x[i])); break;
      case 2: for (int64_t i = 0; i < n; ++i) acc[i] += double(x[i]) * double(x[i]); break;
      case 3: for (int64_t i = 0; i < n; ++i) acc[i] = pick<true>(acc[i], double(std::abs(x[i]))); break;
      case 4: for (int64_t i = 0; i < n; ++i) acc[i] = pick<false>(acc[i], double(std::abs(x[i]))); break;
      default: {
        C pc = C(p);
        for (int64_t i = 0; i < n; ++i) acc[i] += double(std::pow(std::abs(x[i]), pc));
      }
    }
  }
  void write(const A& a, Out* o, Out2*) const {
    double r = kind == 2 ? std::sqrt(a) : kind == 5 ? std::pow(a, 1.0 / p) : a;
    *o = convert<Out>(C(r));
  }
};

void norm_kernel(const ReducePlan& p, const ReduceArgs& args) {
  visit_dtype<kFloatingAndComplexTypes>(p.in_dtype, "norm", [&](auto tag) {
    using S = typename decltype(tag)::type;
    NormOp<S> op;
    double ord = args.p;
    op.p = ord;
    op.kind = ord == 0 ? 0 : ord == 1 ? 1 : ord == 2 ? 2 : std::isinf(ord) ? (ord > 0 ? 3 : 4) : 5;
    run_reducer<S>(p, op);
  });
}

// ---- var, std (+ mean) ---------------------------------------------------------------------
// Blocks are reduced two-pass (mean, then squared deviations) and merged with Chan's formula;
// rows of an outer reduction use Welford's update with the count shared by all columns.
struct VarAcc {
  double n = 0, mean = 0, m2 = 0;
};
inline void chan_merge(VarAcc& a, const VarAcc& b) {
  if (b.n == 0) return;
  if (a.n == 0) { a = b; return; }
  double n = a.n + b.n, delta = b.mean - a.mean;
  a.mean += delta * (b.n / n);
  a.m2 += b.m2 + delta * delta * (a.n * b.n / n);
  a.n = n;
}

template <class S>
struct VarOp {
  using C = compute_t<S>;
  using A = VarAcc;
  using Out = S;
  using Out2 = S;
  static constexpr bool kDirect = true;
  int64_t correction = 1;
  bool take_sqrt = false;

  C load(S x) const { return convert<C>(x); }
  A identity() const { return {}; }
  void reduce_block(A& acc, const C* x, int64_t n, int64_t) const {
    constexpr int64_t kSub = 4096;
    for (int64_t b = 0; b < n; b += kSub) {
      int64_t m = std::min(kSub, n - b);
      // Corrected two-pass: the deviations' own sum repairs the rounding of the block mean
      // (which matters when the mean is large next to the spread).
      C s[1], sd[1], sq[1];
      cascade_sum<C, 1>(x + b, m, s, Identity{});
      C mean = C(double(s[0]) / double(m));
      cascade_sum<C, 1>(x + b, m, sd, [mean](auto v) { return v - mean; });
      cascade_sum<C, 1>(x + b, m, sq, [mean](auto v) {
        auto d = v - mean;
        return d * d;
      });
      double dsum = sd[0];
      double m2 = std::max(0.0, double(sq[0]) - dsum * dsum / double(m));
      chan_merge(acc, VarAcc{double(m), double(mean) + dsum / double(m), m2});
    }
  }
  void combine(A& a, const A& b) const { chan_merge(a, b); }
  // Outer reductions: Welford's update, structure-of-arrays; all columns share the count.
  struct Cols {
    static constexpr int64_t kN = 256;
    double n = 0;
    double mean[kN], m2[kN];
    void init(const VarOp&, int64_t w) {
      n = 0;
      for (int64_t j = 0; j < w; ++j) mean[j] = m2[j] = 0;
    }
    void accumulate(const VarOp&, const C* x, int64_t w, int64_t) {
      n += 1;
      double inv = 1.0 / n;
      for (int64_t j = 0; j < w; ++j) {
        double v = x[j], d = v - mean[j];
        mean[j] += d * inv;
        m2[j] += d * (v - mean[j]);
      }
    }
    void combine(const VarOp&, const Cols& o, int64_t w) {
      for (int64_t j = 0; j < w; ++j) {
        VarAcc a{n, mean[j], m2[j]};
        chan_merge(a, VarAcc{o.n, o.mean[j], o.m2[j]});
        mean[j] = a.mean;
        m2[j] = a.m2;
      }
      n += o.n;
    }
    A get(int64_t i) const { return {n, mean[i], m2[i]}; }
  };
  void write(const A& a, Out* o, Out2* o2) const {
    double var = a.m2 / std::max<double>(0, a.n - double(correction));
    *o = convert<Out>(C(take_sqrt ? std::sqrt(var) : var));
    if (o2) *o2 = convert<Out2>(C(a.n == 0 ? std::numeric_limits<double>::quiet_NaN() : a.mean));
  }
};

void var_kernel(const ReducePlan& p, const ReduceArgs& args) {
  visit_dtype<kFloatingTypes>(p.in_dtype, "var", [&](auto tag) {
    using S = typename decltype(tag)::type;
    VarOp<S> op;
    op.correction = args.correction;
    op.take_sqrt = args.take_sqrt;
    run_reducer<S>(p, op);
  });
}

const KernelRegistrar<ReduceFn> r_sum("sum", kCPU, kCap, &sum_kernel<false>);
const KernelRegistrar<ReduceFn> r_nansum("nansum", kCPU, kCap, &sum_kernel<true>);
const KernelRegistrar<ReduceFn> r_prod("prod", kCPU, kCap, &prod_kernel);
const KernelRegistrar<ReduceFn> r_all("all", kCPU, kCap, &all_any_kernel<true>);
const KernelRegistrar<ReduceFn> r_any("any", kCPU, kCap, &all_any_kernel<false>);
const KernelRegistrar<ReduceFn> r_count("count_nonzero", kCPU, kCap, &count_nonzero_kernel);
const KernelRegistrar<ReduceFn> r_norm("linalg_vector_norm", kCPU, kCap, &norm_kernel);
const KernelRegistrar<ReduceFn> r_var("var_mean", kCPU, kCap, &var_kernel);

}  // namespace
}  // namespace EMBER_CPU_NS
}  // namespace ember::cpu
