// Module containers (LibTorch's torch/nn/modules/container/): ModuleList and ModuleDict.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

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

}  // namespace ember::nn
