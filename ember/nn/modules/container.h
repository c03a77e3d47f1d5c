// Module containers (LibTorch's torch/nn/modules/container/): ModuleList, ModuleDict,
// Functional, Sequential, ParameterList and ParameterDict.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/nn/any.h"
#include "ember/nn/module.h"

namespace ember::nn {

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

// ---- ParameterList / ParameterDict -------------------------------------------------------
// Parameters keep their requires_grad; list entries are named "0", "1", ... in order.
class ParameterListImpl : public Cloneable<ParameterListImpl> {
 public:
  using Iterator = std::vector<OrderedDict<std::string, Tensor>::Item>::iterator;
  using ConstIterator = std::vector<OrderedDict<std::string, Tensor>::Item>::const_iterator;
  ParameterListImpl() = default;
  template <class... Tensors>
  explicit ParameterListImpl(const Tensors&... params) {
    (append(params), ...);
  }
  void reset() override {}
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void pretty_print(std::ostream& stream) const override;
  void append(const Tensor& param);
  void append(const OrderedDict<std::string, Tensor>::Item& pair) { append(pair.value()); }
  template <class Container>
  void extend(const Container& container) {
    for (const auto& p : container) append(p);
  }
  // Inserts before position `index` (<= size()); later entries move up one name.
  void insert(size_t index, const Tensor& param);
  // Removes and returns the entry at `index`; later entries move down one name.
  Tensor pop(size_t index);
  Tensor& at(size_t index);
  const Tensor& at(size_t index) const;
  Tensor& operator[](size_t index) { return at(index); }
  const Tensor& operator[](size_t index) const { return at(index); }
  size_t size() const noexcept { return parameters_.size(); }
  bool is_empty() const noexcept { return parameters_.is_empty(); }
  Iterator begin() { return parameters_.begin(); }
  Iterator end() { return parameters_.end(); }
  ConstIterator begin() const { return parameters_.begin(); }
  ConstIterator end() const { return parameters_.end(); }
  template <class Container>
  ParameterListImpl& operator+=(const Container& other) {
    extend(other);
    return *this;
  }

 private:
  void rebuild(std::vector<Tensor> params);
};
TORCH_MODULE(ParameterList);

class ParameterDictImpl : public Cloneable<ParameterDictImpl> {
 public:
  using Iterator = std::vector<OrderedDict<std::string, Tensor>::Item>::iterator;
  using ConstIterator = std::vector<OrderedDict<std::string, Tensor>::Item>::const_iterator;
  ParameterDictImpl() = default;
  explicit ParameterDictImpl(const OrderedDict<std::string, Tensor>& params) { update(params); }
  void reset() override {}
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void pretty_print(std::ostream& stream) const override;
  // Adds the parameter, or replaces the one under `key`.
  Tensor& insert(const std::string& key, const Tensor& param);
  Tensor pop(const std::string& key);
  std::vector<std::string> keys() const { return parameters_.keys(); }
  std::vector<Tensor> values() const { return parameters_.values(); }
  Iterator begin() { return parameters_.begin(); }
  Iterator end() { return parameters_.end(); }
  ConstIterator begin() const { return parameters_.begin(); }
  ConstIterator end() const { return parameters_.end(); }
  size_t size() const noexcept { return parameters_.size(); }
  bool empty() const noexcept { return parameters_.is_empty(); }
  void clear() { parameters_.clear(); }
  bool contains(const std::string& key) const noexcept { return parameters_.contains(key); }
  // Inserts or replaces every (key, value) item of `container` (an OrderedDict or a dict's items).
  template <class Container>
  void update(const Container& container) {
    for (const auto& item : container) insert(item.key(), item.value());
  }
  Tensor& get(const std::string& key) { return parameters_[key]; }
  const Tensor& get(const std::string& key) const { return parameters_[key]; }
  Tensor& operator[](const std::string& key) { return parameters_[key]; }
  const Tensor& operator[](const std::string& key) const { return parameters_[key]; }
};
TORCH_MODULE(ParameterDict);

}  // namespace ember::nn
