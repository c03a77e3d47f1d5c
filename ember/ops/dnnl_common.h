// Shared oneDNN plumbing for the matmul (linalg_dnnl.cpp) and convolution (conv_dnnl.cpp)
// paths: the CPU engine, dtype mapping, the per-thread stream and scratchpad, and the
// OpenMP thread count oneDNN reads when it creates and runs a primitive.
#pragma once
#include <dnnl.hpp>
#include <omp.h>

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "ember/core/dtype.h"

namespace ember::dnnl_common {

dnnl::engine& engine();
// Whether oneDNN computes BFloat16 convolutions and pooling on this CPU (it needs AVX-512:
// an AVX2-only CPU has none, and the callers take ember's own paths). Probed once.
bool bf16_supported();
// The calling thread's stream (a dnnl::stream must not be shared between threads).
dnnl::stream& stream();
// A per-thread buffer of at least `bytes` (64-byte aligned; reused across calls).
void* scratchpad(size_t bytes);

inline dnnl::memory::data_type dnnl_type(ScalarType t) {
  return t == kBFloat16 ? dnnl::memory::data_type::bf16 : dnnl::memory::data_type::f32;
}

// Plain activation layouts per rank (3: ncw/nwc, 4: nchw/nhwc, 5: ncdhw/ndhwc).
dnnl::memory::format_tag plain_tag(int64_t rank, bool channels_last);

// Primitive attributes with a user-provided scratchpad (see execute).
dnnl::primitive_attr scratchpad_attr();

// Runs `p` on the calling thread's stream with its scratchpad; does not wait.
void execute(const dnnl::primitive& p, const dnnl::primitive_desc_base& pd, std::unordered_map<int, dnnl::memory> args);

// Output size of a sliding window along one dim (convolution and pooling).
inline int64_t window_output_size(int64_t in, int64_t kernel, int64_t stride, int64_t pad_l, int64_t pad_r,
                                  int64_t dilation) {
  return (in + pad_l + pad_r - dilation * (kernel - 1) - 1) / stride + 1;
}

// The shared Entry (primitive descriptors of one geometry) for `key`, created on first use;
// at most 256 per Entry type, the oldest dropped first.
template <class Entry>
std::shared_ptr<Entry> cached_entry(const std::string& key) {
  static std::mutex mu;
  static auto* cache = new std::unordered_map<std::string, std::shared_ptr<Entry>>();  // leaked at exit
  static auto* order = new std::list<std::string>();
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache->find(key);
  if (it != cache->end()) return it->second;
  if (cache->size() >= 256) {
    cache->erase(order->front());
    order->pop_front();
  }
  order->push_back(key);
  return cache->emplace(key, std::make_shared<Entry>()).first->second;
}

// Sets the calling thread's OpenMP thread count for one oneDNN call, restores it after
// (Note [oneDNN thread count] in linalg_dnnl.cpp).
struct OmpThreads {
  int saved = -1;
  OmpThreads(int n, bool nested) {
    if (!nested && omp_get_max_threads() != n) saved = omp_get_max_threads(), omp_set_num_threads(n);
  }
  ~OmpThreads() {
    if (saved > 0) omp_set_num_threads(saved);
  }
  OmpThreads(const OmpThreads&) = delete;
  OmpThreads& operator=(const OmpThreads&) = delete;
};

}  // namespace ember::dnnl_common
