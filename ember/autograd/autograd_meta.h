// Per-tensor autograd state, stored in TensorImpl's autograd slot: the accumulated grad,
// the grad_fn that produced the tensor (or the leaf's grad accumulator), hooks,
// retain_grad, view bookkeeping and forward-mode tangents per dual level.
#pragma once
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "ember/autograd/node.h"

namespace ember::autograd {

// How a differentiable view came to be (LibTorch's names). ember records DEFAULT for every view
// it tracks; it keeps no view metadata for views made in no-grad or inference mode (LibTorch
// marks those NO_GRAD_MODE / INFERENCE_MODE and refuses in-place changes to them later).
enum class CreationMeta : uint8_t { DEFAULT, IN_CUSTOM_FUNCTION, MULTI_OUTPUT_NODE, NO_GRAD_MODE, INFERENCE_MODE };

struct AutogradMeta final : AutogradMetaInterface {
  Tensor grad_;
  std::shared_ptr<Node> grad_fn_;
  std::weak_ptr<Node> grad_accumulator_;
  bool requires_grad_ = false;  // a leaf's flag; non-leaves require grad through grad_fn_
  bool retains_grad_ = false;
  std::shared_ptr<Tensor> retained_grad_;  // a non-leaf's grad under retain_grad()
  uint32_t output_nr_ = 0;
  // A differentiable view keeps its base (the root of the view chain): in-place ops on
  // the view rewrite the base's history (CopySlices).
  bool is_view_ = false;
  Tensor base_;
  uint32_t attr_version_ = 0;  // base version when grad_fn_ was last regenerated
  // Forward mode: tangent per dual level.
  std::vector<std::pair<uint64_t, Tensor>> fw_grads_;
  // Leaf hooks, run by the grad accumulator before accumulating.
  std::vector<std::pair<unsigned, Node::Hook>> leaf_hooks_;
  std::mutex mutex_;

  bool requires_grad() const override { return requires_grad_ || grad_fn_ != nullptr; }
  void set_requires_grad(bool r) override;

  // LibTorch's DifferentiableViewMeta accessors (this struct is also that).
  bool has_bw_view() const { return is_view_; }
  CreationMeta get_creation_meta() const { return CreationMeta::DEFAULT; }
};
using DifferentiableViewMeta = AutogradMeta;

// The meta of t, or null.
inline AutogradMeta* get_meta(const Tensor& t) {
  return t.defined() ? static_cast<AutogradMeta*>(t.unsafeGetTensorImpl()->autograd_meta()) : nullptr;
}
// The meta of t, created when missing.
AutogradMeta* materialize_meta(const Tensor& t);

// Marks t as output `output_nr` of `fn` (t's grad_fn).
void set_history(const Tensor& t, const std::shared_ptr<Node>& fn, uint32_t output_nr);
// The leaf's AccumulateGrad node (created on first use; the leaf holds it weakly).
std::shared_ptr<Node> grad_accumulator(const Tensor& leaf);

// Forward-mode tangent of t at `level`; undefined when t has none.
Tensor fw_grad(const Tensor& t, uint64_t level);
void set_fw_grad(const Tensor& t, const Tensor& tangent, uint64_t level);
bool has_any_fw_grad(const Tensor& t);

}  // namespace ember::autograd
