// More modules: the remaining elementwise activations (ReLU6, ELU, SELU, CELU, RReLU, Mish,
// Hardswish, Hardsigmoid, Hardtanh, Softplus, Softsign, Threshold, PReLU, LogSigmoid,
// Tanhshrink, Hardshrink, Softshrink, Softmin, Softmax2d, GLU), ModuleList, ModuleDict,
// Unflatten, Bilinear, CosineSimilarity, PairwiseDistance, and the margin losses, with
// their functionals in LibTorch's options form (F::elu(x, F::ELUFuncOptions().alpha(2)))
// and the positional one (F::elu(x, 2.0)); see layers.h for how the two coexist.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/nn/layers.h"
#include "ember/nn/loss.h"
#include "ember/nn/module.h"
#include "ember/nn/modules.h"
#include "ember/ops/functions.h"

namespace ember::nn {

namespace functional {
// The tensor ops of the same names (no options in LibTorch's F:: either).
using ember::hardsigmoid;
using ember::hardswish;
using ember::mish;
using ember::sigmoid;
using ember::silu;
using ember::tanh;
using ember::threshold;
// Positional forms of the activations whose options forms follow their modules below.
Tensor elu(const Tensor& input, double alpha, double scale = 1, double input_scale = 1);
Tensor celu(const Tensor& input, double alpha);
Tensor hardshrink(const Tensor& input, double lambda);
Tensor softshrink(const Tensor& input, double lambda);
Tensor hardtanh(const Tensor& input, double min_val, double max_val = 1);
Tensor softplus(const Tensor& input, double beta, double threshold = 20);
Tensor softsign(const Tensor& input);
Tensor logsigmoid(const Tensor& input);
Tensor tanhshrink(const Tensor& input);
Tensor softmin(const Tensor& input, int64_t dim, std::optional<Dtype> dtype = std::nullopt);
// a * sigmoid(b) for the halves a, b of input along dim.
Tensor glu(const Tensor& input, int64_t dim);
Tensor prelu(const Tensor& input, const Tensor& weight);
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias = {});
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps = 1e-6, bool keepdim = false);
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps = 1e-8);
// The p-norm distances between the rows of input (N, M), pairs (i, j) with i < j in row-major
// order: N * (N - 1) / 2 values.
Tensor pdist(const Tensor& input, double p = 2.0);
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                           Reduction reduction = kMean);
Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin, Reduction reduction = kMean);
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                             Reduction reduction = kMean);
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin,
                           double p = 2.0, double eps = 1e-6, bool swap = false, Reduction reduction = kMean);
}  // namespace functional

// Activation modules without options, named as LibTorch prints them.
#define EMBER_ACTIVATION(Name)                                  \
  class Name##Impl : public Cloneable<Name##Impl> {                            \
   public:                                                                     \
    void reset() override {}                                                   \
    void pretty_print(std::ostream& stream) const override;                    \
    Tensor forward(const Tensor& input);                                       \
  };                                                                           \
  TORCH_MODULE(Name)
EMBER_ACTIVATION(Mish);
EMBER_ACTIVATION(Hardswish);
EMBER_ACTIVATION(Hardsigmoid);
EMBER_ACTIVATION(Softsign);
EMBER_ACTIVATION(LogSigmoid);
EMBER_ACTIVATION(Tanhshrink);
EMBER_ACTIVATION(Softmax2d);  // softmax over the channels of (N, C, H, W) / (C, H, W)
#undef EMBER_ACTIVATION

// Activation modules with one option (`Name##Options(value)` converts implicitly, as
// LibTorch's), which is also the functional's options (Name##FuncOptions).
#define EMBER_ACTIVATION_1(Name, T, option, default_value, InputT)                           \
  struct Name##Options {                                                                    \
    Name##Options(T option = default_value) : option##_(option) {}  /* NOLINT */            \
    TORCH_ARG(T, option);                                                                   \
  };                                                                                        \
  namespace functional {                                                                    \
  using Name##FuncOptions = Name##Options;                                                  \
  }                                                                                         \
  class Name##Impl : public Cloneable<Name##Impl> {                                         \
   public:                                                                                  \
    explicit Name##Impl(const Name##Options& options = {}) : options(options) {}            \
    void reset() override {}                                                                \
    void pretty_print(std::ostream& stream) const override;                                 \
    Tensor forward(InputT input);                                                           \
    Name##Options options;                                                                  \
  };                                                                                        \
  TORCH_MODULE(Name)
EMBER_ACTIVATION_1(ReLU6, bool, inplace, false, Tensor);
EMBER_ACTIVATION_1(SELU, bool, inplace, false, Tensor);
EMBER_ACTIVATION_1(Hardshrink, double, lambda, 0.5, const Tensor&);
EMBER_ACTIVATION_1(Softshrink, double, lambda, 0.5, const Tensor&);
EMBER_ACTIVATION_1(GLU, int64_t, dim, -1, const Tensor&);
#undef EMBER_ACTIVATION_1

struct SoftminOptions {
  SoftminOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  TORCH_ARG(int64_t, dim);
};
class SoftminImpl : public Cloneable<SoftminImpl> {
 public:
  explicit SoftminImpl(const SoftminOptions& options) : options(options) {}
  explicit SoftminImpl(int64_t dim) : options(dim) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  SoftminOptions options;
};
TORCH_MODULE(Softmin);

struct ELUOptions {
  TORCH_ARG(double, alpha) = 1.0;
  TORCH_ARG(bool, inplace) = false;
};
class ELUImpl : public Cloneable<ELUImpl> {
 public:
  explicit ELUImpl(const ELUOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  ELUOptions options;
};
TORCH_MODULE(ELU);

struct CELUOptions {
  TORCH_ARG(double, alpha) = 1.0;
  TORCH_ARG(bool, inplace) = false;
};
class CELUImpl : public Cloneable<CELUImpl> {
 public:
  explicit CELUImpl(const CELUOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  CELUOptions options;
};
TORCH_MODULE(CELU);

// Randomized leaky ReLU: in training each negative element gets a slope ~ U(lower, upper),
// in evaluation the slope (lower + upper) / 2.
struct RReLUOptions {
  TORCH_ARG(double, lower) = 1.0 / 8.0;
  TORCH_ARG(double, upper) = 1.0 / 3.0;
  TORCH_ARG(bool, inplace) = false;
};
class RReLUImpl : public Cloneable<RReLUImpl> {
 public:
  explicit RReLUImpl(const RReLUOptions& options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  RReLUOptions options;
};
TORCH_MODULE(RReLU);

struct HardtanhOptions {
  TORCH_ARG(double, min_val) = -1.0;
  TORCH_ARG(double, max_val) = 1.0;
  TORCH_ARG(bool, inplace) = false;
};
class HardtanhImpl : public Cloneable<HardtanhImpl> {
 public:
  explicit HardtanhImpl(const HardtanhOptions& options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  HardtanhOptions options;
};
TORCH_MODULE(Hardtanh);

struct SoftplusOptions {
  TORCH_ARG(double, beta) = 1.0;
  TORCH_ARG(double, threshold) = 20.0;
};
class SoftplusImpl : public Cloneable<SoftplusImpl> {
 public:
  explicit SoftplusImpl(const SoftplusOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  SoftplusOptions options;
};
TORCH_MODULE(Softplus);

struct ThresholdOptions {
  ThresholdOptions(double threshold, double value) : threshold_(threshold), value_(value) {}
  TORCH_ARG(double, threshold);
  TORCH_ARG(double, value);
  TORCH_ARG(bool, inplace) = false;
};
class ThresholdImpl : public Cloneable<ThresholdImpl> {
 public:
  ThresholdImpl(double threshold, double value) : options(threshold, value) {}
  explicit ThresholdImpl(const ThresholdOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  ThresholdOptions options;
};
TORCH_MODULE(Threshold);

struct PReLUOptions {
  TORCH_ARG(int64_t, num_parameters) = 1;
  TORCH_ARG(double, init) = 0.25;
};
class PReLUImpl : public Cloneable<PReLUImpl> {
 public:
  explicit PReLUImpl(const PReLUOptions& options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  PReLUOptions options;
  Tensor weight;
};
TORCH_MODULE(PReLU);

// The activations' options forms (LibTorch's F::f(x, F::FFuncOptions()...)); the inplace
// options use the in-place ops (relu6_, elu_, hardtanh_, ...), which autograd supports.
namespace functional {
using ELUFuncOptions = ELUOptions;
using CELUFuncOptions = CELUOptions;
using HardtanhFuncOptions = HardtanhOptions;
using SoftplusFuncOptions = SoftplusOptions;
using ThresholdFuncOptions = ThresholdOptions;
struct SoftminFuncOptions {
  SoftminFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(std::optional<Dtype>, dtype) = std::nullopt;
};
struct RReLUFuncOptions {
  TORCH_ARG(double, lower) = 1.0 / 8.0;
  TORCH_ARG(double, upper) = 1.0 / 3.0;
  TORCH_ARG(bool, training) = false;
  TORCH_ARG(bool, inplace) = false;
};
// softmax((logits + Gumbel noise) / tau); with hard the one-hot of its argmax, with the
// gradient of the soft sample (straight-through).
struct GumbelSoftmaxFuncOptions {
  TORCH_ARG(double, tau) = 1.0;
  TORCH_ARG(bool, hard) = false;
  TORCH_ARG(int, dim) = -1;
};
Tensor relu6(Tensor input, const ReLU6FuncOptions& options = {});
Tensor selu(Tensor input, const SELUFuncOptions& options = {});
Tensor elu(Tensor input, const ELUFuncOptions& options = {});
Tensor celu(Tensor input, const CELUFuncOptions& options = {});
Tensor rrelu(Tensor input, const RReLUFuncOptions& options = {});
Tensor hardtanh(Tensor input, const HardtanhFuncOptions& options = {});
Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options = {});
Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options = {});
Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options = {});
Tensor threshold(Tensor input, const ThresholdFuncOptions& options);
Tensor glu(const Tensor& input, const GLUFuncOptions& options = {});
Tensor softmin(const Tensor& input, const SoftminFuncOptions& options);
Tensor gumbel_softmax(const Tensor& logits, const GumbelSoftmaxFuncOptions& options = {});
}  // namespace functional

class ModuleListImpl : public Cloneable<ModuleListImpl> {
 public:
  using Iterator = std::vector<std::shared_ptr<Module>>::iterator;
  using ConstIterator = std::vector<std::shared_ptr<Module>>::const_iterator;

  ModuleListImpl() = default;
  template <class... Modules>
  explicit ModuleListImpl(Modules&&... modules) {
    (push_back(std::forward<Modules>(modules)), ...);
  }
  void reset() override {}
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::ModuleList"; }
  void push_back(std::shared_ptr<Module> module);
  template <class M>
  void push_back(const ModuleHolder<M>& holder) {
    push_back(std::static_pointer_cast<Module>(holder.ptr()));
  }
  // A module given by value is moved into a new shared one (`list->push_back(Linear(2, 3))` is
  // the holder form; `push_back(MyModule(2))` this one).
  template <class M, std::enable_if_t<std::is_base_of_v<Module, std::decay_t<M>>, int> = 0>
  void push_back(M&& module) {
    push_back(std::static_pointer_cast<Module>(std::make_shared<std::decay_t<M>>(std::forward<M>(module))));
  }
  // Appends every module of a container (a ModuleList, a Sequential, a vector of modules).
  template <class Container>
  void extend(const Container& container) {
    for (const auto& m : container) push_back(m);
  }
  // Inserts before position `index` (index == size() appends); later modules move up one.
  void insert(size_t index, std::shared_ptr<Module> module);
  template <class M>
  void insert(size_t index, const ModuleHolder<M>& holder) {
    insert(index, std::static_pointer_cast<Module>(holder.ptr()));
  }
  template <class M, std::enable_if_t<std::is_base_of_v<Module, std::decay_t<M>>, int> = 0>
  void insert(size_t index, M&& module) {
    insert(index, std::static_pointer_cast<Module>(std::make_shared<std::decay_t<M>>(std::forward<M>(module))));
  }
  const std::shared_ptr<Module>& ptr(size_t index) const;
  template <class T>
  std::shared_ptr<T> ptr(size_t index) const {
    return std::dynamic_pointer_cast<T>(ptr(index));
  }
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  // The module at `index` as T (an error when it is not one).
  template <class T>
  T& at(size_t index) {
    auto* m = dynamic_cast<T*>(ptr(index).get());
    EMBER_CHECK(m != nullptr, "ModuleList::at: unable to cast module[", index, "] to the requested type");
    return *m;
  }
  template <class T>
  const T& at(size_t index) const {
    const auto* m = dynamic_cast<const T*>(ptr(index).get());
    EMBER_CHECK(m != nullptr, "ModuleList::at: unable to cast module[", index, "] to the requested type");
    return *m;
  }
  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  Iterator begin() { return modules_.begin(); }
  Iterator end() { return modules_.end(); }
  ConstIterator begin() const { return modules_.begin(); }
  ConstIterator end() const { return modules_.end(); }

 private:
  void renumber();
  std::vector<std::shared_ptr<Module>> modules_;
};
TORCH_MODULE(ModuleList);

class ModuleDictImpl : public Cloneable<ModuleDictImpl> {
 public:
  using Iterator = OrderedDict<std::string, std::shared_ptr<Module>>::Iterator;
  using ConstIterator = OrderedDict<std::string, std::shared_ptr<Module>>::ConstIterator;

  ModuleDictImpl() = default;
  explicit ModuleDictImpl(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules);
  explicit ModuleDictImpl(const OrderedDict<std::string, std::shared_ptr<Module>>& modules);
  void reset() override {}
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::ModuleDict"; }
  // Adds `module` under `key`, replacing the module already there (as LibTorch's).
  std::shared_ptr<Module> insert(const std::string& key, std::shared_ptr<Module> module);
  template <class M>
  std::shared_ptr<Module> insert(const std::string& key, const ModuleHolder<M>& holder) {
    return insert(key, std::static_pointer_cast<Module>(holder.ptr()));
  }
  // Inserts every (key, module) of a vector of pairs or an OrderedDict, in order.
  void update(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules) {
    for (const auto& [key, module] : modules) insert(key, module);
  }
  template <class Container>
  void update(const Container& container) {
    for (const auto& item : container) insert(key_of(item), value_of(item));
  }
  std::shared_ptr<Module> operator[](const std::string& key) const;
  template <class T>
  T& at(const std::string& key) {
    auto* m = dynamic_cast<T*>((*this)[key].get());
    EMBER_CHECK(m != nullptr, "ModuleDict::at: unable to cast module['", key, "'] to the requested type");
    return *m;
  }
  template <class T>
  const T& at(const std::string& key) const {
    const auto* m = dynamic_cast<const T*>((*this)[key].get());
    EMBER_CHECK(m != nullptr, "ModuleDict::at: unable to cast module['", key, "'] to the requested type");
    return *m;
  }
  bool contains(const std::string& key) const noexcept { return children_.contains(key); }
  size_t size() const noexcept { return children_.size(); }
  bool empty() const noexcept { return children_.is_empty(); }
  void clear();
  std::vector<std::string> keys() const { return children_.keys(); }
  std::vector<std::shared_ptr<Module>> values() const { return children_.values(); }
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> items() const;
  Iterator begin() { return children_.begin(); }
  Iterator end() { return children_.end(); }
  ConstIterator begin() const { return children_.begin(); }
  ConstIterator end() const { return children_.end(); }
  std::shared_ptr<Module> pop(const std::string& key);

 private:
  template <class Item>
  static std::string key_of(const Item& item) {
    if constexpr (requires { item.key(); }) return item.key();
    else return item.first;
  }
  template <class Item>
  static std::shared_ptr<Module> value_of(const Item& item) {
    if constexpr (requires { item.value(); }) return std::static_pointer_cast<Module>(item.value());
    else return std::static_pointer_cast<Module>(item.second);
  }
};
TORCH_MODULE(ModuleDict);

struct UnflattenOptions {
  UnflattenOptions(int64_t dim, std::vector<int64_t> sizes) : dim_(dim), sizes_(std::move(sizes)) {}
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(std::vector<int64_t>, sizes);
};
class UnflattenImpl : public Cloneable<UnflattenImpl> {
 public:
  UnflattenImpl(int64_t dim, std::vector<int64_t> sizes) : options(dim, std::move(sizes)) {}
  explicit UnflattenImpl(UnflattenOptions options) : options(std::move(options)) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  UnflattenOptions options;
};
TORCH_MODULE(Unflatten);

struct BilinearOptions {
  BilinearOptions(int64_t in1, int64_t in2, int64_t out) : in1_features_(in1), in2_features_(in2), out_features_(out) {}
  TORCH_ARG(int64_t, in1_features);
  TORCH_ARG(int64_t, in2_features);
  TORCH_ARG(int64_t, out_features);
  TORCH_ARG(bool, bias) = true;
};
// y = x1^T W x2 + b; W, b ~ U(-1/sqrt(in1), 1/sqrt(in1)), as PyTorch.
class BilinearImpl : public Cloneable<BilinearImpl> {
 public:
  BilinearImpl(int64_t in1, int64_t in2, int64_t out) : BilinearImpl(BilinearOptions(in1, in2, out)) {}
  explicit BilinearImpl(const BilinearOptions& options);
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input1, const Tensor& input2) {
    return functional::bilinear(input1, input2, weight, bias);
  }
  BilinearOptions options;
  Tensor weight, bias;
};
TORCH_MODULE(Bilinear);

struct CosineSimilarityOptions {
  TORCH_ARG(int64_t, dim) = 1;
  TORCH_ARG(double, eps) = 1e-8;
};
struct PairwiseDistanceOptions {
  TORCH_ARG(double, p) = 2.0;
  TORCH_ARG(double, eps) = 1e-6;
  TORCH_ARG(bool, keepdim) = false;
};
namespace functional {
using CosineSimilarityFuncOptions = CosineSimilarityOptions;
using PairwiseDistanceFuncOptions = PairwiseDistanceOptions;
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, const CosineSimilarityFuncOptions& options = {});
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, const PairwiseDistanceFuncOptions& options = {});
}  // namespace functional
class CosineSimilarityImpl : public Cloneable<CosineSimilarityImpl> {
 public:
  explicit CosineSimilarityImpl(const CosineSimilarityOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input1, const Tensor& input2);
  CosineSimilarityOptions options;
};
TORCH_MODULE(CosineSimilarity);
class PairwiseDistanceImpl : public Cloneable<PairwiseDistanceImpl> {
 public:
  explicit PairwiseDistanceImpl(const PairwiseDistanceOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input1, const Tensor& input2);
  PairwiseDistanceOptions options;
};
TORCH_MODULE(PairwiseDistance);

// The margin losses: options (also the functionals' FuncOptions, as LibTorch's) and modules
// (EMBER_LOSS_MODULE, loss.h).
struct MarginRankingLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  TORCH_ARG(double, margin) = 0;
  TORCH_ARG(Reduction, reduction) = kMean;
};
EMBER_LOSS_MODULE(MarginRankingLoss, const Tensor& input1, const Tensor& input2, const Tensor& target);

struct HingeEmbeddingLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  TORCH_ARG(double, margin) = 1.0;
  TORCH_ARG(Reduction, reduction) = kMean;
};
namespace detail {
void print_loss_options(std::ostream& stream, const HingeEmbeddingLossOptions& o);
}  // namespace detail
EMBER_LOSS_MODULE(HingeEmbeddingLoss, const Tensor& input, const Tensor& target);

struct CosineEmbeddingLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  TORCH_ARG(double, margin) = 0;
  TORCH_ARG(Reduction, reduction) = kMean;
};
namespace detail {
void print_loss_options(std::ostream& stream, const CosineEmbeddingLossOptions& o);
}  // namespace detail
EMBER_LOSS_MODULE(CosineEmbeddingLoss, const Tensor& input1, const Tensor& input2, const Tensor& target);

struct TripletMarginLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  TORCH_ARG(double, margin) = 1.0;
  TORCH_ARG(double, p) = 2.0;
  TORCH_ARG(double, eps) = 1e-6;
  TORCH_ARG(bool, swap) = false;
  TORCH_ARG(Reduction, reduction) = kMean;
};
namespace detail {
void print_loss_options(std::ostream& stream, const TripletMarginLossOptions& o);
}  // namespace detail
EMBER_LOSS_MODULE(TripletMarginLoss, const Tensor& anchor, const Tensor& positive, const Tensor& negative);

// max(0, margin + d(anchor, positive) - d(anchor, negative)) with any distance d (default
// F::pairwise_distance); with swap d(anchor, negative) is min(it, d(positive, negative)).
struct TripletMarginWithDistanceLossOptions {
  typedef std::function<Tensor(const Tensor&, const Tensor&)> distance_function_t;
  using reduction_t = Reduction;
  TORCH_ARG(std::optional<distance_function_t>, distance_function) = std::nullopt;
  TORCH_ARG(double, margin) = 1.0;
  TORCH_ARG(bool, swap) = false;
  TORCH_ARG(Reduction, reduction) = kMean;
};
namespace detail {
void print_loss_options(std::ostream& stream, const TripletMarginWithDistanceLossOptions& o);
}  // namespace detail
EMBER_LOSS_MODULE(TripletMarginWithDistanceLoss, const Tensor& anchor, const Tensor& positive,
                  const Tensor& negative);

namespace functional {
using MarginRankingLossFuncOptions = MarginRankingLossOptions;
using HingeEmbeddingLossFuncOptions = HingeEmbeddingLossOptions;
using CosineEmbeddingLossFuncOptions = CosineEmbeddingLossOptions;
using TripletMarginLossFuncOptions = TripletMarginLossOptions;
using TripletMarginWithDistanceLossFuncOptions = TripletMarginWithDistanceLossOptions;
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossFuncOptions& options = {});
Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target,
                            const HingeEmbeddingLossFuncOptions& options = {});
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossFuncOptions& options = {});
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossFuncOptions& options = {});
Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                         const TripletMarginWithDistanceLossFuncOptions& options = {});
}  // namespace functional

}  // namespace ember::nn
