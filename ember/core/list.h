// List<T>: c10::List, the typed list LibTorch's ATen signatures take (index_put's
// c10::List<c10::optional<Tensor>> indices). A value type over std::vector with c10's methods
// (get/set/extract/vec); unlike c10::List, copies are deep (c10's share one buffer).
#pragma once
#include <initializer_list>
#include <utility>
#include <vector>

#include "ember/core/array_ref.h"

namespace ember {

template <class T>
class List {
 public:
  using value_type = T;
  using size_type = size_t;
  using iterator = typename std::vector<T>::iterator;
  using const_iterator = typename std::vector<T>::const_iterator;

  List() = default;
  List(std::initializer_list<T> values) : v_(values) {}  // NOLINT: c10::List's implicit form
  explicit List(ArrayRef<T> values) : v_(values.begin(), values.end()) {}
  explicit List(std::vector<T> values) : v_(std::move(values)) {}

  T get(size_t pos) const { return v_.at(pos); }
  void set(size_t pos, T value) { v_.at(pos) = std::move(value); }
  T extract(size_t pos) { return std::move(v_.at(pos)); }
  T& operator[](size_t pos) { return v_[pos]; }
  const T& operator[](size_t pos) const { return v_[pos]; }

  size_t size() const { return v_.size(); }
  bool empty() const { return v_.empty(); }
  void reserve(size_t n) { v_.reserve(n); }
  void clear() { v_.clear(); }
  void resize(size_t n) { v_.resize(n); }
  void push_back(T value) { v_.push_back(std::move(value)); }
  template <class... Args>
  void emplace_back(Args&&... args) { v_.emplace_back(std::forward<Args>(args)...); }
  void append(const List& other) { v_.insert(v_.end(), other.v_.begin(), other.v_.end()); }
  void pop_back() { v_.pop_back(); }
  iterator insert(iterator pos, T value) { return v_.insert(pos, std::move(value)); }
  iterator erase(iterator pos) { return v_.erase(pos); }
  iterator erase(iterator first, iterator last) { return v_.erase(first, last); }

  iterator begin() { return v_.begin(); }
  iterator end() { return v_.end(); }
  const_iterator begin() const { return v_.begin(); }
  const_iterator end() const { return v_.end(); }

  std::vector<T> vec() const { return v_; }
  List copy() const { return *this; }
  bool operator==(const List& o) const { return v_ == o.v_; }
  bool operator!=(const List& o) const { return v_ != o.v_; }

 private:
  std::vector<T> v_;
};

}  // namespace ember
