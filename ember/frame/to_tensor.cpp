#include "ember/frame/to_tensor.h"

#include <cstring>

#include "ember/core/error.h"
#include "ember/frame/detail/physical.h"
#include "ember/ops/functions.h"

namespace ember::frame {

namespace {

std::optional<TypeId> column_type_of(ScalarType s) {
  switch (s) {
    case kBool: return TypeId::Bool;
    case kByte: return TypeId::UInt8;
    case kChar: return TypeId::Int8;
    case kShort: return TypeId::Int16;
    case kInt: return TypeId::Int32;
    case kLong: return TypeId::Int64;
    case kFloat: return TypeId::Float32;
    case kDouble: return TypeId::Float64;
    default: return std::nullopt;
  }
}

// The tensor dtype a column converts to, and whether its bytes can be shared as they are.
struct TensorKind {
  ScalarType dtype;
  bool shared;
};

TensorKind tensor_kind(const DType& t) {
  switch (t.id()) {
    case TypeId::Bool: return {kBool, false};
    case TypeId::UInt8: return {kByte, true};
    case TypeId::Int8: return {kChar, true};
    case TypeId::Int16: return {kShort, true};
    case TypeId::Int32:
    case TypeId::Date32: return {kInt, true};
    case TypeId::Int64:
    case TypeId::Timestamp: return {kLong, true};
    case TypeId::Float32: return {kFloat, true};
    case TypeId::Float64: return {kDouble, true};
    case TypeId::UInt16: return {kInt, false};
    case TypeId::UInt32: return {kLong, false};
    default:
      EMBER_CHECK_TYPE(false, "to_tensor: a column of type ", t.to_string(),
                       " has no tensor form (numeric, boolean, date32 and timestamp columns do)");
  }
  return {kBool, false};
}

// The column's values as a fresh tensor; null slots hold 0.
Tensor copy_values(const Column& c, ScalarType dt) {
  const ArrayData& a = *c.data();
  const int64_t n = a.length;
  Tensor out = ember::zeros({n}, TensorOptions().dtype(dt));
  if (a.type.id() == TypeId::Bool) {
    bool* dst = out.data_ptr<bool>();
    const uint8_t* bits = a.buffers[1].data();
    for (int64_t i = 0; i < n; ++i) dst[i] = a.is_valid(i) && bits::get(bits, a.offset + i);
    return out;
  }
  detail::visit_numeric(a.type.id(), [&](auto tag) {
    using S = decltype(tag);
    const S* src = a.buffers[1].data_as<S>() + a.offset;
    auto fill = [&](auto* dst) {
      for (int64_t i = 0; i < n; ++i)
        if (a.is_valid(i)) dst[i] = static_cast<std::remove_pointer_t<decltype(dst)>>(src[i]);
    };
    switch (dt) {
      case kByte: fill(out.data_ptr<uint8_t>()); break;
      case kChar: fill(out.data_ptr<int8_t>()); break;
      case kShort: fill(out.data_ptr<int16_t>()); break;
      case kInt: fill(out.data_ptr<int32_t>()); break;
      case kLong: fill(out.data_ptr<int64_t>()); break;
      case kFloat: fill(out.data_ptr<float>()); break;
      case kDouble: fill(out.data_ptr<double>()); break;
      default: EMBER_ERROR("internal: to_tensor to ", dt);
    }
  });
  return out;
}

Tensor share_values(const Column& c, ScalarType dt) {
  const ArrayData& a = *c.data();
  const int width = a.type.byte_width();
  const uint8_t* p = a.buffers[1].data() + a.offset * width;
  if (reinterpret_cast<uintptr_t>(p) % uintptr_t(width) != 0) return copy_values(c, dt);
  std::shared_ptr<const void> owner = a.buffers[1].owner();
  return ember::from_blob(const_cast<uint8_t*>(p), {a.length}, [owner](void*) {}, TensorOptions().dtype(dt));
}

}  // namespace

Column from_tensor(const Tensor& t) {
  EMBER_CHECK(t.defined(), "from_tensor: undefined tensor");
  EMBER_CHECK(t.is_cpu(), "from_tensor: the tensor is on ", t.device(), "; columns live in CPU memory (use .cpu())");
  EMBER_CHECK(t.dim() == 1, "from_tensor: expected a 1-d tensor, got ", t.dim(), " dimensions");
  const std::optional<TypeId> id = column_type_of(t.scalar_type());
  EMBER_CHECK_TYPE(id.has_value(), "from_tensor: tensors of dtype ", t.scalar_type(),
                   " have no column type (bool, uint8, int8/16/32/64, float32 and float64 do)");
  const DType type(*id);
  Tensor src = t.detach();
  if (!src.is_contiguous()) src = src.contiguous();
  const int64_t n = src.numel();
  if (*id == TypeId::Bool) {
    BitmapBuilder bits;
    const bool* p = src.data_ptr<bool>();
    for (int64_t i = 0; i < n; ++i) bits.append(p[i]);
    return Column::from_data_unchecked(ArrayData::make(type, n, {Buffer(), bits.finish()}, {}, 0));
  }
  // The buffer shares the tensor's memory and holds a reference to its storage.
  auto owner = std::make_shared<Tensor>(src);
  Buffer values = Buffer::wrap(src.data_ptr(), n * int64_t(src.itemsize()), owner);
  return Column::from_data_unchecked(ArrayData::make(type, n, {Buffer(), std::move(values)}, {}, 0));
}

Tensor to_tensor(const Column& c) {
  const TensorKind k = tensor_kind(c.dtype());
  EMBER_CHECK(c.null_count() == 0, "to_tensor: the ", c.dtype().to_string(), " column has ", c.null_count(),
              " nulls; use to_tensor_with_mask, or fill the nulls first");
  return k.shared ? share_values(c, k.dtype) : copy_values(c, k.dtype);
}

MaskedTensor to_tensor_with_mask(const Column& c) {
  const TensorKind k = tensor_kind(c.dtype());
  const int64_t n = c.size();
  if (c.null_count() == 0)
    return {k.shared ? share_values(c, k.dtype) : copy_values(c, k.dtype), ember::ones({n}, TensorOptions().dtype(kBool))};
  Tensor mask = ember::empty({n}, TensorOptions().dtype(kBool));
  bool* m = mask.data_ptr<bool>();
  for (int64_t i = 0; i < n; ++i) m[i] = c.data()->is_valid(i);
  return {copy_values(c, k.dtype), mask};
}

}  // namespace ember::frame
