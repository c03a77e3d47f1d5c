// Ops the fuser puts in place of others (random_ops.h): fused dropout's dropout_seed and
// fused_dropout (Note [Fused dropout] in kernel_spec.h), softmax's softmax_shift.
#include "ember/jit/random_ops.h"

#include <cstring>

#include "ember/autograd/record.h"
#include "ember/core/error.h"
#include "ember/core/generator.h"
#include "ember/core/parallel.h"
#include "ember/core/tracing_call.h"
#include "ember/jit/kernel_spec.h"
#include "ember/ops/functions.h"

namespace ember::jit {

namespace {

const tracing::TracedOpDef dropout_seed_traced{
    {"dropout_seed", tracing::Fusion::Opaque,
     [](const tracing::TracedOp&, const std::vector<Tensor>&, const tracing::Attrs&) -> std::vector<Tensor> {
       return {dropout_seed()};
     },
     /*random=*/true}};

const tracing::TracedOpDef fused_dropout_traced{
    {"fused_dropout", tracing::Fusion::Pointwise,
     [](const tracing::TracedOp&, const std::vector<Tensor>& in, const tracing::Attrs& a) -> std::vector<Tensor> {
       EMBER_CHECK(in.size() == 2, "fused_dropout: expected 2 inputs (input, seed), got ", in.size());
       return {fused_dropout(in[0], in[1], tracing::double_attr(a, "p", "fused_dropout"))};
     }}};

const tracing::TracedOpDef softmax_shift_traced{
    {"softmax_shift", tracing::Fusion::Reduction,
     [](const tracing::TracedOp&, const std::vector<Tensor>& in, const tracing::Attrs&) -> std::vector<Tensor> {
       return {softmax_shift(in.at(0))};
     }}};

template <class T, class C>
void drop(const T* x, T* out, int64_t n, uint64_t seed, uint64_t threshold, C scale) {
  parallel_for(0, n, 32768, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const bool keep = (dropout_bits(seed, uint64_t(i)) >> 40) < threshold;
      out[i] = keep ? T(C(x[i]) * scale) : T(0);
    }
  });
}

Tensor fused_dropout_values(const Tensor& x, const Tensor& seed, double p) {
  EMBER_CHECK(x.is_cpu() && seed.is_cpu(), "fused_dropout: runs on the CPU, got ", x.device());
  EMBER_CHECK(seed.scalar_type() == kLong && seed.dim() == 0, "fused_dropout: the seed is a 0-dim Long tensor, got ",
              seed.scalar_type(), " of shape ", seed.sizes());
  EMBER_CHECK(p >= 0 && p < 1, "fused_dropout: p must be in [0, 1), got ", p);
  const Tensor xc = x.contiguous();  // element i: row-major index i
  Tensor out = empty(x.sizes(), x.options());
  const uint64_t s = static_cast<uint64_t>(seed.item<int64_t>());
  const uint64_t threshold = dropout_threshold(1 - p);
  const int64_t n = x.numel();
  switch (x.scalar_type()) {
    case kFloat: drop(xc.data_ptr<float>(), out.data_ptr<float>(), n, s, threshold, float(1 / (1 - p))); break;
    case kDouble: drop(xc.data_ptr<double>(), out.data_ptr<double>(), n, s, threshold, 1 / (1 - p)); break;
    case kHalf: drop(xc.data_ptr<Half>(), out.data_ptr<Half>(), n, s, threshold, float(1 / (1 - p))); break;
    case kBFloat16: drop(xc.data_ptr<BFloat16>(), out.data_ptr<BFloat16>(), n, s, threshold, float(1 / (1 - p))); break;
    default: EMBER_ERROR("fused_dropout: expected a floating point input, got ", x.scalar_type());
  }
  return out;
}

}  // namespace

Tensor dropout_seed() {
  if (tracing::active()) return tracing::traced_call(dropout_seed_traced, {}, {}, [] { return dropout_seed(); });
  Generator& g = default_generator();
  uint64_t bits = 0;
  {
    std::lock_guard<std::mutex> lock(g.mutex());
    bits = g->random64();
  }
  Tensor t = empty({}, TensorOptions().dtype(kLong));
  int64_t v = 0;
  std::memcpy(&v, &bits, sizeof v);
  *t.data_ptr<int64_t>() = v;
  return t;
}

Tensor fused_dropout(const Tensor& x, const Tensor& seed, double p) {
  if (tracing::active())
    return tracing::traced_call(fused_dropout_traced, {x, seed}, {{"p", Scalar(p)}}, [&] { return fused_dropout(x, seed, p); });
  check_defined(x, "fused_dropout", "input");
  autograd::Recording rec({&x});
  if (!rec.any()) return fused_dropout_values(x, seed, p);
  Tensor r;
  {
    autograd::BelowAutogradGuard below;
    r = fused_dropout_values(x, seed, p);
  }
  // Linear in x with the same mask: both derivatives are the op itself.
  if (rec.forward())
    rec.forward_each(r, [&](const std::function<Tensor(size_t)>& t) { return fused_dropout(t(0), seed, p); });
  if (rec.reverse())
    rec.record("fused_dropout", {&r}, [seed, p](const autograd::VjpCtx& c) {
      return autograd::variable_list{c.needs_input_grad(0) ? fused_dropout(c.grad(), seed, p) : Tensor()};
    });
  return r;
}

Tensor softmax_shift(const Tensor& x) {
  if (tracing::active()) return tracing::traced_call(softmax_shift_traced, {x}, {}, [&] { return softmax_shift(x); });
  check_defined(x, "softmax_shift", "input");
  EMBER_CHECK(x.dim() >= 1, "softmax_shift: expected at least one dimension, got a 0-dim tensor");
  return amax(x.detach(), {-1}, /*keepdim=*/true);
}

}  // namespace ember::jit
