#include "ember/nn/functional/normalization.h"

#include <cmath>

#include "ember/autograd/autograd.h"
#include "ember/autograd/grad_mode.h"
#include "ember/autograd/record.h"
#include "ember/ops/batch_norm_device.h"
#include "ember/ops/channel_affine.h"
#include "ember/ops/functions.h"
#include "ember/core/tracing_call.h"
#include "ember/ops/norm_device.h"
#include "ember/ops/op_def.h"

namespace ember {

namespace norm_detail {
namespace {
thread_local NormForwardFn cpu_forward = nullptr;
thread_local NormBackwardFn cpu_backward = nullptr;
}  // namespace
ScopedFusedNormForCpu::ScopedFusedNormForCpu(NormForwardFn forward, NormBackwardFn backward)
    : previous_forward_(cpu_forward), previous_backward_(cpu_backward) {
  cpu_forward = forward, cpu_backward = backward;
}
ScopedFusedNormForCpu::~ScopedFusedNormForCpu() { cpu_forward = previous_forward_, cpu_backward = previous_backward_; }

namespace {
thread_local const DeviceBatchNorm* cpu_batch_norm = nullptr;
}  // namespace
ScopedDeviceBatchNormForCpu::ScopedDeviceBatchNormForCpu(const DeviceBatchNorm* table) : previous_(cpu_batch_norm) {
  cpu_batch_norm = table;
}
ScopedDeviceBatchNormForCpu::~ScopedDeviceBatchNormForCpu() { cpu_batch_norm = previous_; }
}  // namespace norm_detail

namespace {
// (d0, C, 1, ...) shaped like `input` for per-channel (and per-sample: d0 = N) factors.
Tensor channel_view(const Tensor& t, const Tensor& input) {
  DimVector shape(size_t(input.dim()), 1);
  shape[0] = t.dim() == 2 ? t.size(0) : 1;
  shape[1] = t.size(-1);
  return t.reshape(shape).to(input.scalar_type());
}
// input * scale + shift in one pass, in the input's layout; mean/var per channel (C) or per
// sample and channel (N, C).
Tensor normalize_affine(const Tensor& input, const Tensor& mean, const Tensor& var, const Tensor& weight,
                        const Tensor& bias, double eps) {
  // Inference with per-channel statistics: one pass with the factors in the compute type
  // (float for bfloat16/half: a bfloat16 network is scaled by float factors, as in PyTorch).
  if (mean.dim() == 1 && !autograd::maybe_differentiable(input, mean, var, weight, bias)) {
    const ScalarType compute = input.scalar_type() == kDouble ? kDouble : kFloat;
    if (isFloatingType(input.scalar_type())) {
      Tensor scale = var.to(compute).add(eps).rsqrt();
      if (weight.defined()) scale = scale.mul(weight.to(compute));
      Tensor shift = mean.to(compute).mul(scale).neg();
      if (bias.defined()) shift = shift.add(bias.to(compute));
      if (auto y = channel_affine(input, scale, shift)) return *y;
    }
  }
  Tensor scale = var.add(eps).rsqrt();
  if (weight.defined()) scale = scale.mul(weight);
  Tensor shift = mean.mul(scale).neg();
  if (bias.defined()) shift = shift.add(bias);
  return addcmul(channel_view(shift, input), input, channel_view(scale, input));
}
std::vector<int64_t> dims_from(int64_t first, int64_t rank) {
  std::vector<int64_t> d;
  for (int64_t i = first; i < rank; ++i) d.push_back(i);
  return d;
}

// Note [Fused normalization on devices]
// On a device, layer_norm and group_norm of a contiguous floating input (weight and bias of
// its dtype, or none) run as PyTorch's native_layer_norm / native_group_norm do: one kernel
// computes each row's mean and rstd and writes the output (ops/norm_device.h), and the
// backward to the input is one kernel from the saved mean and rstd; the weight and bias
// gradients are reductions of dy * xhat and dy. A backward that must itself be
// differentiable (create_graph) differentiates the composite formula instead, and forward-mode
// tangents use the closed form below. Every other case (the CPU, non-contiguous input) is
// the composite.
// create_graph: the gradients of (x, weight, bias) through `composite` (recomputed from the
// saved input), themselves differentiable: what a fused normalization's backward returns then.
autograd::variable_list composite_grads(const autograd::VjpCtx& c, const Tensor& x, const Tensor& weight,
                                        const Tensor& bias, const std::function<Tensor()>& composite) {
  const Tensor* in[] = {&x, &weight, &bias};
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < 3; ++i)
    if (c.needs_input_grad(i)) inputs.push_back(*in[i]);
  autograd::variable_list out(3);
  if (inputs.empty()) return out;
  auto grads = autograd::grad({composite()}, inputs, {c.grad()}, true, true, true);
  for (size_t i = 0, j = 0; i < 3; ++i)
    if (c.needs_input_grad(i)) out[i] = grads[j++];
  return out;
}

struct FusedNorm {
  NormForwardFn forward;
  NormBackwardFn backward;
};

std::optional<FusedNorm> fused_norm_kernels(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  if (!input.is_contiguous() || input.numel() == 0 || !kFloatingTypes.contains(input.scalar_type())) return std::nullopt;
  for (const Tensor* t : {&weight, &bias})
    if (t->defined() && (t->scalar_type() != input.scalar_type() || t->device() != input.device() ||
                         !t->is_contiguous()))
      return std::nullopt;
  if (input.is_cpu()) {
    if (!norm_detail::cpu_forward) return std::nullopt;
    return FusedNorm{norm_detail::cpu_forward, norm_detail::cpu_backward};
  }
  const auto f = reinterpret_cast<NormForwardFn>(lookup_kernel("norm_forward", input.device().type()));
  const auto b = reinterpret_cast<NormBackwardFn>(lookup_kernel("norm_backward", input.device().type()));
  if (!f || !b) return std::nullopt;
  return FusedNorm{f, b};
}

using NormComposite = std::function<Tensor(const Tensor& input, const Tensor& weight, const Tensor& bias)>;

// The fused normalization of `input` in geometry g; `composite` computes the same values
// differentiably (for create_graph).
Tensor fused_norm(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias, const NormGeometry& g,
                  const FusedNorm& k, NormComposite composite) {
  const int64_t n3 = g.rows / g.groups;
  // Rows as (n3, groups, cols); per-channel tensors as (1, groups, cols) per element.
  auto view3 = [n3, g](const Tensor& t) { return t.reshape({n3, g.groups, g.cols}); };
  auto per_element = [g](const Tensor& t) {
    return t.reshape({1, g.groups, g.channels_per_group, 1})
        .expand({1, g.groups, g.channels_per_group, g.inner})
        .reshape({1, g.groups, g.cols});
  };
  // (n3, groups, cols) summed to one value per channel, in the channel tensor's shape.
  auto per_channel = [n3, g](const Tensor& t3, const Tensor& like) {
    return t3.reshape({n3, g.groups, g.channels_per_group, g.inner}).sum(IntArrayRef{0, 3}).reshape(like.sizes())
        .to(like.scalar_type());
  };
  const ScalarType acc = input.scalar_type() == kDouble ? kDouble : kFloat;
  const Tensor mean = empty({g.rows}, input.options().dtype(acc).requires_grad(false));
  const Tensor rstd = empty({g.rows}, input.options().dtype(acc).requires_grad(false));
  auto run = [&] {
    Tensor y = empty(input.sizes(), input.options().requires_grad(false));
    k.forward(input, weight, bias, g, y, mean, rstd);
    return y;
  };
  if (!autograd::maybe_differentiable(input, weight, bias)) return run();
  auto xhat_of = [view3, mean, rstd, n3, g](const Tensor& x) {
    return view3(x).sub(mean.view({n3, g.groups, 1})).mul(rstd.view({n3, g.groups, 1}));
  };
  return autograd::differentiable(
      op, {&input, &weight, &bias}, run,
      [=](const autograd::VjpCtx& c) {
        const Tensor dy = c.grad().contiguous(), xs = c.saved_tensor(0);
        if (autograd::GradMode::is_enabled())  // create_graph: differentiate the composite
          return composite_grads(c, xs, weight, bias, [&] { return composite(xs, weight, bias); });
        Tensor gx, gw, gb;
        if (c.needs_input_grad(0)) {
          gx = empty(xs.sizes(), xs.options());
          k.backward(dy, xs, mean, rstd, weight, g, gx);
        }
        if (c.needs_input_grad(1)) gw = per_channel(view3(dy).mul(xhat_of(xs)), weight);
        if (c.needs_input_grad(2)) gb = per_channel(view3(dy), bias);
        return autograd::variable_list{gx, gw, gb};
      },
      [&](const auto& t, const Tensor&) {
        // d xhat = rstd (dx - mean(dx) - xhat mean(dx xhat)) over each row; dy = d xhat w + xhat dw + db.
        const Tensor xhat = xhat_of(input);
        Tensor dy;
        if (t(0).defined()) {
          const Tensor dx = view3(t(0)).to(acc);
          Tensor dxhat = dx.sub(dx.mean(-1, true)).sub(xhat.mul(dx.mul(xhat).mean(-1, true)))
                             .mul(rstd.view({n3, g.groups, 1}));
          dy = weight.defined() ? dxhat.mul(per_element(weight)) : dxhat;
        }
        if (t(1).defined()) {
          const Tensor term = xhat.mul(per_element(t(1)));
          dy = dy.defined() ? dy.add(term) : term;
        }
        if (t(2).defined()) {
          const Tensor term = per_element(t(2)).expand({n3, g.groups, g.cols});
          dy = dy.defined() ? dy.add(term) : term;
        }
        return dy.reshape(input.sizes()).to(input.scalar_type());
      },
      weight.defined() ? std::vector<autograd::ToSave>{{input}, {weight}} : std::vector<autograd::ToSave>{{input}});
}
}  // namespace

namespace {
Tensor group_norm_composite(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias,
                            double eps);
}  // namespace

Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps, bool) {
  EMBER_CHECK(input.dim() >= 2, "Expected at least 2 dimensions for input tensor but received ", input.dim());
  const int64_t N = input.size(0), C = input.size(1);
  EMBER_CHECK(num_groups > 0 && C % num_groups == 0, "Expected number of channels in input to be divisible by ",
              "num_groups, but got input of shape ", input.sizes(), " and num_groups=", num_groups);
  EMBER_CHECK(!weight.defined() || (weight.dim() == 1 && weight.numel() == C), "Expected weight to be a vector of size ",
              "equal to the number of channels in input, but got weight of shape ", weight.sizes(),
              " and input of shape ", input.sizes());
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.numel() == C), "Expected bias to be a vector of size equal ",
              "to the number of channels in input, but got bias of shape ", bias.sizes(), " and input of shape ",
              input.sizes());
  if (auto k = fused_norm_kernels(input, weight, bias)) {
    NormGeometry g;
    g.groups = num_groups, g.channels_per_group = C / num_groups, g.inner = input.numel() / std::max<int64_t>(N * C, 1);
    g.rows = N * num_groups, g.cols = g.channels_per_group * g.inner, g.eps = eps;
    return fused_norm("native_group_norm", input, weight, bias, g, *k,
                      [num_groups, eps](const Tensor& x, const Tensor& w, const Tensor& b) {
                        return group_norm_composite(x, num_groups, w, b, eps);
                      });
  }
  return group_norm_composite(input, num_groups, weight, bias, eps);
}

namespace {
Tensor group_norm_composite(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias,
                            double eps) {
  const int64_t N = input.size(0), C = input.size(1);
  // Statistics per (sample, group) over a view (N, G, C/G, spatial...), any layout.
  const Tensor grouped = input.unflatten(1, {num_groups, C / num_groups});
  auto [var, mean] = var_mean(grouped, dims_from(2, grouped.dim()), std::optional<int64_t>(0), /*keepdim=*/false);
  auto per_channel = [&](const Tensor& t) {  // (N, G) -> (N, C)
    return t.unsqueeze(2).expand({N, num_groups, C / num_groups}).reshape({N, C});
  };
  return normalize_affine(input, per_channel(mean), per_channel(var), weight, bias, eps);
}
}  // namespace

Tensor instance_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                     const Tensor& running_var, bool use_input_stats, double momentum, double eps, bool) {
  EMBER_CHECK(input.dim() >= 2, "instance_norm: expected an input with at least 2 dims (N, C, ...), got ",
              input.sizes());
  EMBER_CHECK(use_input_stats || (running_mean.defined() && running_var.defined()),
              "Expected running_mean and running_var to be defined when use_input_stats is false");
  if (!use_input_stats) return normalize_affine(input, running_mean, running_var, weight, bias, eps);
  const std::vector<int64_t> dims = dims_from(2, input.dim());
  int64_t count = 1;
  for (int64_t d : dims) count *= input.size(d);
  EMBER_CHECK(count > 1 || !running_mean.defined(), "Expected more than 1 spatial element when training, got input ",
              "size ", input.sizes());
  auto [var, mean] = var_mean(input, dims, std::optional<int64_t>(0), /*keepdim=*/false);  // (N, C)
  if (running_mean.defined()) {
    // PyTorch updates a copy per sample, then stores their mean over the batch.
    NoGradGuard g;
    Tensor rm = running_mean, rv = running_var;
    rm.mul_(1 - momentum).add_(mean.detach().mean(0), momentum);
    rv.mul_(1 - momentum).add_(var.detach().mean(0).mul(double(count) / double(count - 1)), momentum);
  }
  return normalize_affine(input, mean, var, weight, bias, eps);
}

namespace nn {

namespace functional {
namespace {
// The composite batch norm (any device, differentiable to any order), arguments checked.
Tensor batch_norm_composite(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                            const Tensor& weight, const Tensor& bias, bool training, double momentum, double eps) {
  const int64_t C = input.size(1);
  Tensor mean = running_mean, var = running_var;
  if (training || !running_mean.defined()) {
    const int64_t count = input.numel() / std::max<int64_t>(C, 1);
    std::vector<int64_t> dims = dims_from(2, input.dim());
    dims.insert(dims.begin(), 0);
    std::tie(var, mean) = var_mean(input, dims, std::optional<int64_t>(0), /*keepdim=*/false);
    if (training && running_mean.defined()) {
      NoGradGuard g;
      Tensor rm = running_mean, rv = running_var;
      rm.mul_(1 - momentum).add_(mean.detach(), momentum);
      rv.mul_(1 - momentum).add_(var.detach().mul(double(count) / double(count - 1)), momentum);  // unbiased
    }
  }
  return normalize_affine(input, mean, var, weight, bias, eps);
}

// Note [Batch norm on devices]
// On a device with a DeviceBatchNorm (cuDNN's batch norm on CUDA, as PyTorch's
// cudnn_batch_norm), training-mode batch norm of a floating input whose per-channel tensors
// have the parameter type (float; double for double input) runs as one forward call that
// also updates the running statistics, saving the mean and inverse std for one backward
// call giving dx, dweight and dbias together. Inference without autograd uses the device's
// inference call. A differentiable backward (create_graph) differentiates the composite;
// forward-mode tangents use the closed form below; the rest (the CPU, other dtypes, eval
// mode under autograd) is the composite.
const DeviceBatchNorm* device_batch_norm_for(const Tensor& input, bool training,
                                             std::initializer_list<const Tensor*> per_channel) {
  const DeviceBatchNorm* bn = nullptr;
  if (input.is_cpu()) {
    bn = norm_detail::cpu_batch_norm;
  } else if (auto fn = reinterpret_cast<DeviceBatchNormFn>(lookup_kernel("device_batch_norm", input.device().type()))) {
    bn = fn();
  }
  if (!bn || input.dim() < 2 || input.dim() > 5 || input.numel() == 0 || !kFloatingTypes.contains(input.scalar_type()))
    return nullptr;
  const ScalarType pt = input.scalar_type() == kDouble ? kDouble : kFloat;
  for (const Tensor* t : per_channel)
    if (t->defined() && (t->scalar_type() != pt || t->device() != input.device() || !t->is_contiguous())) return nullptr;
  return bn->supports(input, training) ? bn : nullptr;
}

Tensor device_batch_norm(const DeviceBatchNorm& bn, const Tensor& input, const Tensor& running_mean,
                         const Tensor& running_var, const Tensor& weight, const Tensor& bias, bool training,
                         double momentum, double eps) {
  const int64_t C = input.size(1);
  const ScalarType pt = input.scalar_type() == kDouble ? kDouble : kFloat;
  const TensorOptions popts = input.options().dtype(pt).requires_grad(false).memory_format(MemoryFormat::Contiguous);
  const Tensor w = weight.defined() ? weight.detach() : ones({C}, popts);
  const Tensor b = bias.defined() ? bias.detach() : zeros({C}, popts);
  const MemoryFormat fmt = input.suggest_memory_format();
  const Tensor x = input.contiguous(fmt);
  auto output = [&] { return empty(input.sizes(), input.options().requires_grad(false).memory_format(fmt)); };
  if (!training) {
    Tensor y = output();
    bn.forward_inference(x, w, b, running_mean, running_var, eps, y);
    return y;
  }
  const Tensor save_mean = empty({C}, popts), save_invstd = empty({C}, popts);
  auto run = [&] {
    Tensor y = output();
    NoGradGuard no_grad;  // the running statistics are updated outside autograd
    bn.forward_training(x, w, b, running_mean, running_var, momentum, eps, y, save_mean, save_invstd);
    return y;
  };
  if (!autograd::maybe_differentiable(input, weight, bias)) return run();
  std::vector<int64_t> reduce = dims_from(2, input.dim());
  reduce.insert(reduce.begin(), 0);
  std::vector<int64_t> bshape(size_t(input.dim()), 1);
  bshape[1] = C;
  auto per_elem = [bshape](const Tensor& t) { return t.view(bshape); };
  return autograd::differentiable(
      "native_batch_norm", {&input, &weight, &bias}, run,
      [=, &bn](const autograd::VjpCtx& c) {
        const Tensor xs = c.saved_tensor(0);
        if (autograd::GradMode::is_enabled())  // create_graph: differentiate the composite
          return composite_grads(c, xs, weight, bias, [&] {
            return batch_norm_composite(xs, Tensor(), Tensor(), weight, bias, true, momentum, eps);
          });
        const MemoryFormat f = xs.suggest_memory_format();
        const Tensor dy = c.grad().contiguous(f);
        Tensor dx = empty(xs.sizes(), xs.options().memory_format(f)), dw = empty({C}, popts), db = empty({C}, popts);
        bn.backward(dy, xs.contiguous(f), w, save_mean, save_invstd, eps, dx, dw, db);
        return autograd::variable_list{c.needs_input_grad(0) ? dx : Tensor(), c.needs_input_grad(1) ? dw : Tensor(),
                                       c.needs_input_grad(2) ? db : Tensor()};
      },
      [&](const auto& t, const Tensor&) {
        // With xhat = (x - mean) invstd per channel: d xhat = invstd (dx - mean(dx) - xhat mean(dx xhat))
        // over each channel's elements; dy = d xhat w + xhat dw + db.
        const ScalarType acc = pt;
        const Tensor xhat = input.to(acc).sub(per_elem(save_mean)).mul(per_elem(save_invstd));
        Tensor dy;
        if (t(0).defined()) {
          const Tensor dx = t(0).to(acc);
          const Tensor dxhat = dx.sub(dx.mean(reduce, true)).sub(xhat.mul(dx.mul(xhat).mean(reduce, true)))
                                   .mul(per_elem(save_invstd));
          dy = dxhat.mul(per_elem(w));
        }
        if (t(1).defined()) {
          const Tensor term = xhat.mul(per_elem(t(1)));
          dy = dy.defined() ? dy.add(term) : term;
        }
        if (t(2).defined()) {
          const Tensor term = per_elem(t(2)).expand(input.sizes());
          dy = dy.defined() ? dy.add(term) : term;
        }
        return dy.to(input.scalar_type());
      },
      weight.defined() ? std::vector<autograd::ToSave>{{input}, {weight}} : std::vector<autograd::ToSave>{{input}});
}
}  // namespace

namespace {
// Traced (Note [Tracing hooks]): in training mode the node writes the running statistics, so it
// is kept and never merged (the op's `random` flag: an effect beyond its output).
const tracing::TracedOpDef batch_norm_traced{{"batch_norm", tracing::Fusion::Opaque, [](const tracing::TracedOp&, const std::vector<Tensor>& in, const tracing::Attrs& a) -> std::vector<Tensor> {
  EMBER_CHECK(in.size() == 5, "batch_norm: expected 5 inputs (input, running_mean, running_var, weight, bias), got ", in.size());
  return {batch_norm(in[0], in[1], in[2], in[3], in[4], tracing::bool_attr(a, "training", "batch_norm"),
                     tracing::double_attr(a, "momentum", "batch_norm"), tracing::double_attr(a, "eps", "batch_norm"))};
}, /*random=*/true}};
}  // namespace

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum, double eps) {
  if (tracing::active())
    return tracing::traced_call(batch_norm_traced, {input, running_mean, running_var, weight, bias},
                                {{"training", Scalar(training)}, {"momentum", Scalar(momentum)}, {"eps", Scalar(eps)}},
                                [&] { return batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps); });
  check_defined(input, "batch_norm", "input");
  EMBER_CHECK(input.dim() >= 2, "batch_norm: expected an input with at least 2 dims (N, C, ...), got ", input.sizes());
  const int64_t C = input.size(1);
  EMBER_CHECK(running_mean.defined() == running_var.defined(),
              "batch_norm: running_mean and running_var must both be given or both be undefined");
  const std::pair<const Tensor*, const char*> per_channel[] = {
      {&running_mean, "running_mean"}, {&running_var, "running_var"}, {&weight, "weight"}, {&bias, "bias"}};
  for (const auto& [t, name] : per_channel)
    EMBER_CHECK(!t->defined() || t->numel() == C, "batch_norm: ", name, " should contain ", C, " elements not ",
                t->numel());
  if (training || !running_mean.defined()) {
    const int64_t count = input.numel() / std::max<int64_t>(C, 1);
    EMBER_CHECK(count > 1 || !training, "Expected more than 1 value per channel when training, got input size ",
                input.sizes());
  }
  const bool device_ok = training ? true : running_mean.defined() && !autograd::maybe_differentiable(input, weight, bias);
  if (device_ok)
    if (const DeviceBatchNorm* bn = device_batch_norm_for(input, training, {&running_mean, &running_var, &weight, &bias}))
      return device_batch_norm(*bn, input, running_mean, running_var, weight, bias, training, momentum, eps);
  return batch_norm_composite(input, running_mean, running_var, weight, bias, training, momentum, eps);
}
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& o) {
  return batch_norm(input, running_mean, running_var, o.weight(), o.bias(), o.training(), o.momentum().value_or(0.1),
                    o.eps());
}
Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& o) {
  return ::ember::instance_norm(input, o.weight(), o.bias(), o.running_mean(), o.running_var(), o.use_input_stats(),
                                o.momentum(), o.eps());
}
Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& o) {
  return ::ember::group_norm(input, o.num_groups(), o.weight(), o.bias(), o.eps());
}

Tensor local_response_norm(const Tensor& input, int64_t size, double alpha, double beta, double k) {
  EMBER_CHECK(input.dim() >= 3, "Expected 3D or higher dimensionality input (got ", input.dim(), " dimensions)");
  EMBER_CHECK(size > 0, "local_response_norm: size must be positive, got ", size);
  if (input.numel() == 0) return input;
  // The mean of x^2 over channels [c - size/2, c + (size-1)/2], zero outside.
  std::vector<int64_t> pad(size_t(2 * (input.dim() - 1)), 0);
  pad[pad.size() - 2] = size / 2, pad[pad.size() - 1] = (size - 1) / 2;
  const Tensor sq = constant_pad_nd(input.mul(input), pad, 0);
  Tensor sum = sq.narrow(1, 0, input.size(1));
  for (int64_t j = 1; j < size; ++j) sum = sum.add(sq.narrow(1, j, input.size(1)));
  return input.div(sum.mul(alpha / double(size)).add(k).pow(beta));
}
Tensor local_response_norm(const Tensor& input, const LocalResponseNormFuncOptions& o) {
  return local_response_norm(input, o.size(), o.alpha(), o.beta(), o.k());
}
}  // namespace functional

namespace functional {
namespace {
const tracing::TracedOpDef layer_norm_traced{{"layer_norm", tracing::Fusion::Opaque, [](const tracing::TracedOp&, const std::vector<Tensor>& in, const tracing::Attrs& a) -> std::vector<Tensor> {
  return {functional::layer_norm(in.at(0), tracing::ints_attr(a, "normalized_shape", "layer_norm"), in.size() > 1 ? in[1] : Tensor(),
                                 in.size() > 2 ? in[2] : Tensor(), tracing::double_attr(a, "eps", "layer_norm"))};
}}};
}  // namespace

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps) {
  if (tracing::active())
    return tracing::traced_call(layer_norm_traced, {input, weight, bias},
                                {{"normalized_shape", tracing::ints(normalized_shape)}, {"eps", Scalar(eps)}},
                                [&] { return layer_norm(input, normalized_shape, weight, bias, eps); });
  const int64_t k = int64_t(normalized_shape.size());
  EMBER_CHECK(k >= 1 && input.dim() >= k, "layer_norm: normalized_shape ", normalized_shape,
              " does not fit input of shape ", input.sizes());
  EMBER_CHECK(input.sizes().slice(size_t(input.dim() - k)) == normalized_shape, "layer_norm: Given normalized_shape=",
              normalized_shape, ", expected input with shape [*, ", normalized_shape, "], but got input of size ",
              input.sizes());
  auto composite = [k, eps](const Tensor& x, const Tensor& w, const Tensor& b) {
    std::vector<int64_t> dims;
    for (int64_t d = x.dim() - k; d < x.dim(); ++d) dims.push_back(d);
    auto [var, mean] = var_mean(x, IntArrayRef(dims), std::optional<int64_t>(0), /*keepdim=*/true);
    Tensor out = x.sub(mean).mul(var.add(eps).rsqrt());
    if (w.defined()) out = out.mul(w);
    if (b.defined()) out = out.add(b);
    return out;
  };
  const bool affine_shaped = (!weight.defined() || weight.sizes() == normalized_shape) &&
                             (!bias.defined() || bias.sizes() == normalized_shape);
  if (auto kernels = affine_shaped ? fused_norm_kernels(input, weight, bias) : std::nullopt) {
    NormGeometry g;
    g.cols = 1;
    for (int64_t s : normalized_shape) g.cols *= s;
    g.rows = input.numel() / g.cols, g.groups = 1, g.channels_per_group = g.cols, g.inner = 1, g.eps = eps;
    return fused_norm("native_layer_norm", input, weight, bias, g, *kernels, composite);
  }
  return composite(input, weight, bias);
}
Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options) {
  return functional::layer_norm(input, IntArrayRef(options.normalized_shape()), options.weight(), options.bias(),
                                options.eps());
}

namespace {
Tensor normalize_denominator(const Tensor& input, double p, int64_t dim, double eps) {
  int64_t d = dim;
  return linalg::vector_norm(input, p, IntArrayRef(&d, 1), /*keepdim=*/true).clamp_min(eps).expand_as(input);
}
}  // namespace
Tensor normalize(const Tensor& input, double p, int64_t dim, double eps) {
  return input.div(normalize_denominator(input, p, dim, eps));
}
Tensor normalize(const Tensor& input, NormalizeFuncOptions options) {
  if (!options.out()) return functional::normalize(input, options.p(), options.dim(), options.eps());
  return div_out(*options.out(), input, normalize_denominator(input, options.p(), options.dim(), options.eps()));
}
}  // namespace functional

}  // namespace nn
}  // namespace ember
