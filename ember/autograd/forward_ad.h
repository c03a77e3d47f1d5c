// Forward-mode AD with PyTorch's torch.autograd.forward_ad names: a tensor carries a
// tangent at a dual level; every differentiable op propagates tangents through its jvp.
#pragma once
#include <cstdint>
#include <tuple>
#include <utility>

#include "ember/core/tensor.h"

namespace ember::autograd::forward_ad {

// Opens a new (innermost) dual level and returns its index.
uint64_t enter_dual_level();
// Closes `level` (the innermost open level), dropping every tangent attached at it.
void exit_dual_level(uint64_t level);
// Closes the innermost level.
void exit_dual_level();

// RAII: `{ dual_level l; ... }`.
class dual_level {
 public:
  dual_level() : level_(enter_dual_level()) {}
  ~dual_level() { exit_dual_level(level_); }
  dual_level(const dual_level&) = delete;
  dual_level& operator=(const dual_level&) = delete;
  uint64_t level() const { return level_; }

 private:
  uint64_t level_;
};

// A view of `primal` carrying `tangent` at `level` (default: the innermost open level).
// The tangent must match the primal's shape, dtype and device.
Tensor make_dual(const Tensor& primal, const Tensor& tangent, int64_t level = -1);

struct UnpackedDual {
  Tensor primal;
  Tensor tangent;  // undefined when the tensor has none at that level
};
UnpackedDual unpack_dual(const Tensor& t, int64_t level = -1);

namespace detail {
bool any_level_open();
// Open levels, outermost first.
std::vector<uint64_t> open_levels();
void register_tangent_owner(uint64_t level, const Tensor& t);
}  // namespace detail

}  // namespace ember::autograd::forward_ad

namespace ember {
// LibTorch's spellings (at::_make_dual, at::_unpack_dual), for a level from enter_dual_level().
inline Tensor _make_dual(const Tensor& primal, const Tensor& tangent, int64_t level) {
  return autograd::forward_ad::make_dual(primal, tangent, level);
}
inline std::tuple<Tensor, Tensor> _unpack_dual(const Tensor& dual, int64_t level) {
  autograd::forward_ad::UnpackedDual u = autograd::forward_ad::unpack_dual(dual, level);
  return {std::move(u.primal), std::move(u.tangent)};
}
}  // namespace ember
