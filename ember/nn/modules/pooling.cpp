#include "ember/nn/modules/pooling.h"

#include <ostream>
#include <sstream>
#include <string>

#include "ember/nn/detail/format.h"

namespace ember::nn {

// The shared implementations (ember/nn/functional/pooling.h).
using detail::adaptive_avg_pool_nd;
using detail::adaptive_max_pool_nd;
using detail::avg_pool_nd;
using detail::lp_pool_nd;
using detail::max_pool_nd;
using detail::max_unpool_nd;
using detail::resolve_output_size;
using detail::unpool_output_size;

// ---- modules -------------------------------------------------------------------------------

namespace {
using nn::detail::join;
using nn::detail::list;
const char* boolstr(bool b) { return b ? "true" : "false"; }
// Op names for error messages, by spatial rank.
constexpr const char* kMaxPool[] = {"", "max_pool1d", "max_pool2d", "max_pool3d"};
constexpr const char* kAvgPool[] = {"", "avg_pool1d", "avg_pool2d", "avg_pool3d"};
constexpr const char* kAdaptiveMax[] = {"", "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d"};
constexpr const char* kAdaptiveAvg[] = {"", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d"};
constexpr const char* kLPPool[] = {"", "lp_pool1d", "lp_pool2d", "lp_pool3d"};
constexpr const char* kMaxUnpool[] = {"", "max_unpool1d", "max_unpool2d", "max_unpool3d"};
}  // namespace

template <size_t D, class Derived>
void MaxPoolImpl<D, Derived>::pretty_print(std::ostream& s) const {
  s << "torch::nn::MaxPool" << D << "d(kernel_size=" << options.kernel_size() << ", stride=" << options.stride()
    << ", padding=" << options.padding() << ", dilation=" << options.dilation()
    << ", ceil_mode=" << boolstr(options.ceil_mode()) << ")";
}
template <size_t D, class Derived>
Tensor MaxPoolImpl<D, Derived>::forward(const Tensor& input) {
  return std::get<0>(max_pool_nd(input, D, options.kernel_size(), options.stride(), options.padding(),
                                 options.dilation(), options.ceil_mode(), false, kMaxPool[D]));
}
template <size_t D, class Derived>
std::tuple<Tensor, Tensor> MaxPoolImpl<D, Derived>::forward_with_indices(const Tensor& input) {
  return max_pool_nd(input, D, options.kernel_size(), options.stride(), options.padding(), options.dilation(),
                     options.ceil_mode(), true, kMaxPool[D]);
}

template <size_t D, class Derived>
void AvgPoolImpl<D, Derived>::pretty_print(std::ostream& s) const {
  s << "torch::nn::AvgPool" << D << "d(kernel_size=" << options.kernel_size() << ", stride=" << options.stride()
    << ", padding=" << options.padding() << ")";
}
template <size_t D, class Derived>
Tensor AvgPoolImpl<D, Derived>::forward(const Tensor& input) {
  return avg_pool_nd(input, D, options.kernel_size(), options.stride(), options.padding(), options.ceil_mode(),
                     options.count_include_pad(), options.divisor_override(), kAvgPool[D]);
}

template <size_t D, class output_size_t, class Derived>
void AdaptiveMaxPoolImpl<D, output_size_t, Derived>::pretty_print(std::ostream& s) const {
  s << "torch::nn::AdaptiveMaxPool" << D << "d(output_size=";
  if constexpr (std::is_same_v<output_size_t, ExpandingArray<D>>) s << options.output_size();  // "3" in 1-d
  else s << list(options.output_size());
  s << ")";
}
template <size_t D, class output_size_t, class Derived>
Tensor AdaptiveMaxPoolImpl<D, output_size_t, Derived>::forward(const Tensor& input) {
  return std::get<0>(adaptive_max_pool_nd(input, D, resolve_output_size(input, options.output_size()), false,
                                          kAdaptiveMax[D]));
}
template <size_t D, class output_size_t, class Derived>
std::tuple<Tensor, Tensor> AdaptiveMaxPoolImpl<D, output_size_t, Derived>::forward_with_indices(const Tensor& input) {
  return adaptive_max_pool_nd(input, D, resolve_output_size(input, options.output_size()), true, kAdaptiveMax[D]);
}

template <size_t D, class output_size_t, class Derived>
void AdaptiveAvgPoolImpl<D, output_size_t, Derived>::pretty_print(std::ostream& s) const {
  s << "torch::nn::AdaptiveAvgPool" << D << "d(output_size=";
  if constexpr (std::is_same_v<output_size_t, ExpandingArray<D>>) s << options.output_size();  // "3" in 1-d
  else s << list(options.output_size());
  s << ")";
}
template <size_t D, class output_size_t, class Derived>
Tensor AdaptiveAvgPoolImpl<D, output_size_t, Derived>::forward(const Tensor& input) {
  return adaptive_avg_pool_nd(input, D, resolve_output_size(input, options.output_size()), kAdaptiveAvg[D]);
}

template <size_t D, class Derived>
void LPPoolImpl<D, Derived>::pretty_print(std::ostream& s) const {
  s << "torch::nn::LPPool" << D << "d(norm_type=" << options.norm_type() << ", kernel_size=" << options.kernel_size()
    << ", stride=" << options.stride()
    << ", ceil_mode=" << boolstr(options.ceil_mode()) << ")";
}
template <size_t D, class Derived>
Tensor LPPoolImpl<D, Derived>::forward(const Tensor& input) {
  return lp_pool_nd(input, D, options.norm_type(), options.kernel_size(), options.stride(), options.ceil_mode(),
                    kLPPool[D]);
}

template <size_t D, class Derived>
void MaxUnpoolImpl<D, Derived>::pretty_print(std::ostream& s) const {
  s << "torch::nn::MaxUnpool" << D << "d(kernel_size=" << options.kernel_size() << ", stride=" << options.stride()
    << ", padding=" << options.padding() << ")";
}
template <size_t D, class Derived>
Tensor MaxUnpoolImpl<D, Derived>::forward(const Tensor& input, const Tensor& indices,
                                          const std::optional<std::vector<int64_t>>& output_size) {
  return max_unpool_nd(input, indices, D,
                       unpool_output_size(input, options.kernel_size(), options.stride(), options.padding(), output_size),
                       kMaxUnpool[D]);
}

template class MaxPoolImpl<1, MaxPool1dImpl>;
template class MaxPoolImpl<2, MaxPool2dImpl>;
template class MaxPoolImpl<3, MaxPool3dImpl>;
template class AvgPoolImpl<1, AvgPool1dImpl>;
template class AvgPoolImpl<2, AvgPool2dImpl>;
template class AvgPoolImpl<3, AvgPool3dImpl>;
template class AdaptiveMaxPoolImpl<1, ExpandingArray<1>, AdaptiveMaxPool1dImpl>;
template class AdaptiveMaxPoolImpl<2, ExpandingArrayWithOptionalElem<2>, AdaptiveMaxPool2dImpl>;
template class AdaptiveMaxPoolImpl<3, ExpandingArrayWithOptionalElem<3>, AdaptiveMaxPool3dImpl>;
template class AdaptiveAvgPoolImpl<1, ExpandingArray<1>, AdaptiveAvgPool1dImpl>;
template class AdaptiveAvgPoolImpl<2, ExpandingArrayWithOptionalElem<2>, AdaptiveAvgPool2dImpl>;
template class AdaptiveAvgPoolImpl<3, ExpandingArrayWithOptionalElem<3>, AdaptiveAvgPool3dImpl>;
template class LPPoolImpl<1, LPPool1dImpl>;
template class LPPoolImpl<2, LPPool2dImpl>;
template class MaxUnpoolImpl<1, MaxUnpool1dImpl>;
template class MaxUnpoolImpl<2, MaxUnpool2dImpl>;
template class MaxUnpoolImpl<3, MaxUnpool3dImpl>;

// ---- FractionalMaxPool -----------------------------------------------------------------------
template <size_t D, class Derived>
void FractionalMaxPoolImpl<D, Derived>::reset() {
  _random_samples = this->register_buffer("_random_samples", options._random_samples());
  EMBER_CHECK(options.output_size() || options.output_ratio(), "FractionalMaxPool", D,
              "d requires specifying either an output size, or a pooling ratio");
  EMBER_CHECK(!(options.output_size() && options.output_ratio()),
              "only one of output size and output ratio may be specified");
  if (options.output_ratio())
    for (double r : **options.output_ratio())
      EMBER_CHECK(r > 0 && r < 1, "output_ratio must be between 0 and 1 (got ", r, ")");
}
template <size_t D, class Derived>
void FractionalMaxPoolImpl<D, Derived>::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::FractionalMaxPool" << D << "d()";
}
template <size_t D, class Derived>
std::tuple<Tensor, Tensor> FractionalMaxPoolImpl<D, Derived>::forward_with_indices(const Tensor& input) {
  FractionalMaxPoolOptions<D> o = options;
  o._random_samples(_random_samples);
  if constexpr (D == 2) return functional::fractional_max_pool2d_with_indices(input, o);
  else return functional::fractional_max_pool3d_with_indices(input, o);
}
template <size_t D, class Derived>
Tensor FractionalMaxPoolImpl<D, Derived>::forward(const Tensor& input) {
  return std::get<0>(forward_with_indices(input));
}
template class FractionalMaxPoolImpl<2, FractionalMaxPool2dImpl>;
template class FractionalMaxPoolImpl<3, FractionalMaxPool3dImpl>;

}  // namespace ember::nn
