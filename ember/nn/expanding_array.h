// ExpandingArray<D, T>: D values (kernel sizes, strides, paddings, ratios), given as D values or
// as one that stands for every dimension (LibTorch's torch::ExpandingArray; ember also takes a
// one-element list or vector for all D).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <vector>

#include "ember/core/array_ref.h"
#include "ember/core/error.h"

namespace ember {

template <size_t D, class T = int64_t>
struct ExpandingArray : std::vector<T> {
  ExpandingArray(T v) : std::vector<T>(D, v) {}  // NOLINT
  ExpandingArray(std::initializer_list<T> l) : ExpandingArray(std::vector<T>(l)) {}
  ExpandingArray(const std::array<T, D>& a) : std::vector<T>(a.begin(), a.end()) {}  // NOLINT
  ExpandingArray(ArrayRef<T> v) : ExpandingArray(std::vector<T>(v.begin(), v.end())) {}  // NOLINT
  ExpandingArray(std::vector<T> v) : std::vector<T>(std::move(v)) {  // NOLINT
    if (this->size() == 1 && D > 1) this->assign(D, this->front());
    EMBER_CHECK(this->size() == D, "Expected ", D, " values, but instead got ", this->size());
  }
  // LibTorch's accessors: *e and e-> are the values.
  std::vector<T>& operator*() { return *this; }
  const std::vector<T>& operator*() const { return *this; }
  std::vector<T>* operator->() { return this; }
  const std::vector<T>* operator->() const { return this; }
  operator ArrayRef<T>() const { return ArrayRef<T>(this->data(), this->size()); }  // NOLINT
};

// As LibTorch prints it: one value alone ("3"), more as a list ("[3, 3]").
template <size_t D, class T>
std::ostream& operator<<(std::ostream& stream, const ExpandingArray<D, T>& a) {
  if (a.size() == 1) return stream << a.front();
  return stream << ArrayRef<T>(a);
}

}  // namespace ember
