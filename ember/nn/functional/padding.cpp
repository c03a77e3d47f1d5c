// pad (non-constant modes as index maps on the separable kernel). Error messages are PyTorch
// 1.13's.
#include "ember/nn/functional/padding.h"

#include "ember/nn/resample.h"
#include "ember/ops/autocast.h"
#include "ember/ops/functions.h"

namespace ember {

const char* mode_name(PadMode mode) {
  static const char* const names[] = {"kConstant", "kReflect", "kReplicate", "kCircular"};
  return names[int(mode)];
}

Tensor pad_nd(const Tensor& input, IntArrayRef pad, PadMode mode, double value) {
  const int64_t nd = input.dim(), k = int64_t(pad.size()) / 2;
  EMBER_CHECK(pad.size() % 2 == 0, "Padding length must be divisible by 2");
  EMBER_CHECK(k <= nd, "Padding length too large");
  if (mode == PadMode::Constant) return constant_pad_nd(input, pad, value);
  // Autocast: reflection_pad1d/2d and replication_pad1d/2d/3d, one policy for all five
  // (ember/ops/autocast_list.h, asserted there); PyTorch 1.13 lists neither reflection_pad3d
  // nor circular padding.
  if (mode == PadMode::Replicate || (mode == PadMode::Reflect && k <= 2)) {
    EMBER_AUTOCAST(replication_pad1d, pad_nd(_ac[0], pad, mode, value), &input);
  }
  static const char* const py_names[] = {"constant", "reflect", "replicate", "circular"};
  EMBER_CHECK(value == 0, "Padding mode \"", py_names[int(mode)], "\" doesn't take in value argument");
  if (!(k >= 1 && k <= 3 && (nd == k + 1 || nd == k + 2)))
    EMBER_NOT_IMPLEMENTED("Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
  const bool circular = mode == PadMode::Circular;
  if (circular) {
    EMBER_CHECK(nd == k + 2, "Invalid padding size, expected ", 2 * (nd - 2), " but got ", pad.size());
  } else {
    for (int64_t d = nd == k + 2 ? 1 : 0; d < nd; ++d)
      EMBER_CHECK(input.size(d) != 0, "Expected ", k + 1, "D or ", k + 2, "D (batch mode) tensor with possibly 0 batch "
                  "size and other non-zero dimensions for input, but got: ", input.sizes());
  }
  static const char* const axis[] = {"W", "H", "D"};
  auto plan = std::make_shared<nn::detail::ResamplePlan>();
  plan->name = circular ? "_pad_circular" : std::string(mode == PadMode::Reflect ? "reflection_pad" : "replication_pad") +
                                                std::to_string(k) + "d";
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = nd - 1 - i, l = pad[2 * i], r = pad[2 * i + 1], n = input.size(d), out = n + l + r;
    if (mode == PadMode::Reflect)
      EMBER_CHECK(l < n && r < n, "Argument #", 4 + 2 * i, ": Padding size should be less than the corresponding "
                  "input dimension, but got: padding (", l, ", ", r, ") at dimension ", d, " of input ", input.sizes());
    if (circular) {
      EMBER_CHECK(l <= n && r <= n, "Padding value causes wrapping around more than once.");
      EMBER_CHECK(out >= 0, "Negative padding value is resulting in an empty dimension");
    } else {
      EMBER_CHECK(out >= 1, "input (", axis[i], ": ", n, ") is too small. Calculated output ", axis[i], ": ", out);
    }
    nn::detail::DimMap m{n, out};
    const int64_t c0 = std::max<int64_t>(-l, 0), kept = n - c0 - std::max<int64_t>(-r, 0);  // circular: the cropped span
    for (int64_t o = 0; o < out; ++o) {
      int64_t j = o - l;
      if (mode == PadMode::Reflect) {
        j = j < 0 ? -j : j >= n ? 2 * (n - 1) - j : j;
      } else if (mode == PadMode::Replicate) {
        j = std::clamp<int64_t>(j, 0, n - 1);
      } else {  // circular pads with the (possibly cropped) content
        int64_t q = o - std::max<int64_t>(l, 0);
        q = q < 0 ? q + kept : q >= kept ? q - kept : q;
        EMBER_CHECK(q >= 0 && q < kept, "Padding value causes wrapping around more than once.");
        j = c0 + q;
      }
      m.add(j);
      m.end_row();
    }
    plan->add(d, std::move(m));
  }
  return nn::detail::resample(input, plan);
}

}  // namespace ember

namespace ember::nn {

namespace functional {

Tensor pad(const Tensor& input, const PadFuncOptions& options) {
  return pad_nd(input, options.pad(), options.mode(), options.value());
}

}  // namespace functional

}  // namespace ember::nn
