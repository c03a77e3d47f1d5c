#include "ember/nn/module.h"

#include <cxxabi.h>

#include <atomic>
#include <cstdlib>
#include <ostream>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/functions.h"

namespace ember::nn {

std::string detail::demangle(const char* mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  return status == 0 && d ? std::string(d.get()) : std::string(mangled);
}

namespace {
// A module's type name, as LibTorch's name() gives it: the demangled class ("NetImpl",
// "torch::nn::LinearImpl"; ember's built-ins answer with LibTorch's namespace).
std::string module_type_name(const char* mangled) {
  std::string r = detail::demangle(mangled);
  if (r.rfind("ember::nn::", 0) == 0) r = "torch::nn::" + r.substr(11);
  return r;
}

std::string join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}
}  // namespace

Module::Module(std::string name) : name_(std::move(name)) {}
Module::Module() = default;

const std::string& Module::name() const {
  if (name_.empty()) name_ = module_type_name(typeid(*this).name());
  return name_;
}

std::shared_ptr<Module> Module::clone(const std::optional<Device>&) const {
  EMBER_ERROR("clone() has not been implemented for ", name(), ". Subclass torch::nn::Cloneable<", name(),
              "> instead of torch::nn::Module to inherit the ability to clone.");
}

void Module::apply(const std::function<void(Module&)>& fn) {
  fn(*this);
  for (auto& c : children_) c.value()->apply(fn);
}

void Module::apply(const std::function<void(const std::string&, Module&)>& fn, const std::string& name_prefix) {
  fn(name_prefix, *this);
  for (auto& c : children_) c.value()->apply(fn, join(name_prefix, c.key()));
}

void Module::apply(const std::function<void(const Module&)>& fn) const {
  fn(*this);
  for (const auto& c : children_) static_cast<const Module&>(*c.value()).apply(fn);
}
void Module::apply(const std::function<void(const std::string&, const Module&)>& fn,
                   const std::string& name_prefix) const {
  fn(name_prefix, *this);
  for (const auto& c : children_) static_cast<const Module&>(*c.value()).apply(fn, join(name_prefix, c.key()));
}
namespace {
std::shared_ptr<Module> owning_pointer(const Module& m) {
  try {
    return std::const_pointer_cast<Module>(m.shared_from_this());
  } catch (const std::bad_weak_ptr&) {
    EMBER_ERROR("It looks like you attempted to retrieve your top-level module as a shared_ptr, but it is not "
                "stored in a shared_ptr. Use std::make_shared<", m.name(), "> instead of creating your module on "
                "the stack, or alternatively do not try to access your top-level module at all by passing "
                "/*include_self=*/false to modules() or named_modules()");
  }
}
}  // namespace
void Module::apply(const std::function<void(const std::shared_ptr<Module>&)>& fn) const {
  fn(owning_pointer(*this));
  for (const auto& c : children_) static_cast<const Module&>(*c.value()).apply(fn);
}
void Module::apply(const std::function<void(const std::string&, const std::shared_ptr<Module>&)>& fn,
                   const std::string& name_prefix) const {
  fn(name_prefix, owning_pointer(*this));
  for (const auto& c : children_) static_cast<const Module&>(*c.value()).apply(fn, join(name_prefix, c.key()));
}

// Pre-order over this module and its descendants with their dotted names; needs no
// shared_ptr to this module, so it works for modules on the stack.
void Module::walk(const std::string& prefix, const std::function<void(const std::string&, const Module&)>& fn) const {
  fn(prefix, *this);
  for (const auto& c : children_) c.value()->walk(join(prefix, c.key()), fn);
}

struct Module::ForwardHooks {
  std::vector<std::pair<unsigned, ForwardPreHook>> pre;
  std::vector<std::pair<unsigned, ForwardHook>> post;
  // Shared by the copies: a hook registered or removed while the wrapper runs (copy on write)
  // leaves the running wrapper alive, which _call_wrapper's pointer refers to (replacing the
  // wrapper itself from inside its own call is not supported).
  std::shared_ptr<const CallWrapper> wrapper;
  bool empty() const { return pre.empty() && post.empty() && !wrapper; }
};

namespace {
std::atomic<unsigned> g_next_forward_hook{1};

// Copy on write: a hook list being run (a hook registering or removing another) stays intact.
template <class Hooks>
std::shared_ptr<Hooks> copy_of(const std::shared_ptr<Hooks>& hooks) {
  return hooks ? std::make_shared<Hooks>(*hooks) : std::make_shared<Hooks>();
}
template <class List, class Hook>
unsigned append(List& list, Hook hook) {
  const unsigned id = g_next_forward_hook.fetch_add(1);
  list.emplace_back(id, std::move(hook));
  return id;
}
}  // namespace

void Module::set_call_wrapper(CallWrapper wrapper) {
  auto next = copy_of(hooks_);
  next->wrapper = wrapper ? std::make_shared<const CallWrapper>(std::move(wrapper)) : nullptr;
  hooks_ = next->empty() ? nullptr : std::move(next);
}

const Module::CallWrapper* Module::_call_wrapper() const noexcept {
  return hooks_ && hooks_->wrapper ? hooks_->wrapper.get() : nullptr;
}

unsigned Module::register_forward_pre_hook(ForwardPreHook hook) {
  EMBER_CHECK(hook != nullptr, "register_forward_pre_hook: the hook is empty");
  auto next = copy_of(hooks_);
  const unsigned id = append(next->pre, std::move(hook));
  hooks_ = std::move(next);
  return id;
}

unsigned Module::register_forward_hook(ForwardHook hook) {
  EMBER_CHECK(hook != nullptr, "register_forward_hook: the hook is empty");
  auto next = copy_of(hooks_);
  const unsigned id = append(next->post, std::move(hook));
  hooks_ = std::move(next);
  return id;
}

bool Module::remove_forward_hook(unsigned handle) {
  if (!hooks_) return false;
  auto next = copy_of(hooks_);
  const size_t before = next->pre.size() + next->post.size();
  std::erase_if(next->pre, [&](const auto& h) { return h.first == handle; });
  std::erase_if(next->post, [&](const auto& h) { return h.first == handle; });
  if (next->pre.size() + next->post.size() == before) return false;
  hooks_ = next->empty() ? nullptr : std::move(next);
  return true;
}

void Module::_run_forward_pre_hooks() {
  if (!hooks_) return;
  const std::shared_ptr<ForwardHooks> keep = hooks_;  // alive while its hooks run
  for (const auto& [id, hook] : keep->pre) hook(*this);
}

void Module::_run_forward_hooks(const std::vector<Tensor>& outputs) {
  if (!hooks_) return;
  const std::shared_ptr<ForwardHooks> keep = hooks_;
  for (const auto& [id, hook] : keep->post) hook(*this, outputs);
}

std::vector<Tensor> Module::parameters(bool recurse) const { return named_parameters(recurse).values(); }

OrderedDict<std::string, Tensor> Module::named_parameters(bool recurse) const {
  OrderedDict<std::string, Tensor> r("Parameter");
  if (!recurse) {
    for (const auto& p : parameters_)
      if (p.value().defined()) r.insert(p.key(), p.value());
    return r;
  }
  walk("", [&](const std::string& prefix, const Module& m) {
    for (const auto& p : m.parameters_)
      if (p.value().defined()) r.insert(join(prefix, p.key()), p.value());
  });
  return r;
}

std::vector<Tensor> Module::buffers(bool recurse) const { return named_buffers(recurse).values(); }

OrderedDict<std::string, Tensor> Module::named_buffers(bool recurse) const {
  OrderedDict<std::string, Tensor> r("Buffer");
  if (!recurse) {
    for (const auto& b : buffers_)
      if (b.value().defined()) r.insert(b.key(), b.value());
    return r;
  }
  walk("", [&](const std::string& prefix, const Module& m) {
    for (const auto& b : m.buffers_)
      if (b.value().defined()) r.insert(join(prefix, b.key()), b.value());
  });
  return r;
}

std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) const {
  return named_modules("", include_self).values();
}

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_modules(const std::string& name_prefix,
                                                                        bool include_self) const {
  OrderedDict<std::string, std::shared_ptr<Module>> r("Module");
  std::function<void(const std::string&, const std::shared_ptr<Module>&)> visit =
      [&](const std::string& prefix, const std::shared_ptr<Module>& m) {
        for (const auto& c : m->children_) {
          std::string key = join(prefix, c.key());
          if (!r.contains(key)) r.insert(key, c.value());
          visit(key, c.value());
        }
      };
  // shared_from_this needs an owning shared_ptr; a module on the stack has none, and its
  // own entry is then left out.
  std::shared_ptr<Module> self;
  try {
    self = std::const_pointer_cast<Module>(shared_from_this());
  } catch (const std::bad_weak_ptr&) {
    EMBER_CHECK(!include_self, "It looks like you attempted to retrieve your top-level module as a shared_ptr, but "
                "it is not stored in a shared_ptr. Use std::make_shared<", name(), "> instead of creating your "
                "module on the stack, or alternatively do not try to access your top-level module at all by passing "
                "/*include_self=*/false to modules() or named_modules()");
  }
  if (include_self) r.insert(name_prefix, self);
  for (const auto& c : children_) {
    std::string key = join(name_prefix, c.key());
    if (!r.contains(key)) r.insert(key, c.value());
    visit(key, c.value());
  }
  return r;
}

std::vector<std::shared_ptr<Module>> Module::children() const { return children_.values(); }

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_children() const {
  OrderedDict<std::string, std::shared_ptr<Module>> r("Module");
  for (const auto& c : children_) r.insert(c.key(), c.value());
  return r;
}

void Module::train(bool on) {
  is_training_ = on;
  for (auto& c : children_) c.value()->train(on);
}

void Module::apply_to_tensors(const std::function<void(Tensor&)>& fn) {
  for (auto& p : parameters_)
    if (p.value().defined()) fn(p.value());
  for (auto& b : buffers_)
    if (b.value().defined()) fn(b.value());
  for (auto& c : children_) c.value()->apply_to_tensors(fn);
}

namespace detail {
void set_data(Tensor& t, const Tensor& converted) { t.set_data(converted); }

void copy_module_state(const Module& from, Module& to, const std::optional<Device>& device) {
  auto copy_all = [&](const OrderedDict<std::string, Tensor>& src, OrderedDict<std::string, Tensor> dst) {
    for (const auto& t : src) {
      Tensor data = device ? t.value().detach().to(*device) : t.value().detach().clone();
      detail::set_data(dst[t.key()], data);
    }
  };
  copy_all(from.named_parameters(), to.named_parameters());
  copy_all(from.named_buffers(), to.named_buffers());
  to.train(from.is_training());
  auto src = from.modules(false), dst = to.modules(false);
  for (size_t i = 0; i < src.size() && i < dst.size(); ++i) dst[i]->train(src[i]->is_training());
}

}  // namespace detail
using detail::set_data;

void Module::to(Device device, ScalarType dtype, bool non_blocking) {
  autograd::BelowAutogradGuard below;
  apply_to_tensors([&](Tensor& t) {
    ScalarType target = (t.is_floating_point() || t.is_complex()) ? dtype : t.scalar_type();
    set_data(t, t.to(device, target, non_blocking));
  });
}
void Module::to(ScalarType dtype, bool non_blocking) {
  autograd::BelowAutogradGuard below;
  EMBER_CHECK(isFloatingType(dtype) || isComplexType(dtype), "nn.Module.to only accepts floating point or complex "
              "dtypes, but got desired dtype=", dtype);
  apply_to_tensors([&](Tensor& t) {
    if (t.is_floating_point() || t.is_complex()) set_data(t, t.to(dtype, non_blocking));
  });
}
void Module::to(Device device, bool non_blocking) {
  autograd::BelowAutogradGuard below;
  apply_to_tensors([&](Tensor& t) { set_data(t, t.to(device, non_blocking)); });
}

void Module::to(MemoryFormat memory_format) {
  autograd::BelowAutogradGuard below;
  const int64_t rank = memory_format == MemoryFormat::ChannelsLast ? 4 : memory_format == MemoryFormat::ChannelsLast3d ? 5 : -1;
  apply_to_tensors([&](Tensor& t) {
    if (rank < 0 || t.dim() == rank) set_data(t, t.contiguous(memory_format));
  });
}

void Module::zero_grad(bool set_to_none) {
  for (Tensor& p : parameters()) {
    if (!p.grad().defined()) continue;
    if (set_to_none) {
      p.mutable_grad().reset();
    } else {
      autograd::BelowAutogradGuard below;
      p.mutable_grad().zero_();
    }
  }
}

// As LibTorch: the name() ("NetImpl"); each built-in that LibTorch prints otherwise overrides it.
void Module::pretty_print(std::ostream& stream) const { stream << name(); }

std::ostream& operator<<(std::ostream& stream, const Module& module) {
  // name, then children indented, as LibTorch prints
  std::function<void(const Module&, const std::string&)> print = [&](const Module& m, const std::string& indent) {
    m.pretty_print(stream);
    if (m.children().empty()) return;
    stream << "(\n";
    for (const auto& c : m.named_children()) {
      stream << indent << "  (" << c.key() << "): ";
      print(*c.value(), indent + "  ");
      stream << "\n";
    }
    stream << indent << ")";
  };
  print(module, "");
  return stream;
}

Tensor& Module::register_parameter(std::string name, Tensor tensor, bool requires_grad) {
  EMBER_CHECK(!name.empty(), "Parameter name must not be empty");
  EMBER_CHECK(name.find('.') == std::string::npos, "Parameter name must not contain a dot (got \"", name, "\")");
  if (tensor.defined()) {
    // Parameters are leaves of their own (an expression's result is detached).
    if (!tensor.is_leaf()) tensor = tensor.detach();
    tensor.set_requires_grad(requires_grad);
  }
  return parameters_.insert(std::move(name), std::move(tensor));
}

Tensor& Module::register_buffer(std::string name, Tensor tensor) {
  EMBER_CHECK(!name.empty(), "Buffer name must not be empty");
  EMBER_CHECK(name.find('.') == std::string::npos, "Buffer name must not contain a dot (got \"", name, "\")");
  return buffers_.insert(std::move(name), std::move(tensor));
}

void Module::insert_child(std::string name, std::shared_ptr<Module> module) {
  EMBER_CHECK(!name.empty(), "Submodule name must not be empty");
  EMBER_CHECK(name.find('.') == std::string::npos, "Submodule name must not contain a dot (got \"", name, "\")");
  children_.insert(std::move(name), std::move(module));
}

void Module::unregister_module(const std::string& name) {
  EMBER_CHECK(children_.contains(name), "No Module with name `", name, "` is registered");
  children_.erase(name);
}

}  // namespace ember::nn
