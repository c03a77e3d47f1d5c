// pixel_shuffle / pixel_unshuffle (reshape, permute). Error messages are PyTorch 1.13's.
#include "ember/nn/functional/pixelshuffle.h"

#include "ember/ops/functions.h"

namespace ember::nn {

namespace functional {

Tensor pixel_shuffle(const Tensor& input, int64_t r) {
  const int64_t nd = input.dim();
  EMBER_CHECK(nd >= 3, "pixel_shuffle expects input to have at least 3 dimensions, but got input with ", nd,
              " dimension(s)");
  EMBER_CHECK(r > 0, "pixel_shuffle expects a positive upscale_factor, but got ", r);
  const int64_t c = input.size(-3), h = input.size(-2), w = input.size(-1);
  EMBER_CHECK(c % (r * r) == 0, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
              "of upscale_factor, but input.size(-3)=", c, " is not divisible by ", r * r);
  std::vector<int64_t> lead(input.sizes().begin(), input.sizes().end() - 3), split = lead, out = lead;
  split.insert(split.end(), {c / (r * r), r, r, h, w});
  out.insert(out.end(), {c / (r * r), h * r, w * r});
  const int64_t b = int64_t(lead.size());
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < b; ++i) perm.push_back(i);
  perm.insert(perm.end(), {b, b + 3, b + 1, b + 4, b + 2});
  Tensor y = input.reshape(split).permute(perm).reshape(out);
  return nd == 4 && input.suggest_memory_format() == MemoryFormat::ChannelsLast ? y.contiguous(MemoryFormat::ChannelsLast)
                                                                                : y;
}

Tensor pixel_unshuffle(const Tensor& input, int64_t r) {
  const int64_t nd = input.dim();
  EMBER_CHECK(nd >= 3, "pixel_unshuffle expects input to have at least 3 dimensions, but got input with ", nd,
              " dimension(s)");
  EMBER_CHECK(r > 0, "pixel_unshuffle expects a positive downscale_factor, but got ", r);
  const int64_t c = input.size(-3), h = input.size(-2), w = input.size(-1);
  EMBER_CHECK(h % r == 0, "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=", h,
              " is not divisible by ", r);
  EMBER_CHECK(w % r == 0, "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=", w,
              " is not divisible by ", r);
  std::vector<int64_t> lead(input.sizes().begin(), input.sizes().end() - 3), split = lead, out = lead;
  split.insert(split.end(), {c, h / r, r, w / r, r});
  out.insert(out.end(), {c * r * r, h / r, w / r});
  const int64_t b = int64_t(lead.size());
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < b; ++i) perm.push_back(i);
  perm.insert(perm.end(), {b, b + 2, b + 4, b + 1, b + 3});
  Tensor y = input.reshape(split).permute(perm).reshape(out);
  return nd == 4 && input.suggest_memory_format() == MemoryFormat::ChannelsLast ? y.contiguous(MemoryFormat::ChannelsLast)
                                                                                : y;
}

}  // namespace functional

}  // namespace ember::nn
