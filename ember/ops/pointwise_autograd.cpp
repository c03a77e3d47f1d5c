// The autograd path of the pointwise driver: runs the op below autograd, then records its
// entry's derivative (reverse mode) and pushes tangents through it (forward mode).
#include <algorithm>
#include <string_view>

#include "ember/autograd/autograd_meta.h"
#include "ember/autograd/record.h"
#include "ember/ops/functions.h"
#include "ember/ops/pointwise.h"

namespace ember::autograd {

Tensor JvpCtx::tangent(size_t i) const {
  Tensor t = tangent_of(i);
  return t.defined() ? t : zeros_like(inputs[i], {}, MemoryFormat::Contiguous);
}

namespace {

std::string_view node_name(const OpInfo& op) { return op.node_name.empty() ? op.name : op.node_name; }

// LibTorch's overloads of binary ops with a Scalar operand (x * 2, 2 + x, x.pow(2)) record a
// node with another name (MulBackward1) and no edge for the scalar; ember wraps the scalar
// into a 0-dim "wrapped number" tensor, so the recorded node is renamed and that edge hidden
// to match. `wrapped`: bit i set when input i is a wrapped number. Returns the name suffix
// (-1: keep "0") and the input to hide (-1: none), from LibTorch 1.13's derivatives.yaml.
std::pair<int, int> scalar_overload(std::string_view n, unsigned wrapped) {
  if (n == "add" || n == "mul") {
    if (wrapped == 2) return {1, 1};
    if (wrapped == 1) return {1, 0};  // 2 * x: the operators swap commutative operands
  } else if (n == "sub" || n == "div_true") {
    if (wrapped == 2) return {1, 1};
  } else if (n == "div_trunc" || n == "div_floor") {
    if (wrapped == 0) return {2, -1};
    if (wrapped == 2) return {3, 1};
  } else if (n == "pow") {
    if (wrapped == 2) return {0, 1};
    if (wrapped == 0) return {1, -1};
    if (wrapped == 1) return {2, 0};
  } else if (n == "remainder" || n == "fmod" || n == "copysign") {
    if (wrapped == 2) return {n == "copysign" ? 1 : 0, 1};
    if (wrapped == 0) return {n == "copysign" ? 0 : 1, -1};
  } else if (n == "xlogy") {
    if (wrapped == 2) return {2, 1};
    if (wrapped == 1) return {1, 0};
  } else if (n == "clamp_scalar" || n == "lerp_tensor") {
    return {1, -1};
  }
  return {-1, -1};
}

}  // namespace

Tensor differentiable_pointwise(const PointwiseOp& op, Tensor out, std::initializer_list<Tensor> inputs_l,
                                const PointwiseArgs& args, bool inplace) {
  std::vector<Tensor> inputs(inputs_l);
  // Tensor methods write in place as op_out(self, self, ...).
  if (out.defined() && !inplace && !inputs.empty() && out.is_same(inputs[0])) inplace = true;
  Recording rec(inputs);
  if (!rec.any() || !op.differentiable) {
    BelowAutogradGuard below;
    return run_pointwise(op, std::move(out), inputs_l, args, inplace);
  }
  if (out.defined() && !inplace) {
    for (const Tensor& t : inputs)
      if (GradMode::is_enabled() && tensor_requires_grad(t))
        EMBER_ERROR(op.name, "_out(): functions with out=... arguments don't support automatic differentiation, but "
                    "one of the arguments requires grad.");
    BelowAutogradGuard below;
    return run_pointwise(op, std::move(out), inputs_l, args, false);
  }
  if (inplace) {
    check_inplace(out, op.name.data());
    // Out of place with history, then written back; self's history continues from it.
    // A formula that reads self's old value gets a copy of it (with self's history).
    Tensor r;
    if ((int(op.saves) & int(Saves::Inputs)) && std::any_of(inputs.begin(), inputs.end(), [&](const Tensor& t) { return t.is_same(out); })) {
      Tensor old = out.clone();
      std::vector<Tensor> in2;
      for (const Tensor& t : inputs) in2.push_back(t.is_same(out) ? old : t);
      if (in2.size() == 1) r = differentiable_pointwise(op, {}, {in2[0]}, args, false);
      else if (in2.size() == 2) r = differentiable_pointwise(op, {}, {in2[0], in2[1]}, args, false);
      else r = differentiable_pointwise(op, {}, {in2[0], in2[1], in2[2]}, args, false);
    } else {
      r = differentiable_pointwise(op, {}, inputs_l, args, false);
    }
    EMBER_CHECK_TYPE(canCast(r.scalar_type(), out.scalar_type()), op.name, "_: result type ", r.scalar_type(),
                     " can't be cast to the desired output type ", out.scalar_type());
    EMBER_CHECK(r.sizes() == out.sizes(), op.name, "_: output with shape ", out.sizes(),
                " doesn't match the broadcast shape ", r.sizes());
    {
      BelowAutogradGuard below;
      out.copy_(r);
    }
    if (GradMode::is_enabled() || forward_ad_enabled()) rebase_history(out, r);
    return out;
  }
  EMBER_CHECK(op.vjp && op.jvp, "the derivative for '", node_name(op), "' is not implemented.");
  Tensor r;
  {
    BelowAutogradGuard below;
    r = run_pointwise(op, {}, inputs_l, args, false);
  }
  if (!(r.is_floating_point() || r.is_complex())) return r;
  // Tangents first: a saved output keeps the tangent it has when saved.
  if (rec.forward()) {
    JvpFn jvp = op.jvp;
    rec.forward_each(r, [&](const std::function<Tensor(size_t)>& tangent_of) {
      JvpCtx ctx{inputs, r, args, tangent_of};
      return jvp(ctx);
    });
  }
  if (rec.reverse()) {
    // Save only what the formulas read, so that modifying another tensor in place later
    // does not invalidate the graph (PyTorch saves the same).
    const bool uses_result = int(op.saves) & int(Saves::Result);
    const bool uses_inputs = int(op.saves) & int(Saves::Inputs);
    std::vector<ToSave> saved;
    saved.reserve(inputs.size() + 1);
    for (const Tensor& t : inputs) saved.push_back({uses_inputs ? t : Tensor(), false});
    saved.push_back({uses_result ? r : Tensor(), true});
    VjpFn vjp = op.vjp;
    auto node = rec.record(node_name(op), {&r}, [vjp](const VjpCtx& c) { return vjp(c); }, std::move(saved), args);
    unsigned wrapped = 0;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i].defined() && inputs[i].unsafeGetTensorImpl()->is_wrapped_number()) wrapped |= 1u << i;
    auto [suffix, hidden] = scalar_overload(op.name, inputs.size() == 2 ? wrapped : 0u);
    if (suffix >= 0) node->name_.back() = char('0' + suffix);
    if (hidden >= 0 && size_t(hidden) < node->next_edges().size()) {
      std::vector<Edge> edges = node->next_edges();
      edges.erase(edges.begin() + hidden);
      node->set_next_edges(std::move(edges));
      node->hidden_input_ = hidden;
    }
  }
  return r;
}

}  // namespace ember::autograd

namespace ember {

namespace {
// The edge target of traced_pointwise_vjp's node: marks which inputs need a gradient.
struct NoBackward final : autograd::Node {
  autograd::variable_list apply(autograd::variable_list&&) override {
    EMBER_ERROR("jit: a derivative traced for a fused backward graph is never run by the engine");
  }
  std::string name() const override { return "NoBackward"; }
};
}  // namespace

std::vector<Tensor> traced_pointwise_vjp(const tracing::TracedOp& op, const std::vector<Tensor>& inputs,
                                         const Tensor& result, const tracing::Attrs& attrs, const Tensor& grad,
                                         const std::vector<bool>& needs) {
  EMBER_CHECK(op.run == &run_traced_pointwise && op.context, "traced_pointwise_vjp: ", op.name,
              " is not an op of the pointwise table");
  EMBER_CHECK(needs.size() == inputs.size(), "traced_pointwise_vjp: ", op.name, ": ", needs.size(), " flags for ",
              inputs.size(), " inputs");
  const auto& row = *static_cast<const PointwiseOp*>(op.context);
  EMBER_CHECK(row.differentiable && row.vjp, "the derivative for '",
              row.node_name.empty() ? row.name : row.node_name, "' is not implemented.");
  static const std::shared_ptr<autograd::Node> sink = std::make_shared<NoBackward>();
  autograd::OpNode node(std::string(row.name), nullptr);
  std::vector<autograd::Edge> edges;
  for (bool n : needs) edges.push_back(n ? autograd::Edge(sink, 0) : autograd::Edge());
  node.set_next_edges(std::move(edges));
  node.args_ = traced_pointwise_args(attrs, row.name);
  for (const Tensor& t : inputs) node.saved_.emplace_back(t, false);
  node.saved_.emplace_back(result, false);
  const autograd::variable_list grads{grad};
  const autograd::VjpCtx ctx{grads, node, node.saved_, node.args_, nullptr};
  std::vector<Tensor> r = row.vjp(ctx);
  r.resize(inputs.size());
  for (size_t i = 0; i < r.size(); ++i)
    if (!needs[i]) r[i] = Tensor();
  return r;
}

}  // namespace ember
