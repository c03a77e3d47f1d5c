// CPU kernels of the indexing ops (compiled once per instruction set): gather/scatter by
// byte offsets (advanced indexing), scatter/gather along a dim, masked_fill, where,
// nonzero and tril/triu. Pure data movement dispatches on element size, not dtype.
#include <cstring>
#include <type_traits>

#include "ember/core/parallel.h"
#include "ember/ops/cpu/loops.h"
#include "ember/ops/functions.h"
#include "ember/ops/index_kernels.h"
#include "ember/ops/math.h"

namespace ember::cpu {
inline namespace EMBER_CPU_NS {
namespace {

constexpr CpuCapability kCap = CpuCapability(EMBER_CPU_CAP_INDEX);

template <class T>
EMBER_HD void cp(char* dst, const char* src) {
  std::memcpy(dst, src, sizeof(T));
}
template <class T>
EMBER_HD T ld(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <class T>
EMBER_HD void st(char* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}


// ---- advanced indexing --------------------------------------------------------------
void index_kernel(TensorIterator& it) {
  visit_element_size(element_size(it.dtype(0)), "index", [&](auto tag) {
    using T = typename decltype(tag)::type;
    it.for_each([](char** data, const int64_t* s, int64_t n) {
      char* out = data[0];
      const char* src = data[1];
      const char* off = data[2];
      if (s[0] == int64_t(sizeof(T)) && s[1] == 0 && s[2] == 8) {
        const int64_t* o = reinterpret_cast<const int64_t*>(off);
        for (int64_t i = 0; i < n; ++i) cp<T>(out + i * int64_t(sizeof(T)), src + o[i]);
      } else if (s[2] == 0) {  // one offset for the whole run: a (strided) block copy
        const char* base = src + ld<int64_t>(off);
        if (s[0] == int64_t(sizeof(T)) && s[1] == int64_t(sizeof(T))) std::memcpy(out, base, size_t(n) * sizeof(T));
        else for (int64_t i = 0; i < n; ++i) cp<T>(out + i * s[0], base + i * s[1]);
      } else {
        for (int64_t i = 0; i < n; ++i) cp<T>(out + i * s[0], src + i * s[1] + ld<int64_t>(off + i * s[2]));
      }
    });
  });
}

void index_put_kernel(TensorIterator& it, bool accumulate, const Scalar& alpha) {
  if (!accumulate) {
    visit_element_size(element_size(it.dtype(0)), "index_put_", [&](auto tag) {
      using T = typename decltype(tag)::type;
      it.for_each([](char** data, const int64_t* s, int64_t n) {
        if (s[2] == 0 && s[0] == int64_t(sizeof(T)) && s[1] == int64_t(sizeof(T))) {
          std::memcpy(data[0] + ld<int64_t>(data[2]), data[1], size_t(n) * sizeof(T));
          return;
        }
        for (int64_t i = 0; i < n; ++i)
          cp<T>(data[0] + i * s[0] + ld<int64_t>(data[2] + i * s[2]), data[1] + i * s[1]);
      });
    });
    return;
  }
  // Indices may repeat: accumulate serially.
  visit_dtype<kAllTypes>(it.dtype(0), "index_put_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    const bool unit = alpha.equal(Scalar(int64_t(1)));
    const C a = math::arg_value<C>(alpha);
    auto add = [&](char* d, const char* v) {
      C x = C(ld<T>(d)), y = C(ld<T>(v));
      if constexpr (std::is_same_v<C, bool>) st<T>(d, x || (a && y));
      else st<T>(d, convert<T>(C(x + (unit ? y : C(a * y)))));
    };
    constexpr int64_t sz = sizeof(T);
    auto loop = [&](char** data, const int64_t* s, int64_t n) {
      if (s[2] == 0 && s[0] == sz && s[1] == sz) {  // one offset: a dense row add
        char* d = data[0] + ld<int64_t>(data[2]);
        for (int64_t i = 0; i < n; ++i) add(d + i * sz, data[1] + i * sz);
        return;
      }
      for (int64_t i = 0; i < n; ++i)
        add(data[0] + i * s[0] + ld<int64_t>(data[2] + i * s[2]), data[1] + i * s[1]);
    };
    it.serial_for_each(loop, 0, it.numel());
  });
}

// ---- scatter / gather along a dim ---------------------------------------------------------
[[noreturn]] void scatter_gather_oob(int64_t idx, const ScatterGatherArgs& a) {
  EMBER_CHECK_INDEX(false, a.mode == ScatterMode::Gather ? "gather" : "scatter", "(): index ", idx,
                    " is out of bounds for dimension ", a.dim, " with size ", a.self_dim_size);
  __builtin_unreachable();
}

// Contig: self, index and the other operand are all dense along dim (constant strides
// the compiler can see); otherwise the strides come from the args.
template <class T, bool Contig>
void gather_run(char* out, const char* self, const char* idx, int64_t jb, int64_t je, const ScatterGatherArgs& a) {
  const int64_t ss = Contig ? int64_t(sizeof(T)) : a.self_dim_stride;
  const int64_t is = Contig ? 8 : a.index_dim_stride;
  const int64_t os = Contig ? int64_t(sizeof(T)) : a.other_dim_stride;
  for (int64_t j = jb; j < je; ++j) {
    int64_t k = ld<int64_t>(idx + j * is);
    if (EMBER_UNLIKELY(k < 0 || k >= a.self_dim_size)) scatter_gather_oob(k, a);
    cp<T>(out + j * os, self + k * ss);
  }
}

template <class T>
void gather_loop(char** data, const int64_t* s, int64_t n, const ScatterGatherArgs& a) {
  const bool contig = a.index_dim_stride == 8 && a.self_dim_stride == int64_t(sizeof(T)) &&
                      a.other_dim_stride == int64_t(sizeof(T));
  for (int64_t i = 0; i < n; ++i) {
    char* out = data[0] + i * s[0];
    const char* self = data[1] + i * s[1];
    const char* idx = data[2] + i * s[2];
    auto run = [&](int64_t jb, int64_t je) {
      if (contig) gather_run<T, true>(out, self, idx, jb, je, a);
      else gather_run<T, false>(out, self, idx, jb, je, a);
    };
    if (n == 1) parallel_for(0, a.index_dim_size, 32768, run);  // a long 1-d gather
    else run(0, a.index_dim_size);
  }
}

template <class T, bool Contig, class Op>
void scatter_run(char* self, const char* idx, const char* src, const ScatterGatherArgs& a, const Op& op) {
  const int64_t ss = Contig ? int64_t(sizeof(T)) : a.self_dim_stride;
  const int64_t is = Contig ? 8 : a.index_dim_stride;
  const int64_t os = Contig ? int64_t(sizeof(T)) : a.other_dim_stride;
  for (int64_t j = 0; j < a.index_dim_size; ++j) {
    int64_t k = ld<int64_t>(idx + j * is);
    if (EMBER_UNLIKELY(k < 0 || k >= a.self_dim_size)) scatter_gather_oob(k, a);
    op(self + k * ss, src + j * os);
  }
}

template <class T, class Op>
void scatter_loop(char** data, const int64_t* s, int64_t n, const ScatterGatherArgs& a, const Op& op) {
  const bool contig = a.index_dim_stride == 8 && a.self_dim_stride == int64_t(sizeof(T)) &&
                      a.other_dim_stride == int64_t(sizeof(T));
  for (int64_t i = 0; i < n; ++i) {
    char* self = data[0] + i * s[0];
    const char* idx = data[1] + i * s[1];
    const char* src = data[2] + i * s[2];
    if (contig) scatter_run<T, true>(self, idx, src, a, op);
    else scatter_run<T, false>(self, idx, src, a, op);
  }
}

template <class T>
EMBER_HD bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return v != v;
  else return false;
}

void scatter_gather_kernel(TensorIterator& it, const ScatterGatherArgs& a) {
  // Each iterator element walks a whole line along dim: scale the grain accordingly.
  const int64_t grain = std::max<int64_t>(1, TensorIterator::kGrainSize / std::max<int64_t>(a.index_dim_size, 1));
  switch (a.mode) {
    case ScatterMode::Gather:
      visit_element_size(element_size(it.dtype(0)), "gather", [&](auto tag) {
        using T = typename decltype(tag)::type;
        it.for_each([&](char** d, const int64_t* s, int64_t n) { gather_loop<T>(d, s, n, a); }, grain);
      });
      return;
    case ScatterMode::Scatter:
      visit_element_size(element_size(it.dtype(0)), "scatter", [&](auto tag) {
        using T = typename decltype(tag)::type;
        it.for_each([&](char** d, const int64_t* s, int64_t n) {
          scatter_loop<T>(d, s, n, a, [](char* dst, const char* src) { cp<T>(dst, src); });
        }, grain);
      });
      return;
    case ScatterMode::ScatterFill:
      visit_dtype<kAllTypes>(it.dtype(0), "scatter", [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T v = convert<T>(a.value.to<compute_t<T>>());
        it.for_each([&](char** d, const int64_t* s, int64_t n) {
          for (int64_t i = 0; i < n; ++i) {
            char* self = d[0] + i * s[0];
            const char* idx = d[1] + i * s[1];
            for (int64_t j = 0; j < a.index_dim_size; ++j) {
              int64_t k = ld<int64_t>(idx + j * a.index_dim_stride);
              if (EMBER_UNLIKELY(k < 0 || k >= a.self_dim_size)) scatter_gather_oob(k, a);
              st<T>(self + k * a.self_dim_stride, v);
            }
          }
        }, grain);
      });
      return;
    case ScatterMode::Sum:
    case ScatterMode::Prod:
      visit_dtype<kAllTypes>(it.dtype(0), "scatter_reduce", [&](auto tag) {
        using T = typename decltype(tag)::type;
        using C = compute_t<T>;
        auto run = [&](auto op) {
          it.for_each([&](char** d, const int64_t* s, int64_t n) {
            scatter_loop<T>(d, s, n, a, [&op](char* dst, const char* src) {
              st<T>(dst, convert<T>(C(op(C(ld<T>(dst)), C(ld<T>(src))))));
            });
          }, grain);
        };
        if constexpr (std::is_same_v<C, bool>) {
          if (a.mode == ScatterMode::Sum) run([](bool x, bool y) { return x || y; });
          else run([](bool x, bool y) { return x && y; });
        } else {
          if (a.mode == ScatterMode::Sum) run([](C x, C y) { return C(x + y); });
          else run([](C x, C y) { return C(x * y); });
        }
      });
      return;
    case ScatterMode::Amax:
    case ScatterMode::Amin:
      visit_dtype<kBoolType | kRealTypes>(it.dtype(0), "scatter_reduce", [&](auto tag) {
        using T = typename decltype(tag)::type;
        using C = compute_t<T>;
        const bool mx = a.mode == ScatterMode::Amax;
        it.for_each([&](char** d, const int64_t* s, int64_t n) {
          scatter_loop<T>(d, s, n, a, [mx](char* dst, const char* src) {
            C x = C(ld<T>(dst)), y = C(ld<T>(src));
            // NaN propagates, as PyTorch's amax/amin.
            C r = is_nan(x) ? x : is_nan(y) ? y : mx ? (y > x ? y : x) : (y < x ? y : x);
            st<T>(dst, convert<T>(r));
          });
        }, grain);
      });
      return;
  }
}

// ---- masks --------------------------------------------------------------------------------
void masked_fill_kernel(TensorIterator& it, const Scalar& value) {
  visit_dtype<kAllTypes>(it.dtype(0), "masked_fill_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = convert<T>(value.to<compute_t<T>>());
    it.for_each([&](char** d, const int64_t* s, int64_t n) {
      if (s[0] == int64_t(sizeof(T)) && s[1] == 1) {
        T* out = reinterpret_cast<T*>(d[0]);
        const uint8_t* m = reinterpret_cast<const uint8_t*>(d[1]);
        for (int64_t i = 0; i < n; ++i)
          if (m[i]) out[i] = v;
        return;
      }
      char* out = d[0];
      const char* pm = d[1];
      const int64_t s0 = s[0], s1 = s[1];
      for (int64_t i = 0; i < n; ++i)
        if (*reinterpret_cast<const uint8_t*>(pm + i * s1)) st<T>(out + i * s0, v);
    });
  });
}

void where_kernel(TensorIterator& it) {
  visit_element_size(element_size(it.dtype(0)), "where", [&](auto tag) {
    using T = typename decltype(tag)::type;
    it.for_each([](char** d, const int64_t* s, int64_t n) {
      constexpr int64_t E = int64_t(sizeof(T));
      // Contiguous output and condition; each value operand contiguous or a broadcast
      // scalar (stride 0, as in where(mask, t, 0)): branch-free loops the compiler vectorizes.
      auto run = [&](auto x_step, auto y_step) {
        constexpr int64_t sx = decltype(x_step)::value, sy = decltype(y_step)::value;
        // Local copies of the pointers: stores through char* may alias d[], which would make
        // the compiler reload them every iteration and give up vectorizing.
        char* out = d[0];
        const uint8_t* c = reinterpret_cast<const uint8_t*>(d[1]);
        const char* px = d[2];
        const char* py = d[3];
        for (int64_t i = 0; i < n; ++i) {
          T x = ld<T>(px + i * sx), y = ld<T>(py + i * sy);
          st<T>(out + i * E, c[i] ? x : y);
        }
      };
      if (s[0] == E && s[1] == 1) {
        using Full = std::integral_constant<int64_t, E>;
        using Zero = std::integral_constant<int64_t, 0>;
        if (s[2] == E && s[3] == E) return run(Full{}, Full{});
        if (s[2] == E && s[3] == 0) return run(Full{}, Zero{});
        if (s[2] == 0 && s[3] == E) return run(Zero{}, Full{});
      }
      char* out = d[0];
      const char *pc = d[1], *px = d[2], *py = d[3];
      const int64_t s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3];
      for (int64_t i = 0; i < n; ++i) {
        bool c = *reinterpret_cast<const uint8_t*>(pc + i * s1) != 0;
        cp<T>(out + i * s0, c ? px + i * s2 : py + i * s3);
      }
    });
  });
}

// ---- nonzero ------------------------------------------------------------------------------
// Truthiness as nonzero() sees it: complex values count when either part is non-zero.
template <class T>
EMBER_HD bool is_nonzero(T v) {
  if constexpr (is_complex_v<T>) return float(v.real()) != 0.f || float(v.imag()) != 0.f;
  else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) return float(v) != 0.f;
  else return v != T(0);
}

Tensor nonzero_kernel(const Tensor& self) {
  int64_t n = self.numel(), nd = self.dim();
  IntArrayRef sizes = self.sizes();
  return visit_dtype<kAllTypes>(self.scalar_type(), "nonzero", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = static_cast<const T*>(self.data_ptr());
    constexpr int64_t kGrain = 32768;
    int64_t nchunks = std::max<int64_t>(1, std::min<int64_t>(get_num_threads() * 4, n / kGrain));
    int64_t chunk = nchunks > 0 ? (n + nchunks - 1) / nchunks : 0;
    std::vector<int64_t> counts(nchunks + 1, 0);
    parallel_for(0, nchunks, 1, [&](int64_t cb, int64_t ce) {
      for (int64_t c = cb; c < ce; ++c) {
        int64_t b = c * chunk, e = std::min(n, b + chunk), cnt = 0;
        for (int64_t i = b; i < e; ++i) cnt += is_nonzero(p[i]) ? 1 : 0;
        counts[c + 1] = cnt;
      }
    });
    for (int64_t c = 0; c < nchunks; ++c) counts[c + 1] += counts[c];
    Tensor out = empty({counts[nchunks], nd}, dtype(kLong));
    int64_t* o = out.data_ptr<int64_t>();
    parallel_for(0, nchunks, 1, [&](int64_t cb, int64_t ce) {
      std::vector<int64_t> coord(nd, 0);
      for (int64_t c = cb; c < ce; ++c) {
        int64_t b = c * chunk, e = std::min(n, b + chunk);
        if (b >= e) continue;
        int64_t rem = b;
        for (int64_t d = nd - 1; d >= 0; --d) {
          coord[d] = rem % sizes[d];
          rem /= sizes[d];
        }
        int64_t* w = o + counts[c] * nd;
        for (int64_t i = b; i < e; ++i) {
          if (is_nonzero(p[i])) {
            for (int64_t d = 0; d < nd; ++d) w[d] = coord[d];
            w += nd;
          }
          for (int64_t d = nd - 1; d >= 0; --d) {
            if (++coord[d] < sizes[d]) break;
            coord[d] = 0;
          }
        }
      }
    });
    return out;
  });
}

// ---- flip ---------------------------------------------------------------------------------
void flip_kernel(TensorIterator& it) {
  visit_element_size(element_size(it.dtype(0)), "flip", [&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr int64_t sz = sizeof(T);
    it.for_each([](char** d, const int64_t* s, int64_t n) {
      char* out = d[0];  // locals: stores through char* could alias d[]
      const char* in = d[1];
      if (s[0] == sz && s[1] == -sz) {  // reversed run
        for (int64_t i = 0; i < n; ++i) cp<T>(out + i * sz, in - i * sz);
      } else if (s[0] == sz && s[1] == sz) {
        std::memcpy(out, in, size_t(n) * sz);
      } else {
        const int64_t s0 = s[0], s1 = s[1];
        for (int64_t i = 0; i < n; ++i) cp<T>(out + i * s0, in + i * s1);
      }
    });
  });
}

// ---- tril / triu --------------------------------------------------------------------------
void trilu_kernel(const Tensor& self, Tensor& out, int64_t k, bool lower) {
  int64_t nd = self.dim(), R = self.size(nd - 2), C = self.size(nd - 1);
  int64_t batch = R * C == 0 ? 0 : self.numel() / (R * C);
  int64_t rs = self.stride(nd - 2), cs = self.stride(nd - 1);
  size_t isz = self.element_size();
  // Byte offset of each batch's first element in self (batch dims may be strided).
  std::vector<int64_t> boff(batch, 0);
  {
    DimVector idx(std::max<int64_t>(nd - 2, 0), 0);
    for (int64_t b = 0; b < batch; ++b) {
      int64_t off = 0;
      for (int64_t d = 0; d < nd - 2; ++d) off += idx[d] * self.stride(d);
      boff[b] = off * int64_t(isz);
      for (int64_t d = nd - 3; d >= 0; --d) {
        if (++idx[d] < self.size(d)) break;
        idx[d] = 0;
      }
    }
  }
  const char* src = static_cast<const char*>(self.data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  visit_element_size(isz, lower ? "tril" : "triu", [&](auto tag) {
    using T = typename decltype(tag)::type;
    parallel_for(0, batch * R, std::max<int64_t>(1, 32768 / std::max<int64_t>(C, 1)), [&](int64_t rb, int64_t re) {
      for (int64_t r = rb; r < re; ++r) {
        int64_t b = r / R, i = r % R;
        const char* srow = src + boff[b] + i * rs * int64_t(sizeof(T));
        char* drow = dst + r * C * int64_t(sizeof(T));
        // Kept columns [lo, hi); the rest are zero.
        int64_t lo = lower ? 0 : std::clamp<int64_t>(i + k, 0, C);
        int64_t hi = lower ? std::clamp<int64_t>(i + k + 1, 0, C) : C;
        if (lo > 0) std::memset(drow, 0, size_t(lo) * sizeof(T));
        if (hi < C) std::memset(drow + hi * int64_t(sizeof(T)), 0, size_t(C - hi) * sizeof(T));
        if (cs == 1) {
          if (hi > lo) std::memcpy(drow + lo * int64_t(sizeof(T)), srow + lo * int64_t(sizeof(T)), size_t(hi - lo) * sizeof(T));
        } else {
          for (int64_t j = lo; j < hi; ++j) cp<T>(drow + j * int64_t(sizeof(T)), srow + j * cs * int64_t(sizeof(T)));
        }
      }
    });
  });
}

const KernelRegistrar<IndexFn> index_reg("index", kCPU, kCap, &index_kernel);
const KernelRegistrar<IndexPutFn> index_put_reg("index_put_", kCPU, kCap, &index_put_kernel);
const KernelRegistrar<ScatterGatherFn> scatter_gather_reg("scatter_gather", kCPU, kCap, &scatter_gather_kernel);
const KernelRegistrar<MaskedFillFn> masked_fill_reg("masked_fill_", kCPU, kCap, &masked_fill_kernel);
const KernelRegistrar<WhereFn> where_reg("where", kCPU, kCap, &where_kernel);
const KernelRegistrar<NonzeroFn> nonzero_reg("nonzero", kCPU, kCap, &nonzero_kernel);
const KernelRegistrar<FlipFn> flip_reg("flip", kCPU, kCap, &flip_kernel);
const KernelRegistrar<TriluFn> trilu_reg("trilu", kCPU, kCap, &trilu_kernel);

}  // namespace
}  // namespace EMBER_CPU_NS
}  // namespace ember::cpu
