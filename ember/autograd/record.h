// What ops call to take part in autograd (Note [Below autograd] in record.cpp):
//
//   autograd::Recording rec({&self, &other});       // cheap when nothing needs grad
//   Tensor r;
//   { autograd::BelowAutogradGuard g; r = impl(self, other); }
//   if (rec.reverse()) rec.record("mul", {&r}, vjp, {save(self), save(other)});
//   if (rec.forward()) rec.forward_each(r, [&](auto&& tangent) { ... });
#pragma once
#include <functional>
#include <initializer_list>
#include <string_view>
#include <vector>

#include "ember/autograd/functions.h"
#include "ember/autograd/grad_mode.h"

namespace ember::autograd {

// A tensor to save for backward; `is_output`: it is an output of the recording op.
struct ToSave {
  Tensor t;
  bool is_output = false;
};

// True when some input requires grad (reverse) or carries a tangent (forward).
inline bool tensor_requires_grad(const Tensor& t) {
  auto* m = t.defined() ? t.unsafeGetTensorImpl()->autograd_meta() : nullptr;
  return m && m->requires_grad();
}
bool tensor_has_tangent(const Tensor& t);

class Recording {
 public:
  Recording(std::initializer_list<const Tensor*> inputs);
  explicit Recording(const std::vector<Tensor>& inputs);
  bool reverse() const { return rev_; }
  bool forward() const { return fwd_; }
  bool any() const { return rev_ || fwd_; }

  // Creates the backward node: next edges from the inputs, `outputs` get it as grad_fn.
  std::shared_ptr<OpNode> record(std::string_view op, std::initializer_list<const Tensor*> outputs, VjpFunction vjp,
                                 std::vector<ToSave> saved = {}, const PointwiseArgs& args = {});
  std::shared_ptr<OpNode> record(std::string_view op, const std::vector<Tensor>& outputs, VjpFunction vjp,
                                 std::vector<ToSave> saved = {}, const PointwiseArgs& args = {});

  // A node whose next edges are the inputs' current gradient edges, for an in-place op
  // to pass to rebase_history (which gives it its output).
  std::shared_ptr<OpNode> make_node(std::string_view op, VjpFunction vjp, std::vector<ToSave> saved = {},
                                    const PointwiseArgs& args = {});

  // For each open dual level where an input has a tangent: sets out's tangent to
  // jvp(tangent_of), where tangent_of(i) is input i's tangent at that level (undefined
  // when it has none). Runs with forward AD off for the level being computed.
  void forward_each(const Tensor& out, const std::function<Tensor(const std::function<Tensor(size_t)>&)>& jvp) const;

  const std::vector<const Tensor*>& inputs() const { return inputs_; }

 private:
  void init();
  std::vector<const Tensor*> inputs_;
  std::vector<Tensor> owned_;
  bool rev_ = false, fwd_ = false;
};

// In-place ops: a leaf that requires grad may not be modified while grad mode is on.
void check_inplace(const Tensor& self, const char* op);
// out= forms do not record: an error when an argument requires grad (PyTorch's rule).
void check_out_not_differentiable(const char* op, std::initializer_list<const Tensor*> inputs);
// After an in-place op wrote `self`: its history continues from output 0 of `fn` (through
// CopySlices on the base when self is a view). Also moves the forward tangent.
void rebase_history(const Tensor& self, const Tensor& functional_result);
// self (just modified in place) becomes output 0 of fn (given its metadata), or output
// `output_nr` of fn when fn already describes its outputs.
void rebase_history(const Tensor& self, const std::shared_ptr<Node>& fn);
void rebase_history(const Tensor& self, const std::shared_ptr<Node>& fn, uint32_t output_nr);

// Installs the view hook (records the view relationship and its backward).
void install_view_hook();

}  // namespace ember::autograd
