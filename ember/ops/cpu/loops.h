// The CPU elementwise inner loops. cpu_kernel(iter, f) runs a functor f over a built
// TensorIterator: operands are loaded from their storage types (Half, BFloat16 and
// complex32 widen to their compute types), f computes, and the result is stored back.
// Contiguous operands, and contiguous operands with one broadcast scalar, get simple
// indexed loops that the compiler vectorizes; other layouts get a strided loop.
// Included only by kernel files (ember/ops/cpu/*.cpp), which are compiled per ISA.
#pragma once
#include <tuple>
#include <utility>

#include "ember/ops/convert.h"
#include "ember/ops/tensor_iterator.h"

namespace ember::cpu {

template <class T>
EMBER_HD compute_t<T> load(const T* p) { return static_cast<compute_t<T>>(*p); }
template <class Out, class R>
EMBER_HD Out store_cast(R r) {
  if constexpr (std::is_same_v<Out, R>) return r;
  else return convert<Out>(r);
}

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

// Runs f (taking compute-type arguments) with inputs of storage types In... and output Out.
template <class Out, class... In, class F>
void cpu_kernel(TensorIterator& iter, const F& f) {
  iter.for_each([&](char** data, const int64_t* strides, int64_t n) {
    basic_loop<Out, In...>(data, strides, n, f, std::index_sequence_for<In...>{});
  });
}

// Runs vf(const In*..., Out*, n) on contiguous runs, falling back to f elsewhere.
template <class Out, class... In, class F, class VF>
void cpu_kernel_vec(TensorIterator& iter, const F& f, const VF& vf) {
  iter.for_each([&](char** data, const int64_t* strides, int64_t n) {
    if (classify<Out, In...>(strides, std::index_sequence_for<In...>{}) == -1) {
      [&]<size_t... I>(std::index_sequence<I...>) {
        vf(reinterpret_cast<const In*>(data[1 + I])..., reinterpret_cast<Out*>(data[0]), n);
      }(std::index_sequence_for<In...>{});
    } else {
      basic_loop<Out, In...>(data, strides, n, f, std::index_sequence_for<In...>{});
    }
  });
}

}  // namespace ember::cpu
