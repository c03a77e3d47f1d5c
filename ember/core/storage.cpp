// Storage allocation, wrapping of foreign memory, and growth.
#include "ember/core/storage.h"

#include <cstring>

#include "ember/core/error.h"

namespace ember {

namespace detail {
namespace {
thread_local bool t_inference_mode = false;
}  // namespace
bool inference_mode_enabled() { return t_inference_mode; }
void set_inference_mode_enabled(bool enabled) { t_inference_mode = enabled; }
void refuse_inference_tensor_update() {
  EMBER_ERROR("Inplace update to inference tensor outside InferenceMode is not allowed. You can make a "
              "clone to get a normal tensor before doing inplace update. See "
              "https://github.com/pytorch/rfcs/pull/17 for more details.");
}
}  // namespace detail

Storage Storage::allocate(size_t nbytes, Device device) {
  if (device.is_meta())
    return Storage(make_intrusive<StorageImpl>(DataPtr(nullptr, nullptr, nullptr, device), nbytes, true));
  Allocator* a = get_allocator(device.type());
  DataPtr d = device.is_cpu() ? a->allocate(nbytes) : a->allocate_on(nbytes, device);
  return Storage(make_intrusive<StorageImpl>(std::move(d), nbytes, true));
}

Storage Storage::from_blob(void* data, size_t nbytes, Device device,
                           std::function<void(void*)> deleter) {
  DataPtr d;
  if (deleter) {
    auto* fn = new std::function<void(void*)>(std::move(deleter));
    d = DataPtr(data, fn, [](void* ctx, void* p) {
      auto* f = static_cast<std::function<void(void*)>*>(ctx);
      (*f)(p);
      delete f;
    }, device);
  } else {
    d = DataPtr(data, nullptr, nullptr, device);
  }
  return Storage(make_intrusive<StorageImpl>(std::move(d), nbytes, false));
}

void Storage::resize_bytes(size_t nbytes) {
  if (nbytes <= impl_->nbytes) return;
  EMBER_CHECK(impl_->resizable, "resize_: trying to resize storage that is not resizable "
              "(memory from from_blob); it holds ", impl_->nbytes, " bytes, ", nbytes, " needed");
  Device dev = device();
  if (dev.is_meta()) { impl_->nbytes = nbytes; return; }
  Allocator* a = get_allocator(dev.type());
  DataPtr d = a->allocate_on(nbytes, dev);
  if (impl_->nbytes) a->copy_data(d.get(), impl_->data_ptr.get(), impl_->nbytes);
  impl_->data_ptr = std::move(d);
  impl_->nbytes = nbytes;
}

}  // namespace ember
