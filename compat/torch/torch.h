// LibTorch source compatibility: `#include <torch/torch.h>` maps torch::, at:: and c10::
// onto ember, so programs written against LibTorch's C++ frontend compile unchanged.
// Each namespace pulls in ember with a using-directive (so torch::Tensor, torch::zeros,
// torch::indexing::Slice all resolve) and adds the few names LibTorch spells differently.
#pragma once
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

#include "ember/ember.h"
#include "ember/data/data.h"

namespace c10 {
using namespace ::ember;
template <class T> using optional = std::optional<T>;
template <class T> using complex = ::ember::Complex<T>;
using std::nullopt;
using std::nullopt_t;
using string_view = std::string_view;
// c10::irange(n) / irange(a, b): integer ranges for range-for loops.
template <class I>
struct IntRange {
  struct It {
    I v;
    I operator*() const { return v; }
    It& operator++() { ++v; return *this; }
    bool operator!=(const It& o) const { return v != o.v; }
  };
  I b, e;
  It begin() const { return {b}; }
  It end() const { return {e}; }
};
template <class I> IntRange<I> irange(I end) { return {I(0), end < I(0) ? I(0) : end}; }
template <class I, class J> IntRange<I> irange(I begin, J end) { return {begin, I(end) < begin ? begin : I(end)}; }
}  // namespace c10

namespace at {
using namespace ::ember;
using c10::irange;
using c10::nullopt;
using c10::optional;
}  // namespace at

namespace torch {
using namespace ::ember;
using c10::nullopt;
using c10::optional;
// torch::str(args...): the arguments printed one after another (c10::str).
template <class... Args>
std::string str(const Args&... args) {
  return ::ember::detail::str_cat(args...);
}
namespace cuda {
// ember's CUDA backend is not built into this library yet: no device is available.
inline bool is_available() { return false; }
inline int64_t device_count() { return 0; }
inline bool cudnn_is_available() { return false; }
}  // namespace cuda
}  // namespace torch

#define TORCH_CHECK(cond, ...) EMBER_CHECK(cond, "" __VA_OPT__(, ) __VA_ARGS__)
#define TORCH_CHECK_INDEX(cond, ...) EMBER_CHECK_INDEX(cond, "" __VA_OPT__(, ) __VA_ARGS__)
#define TORCH_CHECK_TYPE(cond, ...) EMBER_CHECK_TYPE(cond, "" __VA_OPT__(, ) __VA_ARGS__)
#define TORCH_INTERNAL_ASSERT(cond, ...) EMBER_INTERNAL_ASSERT(cond __VA_OPT__(, ) __VA_ARGS__)
#define AT_ASSERT(cond, ...) EMBER_INTERNAL_ASSERT(cond __VA_OPT__(, ) __VA_ARGS__)
#define AT_ERROR(...) EMBER_ERROR(__VA_ARGS__)
#define TORCH_WARN(...) (std::cerr << "Warning: " << ::ember::detail::str_cat(__VA_ARGS__) << std::endl)
