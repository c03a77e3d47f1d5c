// The CPU reduction engine (Note [Reduction plan]) and its vector building blocks. Inner
// reductions (the reduced dim is innermost in memory) hand contiguous runs to an op's block
// function, which is vectorized with several accumulators; outer reductions (a kept dim is
// innermost) accumulate whole rows into a buffer of per-column accumulators. Work is split
// over outputs, or, when there are few outputs, over the reduced range with per-thread
// partials combined in order. Included only by kernel files (compiled once per ISA).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "ember/core/parallel.h"
#include "ember/ops/convert.h"
#include "ember/ops/reduce.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#pragma GCC diagnostic ignored "-Wpsabi"
// GCC 12 reports its own _mm512_cvtph_ps as reading an uninitialized value.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace ember::cpu {
inline namespace EMBER_CPU_NS {

// ---- vectors (GCC vector extensions: one source for SSE2, AVX2 and AVX-512) -------------
#if defined(__AVX512F__)
inline constexpr int kVecBytes = 64;
#elif defined(__AVX2__)
inline constexpr int kVecBytes = 32;
#else
inline constexpr int kVecBytes = 16;
#endif
template <class T> struct VecOf { typedef T type __attribute__((vector_size(kVecBytes))); };
template <class T> using vec_t = typename VecOf<T>::type;
template <class T> inline constexpr int kLanes = kVecBytes / int(sizeof(T));

template <class T> EMBER_HD vec_t<T> vload(const T* p) {
  vec_t<T> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T> EMBER_HD void vstore(T* p, vec_t<T> v) { std::memcpy(p, &v, sizeof v); }

template <class T> inline constexpr bool kIsFloat = std::is_floating_point_v<T>;

// Horizontal reduction of a vector by halving (lane l meets lane l + width/2, so lanes keep
// their parity for P = 2): res[p] combines the lanes l with l % P == p. op combines two
// vectors of any width (a generic lambda).
template <int P, class T, int Bytes, class Op>
EMBER_HD void hreduce_bytes(const void* v, T* res, const Op& op) {
  constexpr int N = Bytes / int(sizeof(T));
  if constexpr (N <= 2 * P) {
    T a[N];
    std::memcpy(a, v, Bytes);
    if constexpr (N == P) {
      for (int p = 0; p < P; ++p) res[p] = a[p];
    } else {
      for (int p = 0; p < P; ++p) res[p] = op(a[p], a[p + P]);
    }
  } else {
    typedef T H __attribute__((vector_size(Bytes / 2)));
    H lo, hi;
    std::memcpy(&lo, v, Bytes / 2);
    std::memcpy(&hi, static_cast<const char*>(v) + Bytes / 2, Bytes / 2);
    H r = op(lo, hi);
    hreduce_bytes<P, T, Bytes / 2>(&r, res, op);
  }
}
template <int P = 1, class T, class Op>
EMBER_HD void hreduce(vec_t<T> v, T* res, const Op& op) {
  hreduce_bytes<P, T, kVecBytes>(&v, res, op);
}
struct AddOp {
  template <class V> EMBER_HD V operator()(V a, V b) const { return a + b; }
};

// Whether x beats a in a NaN-propagating max (kMax) or min: NaN beats everything.
template <bool kMax, class T> EMBER_HD bool beats(T x, T a) {
  if constexpr (kIsFloat<T>) return (kMax ? x > a : x < a) || x != x;
  else return kMax ? x > a : x < a;
}
template <bool kMax, class T> EMBER_HD T pick(T a, T x) { return beats<kMax>(x, a) ? x : a; }
template <bool kMax, class V> EMBER_HD V vpick(V a, V x) {
  if constexpr (kMax) return ((x > a) | (x != x)) ? x : a;
  else return ((x < a) | (x != x)) ? x : a;
}

// Note [Cascade summation]
// Sums f(x[i]) with four vector accumulators per block of kBlock elements; block sums go
// into a cascade of levels (each level takes kFan values before it carries into the next),
// so the rounding error grows with the number of levels rather than with n, as in
// pairwise summation, at the speed of a plain vector loop. P = 2 sums interleaved pairs
// (complex numbers as {re, im}): lane l contributes to res[l % P].
template <class T, int P, class F>
EMBER_NOINLINE void cascade_sum_long(const T* x, int64_t n, T* res, const F& f) {
  using V = vec_t<T>;
  constexpr int W = kLanes<T>;
  constexpr int64_t kStep = int64_t(W) * 4, kBlock = kStep * 8;
  constexpr int kLevels = 5, kFan = 16;
  V level[kLevels] = {};
  int count[kLevels] = {};
  auto push = [&](V v) {
    level[0] += v;
    for (int l = 0; l + 1 < kLevels && ++count[l] == kFan; ++l) {
      level[l + 1] += level[l];
      level[l] = V{};
      count[l] = 0;
    }
  };
  int64_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    V a0{}, a1{}, a2{}, a3{};
    for (int64_t j = i; j < i + kBlock; j += kStep) {
      a0 += f(vload(x + j));
      a1 += f(vload(x + j + W));
      a2 += f(vload(x + j + 2 * W));
      a3 += f(vload(x + j + 3 * W));
    }
    push((a0 + a1) + (a2 + a3));
  }
  V a0{}, a1{};
  for (; i + 2 * W <= n; i += 2 * W) {
    a0 += f(vload(x + i));
    a1 += f(vload(x + i + W));
  }
  for (; i + W <= n; i += W) a0 += f(vload(x + i));
  V total = a0 + a1;
  for (int l = 0; l < kLevels; ++l) total += level[l];
  T tail[P];
  hreduce<P>(total, tail, AddOp{});
  for (; i < n; ++i) tail[i % P] += f(x[i]);
  for (int p = 0; p < P; ++p) res[p] = tail[p];
}

template <class T, int P = 1, class F>
EMBER_HD void cascade_sum(const T* x, int64_t n, T* res, const F& f) {
  using V = vec_t<T>;
  constexpr int W = kLanes<T>;
  constexpr int64_t kBlock = int64_t(W) * 4 * 8;
  if (n < kBlock) {
    // Short runs: two accumulators, no cascade levels.
    V a0{}, a1{};
    int64_t i = 0;
    for (; i + 2 * W <= n; i += 2 * W) {
      a0 += f(vload(x + i));
      a1 += f(vload(x + i + W));
    }
    if (i + W <= n) {
      a0 += f(vload(x + i));
      i += W;
    }
    T r[P];
    hreduce<P>(a0 + a1, r, AddOp{});
    for (; i < n; ++i) r[i % P] += f(x[i]);
    for (int p = 0; p < P; ++p) res[p] = r[p];
    return;
  }
  cascade_sum_long<T, P>(x, n, res, f);
}

// The NaN-propagating max (kMax) or min of a vector's lanes.
template <bool kMax, class T>
EMBER_HD T hpick(vec_t<T> v) {
  T r[1];
  hreduce<1>(v, r, [](auto a, auto b) {
    if constexpr (std::is_arithmetic_v<decltype(a)>) return pick<kMax>(a, b);
    else return vpick<kMax>(a, b);
  });
  return r[0];
}

// NaN-propagating max (kMax) or min of f(x[i]) over n elements, starting from acc.
template <bool kMax, class T, class F>
T vec_minmax(const T* x, int64_t n, T acc, const F& f) {
  using V = vec_t<T>;
  constexpr int W = kLanes<T>;
  int64_t i = 0;
  if (n >= 4 * W) {
    V a0 = f(vload(x)), a1 = f(vload(x + W)), a2 = f(vload(x + 2 * W)), a3 = f(vload(x + 3 * W));
    for (i = 4 * W; i + 4 * W <= n; i += 4 * W) {
      a0 = vpick<kMax>(a0, f(vload(x + i)));
      a1 = vpick<kMax>(a1, f(vload(x + i + W)));
      a2 = vpick<kMax>(a2, f(vload(x + i + 2 * W)));
      a3 = vpick<kMax>(a3, f(vload(x + i + 3 * W)));
    }
    V a = vpick<kMax>(vpick<kMax>(a0, a1), vpick<kMax>(a2, a3));
    for (; i + W <= n; i += W) a = vpick<kMax>(a, f(vload(x + i)));
    acc = pick<kMax>(acc, hpick<kMax, T>(a));
  } else if (n >= W) {
    V a = f(vload(x));
    for (i = W; i + W <= n; i += W) a = vpick<kMax>(a, f(vload(x + i)));
    acc = pick<kMax>(acc, hpick<kMax, T>(a));
  }
  for (; i < n; ++i) acc = pick<kMax>(acc, T(f(x[i])));
  return acc;
}
struct Identity {
  template <class V> EMBER_HD V operator()(V v) const { return v; }
};
struct AbsF {
  template <class V> EMBER_HD V operator()(V v) const { return v < V{} ? -v : v; }
};

// Whether any lane of a comparison mask is set.
template <class M> EMBER_HD bool any_lane(M m) {
  uint64_t w[sizeof(M) / 8];
  std::memcpy(w, &m, sizeof m);
  uint64_t r = 0;
  for (size_t i = 0; i < sizeof(M) / 8; ++i) r |= w[i];
  return r != 0;
}

// Index of the first element of x[0, n) that is v (or NaN, when v is NaN).
template <class T>
int64_t find_first(const T* x, int64_t n, T v) {
  using V = vec_t<T>;
  constexpr int W = kLanes<T>;
  bool nan = false;
  if constexpr (kIsFloat<T>) nan = v != v;
  V vv = V{} + v;
  int64_t j = 0;
  for (; j + W <= n; j += W) {
    V a = vload(x + j);
    if (nan ? any_lane(a != a) : any_lane(a == vv)) break;
  }
  for (; j < n; ++j) {
    if constexpr (kIsFloat<T>) {
      if (nan ? x[j] != x[j] : x[j] == v) return j;
    } else {
      if (x[j] == v) return j;
    }
  }
  return n;
}

// ---- storage -> compute conversion of blocks ---------------------------------------------
// dst[i] = load(src[i * stride]). kPlain says load is the plain conversion, which allows the
// vector fast paths for Half and BFloat16.
template <bool kPlain = false, class C, class S, class Load>
EMBER_HD void load_block(C* dst, const S* src, int64_t n, int64_t stride, const Load& load) {
#if defined(__AVX512F__)
  if constexpr (kPlain && std::is_same_v<S, Half> && std::is_same_v<C, float>) {
    if (stride == 1) {
      int64_t i = 0;
      for (; i + 16 <= n; i += 16) {
        __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
        _mm512_storeu_ps(dst + i, _mm512_cvtph_ps(h));
      }
      for (; i < n; ++i) dst[i] = load(src[i]);
      return;
    }
  }
#endif
  if constexpr (kPlain && std::is_same_v<S, BFloat16> && std::is_same_v<C, float>) {
    if (stride == 1) {
      const uint16_t* s = reinterpret_cast<const uint16_t*>(src);
      for (int64_t i = 0; i < n; ++i) {
        uint32_t u = uint32_t(s[i]) << 16;
        std::memcpy(dst + i, &u, 4);
      }
      return;
    }
  }
  if (stride == 1) {
    for (int64_t i = 0; i < n; ++i) dst[i] = load(src[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = load(src[i * stride]);
  }
}

// ---- the engine ------------------------------------------------------------------------
inline constexpr int64_t kReduceGrain = 32768;   // elements of work per parallel task
inline constexpr int64_t kSplitMin = 32768;      // smallest reduced range worth a thread

// Walks kept positions [o, ...) starting at kept dim d0, tracking the input/output offsets.
struct KeptWalker {
  const ReducePlan& p;
  int d0;
  int64_t ctr[kMaxReduceDims] = {};
  int64_t in = 0, out = 0, out2 = 0;
  EMBER_HD KeptWalker(const ReducePlan& plan, int64_t o, int first_dim) : p(plan), d0(first_dim) {
    for (int d = d0; d < p.nk; ++d) {
      ctr[d] = o % p.ksize[d];
      o /= p.ksize[d];
      in += ctr[d] * p.kin[d];
      out += ctr[d] * p.kout[d];
      out2 += ctr[d] * p.kout2[d];
    }
  }
  EMBER_HD void next() {
    for (int d = d0; d < p.nk; ++d) {
      in += p.kin[d];
      out += p.kout[d];
      out2 += p.kout2[d];
      if (++ctr[d] < p.ksize[d]) return;
      in -= ctr[d] * p.kin[d];
      out -= ctr[d] * p.kout[d];
      out2 -= ctr[d] * p.kout2[d];
      ctr[d] = 0;
    }
  }
};

// The accumulators of a block of columns in an outer reduction. Ops may define their own
// `Cols` type with this interface (e.g. structure-of-arrays, so that the row update
// vectorizes); by default it is an array of A updated by Op::accumulate_row.
template <class Op>
struct DefaultCols {
  using A = typename Op::A;
  using C = typename Op::C;
  static constexpr int64_t kN = std::max<int64_t>(16, 4096 / int64_t(sizeof(A)));
  A a[kN];
  void init(const Op& op, int64_t w) {
    for (int64_t i = 0; i < w; ++i) a[i] = op.identity();
  }
  void accumulate(const Op& op, const C* x, int64_t w, int64_t idx) { op.accumulate_row(a, x, w, idx); }
  void combine(const Op& op, const DefaultCols& o, int64_t w) {
    for (int64_t i = 0; i < w; ++i) op.combine(a[i], o.a[i]);
  }
  A get(int64_t i) const { return a[i]; }
};
template <class Op, class = void> struct ColsOf { using type = DefaultCols<Op>; };
template <class Op> struct ColsOf<Op, std::void_t<typename Op::Cols>> { using type = typename Op::Cols; };

// Op contract (see reduce_kernels.cpp for examples):
//   C, A, Out, Out2 types; kDirect: load() is a plain conversion, so a contiguous run of
//   S == C is handed to reduce_block without copying; C load(S); A identity();
//   reduce_block(A&, const C*, n, first_index); combine(A& a, const A& b) (b follows a);
//   accumulate_row(A*, const C*, n, index) (or a Cols type, see DefaultCols);
//   write(const A&, Out*, Out2*) (Out2* may be null).
template <class S, class Op>
class Reducer {
 public:
  using C = typename Op::C;
  using A = typename Op::A;
  using Out = typename Op::Out;
  using Out2 = typename Op::Out2;
  using Cols = typename ColsOf<Op>::type;

  Reducer(const ReducePlan& p, const Op& op)
      : p_(p), op_(op), in_(reinterpret_cast<const S*>(p.in)), out_(reinterpret_cast<Out*>(p.out)),
        out2_(reinterpret_cast<Out2*>(p.out2)) {}

  void run() const {
    int64_t O = p_.num_outputs, R = p_.reduce_numel;
    if (O == 0) return;
    if (R == 0) {
      parallel_for(0, O, kReduceGrain, [&](int64_t b, int64_t e) {
        KeptWalker k(p_, b, 0);
        for (int64_t o = b; o < e; ++o, k.next()) write(op_.identity(), k);
      });
      return;
    }
    // Column-wise ("outer") accumulation when a kept dim is innermost in memory (rows of the
    // reduced index space are contiguous runs of outputs), and also when the reduced run is
    // too short to be worth a vector block per output (the rows are then gathered across
    // outputs). Otherwise each output reduces its own runs.
    bool kept_inner = p_.kin[0] == 1 && p_.ksize[0] >= kMinCols && p_.rin[0] != 1;
    bool short_inner = p_.rin[0] == 1 && p_.nr == 1 && R <= kShortRun && p_.ksize[0] >= kMinCols;
    if (kept_inner || short_inner) run_outer();
    else run_inner();
  }

 private:
  static constexpr int64_t kBufN = std::max<int64_t>(64, 8192 / int64_t(sizeof(C)));
  static constexpr int64_t kCols = Cols::kN;
  static constexpr int64_t kMinCols = 8;    // fewer columns: reduce strided runs per output
  static constexpr int64_t kShortRun = 8;   // shorter inner runs: accumulate across outputs

  void write(const A& a, const KeptWalker& k) const {
    op_.write(a, out_ + k.out, out2_ ? out2_ + k.out2 : nullptr);
  }

  // Reduces a run of n elements (first_index idx0) with element stride `stride`.
  void run_block(A& acc, const S* p, int64_t n, int64_t stride, int64_t idx0) const {
    if constexpr (Op::kDirect && std::is_same_v<S, C>) {
      if (stride == 1) {
        op_.reduce_block(acc, p, n, idx0);
        return;
      }
    }
    run_block_buffered(acc, p, n, stride, idx0);
  }
  // (Separate so that the direct path carries no large stack frame.)
  EMBER_NOINLINE void run_block_buffered(A& acc, const S* p, int64_t n, int64_t stride, int64_t idx0) const {
    alignas(64) C buf[kBufN];
    auto load = [&](S x) { return op_.load(x); };
    for (int64_t i = 0; i < n; i += kBufN) {
      int64_t m = std::min(kBufN, n - i);
      load_block<Op::kDirect>(buf, p + i * stride, m, stride, load);
      op_.reduce_block(acc, buf, m, idx0 + i);
    }
  }

  // Reduces the linear reduced-index range [b, e) of the output whose input offset is base.
  void reduce_range(A& acc, int64_t base, int64_t b, int64_t e) const {
    if (b == 0 && e <= p_.rsize[0]) {  // one run (the common case): no index arithmetic
      run_block(acc, in_ + base, e, p_.rin[0], 0);
      return;
    }
    int64_t ctr[kMaxReduceDims];
    int64_t off = base, idx = b;
    for (int d = 0; d < p_.nr; ++d) {
      ctr[d] = idx % p_.rsize[d];
      idx /= p_.rsize[d];
      off += ctr[d] * p_.rin[d];
    }
    int64_t r = b;
    while (r < e) {
      int64_t n = std::min(p_.rsize[0] - ctr[0], e - r);
      run_block(acc, in_ + off, n, p_.rin[0], r);
      r += n;
      off += n * p_.rin[0];
      ctr[0] += n;
      for (int d = 0; d + 1 < p_.nr && ctr[d] == p_.rsize[d]; ++d) {
        off -= ctr[d] * p_.rin[d];
        ctr[d] = 0;
        ++ctr[d + 1];
        off += p_.rin[d + 1];
      }
    }
  }

  void run_inner() const {
    int64_t O = p_.num_outputs, R = p_.reduce_numel;
    int nt = get_num_threads();
    if (nt > 1 && !in_parallel_region() && O < 2 * nt && R >= 2 * kSplitMin) {
      // Few, long reductions: split each one over the threads.
      int64_t nchunks = std::min<int64_t>(nt, R / kSplitMin);
      std::vector<A> part(nchunks);
      KeptWalker k(p_, 0, 0);
      for (int64_t o = 0; o < O; ++o, k.next()) {
        parallel_for(0, nchunks, 1, [&](int64_t cb, int64_t ce) {
          for (int64_t c = cb; c < ce; ++c) {
            part[c] = op_.identity();
            reduce_range(part[c], k.in, R * c / nchunks, R * (c + 1) / nchunks);
          }
        });
        A acc = part[0];
        for (int64_t c = 1; c < nchunks; ++c) op_.combine(acc, part[c]);
        write(acc, k);
      }
      return;
    }
    int64_t grain = std::max<int64_t>(1, kReduceGrain / R);
    parallel_for(0, O, grain, [&](int64_t b, int64_t e) {
      KeptWalker k(p_, b, 0);
      for (int64_t o = b; o < e; ++o, k.next()) {
        A acc = op_.identity();
        reduce_range(acc, k.in, 0, R);
        write(acc, k);
      }
    });
  }

  // Accumulates rows [rb, re) of the reduced index space into the column accumulators
  // (columns start at input offset base, kin[0] elements apart).
  void rows(Cols& acc, int64_t base, int64_t w, int64_t rb, int64_t re) const {
    int64_t ctr[kMaxReduceDims];
    int64_t off = base, idx = rb;
    for (int d = 0; d < p_.nr; ++d) {
      ctr[d] = idx % p_.rsize[d];
      idx /= p_.rsize[d];
      off += ctr[d] * p_.rin[d];
    }
    alignas(64) C buf[kCols];
    auto load = [&](S x) { return op_.load(x); };
    int64_t cs = p_.kin[0];  // element stride between columns
    for (int64_t r = rb; r < re; ++r) {
      const S* row = in_ + off;
      bool direct = false;
      if constexpr (Op::kDirect && std::is_same_v<S, C>) direct = cs == 1;
      if (direct) {
        acc.accumulate(op_, reinterpret_cast<const C*>(row), w, r);
      } else {
        load_block<Op::kDirect>(buf, row, w, cs, load);
        acc.accumulate(op_, buf, w, r);
      }
      for (int d = 0; d < p_.nr; ++d) {
        off += p_.rin[d];
        if (++ctr[d] < p_.rsize[d]) break;
        off -= ctr[d] * p_.rin[d];
        ctr[d] = 0;
      }
    }
  }

  void write_cols(const Cols& acc, int64_t w, const KeptWalker& k, int64_t c0) const {
    for (int64_t i = 0; i < w; ++i) {
      int64_t col = c0 + i;
      op_.write(acc.get(i), out_ + k.out + col * p_.kout[0],
                out2_ ? out2_ + k.out2 + col * p_.kout2[0] : nullptr);
    }
  }

  void run_outer() const {
    int64_t K0 = p_.ksize[0], R = p_.reduce_numel;
    int64_t nchunk = (K0 + kCols - 1) / kCols;
    int64_t J = p_.num_outputs / K0, U = J * nchunk;
    int nt = get_num_threads();
    auto unit_geom = [&](int64_t u, int64_t& c0, int64_t& w) {
      c0 = (u % nchunk) * kCols;
      w = std::min(kCols, K0 - c0);
    };
    if (nt > 1 && !in_parallel_region() && U < nt && R >= 2 * std::max<int64_t>(1, kSplitMin / K0)) {
      // Few column blocks, many rows: split the rows over the threads.
      int64_t nparts = std::min<int64_t>(nt, R / std::max<int64_t>(1, kSplitMin / K0));
      nparts = std::max<int64_t>(nparts, 1);
      for (int64_t u = 0; u < U; ++u) {
        int64_t c0, w;
        unit_geom(u, c0, w);
        KeptWalker k(p_, u / nchunk, 1);
        std::vector<Cols> part(nparts);
        parallel_for(0, nparts, 1, [&](int64_t pb, int64_t pe) {
          for (int64_t q = pb; q < pe; ++q) {
            part[q].init(op_, w);
            rows(part[q], k.in + c0 * p_.kin[0], w, R * q / nparts, R * (q + 1) / nparts);
          }
        });
        for (int64_t q = 1; q < nparts; ++q) part[0].combine(op_, part[q], w);
        write_cols(part[0], w, k, c0);
      }
      return;
    }
    int64_t grain = std::max<int64_t>(1, kReduceGrain / (R * std::min(K0, kCols)));
    parallel_for(0, U, grain, [&](int64_t ub, int64_t ue) {
      auto acc = std::make_unique<Cols>();
      for (int64_t u = ub; u < ue; ++u) {
        int64_t c0, w;
        unit_geom(u, c0, w);
        KeptWalker k(p_, u / nchunk, 1);
        acc->init(op_, w);
        rows(*acc, k.in + c0 * p_.kin[0], w, 0, R);
        write_cols(*acc, w, k, c0);
      }
    });
  }

  const ReducePlan& p_;
  const Op& op_;
  const S* in_;
  Out* out_;
  Out2* out2_;
};

template <class S, class Op>
void run_reducer(const ReducePlan& p, const Op& op) {
  Reducer<S, Op>(p, op).run();
}

}  // namespace EMBER_CPU_NS
}  // namespace ember::cpu
