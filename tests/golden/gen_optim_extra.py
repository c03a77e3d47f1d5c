#!/usr/bin/env python3
"""Golden data for tests/optim/optimizers_test.cpp, tests/optim/schedulers_test.cpp and
tests/nn/nn_utils_test.cpp, from PyTorch 1.13.

Writes tests/golden/optim_extra.json (optimizer trajectories and scheduler lr sequences) and
tests/golden/nn_utils.json (clip_grad_norm_). Run with the system Python:
    /usr/bin/python3 tests/golden/gen_optim_extra.py
Everything is float64; numbers are written with repr (exact round trip).

Optimizer cases: parameters w (2x3), b (3) and c (2, never used, so its grad stays None) start at
W0/B0/C0; every step calls opt.step(closure) with
    loss = ((X @ w + b - Y) ** 2).sum() + 0.25 * (w * w * w * w).sum()
and records the closure's loss returned by step() and the flattened parameters (w, b, c) after it.
Scheduler cases record get_last_lr() after construction and after each step() (and for OneCycleLR
the momentum / beta1 of each group); ReduceLROnPlateau cases the lrs after each step(metric).
"""
import json
import math
import os

import torch

# (Not torch.set_default_dtype: optimizer state such as NAdam's mu_product is created in the
# default dtype, float32, and the goldens must see that.)
F64 = torch.float64
HERE = os.path.dirname(os.path.abspath(__file__))

X = [[1.0, -0.5], [0.3, 2.0], [-1.2, 0.7], [0.5, 0.5]]
Y = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75], [-0.3, 1.1, 0.4], [2.0, -0.6, 0.9]]
W0 = [[0.2, -0.4, 0.9], [1.1, 0.3, -0.7]]
B0 = [0.1, -0.2, 0.3]
C0 = [0.5, -1.5]


def make_params():
    return [torch.tensor(v, dtype=F64, requires_grad=True) for v in (W0, B0, C0)]


def loss_fn(w, b):
    x, y = torch.tensor(X, dtype=F64), torch.tensor(Y, dtype=F64)
    return ((x @ w + b - y) ** 2).sum() + 0.25 * (w * w * w * w).sum()


# (name, class, kwargs, steps, group lrs or None). kwargs use the Python names; the C++ test maps
# them onto the options setters. With group lrs, w is one group and b, c another.
OPTIM_CASES = [
    ("adadelta_default", "Adadelta", {}, 6, None),
    ("adadelta_options", "Adadelta", dict(lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1), 6, None),
    ("adadelta_maximize", "Adadelta", dict(lr=2.0, weight_decay=0.05, maximize=True), 6, None),
    ("adamax_default", "Adamax", {}, 6, None),
    ("adamax_options", "Adamax", dict(lr=0.1, betas=(0.8, 0.99), eps=1e-3, weight_decay=0.1), 8, None),
    ("adamax_maximize", "Adamax", dict(lr=0.05, maximize=True), 6, None),
    ("adamax_groups", "Adamax", dict(lr=0.1), 6, [0.05, None]),
    ("nadam_default", "NAdam", {}, 6, None),
    ("nadam_options", "NAdam", dict(lr=0.1, betas=(0.8, 0.9), eps=1e-6, weight_decay=0.1, momentum_decay=0.01),
     8, None),
    ("radam_default", "RAdam", dict(lr=0.1), 8, None),
    ("radam_options", "RAdam", dict(lr=0.05, betas=(0.9, 0.9), eps=1e-6, weight_decay=0.1), 10, None),
    ("lbfgs_default", "LBFGS", {}, 3, None),
    ("lbfgs_short", "LBFGS", dict(lr=0.5, max_iter=4, history_size=3), 6, None),
    ("lbfgs_wolfe", "LBFGS", dict(line_search_fn="strong_wolfe"), 3, None),
    ("lbfgs_wolfe_short", "LBFGS", dict(lr=0.8, max_iter=5, max_eval=7, history_size=2,
                                        line_search_fn="strong_wolfe"), 5, None),
    ("lbfgs_wolfe_extrapolate", "LBFGS", dict(lr=0.01, max_iter=5, line_search_fn="strong_wolfe"), 4, None),
    ("lbfgs_wolfe_zoom", "LBFGS", dict(lr=5.0, max_iter=5, history_size=3, line_search_fn="strong_wolfe"), 4, None),
    ("lbfgs_tolerances", "LBFGS", dict(max_iter=10, tolerance_grad=1e-3, tolerance_change=1e-4), 4, None),
    # The first optimizers (ember/optim/sgd.h, adam.h, adamw.h, rmsprop.h, adagrad.h).
    ("sgd_plain", "SGD", dict(lr=0.01), 6, None),
    ("sgd_momentum", "SGD", dict(lr=0.01, momentum=0.9, dampening=0.1, weight_decay=0.05), 8, None),
    ("sgd_nesterov_maximize", "SGD", dict(lr=0.005, momentum=0.8, nesterov=True, maximize=True), 6, None),
    ("sgd_groups", "SGD", dict(lr=0.01, momentum=0.5), 6, [0.02, None]),
    ("adam_default", "Adam", {}, 8, None),
    ("adam_options", "Adam", dict(lr=0.05, betas=(0.8, 0.95), eps=1e-6, weight_decay=0.1, amsgrad=True), 10, None),
    ("adam_maximize", "Adam", dict(lr=0.02, maximize=True), 6, None),
    ("adam_groups", "Adam", dict(lr=0.05), 6, [0.01, None]),
    ("adamw_default", "AdamW", dict(lr=0.05), 8, None),
    ("adamw_amsgrad", "AdamW", dict(lr=0.05, weight_decay=0.3, amsgrad=True), 8, None),
    ("rmsprop_default", "RMSprop", dict(lr=0.01), 8, None),
    ("rmsprop_centered_momentum", "RMSprop", dict(lr=0.005, alpha=0.9, eps=1e-6, weight_decay=0.1, momentum=0.5,
                                                  centered=True), 8, None),
    ("adagrad_default", "Adagrad", dict(lr=0.1), 8, None),
    ("adagrad_options", "Adagrad", dict(lr=0.2, lr_decay=0.05, weight_decay=0.1, initial_accumulator_value=0.5,
                                        eps=1e-8), 8, None),
]


def run_optim(cls, kwargs, steps, group_lrs):
    params = make_params()
    if group_lrs is None:
        arg = params
    else:
        arg = [{"params": [params[0]]}, {"params": params[1:]}]
        for g, lr in zip(arg, group_lrs):
            if lr is not None:
                g["lr"] = lr
    opt = getattr(torch.optim, cls)(arg, **kwargs)

    def closure():
        opt.zero_grad()
        loss = loss_fn(params[0], params[1])
        loss.backward()
        return loss

    traj, losses = [], []
    for _ in range(steps):
        losses.append(float(opt.step(closure)))
        traj.append(torch.cat([p.detach().reshape(-1) for p in params]).tolist())
    return {"losses": losses, "params": traj}


def build_scheduler(opt, spec):
    """spec: {"kind": a torch.optim.lr_scheduler class, "args": its keyword arguments}; a SequentialLR's
    args hold the specs of its schedulers. LambdaLR's lambda is fixed: 1 / (epoch + 1)."""
    S = torch.optim.lr_scheduler
    kind, args = spec["kind"], spec.get("args", {})
    if kind == "SequentialLR":
        return S.SequentialLR(opt, [build_scheduler(opt, s) for s in args["schedulers"]], args["milestones"])
    if kind == "LambdaLR":
        return S.LambdaLR(opt, lambda e: 1.0 / (e + 1))
    return getattr(S, kind)(opt, **args)


def make_optimizer(kind, lrs):
    """Two groups of one parameter each, with lrs[0] and lrs[1]."""
    groups = [{"params": [torch.zeros(1, requires_grad=True)], "lr": lr} for lr in lrs]
    if kind == "Adam":
        return torch.optim.Adam(groups, lr=1.0)
    return torch.optim.SGD(groups, lr=1.0, momentum=0.9 if kind == "SGD_momentum" else 0.0)


def momentum_of(group):
    return group["betas"][0] if "betas" in group else group["momentum"]


def scheduler_case(name, kind, args, steps, optimizer="SGD", lrs=(0.1, 0.05), record_momentum=False):
    """get_last_lr() after construction and after each of `steps` step() calls."""
    spec = {"kind": kind, "args": args}
    opt = make_optimizer(optimizer, lrs)
    sched = build_scheduler(opt, spec)
    got, moms = [sched.get_last_lr()], [[momentum_of(g) for g in opt.param_groups]]
    for _ in range(steps):
        opt.step()
        sched.step()
        got.append(sched.get_last_lr())
        moms.append([momentum_of(g) for g in opt.param_groups])
    case = {"name": name, "optimizer": optimizer, "lrs": list(lrs), "scheduler": spec, "steps": steps,
            "expect": got}
    if record_momentum:
        case["momentum"] = moms
    return case


def plateau_case(name, args, metrics, lrs=(0.1, 0.05)):
    """The lrs after each step(metric)."""
    opt = make_optimizer("SGD", lrs)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, **args)
    got = []
    for m in metrics:
        sched.step(m)
        got.append([g["lr"] for g in opt.param_groups])
    return {"name": name, "lrs": list(lrs), "args": args, "metrics": metrics, "expect": got}


def sub(kind, **args):
    return {"kind": kind, "args": args}


def scheduler_cases():
    return [
        scheduler_case("warm_restarts_tmult1", "CosineAnnealingWarmRestarts", dict(T_0=3, eta_min=0.001), 12),
        scheduler_case("warm_restarts_tmult2", "CosineAnnealingWarmRestarts", dict(T_0=2, T_mult=2), 20),
        scheduler_case("warm_restarts_tmult3", "CosineAnnealingWarmRestarts", dict(T_0=1, T_mult=3, eta_min=0.01),
                       45),
        scheduler_case("one_cycle_cos", "OneCycleLR", dict(max_lr=1.0, total_steps=20), 20, "SGD_momentum",
                       record_momentum=True),
        scheduler_case("one_cycle_linear", "OneCycleLR", dict(max_lr=[1.0, 0.5], total_steps=15,
                                                              anneal_strategy="linear", base_momentum=0.8,
                                                              max_momentum=0.9), 15, "SGD_momentum",
                       record_momentum=True),
        scheduler_case("one_cycle_three_phase", "OneCycleLR", dict(max_lr=0.5, epochs=4, steps_per_epoch=5,
                                                                   pct_start=0.25, div_factor=10.0,
                                                                   final_div_factor=100.0, three_phase=True),
                       20, "Adam", record_momentum=True),
        scheduler_case("one_cycle_no_momentum", "OneCycleLR", dict(max_lr=0.3, total_steps=10, cycle_momentum=False,
                                                                   pct_start=0.5), 10, record_momentum=True),
        scheduler_case("step", "StepLR", dict(step_size=3, gamma=0.5), 10),
        scheduler_case("multistep", "MultiStepLR", dict(milestones=[2, 5, 6], gamma=0.3), 9),
        scheduler_case("exponential", "ExponentialLR", dict(gamma=0.8), 7),
        scheduler_case("cosine", "CosineAnnealingLR", dict(T_max=5, eta_min=0.01), 12),
        scheduler_case("linear_default", "LinearLR", {}, 8),
        scheduler_case("linear_decay", "LinearLR", dict(start_factor=1.0, end_factor=0.1, total_iters=4), 7),
        scheduler_case("constant_default", "ConstantLR", {}, 8),
        scheduler_case("constant_half", "ConstantLR", dict(factor=0.5, total_iters=3), 6),
        scheduler_case("sequential_linear_exp", "SequentialLR", dict(
            schedulers=[sub("LinearLR", start_factor=0.1, total_iters=3), sub("ExponentialLR", gamma=0.9)],
            milestones=[3]), 9),
        scheduler_case("sequential_three", "SequentialLR", dict(
            schedulers=[sub("ConstantLR", factor=0.1, total_iters=2), sub("CosineAnnealingLR", T_max=4, eta_min=0.001),
                        sub("StepLR", step_size=2, gamma=0.5)], milestones=[2, 6]), 12),
        scheduler_case("sequential_lambda_warm", "SequentialLR", dict(
            schedulers=[sub("LambdaLR"), sub("CosineAnnealingWarmRestarts", T_0=2, T_mult=2),
                        sub("MultiStepLR", milestones=[2, 3], gamma=0.5)], milestones=[4, 10]), 14),
    ]


def plateau_cases():
    return [
        plateau_case("plateau_min_rel", dict(factor=0.5, patience=2, cooldown=1, min_lr=0.01),
                     [1.0, 0.9, 0.95, 0.92, 0.91, 0.9, 0.95, 0.96, 0.97, 0.5, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6]),
        plateau_case("plateau_max_abs", dict(mode="max", threshold=0.1, threshold_mode="abs", patience=1, factor=0.2),
                     [1.0, 1.05, 1.2, 1.25, 1.28, 1.5, 1.3, 1.3, 1.3]),
        plateau_case("plateau_max_rel", dict(mode="max", patience=0), [1.0, 1.00005, 1.2, 1.1, 1.3]),
        plateau_case("plateau_eps", dict(patience=0, factor=0.5, eps=1e-3), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
                     lrs=(0.1, 1e-8)),
        plateau_case("plateau_min_abs_min_lrs", dict(threshold_mode="abs", threshold=0.05, patience=0,
                                                     min_lr=[0.02, 0.03]), [1.0, 0.97, 0.9, 0.89, 0.5, 0.46, 0.45]),
        plateau_case("plateau_defaults", {}, [1.0] * 14 + [0.5] * 12),
    ]


def clip_cases():
    grads = [[[0.5, -2.0, 1.5], [3.0, -0.25, 0.0]], [1.0, -1.0, 4.0], None]
    cases = []
    for norm_type in [2.0, 1.0, math.inf, 3.5, 0.0]:
        for max_norm in [1.0, 100.0]:
            params = [torch.zeros(shape, dtype=F64, requires_grad=True) for shape in [(2, 3), (3,), (2,)]]
            for p, g in zip(params, grads):
                if g is not None:
                    p.grad = torch.tensor(g, dtype=F64)
            total = torch.nn.utils.clip_grad_norm_(params, max_norm, norm_type=norm_type)
            cases.append({"norm_type": "inf" if math.isinf(norm_type) else norm_type, "max_norm": max_norm,
                          "total_norm": float(total),
                          "grads": [p.grad.reshape(-1).tolist() for p in params[:2]]})
    return {"grads": grads, "clip_grad_norm": cases}


def write_json(name, obj):
    """A JSON object with each case of its lists on one line (diffs name the case that changed)."""
    fields = []
    for key, value in obj.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            fields.append(f"{json.dumps(key)}: [\n  " + ",\n  ".join(json.dumps(v) for v in value) + "\n ]")
        else:
            fields.append(f"{json.dumps(key)}: {json.dumps(value)}")
    with open(os.path.join(HERE, name), "w") as f:
        f.write("{\n " + ",\n ".join(fields) + "\n}\n")


def main():
    optim = {"x": X, "y": Y, "w0": W0, "b0": B0, "c0": C0, "optimizers": [], "schedulers": scheduler_cases(),
             "plateau": plateau_cases()}
    for name, cls, kwargs, steps, group_lrs in OPTIM_CASES:
        case = {"name": name, "optimizer": cls, "options": kwargs, "steps": steps}
        if group_lrs is not None:
            case["group_lrs"] = group_lrs
        case.update(run_optim(cls, kwargs, steps, group_lrs))
        optim["optimizers"].append(case)
    write_json("optim_extra.json", optim)
    write_json("nn_utils.json", clip_cases())


if __name__ == "__main__":
    main()
