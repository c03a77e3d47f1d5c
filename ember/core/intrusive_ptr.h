// intrusive_ptr<T>: a shared pointer whose count lives in the object (one allocation,
// one atomic per copy). Tensor, TensorImpl and Storage use it, as c10 does.
#pragma once
#include <atomic>
#include <cstdint>
#include <utility>

namespace ember {

class intrusive_target {
 public:
  intrusive_target() = default;
  intrusive_target(const intrusive_target&) : refcount_(0) {}
  intrusive_target& operator=(const intrusive_target&) { return *this; }
  virtual ~intrusive_target() = default;
  uint32_t use_count() const { return refcount_.load(std::memory_order_acquire); }

 private:
  template <class T> friend class intrusive_ptr;
  mutable std::atomic<uint32_t> refcount_{0};
};

template <class T>
class intrusive_ptr {
 public:
  intrusive_ptr() = default;
  intrusive_ptr(std::nullptr_t) {}  // NOLINT
  // Takes a reference to p (which may already be owned elsewhere).
  explicit intrusive_ptr(T* p) : p_(p) { retain(); }
  intrusive_ptr(const intrusive_ptr& o) : p_(o.p_) { retain(); }
  intrusive_ptr(intrusive_ptr&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  template <class U, class = std::enable_if_t<std::is_convertible_v<U*, T*>>>
  intrusive_ptr(intrusive_ptr<U> o) : p_(o.release()) {}  // NOLINT
  ~intrusive_ptr() { reset(); }
  intrusive_ptr& operator=(const intrusive_ptr& o) {
    if (p_ != o.p_) { intrusive_ptr tmp(o); swap(tmp); }
    return *this;
  }
  intrusive_ptr& operator=(intrusive_ptr&& o) noexcept {
    intrusive_ptr tmp(std::move(o));
    swap(tmp);
    return *this;
  }
  template <class... Args>
  static intrusive_ptr make(Args&&... args) { return intrusive_ptr(new T(std::forward<Args>(args)...)); }

  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  bool defined() const { return p_ != nullptr; }
  void reset() {
    if (p_ && p_->refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete p_;
    p_ = nullptr;
  }
  // Gives up ownership without decrementing.
  T* release() { return std::exchange(p_, nullptr); }
  void swap(intrusive_ptr& o) noexcept { std::swap(p_, o.p_); }
  uint32_t use_count() const { return p_ ? p_->use_count() : 0; }
  bool unique() const { return use_count() == 1; }
  bool operator==(const intrusive_ptr& o) const { return p_ == o.p_; }
  bool operator!=(const intrusive_ptr& o) const { return p_ != o.p_; }

 private:
  void retain() { if (p_) p_->refcount_.fetch_add(1, std::memory_order_relaxed); }
  T* p_ = nullptr;
};

template <class T, class... Args>
intrusive_ptr<T> make_intrusive(Args&&... args) {
  return intrusive_ptr<T>::make(std::forward<Args>(args)...);
}

}  // namespace ember
