#include "ember/nn/modules/fold.h"

#include <ostream>

namespace ember::nn {

void UnfoldImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::Unfold(kernel_size=" << IntArrayRef(options.kernel_size())
    << ", dilation=" << IntArrayRef(options.dilation()) << ", padding=" << IntArrayRef(options.padding())
    << ", stride=" << IntArrayRef(options.stride()) << ")";
}
void FoldImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::Fold(output_size=" << IntArrayRef(options.output_size())
    << ", kernel_size=" << IntArrayRef(options.kernel_size()) << ", dilation=" << IntArrayRef(options.dilation())
    << ", padding=" << IntArrayRef(options.padding()) << ", stride=" << IntArrayRef(options.stride()) << ")";
}

}  // namespace ember::nn
