#include "ember/nn/modules/adaptive_softmax.h"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <set>

#include "ember/nn/init.h"
#include "ember/ops/functions.h"
#include "ember/ops/indexing.h"

namespace ember::nn {

using indexing::None;
using indexing::Slice;

AdaptiveLogSoftmaxWithLossImpl::AdaptiveLogSoftmaxWithLossImpl(AdaptiveLogSoftmaxWithLossOptions options_)
    : options(std::move(options_)) {
  reset();
}

void AdaptiveLogSoftmaxWithLossImpl::reset() {
  const std::vector<int64_t>& c = options.cutoffs();
  EMBER_CHECK(!c.empty() && std::is_sorted(c.begin(), c.end()) && *std::min_element(c.begin(), c.end()) > 0 &&
                  *std::max_element(c.begin(), c.end()) <= options.n_classes() - 1 &&
                  std::set<int64_t>(c.begin(), c.end()).size() == c.size(),
              "cutoffs should be a sequence of unique, positive integers sorted in an increasing order, where each "
              "value is between 1 and n_classes-1");
  EMBER_CHECK(options.div_value() != 0, "div_value should not be equal to 0");
  cutoffs = c;
  cutoffs.push_back(options.n_classes());
  shortlist_size = cutoffs[0];
  n_clusters = int64_t(cutoffs.size()) - 1;
  head_size = shortlist_size + n_clusters;
  head = register_module("head", Linear(LinearOptions(options.in_features(), head_size).bias(options.head_bias())));
  tail = register_module("tail", ModuleList());
  for (int64_t i = 0; i < n_clusters; ++i) {
    const auto hsz = int64_t(std::floor(double(options.in_features()) / std::pow(options.div_value(), double(i + 1))));
    const int64_t osz = cutoffs[size_t(i + 1)] - cutoffs[size_t(i)];
    Sequential projection(Linear(LinearOptions(options.in_features(), hsz).bias(false)),
                          Linear(LinearOptions(hsz, osz).bias(false)));
    tail->push_back(projection);
  }
}

void AdaptiveLogSoftmaxWithLossImpl::reset_parameters() {
  head->reset_parameters();
  for (const auto& m : *tail) {
    auto seq = std::dynamic_pointer_cast<SequentialImpl>(m);
    for (size_t j = 0; j < seq->size(); ++j) seq->ptr<LinearImpl>(j)->reset_parameters();
  }
}

void AdaptiveLogSoftmaxWithLossImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::AdaptiveLogSoftmaxWithLoss";
}

ASMoutput AdaptiveLogSoftmaxWithLossImpl::forward(const Tensor& input_, const Tensor& target_) {
  check_defined(input_, "AdaptiveLogSoftmaxWithLoss", "input");
  check_defined(target_, "AdaptiveLogSoftmaxWithLoss", "target");
  const int64_t targ_dim = target_.dim();
  EMBER_CHECK(targ_dim == 1 || targ_dim == 0, "0D or 1D target tensor expected, multi-target not supported");
  if (targ_dim == 1)
    EMBER_CHECK(input_.dim() == 2, "1D target tensor expects 2D input tensors, but found inputs with size",
                input_.sizes());
  else
    EMBER_CHECK(input_.dim() == 1, "0D target tensor expects 1D input tensors, but found inputs with size",
                input_.sizes());
  const bool batched = targ_dim > 0;
  const Tensor input = batched ? input_ : input_.unsqueeze(0);
  const Tensor target = batched ? target_ : target_.unsqueeze(0);
  int64_t used_rows = 0;
  const int64_t batch_size = target.size(0);
  Tensor output = input.new_zeros({batch_size});
  Tensor gather_inds = target.new_empty({batch_size});
  std::vector<int64_t> bounds = cutoffs;
  bounds.insert(bounds.begin(), 0);
  for (size_t i = 0; i + 1 < bounds.size(); ++i) {
    const int64_t low = bounds[i], high = bounds[i + 1];
    const Tensor mask = target.ge(low).logical_and(target.lt(high));
    const Tensor rows = mask.nonzero().squeeze();
    if (rows.numel() == 0) continue;
    if (i == 0) {
      gather_inds.index_copy_(0, rows, target.index({mask}));
    } else {
      const Tensor relative = target.index({mask}).sub(low);
      const Tensor cluster_output = tail[i - 1]->as<SequentialImpl>()->forward(input.index_select(0, rows));
      gather_inds.index_fill_(0, rows, shortlist_size + int64_t(i) - 1);
      const Tensor local = log_softmax(cluster_output, 1).gather(1, relative.unsqueeze(1));
      output.index_copy_(0, rows, local.squeeze(1));
    }
    used_rows += rows.numel();
  }
  EMBER_CHECK(used_rows == batch_size, "Target values should be in [0, ", options.n_classes() - 1,
              "], but values in range [", target.min().item<double>(), ", ", target.max().item<double>(),
              "] were found. ");
  const Tensor head_logprob = log_softmax(head(input), 1);
  output = output.add(head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze());
  const double loss = output.neg().mean().item<double>();
  if (!batched) output = output.squeeze(0);
  return ASMoutput(output, loss);
}

Tensor AdaptiveLogSoftmaxWithLossImpl::_get_full_log_prob(const Tensor& input, const Tensor& head_output) {
  Tensor out = input.new_empty({head_output.size(0), options.n_classes()});
  const Tensor head_logprob = log_softmax(head_output, 1);
  out.index_put_({Slice(), Slice(None, shortlist_size)}, head_logprob.index({Slice(), Slice(None, shortlist_size)}));
  for (size_t i = 0; i + 1 < cutoffs.size(); ++i) {
    const int64_t start = cutoffs[i], stop = cutoffs[i + 1];
    const Tensor cluster_logprob = log_softmax(tail[i]->as<SequentialImpl>()->forward(input), 1);
    const Tensor logprob = cluster_logprob.add(head_logprob.index({Slice(), shortlist_size + int64_t(i)}).unsqueeze(1));
    out.index_put_({Slice(), Slice(start, stop)}, logprob);
  }
  return out;
}

Tensor AdaptiveLogSoftmaxWithLossImpl::log_prob(const Tensor& input) { return _get_full_log_prob(input, head(input)); }

Tensor AdaptiveLogSoftmaxWithLossImpl::predict(const Tensor& input) {
  const Tensor head_output = head(input);
  Tensor output = head_output.argmax(1);
  const Tensor outside = output.ge(shortlist_size);
  if (!outside.any().item<bool>()) return output;
  if (outside.all().item<bool>()) return _get_full_log_prob(input, head_output).argmax(1);
  const Tensor lp = _get_full_log_prob(input.index({outside}), head_output.index({outside}));
  output.index_put_({outside}, lp.argmax(1));
  return output;
}

void CrossMapLRN2dImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::CrossMapLRN2d(" << options.size() << ", alpha=" << options.alpha()
         << ", beta=" << options.beta() << ", k=" << options.k() << ")";
}

// As LibTorch's CrossMapLRN2d (torch/csrc/api's CrossMapLRN2d function, Lua Torch's recurrence):
// channel 0 sums the squares of the first (size - 1) / 2 + 1 channels; each next channel adds the
// square `pre_pad - 1` ahead and drops the one `pre_pad` behind, except that channel 0 is never
// dropped (LibTorch's own off-by-one, kept so that results match); scale = k + alpha / size * sum.
Tensor CrossMapLRN2dImpl::forward(const Tensor& input) {
  check_defined(input, "CrossMapLRN2d", "input");
  EMBER_CHECK(input.dim() == 4, "CrossMapLRN2d: Input must be 4D, got ", input.dim(), "D");
  const int64_t channels = input.size(1), pre_pad = (options.size() - 1) / 2 + 1;
  const Tensor sq = input.square();
  std::vector<Tensor> scale;
  scale.reserve(size_t(channels));
  scale.push_back(sq.narrow(1, 0, std::min(pre_pad, channels)).sum(1));
  for (int64_t c = 1; c < channels; ++c) {
    Tensor cur = scale.back();
    if (c < channels - pre_pad + 1) cur = cur.add(sq.select(1, c + pre_pad - 1));
    if (c > pre_pad) cur = cur.sub(sq.select(1, c - pre_pad));
    scale.push_back(cur);
  }
  const Tensor s = stack(scale, 1).mul(options.alpha() / double(options.size())).add(double(options.k()));
  return s.pow(-options.beta()).mul(input);
}

}  // namespace ember::nn
