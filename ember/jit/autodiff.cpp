// Backward programs of fused groups (fusion_group.h, Note [Fused backward]).
//
// Note [Fused backward]: a fused group whose inputs need gradients runs its kernel and records
// one autograd node for the whole group (FusedBackward, fuser.cpp) that saves the group's inputs
// only. Its backward is a program derived from the op table's own derivative formulas: the
// group's forward ops are traced again on example tensors, then, walking the nodes backwards,
// each node's vjp (a pointwise row's, traced_pointwise_vjp; where's) is called on the traced
// tensors, so the ops of the formula are recorded too; gradients reaching a value from several
// uses are added, and each is summed to its input's shape and cast to its dtype, as the engine
// does. The recorded program reads the group's inputs and the gradients of its outputs; passes
// drop the forward ops no formula reads, and the fuser fuses the rest like any graph, so the
// forward values a formula needs are recomputed inside the backward kernel instead of being kept
// from the forward (rematerialization: a group keeps its inputs, never its intermediates). One
// program per set of inputs that need a gradient, derived the first time a backward needs it.
// With create_graph the program runs under autograd like any graph: its fused groups record
// FusedBackward nodes of their own, so higher derivatives come from the same formulas.
#include <map>

#include "ember/autograd/functions.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/jit/fusion_group.h"
#include "ember/jit/graph_builder.h"
#include "ember/jit/jit.h"
#include "ember/jit/random_ops.h"
#include "ember/ops/functions.h"
#include "ember/ops/pointwise.h"

namespace ember::jit {

namespace {

bool floating_or_complex(ScalarType t) { return isFloatingType(t) || isComplexType(t); }

// The gradients of n's inputs given the gradient of its output, by the op's own formula.
std::vector<Tensor> vjp_of(const Node& n, const std::vector<Tensor>& in, const Tensor& out, const Tensor& grad,
                           const std::vector<bool>& needs) {
  if (n.op->run == &run_traced_pointwise) return traced_pointwise_vjp(*n.op, in, out, n.attrs, grad, needs);
  if (n.kind() == "sum" || n.kind() == "mean") {  // a row reduction (Note [Row reductions]): grad spread over the row
    // Spread by broadcasting in a pointwise add (an expand would be a view between fused groups).
    Tensor g = tracing::bool_attr(n.attrs, "keepdim", n.kind()) ? grad : grad.unsqueeze(-1);
    if (n.kind() == "mean") g = g.div(double(in[0].size(-1)));
    return {needs[0] ? zeros_like(in[0]).add(g) : Tensor()};
  }
  if (n.kind() == "amax" || n.kind() == "amin") {  // a row extremum: eager's rule (ops/reduce_minmax.cpp)
    // The gradient is shared evenly among the elements equal to the extremum; the kept extremum
    // is computed again (a row reduction the mask's group reads) where the node dropped the dim.
    const bool keepdim = tracing::bool_attr(n.attrs, "keepdim", n.kind());
    if (!needs[0]) return {Tensor()};
    const std::vector<int64_t> last{-1};
    Tensor m = keepdim ? out : n.kind() == "amax" ? amax(in[0], last, true) : amin(in[0], last, true);
    Tensor g = keepdim ? grad : grad.unsqueeze(-1);
    Tensor mask = where(in[0].eq(m), ones_like(in[0]), zeros_like(in[0]));
    return {mask.mul(g).div(mask.sum(last, true))};  // g / count would be a row value reading an input
  }
  if (n.kind() == "_to_copy")  // a fused cast (Note [Fused casts]): the gradient converted back
    return {needs[0] ? grad.to(in[0].scalar_type()) : Tensor()};
  if (n.kind() == "fused_dropout")  // linear in its input: the same mask (Note [Fused dropout])
    return {needs[0] ? fused_dropout(grad, in[1], tracing::double_attr(n.attrs, "p", "fused_dropout")) : Tensor(), Tensor()};
  if (n.kind() == "where") {  // as where's own formula (ops/index_ops.cpp)
    Tensor zero = zeros_like(grad);
    return {Tensor(), needs[1] ? where(in[0], grad, zero) : Tensor(), needs[2] ? where(in[0], zero, grad) : Tensor()};
  }
  EMBER_ERROR("jit: no derivative for a fused ", n.kind(), " node");
}

Tensor example(const TensorType& t) {
  Tensor x = empty_strided(t.sizes, t.strides, TensorOptions().dtype(t.dtype).device(t.device));
  x.fill_(1);
  return x;
}

}  // namespace

bool differentiable_in_group(const Node& n) {
  if (n.op->run == &run_traced_pointwise) {
    const auto& row = *static_cast<const PointwiseOp*>(n.op->context);
    return row.differentiable && row.vjp;
  }
  return n.kind() == "where" || n.kind() == "fused_dropout" || n.kind() == "_to_copy" || n.kind() == "sum" || n.kind() == "mean" ||
         n.kind() == "amax" || n.kind() == "amin";
}

std::shared_ptr<const BackwardProgram> derive_backward(const Graph& fwd, const std::vector<bool>& needs,
                                                       const std::vector<TensorType>& input_types,
                                                       const std::vector<TensorType>& grad_types) {
  EMBER_INTERNAL_ASSERT(needs.size() == fwd.inputs().size() && input_types.size() == needs.size() &&
                            grad_types.size() == fwd.outputs().size(),
                        "jit: backward flags or types for ", needs.size(), " of ", fwd.inputs().size(), " inputs");
  auto prog = std::make_shared<BackwardProgram>();
  auto g = std::make_shared<Graph>();
  detail::GraphBuilder builder(*g);
  NoGradGuard no_grad;
  std::vector<Tensor> env(fwd.num_values());
  for (size_t i = 0; i < fwd.inputs().size(); ++i) {
    const Value* v = fwd.inputs()[i];
    env[v->id] = example(input_types[i]);
    builder.bind(env[v->id], g->add_input(v->name, input_types[i]));
  }
  std::vector<Tensor> grad_outputs;
  for (size_t k = 0; k < fwd.outputs().size(); ++k) {
    TensorType t = grad_types[k];
    t.requires_grad = false;
    grad_outputs.push_back(example(t));
    builder.bind(grad_outputs.back(), g->add_input("grad" + std::to_string(k), t));
  }
  std::vector<Tensor> grad(fwd.num_values());
  for (const auto& [v, t] : fwd.constants()) env[v->id] = t;
  // The values a gradient flows through: from the flagged inputs, along differentiable nodes.
  std::vector<bool> active(fwd.num_values(), false);
  for (size_t i = 0; i < needs.size(); ++i)
    active[fwd.inputs()[i]->id] = needs[i] && floating_or_complex(fwd.inputs()[i]->type.dtype);
  for (const auto& n : fwd.nodes()) {
    bool any = false;
    for (const Value* i : n->inputs) any = any || (i && active[i->id]);
    for (const Value* o : n->outputs) active[o->id] = any && differentiable_in_group(*n) && floating_or_complex(o->type.dtype);
  }
  std::vector<Value*> outs;
  prog->slot.assign(needs.size(), -1);
  {
    tracing::RecorderGuard recording(&builder);
    for (size_t k = 0; k < fwd.outputs().size(); ++k) {
      Tensor& acc = grad[fwd.outputs()[k]->id];
      acc = acc.defined() ? acc.add(grad_outputs[k]) : grad_outputs[k];  // an output listed twice
    }
    for (const auto& n : fwd.nodes()) {
      std::vector<Tensor> in;
      for (const Value* i : n->inputs) in.push_back(i ? env[i->id] : Tensor());
      std::vector<Tensor> out = n->op->run(*n->op, in, n->attrs);
      for (size_t k = 0; k < out.size(); ++k) env[n->outputs[k]->id] = out[k];
    }
    const auto& nodes = fwd.nodes();
    for (size_t k = nodes.size(); k-- > 0;) {
      const Node& n = *nodes[k];
      const Value* out = n.outputs[0];
      if (!active[out->id] || !grad[out->id].defined()) continue;
      std::vector<Tensor> in;
      std::vector<bool> need;
      for (const Value* i : n.inputs) {
        in.push_back(i ? env[i->id] : Tensor());
        need.push_back(i && active[i->id]);
      }
      std::vector<Tensor> gi = vjp_of(n, in, env[out->id], grad[out->id], need);
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        if (!need[i] || i >= gi.size() || !gi[i].defined()) continue;
        Tensor t = autograd::sum_to(gi[i], in[i].sizes());
        if (t.is_complex() && !in[i].is_complex()) t = real(t);  // a real input's gradient, as the engine's
        if (t.scalar_type() != in[i].scalar_type()) t = t.to(in[i].scalar_type());
        Tensor& acc = grad[n.inputs[i]->id];
        acc = acc.defined() ? acc.add(t) : t;
      }
    }
    for (size_t i = 0; i < needs.size(); ++i) {
      const Tensor& gx = grad[fwd.inputs()[i]->id];
      if (!needs[i] || !gx.defined()) continue;
      prog->slot[i] = int(outs.size());
      outs.push_back(builder.output_value(gx, outs.size()));
    }
  }
  g->set_outputs(std::move(outs));
  optimize(*g);
  prog->graph = g;
  prog->exec = g->clone();
  fuse_pointwise(*prog->exec);
  detail::count_backward_graph();
  return prog;
}

}  // namespace ember::jit
