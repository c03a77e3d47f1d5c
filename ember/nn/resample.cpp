// The separable resampling kernel (ember/nn/resample.h). A step along dim d views the
// dense tensor as (outer, L, inner) in its memory order: inner is the block of dims laid
// out inside d (W*C for H of an NHWC tensor, 1 for W of NCHW), so a tap is one contiguous
// row of `inner` elements and the weighted sum vectorizes over it.
#include "ember/nn/resample.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__)
#include <immintrin.h>
#define EMBER_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define EMBER_VECTOR_CLONES
#endif

#include "ember/ops/device_check.h"
#include "ember/autograd/record.h"
#include "ember/core/parallel.h"
#include "ember/ops/dispatch.h"
#include "ember/ops/functions.h"

namespace ember::nn::detail {

bool DimMap::is_identity() const {
  if (in_size != out_size) return false;
  for (int64_t o = 0; o < out_size; ++o) {
    const int64_t k = offset[o];
    if (offset[o + 1] - k != 1 || index[k] != o || weight[k] != 1) return false;
  }
  return true;
}

DimMap DimMap::transposed() const {
  DimMap t;
  t.in_size = out_size;
  t.out_size = in_size;
  t.offset.assign(size_t(in_size) + 1, 0);
  for (int64_t i : index) ++t.offset[i + 1];
  for (int64_t i = 0; i < in_size; ++i) t.offset[i + 1] += t.offset[i];
  t.index.resize(index.size());
  t.weight.resize(weight.size());
  std::vector<int64_t> pos(t.offset.begin(), t.offset.end() - 1);
  for (int64_t o = 0; o < out_size; ++o)
    for (int64_t k = offset[o]; k < offset[o + 1]; ++k) {
      const int64_t p = pos[index[k]]++;
      t.index[p] = o;
      t.weight[p] = weight[k];
    }
  return t;
}

void ResamplePlan::add(int64_t dim, DimMap map) {
  if (map.is_identity()) return;
  transposed_steps.insert(transposed_steps.begin(), {dim, map.transposed()});
  steps.emplace_back(dim, std::move(map));
}

namespace {

bool is_copy(const DimMap& m) {
  for (int64_t o = 0; o < m.out_size; ++o)
    if (m.offset[o + 1] - m.offset[o] != 1 || m.weight[m.offset[o]] != 1) return false;
  return true;
}

MemoryFormat format_of(const Tensor& x) {
  if (x.dim() != 4 && x.dim() != 5) return MemoryFormat::Contiguous;
  return x.suggest_memory_format();
}

// Elements per step of `dim` in a tensor dense in `fmt`.
int64_t inner_size(const Tensor& x, int64_t dim, MemoryFormat fmt) {
  std::vector<int64_t> order(size_t(x.dim()));
  for (int64_t d = 0; d < x.dim(); ++d) order[d] = d;
  if (fmt != MemoryFormat::Contiguous) std::rotate(order.begin() + 1, order.begin() + 2, order.end());  // N, spatial..., C
  int64_t inner = 1;
  for (auto it = std::find(order.begin(), order.end(), dim) + 1; it != order.end(); ++it) inner *= x.size(*it);
  return inner;
}

// Rows [o0, o1) of a weighted map: out[(o - o0) * out_stride + i] = sum over the taps k of
// row o of w[k] * src[idx[k] * stride + i], i < n. Compiled for AVX-512, AVX2 and the
// baseline, picked at load time (the library itself is built for the baseline).
#define EMBER_WEIGHTED_ROWS(T)                                                                               \
  EMBER_VECTOR_CLONES void weighted_rows(                                                                   \
      T* __restrict out, int64_t out_stride, const T* __restrict src, int64_t stride, const int64_t* off,    \
      const int64_t* idx, const T* w, int64_t o0, int64_t o1, int64_t n) {                                   \
    for (int64_t o = o0; o < o1; ++o, out += out_stride) {                                                   \
      const int64_t k0 = off[o], k1 = off[o + 1];                                                            \
      if (k1 == k0) {                                                                                        \
        for (int64_t i = 0; i < n; ++i) out[i] = 0;                                                          \
        continue;                                                                                            \
      }                                                                                                      \
      const T* __restrict a = src + idx[k0] * stride;                                                        \
      const T wa = w[k0];                                                                                    \
      if (k1 - k0 == 1) {                                                                                    \
        for (int64_t i = 0; i < n; ++i) out[i] = wa * a[i];                                                  \
        continue;                                                                                            \
      }                                                                                                      \
      const T* __restrict b = src + idx[k0 + 1] * stride;                                                    \
      const T wb = w[k0 + 1];                                                                                \
      for (int64_t i = 0; i < n; ++i) out[i] = wa * a[i] + wb * b[i];                                        \
      for (int64_t k = k0 + 2; k < k1; ++k) {                                                                \
        const T* __restrict c = src + idx[k] * stride;                                                       \
        const T wc = w[k];                                                                                   \
        for (int64_t i = 0; i < n; ++i) out[i] += wc * c[i];                                                 \
      }                                                                                                      \
    }                                                                                                        \
  }
EMBER_WEIGHTED_ROWS(float)
EMBER_WEIGHTED_ROWS(double)
#undef EMBER_WEIGHTED_ROWS

#if defined(__x86_64__)
// weighted_rows for float rows of 16k elements into a large output that will not stay in
// cache: non-temporal stores skip reading each output line before writing it.
__attribute__((target("avx512f"))) void stream_rows(float* out, const float* src, const int64_t* off,
                                                      const int64_t* idx, const float* w, int64_t o0, int64_t o1,
                                                      int64_t n) {
  for (int64_t o = o0; o < o1; ++o, out += n)
    for (int64_t i = 0; i < n; i += 16) {
      __m512 acc = _mm512_setzero_ps();
      for (int64_t k = off[o]; k < off[o + 1]; ++k)
        acc = _mm512_fmadd_ps(_mm512_set1_ps(w[k]), _mm512_loadu_ps(src + idx[k] * n + i), acc);
      _mm512_stream_ps(out + i, acc);
    }
  _mm_sfence();
}
const bool have_avx512 = __builtin_cpu_supports("avx512f");
#endif

// The same for unit single-tap maps (copies), on elements of any type.
template <class T>
void copy_rows(T* out, int64_t out_stride, const T* src, int64_t stride, const int64_t* off, const int64_t* idx,
               const T*, int64_t o0, int64_t o1, int64_t n) {
  if (n == 1) {
    for (int64_t o = o0; o < o1; ++o, out += out_stride) out[0] = src[idx[off[o]] * stride];
    return;
  }
  for (int64_t o = o0; o < o1; ++o, out += out_stride) std::memcpy(out, src + idx[off[o]] * stride, size_t(n) * sizeof(T));
}

// Output rows [o0, o1) of map m on a (L_in, n) block into a (L_out, n) block.
template <class T, bool kCopy>
inline void resample_rows(const T* src, T* dst, const DimMap& m, const T* w, int64_t n, int64_t o0, int64_t o1,
                          bool stream = false) {
  const int64_t *off = m.offset.data(), *idx = m.index.data();
  (void)stream;
#if defined(__x86_64__)
  if constexpr (std::is_same_v<T, float>) {
    if (stream && have_avx512 && n % 16 == 0 && reinterpret_cast<uintptr_t>(dst) % 64 == 0)
      return stream_rows(dst + o0 * n, src, off, idx, w, o0, o1, n);
  }
#endif
  if constexpr (kCopy) {
    copy_rows(dst + o0 * n, n, src, n, off, idx, w, o0, o1, n);
  } else if (n > 1) {
    weighted_rows(dst + o0 * n, n, src, n, off, idx, w, o0, o1, n);
  } else {  // a gather along the innermost dim
    for (int64_t o = o0; o < o1; ++o) {
      T acc = 0;
      for (int64_t k = off[o]; k < off[o + 1]; ++k) acc += w[k] * src[idx[k]];
      dst[o] = acc;
    }
  }
}
// Output row o of map m on rows of `slab` elements into out.
template <class T, bool kCopy>
inline void blend(const T* src, int64_t slab, const DimMap& m, const T* w, int64_t o, T* out) {
  if constexpr (kCopy) copy_rows(out, 0, src, slab, m.offset.data(), m.index.data(), w, o, o + 1, slab);
  else weighted_rows(out, 0, src, slab, m.offset.data(), m.index.data(), w, o, o + 1, slab);
}

// A tensor dense in its memory order seen as (outer, L, inner) around one of its dims.
struct Block {
  int64_t outer, len, inner;
};
Block block_of(const Tensor& x, int64_t dim, MemoryFormat fmt) {
  const int64_t inner = inner_size(x, dim, fmt);
  return {x.numel() / (x.size(dim) * inner), x.size(dim), inner};
}

constexpr int64_t kGrain = 16384;  // elements per parallel chunk

// One map along one dim.
template <class T, bool kCopy>
void run_step(const T* x, T* y, const Block& b, const DimMap& m, const T* w, bool stream) {
  const int64_t L_in = m.in_size, L_out = m.out_size, n = b.inner;
  parallel_for(0, b.outer * L_out, std::max<int64_t>(1, kGrain / n), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end;) {
      const int64_t o = r / L_out, l0 = r % L_out, l1 = std::min(L_out, l0 + (end - r));
      resample_rows<T, kCopy>(x + o * L_in * n, y + o * L_out * n, m, w, n, l0, l1, stream);
      r += l1 - l0;
    }
  });
}

// Two maps at once, along dim a and the dim b laid out inside it (x as (P, La, Lb, I)):
// each output row along a blends its input rows into a buffer, which b then resamples, so
// the intermediate never leaves the cache.
template <class T, bool kCopy>
void run_pair(const T* x, T* y, const Block& ba, const DimMap& ma, const T* wa, const Block& bb, const DimMap& mb,
              const T* wb, bool stream) {
  const int64_t slab = ba.inner, out_slab = (slab / mb.in_size) * mb.out_size, n = bb.inner;
  const int64_t La = ma.out_size, mid = slab / (mb.in_size * n);
  parallel_for(0, ba.outer * La, std::max<int64_t>(1, kGrain / out_slab), [&](int64_t begin, int64_t end) {
    std::vector<T> buf(kCopy ? 0 : size_t(slab));
    for (int64_t r = begin; r < end; ++r) {
      const T* xa = x + (r / La) * ma.in_size * slab;
      const int64_t oa = r % La, k0 = ma.offset[oa], taps = ma.offset[oa + 1] - k0;
      const T* t = nullptr;
      if constexpr (kCopy) {
        EMBER_INTERNAL_ASSERT(taps == 1, "resample: a copy map needs one tap per output");
        t = xa + ma.index[k0] * slab;
      } else if (taps == 1 && wa[k0] == T(1)) {
        t = xa + ma.index[k0] * slab;  // one unit tap: the input row itself
      } else {
        // Several taps, a weighted one, or none (a row of zeros): blend into the buffer.
        blend<T, kCopy>(xa, slab, ma, wa, oa, buf.data());
        t = buf.data();
      }
      for (int64_t j = 0; j < mid; ++j)
        resample_rows<T, kCopy>(t + j * mb.in_size * n, y + r * out_slab + j * mb.out_size * n, mb, wb, n, 0,
                                mb.out_size, stream);
    }
  });
}

// Runs `f(tag, copy)` with T the element type: unit copies move bytes of the element's
// size (any dtype); weighted maps compute in float or double.
template <class F>
void dispatch(const Tensor& x, bool copy, F&& f) {
  if (copy) {
    struct B16 {
      char b[16];
    };
    switch (x.element_size()) {
      case 1: return f(TypeTag<uint8_t>{}, std::true_type{});
      case 2: return f(TypeTag<uint16_t>{}, std::true_type{});
      case 4: return f(TypeTag<uint32_t>{}, std::true_type{});
      case 8: return f(TypeTag<uint64_t>{}, std::true_type{});
      case 16: return f(TypeTag<B16>{}, std::true_type{});
      default: EMBER_INTERNAL_ASSERT(false, "resample: element size ", x.element_size());
    }
  }
  visit_dtype<DtypeSet{kFloat, kDouble}>(x.scalar_type(), "resample",
                                         [&](auto tag) { return f(tag, std::false_type{}); });
}

template <class T>
std::vector<T> weights_of(const DimMap& m) {
  if constexpr (std::is_floating_point_v<T>) return std::vector<T>(m.weight.begin(), m.weight.end());
  return {};
}

// Applies steps[i], or steps[i] and steps[i + 1] at once; returns how many it took.
size_t apply(Tensor& cur, const std::vector<std::pair<int64_t, DimMap>>& steps, size_t i, MemoryFormat fmt) {
  // Fused when the inner dim's rows are vectors (channels-last); when that dim is the
  // innermost in memory, separate passes gather less.
  const bool pair = i + 1 < steps.size() && std::abs(steps[i].first - steps[i + 1].first) == 1 &&
                    inner_size(cur, std::max(steps[i].first, steps[i + 1].first), fmt) > 1;
  DimVector sizes(cur.sizes());
  for (size_t j = i; j < i + (pair ? 2 : 1); ++j) sizes[steps[j].first] = steps[j].second.out_size;
  Tensor y = empty(sizes, cur.options(), fmt);
  if (y.numel() != 0 && cur.numel() == 0) y.zero_();
  if (y.numel() != 0 && cur.numel() != 0) {
    // a: the outer of the two dims in memory (the lower spatial dim in either format)
    const bool swap = pair && steps[i + 1].first < steps[i].first;
    const auto& sa = steps[swap ? i + 1 : i];
    const auto& sb = steps[pair && !swap ? i + 1 : i];  // (sa itself when alone)
    const bool copy = is_copy(sa.second) && is_copy(sb.second);
    dispatch(cur, copy, [&](auto tag, auto copy_tag) {
      using T = typename decltype(tag)::type;
      constexpr bool kCopy = decltype(copy_tag)::value;
      const T* xp = static_cast<const T*>(cur.data_ptr());
      T* yp = static_cast<T*>(y.data_ptr());
      const auto wa = weights_of<T>(sa.second);
      const bool stream = y.nbytes() >= (size_t(8) << 20);  // larger than the caches
      if (!pair) return run_step<T, kCopy>(xp, yp, block_of(cur, sa.first, fmt), sa.second, wa.data(), stream);
      const auto wb = weights_of<T>(sb.second);
      run_pair<T, kCopy>(xp, yp, block_of(cur, sa.first, fmt), sa.second, wa.data(), block_of(cur, sb.first, fmt),
                         sb.second, wb.data(), stream);
    });
  }
  cur = y;
  return pair ? 2 : 1;
}

Tensor resample_impl(const Tensor& x, const ResamplePlan& plan, bool transpose) {
  const MemoryFormat fmt = format_of(x);
  const auto& steps = transpose ? plan.transposed_steps : plan.steps;
  Tensor cur = x.contiguous(fmt);
  for (size_t i = 0; i < steps.size();) i += apply(cur, steps, i, fmt);
  if (cur.unsafeGetTensorImpl() == x.unsafeGetTensorImpl()) cur = cur.clone(fmt);
  return cur;
}

}  // namespace

Tensor resample(const Tensor& x, const std::shared_ptr<const ResamplePlan>& plan, bool transpose) {
  check_cpu_only(x, "interpolate");
  bool weighted = false;
  for (const auto& s : plan->steps) weighted = weighted || !is_copy(s.second);
  if (weighted || transpose) {
    const ScalarType t = x.scalar_type();
    if (t == kHalf || t == kBFloat16) return resample(x.to(kFloat), plan, transpose).to(t);
    EMBER_CHECK_TYPE(t == kFloat || t == kDouble, "\"", plan->name, "\" not implemented for '", t, "'");
  }
  if (!autograd::maybe_differentiable(x)) return resample_impl(x, *plan, transpose);
  return autograd::differentiable(
      transpose ? plan->name + "_backward" : plan->name, {&x}, [&] { return resample_impl(x, *plan, transpose); },
      [plan, transpose](const autograd::VjpCtx& c) {
        return autograd::variable_list{c.grad().defined() ? resample(c.grad(), plan, !transpose) : Tensor()};
      },
      [&](const auto& t, const Tensor&) { return resample(t(0), plan, transpose); });
}

}  // namespace ember::nn::detail
