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
#include <tuple>
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

// Cheap pre-check for ops: does autograd apply to t here? (t requires grad with grad mode
// on, or carries a tangent with forward AD on.) False inside implementations
// (BelowAutogradGuard). A tensor without autograd metadata costs one load.
bool autograd_active();
bool needs_autograd(const Tensor& t);
inline bool maybe_differentiable(const Tensor& t) {
  return t.defined() && t.unsafeGetTensorImpl()->autograd_meta() != nullptr && needs_autograd(t);
}
template <class... T>
bool maybe_differentiable(const Tensor& a, const T&... rest) {
  return maybe_differentiable(a) || (maybe_differentiable(rest) || ...);
}

// One-output op with derivatives: runs impl below autograd, sets the output's tangent from
// jvp(tangent_of) (tangent_of(i) undefined when input i has none) and records vjp.
// jvp(tangent_of, result); save_result appends the result to `saved` (as an output).
template <class Impl, class Jvp>
Tensor differentiable(std::string_view op, std::initializer_list<const Tensor*> inputs, Impl&& impl, VjpFunction vjp,
                      Jvp&& jvp, std::vector<ToSave> saved = {}, bool save_result = false) {
  Recording rec(inputs);
  Tensor r;
  {
    BelowAutogradGuard below;
    r = impl();
  }
  if (!rec.any() || !(r.is_floating_point() || r.is_complex())) return r;
  if (rec.forward())
    rec.forward_each(r, [&](const std::function<Tensor(size_t)>& t) { return jvp(t, r); });
  if (rec.reverse()) {
    if (save_result) saved.push_back({r, true});
    rec.record(op, {&r}, std::move(vjp), std::move(saved));
  }
  return r;
}

// A tangent, or zeros like `like` when undefined (for jvps that need every term).
Tensor tangent_or_zeros(const Tensor& t, const Tensor& like);

// Reductions: the reduced dims (wrapped, sorted; none or empty = all), and a reduced
// tensor with those dims put back as size 1 (when the op dropped them).
std::vector<int64_t> reduced_dims(int64_t ndim, OptionalIntArrayRef dim);
Tensor restore_reduced(const Tensor& t, const std::vector<int64_t>& dims, bool keepdim);

// In-place ops: a leaf that requires grad may not be modified while grad mode is on.
void check_inplace(const Tensor& self, const char* op);
// In-place ops that overwrite every element without reading it (fill_, the random samplers):
// when self is recorded, runs `write` below autograd, gives self a node that passes no
// gradient to the old value and zeroes its tangents, and returns true; else returns false
// without running `write`.
bool overwrite_recorded(const Tensor& self, const char* op, const std::function<void()>& write);
// out= forms do not record: an error when an argument requires grad (PyTorch's rule).
void check_out_not_differentiable(const char* op, std::initializer_list<const Tensor*> inputs);
// After an in-place op wrote `self`: its history continues from output 0 of `fn` (through
// CopySlices on the base when self is a view). Also moves the forward tangent.
void rebase_history(const Tensor& self, const Tensor& functional_result);
// self (just modified in place) becomes output 0 of fn (given its metadata), or output
// `output_nr` of fn when fn already describes its outputs.
void rebase_history(const Tensor& self, const std::shared_ptr<Node>& fn);
void rebase_history(const Tensor& self, const std::shared_ptr<Node>& fn, uint32_t output_nr);

// (values, indices) ops whose values are self's elements at `indices` along dim (max/min
// along a dim, sort, topk, kthvalue, median, mode): the gradient scatters back into
// zeros, the tangent is gathered. `keepdim`: whether values keep the reduced dim;
// `accumulate`: indices may repeat (cummax), so gradients add up.
std::tuple<Tensor, Tensor> differentiable_select(std::string_view op, const Tensor& self, int64_t dim, bool keepdim,
                                                 const std::function<std::tuple<Tensor, Tensor>()>& impl,
                                                 bool accumulate = false);

// cummax/cummin: values[k] = self[indices[k]] along dim, gradients scatter-added back.
std::tuple<Tensor, Tensor> differentiable_cumulative_select(std::string_view op, const Tensor& self, int64_t dim,
                                                            const std::function<std::tuple<Tensor, Tensor>()>& impl);

// For ops whose derivative is not written yet: a clear error when an input would need it
// (never a silently missing gradient).
void check_no_derivative_needed(const char* op, std::initializer_list<const Tensor*> inputs);

// An in-place op under autograd, computed out of place as `result` (with its history):
// writes it into self and continues self's history from it.
Tensor& assign_inplace(Tensor& self, const Tensor& result, const char* op);

// The tangent of self at `level` for an in-place op to write into: its own, or a fresh zero
// one (for a view: the window of a zero tangent given to its base).
Tensor inplace_tangent(const Tensor& self, uint64_t level);

}  // namespace ember::autograd
