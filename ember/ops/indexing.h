// Tensor indexing with LibTorch's TensorIndex: integers, Slice, None, Ellipsis, bools and
// tensors (advanced indexing), as in `t.index({Slice(1, None), 0, idx})`.
#pragma once
#include <cstdint>
#include <limits>
#include <optional>

#include "ember/core/tensor.h"

namespace ember::indexing {

struct EllipsisIndexType { EllipsisIndexType() = default; };
constexpr EllipsisIndexType Ellipsis;
// As LibTorch: None is c10::nullopt, so Slice(None, 3) and TensorIndex(None) take it as "absent".
using NoneIndexType = std::nullopt_t;
constexpr std::nullopt_t None = std::nullopt;

// The bounds a Slice stands for when not given (LibTorch's).
inline constexpr int64_t INDEX_MAX = std::numeric_limits<int64_t>::max();
inline constexpr int64_t INDEX_MIN = std::numeric_limits<int64_t>::min();

// start:stop:step, with LibTorch's normalized bounds: a missing start is 0 (INDEX_MAX for a
// negative step), a missing stop INDEX_MAX (INDEX_MIN), a missing step 1.
class Slice {
 public:
  Slice(std::optional<int64_t> start = std::nullopt, std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt)
      : step_(step.value_or(1)) {
    if (step_ < -INDEX_MAX) step_ = -INDEX_MAX;
    start_ = start.value_or(step_ < 0 ? INDEX_MAX : 0);
    stop_ = stop.value_or(step_ < 0 ? INDEX_MIN : INDEX_MAX);
  }
  int64_t start() const { return start_; }
  int64_t stop() const { return stop_; }
  int64_t step() const { return step_; }

 private:
  int64_t start_, stop_, step_;
};

class TensorIndex {
 public:
  enum class Type { None, Ellipsis, Integer, Boolean, Slice, Tensor };
  TensorIndex(std::nullopt_t) : type_(Type::None) {}  // NOLINT
  TensorIndex(EllipsisIndexType) : type_(Type::Ellipsis) {}  // NOLINT
  TensorIndex(const char* s);  // NOLINT: "..." means Ellipsis
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  TensorIndex(T i) : type_(Type::Integer), integer_(static_cast<int64_t>(i)) {}  // NOLINT
  TensorIndex(bool b) : type_(Type::Boolean), boolean_(b) {}  // NOLINT
  TensorIndex(Slice s) : type_(Type::Slice), slice_(s) {}  // NOLINT
  TensorIndex(Tensor t) : type_(Type::Tensor), tensor_(std::move(t)) {}  // NOLINT
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  TensorIndex(T) = delete;  // float indices are an error, as in LibTorch

  Type type() const { return type_; }
  bool is_none() const { return type_ == Type::None; }
  bool is_ellipsis() const { return type_ == Type::Ellipsis; }
  bool is_integer() const { return type_ == Type::Integer; }
  bool is_boolean() const { return type_ == Type::Boolean; }
  bool is_slice() const { return type_ == Type::Slice; }
  bool is_tensor() const { return type_ == Type::Tensor; }
  int64_t integer() const { return integer_; }
  bool boolean() const { return boolean_; }
  const Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  Type type_;
  int64_t integer_ = 0;
  bool boolean_ = false;
  Slice slice_;
  Tensor tensor_;
};

std::ostream& operator<<(std::ostream& os, const TensorIndex& i);
// "(0:9223372036854775807:1, 0)", as LibTorch prints an index list.
std::ostream& operator<<(std::ostream& os, const std::vector<TensorIndex>& indices);

}  // namespace ember::indexing

namespace ember {
// Advanced indexing with a list of (optional) index tensors, one per leading dim
// (PyTorch's aten::index / index_put_).
Tensor index(const Tensor& self, ArrayRef<std::optional<Tensor>> indices);
Tensor& index_put_(Tensor& self, ArrayRef<std::optional<Tensor>> indices, const Tensor& values,
                   bool accumulate = false);
Tensor index_put(const Tensor& self, ArrayRef<std::optional<Tensor>> indices, const Tensor& values,
                 bool accumulate = false);
}  // namespace ember
