// ArrayRef<T>: a non-owning view of a contiguous list (LibTorch's c10::ArrayRef), and
// SmallVector<T, N>: a vector with N elements stored inline. Shapes and strides use them
// so that no heap allocation happens on the per-op path for tensors of up to 6 dims.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iosfwd>
#include <new>
#include <optional>
#include <type_traits>
#include <vector>

#include "ember/core/error.h"

namespace ember {

template <class T>
class ArrayRef {
 public:
  using value_type = T;
  using iterator = const T*;
  using const_iterator = const T*;
  using size_type = size_t;

  constexpr ArrayRef() = default;
  constexpr ArrayRef(const T& one) : data_(&one), size_(1) {}  // NOLINT: implicit like c10
  constexpr ArrayRef(const T* data, size_t n) : data_(data), size_(n) {}
  constexpr ArrayRef(const T* begin, const T* end) : data_(begin), size_(end - begin) {}
  template <class A>
  ArrayRef(const std::vector<T, A>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
  // Like c10::ArrayRef: valid for the full expression the list appears in.
  constexpr ArrayRef(std::initializer_list<T> l)  // NOLINT
      : data_(l.begin() == l.end() ? nullptr : l.begin()), size_(l.size()) {}
#pragma GCC diagnostic pop
  template <class C, class = decltype(std::declval<const C&>().data()),
            class = std::enable_if_t<!std::is_same_v<C, std::vector<T>> &&
                                     std::is_same_v<std::remove_cv_t<std::remove_pointer_t<
                                                        decltype(std::declval<const C&>().data())>>,
                                                    T>>>
  ArrayRef(const C& c) : data_(c.data()), size_(c.size()) {}  // NOLINT

  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const T* begin() const { return data_; }
  constexpr const T* end() const { return data_ + size_; }
  constexpr const T& front() const { return data_[0]; }
  constexpr const T& back() const { return data_[size_ - 1]; }
  constexpr const T& operator[](size_t i) const { return data_[i]; }
  const T& at(size_t i) const {
    EMBER_CHECK_INDEX(i < size_, "ArrayRef: index ", i, " out of range for size ", size_);
    return data_[i];
  }
  constexpr ArrayRef slice(size_t start, size_t n) const { return {data_ + start, n}; }
  constexpr ArrayRef slice(size_t start) const { return {data_ + start, size_ - start}; }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }
  bool equals(ArrayRef o) const { return size_ == o.size_ && std::equal(begin(), end(), o.begin()); }
  operator std::vector<T>() const { return vec(); }  // NOLINT

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};

template <class T>
bool operator==(ArrayRef<T> a, ArrayRef<T> b) { return a.equals(b); }
template <class T>
bool operator!=(ArrayRef<T> a, ArrayRef<T> b) { return !a.equals(b); }
template <class T>
bool operator==(ArrayRef<T> a, const std::vector<T>& b) { return a.equals(b); }
template <class T>
bool operator==(const std::vector<T>& a, ArrayRef<T> b) { return b.equals(a); }

using IntArrayRef = ArrayRef<int64_t>;

// An optional ArrayRef (c10::OptionalArrayRef). Unlike std::optional<ArrayRef<T>>, it is
// built directly from a single value, a list or a vector at the call site, so `t.sum(1)`
// does not leave the ArrayRef pointing at a temporary that died inside optional's
// converting constructor.
template <class T>
class OptionalArrayRef {
 public:
  constexpr OptionalArrayRef() = default;
  constexpr OptionalArrayRef(std::nullopt_t) {}  // NOLINT
  constexpr OptionalArrayRef(ArrayRef<T> r) : has_(true), ref_(r) {}  // NOLINT
  constexpr OptionalArrayRef(const T& one) : has_(true), ref_(&one, 1) {}  // NOLINT
  constexpr OptionalArrayRef(std::initializer_list<T> l) : has_(true), ref_(l) {}  // NOLINT
  template <class A>
  OptionalArrayRef(const std::vector<T, A>& v) : has_(true), ref_(v) {}  // NOLINT
  OptionalArrayRef(const std::optional<ArrayRef<T>>& o) : has_(o.has_value()), ref_(o.value_or(ArrayRef<T>())) {}  // NOLINT

  constexpr bool has_value() const { return has_; }
  constexpr explicit operator bool() const { return has_; }
  constexpr ArrayRef<T> operator*() const { return ref_; }
  constexpr const ArrayRef<T>* operator->() const { return &ref_; }
  ArrayRef<T> value() const {
    EMBER_CHECK(has_, "OptionalArrayRef: value() called on an empty optional");
    return ref_;
  }
  constexpr ArrayRef<T> value_or(ArrayRef<T> other) const { return has_ ? ref_ : other; }

 private:
  bool has_ = false;
  ArrayRef<T> ref_;
};
using OptionalIntArrayRef = OptionalArrayRef<int64_t>;
// As c10's: equal when both hold equal lists, or both hold none.
template <class T>
bool operator==(const OptionalArrayRef<T>& a, const OptionalArrayRef<T>& b) {
  return a.has_value() == b.has_value() && (!a.has_value() || (*a).equals(*b));
}
template <class T>
bool operator==(const OptionalArrayRef<T>& a, ArrayRef<T> b) {
  return a.has_value() && (*a).equals(b);
}

std::ostream& operator<<(std::ostream& os, IntArrayRef a);

// A trivially-copyable vector with N inline elements (only used for trivial T).
template <class T, size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  SmallVector() = default;
  explicit SmallVector(size_t n, T v = T()) { resize(n, v); }
  SmallVector(std::initializer_list<T> l) { assign(l.begin(), l.end()); }
  SmallVector(ArrayRef<T> a) { assign(a.begin(), a.end()); }  // NOLINT
  template <class It>
  SmallVector(It b, It e) { assign(b, e); }
  SmallVector(const SmallVector& o) { assign(o.begin(), o.end()); }
  SmallVector(SmallVector&& o) noexcept { steal(o); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) { release(); steal(o); }
    return *this;
  }
  ~SmallVector() { release(); }

  template <class It>
  void assign(It b, It e) {
    size_t n = std::distance(b, e);
    size_ = 0;
    reserve(n);
    std::copy(b, e, data_);
    size_ = n;
  }
  void reserve(size_t n) {
    if (n <= cap_) return;
    size_t cap = std::max(n, cap_ * 2);
    T* p = static_cast<T*>(::operator new(cap * sizeof(T)));
    if (size_) std::memcpy(static_cast<void*>(p), data_, size_ * sizeof(T));
    if (data_ != inline_) ::operator delete(data_);
    data_ = p;
    cap_ = cap;
  }
  void resize(size_t n, T v = T()) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data_[i] = v;
    size_ = n;
  }
  void push_back(T v) {
    if (size_ == cap_) reserve(size_ + 1);
    data_[size_++] = v;
  }
  template <class... A>
  T& emplace_back(A&&... a) {
    push_back(T(std::forward<A>(a)...));
    return back();
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }
  void insert(T* pos, T v) {
    size_t i = pos - data_;
    push_back(v);
    for (size_t j = size_ - 1; j > i; --j) data_[j] = data_[j - 1];
    data_[i] = v;
  }
  void erase(T* pos) {
    for (T* p = pos; p + 1 < end(); ++p) *p = p[1];
    --size_;
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }
  T& front() { return data_[0]; }
  operator ArrayRef<T>() const { return {data_, size_}; }  // NOLINT
  std::vector<T> vec() const { return {begin(), end()}; }
  bool operator==(const SmallVector& o) const {
    return size_ == o.size_ && std::equal(begin(), end(), o.begin());
  }

 private:
  void release() {
    if (data_ != inline_) ::operator delete(data_);
    data_ = inline_;
    cap_ = N;
    size_ = 0;
  }
  void steal(SmallVector& o) {
    if (o.data_ == o.inline_) {
      data_ = inline_;
      cap_ = N;
      std::memcpy(static_cast<void*>(inline_), o.inline_, o.size_ * sizeof(T));
    } else {
      data_ = o.data_;
      cap_ = o.cap_;
      o.data_ = o.inline_;
      o.cap_ = N;
    }
    size_ = o.size_;
    o.size_ = 0;
  }
  T* data_ = inline_;
  size_t size_ = 0;
  size_t cap_ = N;
  T inline_[N];
};

// At most N elements, stored inline (never on the heap): the operands of one op. Slots are
// raw storage, constructed on push_back and destroyed on shrink: an op's iterator holds six
// operand slots and usually uses three, and zeroing and destroying the unused ones was a
// tenth of a one-element add. Exceeding N is an error.
template <class T, size_t N>
class StaticVector {
 public:
  using value_type = T;
  StaticVector() {}  // NOLINT: user-provided, so value-initialization leaves the slots raw
  StaticVector(const StaticVector& o) {
    for (const T& x : o) push_back(x);
  }
  StaticVector(StaticVector&& o) noexcept(std::is_nothrow_move_constructible_v<T>) {
    for (T& x : o) push_back(std::move(x));
    o.clear();
  }
  StaticVector& operator=(const StaticVector& o) {
    if (this != &o) {
      clear();
      for (const T& x : o) push_back(x);
    }
    return *this;
  }
  StaticVector& operator=(StaticVector&& o) noexcept(std::is_nothrow_move_constructible_v<T>) {
    if (this != &o) {
      clear();
      for (T& x : o) push_back(std::move(x));
      o.clear();
    }
    return *this;
  }
  ~StaticVector() { clear(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  static constexpr size_t capacity() { return N; }
  void push_back(T v) {
    if (__builtin_expect(size_ == N, 0)) overflow();
    ::new (static_cast<void*>(slot(size_))) T(std::move(v));
    ++size_;
  }
  // Shrinking destroys the last elements; growing appends default-initialized ones (a
  // class's member initializers run, nothing else is zeroed).
  void resize(size_t n) {
    if (__builtin_expect(n > N, 0)) overflow();
    while (size_ > n) slot(--size_)->~T();
    while (size_ < n) {
      ::new (static_cast<void*>(slot(size_))) T;
      ++size_;
    }
  }
  void clear() { resize(0); }
  T* begin() { return slot(0); }
  T* end() { return slot(size_); }
  const T* begin() const { return slot(0); }
  const T* end() const { return slot(size_); }
  T& operator[](size_t i) { return *slot(i); }
  const T& operator[](size_t i) const { return *slot(i); }

 private:
  [[noreturn]] static void overflow() { EMBER_ERROR("StaticVector: more than its capacity of ", N, " elements"); }
  T* slot(size_t i) { return reinterpret_cast<T*>(storage_) + i; }
  const T* slot(size_t i) const { return reinterpret_cast<const T*>(storage_) + i; }
  alignas(T) unsigned char storage_[N * sizeof(T)];
  size_t size_ = 0;
};

constexpr size_t kDimVectorInline = 6;
using DimVector = SmallVector<int64_t, kDimVectorInline>;

}  // namespace ember
