// Storage: a refcounted block of memory on one device, shared by a tensor and its views.
#pragma once
#include <functional>

#include "ember/core/allocator.h"
#include "ember/core/intrusive_ptr.h"

namespace ember {

namespace detail {
// Whether the calling thread is in InferenceMode (set by ember/autograd's InferenceMode guard;
// core reads it to mark the storage it allocates).
bool inference_mode_enabled();
void set_inference_mode_enabled(bool enabled);
// The error LibTorch gives for an in-place update of an inference tensor outside InferenceMode.
[[noreturn]] void refuse_inference_tensor_update();
}  // namespace detail

struct StorageImpl : intrusive_target {
  StorageImpl(DataPtr d, size_t nbytes, bool resizable)
      : data_ptr(std::move(d)), nbytes(nbytes), resizable(resizable),
        inference(detail::inference_mode_enabled()) {}
  DataPtr data_ptr;  // null on the meta device
  size_t nbytes;
  bool resizable;  // false for from_blob memory we do not own
  // Allocated in InferenceMode: the tensors on it (and their views) are inference tensors.
  bool inference;
};

class Storage {
 public:
  Storage() = default;
  explicit Storage(intrusive_ptr<StorageImpl> impl) : impl_(std::move(impl)) {}
  // Allocates nbytes on `device` (no memory on meta).
  static Storage allocate(size_t nbytes, Device device);
  // Wraps memory owned elsewhere; `deleter` (if any) runs when the last user lets go.
  static Storage from_blob(void* data, size_t nbytes, Device device,
                           std::function<void(void*)> deleter = nullptr);

  void* data() const { return impl_->data_ptr.get(); }
  size_t nbytes() const { return impl_->nbytes; }
  Device device() const { return impl_->data_ptr.device(); }
  bool defined() const { return impl_.defined(); }
  bool resizable() const { return impl_->resizable; }
  bool is_alias_of(const Storage& o) const { return impl_ == o.impl_; }
  bool is_inference() const { return impl_.defined() && impl_->inference; }
  uint32_t use_count() const { return impl_.use_count(); }
  StorageImpl* unsafeGetStorageImpl() const { return impl_.get(); }
  // Grows the storage to at least nbytes (for resize_ / out= results); keeps contents.
  void resize_bytes(size_t nbytes);

 private:
  intrusive_ptr<StorageImpl> impl_;
};

}  // namespace ember
