# Golden data for tests/nn/golden_layers_test.cpp: PyTorch's activations, layers, losses
# and initializers, computed by torch 1.13 on CPU (float64 unless a case ends in _f32).
#   PYTHONPATH=<dir with safetensors> /usr/bin/python3 tests/golden/gen_nn_layers.py
# A checked case <name> stores
#   <name>.in.<i>    inputs (a floating input i requires grad iff <name>.gin.<i> exists)
#   <name>.p.<key>   module parameters, <name>.b.<key> buffers, loaded before the call
#   <name>.out       the output, <name>.r a random weight, and the gradients of sum(out * r):
#   <name>.gin.<i>   w.r.t. input i,  <name>.gp.<key> w.r.t. parameter <key>
#   <name>.a.<key>   parameters/buffers after the call (running stats, renormalized rows)
# Initializers (statistical checks, since the generators differ) store
#   init.<name>.uniform = [low, high] / init.<name>.normal = [mean, std] as PyTorch passes them
#   to uniform_/normal_, init.<name>.trunc = [mean, std, a, b, E[x], std[x]],
#   init.<name>.exact = PyTorch's (deterministic) result, init.<name>.gram = Q^T Q (or Q Q^T);
#   gain.<name> = calculate_gain, fan.<name> = [fan_in, fan_out].
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import save_file

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)
out = {}


def case(name, fn, inputs, grads=None, module=None):
    """Runs fn(*inputs) (module: its parameters/buffers are stored before and after)."""
    assert "." not in name and f"{name}.out" not in out, name
    if grads is None:
        grads = [t.is_floating_point() for t in inputs]
    xs = [t.detach().clone().requires_grad_(g) for t, g in zip(inputs, grads)]
    for i, t in enumerate(xs):
        out[f"{name}.in.{i}"] = t.detach().clone()
    if module is not None:
        for k, p in module.named_parameters():
            out[f"{name}.p.{k}"] = p.detach().clone()
        for k, b in module.named_buffers():
            out[f"{name}.b.{k}"] = b.detach().clone()
    y = fn(*xs)
    out[f"{name}.out"] = y.detach().clone()
    if y.requires_grad:
        r = torch.randn_like(y)
        out[f"{name}.r"] = r
        (y * r).sum().backward()
        for i, (t, g) in enumerate(zip(xs, grads)):
            if g:
                out[f"{name}.gin.{i}"] = t.grad.clone()
    if module is not None:
        for k, p in module.named_parameters():
            if p.grad is not None:
                out[f"{name}.gp.{k}"] = p.grad.clone()
            out[f"{name}.a.{k}"] = p.detach().clone()
        for k, b in module.named_buffers():
            out[f"{name}.a.{k}"] = b.detach().clone()


def with_special(special, shape, scale=3.0, dtype=torch.float64):
    """Random values of `shape` whose first entries are `special` (thresholds, +-eps around them)."""
    n = math.prod(shape)
    x = torch.randn(n) * scale
    x[: len(special)] = torch.tensor(special, dtype=torch.float64)
    return x[torch.randperm(n)].reshape(shape).to(dtype)


def around(*points, eps=1e-3):
    return [v for p in points for v in (p - eps, p, p + eps)]


def mod(m):
    """A module case: runs m(*inputs)."""
    return dict(fn=lambda *x: m(*x), module=m)


# ---- activations: outputs and input (and parameter) gradients -----------------------------
S = (4, 9)
acts = {
    "relu": (nn.ReLU(), around(0.0)),
    "sigmoid": (nn.Sigmoid(), [-40.0, 40.0, 0.0]),
    "tanh": (nn.Tanh(), [-20.0, 20.0, 0.0]),
    "gelu": (nn.GELU(), around(0.0) + [-10.0, 10.0]),
    "gelu_tanh": (nn.GELU(approximate="tanh"), around(0.0) + [-10.0, 10.0]),
    "silu": (nn.SiLU(), [0.0, -40.0, 40.0]),
    "mish": (nn.Mish(), [0.0, -40.0, 40.0]),
    "selu": (nn.SELU(), around(0.0)),
    "relu6": (nn.ReLU6(), around(0.0, 6.0)),
    # not x = 3 itself: PyTorch's hardswish derivative there is 1.5 from the scalar kernel and 1 from
    # the vectorized one (ember gives 1.5)
    "hardswish": (nn.Hardswish(), around(-3.0, 0.0) + [3 - 1e-3, 3 + 1e-3]),
    # PyTorch's hardsigmoid derivative is float(1/6) even in float64 (the test allows for it)
    "hardsigmoid": (nn.Hardsigmoid(), around(-3.0, 0.0, 3.0)),
    "softsign": (nn.Softsign(), [0.0, -100.0, 100.0]),
    "elu": (nn.ELU(), around(0.0)),
    "elu_a05": (nn.ELU(alpha=0.5), around(0.0)),
    "celu": (nn.CELU(), around(0.0)),
    "celu_a2": (nn.CELU(alpha=2.0), around(0.0)),
    "leaky_relu": (nn.LeakyReLU(), around(0.0)),
    "leaky_relu_02": (nn.LeakyReLU(0.2), around(0.0)),
    "leaky_relu_neg": (nn.LeakyReLU(-0.5), around(0.0)),
    "hardtanh": (nn.Hardtanh(), around(-1.0, 1.0)),
    "hardtanh_m2_05": (nn.Hardtanh(-2.0, 0.5), around(-2.0, 0.5)),
    "softplus": (nn.Softplus(), around(20.0) + [0.0, -30.0]),
    "softplus_b2_t5": (nn.Softplus(beta=2.0, threshold=5.0), around(2.5) + [0.0, -30.0]),
    "softplus_b05": (nn.Softplus(beta=0.5), around(40.0) + [0.0]),
    "threshold": (nn.Threshold(0.5, -2.0), around(0.5)),
    "threshold_0_0": (nn.Threshold(0.0, 0.0), around(0.0)),
    # absent from ember before these checks
    "logsigmoid": (nn.LogSigmoid(), [0.0, -40.0, 40.0]),
    "tanhshrink": (nn.Tanhshrink(), [0.0, 1e-4, -20.0]),
    "hardshrink": (nn.Hardshrink(), around(-0.5, 0.5)),
    "hardshrink_1": (nn.Hardshrink(1.0), around(-1.0, 1.0)),
    "softshrink": (nn.Softshrink(), around(-0.5, 0.5)),
    "softshrink_1": (nn.Softshrink(1.0), around(-1.0, 1.0)),
}
for name, (m, special) in acts.items():
    case(name, inputs=[with_special(special, S)], **mod(m))
for name in ["gelu", "elu", "softplus", "hardswish", "mish"]:
    m, special = acts[name]
    case(name + "_f32", inputs=[with_special(special, S, dtype=torch.float32)], **mod(m))

X3 = (3, 4, 5)
for d in [0, 1, 2, -1]:
    tag = f"m{-d}" if d < 0 else str(d)
    case(f"softmax_{tag}", inputs=[torch.randn(X3) * 3], **mod(nn.Softmax(d)))
    case(f"log_softmax_{tag}", inputs=[torch.randn(X3) * 3], **mod(nn.LogSoftmax(d)))
    case(f"softmin_{tag}", inputs=[torch.randn(X3) * 3], **mod(nn.Softmin(d)))
case("softmax_large", inputs=[torch.randn(X3) * 300], **mod(nn.Softmax(1)))
case("log_softmax_large", inputs=[torch.randn(X3) * 300], **mod(nn.LogSoftmax(-1)))
case("softmax_f32", inputs=[torch.randn(X3, dtype=torch.float32) * 3], **mod(nn.Softmax(1)))
case("log_softmax_f32", inputs=[torch.randn(X3, dtype=torch.float32) * 3], **mod(nn.LogSoftmax(2)))
case("softmax2d_4d", inputs=[torch.randn(2, 3, 4, 5)], **mod(nn.Softmax2d()))
case("softmax2d_3d", inputs=[torch.randn(3, 4, 5)], **mod(nn.Softmax2d()))
case("glu", inputs=[torch.randn(3, 8)], **mod(nn.GLU()))
case("glu_dim1", inputs=[torch.randn(2, 6, 3)], **mod(nn.GLU(1)))

for name, m, shape in [("prelu_1", nn.PReLU(), (3, 4, 5)), ("prelu_c", nn.PReLU(4), (3, 4, 5)),
                       ("prelu_c_2d", nn.PReLU(4), (6, 4)), ("prelu_1_1d", nn.PReLU(), (7,))]:
    with torch.no_grad():
        m.weight.copy_(torch.randn_like(m.weight) * 0.5)
    case(name, inputs=[with_special([0.0, 1e-3, -1e-3], shape)], **mod(m))
m = nn.PReLU(4).float()
with torch.no_grad():
    m.weight.copy_(torch.randn(4) * 0.5)
case("prelu_c_f32", inputs=[torch.randn(3, 4, 5, dtype=torch.float32)], **mod(m))

# ---- layers ------------------------------------------------------------------------------
case("linear", inputs=[torch.randn(4, 5)], **mod(nn.Linear(5, 3)))
case("linear_nobias", inputs=[torch.randn(4, 5)], **mod(nn.Linear(5, 3, bias=False)))
case("linear_3d", inputs=[torch.randn(2, 3, 5)], **mod(nn.Linear(5, 3)))
case("linear_1d", inputs=[torch.randn(5)], **mod(nn.Linear(5, 3)))
case("linear_f32", inputs=[torch.randn(4, 5, dtype=torch.float32)], **mod(nn.Linear(5, 3).float()))
case("bilinear", inputs=[torch.randn(5, 4), torch.randn(5, 3)], **mod(nn.Bilinear(4, 3, 2)))
case("bilinear_nobias", inputs=[torch.randn(5, 4), torch.randn(5, 3)], **mod(nn.Bilinear(4, 3, 2, bias=False)))
case("bilinear_3d", inputs=[torch.randn(2, 3, 4), torch.randn(2, 3, 3)], **mod(nn.Bilinear(4, 3, 2)))

idx = torch.tensor([[1, 2, 4, 2, 9], [0, 2, 3, 3, 1], [7, 7, 2, 5, 1]])
case("embedding", inputs=[idx], **mod(nn.Embedding(10, 4)))
case("embedding_pad", inputs=[idx], **mod(nn.Embedding(10, 4, padding_idx=2)))
case("embedding_pad_neg", inputs=[idx], **mod(nn.Embedding(10, 4, padding_idx=-3)))  # row 7
for name, kw in [("embedding_max_norm", dict(max_norm=1.5)),
                 ("embedding_max_norm_p1", dict(max_norm=2.0, norm_type=1.0)),
                 ("embedding_max_norm_pad", dict(max_norm=1.0, padding_idx=3))]:
    m = nn.Embedding(10, 4, **kw)
    with torch.no_grad():
        m.weight.mul_(torch.rand(10, 1) * 2)  # some rows above max_norm, some below
    case(name, inputs=[idx], **mod(m))

def affine(m):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.randn_like(p))
    return m

case("layer_norm_2d", inputs=[torch.randn(2, 5, 3, 4) * 2 + 1], **mod(affine(nn.LayerNorm([3, 4]))))
case("layer_norm_noaffine", inputs=[torch.randn(3, 6) * 2 + 1], **mod(nn.LayerNorm(6, elementwise_affine=False)))
case("layer_norm_eps", inputs=[torch.randn(3, 2, 6) * 0.01], **mod(affine(nn.LayerNorm(6, eps=1e-3))))
case("layer_norm_fn", lambda x, w, b: F.layer_norm(x, [6], w, b, 1e-4),
     inputs=[torch.randn(3, 6), torch.randn(6), torch.randn(6)])
case("layer_norm_f32", inputs=[torch.randn(4, 6, dtype=torch.float32)],
     **mod(affine(nn.LayerNorm([6]).float())))

def stats(m):
    with torch.no_grad():
        m.running_mean.copy_(torch.randn_like(m.running_mean))
        m.running_var.copy_(torch.rand_like(m.running_var) + 0.5)
        m.num_batches_tracked.fill_(3)
    return m

case("batch_norm1d_2d", inputs=[torch.randn(6, 3) * 2 + 1], **mod(affine(stats(nn.BatchNorm1d(3)))))
case("batch_norm1d_3d", inputs=[torch.randn(4, 3, 5) * 2 + 1], **mod(affine(stats(nn.BatchNorm1d(3)))))
case("batch_norm2d", inputs=[torch.randn(4, 3, 2, 5) * 2 + 1], **mod(affine(stats(nn.BatchNorm2d(3)))))
case("batch_norm2d_momentum", inputs=[torch.randn(4, 3, 2, 5)],
     **mod(affine(stats(nn.BatchNorm2d(3, momentum=0.3, eps=1e-3)))))
case("batch_norm2d_cumulative", inputs=[torch.randn(4, 3, 2, 5)],
     **mod(affine(stats(nn.BatchNorm2d(3, momentum=None)))))
case("batch_norm2d_noaffine", inputs=[torch.randn(4, 3, 2, 5)], **mod(stats(nn.BatchNorm2d(3, affine=False))))
case("batch_norm2d_nostats", inputs=[torch.randn(4, 3, 2, 5)],
     **mod(affine(nn.BatchNorm2d(3, track_running_stats=False))))
m = affine(stats(nn.BatchNorm2d(3))).eval()
case("batch_norm2d_eval", inputs=[torch.randn(4, 3, 2, 5)], **mod(m))
m = affine(stats(nn.BatchNorm1d(3))).eval()
case("batch_norm1d_eval", inputs=[torch.randn(4, 3, 5)], **mod(m))
case("batch_norm2d_f32", inputs=[torch.randn(4, 3, 2, 5, dtype=torch.float32)],
     **mod(affine(stats(nn.BatchNorm2d(3))).float()))

xz = torch.randn(4, 5)
xz[1] = 0
case("normalize", lambda x: F.normalize(x), inputs=[xz])
case("normalize_p1_last", lambda x: F.normalize(x, p=1.0, dim=-1), inputs=[torch.randn(3, 4, 5)])
case("normalize_p3_dim0", lambda x: F.normalize(x, p=3.0, dim=0), inputs=[torch.randn(4, 5)])
case("normalize_eps", lambda x: F.normalize(x, eps=0.5), inputs=[torch.randn(4, 5) * 0.2])
case("normalize_f32", lambda x: F.normalize(x), inputs=[torch.randn(4, 5, dtype=torch.float32)])

a, b = torch.randn(5, 6), torch.randn(5, 6)
b[2] = a[2]  # distance eps
case("pairwise_distance", lambda x, y: F.pairwise_distance(x, y), inputs=[a, b])
case("pairwise_distance_p1", lambda x, y: F.pairwise_distance(x, y, p=1.0), inputs=[a, b])
case("pairwise_distance_p3_keepdim", lambda x, y: F.pairwise_distance(x, y, p=3.0, keepdim=True), inputs=[a, b])
case("pairwise_distance_inf", lambda x, y: F.pairwise_distance(x, y, p=math.inf), inputs=[a, b])
case("pairwise_distance_bcast_eps", lambda x, y: F.pairwise_distance(x, y, eps=1e-2),
     inputs=[torch.randn(5, 6), torch.randn(1, 6)])
case("pairwise_distance_1d", lambda x, y: F.pairwise_distance(x, y), inputs=[torch.randn(6), torch.randn(6)])
case("cosine_similarity", lambda x, y: F.cosine_similarity(x, y), inputs=[torch.randn(4, 5), torch.randn(4, 5)])
case("cosine_similarity_dim0", lambda x, y: F.cosine_similarity(x, y, dim=0),
     inputs=[torch.randn(4, 5), torch.randn(4, 5)])
case("cosine_similarity_bcast", lambda x, y: F.cosine_similarity(x, y, dim=-1),
     inputs=[torch.randn(3, 4, 5), torch.randn(4, 5)])
case("cosine_similarity_f32", lambda x, y: F.cosine_similarity(x, y),
     inputs=[torch.randn(4, 5, dtype=torch.float32), torch.randn(4, 5, dtype=torch.float32)])

# ---- losses: each reduction --------------------------------------------------------------
RED = ["none", "mean", "sum"]


def loss_case(name, fn, inputs, grads=None, reductions=RED):
    for r in reductions:
        case(f"{name}_{r}", lambda *x, r=r: fn(*x, reduction=r), inputs, grads)


def reg_pair(shape=(3, 4)):
    x, y = torch.randn(shape) * 2, torch.randn(shape) * 2
    y[0, 0] = x[0, 0]  # d = 0
    y[1, 1] = x[1, 1] - 0.5  # d = beta for beta 0.5
    return [x, y]

loss_case("l1", F.l1_loss, reg_pair())
loss_case("mse", F.mse_loss, reg_pair())
loss_case("smooth_l1", F.smooth_l1_loss, reg_pair())
loss_case("smooth_l1_b05", lambda x, y, reduction: F.smooth_l1_loss(x, y, reduction=reduction, beta=0.5), reg_pair())
# at d = 0 PyTorch's derivative is -1 for the input and, by the same kernel with the arguments
# swapped, -1 for the target too; ember matches the input's
loss_case("smooth_l1_b0", lambda x, y, reduction: F.smooth_l1_loss(x, y, reduction=reduction, beta=0.0), reg_pair(),
          [True, False])
loss_case("huber", F.huber_loss, reg_pair())
loss_case("huber_d25", lambda x, y, reduction: F.huber_loss(x, y, reduction=reduction, delta=2.5), reg_pair())
case("mse_f32_mean", lambda x, y: F.mse_loss(x, y), [t.float() for t in reg_pair()])

N, C = 6, 4
logits = lambda *s: torch.randn(*s) * 2
tgt = torch.tensor([0, 3, 1, 1, 2, 3])
w = torch.rand(C) + 0.2
loss_case("nll", F.nll_loss, [F.log_softmax(logits(N, C), 1), tgt])
NW = [True, False, False]  # input, target, class weights (weights are inputs without gradient)
loss_case("nll_w", lambda x, t, w, reduction: F.nll_loss(x, t, weight=w, reduction=reduction),
          [F.log_softmax(logits(N, C), 1), tgt, w], NW)
loss_case("nll_ignore", lambda x, t, reduction: F.nll_loss(x, t, ignore_index=1, reduction=reduction),
          [logits(N, C), tgt])
loss_case("nll_w_ignore", lambda x, t, w, reduction: F.nll_loss(x, t, w, ignore_index=3, reduction=reduction),
          [logits(N, C), tgt, w], NW)
tk = torch.randint(0, C, (2, 3, 2))
tk[0, 1, 1] = -100
loss_case("nll_kdim", lambda x, t, w, reduction: F.nll_loss(x, t, w, reduction=reduction), [logits(2, C, 3, 2), tk, w],
          NW)
loss_case("nll_unbatched", F.nll_loss, [logits(C), torch.tensor(2)])
loss_case("nll_all_ignored", lambda x, t, reduction: F.nll_loss(x, t, ignore_index=1, reduction=reduction),
          [logits(3, C), torch.tensor([1, 1, 1])])

def ce(**kw):
    return lambda x, t, *w, reduction: F.cross_entropy(x, t, *w, reduction=reduction, **kw)

probs = lambda *s: F.softmax(torch.randn(*s), 1 if len(s) > 1 else 0)
tgt_ign = torch.tensor([0, 3, -1, 1, 2, -1])
loss_case("ce", ce(), [logits(N, C), tgt])
loss_case("ce_w", ce(), [logits(N, C), tgt, w], NW)
loss_case("ce_ignore", ce(ignore_index=-1), [logits(N, C), tgt_ign])
loss_case("ce_ls", ce(label_smoothing=0.2), [logits(N, C), tgt])
loss_case("ce_w_ignore_ls", ce(ignore_index=-1, label_smoothing=0.3), [logits(N, C), tgt_ign, w], NW)
loss_case("ce_probs", ce(), [logits(N, C), probs(N, C)], grads=[True, True])
loss_case("ce_probs_w_ls", ce(label_smoothing=0.25), [logits(N, C), probs(N, C), w], [True, True, False])
loss_case("ce_kdim", ce(label_smoothing=0.1), [logits(2, C, 3, 2), tk, w], NW)
loss_case("ce_kdim_probs", ce(), [logits(2, C, 3, 2), probs(2, C, 3, 2), w], [True, True, False])
loss_case("ce_unbatched", ce(label_smoothing=0.1), [logits(C), torch.tensor(1)])
loss_case("ce_unbatched_probs", ce(), [logits(C), probs(C)])
case("ce_f32_mean", lambda x, t, w: F.cross_entropy(x, t, w, label_smoothing=0.1),
     [logits(N, C).float(), tgt, w.float()], NW)

bx = lambda *s: torch.sigmoid(torch.randn(*s) * 2)
bt = lambda *s: torch.rand(*s).round()
loss_case("bce", F.binary_cross_entropy, [bx(N, C), bt(N, C)], grads=[True, False])
loss_case("bce_soft", F.binary_cross_entropy, [bx(N, C), torch.rand(N, C)], grads=[True, False])
wb = torch.rand(N, C)
loss_case("bce_w", lambda x, t, w, reduction: F.binary_cross_entropy(x, t, w, reduction=reduction),
          [bx(N, C), bt(N, C), wb], [True, False, False])
loss_case("bce_w_bcast", lambda x, t, w, reduction: F.binary_cross_entropy(x, t, w, reduction=reduction),
          [bx(N, C), bt(N, C), wb[0]], [True, False, False])
lx = logits(N, C) * 3
lx[0, :2] = torch.tensor([40.0, -40.0])
pw = torch.rand(C) * 3
loss_case("bcel", F.binary_cross_entropy_with_logits, [lx, torch.rand(N, C)])
loss_case("bcel_w", lambda x, t, w, reduction: F.binary_cross_entropy_with_logits(x, t, w, reduction=reduction),
          [lx, bt(N, C), wb], [True, True, False])
loss_case("bcel_pw", lambda x, t, pw, reduction: F.binary_cross_entropy_with_logits(x, t, pos_weight=pw,
                                                                                    reduction=reduction),
          [lx, torch.rand(N, C), pw], [True, True, False])
loss_case("bcel_w_pw", lambda x, t, w, pw, reduction: F.binary_cross_entropy_with_logits(x, t, w, reduction=reduction,
                                                                                         pos_weight=pw),
          [lx, bt(N, C), wb[0], pw], [True, True, False, False])

kt = probs(N, C)
kt[0, 1] = 0
loss_case("kl_div", F.kl_div, [F.log_softmax(logits(N, C), 1), kt], grads=[True, False],
          reductions=RED + ["batchmean"])
loss_case("kl_div_tgrad", F.kl_div, [F.log_softmax(logits(N, C), 1), probs(N, C)])
loss_case("kl_div_log_target", lambda x, t, reduction: F.kl_div(x, t, reduction=reduction, log_target=True),
          [F.log_softmax(logits(N, C), 1), F.log_softmax(logits(N, C), 1)], reductions=RED + ["batchmean"])

pm = lambda n: torch.randint(0, 2, (n,)).double() * 2 - 1
loss_case("margin_ranking", F.margin_ranking_loss, [torch.randn(8), torch.randn(8), pm(8)], grads=[True, True, False])
loss_case("margin_ranking_m05", lambda a, b, t, reduction: F.margin_ranking_loss(a, b, t, 0.5, reduction=reduction),
          [torch.randn(8), torch.randn(8), pm(8)], grads=[True, True, False])
loss_case("hinge", F.hinge_embedding_loss, [torch.randn(3, 4), pm(12).reshape(3, 4)], grads=[True, False])
loss_case("hinge_m2", lambda x, t, reduction: F.hinge_embedding_loss(x, t, 2.0, reduction=reduction),
          [torch.randn(3, 4), pm(12).reshape(3, 4)], grads=[True, False])
loss_case("hinge_target0", F.hinge_embedding_loss, [torch.randn(3, 4), torch.tensor([1.0, -1, 0, 2] * 3).reshape(3, 4)],
          grads=[True, False])
loss_case("cosine_emb", F.cosine_embedding_loss, [torch.randn(6, 5), torch.randn(6, 5), pm(6)],
          grads=[True, True, False])
loss_case("cosine_emb_m03", lambda a, b, t, reduction: F.cosine_embedding_loss(a, b, t, 0.3, reduction=reduction),
          [torch.randn(6, 5), torch.randn(6, 5), pm(6)], grads=[True, True, False])
loss_case("cosine_emb_1d", F.cosine_embedding_loss, [torch.randn(5), torch.randn(5), torch.tensor(-1.0)],
          grads=[True, True, False])
trip = lambda: [torch.randn(5, 6), torch.randn(5, 6), torch.randn(5, 6)]
loss_case("triplet", F.triplet_margin_loss, trip())
loss_case("triplet_p1_m05", lambda a, p, n, reduction: F.triplet_margin_loss(a, p, n, 0.5, 1.0, reduction=reduction),
          trip())
loss_case("triplet_swap",
          lambda a, p, n, reduction: F.triplet_margin_loss(a, p, n, 2.0, swap=True, reduction=reduction), trip())
loss_case("triplet_p3_eps", lambda a, p, n, reduction: F.triplet_margin_loss(a, p, n, 1.5, 3.0, eps=1e-2,
                                                                             reduction=reduction), trip())
case("triplet_f32_mean", F.triplet_margin_loss, [t.float() for t in trip()])

# losses absent from ember before these checks
loss_case("soft_margin", F.soft_margin_loss, [torch.randn(3, 4) * 3, pm(12).reshape(3, 4)], grads=[True, False])
ml = torch.rand(N, C).round()
loss_case("multilabel_soft_margin", F.multilabel_soft_margin_loss, [logits(N, C), ml], grads=[True, False])
loss_case("multilabel_soft_margin_w",
          lambda x, t, w, reduction: F.multilabel_soft_margin_loss(x, t, weight=w, reduction=reduction),
          [logits(N, C), ml, w], grads=[True, False, False])
loss_case("multi_margin", F.multi_margin_loss, [logits(N, C) * 0.3, tgt])
loss_case("multi_margin_p2_m05_w",
          lambda x, t, w, reduction: F.multi_margin_loss(x, t, p=2, margin=0.5, weight=w, reduction=reduction),
          [logits(N, C) * 0.3, tgt, w], NW)
loss_case("multi_margin_1d", F.multi_margin_loss, [logits(C) * 0.3, torch.tensor(2)])
mlt = torch.tensor([[3, 0, -1, 1], [1, 2, 3, 0], [-1, 1, 2, 3], [2, -1, 0, 0], [0, 1, 2, -1], [1, 1, -1, 2]])
loss_case("multilabel_margin", F.multilabel_margin_loss, [logits(N, C) * 0.3, mlt])
loss_case("multilabel_margin_1d", F.multilabel_margin_loss, [logits(C) * 0.3, torch.tensor([2, 0, -1, 1])])
pt = torch.poisson(torch.rand(N, C) * 4)
loss_case("poisson_nll", F.poisson_nll_loss, [torch.randn(N, C), pt], [True, False])
loss_case("poisson_nll_full", lambda x, t, reduction: F.poisson_nll_loss(x, t, full=True, reduction=reduction),
          [torch.randn(N, C), pt], [True, False])
loss_case("poisson_nll_nolog",
          lambda x, t, reduction: F.poisson_nll_loss(x, t, log_input=False, full=True, eps=1e-3, reduction=reduction),
          [torch.rand(N, C) * 3, pt], [True, False])
gvar = torch.rand(N, C) + 0.1
gvar[0, 0] = 1e-8  # clamped to eps
loss_case("gaussian_nll", F.gaussian_nll_loss, [torch.randn(N, C), torch.randn(N, C), gvar])
loss_case("gaussian_nll_full_eps",
          lambda x, t, v, reduction: F.gaussian_nll_loss(x, t, v, full=True, eps=0.3, reduction=reduction),
          [torch.randn(N, C), torch.randn(N, C), gvar])
loss_case("gaussian_nll_homo", F.gaussian_nll_loss, [torch.randn(N, C), torch.randn(N, C), torch.rand(N) + 0.1])
loss_case("gaussian_nll_homo1", F.gaussian_nll_loss, [torch.randn(N, C), torch.randn(N, C), torch.rand(N, 1) + 0.1])

# ---- initialization: what PyTorch passes to uniform_/normal_ ---------------------------------
calls = {}
_uniform, _normal = torch.Tensor.uniform_, torch.Tensor.normal_


def spy_uniform(self, a=0.0, b=1.0, **kw):
    calls[id(self)] = ("uniform", a, b)
    return _uniform(self, a, b, **kw)


def spy_normal(self, mean=0.0, std=1.0, **kw):
    calls[id(self)] = ("normal", mean, std)
    return _normal(self, mean, std, **kw)


torch.Tensor.uniform_, torch.Tensor.normal_ = spy_uniform, spy_normal


def record(name, t):
    kind, lo, hi = calls.pop(id(t))
    out[f"init.{name}.{kind}"] = torch.tensor([lo, hi])
    # PyTorch's own sample passes the test's checks (within 6 standard errors)
    n, t = t.numel(), t.detach().double().flatten()
    mean, std = ((lo + hi) / 2, (hi - lo) / math.sqrt(12)) if kind == "uniform" else (lo, hi)
    assert abs(t.mean() - mean) < 6 * std / math.sqrt(n) and abs(t.std() / std - 1) < 6 * math.sqrt(0.5 / n), name
    if kind == "uniform":
        assert t.min() >= lo and t.max() <= hi, name


torch.manual_seed(1)
torch.set_default_dtype(torch.float32)  # modules as users make them
for name, m in [("linear", nn.Linear(300, 200)), ("linear_nobias", nn.Linear(7, 5000, bias=False)),
                ("bilinear", nn.Bilinear(20, 30, 40)), ("embedding", nn.Embedding(1000, 50)),
                ("conv2d", nn.Conv2d(16, 32, (3, 5))), ("conv2d_groups", nn.Conv2d(16, 32, 3, groups=4))]:
    for k, p in m.named_parameters():
        record(f"{name}_{k}", p)
for name, m in [("layer_norm", nn.LayerNorm([3, 4])), ("prelu", nn.PReLU(3)), ("prelu_init", nn.PReLU(2, 0.1)),
                ("batch_norm", nn.BatchNorm2d(5))]:
    for k, p in m.named_parameters():
        out[f"init.{name}_{k}.exact"] = p.detach().clone()

torch.set_default_dtype(torch.float64)
init = nn.init
shape = (64, 32, 3, 3)
rand_inits = {
    "uniform": (shape, lambda t: init.uniform_(t, -0.3, 0.7)),
    "normal": (shape, lambda t: init.normal_(t, 0.5, 2.0)),
    "xavier_uniform": ((300, 200), lambda t: init.xavier_uniform_(t)),
    "xavier_uniform_gain": (shape, lambda t: init.xavier_uniform_(t, gain=init.calculate_gain("relu"))),
    "xavier_normal": (shape, lambda t: init.xavier_normal_(t, gain=0.5)),
    "kaiming_uniform": (shape, lambda t: init.kaiming_uniform_(t)),
    "kaiming_uniform_a": (shape, lambda t: init.kaiming_uniform_(t, a=math.sqrt(5))),
    "kaiming_uniform_fan_out_relu": (shape, lambda t: init.kaiming_uniform_(t, mode="fan_out", nonlinearity="relu")),
    "kaiming_uniform_tanh": ((300, 200), lambda t: init.kaiming_uniform_(t, nonlinearity="tanh")),
    "kaiming_normal": (shape, lambda t: init.kaiming_normal_(t)),
    "kaiming_normal_fan_out": ((300, 200), lambda t: init.kaiming_normal_(t, a=0.2, mode="fan_out")),
    "kaiming_normal_selu": (shape, lambda t: init.kaiming_normal_(t, nonlinearity="selu")),
    "kaiming_normal_linear": (shape, lambda t: init.kaiming_normal_(t, nonlinearity="linear")),
    "kaiming_normal_sigmoid": ((300, 200), lambda t: init.kaiming_normal_(t, mode="fan_out", nonlinearity="sigmoid")),
}
for name, (s, f) in rand_inits.items():
    t = torch.empty(s)
    f(t)
    record(name, t)
torch.Tensor.uniform_, torch.Tensor.normal_ = _uniform, _normal

for name, (mean, std, a, b) in {"trunc_normal": (0.0, 1.0, -2.0, 2.0),
                                "trunc_normal_shifted": (0.5, 2.0, -1.0, 3.0)}.items():
    t = init.trunc_normal_(torch.empty(200, 300), mean, std, a, b)
    # moments of N(mean, std) truncated to [a, b]
    al, be = (a - mean) / std, (b - mean) / std
    pdf = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)
    Z = (math.erf(be / math.sqrt(2)) - math.erf(al / math.sqrt(2))) / 2
    m = mean + (pdf(al) - pdf(be)) / Z * std
    v = std ** 2 * (1 + (al * pdf(al) - be * pdf(be)) / Z - ((pdf(al) - pdf(be)) / Z) ** 2)
    assert t.min() >= a and t.max() <= b and abs(t.mean() - m) < 6 * math.sqrt(v / t.numel())
    assert abs(t.std() / math.sqrt(v) - 1) < 6 * math.sqrt(0.5 / t.numel())
    out[f"init.{name}.trunc"] = torch.tensor([mean, std, a, b, m, math.sqrt(v)])

exact_inits = {
    "constant": ((3, 4), lambda t: init.constant_(t, 0.3)),
    "zeros": ((3, 4), init.zeros_),
    "ones": ((3, 4), init.ones_),
    "eye": ((3, 5), init.eye_),
    "eye_tall": ((5, 3), init.eye_),
    "dirac_3d": ((4, 3, 5), init.dirac_),
    "dirac_4d": ((3, 5, 3, 4), init.dirac_),
    "dirac_5d": ((2, 2, 3, 2, 3), init.dirac_),
}
for name, (s, f) in exact_inits.items():
    out[f"init.{name}.exact"] = f(torch.randn(s)).clone()
for name, (s, gain) in {"orthogonal": ((6, 4), 1.0), "orthogonal_wide": ((4, 6), 1.0),
                        "orthogonal_4d_gain": ((8, 3, 2, 2), 2.0), "orthogonal_wide_gain": ((3, 10), 0.5)}.items():
    q = init.orthogonal_(torch.empty(s), gain).reshape(s[0], -1)
    out[f"init.{name}.gram"] = q.T @ q if q.size(0) >= q.size(1) else q @ q.T

for name, args in {"linear": ("linear",), "conv1d": ("conv1d",), "conv2d": ("conv2d",), "conv3d": ("conv3d",),
                   "conv_transpose1d": ("conv_transpose1d",), "conv_transpose2d": ("conv_transpose2d",),
                   "conv_transpose3d": ("conv_transpose3d",), "sigmoid": ("sigmoid",), "tanh": ("tanh",),
                   "relu": ("relu",), "leaky_relu": ("leaky_relu",), "leaky_relu_02": ("leaky_relu", 0.2),
                   "selu": ("selu",)}.items():
    out[f"gain.{name}"] = torch.tensor(init.calculate_gain(*args))
for name, s in {"2d": (5, 7), "3d": (4, 6, 3), "4d": (8, 3, 2, 5), "5d": (2, 3, 4, 1, 2)}.items():
    out[f"fan.{name}"] = torch.tensor(init._calculate_fan_in_and_fan_out(torch.empty(s)), dtype=torch.int64)

out = {k: v.contiguous() for k, v in out.items()}
save_file(out, os.path.join(os.path.dirname(os.path.abspath(__file__)), "nn_layers.safetensors"))
print(len(out), "tensors,", sum(k.endswith(".out") for k in out), "cases")
