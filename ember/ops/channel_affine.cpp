#include "ember/ops/channel_affine.h"

#include "ember/ops/functions.h"

namespace ember {

OpDef<ChannelAffineFn> channel_affine_op(OpInfo{.name = "channel_affine", .fusion = FusionClass::Opaque,
                                                .dtypes = kFloatingTypes});

std::optional<Tensor> channel_affine(const Tensor& x, const Tensor& scale, const Tensor& shift) {
  if (x.device().type() != kCPU || x.dim() < 2 || !kFloatingTypes.contains(x.scalar_type())) return std::nullopt;
  const int64_t C = x.size(1);
  if (scale.dim() != 1 || shift.dim() != 1 || scale.numel() != C || shift.numel() != C) return std::nullopt;
  ChannelAffinePlan p;
  p.channels = C;
  int64_t spatial = 1;
  for (int64_t d = 2; d < x.dim(); ++d) spatial *= x.size(d);
  MemoryFormat format;
  if (x.is_contiguous()) {
    format = MemoryFormat::Contiguous;
    p.outer = x.size(0), p.inner = spatial;
  } else if ((x.dim() == 4 && x.is_contiguous(MemoryFormat::ChannelsLast)) ||
             (x.dim() == 5 && x.is_contiguous(MemoryFormat::ChannelsLast3d))) {
    format = x.dim() == 4 ? MemoryFormat::ChannelsLast : MemoryFormat::ChannelsLast3d;
    p.outer = x.size(0) * spatial, p.inner = 1;
  } else {
    return std::nullopt;
  }
  auto kernel = channel_affine_op.kernel(kCPU);
  if (!kernel) return std::nullopt;
  const ScalarType compute = x.scalar_type() == kDouble ? kDouble : kFloat;
  Tensor s = scale.to(compute).contiguous(), t = shift.to(compute).contiguous();
  Tensor y = empty(x.sizes(), x.options(), format);
  p.in = static_cast<const char*>(x.data_ptr());
  p.out = static_cast<char*>(y.data_ptr());
  p.dtype = x.scalar_type();
  p.scale = s.data_ptr();
  p.shift = t.data_ptr();
  if (y.numel() > 0) kernel(p);
  return y;
}

}  // namespace ember
