# Golden data for tests/nn/pooling_test.cpp, normalization_test.cpp and embedding_test.cpp: pooling,
# normalization and EmbeddingBag in PyTorch 1.13 (float32, CPU), values and gradients.
#   PYTHONPATH=<dir with safetensors> /usr/bin/python3 tests/golden/gen_nn_pool_norm.py
# Case <name> stores its tensors as <name>.<key>: inputs (x, and w/b/rm/rv/idx/offsets/psw
# where the op takes them), outputs (y, idx for max pooling, rm_out/rv_out for updated
# running statistics), gy and the gradients g<input> of sum(y * gy). The file's metadata maps
# <name> to a JSON object: "op" and the op's arguments; "cl": the input was channels-last.
import json
import os

import torch
import torch.nn.functional as F
from safetensors.torch import save_file

torch.manual_seed(0)
out, meta = {}, {}


def put(name, op, args, tensors, grads):
    meta[name] = json.dumps(dict(op=op, **args))
    for k, t in tensors.items():
        out[f"{name}.{k}"] = t.detach().clone().contiguous()
    for k, t in grads.items():
        out[f"{name}.g{k}"] = t.contiguous()


def run(name, op, args, fn, inputs, extra=None, cl=False):
    """inputs: {key: tensor}; float ones get gradients. fn(**inputs) -> y or (y, idx)."""
    inputs = {k: (v.contiguous(memory_format=torch.channels_last if v.dim() == 4 else torch.channels_last_3d)
                  if cl and k == "x" else v) for k, v in inputs.items()}
    leaves = {k: v.clone().requires_grad_() if v.is_floating_point() else v for k, v in inputs.items()}
    r = fn(**leaves)
    y, idx = (r if isinstance(r, tuple) else (r, None))
    gy = torch.randn_like(y)
    diff = {k: v for k, v in leaves.items() if v.requires_grad}
    grads = torch.autograd.grad((y * gy).sum(), list(diff.values()), allow_unused=True)
    tensors = dict(inputs, y=y, gy=gy)
    if idx is not None:
        tensors["idx"] = idx
    tensors.update(extra or {})
    put(name, op, dict(args, cl=cl), tensors,
        {k: (g if g is not None else torch.zeros_like(diff[k])) for k, g in zip(diff, grads)})


def r(*shape):
    return torch.randn(*shape)


# ---- max pooling: values, indices, gradients -------------------------------------------------
def max_case(name, d, shape, k, s=None, p=0, dil=1, ceil=False, cl=False):
    fn = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}[d]
    args = dict(kernel=k, stride=s, padding=p, dilation=dil, ceil_mode=ceil)
    run(name, f"max_pool{d}d", args,
        lambda x: fn(x, k, s, p, dil, ceil_mode=ceil, return_indices=True), dict(x=r(*shape)), cl=cl)


max_case("max1d", 1, (2, 3, 11), [3], [2], [1])
max_case("max1d_dil_ceil", 1, (2, 3, 12), [3], [2], [1], [2], True)
max_case("max1d_unbatched", 1, (3, 9), [2])
max_case("max2d", 2, (2, 3, 9, 8), [3, 3], [2, 2], [1, 1])
max_case("max2d_cl", 2, (2, 5, 9, 8), [3, 3], [2, 2], [1, 1], cl=True)
max_case("max2d_rect_dil_ceil", 2, (2, 3, 10, 9), [3, 2], [2, 1], [1, 0], [2, 1], True)
max_case("max2d_ceil_cl", 2, (2, 4, 7, 7), [2, 2], [2, 2], [0, 0], [1, 1], True, cl=True)
max_case("max2d_unbatched", 2, (3, 7, 6), [2, 3], [1, 2], [1, 1])
max_case("max3d", 3, (2, 2, 6, 7, 5), [2, 3, 2], [2, 1, 2], [1, 1, 0], [1, 1, 1], True)
max_case("max3d_cl", 3, (2, 4, 5, 6, 6), [3, 3, 3], [2, 2, 2], [1, 1, 1], cl=True)
max_case("max3d_dil", 3, (1, 2, 7, 7, 7), [2, 2, 2], [1, 2, 1], [0, 1, 1], [2, 1, 3])


# ---- average pooling -------------------------------------------------------------------------
def avg_case(name, d, shape, k, s=None, p=0, ceil=False, include=True, divisor=None, cl=False):
    fn = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}[d]
    args = dict(kernel=k, stride=s, padding=p, ceil_mode=ceil, count_include_pad=include, divisor_override=divisor)
    if d == 1:
        run(name, "avg_pool1d", args, lambda x: fn(x, k, s, p, ceil, include), dict(x=r(*shape)), cl=cl)
    else:
        run(name, f"avg_pool{d}d", args, lambda x: fn(x, k, s, p, ceil, include, divisor), dict(x=r(*shape)), cl=cl)


avg_case("avg1d", 1, (2, 3, 11), [3], [2], [1])
avg_case("avg1d_exclude_ceil", 1, (2, 3, 12), [3], [2], [1], True, False)
avg_case("avg1d_include_ceil", 1, (2, 3, 12), [3], [2], [1], True, True)
avg_case("avg2d", 2, (2, 3, 9, 8), [3, 3], [2, 2], [1, 1])
avg_case("avg2d_cl", 2, (2, 5, 9, 8), [3, 3], [2, 2], [1, 1], cl=True)
avg_case("avg2d_exclude", 2, (2, 3, 9, 8), [3, 2], [2, 1], [1, 1], False, False)
avg_case("avg2d_include_ceil", 2, (2, 3, 8, 8), [3, 3], [2, 2], [1, 1], True, True)
avg_case("avg2d_include_ceil_cl", 2, (2, 4, 8, 9), [3, 3], [2, 2], [1, 1], True, True, cl=True)
avg_case("avg2d_exclude_ceil", 2, (2, 3, 8, 8), [3, 3], [2, 2], [1, 1], True, False)
avg_case("avg2d_divisor", 2, (2, 3, 9, 8), [3, 3], [2, 2], [1, 1], False, True, 5)
avg_case("avg2d_divisor_exclude_ceil", 2, (2, 3, 8, 8), [3, 3], [2, 2], [1, 1], True, False, 7)
avg_case("avg2d_unbatched", 2, (3, 7, 6), [2, 2])
avg_case("avg3d", 3, (2, 2, 6, 7, 5), [2, 3, 2], [2, 1, 2], [1, 1, 0], True, True)
avg_case("avg3d_exclude_cl", 3, (2, 4, 5, 6, 6), [3, 3, 3], [2, 2, 2], [1, 1, 1], False, False, cl=True)
avg_case("avg3d_divisor", 3, (1, 2, 6, 6, 6), [2, 2, 2], [2, 2, 2], [0, 0, 0], False, True, 3)


# ---- adaptive pooling ------------------------------------------------------------------------
def adaptive_case(name, kind, d, shape, size, cl=False):
    if kind == "max":
        fn = {1: F.adaptive_max_pool1d, 2: F.adaptive_max_pool2d, 3: F.adaptive_max_pool3d}[d]
        run(name, f"adaptive_max_pool{d}d", dict(output_size=size), lambda x: fn(x, size, return_indices=True),
            dict(x=r(*shape)), cl=cl)
    else:
        fn = {1: F.adaptive_avg_pool1d, 2: F.adaptive_avg_pool2d, 3: F.adaptive_avg_pool3d}[d]
        run(name, f"adaptive_avg_pool{d}d", dict(output_size=size), lambda x: fn(x, size), dict(x=r(*shape)), cl=cl)


for kind in ("avg", "max"):
    adaptive_case(f"a{kind}1d", kind, 1, (2, 3, 10), [4])
    adaptive_case(f"a{kind}1d_unbatched", kind, 1, (3, 7), [3])
    adaptive_case(f"a{kind}2d", kind, 2, (2, 3, 9, 7), [4, 3])
    adaptive_case(f"a{kind}2d_divisible", kind, 2, (2, 3, 8, 6), [4, 3])
    adaptive_case(f"a{kind}2d_none_cl", kind, 2, (2, 4, 7, 5), [3, None], cl=True)
    adaptive_case(f"a{kind}2d_global_cl", kind, 2, (2, 4, 5, 6), [1, 1], cl=True)
    adaptive_case(f"a{kind}2d_larger", kind, 2, (1, 2, 3, 4), [5, 6])
    adaptive_case(f"a{kind}3d", kind, 3, (2, 2, 5, 6, 7), [2, 4, 3])
    adaptive_case(f"a{kind}3d_cl", kind, 3, (2, 3, 4, 6, 6), [2, 3, 3], cl=True)


# ---- LP pooling and unpooling ----------------------------------------------------------------
def lp_case(name, d, shape, norm, k, s=None, ceil=False):
    fn = {1: F.lp_pool1d, 2: F.lp_pool2d}[d]
    x = r(*shape).abs() + 0.1  # away from 0, where the p-th root is not differentiable
    run(name, f"lp_pool{d}d", dict(norm_type=norm, kernel=k, stride=s, ceil_mode=ceil),
        lambda x: fn(x, norm, k[0] if d == 1 else k, s[0] if d == 1 and s else s, ceil), dict(x=x))


lp_case("lp1d", 1, (2, 3, 10), 2.0, [3], [2])
lp_case("lp1d_p3_ceil", 1, (2, 3, 10), 3.0, [3], [2], True)
lp_case("lp2d", 2, (2, 3, 8, 7), 2.0, [2, 3], [2, 1])
lp_case("lp2d_p1_5", 2, (2, 3, 8, 8), 1.5, [2, 2])


def unpool_case(name, d, shape, k, s, p, output_size=None):
    pool = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}[d]
    unpool = {1: F.max_unpool1d, 2: F.max_unpool2d, 3: F.max_unpool3d}[d]
    y, idx = pool(r(*shape), k, s, p, return_indices=True)
    run(name, f"max_unpool{d}d", dict(kernel=k, stride=s, padding=p, output_size=output_size),
        lambda x, idx: unpool(x, idx, k, s, p, output_size), dict(x=y, idx=idx))


unpool_case("unpool1d", 1, (2, 3, 10), [2], [2], [0])
unpool_case("unpool2d", 2, (2, 3, 8, 7), [2, 2], [2, 2], [0, 0], [8, 7])
unpool_case("unpool2d_pad", 2, (2, 3, 9, 9), [3, 3], [2, 2], [1, 1])
unpool_case("unpool3d", 3, (1, 2, 6, 5, 4), [2, 2, 2], [2, 2, 2], [0, 0, 0], [6, 5, 4])


# ---- normalization ---------------------------------------------------------------------------
def bn_case(name, shape, training, momentum=0.1, cl=False):
    C = shape[1]
    rm, rv = r(C) * 0.1, r(C).abs() + 0.5
    x, w, b = r(*shape) * 2 + 0.5, r(C), r(C)
    rm2, rv2 = rm.clone(), rv.clone()
    run(name, "batch_norm", dict(training=training, momentum=momentum, eps=1e-5),
        lambda x, w, b, rm, rv: F.batch_norm(x, rm2, rv2, w, b, training, momentum, 1e-5),
        dict(x=x, w=w, b=b, rm=rm, rv=rv), extra=dict(rm_out=rm2, rv_out=rv2), cl=cl)


bn_case("bn3d_train", (3, 4, 3, 4, 5), True)
bn_case("bn3d_train_cl", (3, 4, 3, 4, 5), True, 0.3, cl=True)
bn_case("bn3d_eval", (2, 4, 3, 4, 5), False)
bn_case("bn2d_train_cl", (3, 5, 4, 6), True, cl=True)
bn_case("bn1d_train", (6, 4), True)


def gn_case(name, shape, groups, affine=True, cl=False):
    C = shape[1]
    x = r(*shape) * 1.5 + 0.3
    ins = dict(x=x, w=r(C), b=r(C)) if affine else dict(x=x)
    run(name, "group_norm", dict(num_groups=groups, eps=1e-5),
        lambda x, w=None, b=None: F.group_norm(x, groups, w, b, 1e-5), ins, cl=cl)


gn_case("gn2d", (2, 6, 4, 5), 3)
gn_case("gn2d_cl", (2, 6, 4, 5), 2, cl=True)
gn_case("gn1d_noaffine", (3, 4, 7), 4, False)
gn_case("gn0d", (4, 6), 3)
gn_case("gn3d", (2, 4, 3, 3, 4), 2)


def in_case(name, shape, affine, track, use_input_stats=True, momentum=0.1, cl=False):
    C = shape[1]
    ins = dict(x=r(*shape) * 1.5 + 0.3)
    if affine:
        ins.update(w=r(C), b=r(C))
    extra = {}
    if track:
        rm, rv = r(C) * 0.1, r(C).abs() + 0.5
        ins.update(rm=rm, rv=rv)
        rm2, rv2 = rm.clone(), rv.clone()
        extra = dict(rm_out=rm2, rv_out=rv2)

    def fn(x, w=None, b=None, rm=None, rv=None):
        return F.instance_norm(x, rm2 if track else None, rv2 if track else None, w, b, use_input_stats, momentum, 1e-5)

    run(name, "instance_norm", dict(use_input_stats=use_input_stats, momentum=momentum, eps=1e-5), fn, ins, extra,
        cl=cl)


in_case("in1d", (2, 3, 8), False, False)
in_case("in2d_affine_track", (2, 3, 5, 4), True, True, True, 0.2)
in_case("in2d_cl", (2, 4, 5, 4), True, False, cl=True)
in_case("in2d_running", (2, 3, 5, 4), True, True, False)
in_case("in3d", (2, 3, 3, 4, 3), True, True)


def lrn_case(name, shape, size, alpha=1e-4, beta=0.75, k=1.0, cl=False):
    run(name, "local_response_norm", dict(size=size, alpha=alpha, beta=beta, k=k),
        lambda x: F.local_response_norm(x, size, alpha, beta, k), dict(x=r(*shape) * 3), cl=cl)


lrn_case("lrn3d", (2, 6, 7), 3, 0.1, 0.75, 1.0)
lrn_case("lrn4d_even", (2, 5, 4, 3), 2, 0.5, 0.6, 2.0)
lrn_case("lrn4d_cl", (2, 7, 4, 3), 5, 0.3, 0.75, 1.0, cl=True)
lrn_case("lrn5d", (1, 4, 3, 2, 3), 3, 0.2, 0.5, 1.5)


# ---- EmbeddingBag ----------------------------------------------------------------------------
def bag_case(name, mode, inp, offsets=None, psw=False, include_last=False, padding_idx=None):
    w = r(10, 4)
    ins = dict(input=inp, w=w)
    if offsets is not None:
        ins["offsets"] = offsets
    if psw:
        ins["psw"] = r(*inp.shape)

    def fn(input, w, offsets=None, psw=None):
        return F.embedding_bag(input, w, offsets, mode=mode, per_sample_weights=psw, include_last_offset=include_last,
                               padding_idx=padding_idx)

    run(name, "embedding_bag", dict(mode=mode, include_last_offset=include_last, padding_idx=padding_idx), fn, ins)


idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0, 7])
for mode in ("sum", "mean", "max"):
    bag_case(f"bag_{mode}", mode, idx, torch.tensor([0, 3, 3, 7]))
    bag_case(f"bag_{mode}_2d", mode, idx.view(2, 5))
    # include_last_offset only with sum: PyTorch 1.13 divides the last bag's mean by the count up
    # to the end of the input (past the last offset), and corrupts memory with max or padding_idx
    if mode == "sum":
        bag_case(f"bag_{mode}_last", mode, idx, torch.tensor([0, 4, 6, 9]), include_last=True)
    bag_case(f"bag_{mode}_pad", mode, idx, torch.tensor([0, 4, 6, 9]), padding_idx=4)
bag_case("bag_sum_psw", "sum", idx, torch.tensor([0, 2, 8]), psw=True)
bag_case("bag_sum_psw_pad_2d", "sum", idx.view(5, 2), psw=True, padding_idx=-8)

save_file(out, os.path.join(os.path.dirname(os.path.abspath(__file__)), "nn_pool_norm.safetensors"), metadata=meta)
print(len(meta), "cases,", sum(t.numel() * t.element_size() for t in out.values()), "bytes")
