// The CPU elementwise inner loops. cpu_kernel(iter, f) runs a functor f over a built
// TensorIterator: operands are loaded from their storage types (Half, BFloat16 and
// complex32 widen to their compute types), f computes, and the result is stored back.
// Contiguous operands, and contiguous operands with one broadcast scalar, get simple
// indexed loops that the compiler vectorizes; other layouts get a strided loop.
// Included only by kernel files (ember/ops/cpu/*.cpp), which are compiled per ISA.
#pragma once
#include <array>
#include <tuple>
#include <utility>

#include "ember/ops/convert.h"
#include "ember/ops/cpu/convert_vec.h"
#include "ember/ops/tensor_iterator.h"

namespace ember::cpu {
// Note [Per-ISA kernel namespaces]: kernel files are compiled once per instruction set and
// linked into one library, so every non-inlined function they instantiate must live in the
// per-ISA inline namespace, or the linker would merge the AVX-512 and baseline copies
// (same mangled name) and one would run on the other's path. Shared math that kernels call
// (ember/ops/math.h, pointwise_ops.h, convert.h, half.h, complex.h) is always_inline.
inline namespace EMBER_CPU_NS {

template <class T>
EMBER_HD compute_t<T> load(const T* p) { return static_cast<compute_t<T>>(*p); }
template <class Out, class R>
EMBER_HD Out store_cast(R r) {
  if constexpr (std::is_same_v<Out, R>) return r;
  else return convert<Out>(r);
}

// Optional hand-vectorized compute for a functor over contiguous compute-type arrays
// (specialized in vec_math.h, e.g. complex multiply with fmaddsub).
template <class F>
struct VecCompute {
  static constexpr bool available = false;
};

// Which of the inputs (if any) is a broadcast scalar in a 1-d inner loop.
template <class Out, class... In, size_t... I>
inline int classify(const int64_t* strides, std::index_sequence<I...>) {
  if (strides[0] != int64_t(sizeof(Out))) return -2;
  bool contig = ((strides[1 + I] == int64_t(sizeof(In))) && ...);
  if (contig) return -1;
  int scalar = -2, nscalar = 0;
  bool ok = ((strides[1 + I] == int64_t(sizeof(In)) ||
              (strides[1 + I] == 0 && (++nscalar, scalar = int(I), true))) && ...);
  return ok && nscalar == 1 ? scalar : -2;
}

template <class Out, class... In, class F, size_t... I>
inline void basic_loop(char** data, const int64_t* strides, int64_t n, const F& f,
                       std::index_sequence<I...> seq) {
  using Tup = std::tuple<In...>;
  int kind = classify<Out, In...>(strides, seq);
  Out* out = reinterpret_cast<Out*>(data[0]);
  if (kind == -1) {
    if constexpr (VecCompute<F>::available && std::is_same_v<Out, decltype(f(load(reinterpret_cast<const In*>(data[1 + I]))...))>) {
      VecCompute<F>::apply(reinterpret_cast<const In*>(data[1 + I])..., out, n);
      return;
    }
    std::tuple<const In*...> in{reinterpret_cast<const In*>(data[1 + I])...};
    for (int64_t i = 0; i < n; ++i) out[i] = store_cast<Out>(f(load(std::get<I>(in) + i)...));
    return;
  }
  if constexpr (sizeof...(In) == 2) {
    using A = std::tuple_element_t<0, Tup>;
    using B = std::tuple_element_t<1, Tup>;
    if (kind == 0) {
      auto a = load(reinterpret_cast<const A*>(data[1]));
      const B* b = reinterpret_cast<const B*>(data[2]);
      for (int64_t i = 0; i < n; ++i) out[i] = store_cast<Out>(f(a, load(b + i)));
      return;
    }
    if (kind == 1) {
      const A* a = reinterpret_cast<const A*>(data[1]);
      auto b = load(reinterpret_cast<const B*>(data[2]));
      for (int64_t i = 0; i < n; ++i) out[i] = store_cast<Out>(f(load(a + i), b));
      return;
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    *reinterpret_cast<Out*>(data[0] + i * strides[0]) = store_cast<Out>(
        f(load(reinterpret_cast<const In*>(data[1 + I] + i * strides[1 + I]))...));
  }
}

// A block of T with a user-provided (empty) default constructor, so that value-initialization
// (as std::tuple's default constructor does) leaves it uninitialized.
template <class T, int64_t N>
struct StagingBuffer {
  StagingBuffer() {}  // NOLINT: intentionally not = default
  alignas(64) T v[N];
  T* data() { return v; }
  T& operator[](int64_t i) { return v[i]; }
  void fill(T x) {
    for (int64_t i = 0; i < N; ++i) v[i] = x;
  }
};

// Contiguous runs (with any broadcast scalars) over reduced-precision storage:
// widen a block of each input to its compute type (vectorized), run f on compute types
// (which the compiler vectorizes), narrow the result. Returns false for other layouts.
template <class Out, class... In, class F, size_t... I>
inline bool reduced_block_loop(char** data, const int64_t* strides, int64_t n, const F& f,
                               std::index_sequence<I...> seq) {
  // Each input is contiguous or a broadcast scalar (any number of them, e.g. a batch norm's
  // per-channel scale and shift along W); the output is contiguous.
  if (strides[0] != int64_t(sizeof(Out))) return false;
  unsigned scalars = 0;
  const bool ok = ((strides[1 + I] == int64_t(sizeof(In)) || (strides[1 + I] == 0 && (scalars |= 1u << I, true))) &&
                   ...);
  if (!ok) return false;
  (void)seq;
  // A functor with a direct vector path on the storage types skips the staging buffers.
  if constexpr (requires(const In*... p, Out* o) { VecCompute<F>::apply(p..., o, n); }) {
    if (scalars == 0) {
      VecCompute<F>::apply(reinterpret_cast<const In*>(data[1 + I])..., reinterpret_cast<Out*>(data[0]), n);
      return true;
    }
  }
  constexpr int64_t kBlock = 256;
  using R = decltype(f(std::declval<compute_t<In>>()...));
  // (Staging buffers are left uninitialized: a std::tuple of std::arrays would be
  // value-initialized, a 3 KB memset per call, which dominated short inner loops such as a
  // channels-last batch norm's C elements.)
  std::tuple<StagingBuffer<compute_t<In>, kBlock>...> bufs;
  alignas(64) R res[kBlock];
  // A broadcast scalar is widened once into its whole buffer.
  (((scalars >> I) & 1u ? (std::get<I>(bufs).fill(load(reinterpret_cast<const In*>(data[1 + I]))), 0) : 0), ...);
  // Full blocks run with a compile-time trip count (clean vector code), the tail with m.
  auto block = [&](int64_t b, auto mc) {
    constexpr int64_t M = decltype(mc)::value;
    const int64_t m = M > 0 ? M : n - b;
    auto widen_one = [&](auto idx) {
      constexpr size_t k = decltype(idx)::value;
      using T = std::tuple_element_t<k, std::tuple<In...>>;
      if ((scalars >> k) & 1u) return;
      const T* src = reinterpret_cast<const T*>(data[1 + k]) + b;
      if constexpr (is_reduced_v<T>) widen(src, std::get<k>(bufs).data(), m);
      else for (int64_t i = 0; i < m; ++i) std::get<k>(bufs)[i] = load(src + i);
    };
    (widen_one(std::integral_constant<size_t, I>{}), ...);
    if constexpr (VecCompute<F>::available) VecCompute<F>::apply(std::get<I>(bufs).data()..., res, m);
    else for (int64_t i = 0; i < m; ++i) res[i] = f(std::get<I>(bufs)[i]...);
    Out* out = reinterpret_cast<Out*>(data[0]) + b;
    if constexpr (is_reduced_v<Out> && std::is_same_v<R, compute_t<Out>>) narrow(res, out, m);
    else for (int64_t i = 0; i < m; ++i) out[i] = store_cast<Out>(res[i]);
  };
  int64_t b = 0;
  for (; b + kBlock <= n; b += kBlock) block(b, std::integral_constant<int64_t, kBlock>{});
  if (b < n) block(b, std::integral_constant<int64_t, 0>{});
  return true;
}

// Runs f (taking compute-type arguments) with inputs of storage types In... and output Out.
template <class Out, class... In, class F>
void cpu_kernel(TensorIterator& iter, const F& f) {
  constexpr bool reduced = (is_reduced_v<In> || ...);
  iter.for_each_overwrite([&](char** data, const int64_t* strides, int64_t n) {
    if constexpr (reduced) {
      if (reduced_block_loop<Out, In...>(data, strides, n, f, std::index_sequence_for<In...>{})) return;
    }
    basic_loop<Out, In...>(data, strides, n, f, std::index_sequence_for<In...>{});
  });
}

// Runs vf(const In*..., Out*, n) on contiguous runs, falling back to f elsewhere.
template <class Out, class... In, class F, class VF>
void cpu_kernel_vec(TensorIterator& iter, const F& f, const VF& vf) {
  iter.for_each_overwrite([&](char** data, const int64_t* strides, int64_t n) {
    if (classify<Out, In...>(strides, std::index_sequence_for<In...>{}) == -1) {
      [&]<size_t... I>(std::index_sequence<I...>) {
        vf(reinterpret_cast<const In*>(data[1 + I])..., reinterpret_cast<Out*>(data[0]), n);
      }(std::index_sequence_for<In...>{});
    } else {
      basic_loop<Out, In...>(data, strides, n, f, std::index_sequence_for<In...>{});
    }
  });
}

}  // namespace EMBER_CPU_NS
}  // namespace ember::cpu
