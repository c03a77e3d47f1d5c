// nn::Module with LibTorch's C++ frontend semantics: parameters, buffers and submodules
// registered by name, recursive traversal in registration order, train/eval, zero_grad,
// to(device/dtype), apply, pretty printing, and deep clones through Cloneable<T>.
// ModuleHolder<Impl> and TORCH_MODULE(Name) give the `Linear` / `LinearImpl` pairs.
#pragma once
#include <functional>
#include <optional>
#include <iosfwd>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/arg.h"
#include "ember/core/tensor.h"
#include "ember/nn/expanding_array.h"
#include "ember/nn/ordered_dict.h"

namespace ember::serialize {
class OutputArchive;
class InputArchive;
}  // namespace ember::serialize

namespace ember::nn {

class Module;
template <class Contained>
class ModuleHolder;

class Module : public std::enable_shared_from_this<Module> {
 public:
  explicit Module(std::string name);
  Module();
  virtual ~Module() = default;
  Module(const Module&) = default;
  Module& operator=(const Module&) = default;

  // The module's type name ("torch::nn::Linear" style for built-ins, the demangled class
  // name otherwise).
  const std::string& name() const;

  // Deep copy (parameters and buffers cloned, submodules cloned). Modules that are not
  // Cloneable<T> raise an error, as in LibTorch.
  virtual std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const;

  void apply(const std::function<void(Module&)>& fn);
  void apply(const std::function<void(const Module&)>& fn) const;
  void apply(const std::function<void(const std::string&, Module&)>& fn, const std::string& name_prefix = "");
  void apply(const std::function<void(const std::string&, const Module&)>& fn,
             const std::string& name_prefix = "") const;
  // The module pointers (this module must be owned by a shared_ptr, as a ModuleHolder's is).
  void apply(const std::function<void(const std::shared_ptr<Module>&)>& fn) const;
  void apply(const std::function<void(const std::string&, const std::shared_ptr<Module>&)>& fn,
             const std::string& name_prefix = "") const;

  std::vector<Tensor> parameters(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_buffers(bool recurse = true) const;
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true) const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_modules(const std::string& name_prefix = "",
                                                                  bool include_self = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_children() const;

  virtual void train(bool on = true);
  void eval() { train(false); }
  virtual bool is_training() const noexcept { return is_training_; }

  // Moves/casts every parameter and buffer in place (the tensors' identities stay, so
  // optimizers holding them keep working). Only floating parameters change dtype.
  virtual void to(Device device, ScalarType dtype, bool non_blocking = false);
  virtual void to(ScalarType dtype, bool non_blocking = false);
  virtual void to(Device device, bool non_blocking = false);
  // PyTorch's module.to(memory_format=...): 4-D (ChannelsLast) or 5-D (ChannelsLast3d)
  // parameters and buffers take the layout (Contiguous: all of them); others are unchanged.
  virtual void to(MemoryFormat memory_format);

  // set_to_none: gradients become undefined; else (the default, as LibTorch 1.13) zeroed.
  virtual void zero_grad(bool set_to_none = false);

  template <class ModuleType>
  typename ModuleType::ContainedType* as() noexcept {
    return dynamic_cast<typename ModuleType::ContainedType*>(this);
  }
  template <class ModuleType, class = std::enable_if_t<std::is_base_of_v<Module, ModuleType>>>
  ModuleType* as() noexcept {
    return dynamic_cast<ModuleType*>(this);
  }
  template <class ModuleType>
  const typename ModuleType::ContainedType* as() const noexcept {
    return dynamic_cast<const typename ModuleType::ContainedType*>(this);
  }
  template <class ModuleType, class = std::enable_if_t<std::is_base_of_v<Module, ModuleType>>>
  const ModuleType* as() const noexcept {
    return dynamic_cast<const ModuleType*>(this);
  }

  virtual void pretty_print(std::ostream& stream) const;
  virtual bool is_serializable() const { return true; }

  // Parameters and buffers under their state_dict names ("0.weight", "fc1.bias"); load
  // copies into the existing tensors (in place: optimizers keep working) and raises an
  // error naming the tensor when one is missing or has another shape. ember/serialize.
  virtual void save(serialize::OutputArchive& archive) const;
  virtual void load(serialize::InputArchive& archive);

  // PyTorch's module forward hooks (register_forward_pre_hook / register_forward_hook). They run
  // when the module is called: through its holder (`linear(x)`) or an AnyModule / Sequential; a
  // direct `impl->forward(x)` skips them, as `module.forward(x)` does in PyTorch. A forward hook
  // sees the output's tensors (a Tensor, or those of a tuple, pair or vector). Hooks run in
  // registration order; a copy of the module (clone) keeps them, as a deepcopy does in PyTorch.
  using ForwardPreHook = std::function<void(Module&)>;
  using ForwardHook = std::function<void(Module&, const std::vector<Tensor>& outputs)>;
  unsigned register_forward_pre_hook(ForwardPreHook hook);
  unsigned register_forward_hook(ForwardHook hook);
  // Removes the hook with that handle (either kind); false when there is none.
  bool remove_forward_hook(unsigned handle);
  // Runs the module's calls through `wrapper(run, inputs)`, which must return run(inputs) or an
  // equivalent (activation checkpointing wraps modules so). Only calls whose arguments are all
  // tensors and whose forward returns a Tensor are wrapped; it runs between the pre-hooks and
  // the forward hooks. An empty wrapper removes it.
  using CallWrapper = std::function<std::vector<Tensor>(
      const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& run, const std::vector<Tensor>& inputs)>;
  void set_call_wrapper(CallWrapper wrapper);
  const CallWrapper* _call_wrapper() const noexcept;
  // True when the module has hooks or a call wrapper (the calling paths check this first).
  bool has_forward_hooks() const noexcept { return hooks_ != nullptr; }
  // Called by the module-calling paths (ModuleHolder::operator(), AnyModule).
  void _run_forward_pre_hooks();
  void _run_forward_hooks(const std::vector<Tensor>& outputs);

  Tensor& register_parameter(std::string name, Tensor tensor, bool requires_grad = true);
  Tensor& register_buffer(std::string name, Tensor tensor);
  template <class ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name, std::shared_ptr<ModuleType> module) {
    insert_child(std::move(name), module);
    return module;
  }
  template <class ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name, ModuleHolder<ModuleType> holder) {
    return register_module(std::move(name), holder.ptr());
  }
  template <class ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name, std::shared_ptr<ModuleType> module) {
    EMBER_CHECK(children_.contains(name), "No Module with name `", name, "` is registered");
    children_[name] = module;
    return module;
  }
  template <class ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name, ModuleHolder<ModuleType> holder) {
    return replace_module(name, holder.ptr());
  }
  void unregister_module(const std::string& name);

 protected:
  // Direct members (for Cloneable and subclasses).
  OrderedDict<std::string, Tensor> parameters_{"Parameter"};
  OrderedDict<std::string, Tensor> buffers_{"Buffer"};
  OrderedDict<std::string, std::shared_ptr<Module>> children_{"Submodule"};
  template <class Derived>
  friend class Cloneable;

 private:
  void walk(const std::string& prefix, const std::function<void(const std::string&, const Module&)>& fn) const;
  void insert_child(std::string name, std::shared_ptr<Module> module);
  void apply_to_tensors(const std::function<void(Tensor&)>& fn);

  struct ForwardHooks;
  std::shared_ptr<ForwardHooks> hooks_;  // null while the module has no hooks (the common case)
  mutable std::string name_;
  bool is_training_ = true;
};

std::ostream& operator<<(std::ostream& stream, const Module& module);

namespace detail {
template <class T>
struct is_tuple_like : std::false_type {};
template <class... T>
struct is_tuple_like<std::tuple<T...>> : std::true_type {};
template <class A, class B>
struct is_tuple_like<std::pair<A, B>> : std::true_type {};

// The tensors of a forward's result, for forward hooks.
template <class T>
void collect_tensors(const T& value, std::vector<Tensor>& out) {
  if constexpr (std::is_same_v<T, Tensor>) {
    out.push_back(value);
  } else if constexpr (is_tuple_like<T>::value) {
    std::apply([&](const auto&... e) { (collect_tensors(e, out), ...); }, value);
  } else if constexpr (requires { value.begin(); value.end(); typename T::value_type; }) {
    if constexpr (std::is_same_v<typename T::value_type, Tensor>) out.insert(out.end(), value.begin(), value.end());
  }
}

// m.forward(args...), through the module's call wrapper when it has one and the call has
// only tensor arguments and a Tensor result (Module::set_call_wrapper).
template <class M, class... Args>
decltype(auto) call_maybe_wrapped(M& m, Args&&... args) {
  using R = decltype(m.forward(std::forward<Args>(args)...));
  if constexpr (std::is_same_v<R, Tensor> && sizeof...(Args) > 0 &&
                (std::is_convertible_v<const std::decay_t<Args>&, const Tensor&> && ...) &&
                requires(M& x, const Tensor& t) { x.forward((void(sizeof(Args)), t)...); }) {
    if (const auto* wrapper = m._call_wrapper()) {
      std::shared_ptr<Module> owner = m.weak_from_this().lock();  // alive while a recomputation may call it
      M* self = &m;
      std::function<std::vector<Tensor>(const std::vector<Tensor>&)> run = [self, owner](const std::vector<Tensor>& in) {
        return [&]<size_t... I>(std::index_sequence<I...>) { return std::vector<Tensor>{self->forward(in[I]...)}; }(
            std::index_sequence_for<Args...>{});
      };
      std::vector<Tensor> out = (*wrapper)(run, std::vector<Tensor>{Tensor(args)...});
      EMBER_CHECK(out.size() == 1, "the call wrapper of ", m.name(), " returned ", out.size(), " tensors, expected 1");
      return Tensor(std::move(out[0]));
    }
  }
  return m.forward(std::forward<Args>(args)...);
}

// Calls f() (a module's forward) between the module's pre-hooks and forward hooks.
template <class F>
decltype(auto) call_with_forward_hooks(Module& m, F&& f) {
  m._run_forward_pre_hooks();
  using R = decltype(f());
  if constexpr (std::is_void_v<R>) {
    f();
    m._run_forward_hooks({});
  } else if constexpr (std::is_rvalue_reference_v<R>) {
    R r = f();
    std::vector<Tensor> outs;
    collect_tensors(r, outs);
    m._run_forward_hooks(outs);
    return std::move(r);
  } else {
    decltype(auto) r = f();
    std::vector<Tensor> outs;
    collect_tensors(r, outs);
    m._run_forward_hooks(outs);
    return r;
  }
}

// The readable name of a C++ type (abi::__cxa_demangle).
std::string demangle(const char* mangled);
// Gives t the data (storage, dtype, geometry) of `data` in place: every handle to t sees
// it (LibTorch's Tensor::set_data).
void set_data(Tensor& t, const Tensor& data);
// Copies every parameter and buffer of `from` (recursively, by name) into the same-named
// tensors of `to`, which must have the same structure (Cloneable::clone of children).
void copy_module_state(const Module& from, Module& to, const std::optional<Device>& device);
}  // namespace detail

// Modules with a deep clone(): Derived implements reset() (create and register all
// parameters, buffers and submodules), as in LibTorch.
template <class Derived>
class Cloneable : public Module {
 public:
  using Module::Module;
  virtual void reset() = 0;

  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    auto copy = std::make_shared<Derived>(static_cast<const Derived&>(*this));
    copy->parameters_.clear();
    copy->buffers_.clear();
    copy->children_.clear();
    copy->reset();
    EMBER_CHECK(copy->parameters_.size() == parameters_.size(), "The cloned module does not have the same number of "
                "parameters as the original module after calling reset(). Are you sure you called "
                "register_parameter() inside reset() and not the constructor?");
    for (const auto& p : parameters_) {
      if (!p.value().defined()) continue;
      Tensor& dst = copy->parameters_[p.key()];
      // A copy even when already on `device` (to() alone would return the same storage).
      Tensor data = device ? p.value().detach().to(*device, /*non_blocking=*/false, /*copy=*/true)
                           : p.value().detach().clone();
      detail::set_data(dst, data);  // in place: the module's own handle (e.g. `weight`) sees it
    }
    EMBER_CHECK(copy->buffers_.size() == buffers_.size(), "The cloned module does not have the same number of buffers "
                "as the original module after calling reset(). Are you sure you called register_buffer() inside "
                "reset() and not the constructor?");
    for (const auto& b : buffers_)
      if (b.value().defined())
        detail::set_data(copy->buffers_[b.key()],
                         device ? b.value().to(*device, /*non_blocking=*/false, /*copy=*/true) : b.value().clone());
    EMBER_CHECK(copy->children_.size() == children_.size(), "The cloned module does not have the same number of child "
                "modules as the original module after calling reset(). Are you sure you called register_module() "
                "inside reset() and not the constructor?");
    // Into the children reset() made, in place: member handles (linear1, ...) stay valid.
    for (const auto& c : children_) detail::copy_module_state(*c.value(), *copy->children_[c.key()], device);
    return copy;
  }
};

// A shared handle to a module implementation: `Linear` holds a `LinearImpl`.
template <class Contained>
class ModuleHolder {
 public:
  using ContainedType = Contained;

  // Default-constructs the module when it has a default constructor.
  ModuleHolder() : impl_(default_construct()) {}
  ModuleHolder(std::nullptr_t) : impl_(nullptr) {}  // NOLINT: an empty holder
  template <class Head, class... Tail,
            class = std::enable_if_t<!(std::is_same_v<std::decay_t<Head>, ModuleHolder> ||
                                       std::is_same_v<std::decay_t<Head>, std::nullptr_t> ||
                                       std::is_same_v<std::decay_t<Head>, std::shared_ptr<Contained>>)>>
  explicit ModuleHolder(Head&& head, Tail&&... tail)
      : impl_(std::make_shared<Contained>(std::forward<Head>(head), std::forward<Tail>(tail)...)) {}
  ModuleHolder(std::shared_ptr<Contained> module) : impl_(std::move(module)) {}  // NOLINT

  explicit operator bool() const noexcept { return !is_empty(); }
  Contained* operator->() { return get(); }
  const Contained* operator->() const { return get(); }
  Contained& operator*() { return *get(); }
  const Contained& operator*() const { return *get(); }
  const std::shared_ptr<Contained>& ptr() const {
    EMBER_CHECK(!is_empty(), "Accessing empty ModuleHolder");
    return impl_;
  }
  Contained* get() {
    EMBER_CHECK(!is_empty(), "Accessing empty ModuleHolder");
    return impl_.get();
  }
  const Contained* get() const {
    EMBER_CHECK(!is_empty(), "Accessing empty ModuleHolder");
    return impl_.get();
  }
  bool is_empty() const noexcept { return impl_ == nullptr; }

  template <class... Args>
  decltype(auto) operator()(Args&&... args) {
    Contained* m = get();
    if (!m->has_forward_hooks()) [[likely]] return m->forward(std::forward<Args>(args)...);
    return detail::call_with_forward_hooks(
        *m, [&]() -> decltype(auto) { return detail::call_maybe_wrapped(*m, std::forward<Args>(args)...); });
  }
  template <class Arg>
  decltype(auto) operator[](Arg&& arg) {
    return (*get())[std::forward<Arg>(arg)];
  }

 protected:
  std::shared_ptr<Contained> impl_;

 private:
  static std::shared_ptr<Contained> default_construct() {
    if constexpr (std::is_default_constructible_v<Contained>) return std::make_shared<Contained>();
    else return nullptr;
  }
};

template <class Contained>
std::ostream& operator<<(std::ostream& stream, const ModuleHolder<Contained>& module) {
  return stream << *module;
}

}  // namespace ember::nn

// `TORCH_MODULE(Linear)` declares `class Linear : public ModuleHolder<LinearImpl>`.
#define TORCH_MODULE_IMPL(Name, ImplType)                          \
  class Name : public ::ember::nn::ModuleHolder<ImplType> {        \
   public:                                                         \
    using ::ember::nn::ModuleHolder<ImplType>::ModuleHolder;       \
    using Impl [[maybe_unused]] = ImplType;                        \
  }
#define TORCH_MODULE(Name) TORCH_MODULE_IMPL(Name, Name##Impl)

// Option builders: TORCH_ARG (ember/core/arg.h).

// ExpandingArray: ember/nn/expanding_array.h.
using ::ember::ExpandingArray;

