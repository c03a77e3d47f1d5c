// Custom differentiable functions with LibTorch's API:
//
//   struct Scale : torch::autograd::Function<Scale> {
//     static Tensor forward(AutogradContext* ctx, Tensor x, double k) {
//       ctx->saved_data["k"] = k;
//       return x * k;
//     }
//     static variable_list backward(AutogradContext* ctx, variable_list g) {
//       return {g[0] * ctx->saved_data["k"].toDouble(), Tensor()};
//     }
//     // optional, for forward mode: tangents of the inputs -> tangents of the outputs
//     static variable_list jvp(AutogradContext* ctx, variable_list tangents);
//   };
//   Tensor y = Scale::apply(x, 2.0);
#pragma once
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include "ember/autograd/functions.h"
#include "ember/autograd/grad_mode.h"

namespace ember {

// A small tagged value for AutogradContext::saved_data (LibTorch's c10::IValue subset).
class IValue {
 public:
  IValue() = default;
  IValue(bool v) : v_(v) {}  // NOLINT
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  IValue(T v) : v_(int64_t(v)) {}  // NOLINT
  IValue(double v) : v_(v) {}  // NOLINT
  IValue(Tensor v) : v_(std::move(v)) {}  // NOLINT
  IValue(std::string v) : v_(std::move(v)) {}  // NOLINT
  IValue(const char* v) : v_(std::string(v)) {}  // NOLINT
  IValue(std::vector<int64_t> v) : v_(std::move(v)) {}  // NOLINT
  IValue(std::vector<Tensor> v) : v_(std::move(v)) {}  // NOLINT

  bool isNone() const { return v_.index() == 0; }
  bool isBool() const { return std::holds_alternative<bool>(v_); }
  bool isInt() const { return std::holds_alternative<int64_t>(v_); }
  bool isDouble() const { return std::holds_alternative<double>(v_); }
  bool isTensor() const { return std::holds_alternative<Tensor>(v_); }
  bool isString() const { return std::holds_alternative<std::string>(v_); }
  bool isIntList() const { return std::holds_alternative<std::vector<int64_t>>(v_); }
  bool isTensorList() const { return std::holds_alternative<std::vector<Tensor>>(v_); }
  bool toBool() const { return get<bool>("Bool"); }
  int64_t toInt() const { return get<int64_t>("Int"); }
  double toDouble() const { return isInt() ? double(toInt()) : get<double>("Double"); }
  const Tensor& toTensor() const { return get<Tensor>("Tensor"); }
  const std::string& toStringRef() const { return get<std::string>("String"); }
  const std::vector<int64_t>& toIntVector() const { return get<std::vector<int64_t>>("IntList"); }
  const std::vector<Tensor>& toTensorVector() const { return get<std::vector<Tensor>>("TensorList"); }

 private:
  template <class T>
  const T& get(const char* what) const {
    const T* p = std::get_if<T>(&v_);
    EMBER_CHECK(p != nullptr, "IValue: expected ", what, " but the value holds another type (index ", v_.index(), ")");
    return *p;
  }
  std::variant<std::monostate, bool, int64_t, double, Tensor, std::string, std::vector<int64_t>, std::vector<Tensor>> v_;
};

namespace autograd {

struct AutogradContext {
  AutogradContext() = default;
  AutogradContext(const AutogradContext&) = delete;
  AutogradContext& operator=(const AutogradContext&) = delete;

  // Tensors the backward needs (checked for in-place modification when unpacked).
  void save_for_backward(variable_list to_save);
  variable_list get_saved_variables() const;
  // Inputs the forward modified in place / outputs that are not differentiable.
  void mark_dirty(const variable_list& inputs);
  void mark_non_differentiable(const variable_list& outputs);
  // false: undefined output gradients reach backward as undefined tensors, not zeros.
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  bool needs_input_grad(size_t output_edge_index) const;

  std::unordered_map<std::string, IValue> saved_data;

  // ---- used by Function<T>::apply ----
  variable_list to_save_;
  std::vector<SavedVariable> saved_variables_;
  std::unordered_set<TensorImpl*> dirty_;
  std::unordered_set<TensorImpl*> non_differentiable_;
  bool materialize_grads_ = true;
  bool has_freed_buffers_ = false;
  std::weak_ptr<Node> node_;
};

// The backward node of a custom function.
struct CppNodeBase : Node {
  AutogradContext ctx;
  std::string name_;
  std::vector<bool> is_tensor_arg_;   // per forward argument
  std::vector<bool> output_defined_;  // per output
  std::string name() const override { return name_; }
  void release_variables() override;
  variable_list apply(variable_list&& grads) override;
  virtual variable_list call_backward(variable_list grads) = 0;
};

namespace detail {
std::string demangled_name(const char* mangled);
// Wires the outputs to the node after the forward ran.
void set_custom_edges(CppNodeBase* node, const variable_list& inputs);
void finish_custom_apply(CppNodeBase* node, const std::shared_ptr<Node>& owner, const variable_list& inputs,
                         variable_list& outputs, bool record);
void custom_forward_ad(AutogradContext* ctx, const variable_list& inputs, variable_list& outputs,
                       const std::function<variable_list(variable_list)>* jvp, const std::string& name);
bool inputs_have_tangents(const variable_list& inputs);

template <class T>
void collect(variable_list& out, std::vector<bool>& is_tensor, const T& arg) {
  if constexpr (std::is_convertible_v<const T&, const Tensor&>) {
    out.push_back(arg);
    is_tensor.push_back(true);
  } else {
    is_tensor.push_back(false);
  }
}
template <class R>
variable_list to_list(R&& r) {
  if constexpr (std::is_convertible_v<R, Tensor>) return {Tensor(std::forward<R>(r))};
  else return variable_list(std::forward<R>(r));
}
}  // namespace detail

template <class T>
struct CppNode final : CppNodeBase {
  variable_list call_backward(variable_list grads) override { return T::backward(&ctx, std::move(grads)); }
};

template <class T>
struct Function {
  template <class... Args>
  static auto apply(Args&&... args) {
    variable_list inputs;
    std::vector<bool> is_tensor;
    (detail::collect(inputs, is_tensor, args), ...);
    bool record = GradMode::is_enabled();
    if (record) {
      record = false;
      for (const Tensor& t : inputs) {
        auto* m = t.defined() ? t.unsafeGetTensorImpl()->autograd_meta() : nullptr;
        record = record || (m && m->requires_grad());
      }
    }
    auto node = std::make_shared<CppNode<T>>();
    node->name_ = detail::demangled_name(typeid(T).name());
    node->is_tensor_arg_ = std::move(is_tensor);
    node->ctx.node_ = node;
    // The edges exist before forward runs, so ctx->needs_input_grad() answers inside forward.
    if (record) detail::set_custom_edges(node.get(), inputs);
    using R = decltype(T::forward(&node->ctx, std::forward<Args>(args)...));
    variable_list outputs;
    {
      AutoGradMode no_grad(false);
      outputs = detail::to_list(T::forward(&node->ctx, std::forward<Args>(args)...));
    }
    if (detail::inputs_have_tangents(inputs)) {
      if constexpr (requires(AutogradContext* c, variable_list v) { T::jvp(c, v); }) {
        std::function<variable_list(variable_list)> jvp = [&](variable_list t) { return T::jvp(&node->ctx, std::move(t)); };
        detail::custom_forward_ad(&node->ctx, inputs, outputs, &jvp, node->name_);
      } else {
        detail::custom_forward_ad(&node->ctx, inputs, outputs, nullptr, node->name_);
      }
    }
    detail::finish_custom_apply(node.get(), node, inputs, outputs, record);
    if constexpr (std::is_convertible_v<R, Tensor>) {
      return outputs[0];
    } else {
      return R(outputs.begin(), outputs.end());
    }
  }
};

}  // namespace autograd
}  // namespace ember
