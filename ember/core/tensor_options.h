// TensorOptions: the optional dtype, device, requires_grad and memory format of a new
// tensor, built fluently (`TensorOptions().dtype(kDouble).requires_grad(true)`) or from the
// free functions `dtype(...)`, `device(...)`, `requires_grad()` as in LibTorch.
#pragma once
#include <optional>

#include "ember/core/device.h"
#include "ember/core/dtype.h"
#include "ember/core/memory_format.h"

namespace ember {

class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ScalarType t) : dtype_(t) {}  // NOLINT: implicit like LibTorch
  TensorOptions(TypeMeta t) : dtype_(t.toScalarType()) {}  // NOLINT
  TensorOptions(Device d) : device_(d) {}  // NOLINT
  TensorOptions(DeviceType d) : device_(Device(d)) {}  // NOLINT
  TensorOptions(MemoryFormat f) : memory_format_(f) {}  // NOLINT
  TensorOptions(Layout) : has_layout_(true) {}  // NOLINT

  TensorOptions dtype(std::optional<ScalarType> t) const { auto o = *this; o.dtype_ = t; return o; }
  template <class T>
  TensorOptions dtype() const { return dtype(scalar_type_of<T>); }
  TensorOptions device(std::optional<Device> d) const { auto o = *this; o.device_ = d; return o; }
  TensorOptions device(DeviceType t, DeviceIndex i = -1) const { return device(Device(t, i)); }
  TensorOptions device_index(DeviceIndex i) const { return device(Device(kCUDA, i)); }
  TensorOptions requires_grad(std::optional<bool> r) const { auto o = *this; o.requires_grad_ = r; return o; }
  TensorOptions memory_format(std::optional<MemoryFormat> f) const { auto o = *this; o.memory_format_ = f; return o; }
  TensorOptions layout(std::optional<Layout> l) const { auto o = *this; o.has_layout_ = l.has_value(); return o; }
  TensorOptions pinned_memory(std::optional<bool>) const { return *this; }

  TypeMeta dtype() const { return dtype_ ? TypeMeta(*dtype_) : get_default_dtype(); }
  Device device() const { return device_.value_or(Device(kCPU)); }
  bool requires_grad() const { return requires_grad_.value_or(false); }
  Layout layout() const { return kStrided; }
  std::optional<MemoryFormat> memory_format_opt() const { return memory_format_; }
  bool has_dtype() const { return dtype_.has_value(); }
  bool has_layout() const { return has_layout_; }
  bool has_device() const { return device_.has_value(); }
  bool has_requires_grad() const { return requires_grad_.has_value(); }
  bool has_memory_format() const { return memory_format_.has_value(); }
  std::optional<ScalarType> dtype_opt() const { return dtype_; }
  std::optional<Device> device_opt() const { return device_; }
  std::optional<bool> requires_grad_opt() const { return requires_grad_; }
  // Fills unset fields from `other`.
  TensorOptions merge_in(const TensorOptions& other) const {
    auto o = *this;
    if (!o.dtype_) o.dtype_ = other.dtype_;
    if (!o.device_) o.device_ = other.device_;
    if (!o.requires_grad_) o.requires_grad_ = other.requires_grad_;
    if (!o.memory_format_) o.memory_format_ = other.memory_format_;
    return o;
  }

 private:
  std::optional<ScalarType> dtype_;
  std::optional<Device> device_;
  std::optional<bool> requires_grad_;
  std::optional<MemoryFormat> memory_format_;
  bool has_layout_ = false;  // strided is the only layout
};

inline TensorOptions dtype(ScalarType t) { return TensorOptions().dtype(t); }
template <class T>
TensorOptions dtype() { return TensorOptions().dtype(scalar_type_of<T>); }
inline TensorOptions device(Device d) { return TensorOptions().device(d); }
inline TensorOptions requires_grad(bool r = true) { return TensorOptions().requires_grad(r); }
inline TensorOptions memory_format(MemoryFormat f) { return TensorOptions().memory_format(f); }
inline TensorOptions layout(Layout l) { return TensorOptions().layout(l); }
// As LibTorch prints them: "TensorOptions(dtype=float (default), device=cpu (default), ...)".
std::ostream& operator<<(std::ostream& os, const TensorOptions& o);

}  // namespace ember
