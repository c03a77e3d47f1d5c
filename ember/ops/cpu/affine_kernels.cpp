// CPU kernel of channel_affine (ops/channel_affine.h): y = x * scale[c] + shift[c] in one
// pass. Channels-last rows run along C with vector scale/shift; contiguous planes run along
// the spatial dims with one scale/shift each. Half and bfloat16 are widened to float in
// blocks and narrowed once (round to nearest even).
#include <algorithm>

#include "ember/core/parallel.h"
#include "ember/ops/channel_affine.h"
#include "ember/ops/cpu/convert_vec.h"

namespace ember::cpu {
inline namespace EMBER_CPU_NS {
namespace {

constexpr CpuCapability kCap = CpuCapability(EMBER_CPU_CAP_INDEX);
constexpr int64_t kBlock = 1024;
constexpr int64_t kGrain = 32768;

template <class S, class T>
void affine_typed(const ChannelAffinePlan& p) {
  const S* x = reinterpret_cast<const S*>(p.in);
  S* y = reinterpret_cast<S*>(p.out);
  const T* sc = static_cast<const T*>(p.scale);
  const T* sh = static_cast<const T*>(p.shift);
  const int64_t C = p.channels, inner = p.inner;
  constexpr bool kWide = !std::is_same_v<S, T>;
  if (inner == 1) {
    parallel_for(0, p.outer, std::max<int64_t>(1, kGrain / C), [&](int64_t b, int64_t e) {
      T buf[kBlock];
      for (int64_t o = b; o < e; ++o) {
        const S* xr = x + o * C;
        S* yr = y + o * C;
        for (int64_t c0 = 0; c0 < C; c0 += kBlock) {
          const int64_t n = std::min(kBlock, C - c0);
          if constexpr (kWide) {
            widen(xr + c0, buf, n);
            for (int64_t c = 0; c < n; ++c) buf[c] = buf[c] * sc[c0 + c] + sh[c0 + c];
            narrow(buf, yr + c0, n);
          } else {
            for (int64_t c = 0; c < n; ++c) yr[c0 + c] = xr[c0 + c] * sc[c0 + c] + sh[c0 + c];
          }
        }
      }
    });
    return;
  }
  parallel_for(0, p.outer * C, std::max<int64_t>(1, kGrain / inner), [&](int64_t b, int64_t e) {
    T buf[kBlock];
    for (int64_t u = b; u < e; ++u) {
      const T s = sc[u % C], t = sh[u % C];
      const S* xr = x + u * inner;
      S* yr = y + u * inner;
      for (int64_t i0 = 0; i0 < inner; i0 += kBlock) {
        const int64_t n = std::min(kBlock, inner - i0);
        if constexpr (kWide) {
          widen(xr + i0, buf, n);
          for (int64_t i = 0; i < n; ++i) buf[i] = buf[i] * s + t;
          narrow(buf, yr + i0, n);
        } else {
          for (int64_t i = 0; i < n; ++i) yr[i0 + i] = xr[i0 + i] * s + t;
        }
      }
    }
  });
}

void channel_affine_kernel(const ChannelAffinePlan& p) {
  switch (p.dtype) {
    case ScalarType::Float: return affine_typed<float, float>(p);
    case ScalarType::Double: return affine_typed<double, double>(p);
    case ScalarType::BFloat16: return affine_typed<BFloat16, float>(p);
    case ScalarType::Half: return affine_typed<Half, float>(p);
    default: EMBER_CHECK(false, "channel_affine: unsupported dtype ", p.dtype);
  }
}

const KernelRegistrar<ChannelAffineFn> r_affine("channel_affine", kCPU, kCap, &channel_affine_kernel);

}  // namespace
}  // namespace EMBER_CPU_NS
}  // namespace ember::cpu
