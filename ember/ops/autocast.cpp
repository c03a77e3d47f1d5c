#include "ember/ops/autocast.h"

#include <unordered_map>

#include "ember/autograd/grad_mode.h"

namespace ember::autocast {

namespace {

// Lower-precision copies of float32 weights, per thread, until the outermost region ends.
// The key's TensorImpl is kept alive by the stored source, so an address is never reused
// for another tensor while its entry exists.
struct CacheEntry {
  Tensor source, cast;
};
thread_local std::unordered_map<const TensorImpl*, CacheEntry> t_cache_map;

bool device_active(const Tensor& t) {
  return t.device().is_cuda() ? is_enabled() : t.device().is_cpu() && is_cpu_enabled();
}

ScalarType lower_dtype(const Tensor& t) {
  return t.device().is_cuda() ? get_autocast_gpu_dtype() : get_autocast_cpu_dtype();
}

Tensor to_lower(const Tensor& t) {
  const ScalarType target = lower_dtype(t);
  if (t.scalar_type() == target) return t;
  const bool cacheable = is_autocast_cache_enabled() && t.scalar_type() == kFloat && t.is_leaf() &&
                         t.requires_grad() && autograd::GradMode::is_enabled();
  if (!cacheable) return t.to(target);
  auto it = t_cache_map.find(t.unsafeGetTensorImpl());
  if (it != t_cache_map.end() && it->second.cast.scalar_type() == target) return it->second.cast;
  Tensor cast = t.to(target);
  t_cache_map[t.unsafeGetTensorImpl()] = {t, cast};
  return cast;
}

Tensor cast_one(AutocastPolicies policies, const Tensor& t, ScalarType widest) {
  if (!t.defined() || !device_active(t) || !isFloatingType(t.scalar_type())) return t;
  switch (policies.on(t.device().type())) {
    case AutocastPolicy::LowerPrecision:
      return t.scalar_type() == kDouble ? t : to_lower(t);
    case AutocastPolicy::Float32:
      return t.scalar_type() == kHalf || t.scalar_type() == kBFloat16 ? t.to(kFloat) : t;
    case AutocastPolicy::Promote:
      return t.scalar_type() == widest ? t : t.to(widest);
    case AutocastPolicy::None:
      break;
  }
  return t;
}

}  // namespace

std::vector<Tensor> cast_inputs(AutocastPolicies policies, const std::vector<Tensor>& inputs) {
  // Promote: the widest floating dtype among the inputs whose device promotes.
  ScalarType widest = ScalarType::Undefined;
  for (const Tensor& t : inputs)
    if (t.defined() && isFloatingType(t.scalar_type()) && policies.on(t.device().type()) == AutocastPolicy::Promote)
      widest = widest == ScalarType::Undefined ? t.scalar_type() : promote_types(widest, t.scalar_type());
  std::vector<Tensor> out;
  out.reserve(inputs.size());
  for (const Tensor& t : inputs) out.push_back(cast_one(policies, t, widest));
  return out;
}

std::vector<Tensor> cast_inputs(AutocastPolicies policies, std::initializer_list<const Tensor*> inputs) {
  std::vector<Tensor> v;
  v.reserve(inputs.size());
  for (const Tensor* t : inputs) v.push_back(*t);
  return cast_inputs(policies, v);
}

void clear_cache() { t_cache_map.clear(); }

}  // namespace ember::autocast
