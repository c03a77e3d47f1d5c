// Backward nodes used by the engine and the recording helpers: AccumulateGrad (leaves),
// OpNode (an op's vjp over saved tensors), GraphRoot, and CopySlices (in-place ops on
// views rewrite the base's history).
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ember/autograd/node.h"
#include "ember/core/pointwise_args.h"

namespace ember::autograd {

struct AutogradMeta;

struct AccumulateGrad final : Node {
  explicit AccumulateGrad(Tensor leaf);
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "torch::autograd::AccumulateGrad"; }
  Tensor variable;
};

struct GraphRoot final : Node {
  GraphRoot(std::vector<Edge> roots, variable_list grads);
  variable_list apply(variable_list&&) override { return grads_; }
  std::string name() const override { return "GraphRoot"; }
  variable_list grads_;
};

// Arguments a vjp reads: output gradients, saved tensors, and scalar arguments.
struct VjpCtx {
  const variable_list& grads;
  Node& node;
  const std::vector<SavedVariable>& saved;
  const PointwiseArgs& args;
  std::shared_ptr<Node> self;
  // An input that has no edge (OpNode::hidden_input_), or -1.
  int hidden_input = -1;

  // Gradient of forward output i (undefined means zero).
  const Tensor& grad(size_t i = 0) const { return grads[i]; }
  Tensor saved_tensor(size_t i) const { return saved[i].unpack(self); }
  bool needs_input_grad(size_t i) const {
    if (hidden_input < 0) return node.should_compute_output(i);
    return int(i) != hidden_input && node.should_compute_output(i - (int(i) > hidden_input));
  }
  // Pointwise ops save their inputs, then their result.
  Tensor input(size_t i) const { return saved_tensor(i); }
  Tensor result() const { return saved_tensor(saved.size() - 1); }
};

using VjpFunction = std::function<variable_list(const VjpCtx&)>;

// Arguments a jvp reads: the primal inputs and result, scalar arguments, and the inputs'
// tangents at the level being computed.
struct JvpCtx {
  const std::vector<Tensor>& inputs;
  const Tensor& out;
  const PointwiseArgs& args;
  const std::function<Tensor(size_t)>& tangent_of;

  const Tensor& input(size_t i) const { return inputs[i]; }
  const Tensor& result() const { return out; }
  bool has_tangent(size_t i) const { return tangent_of(i).defined(); }
  // Input i's tangent; zeros when it has none.
  Tensor tangent(size_t i) const;
};

// A node whose backward is an op's vjp.
struct OpNode final : Node {
  OpNode(std::string name, VjpFunction vjp) : name_(std::move(name)), vjp_(std::move(vjp)) {}
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return name_; }
  void release_variables() override;

  std::string name_;
  VjpFunction vjp_;
  std::vector<SavedVariable> saved_;
  PointwiseArgs args_;
  bool released_ = false;
  // A wrapped-number input (a Scalar argument) that has no edge, as in LibTorch's Scalar
  // overloads (x * 2 is MulBackward1 with one edge); the vjp still sees every input.
  int hidden_input_ = -1;
};

// conj of a scalar argument (alpha, weight, value); real scalars unchanged.
Scalar conj_scalar(const Scalar& s);

// t summed over the dims broadcasting added or expanded, so that it has `shape`.
Tensor sum_to(const Tensor& t, IntArrayRef shape);

// "exp" -> "ExpBackward0", as PyTorch names its nodes.
std::string backward_name(std::string_view op);

// Routes the gradient of a base whose view was modified in place by `fn`: the view's part
// of the base gradient goes through fn, the rest passes through.
struct CopySlices final : Node {
  CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn);
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "CopySlices"; }
  void release_variables() override { fn_->release_variables(); }

  DimVector base_sizes_, base_strides_, view_sizes_, view_strides_;
  int64_t base_offset_ = 0, view_offset_ = 0;
  std::shared_ptr<Node> fn_;
};

// Backward of a view as a strided window of its base (any view op): the gradient is
// scattered into zeros shaped like the base (accumulating where the view overlaps).
struct AsStridedBackward final : Node {
  AsStridedBackward(const Tensor& base, const Tensor& view);
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return name_; }
  std::string name_ = "AsStridedBackward0";
  DimVector base_sizes_, base_strides_, view_sizes_, view_strides_;
  int64_t base_offset_ = 0, view_offset_ = 0;
  ScalarType base_dtype_ = kFloat;
  ScalarType view_dtype_ = kFloat;
};

// The gradient of `base` from the gradient of its strided window `view_grad` (geometry
// relative to the storage; base offsets subtracted).
Tensor as_strided_backward(const Tensor& view_grad, IntArrayRef base_sizes, IntArrayRef base_strides,
                           int64_t base_offset, IntArrayRef view_sizes, IntArrayRef view_strides, int64_t view_offset);

}  // namespace ember::autograd
