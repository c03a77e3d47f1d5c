// copy_, fill_, conversions (to, clone, contiguous), resize_, item and the Tensor
// metadata helpers that need ops.
#include <cstring>

#include "ember/autograd/autograd_meta.h"
#include "ember/autograd/forward_ad.h"
#include "ember/autograd/record.h"
#include "ember/core/tracing_call.h"
#include "ember/ops/functions.h"
#include "ember/ops/op_def.h"
#include "ember/ops/tensor_iterator.h"
#include "ember/ops/type_promotion.h"

namespace ember {

using IterFn = void (*)(TensorIterator&);
OpDef<IterFn> copy_op(OpInfo{.name = "copy_", .fusion = FusionClass::Pointwise});
OpDef<IterFn> fill_op(OpInfo{.name = "fill_", .fusion = FusionClass::Pointwise});

namespace {
IterFn cpu_kernel_of(const OpDef<IterFn>& op, Device d) {
  IterFn k = op.kernel(d.type());
  EMBER_CHECK(k != nullptr, op.name, ": no kernel for device ", d);
  return k;
}
// Whether dst and src may share memory in a way that a direct copy would read what it
// already overwrote (same storage, different layout).
bool may_overlap(const Tensor& a, const Tensor& b) {
  if (!a.storage().defined() || !b.storage().defined() || !a.is_alias_of(b)) return false;
  if (a.numel() == 0 || b.numel() == 0) return false;
  auto range = [](const Tensor& t) {
    int64_t lo = t.storage_offset(), hi = lo;
    for (int64_t d = 0; d < t.dim(); ++d) hi += (t.size(d) - 1) * t.stride(d);
    return std::pair<int64_t, int64_t>(lo * t.element_size(), (hi + 1) * t.element_size());
  };
  auto [a0, a1] = range(a);
  auto [b0, b1] = range(b);
  return a0 < b1 && b0 < a1;
}
}  // namespace

namespace {
// copy_ when autograd records it: self's old value gets no gradient, src gets grad
// (summed over broadcast dims and cast by the engine). clone/to/contiguous copy through
// here, so they are differentiable too.
Tensor& differentiable_copy(Tensor& self, const Tensor& src, bool non_blocking, autograd::Recording& rec) {
  autograd::check_inplace(self, "copy_");
  {
    autograd::BelowAutogradGuard below;
    copy_(self, src, non_blocking);
  }
  if (rec.reverse()) {
    auto node = rec.make_node("copy_", [](const autograd::VjpCtx& c) {
      return autograd::variable_list{Tensor(), c.needs_input_grad(1) ? c.grad() : Tensor()};
    });
    autograd::rebase_history(self, node);
  }
  if (rec.forward()) {
    Tensor src_t;
    for (uint64_t l : autograd::forward_ad::detail::open_levels()) {
      Tensor ts = autograd::fw_grad(src, l);
      if (!ts.defined() && !autograd::fw_grad(self, l).defined()) continue;
      Tensor tself = autograd::inplace_tangent(self, l);
      autograd::BelowAutogradGuard below;
      if (ts.defined()) tself.copy_(ts.is_complex() && !tself.is_complex() ? real(ts) : ts);
      else tself.zero_();
    }
  }
  return self;
}
}  // namespace

Tensor& copy_(Tensor& self, const Tensor& src, bool non_blocking) {
  EMBER_CHECK(self.defined() && src.defined(), "copy_: undefined tensor");
  if (EMBER_UNLIKELY(self.unsafeGetTensorImpl()->autograd_meta() || src.unsafeGetTensorImpl()->autograd_meta())) {
    autograd::Recording rec({&self, &src});
    if (rec.any() && !self.is_same(src)) return differentiable_copy(self, src, non_blocking, rec);
  }
  if (self.is_same(src)) return self;
  if (self.is_meta() || src.is_meta()) {
    EMBER_CHECK(self.is_meta(), "copy_: cannot copy from a meta tensor (it has no data) into ", self.device());
    infer_size(self.sizes(), src.sizes(), "copy_");
    return self;
  }
  // A 0-dim CPU source is a scalar any device's kernel takes; other sources on another
  // device go through the CUDA backend (ember/ops/cuda/copy_across_devices.cpp).
  if (self.device() != src.device() && !(src.dim() == 0 && src.is_cpu())) {
    using CopyAcrossFn = void (*)(Tensor&, const Tensor&, bool);
    static const auto across = reinterpret_cast<CopyAcrossFn>(lookup_kernel("copy_across_devices", kCUDA));
    EMBER_CHECK(across != nullptr, "copy_: copying from ", src.device(), " to ", self.device(),
                " needs CUDA, and ember was built without it (torch::cuda::is_available() is false)");
    across(self, src, non_blocking);
    self.bump_version();
    return self;
  }
  Tensor s = src;
  if (self.is_alias_of(src) && may_overlap(self, src)) {
    bool identical = self.storage_offset() == src.storage_offset() && self.sizes() == src.sizes() &&
                     self.strides() == src.strides() && self.dtype() == src.dtype();
    if (identical) return self;
    s = src.clone();
  }
  EMBER_CHECK(IntArrayRef(infer_size(self.sizes(), s.sizes(), "copy_")) == self.sizes(), "copy_: source of shape ",
              s.sizes(), " cannot be broadcast to the destination shape ", self.sizes());
  TensorIterator it = TensorIteratorConfig()
                          .set_op_name("copy_")
                          .declare_static_shape(self.sizes())
                          .add_output(self)
                          .add_input(s)
                          .is_inplace(true)
                          .promote_inputs_to_common_dtype(false)
                          .cast_common_dtype_to_outputs(false)
                          .declare_static_output_dtype(self.scalar_type())
                          .build();
  if (it.numel() > 0) cpu_kernel_of(copy_op, self.device())(it);
  self.bump_version();
  return self;
}

Tensor& fill_(Tensor& self, const Scalar& v) {
  check_defined(self, "fill_");
  if (autograd::overwrite_recorded(self, "fill_", [&] { fill_(self, v); })) return self;
  if (self.is_meta() || self.numel() == 0) return self;
  ScalarType t = self.scalar_type();
  check_scalar_fits(v, t);
  // The value as a 0-dim tensor of self's dtype, converted by the copy kernel.
  Tensor val = empty({}, dtype(t));
  {
    Tensor wide = empty({}, dtype(v.type()));
    switch (v.tag()) {
      case Scalar::Tag::Bool: *wide.data_ptr<bool>() = v.toBool(); break;
      case Scalar::Tag::Int: *wide.data_ptr<int64_t>() = v.toLong(); break;
      case Scalar::Tag::Double: *wide.data_ptr<double>() = v.toDouble(); break;
      case Scalar::Tag::Complex: *wide.data_ptr<Complex<double>>() = v.toComplexDouble(); break;
    }
    if (wide.scalar_type() == t) val = wide;
    else {
      TensorIterator cit = TensorIteratorConfig().set_op_name("fill_").add_output(val).add_input(wide)
                               .promote_inputs_to_common_dtype(false).cast_common_dtype_to_outputs(false)
                               .declare_static_output_dtype(t).build();
      cpu_kernel_of(copy_op, Device(kCPU))(cit);
    }
  }
  TensorIterator it = TensorIteratorConfig()
                          .set_op_name("fill_")
                          .declare_static_shape(self.sizes())
                          .add_output(self)
                          .add_input(val)
                          .is_inplace(true)
                          .promote_inputs_to_common_dtype(false)
                          .cast_common_dtype_to_outputs(false)
                          .declare_static_output_dtype(t)
                          .build();
  cpu_kernel_of(fill_op, self.device())(it);
  self.bump_version();
  return self;
}

Tensor& zero_(Tensor& self) {
  check_defined(self, "zero_");
  return fill_(self, 0);
}

namespace {
// Traced ops (Note [Tracing hooks]).
const tracing::TracedOpDef clone_traced{{"clone", tracing::Fusion::Opaque, [](const tracing::TracedOp&, const std::vector<Tensor>& in, const tracing::Attrs& a) -> std::vector<Tensor> {
  const auto f = tracing::optional_int_attr(a, "memory_format", "clone");
  return {clone(in.at(0), f ? std::optional<MemoryFormat>(MemoryFormat(*f)) : std::nullopt)};
}}};
const tracing::TracedOpDef to_copy_traced{{"_to_copy", tracing::Fusion::Opaque, [](const tracing::TracedOp&, const std::vector<Tensor>& in, const tracing::Attrs& a) -> std::vector<Tensor> {
  const auto f = tracing::optional_int_attr(a, "memory_format", "_to_copy");
  const std::optional<Device> dev = tracing::has_attr(a, "device")
      ? std::optional<Device>(Device(tracing::string_attr(a, "device", "_to_copy"))) : std::nullopt;
  return {_to_copy(in.at(0), tracing::optional_dtype_attr(a, "dtype", "_to_copy"), dev,
                   f ? std::optional<MemoryFormat>(MemoryFormat(*f)) : std::nullopt)};
}}};
tracing::Attr optional_format(std::optional<MemoryFormat> f) { return f ? tracing::Attr(Scalar(int64_t(*f))) : tracing::Attr(); }
}  // namespace

Tensor clone(const Tensor& self, std::optional<MemoryFormat> memory_format) {
  if (tracing::active())
    return tracing::traced_call(clone_traced, {self}, {{"memory_format", optional_format(memory_format)}},
                                [&] { return clone(self, memory_format); });
  check_defined(self, "clone");
  Tensor r = empty_like(self, {}, memory_format.value_or(MemoryFormat::Preserve));
  if (!r.is_meta()) r.copy_(self);
  return r;
}

Tensor contiguous(const Tensor& self, MemoryFormat f) {
  EMBER_CHECK(f != MemoryFormat::Preserve, "contiguous: preserve memory format is unsupported by the contiguous operator");
  if (self.is_contiguous(f)) return self;
  return clone(self, f);
}

Tensor _to_copy(const Tensor& self, std::optional<ScalarType> dt, std::optional<Device> dev,
                std::optional<MemoryFormat> f) {
  if (tracing::active())
    return tracing::traced_call(to_copy_traced, {self},
                                {{"dtype", tracing::optional_dtype(dt)},
                                 {"device", dev ? tracing::Attr(dev->str()) : tracing::Attr()},
                                 {"memory_format", optional_format(f)}},
                                [&] { return _to_copy(self, dt, dev, f); });
  TensorOptions o = self.options();
  if (dt) o = o.dtype(*dt);
  if (dev) o = o.device(*dev);
  Tensor r = empty_like(self, o, f.value_or(MemoryFormat::Preserve));
  if (!r.is_meta()) r.copy_(self);
  return r;
}

const Tensor& resize_(const Tensor& self, IntArrayRef size, std::optional<MemoryFormat> f) {
  EMBER_CHECK(!(autograd::GradMode::is_enabled() && autograd::tensor_requires_grad(self)),
              "cannot resize variables that require grad");
  int64_t n = checked_numel(size, "resize_");
  TensorImpl* impl = self.unsafeGetTensorImpl();
  size_t need = size_t(n + impl->storage_offset()) * impl->itemsize();
  if (n > 0) impl->mutable_storage().resize_bytes(need);
  impl->set_sizes_contiguous(size, f.value_or(MemoryFormat::Contiguous));
  return self;
}

Tensor alias(const Tensor& self) {
  auto impl = make_intrusive<TensorImpl>(self.storage(), self.dtype(), self.device());
  impl->set_sizes_and_strides(self.sizes(), self.strides());
  impl->set_storage_offset(self.storage_offset());
  impl->share_version_counter(*self.unsafeGetTensorImpl());
  return Tensor(std::move(impl));
}

// ---- Tensor members defined here ---------------------------------------------------
int64_t Tensor::size(int64_t dim) const { return sizes()[maybe_wrap_dim(dim, this->dim(), "size", false)]; }
int64_t Tensor::stride(int64_t dim) const { return strides()[maybe_wrap_dim(dim, this->dim(), "stride", false)]; }

MemoryFormat Tensor::suggest_memory_format(bool exact) const {
  TensorImpl* impl = unsafeGetTensorImpl();
  if (dim() == 4 && (exact ? impl->is_contiguous(MemoryFormat::ChannelsLast)
                           : !impl->is_contiguous() && strides()[1] == 1 && strides()[0] > strides()[2] &&
                                 strides()[2] >= strides()[3] && strides()[3] >= strides()[1]))
    return MemoryFormat::ChannelsLast;
  if (dim() == 4 && impl->is_contiguous(MemoryFormat::ChannelsLast) && !impl->is_contiguous())
    return MemoryFormat::ChannelsLast;
  if (dim() == 5 && impl->is_contiguous(MemoryFormat::ChannelsLast3d) && !impl->is_contiguous())
    return MemoryFormat::ChannelsLast3d;
  return MemoryFormat::Contiguous;
}

void check_data_ptr_type(const Tensor& t, ScalarType requested) {
  EMBER_CHECK(t.defined(), "data_ptr: called on an undefined tensor");
  EMBER_CHECK_TYPE(t.scalar_type() == requested, "data_ptr: expected scalar type ", t.scalar_type(),
                   " but found ", requested);
  EMBER_CHECK(!t.is_meta(), "data_ptr: meta tensors have no data");
}

void* Tensor::data_ptr() const { return impl_->data(); }

Scalar Tensor::item() const {
  EMBER_CHECK(defined(), "item: called on an undefined tensor");
  EMBER_CHECK(numel() == 1, "item: a Tensor with ", numel(), " elements cannot be converted to Scalar");
  EMBER_CHECK(!is_meta(), "item: meta tensors have no data");
  Tensor t = is_cpu() ? *this : cpu();
  const void* p = t.unsafeGetTensorImpl()->data();
  switch (t.scalar_type()) {
#define EMBER_ITEM_CASE(T, name, k, s) \
    case ScalarType::name: return Scalar(*static_cast<const T*>(p));
    EMBER_FORALL_SCALAR_TYPES(EMBER_ITEM_CASE)
#undef EMBER_ITEM_CASE
    default: break;
  }
  EMBER_ERROR("item: unsupported dtype ", t.scalar_type());
}

Tensor& Tensor::operator=(const Tensor& src) && {
  ember::copy_(*this, src);
  return *this;
}
Tensor& Tensor::operator=(const Scalar& v) && {
  ember::fill_(*this, v);
  return *this;
}

}  // namespace ember
