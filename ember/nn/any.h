// LibTorch's AnyValue and AnyModule: a type-erased value, and a type-erased module whose
// forward() may take any arguments and return any type. Sequential chains AnyModules, so it
// holds modules with any forward signature (LSTM, MultiheadAttention, user modules).
//
//   AnyModule any(torch::nn::Linear(3, 4));
//   Tensor y = any.forward(x);                    // forward<ReturnType = Tensor>(args...)
//   AnyValue v = any.any_forward(x);              // v.get<Tensor>()
//
// Arguments are checked against the module's forward signature (count and types, with a
// clear error). A module whose forward has default arguments declares them, as in LibTorch,
// with FORWARD_HAS_DEFAULT_ARGS({index, AnyValue(default)}, ...) (the first index is the
// number of required arguments); every other argument is required.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/tensor.h"
#include "ember/nn/module.h"

namespace ember::nn {

class AnyValue {
 public:
  template <class T, class = std::enable_if_t<!std::is_same_v<std::decay_t<T>, AnyValue>>>
  explicit AnyValue(T&& value) : holder_(std::make_shared<Holder<std::decay_t<T>>>(std::forward<T>(value))) {}

  // The value when it holds a T, else nullptr.
  template <class T>
  T* try_get() {
    auto* h = dynamic_cast<Holder<std::decay_t<T>>*>(holder_.get());
    return h ? &h->value : nullptr;
  }
  template <class T>
  const T* try_get() const {
    auto* h = dynamic_cast<const Holder<std::decay_t<T>>*>(holder_.get());
    return h ? &h->value : nullptr;
  }
  template <class T>
  T get() const {
    if (const auto* v = try_get<T>()) return *v;
    EMBER_ERROR("Attempted to cast AnyValue to ", detail::demangle(typeid(std::decay_t<T>).name()),
                ", but its actual type is ", detail::demangle(type_info().name()));
  }
  const std::type_info& type_info() const { return holder_->type(); }

 private:
  struct Base {
    virtual ~Base() = default;
    virtual const std::type_info& type() const = 0;
  };
  template <class T>
  struct Holder : Base {
    template <class U>
    explicit Holder(U&& v) : value(std::forward<U>(v)) {}
    const std::type_info& type() const override { return typeid(T); }
    T value;
  };
  std::shared_ptr<Base> holder_;
};

class AnyModule;

// In a module's class body: the defaults of forward()'s trailing arguments, by index.
#define FORWARD_HAS_DEFAULT_ARGS(...)                                                          \
  friend class ::ember::nn::AnyModule;                                                         \
  std::vector<std::pair<unsigned int, ::ember::nn::AnyValue>> _forward_default_args() const {  \
    return {__VA_ARGS__};                                                                      \
  }

class AnyModule {
 public:
  AnyModule() = default;
  template <class M, class = std::enable_if_t<std::is_base_of_v<Module, M>>>
  explicit AnyModule(std::shared_ptr<M> module)
      : module_(module), forward_(with_hooks(module.get(), make_forward(module.get()), returns_tensor<M>())), rebind_([](const std::shared_ptr<Module>& fresh) {
          return AnyModule(std::dynamic_pointer_cast<M>(fresh));
        }) {}
  template <class M>
  explicit AnyModule(const ModuleHolder<M>& holder) : AnyModule(holder.ptr()) {}
  // A module given by value is moved into a new shared one.
  template <class M, std::enable_if_t<std::is_base_of_v<Module, std::decay_t<M>> &&
                                          !std::is_lvalue_reference_v<M>, int> = 0>
  explicit AnyModule(M&& module) : AnyModule(std::make_shared<std::decay_t<M>>(std::move(module))) {}
  template <class M, class = std::enable_if_t<std::is_base_of_v<Module, M>>>
  AnyModule& operator=(std::shared_ptr<M> module) {
    return *this = AnyModule(std::move(module));
  }

  template <class... Args>
  AnyValue any_forward(Args&&... args) const {
    EMBER_CHECK(module_ != nullptr, "Cannot call forward() on an empty AnyModule");
    std::vector<AnyValue> values;
    values.reserve(sizeof...(Args));
    (values.push_back(to_value(std::forward<Args>(args))), ...);
    return forward_(std::move(values));
  }
  template <class Return = Tensor, class... Args>
  Return forward(Args&&... args) const {
    AnyValue v = any_forward(std::forward<Args>(args)...);
    if constexpr (std::is_same_v<Return, AnyValue>) return v;
    else return v.get<Return>();
  }

  const std::shared_ptr<Module>& ptr() const { return module_; }
  template <class M>
  std::shared_ptr<M> ptr() const { return std::dynamic_pointer_cast<M>(module_); }
  bool is_empty() const { return module_ == nullptr; }
  // The module as its own type T (an error when it is another).
  template <class T>
  T& get() {
    auto* m = dynamic_cast<T*>(module_.get());
    EMBER_CHECK(module_ != nullptr, "Cannot call get() on an empty AnyModule");
    EMBER_CHECK(m != nullptr, "Attempted to cast module of type ", detail::demangle(type_info().name()),
                " to type ", detail::demangle(typeid(T).name()));
    return *m;
  }
  template <class T>
  const T& get() const {
    return const_cast<AnyModule*>(this)->get<T>();
  }
  // The dynamic type of the module held.
  const std::type_info& type_info() const {
    EMBER_CHECK(module_ != nullptr, "Cannot call type_info() on an empty AnyModule");
    return typeid(*module_);
  }
  // A deep copy (the module cloned, optionally onto `device`).
  AnyModule clone(std::optional<Device> device = std::nullopt) const {
    EMBER_CHECK(module_ != nullptr, "Cannot call clone() on an empty AnyModule");
    return rebind_(module_->clone(device));
  }
  // The same kind of module bound to `fresh` (a clone of this one).
  AnyModule clone_module(const std::shared_ptr<Module>& fresh) const { return rebind_(fresh); }

 private:
  using Forward = std::function<AnyValue(std::vector<AnyValue>&&)>;

  template <class T>
  static AnyValue to_value(T&& v) {
    if constexpr (std::is_same_v<std::decay_t<T>, AnyValue>) return std::forward<T>(v);
    else return AnyValue(std::forward<T>(v));
  }

  using Defaults = std::vector<std::pair<unsigned int, AnyValue>>;

  template <class M>
  static Defaults defaults_of(M* m) {
    if constexpr (requires { m->_forward_default_args(); }) return m->_forward_default_args();
    else return {};
  }

  // Argument i as the parameter type T (its declared default when the caller passed fewer).
  template <class T>
  static std::decay_t<T> argument(std::vector<AnyValue>& args, const Defaults& defaults, size_t i,
                                  const std::string& module) {
    using D = std::decay_t<T>;
    if (i >= args.size()) {
      for (const auto& [index, value] : defaults)
        if (index == i) return value.template get<D>();
      EMBER_ERROR(module, "'s forward(): argument #", i, " has no default");
    }
    if (D* v = args[i].try_get<D>()) return std::move(*v);
    EMBER_ERROR(module, "'s forward(): expected argument #", i, " to be of type ", detail::demangle(typeid(D).name()),
                ", but received a value of type ", detail::demangle(args[i].type_info().name()));
  }

  // forward declared in M or a base C, const or not.
  template <class M, class Fn, class... P, size_t... I>
  static AnyValue call(M* m, Fn fn, std::vector<AnyValue>& args, const Defaults& defaults,
                       std::index_sequence<I...>) {
    const std::string name = detail::demangle(typeid(M).name());
    using R = decltype((m->*fn)(argument<P>(args, defaults, I, name)...));
    static_assert(!std::is_void_v<R>, "AnyModule: forward() must return a value");
    return AnyValue((m->*fn)(argument<P>(args, defaults, I, name)...));
  }
  template <class M, class Fn, class... P>
  static Forward bind_args(M* m, Fn fn) {
    Defaults defaults = defaults_of(m);
    const size_t required = defaults.empty() ? sizeof...(P) : defaults.front().first;
    return [m, fn, defaults = std::move(defaults), required](std::vector<AnyValue>&& args) {
      const std::string name = detail::demangle(typeid(M).name());
      EMBER_CHECK(args.size() <= sizeof...(P), name, "'s forward() expects at most ", sizeof...(P),
                  " argument(s), but received ", args.size());
      EMBER_CHECK(args.size() >= required, name, "'s forward() requires at least ", required,
                  " argument(s), but received ", args.size());
      return call<M, Fn, P...>(m, fn, args, defaults, std::index_sequence_for<P...>{});
    };
  }
  template <class M, class C, class R, class... P>
  static Forward bind(M* m, R (C::*fn)(P...)) {
    return bind_args<M, R (C::*)(P...), P...>(m, fn);
  }
  template <class M, class C, class R, class... P>
  static Forward bind(M* m, R (C::*fn)(P...) const) {
    return bind_args<M, R (C::*)(P...) const, P...>(m, fn);
  }

  // f(args), through the module's call wrapper when it has one and every argument is a Tensor
  // (Module::set_call_wrapper); the result must then be a Tensor.
  static AnyValue call_maybe_wrapped(Module* m, const Forward& f, bool tensor_result, std::vector<AnyValue>&& args) {
    const auto* wrapper = m->_call_wrapper();
    bool tensors = wrapper != nullptr && tensor_result && !args.empty();
    for (AnyValue& a : args) tensors = tensors && a.try_get<Tensor>() != nullptr;
    if (!tensors) return f(std::move(args));
    std::vector<Tensor> inputs;
    for (AnyValue& a : args) inputs.push_back(*a.try_get<Tensor>());
    std::function<std::vector<Tensor>(const std::vector<Tensor>&)> run = [m, f](const std::vector<Tensor>& in) {
      std::vector<AnyValue> values;
      for (const Tensor& t : in) values.emplace_back(t);
      AnyValue v = f(std::move(values));
      const Tensor* t = v.try_get<Tensor>();
      EMBER_CHECK(t != nullptr, "the call wrapper of ", m->name(), " needs a forward that returns a Tensor");
      return std::vector<Tensor>{*t};
    };
    std::vector<Tensor> out = (*wrapper)(run, inputs);
    EMBER_CHECK(out.size() == 1, "the call wrapper of ", m->name(), " returned ", out.size(), " tensors, expected 1");
    return AnyValue(out[0]);
  }

  // The module's forward hooks around its forward (Module::register_forward_hook).
  static Forward with_hooks(Module* m, Forward f, bool tensor_result) {
    return [m, f = std::move(f), tensor_result](std::vector<AnyValue>&& args) {
      if (!m->has_forward_hooks()) return f(std::move(args));
      m->_run_forward_pre_hooks();
      AnyValue v = call_maybe_wrapped(m, f, tensor_result, std::move(args));
      std::vector<Tensor> outputs;
      if (const Tensor* t = v.try_get<Tensor>()) outputs.push_back(*t);
      m->_run_forward_hooks(outputs);
      return v;
    };
  }

  // Whether M's forward returns a Tensor (only such calls go through a call wrapper, as on
  // the holder path); an overloaded forward is called Tensor -> Tensor.
  template <class C, class R, class... P>
  static constexpr bool tensor_return(R (C::*)(P...)) { return std::is_same_v<R, Tensor>; }
  template <class C, class R, class... P>
  static constexpr bool tensor_return(R (C::*)(P...) const) { return std::is_same_v<R, Tensor>; }
  template <class M>
  static constexpr bool returns_tensor() {
    if constexpr (requires { &M::forward; }) return tensor_return(&M::forward);
    else return true;
  }

  template <class M>
  static Forward make_forward(M* m) {
    if constexpr (requires { &M::forward; }) {
      return bind(m, &M::forward);
    } else {  // an overloaded or templated forward: Tensor -> Tensor
      return [m](std::vector<AnyValue>&& args) {
        EMBER_CHECK(args.size() == 1, detail::demangle(typeid(M).name()),
                    "'s forward() is overloaded: AnyModule calls it with one Tensor, but received ", args.size(),
                    " argument(s)");
        return AnyValue(Tensor(m->forward(argument<Tensor>(args, {}, 0, detail::demangle(typeid(M).name())))));
      };
    }
  }

  std::shared_ptr<Module> module_;
  Forward forward_;
  std::function<AnyModule(const std::shared_ptr<Module>&)> rebind_;
};

// A module with its name, for building a Sequential from {{"name", module}, ...} (LibTorch's
// NamedAnyModule).
class NamedAnyModule {
 public:
  NamedAnyModule(std::string name, AnyModule module) : name_(std::move(name)), module_(std::move(module)) {}
  template <class M, class = std::enable_if_t<std::is_base_of_v<Module, M>>>
  NamedAnyModule(std::string name, std::shared_ptr<M> module)
      : NamedAnyModule(std::move(name), AnyModule(std::move(module))) {}
  template <class M>
  NamedAnyModule(std::string name, const ModuleHolder<M>& holder) : NamedAnyModule(std::move(name), AnyModule(holder)) {}
  template <class M, std::enable_if_t<std::is_base_of_v<Module, std::decay_t<M>> && !std::is_lvalue_reference_v<M>,
                                      int> = 0>
  NamedAnyModule(std::string name, M&& module)
      : NamedAnyModule(std::move(name), AnyModule(std::forward<M>(module))) {}

  const std::string& name() const noexcept { return name_; }
  AnyModule& module() noexcept { return module_; }
  const AnyModule& module() const noexcept { return module_; }

 private:
  std::string name_;
  AnyModule module_;
};

}  // namespace ember::nn
