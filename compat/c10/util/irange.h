// LibTorch compatibility: c10::irange(end) and irange(begin, end), integer ranges for range-for
// loops (empty when end <= begin).
#pragma once
#include <iterator>
#include <type_traits>

#include "c10/ember_namespaces.h"

namespace c10 {

template <class I>
class integer_range {
 public:
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = I;
    using difference_type = std::ptrdiff_t;
    using pointer = const I*;
    using reference = I;
    explicit iterator(I v) : v_(v) {}
    I operator*() const { return v_; }
    iterator& operator++() { ++v_; return *this; }
    iterator operator++(int) { iterator old = *this; ++v_; return old; }
    bool operator==(const iterator& o) const { return v_ == o.v_; }
    bool operator!=(const iterator& o) const { return v_ != o.v_; }

   private:
    I v_;
  };
  integer_range(I begin, I end) : begin_(begin), end_(end < begin ? begin : end) {}
  iterator begin() const { return iterator(begin_); }
  iterator end() const { return iterator(end_); }

 private:
  I begin_, end_;
};

template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
integer_range<I> irange(I end) {
  return {I(0), end};
}
template <class I, class J,
          std::enable_if_t<std::is_integral_v<I> && std::is_integral_v<J>, int> = 0>
integer_range<J> irange(I begin, J end) {
  return {J(begin), end};
}

}  // namespace c10
