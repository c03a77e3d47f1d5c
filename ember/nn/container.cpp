#include "ember/nn/container.h"

namespace ember::nn {

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

}  // namespace ember::nn
