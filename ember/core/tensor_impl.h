// TensorImpl: the data of a tensor: storage, offset, sizes, strides (in elements), dtype,
// device, a version counter shared by views, and a slot for autograd metadata.
#pragma once
#include <atomic>
#include <memory>

#include "ember/core/array_ref.h"
#include "ember/core/dtype.h"
#include "ember/core/memory_format.h"
#include "ember/core/storage.h"
#include "ember/core/tracing.h"

namespace ember {

// Counts in-place modifications of a tensor's data; shared by a tensor and all its views
// so that autograd can detect that a saved tensor changed (Note [Version counter]).
struct VersionCounter : intrusive_target {
  std::atomic<uint32_t> version{0};
};

// Filled by the autograd layer; core only owns and destroys it.
struct AutogradMetaInterface {
  virtual ~AutogradMetaInterface() = default;
  virtual bool requires_grad() const = 0;
  virtual void set_requires_grad(bool r) = 0;
};

class TensorImpl : public intrusive_target {
 public:
  TensorImpl(Storage storage, ScalarType dtype, Device device)
      : storage_(std::move(storage)), dtype_(dtype), device_(device) {
    tracing::note_new_impl(this);  // Note [Tracing hooks]
  }
  ~TensorImpl() override;

  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const { return numel_; }
  int64_t storage_offset() const { return storage_offset_; }
  ScalarType dtype() const { return dtype_; }
  Device device() const { return device_; }
  size_t itemsize() const { return element_size(dtype_); }
  const Storage& storage() const { return storage_; }
  Storage& mutable_storage() { return storage_; }

  bool is_contiguous(MemoryFormat f = MemoryFormat::Contiguous) const {
    if (f == MemoryFormat::ChannelsLast) return is_channels_last_contiguous_;
    if (f == MemoryFormat::ChannelsLast3d) return is_channels_last_3d_contiguous_;
    return is_contiguous_;
  }
  bool is_non_overlapping_and_dense() const { return is_non_overlapping_and_dense_; }

  // Pointer to element [0, 0, ...] (storage data + offset); null on meta and for a tensor
  // without elements. A tensor with elements whose storage holds no memory (released under it:
  // a view of an FSDP parameter kept past its reshard) raises instead of giving null, as
  // PyTorch's "data is not allocated yet".
  void* data() const {
    char* base = static_cast<char*>(storage_.data());
    if (base) return base + storage_offset_ * int64_t(itemsize());
    if (numel_ != 0 && !device_.is_meta()) throw_unallocated();
    return nullptr;
  }

  // Sets sizes and strides (recomputing the cached flags). Checks nothing about storage.
  void set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides);
  // Contiguous strides for `sizes` in format f.
  void set_sizes_contiguous(IntArrayRef sizes, MemoryFormat f = MemoryFormat::Contiguous);
  void set_storage_offset(int64_t off) { storage_offset_ = off; }
  void set_storage(Storage s) { storage_ = std::move(s); }
  void set_dtype(ScalarType t) { dtype_ = t; }
  void set_device(Device d) { device_ = d; }  // with set_storage, when the memory moves

  // Python numbers wrapped as 0-dim tensors promote like scalars (result_type).
  bool is_wrapped_number() const { return is_wrapped_number_; }
  void set_wrapped_number(bool w) { is_wrapped_number_ = w; }

  uint32_t version() const {
    return version_counter_ ? version_counter_->version.load(std::memory_order_relaxed) : 0;
  }
  // Every in-place write and out= result bumps the version; an inference tensor may be written
  // only inside InferenceMode (LibTorch's rule).
  void bump_version() {
    if (storage_.is_inference() && !detail::inference_mode_enabled()) [[unlikely]]
      detail::refuse_inference_tensor_update();
    ensure_version_counter()->version.fetch_add(1, std::memory_order_relaxed);
  }
  // A view shares its base's counter.
  void share_version_counter(TensorImpl& base) { version_counter_ = base.ensure_version_counter(); }
  const intrusive_ptr<VersionCounter>& ensure_version_counter() {
    if (!version_counter_) version_counter_ = make_intrusive<VersionCounter>();
    return version_counter_;
  }

  AutogradMetaInterface* autograd_meta() const { return autograd_meta_.get(); }
  void set_autograd_meta(std::unique_ptr<AutogradMetaInterface> m) { autograd_meta_ = std::move(m); }

  // Forward-mode tangents and other per-tensor extensions (set by autograd).
  std::shared_ptr<void>& extra() { return extra_; }

 private:
  [[noreturn]] void throw_unallocated() const;
  void refresh_flags();

  Storage storage_;
  int64_t storage_offset_ = 0;
  DimVector sizes_;
  DimVector strides_;
  int64_t numel_ = 1;
  ScalarType dtype_;
  Device device_;
  bool is_contiguous_ = true;
  bool is_channels_last_contiguous_ = false;
  bool is_channels_last_3d_contiguous_ = false;
  bool is_non_overlapping_and_dense_ = true;
  bool is_wrapped_number_ = false;
  intrusive_ptr<VersionCounter> version_counter_;  // null until first bump or view
  std::unique_ptr<AutogradMetaInterface> autograd_meta_;
  std::shared_ptr<void> extra_;
};

// Helpers on shapes and strides shared by core and ops.
DimVector contiguous_strides(IntArrayRef sizes, MemoryFormat f = MemoryFormat::Contiguous);
bool compute_is_contiguous(IntArrayRef sizes, IntArrayRef strides, MemoryFormat f);
bool compute_non_overlapping_and_dense(IntArrayRef sizes, IntArrayRef strides);
// Product of sizes, checking for int64 overflow and negative sizes (names `op` in errors).
int64_t checked_numel(IntArrayRef sizes, const char* op);
// Wraps a possibly negative dim into [0, ndim); errors name the op.
int64_t maybe_wrap_dim(int64_t dim, int64_t ndim, const char* op = nullptr, bool wrap_scalar = true);

}  // namespace ember
