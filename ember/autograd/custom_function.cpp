#include "ember/autograd/custom_function.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

#include "ember/autograd/autograd_meta.h"
#include "ember/autograd/forward_ad.h"
#include "ember/autograd/record.h"
#include "ember/ops/functions.h"
#include "ember/ops/views.h"

namespace ember::autograd {

void AutogradContext::save_for_backward(variable_list to_save) { to_save_ = std::move(to_save); }

variable_list AutogradContext::get_saved_variables() const {
  EMBER_CHECK(!has_freed_buffers_, "Trying to backward through the graph a second time (or directly access saved "
              "tensors after they have already been freed). Specify retain_graph=True if you need to backward through "
              "the graph a second time or if you need to access saved tensors after calling backward.");
  variable_list r;
  auto node = node_.lock();
  if (saved_variables_.empty() && !to_save_.empty()) return to_save_;  // before the graph was built (forward)
  for (const SavedVariable& s : saved_variables_) r.push_back(s.unpack(node));
  return r;
}

void AutogradContext::mark_dirty(const variable_list& inputs) {
  for (const Tensor& t : inputs) dirty_.insert(t.unsafeGetTensorImpl());
}
void AutogradContext::mark_non_differentiable(const variable_list& outputs) {
  for (const Tensor& t : outputs) non_differentiable_.insert(t.unsafeGetTensorImpl());
}

bool AutogradContext::needs_input_grad(size_t index) const {
  auto node = node_.lock();
  return node && node->should_compute_output(index);
}

void CppNodeBase::release_variables() {
  for (SavedVariable& s : ctx.saved_variables_) s.reset();
  ctx.has_freed_buffers_ = true;
}

variable_list CppNodeBase::apply(variable_list&& grads) {
  if (ctx.materialize_grads_)
    for (size_t i = 0; i < grads.size(); ++i)
      if (!grads[i].defined()) {
        const InputMetadata& m = input_metadata(i);
        grads[i] = zeros(m.shape, dtype(m.dtype).device(m.device));
      }
  variable_list r = call_backward(std::move(grads));
  const size_t n_args = is_tensor_arg_.size();
  // Extra trailing gradients are allowed when undefined (defaulted forward arguments), as in LibTorch.
  if (r.size() > n_args) {
    bool extra_undefined = true;
    for (size_t i = n_args; i < r.size(); ++i) extra_undefined = extra_undefined && !r[i].defined();
    if (extra_undefined) r.resize(n_args);
  }
  EMBER_CHECK(r.size() == n_args, "function ", name_, " returned an incorrect number of gradients (expected ", n_args,
              ", got ", r.size(), ")");
  // One gradient per forward argument; keep those of tensor arguments.
  variable_list out;
  for (size_t i = 0; i < n_args; ++i) {
    if (is_tensor_arg_[i]) {
      out.push_back(r[i]);
    } else {
      EMBER_CHECK(!r[i].defined(), "function ", name_, " returned a gradient different than None at position ", i + 1,
                  ", but the corresponding forward input was not a Variable");
    }
  }
  return out;
}

namespace detail {

std::string demangled_name(const char* mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  return status == 0 && d ? std::string(d.get()) : std::string(mangled);
}

bool inputs_have_tangents(const variable_list& inputs) {
  if (!forward_ad_enabled()) return false;
  for (const Tensor& t : inputs)
    if (t.defined() && has_any_fw_grad(t)) return true;
  return false;
}

void custom_forward_ad(AutogradContext* ctx, const variable_list& inputs, variable_list& outputs,
                       const std::function<variable_list(variable_list)>* jvp, const std::string& name) {
  (void)ctx;
  EMBER_CHECK(jvp != nullptr, "Trying to use forward AD with ", name, " that does not support it because it has not "
              "implemented the jvp function.");
  for (uint64_t l : forward_ad::detail::open_levels()) {
    variable_list tangents;
    bool any = false;
    for (const Tensor& t : inputs) {
      Tensor tg = t.defined() ? fw_grad(t, l) : Tensor();
      any = any || tg.defined();
      tangents.push_back(tg.defined() ? tg : (t.defined() ? zeros_like(t) : Tensor()));
    }
    if (!any) continue;
    variable_list out_t;
    {
      BelowAutogradGuard below;
      out_t = (*jvp)(tangents);
    }
    EMBER_CHECK(out_t.size() == outputs.size(), "function ", name, " jvp returned ", out_t.size(),
                " tangents for ", outputs.size(), " outputs");
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (!out_t[i].defined() || !outputs[i].defined()) continue;
      EMBER_CHECK(out_t[i].sizes() == outputs[i].sizes(), "function ", name, " jvp returned a tangent of shape ",
                  out_t[i].sizes(), " for output ", i, " of shape ", outputs[i].sizes());
      // An output that is an input (dirty) gets its tangent in place.
      set_fw_grad(outputs[i], out_t[i], l);
    }
  }
}

void set_custom_edges(CppNodeBase* node, const variable_list& inputs) {
  node->set_next_edges(collect_next_edges(inputs));
}

void finish_custom_apply(CppNodeBase* node, const std::shared_ptr<Node>& owner, const variable_list& inputs,
                         variable_list& outputs, bool record) {
  AutogradContext& ctx = node->ctx;
  for (size_t i = 0; i < outputs.size(); ++i) {
    Tensor& out = outputs[i];
    if (!out.defined()) continue;
    const bool dirty = ctx.dirty_.count(out.unsafeGetTensorImpl()) > 0;
    bool is_input = false;
    for (const Tensor& in : inputs) is_input = is_input || in.is_same(out);
    if (is_input && !dirty) {
      // An input returned as is: the output is a fresh alias with its own history.
      BelowAutogradGuard below;
      Tensor alias = make_view(out, out.sizes(), out.strides(), out.storage_offset());
      alias.unsafeGetTensorImpl()->set_autograd_meta(nullptr);
      out = alias;
    }
  }
  if (!record) return;
  for (size_t i = 0; i < outputs.size(); ++i) {
    Tensor& out = outputs[i];
    if (!out.defined()) {
      node->add_undefined_input_metadata();
      continue;
    }
    node->add_input_metadata(out);
    const bool differentiable = (out.is_floating_point() || out.is_complex()) &&
                                !ctx.non_differentiable_.count(out.unsafeGetTensorImpl());
    if (!differentiable) continue;
    if (ctx.dirty_.count(out.unsafeGetTensorImpl())) {
      check_inplace(out, node->name_.c_str());
      rebase_history(out, owner, uint32_t(i));
    } else {
      set_history(out, owner, uint32_t(i));
    }
  }
  for (const Tensor& t : ctx.to_save_) {
    bool is_output = false;
    for (const Tensor& o : outputs) is_output = is_output || (o.defined() && o.is_same(t));
    ctx.saved_variables_.emplace_back(t, is_output);
  }
  ctx.to_save_.clear();
}

}  // namespace detail
}  // namespace ember::autograd
