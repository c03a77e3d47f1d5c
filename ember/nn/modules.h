// Basic layers (LibTorch's `XImpl` + `TORCH_MODULE(X)` + `XOptions`): Linear, Identity,
// Flatten, Unflatten, Bilinear, the elementwise activations, Functional and Sequential;
// F::linear, F::bilinear and F::relu.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/any.h"
#include "ember/nn/module.h"

namespace ember::nn {

namespace functional {
// input @ weight^T + bias (bias optional), for any number of leading dims.
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias = {});
}  // namespace functional

struct LinearOptions {
  LinearOptions(int64_t in_features, int64_t out_features) : in_features_(in_features), out_features_(out_features) {}
  TORCH_ARG(int64_t, in_features);
  TORCH_ARG(int64_t, out_features);
  TORCH_ARG(bool, bias) = true;
};

// y = x W^T + b; W (out, in) ~ U(-1/sqrt(in), 1/sqrt(in)) (kaiming_uniform_ with a = sqrt(5)),
// b ~ U(-1/sqrt(in), 1/sqrt(in)), as PyTorch.
class LinearImpl : public Cloneable<LinearImpl> {
 public:
  LinearImpl(int64_t in_features, int64_t out_features) : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions& options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  LinearOptions options;
  Tensor weight;
  Tensor bias;
};
TORCH_MODULE(Linear);

class IdentityImpl : public Cloneable<IdentityImpl> {
 public:
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return input; }
};
TORCH_MODULE(Identity);

struct FlattenOptions {
  TORCH_ARG(int64_t, start_dim) = 1;
  TORCH_ARG(int64_t, end_dim) = -1;
};
class FlattenImpl : public Cloneable<FlattenImpl> {
 public:
  explicit FlattenImpl(const FlattenOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  FlattenOptions options;
};
TORCH_MODULE(Flatten);

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

struct ReLUOptions {
  ReLUOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT
  TORCH_ARG(bool, inplace);
};
namespace functional {
using ReLUFuncOptions = ReLUOptions;
// F::relu(x, F::ReLUFuncOptions().inplace(true)); in place through relu_.
Tensor relu(Tensor input, const ReLUFuncOptions& options = {});
}  // namespace functional
class ReLUImpl : public Cloneable<ReLUImpl> {
 public:
  explicit ReLUImpl(const ReLUOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  ReLUOptions options;
};
TORCH_MODULE(ReLU);

class TanhImpl : public Cloneable<TanhImpl> {
 public:
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
};
TORCH_MODULE(Tanh);

class SigmoidImpl : public Cloneable<SigmoidImpl> {
 public:
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
};
TORCH_MODULE(Sigmoid);

// Wraps a function Tensor -> Tensor as a module (LibTorch's nn::Functional).
class FunctionalImpl : public Cloneable<FunctionalImpl> {
 public:
  using Function = std::function<Tensor(Tensor)>;
  explicit FunctionalImpl(Function function) : function_(std::move(function)) {}
  // A plain function: picks `Tensor f(const Tensor&)` out of an overload set (torch::relu).
  explicit FunctionalImpl(Tensor (*function)(const Tensor&)) : function_(function) {}
  template <class F, class Arg, class... Args>
  FunctionalImpl(F f, Arg arg, Args... args)
      : function_([=](Tensor input) { return f(input, arg, args...); }) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input) { return function_(std::move(input)); }
  bool is_serializable() const override { return false; }

 private:
  Function function_;
};
class Functional : public ModuleHolder<FunctionalImpl> {
 public:
  using ModuleHolder<FunctionalImpl>::ModuleHolder;
  using Impl [[maybe_unused]] = FunctionalImpl;
  explicit Functional(Tensor (*function)(const Tensor&))
      : ModuleHolder(std::make_shared<FunctionalImpl>(function)) {}
};

// A module with a Tensor -> Tensor forward, type-erased (LibTorch's AnyModule for the
// single-tensor signature that Sequential chains).
class SequentialImpl : public Cloneable<SequentialImpl> {
 public:
  SequentialImpl() = default;
  template <class... Modules>
  explicit SequentialImpl(Modules&&... modules) {
    (push_back(std::forward<Modules>(modules)), ...);
  }
  // Named modules: Sequential({{"conv", Conv2d(1, 8, 3)}, {"relu", ReLU()}}).
  explicit SequentialImpl(std::initializer_list<NamedAnyModule> named_modules) {
    for (const NamedAnyModule& m : named_modules) push_back(m.name(), m.module());
  }
  explicit SequentialImpl(OrderedDict<std::string, AnyModule>&& ordered_dict) {
    for (auto& item : ordered_dict) push_back(item.key(), std::move(item.value()));
  }
  void reset() override {}
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void pretty_print(std::ostream& stream) const override;

  template <class M>
  void push_back(std::shared_ptr<M> module) {
    push_back(std::to_string(modules_.size()), std::move(module));
  }
  template <class M>
  void push_back(std::string name, std::shared_ptr<M> module) {
    register_module(name, module);
    modules_.emplace_back(module);
  }
  template <class M>
  void push_back(const ModuleHolder<M>& holder) {
    push_back(holder.ptr());
  }
  template <class M>
  void push_back(std::string name, const ModuleHolder<M>& holder) {
    push_back(std::move(name), holder.ptr());
  }
  // A module given by value (`Sequential(MyModule(1), MyModule(2))`) is moved into a shared one.
  template <class M, std::enable_if_t<std::is_base_of_v<Module, std::decay_t<M>> && !std::is_lvalue_reference_v<M>,
                                      int> = 0>
  void push_back(M&& module) {
    push_back(std::make_shared<std::decay_t<M>>(std::move(module)));
  }
  template <class M, std::enable_if_t<std::is_base_of_v<Module, std::decay_t<M>> && !std::is_lvalue_reference_v<M>,
                                      int> = 0>
  void push_back(std::string name, M&& module) {
    push_back(std::move(name), std::make_shared<std::decay_t<M>>(std::move(module)));
  }
  void push_back(AnyModule module) { push_back(std::to_string(modules_.size()), std::move(module)); }
  void push_back(std::string name, AnyModule module) {
    EMBER_CHECK(!module.is_empty(), "Sequential::push_back: the AnyModule is empty");
    register_module(name, module.ptr());
    modules_.push_back(std::move(module));
  }
  // Appends every module of another Sequential (or any container of modules).
  template <class Container>
  void extend(const Container& container) {
    for (const auto& m : container) push_back(m);
  }

  using Iterator = std::vector<AnyModule>::iterator;
  using ConstIterator = std::vector<AnyModule>::const_iterator;
  Iterator begin() { return modules_.begin(); }
  Iterator end() { return modules_.end(); }
  ConstIterator begin() const { return modules_.begin(); }
  ConstIterator end() const { return modules_.end(); }

  // Runs the modules in order: the first gets `inputs`, each next one the previous output
  // (any types, LibTorch's Sequential::forward<ReturnType>).
  template <class ReturnType = Tensor, class... InputTypes>
  ReturnType forward(InputTypes&&... inputs) {
    EMBER_CHECK(!modules_.empty(), "Cannot call forward() on an empty Sequential");
    AnyValue v = modules_.front().any_forward(std::forward<InputTypes>(inputs)...);
    for (size_t i = 1; i < modules_.size(); ++i) v = modules_[i].any_forward(std::move(v));
    if constexpr (std::is_same_v<ReturnType, AnyValue>) return v;
    else return v.get<ReturnType>();
  }
  size_t size() const { return modules_.size(); }
  bool is_empty() const { return modules_.empty(); }
  std::shared_ptr<Module> ptr(size_t index) const;
  template <class T>
  std::shared_ptr<T> ptr(size_t index) const {
    return std::dynamic_pointer_cast<T>(ptr(index));
  }
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  template <class T>
  T& at(size_t index) {
    auto* m = dynamic_cast<T*>(ptr(index).get());
    EMBER_CHECK(m != nullptr, "Unable to cast module[", index, "] to the requested type");
    return *m;
  }

 private:
  std::vector<AnyModule> modules_;
};
class Sequential : public ModuleHolder<SequentialImpl> {
 public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  using Impl [[maybe_unused]] = SequentialImpl;
  Sequential() : ModuleHolder() {}
  Sequential(std::initializer_list<NamedAnyModule> named_modules)  // NOLINT: LibTorch's implicit form
      : ModuleHolder(std::make_shared<SequentialImpl>(named_modules)) {}
};

}  // namespace ember::nn
