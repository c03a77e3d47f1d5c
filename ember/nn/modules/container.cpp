#include "ember/nn/modules/container.h"

#include <ostream>

#include "ember/ops/functions.h"

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

void FunctionalImpl::pretty_print(std::ostream& stream) const { stream << "torch::nn::Functional()"; }

// ---- Sequential ---------------------------------------------------------------------------------
std::shared_ptr<Module> SequentialImpl::ptr(size_t index) const {
  EMBER_CHECK_INDEX(index < modules_.size(), "Index out of range (index ", index, ", size ", modules_.size(), ")");
  return modules_[index].ptr();
}

std::shared_ptr<Module> SequentialImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<SequentialImpl>();
  for (size_t i = 0; i < modules_.size(); ++i) {
    std::shared_ptr<Module> fresh = modules_[i].ptr()->clone(device);
    copy->register_module(children_.items()[i].key(), fresh);
    copy->modules_.push_back(modules_[i].clone_module(fresh));
  }
  return copy;
}

void SequentialImpl::pretty_print(std::ostream& stream) const { stream << "torch::nn::Sequential"; }

// ---- ParameterList / ParameterDict -------------------------------------------------------

namespace {
void print_parameters(std::ostream& s, const char* name, const OrderedDict<std::string, Tensor>& params) {
  s << "torch::nn::" << name << "(\n";
  for (const auto& p : params)
    s << "(" << p.key() << "): Parameter containing: [" << p.value().scalar_type() << " of size " << p.value().sizes()
      << "]\n";
  s << ")";
}
Tensor copy_parameter(const Tensor& p, const std::optional<Device>& device) {
  if (!p.defined()) return p;
  Tensor c = device ? p.detach().to(*device) : p.detach().clone();
  c.set_requires_grad(p.requires_grad());
  return c;
}
}  // namespace

void ParameterListImpl::append(const Tensor& param) {
  register_parameter(std::to_string(parameters_.size()), param, param.defined() && param.requires_grad());
}
void ParameterListImpl::rebuild(std::vector<Tensor> params) {
  parameters_.clear();
  for (const Tensor& p : params) append(p);
}
void ParameterListImpl::insert(size_t index, const Tensor& param) {
  EMBER_CHECK_INDEX(index <= size(), "ParameterList::insert: index ", index, " is out of range for size ", size());
  std::vector<Tensor> v = parameters_.values();
  v.insert(v.begin() + int64_t(index), param);
  rebuild(std::move(v));
}
Tensor ParameterListImpl::pop(size_t index) {
  EMBER_CHECK_INDEX(index < size(), "ParameterList::pop: index ", index, " is out of range for size ", size());
  std::vector<Tensor> v = parameters_.values();
  Tensor r = v[index];
  v.erase(v.begin() + int64_t(index));
  rebuild(std::move(v));
  return r;
}
Tensor& ParameterListImpl::at(size_t index) {
  EMBER_CHECK_INDEX(index < size(), "Index out of range");
  return parameters_[index].value();
}
const Tensor& ParameterListImpl::at(size_t index) const {
  EMBER_CHECK_INDEX(index < size(), "Index out of range");
  return parameters_.items()[index].value();
}
std::shared_ptr<Module> ParameterListImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ParameterListImpl>();
  for (const auto& p : parameters_) copy->append(copy_parameter(p.value(), device));
  return copy;
}
void ParameterListImpl::pretty_print(std::ostream& s) const { print_parameters(s, "ParameterList", parameters_); }

Tensor& ParameterDictImpl::insert(const std::string& key, const Tensor& param) {
  if (!parameters_.contains(key)) return register_parameter(key, param, param.defined() && param.requires_grad());
  return parameters_[key] = param.is_leaf() ? param : param.detach();
}
Tensor ParameterDictImpl::pop(const std::string& key) {
  Tensor v = parameters_[key];
  parameters_.erase(key);
  return v;
}
std::shared_ptr<Module> ParameterDictImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ParameterDictImpl>();
  for (const auto& p : parameters_) copy->insert(p.key(), copy_parameter(p.value(), device));
  return copy;
}
void ParameterDictImpl::pretty_print(std::ostream& s) const { print_parameters(s, "ParameterDict", parameters_); }

}  // namespace ember::nn
