#include "ember/nn/extra.h"

#include <cmath>
#include <ostream>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/init.h"
#include "ember/ops/autocast.h"
#include "ember/ops/functions.h"

namespace ember::nn {

namespace functional {
Tensor elu(const Tensor& input, double alpha, double scale, double input_scale) {
  return ::ember::elu(input, alpha, scale, input_scale);
}
Tensor celu(const Tensor& input, double alpha) { return ::ember::celu(input, alpha); }
Tensor hardshrink(const Tensor& input, double lambda) { return ::ember::hardshrink(input, lambda); }
Tensor softshrink(const Tensor& input, double lambda) { return ::ember::softshrink(input, lambda); }
Tensor hardtanh(const Tensor& input, double min_val, double max_val) {
  return ::ember::hardtanh(input, min_val, max_val);
}
Tensor softplus(const Tensor& input, double beta, double threshold) {
  return ::ember::softplus(input, beta, threshold);
}
Tensor softsign(const Tensor& input) { return input.div(input.abs().add(1)); }

Tensor logsigmoid(const Tensor& input) {
  // min(x, 0) - log1p(exp(-|x|)), with -|x| taken through `where` so that the derivative at 0
  // is sigmoid(-0) = 1/2 (as PyTorch's log_sigmoid_backward) rather than a subgradient.
  Tensor neg = input.lt(0);
  return where(neg, input, zeros_like(input)).sub(where(neg, input, input.neg()).exp().log1p());
}
Tensor tanhshrink(const Tensor& input) { return input.sub(input.tanh()); }
Tensor softmin(const Tensor& input, int64_t dim, std::optional<Dtype> dtype) {
  return ::ember::softmax(input.neg(), dim, dtype);
}
Tensor glu(const Tensor& input, int64_t dim) {
  EMBER_CHECK(input.dim() > 0, "glu does not support scalars because halving size must be even");
  const int64_t d = dim < 0 ? dim + input.dim() : dim, n = input.size(d);
  EMBER_CHECK(n % 2 == 0, "Halving dimension must be even, but dimension ", d, " is size ", n);
  return input.narrow(d, 0, n / 2).mul(input.narrow(d, n / 2, n / 2).sigmoid());
}

Tensor prelu(const Tensor& input, const Tensor& weight) { return ember::prelu(input, weight); }

Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias) {
  EMBER_CHECK(weight.dim() == 3 && input1.size(-1) == weight.size(1) && input2.size(-1) == weight.size(2),
              "bilinear: inputs of shapes ", input1.sizes(), " and ", input2.sizes(), " do not match weight of shape ",
              weight.sizes());
  // leading dims flattened: out[b, o] = sum_ij x1[b, i] W[o, i, j] x2[b, j]
  Tensor a = input1.reshape({-1, input1.size(-1)}), b = input2.reshape({-1, input2.size(-1)});
  Tensor out = einsum("bi,oij,bj->bo", {a, weight, b});
  DimVector shape(input1.sizes().slice(0, size_t(input1.dim() - 1)));
  shape.push_back(weight.size(0));
  out = out.view(shape);
  return bias.defined() ? out.add(bias) : out;
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  int64_t d = -1;
  return linalg::vector_norm(x1.sub(x2).add(eps), p, IntArrayRef(&d, 1), keepdim);
}
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, const PairwiseDistanceFuncOptions& options) {
  return functional::pairwise_distance(x1, x2, options.p(), options.eps(), options.keepdim());
}

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  int64_t d = dim;
  Tensor n1 = linalg::vector_norm(x1, 2, IntArrayRef(&d, 1)), n2 = linalg::vector_norm(x2, 2, IntArrayRef(&d, 1));
  return x1.mul(x2).sum(dim).div(n1.mul(n2).clamp_min(eps));
}
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, const CosineSimilarityFuncOptions& options) {
  return functional::cosine_similarity(x1, x2, options.dim(), options.eps());
}

Tensor pdist(const Tensor& input, double p) { return ember::pdist(input, p); }

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                           Reduction reduction) {
  EMBER_AUTOCAST(AutocastPolicy::Float32, margin_ranking_loss(_ac[0], _ac[1], _ac[2], margin, reduction), &input1, &input2, &target);
  return apply_reduction(target.neg().mul(input1.sub(input2)).add(margin).clamp_min(0), reduction);
}

Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin, Reduction reduction) {
  EMBER_AUTOCAST(AutocastPolicy::Float32, hinge_embedding_loss(_ac[0], _ac[1], margin, reduction), &input, &target);
  // PyTorch's composition: the margin term unless target == 1, the input unless target == -1
  Tensor neg = input.neg().add(margin).clamp_min(0);
  Tensor loss = where(target.ne(1), neg, zeros_like(neg)).add(where(target.ne(-1), input, zeros_like(input)));
  return apply_reduction(loss, reduction);
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                             Reduction reduction) {
  EMBER_AUTOCAST(AutocastPolicy::Float32, cosine_embedding_loss(_ac[0], _ac[1], _ac[2], margin, reduction), &input1, &input2, &target);
  Tensor cos = cosine_similarity(input1, input2, -1, 1e-8);
  Tensor loss = where(target.eq(1), cos.neg().add(1), cos.sub(margin).clamp_min(0));
  return apply_reduction(loss, reduction);
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin,
                           double p, double eps, bool swap, Reduction reduction) {
  EMBER_AUTOCAST(AutocastPolicy::Float32, triplet_margin_loss(_ac[0], _ac[1], _ac[2], margin, p, eps, swap, reduction), &anchor, &positive, &negative);
  Tensor dp = pairwise_distance(anchor, positive, p, eps), dn = pairwise_distance(anchor, negative, p, eps);
  if (swap) dn = minimum(dn, pairwise_distance(positive, negative, p, eps));
  return apply_reduction(dp.sub(dn).add(margin).clamp_min(0), reduction);
}

// ---- options forms ------------------------------------------------------------------------------
Tensor relu6(Tensor input, const ReLU6FuncOptions& options) {
  return options.inplace() ? ::ember::relu6_(input) : ::ember::relu6(input);
}
Tensor selu(Tensor input, const SELUFuncOptions& options) {
  return options.inplace() ? ::ember::selu_(input) : ::ember::selu(input);
}
Tensor elu(Tensor input, const ELUFuncOptions& options) {
  return options.inplace() ? ::ember::elu_(input, options.alpha()) : ::ember::elu(input, options.alpha());
}
Tensor celu(Tensor input, const CELUFuncOptions& options) {
  if (!options.inplace()) return ::ember::celu(input, options.alpha());
  // celu(x, a) = elu(x, a, 1, 1 / a), as ember::celu computes it
  EMBER_CHECK(options.alpha() != 0, "celu: ZeroDivisionError: alpha must not be 0");
  return ::ember::elu_(input, options.alpha(), 1, 1.0 / options.alpha());
}
Tensor rrelu(Tensor input, const RReLUFuncOptions& options) {
  const double lower = options.lower(), upper = options.upper();
  EMBER_CHECK(lower <= upper, "rrelu: lower bound must be less than or equal to upper bound, got ", lower, " and ",
              upper);
  if (!options.training()) {
    const double slope = (lower + upper) / 2;
    return options.inplace() ? ::ember::leaky_relu_(input, slope) : ::ember::leaky_relu(input, slope);
  }
  // x where x > 0, else x * a with a ~ U(lower, upper) drawn per element (the gradient is a there)
  Tensor factor;
  {
    NoGradGuard g;
    Tensor slopes = empty(input.sizes(), input.options().requires_grad(false)).uniform_(lower, upper);
    factor = where(input.gt(0), ones_like(slopes), slopes);
  }
  if (options.inplace()) return input.mul_(factor);
  return input.mul(factor);
}
Tensor hardtanh(Tensor input, const HardtanhFuncOptions& options) {
  return options.inplace() ? ::ember::hardtanh_(input, options.min_val(), options.max_val())
                           : ::ember::hardtanh(input, options.min_val(), options.max_val());
}
Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options) {
  return ::ember::hardshrink(input, options.lambda());
}
Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options) {
  return ::ember::softshrink(input, options.lambda());
}
Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options) {
  return ::ember::softplus(input, options.beta(), options.threshold());
}
Tensor threshold(Tensor input, const ThresholdFuncOptions& options) {
  if (!options.inplace()) return ::ember::threshold(input, options.threshold(), options.value());
  Tensor mask;
  {
    NoGradGuard g;
    mask = input.le(options.threshold());  // threshold's rule: x <= threshold -> value
  }
  return input.masked_fill_(mask, options.value());
}
Tensor glu(const Tensor& input, const GLUFuncOptions& options) { return functional::glu(input, options.dim()); }
Tensor softmin(const Tensor& input, const SoftminFuncOptions& options) {
  return functional::softmin(input, options.dim(), options.dtype());
}
Tensor gumbel_softmax(const Tensor& logits, const GumbelSoftmaxFuncOptions& options) {
  Tensor gumbels;
  {
    NoGradGuard g;
    // -log(E), E ~ Exp(1), is Gumbel(0, 1)
    gumbels = empty_like(logits, logits.options().requires_grad(false), MemoryFormat::Contiguous)
                  .exponential_()
                  .log()
                  .neg();
  }
  const int64_t dim = options.dim();
  Tensor soft = ::ember::softmax(logits.add(gumbels).div(options.tau()), dim);
  if (!options.hard()) return soft;
  Tensor index = std::get<1>(soft.max(dim, /*keepdim=*/true));
  Tensor hard = zeros_like(soft, soft.options().requires_grad(false)).scatter(dim, index, 1.0);
  return hard.sub(soft.detach()).add(soft);  // straight-through
}

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossFuncOptions& options) {
  return functional::margin_ranking_loss(input1, input2, target, options.margin(), options.reduction());
}
Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, const HingeEmbeddingLossFuncOptions& options) {
  return functional::hinge_embedding_loss(input, target, options.margin(), options.reduction());
}
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossFuncOptions& options) {
  return functional::cosine_embedding_loss(input1, input2, target, options.margin(), options.reduction());
}
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossFuncOptions& options) {
  return functional::triplet_margin_loss(anchor, positive, negative, options.margin(), options.p(), options.eps(),
                                         options.swap(), options.reduction());
}
Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                         const TripletMarginWithDistanceLossFuncOptions& options) {
  EMBER_CHECK(options.margin() > 0, "triplet_margin_with_distance_loss: expected margin to be greater than 0, got ",
              options.margin(), " instead");
  const auto& fn = options.distance_function();
  const auto distance = [&](const Tensor& a, const Tensor& b) {
    return fn ? (*fn)(a, b) : functional::pairwise_distance(a, b, PairwiseDistanceFuncOptions());
  };
  Tensor dp = distance(anchor, positive), dn = distance(anchor, negative);
  if (options.swap()) dn = minimum(dn, distance(positive, negative));
  return apply_reduction(dp.sub(dn).add(options.margin()).clamp_min(0), options.reduction());
}
}  // namespace functional

Tensor ELUImpl::forward(Tensor input) { return functional::elu(std::move(input), options); }
Tensor CELUImpl::forward(Tensor input) { return functional::celu(std::move(input), options); }
Tensor HardtanhImpl::forward(Tensor input) { return functional::hardtanh(std::move(input), options); }
Tensor SoftplusImpl::forward(const Tensor& input) { return functional::softplus(input, options); }
Tensor ThresholdImpl::forward(Tensor input) { return functional::threshold(std::move(input), options); }
Tensor ReLU6Impl::forward(Tensor input) { return functional::relu6(std::move(input), options); }
Tensor SELUImpl::forward(Tensor input) { return functional::selu(std::move(input), options); }
RReLUImpl::RReLUImpl(const RReLUOptions& options_) : options(options_) { reset(); }
void RReLUImpl::reset() {
  EMBER_CHECK(options.lower() <= options.upper(), "RReLU: lower bound must be less than or equal to upper bound");
}
Tensor RReLUImpl::forward(Tensor input) {
  return functional::rrelu(std::move(input), functional::RReLUFuncOptions()
                                                 .lower(options.lower())
                                                 .upper(options.upper())
                                                 .training(is_training())
                                                 .inplace(options.inplace()));
}
Tensor MishImpl::forward(const Tensor& input) { return mish(input); }
Tensor HardswishImpl::forward(const Tensor& input) { return hardswish(input); }
Tensor HardsigmoidImpl::forward(const Tensor& input) { return hardsigmoid(input); }
Tensor SoftsignImpl::forward(const Tensor& input) { return functional::softsign(input); }
Tensor PReLUImpl::forward(const Tensor& input) { return functional::prelu(input, weight); }
Tensor LogSigmoidImpl::forward(const Tensor& input) { return functional::logsigmoid(input); }
Tensor TanhshrinkImpl::forward(const Tensor& input) { return functional::tanhshrink(input); }
Tensor Softmax2dImpl::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, "Softmax2d: expected input to be 3D or 4D, got ", input.dim(),
              "D instead");
  return softmax(input, -3);
}
Tensor HardshrinkImpl::forward(const Tensor& input) { return functional::hardshrink(input, options); }
Tensor SoftshrinkImpl::forward(const Tensor& input) { return functional::softshrink(input, options); }
Tensor GLUImpl::forward(const Tensor& input) { return functional::glu(input, options.dim()); }
Tensor SoftminImpl::forward(const Tensor& input) { return functional::softmin(input, options.dim()); }
Tensor UnflattenImpl::forward(const Tensor& input) { return input.unflatten(options.dim(), options.sizes()); }

void ReLU6Impl::pretty_print(std::ostream& s) const {
  s << "torch::nn::ReLU6(" << (options.inplace() ? "inplace=true" : "") << ")";
}
void SELUImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::SELU(" << (options.inplace() ? "inplace=true" : "") << ")";
}
void RReLUImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::RReLU(lower=" << options.lower() << ", upper=" << options.upper();
  if (options.inplace()) s << ", inplace=true";
  s << ")";
}
void MishImpl::pretty_print(std::ostream& s) const { s << "torch::nn::Mish()"; }
void HardswishImpl::pretty_print(std::ostream& s) const { s << "torch::nn::Hardswish()"; }
void HardsigmoidImpl::pretty_print(std::ostream& s) const { s << "torch::nn::Hardsigmoid()"; }
void SoftsignImpl::pretty_print(std::ostream& s) const { s << "torch::nn::Softsign()"; }
void LogSigmoidImpl::pretty_print(std::ostream& s) const { s << "torch::nn::LogSigmoid()"; }
void TanhshrinkImpl::pretty_print(std::ostream& s) const { s << "torch::nn::Tanhshrink()"; }
void Softmax2dImpl::pretty_print(std::ostream& s) const { s << "torch::nn::Softmax2d()"; }
void HardshrinkImpl::pretty_print(std::ostream& s) const { s << "torch::nn::Hardshrink(" << options.lambda() << ")"; }
void SoftshrinkImpl::pretty_print(std::ostream& s) const { s << "torch::nn::Softshrink(" << options.lambda() << ")"; }
void GLUImpl::pretty_print(std::ostream& s) const { s << "torch::nn::GLU(dim=" << options.dim() << ")"; }
void SoftminImpl::pretty_print(std::ostream& s) const { s << "torch::nn::Softmin(dim=" << options.dim() << ")"; }
void ELUImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::ELU(alpha=" << options.alpha() << (options.inplace() ? ", inplace=true" : "") << ")";
}
void CELUImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::CELU(alpha=" << options.alpha() << (options.inplace() ? ", inplace=true" : "") << ")";
}
HardtanhImpl::HardtanhImpl(const HardtanhOptions& options_) : options(options_) { reset(); }
void HardtanhImpl::reset() {
  EMBER_CHECK(options.max_val() > options.min_val(), "max_val must be greater than min_val");
}
void HardtanhImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::Hardtanh(min_val=" << options.min_val() << ", max_val=" << options.max_val()
    << (options.inplace() ? ", inplace=true" : "") << ")";
}
void SoftplusImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::Softplus(beta=" << options.beta() << ", threshold=" << options.threshold() << ")";
}
void ThresholdImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::Threshold(threshold=" << options.threshold() << ", value=" << options.value()
    << (options.inplace() ? ", inplace=true" : "") << ")";
}
PReLUImpl::PReLUImpl(const PReLUOptions& options_) : options(options_) { reset(); }
void PReLUImpl::reset() {
  weight = register_parameter("weight", full({options.num_parameters()}, options.init()));
}
void PReLUImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::PReLU(num_parameters=" << options.num_parameters() << ")";
}

// ---- containers ------------------------------------------------------------------------------
void ModuleListImpl::push_back(std::shared_ptr<Module> module) {
  register_module(std::to_string(modules_.size()), module);
  modules_.push_back(std::move(module));
}
const std::shared_ptr<Module>& ModuleListImpl::ptr(size_t index) const {
  EMBER_CHECK_INDEX(index < modules_.size(), "Index out of range (index ", index, ", size ", modules_.size(), ")");
  return modules_[index];
}
void ModuleListImpl::insert(size_t index, std::shared_ptr<Module> module) {
  EMBER_CHECK_INDEX(index <= modules_.size(), "ModuleList::insert: index ", index, " is out of range (size ",
                    modules_.size(), ")");
  EMBER_CHECK(module != nullptr, "ModuleList::insert: the module is null");
  modules_.insert(modules_.begin() + int64_t(index), std::move(module));
  renumber();
}
// Children are registered as "0", "1", ... in list order.
void ModuleListImpl::renumber() {
  for (const std::string& key : children_.keys()) unregister_module(key);
  for (size_t i = 0; i < modules_.size(); ++i) register_module(std::to_string(i), modules_[i]);
}
std::shared_ptr<Module> ModuleListImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ModuleListImpl>();
  for (const auto& m : modules_) copy->push_back(m->clone(device));
  return copy;
}

ModuleDictImpl::ModuleDictImpl(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules) {
  update(modules);
}
ModuleDictImpl::ModuleDictImpl(const OrderedDict<std::string, std::shared_ptr<Module>>& modules) {
  update(modules);
}
std::shared_ptr<Module> ModuleDictImpl::insert(const std::string& key, std::shared_ptr<Module> module) {
  if (children_.contains(key)) return replace_module(key, std::move(module));
  return register_module(key, std::move(module));
}
void ModuleDictImpl::clear() {
  for (const std::string& key : children_.keys()) unregister_module(key);
}
std::vector<std::pair<std::string, std::shared_ptr<Module>>> ModuleDictImpl::items() const {
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> out;
  for (const auto& item : children_) out.emplace_back(item.key(), item.value());
  return out;
}
std::shared_ptr<Module> ModuleDictImpl::operator[](const std::string& key) const {
  const auto* m = children_.find(key);
  EMBER_CHECK(m != nullptr, "Module '", key, "' is not defined");  // LibTorch's OrderedDict message
  return *m;
}
std::shared_ptr<Module> ModuleDictImpl::pop(const std::string& key) {
  std::shared_ptr<Module> m = (*this)[key];
  unregister_module(key);
  return m;
}
std::shared_ptr<Module> ModuleDictImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ModuleDictImpl>();
  for (const auto& c : children_) copy->insert(c.key(), c.value()->clone(device));
  return copy;
}

void CosineSimilarityImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::CosineSimilarity(dim=" << options.dim() << ", eps=" << options.eps() << ")";
}
Tensor CosineSimilarityImpl::forward(const Tensor& input1, const Tensor& input2) {
  return functional::cosine_similarity(input1, input2, options);
}
void PairwiseDistanceImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::PairwiseDistance(p=" << options.p() << ", eps=" << options.eps()
    << ", keepdim=" << (options.keepdim() ? "true" : "false") << ")";
}
Tensor PairwiseDistanceImpl::forward(const Tensor& input1, const Tensor& input2) {
  return functional::pairwise_distance(input1, input2, options);
}

void UnflattenImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::Unflatten(dim=" << options.dim() << ", unflattened_size={";
  for (size_t i = 0; i < options.sizes().size(); ++i) s << (i ? ", " : "") << options.sizes()[i];
  s << "})";
}

BilinearImpl::BilinearImpl(const BilinearOptions& options_) : options(options_) { reset(); }
void BilinearImpl::reset() {
  weight = register_parameter("weight",
                              empty({options.out_features(), options.in1_features(), options.in2_features()}));
  bias = register_parameter("bias", options.bias() ? empty({options.out_features()}) : Tensor(), options.bias());
  const double bound = 1.0 / std::sqrt(double(options.in1_features()));
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}
void BilinearImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::Bilinear(in1_features=" << options.in1_features() << ", in2_features=" << options.in2_features()
    << ", out_features=" << options.out_features() << ", bias=" << (options.bias() ? "true" : "false") << ")";
}

// ---- margin loss modules ----------------------------------------------------------------------
Tensor MarginRankingLossImpl::forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
  return functional::margin_ranking_loss(input1, input2, target, options.margin(), options.reduction());
}
Tensor HingeEmbeddingLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::hinge_embedding_loss(input, target, options.margin(), options.reduction());
}
Tensor CosineEmbeddingLossImpl::forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
  return functional::cosine_embedding_loss(input1, input2, target, options.margin(), options.reduction());
}
Tensor TripletMarginLossImpl::forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) {
  return functional::triplet_margin_loss(anchor, positive, negative, options.margin(), options.p(), options.eps(),
                                         options.swap(), options.reduction());
}
Tensor TripletMarginWithDistanceLossImpl::forward(const Tensor& anchor, const Tensor& positive,
                                                  const Tensor& negative) {
  return functional::triplet_margin_with_distance_loss(anchor, positive, negative, options);
}

namespace detail {
// The options LibTorch's loss modules print (std::boolalpha for bools, doubles as streamed).
void print_loss_options(std::ostream& s, const HingeEmbeddingLossOptions& o) { s << "(margin=" << o.margin() << ")"; }
void print_loss_options(std::ostream& s, const CosineEmbeddingLossOptions& o) { s << "(margin=" << o.margin() << ")"; }
void print_loss_options(std::ostream& s, const TripletMarginLossOptions& o) {
  s << "(margin=" << o.margin() << ", p=" << o.p() << ", eps=" << o.eps() << ", swap=" << (o.swap() ? "true" : "false")
    << ")";
}
void print_loss_options(std::ostream& s, const TripletMarginWithDistanceLossOptions& o) {
  s << "(margin=" << o.margin() << ", swap=" << (o.swap() ? "true" : "false") << ")";
}
void print_loss_options(std::ostream& s, const MultiMarginLossOptions& o) {
  s << "(p=" << o.p() << ", margin=" << o.margin() << ", weight=" << o.weight()
    << ", reduction=" << enumtype::get_enum_name(o.reduction()) << ")";
}
}  // namespace detail

}  // namespace ember::nn
