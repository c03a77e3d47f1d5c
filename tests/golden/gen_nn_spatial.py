# Golden data for tests/nn/spatial_test.cpp: PyTorch 1.13's pad, interpolate, grid_sample,
# affine_grid, pixel_shuffle/unshuffle, unfold/fold and one_hot (values and gradients).
#   PYTHONPATH=<dir with safetensors> /usr/bin/python3 tests/golden/gen_nn_spatial.py
# Each case <name> stores its input <name>.x (and .grid / .theta), the output .y, a random
# grad_output .gy and the gradients .gx (.ggrid, .gtheta) of sum(y * gy), all contiguous;
# the case's arguments are a JSON string in the file's metadata under <name>. "cl": the
# input was channels-last in PyTorch.
import json
import os
import warnings

import torch
import torch.nn.functional as F
from safetensors.torch import save_file

warnings.simplefilter("ignore")
torch.manual_seed(0)
out, meta = {}, {}


def record(name, args, inputs, fn, dtype=torch.float64):
    ts = {k: v.to(dtype).requires_grad_(v.is_floating_point()) for k, v in inputs.items()}
    if args.get("cl"):
        fmt = torch.channels_last if ts["x"].dim() == 4 else torch.channels_last_3d
        ts["x"] = ts["x"].detach().contiguous(memory_format=fmt).requires_grad_()
    y = fn(**ts)
    out[f"{name}.y"] = y.detach().contiguous()
    for k, v in inputs.items():
        out[f"{name}.{k}"] = ts[k].detach().contiguous()
    if y.is_floating_point():
        gy = torch.randn_like(y)
        (y * gy).sum().backward()
        out[f"{name}.gy"] = gy.contiguous()
        for k, v in ts.items():
            if v.requires_grad:
                out[f"{name}.g{k}"] = v.grad.contiguous()
    meta[name] = json.dumps(dict(args, dtype=str(dtype).replace("torch.", "")))


# ---- pad -------------------------------------------------------------------------------------
pads = [
    ("1d", (2, 3, 7), [2, 3]), ("1d_unbatched", (3, 7), [3, 1]), ("1d_neg", (2, 3, 7), [-2, 3]),
    ("2d", (2, 3, 5, 6), [1, 2, 3, 0]), ("2d_unbatched", (3, 5, 6), [2, 2, 1, 1]), ("2d_neg", (2, 3, 5, 6), [2, -1, -2, 3]),
    ("3d", (2, 2, 4, 5, 3), [1, 2, 0, 3, 2, 1]), ("3d_unbatched", (2, 4, 5, 3), [2, 1, 1, 0, 0, 2]),
]
for mode in ["constant", "reflect", "replicate", "circular"]:
    for tag, shape, p in pads:
        if mode == "circular" and "unbatched" in tag:
            continue
        for cl in [False, True] if len(shape) in (4, 5) and "unbatched" not in tag else [False]:
            value = 1.5 if mode == "constant" else 0.0
            name = f"pad_{mode}_{tag}" + ("_cl" if cl else "")
            record(name, {"op": "pad", "pad": p, "mode": mode, "value": value, "cl": cl}, {"x": torch.randn(*shape)},
                   lambda x, p=p, mode=mode, value=value: F.pad(x, p, mode=mode, value=value) if mode == "constant"
                   else F.pad(x, p, mode=mode), dtype=torch.float32 if cl else torch.float64)

# ---- interpolate --------------------------------------------------------------------------------
shapes = {1: (2, 3, 7), 2: (2, 3, 5, 6), 3: (1, 2, 4, 5, 3)}
modes = {"nearest": [1, 2, 3], "nearest-exact": [1, 2, 3], "area": [1, 2, 3], "linear": [1], "bilinear": [2],
         "bicubic": [2], "trilinear": [3]}
resizes = [  # (tag, size, scale_factor, recompute_scale_factor)
    ("up_size", [11, 13, 7], None, None), ("down_size", [4, 3, 2], None, None), ("mixed_size", [3, 9, 5], None, None),
    ("x2", None, [2.0, 2.0, 2.0], None), ("frac_scale", None, [1.7, 0.6, 2.5], None),
    ("frac_scale_recompute", None, [1.7, 0.6, 2.5], True), ("down_scale", None, [0.5, 0.75, 0.4], False),
]
for mode, dims in modes.items():
    for d in dims:
        for tag, size, scale, recompute in resizes:
            aligns = [False, True] if mode in ("linear", "bilinear", "bicubic", "trilinear") else [None]
            for align in aligns:
                for cl in [False, True] if d >= 2 and tag in ("x2", "frac_scale", "mixed_size") else [False]:
                    kw = {"mode": mode}
                    if size: kw["size"] = size[:d]
                    if scale: kw["scale_factor"] = scale[:d]
                    if recompute is not None: kw["recompute_scale_factor"] = recompute
                    if align is not None: kw["align_corners"] = align
                    name = f"interp_{mode}_{d}d_{tag}" + ({None: "", False: "", True: "_align"}[align]) + ("_cl" if cl else "")
                    args = {"op": "interpolate", "mode": mode, "size": kw.get("size"), "scale": kw.get("scale_factor"),
                            "recompute": recompute, "align": align, "antialias": False, "cl": cl}
                    record(name, args, {"x": torch.randn(*shapes[d])}, lambda x, kw=kw: F.interpolate(x, **kw),
                           dtype=torch.float32)
# a float64 run of each interpolating mode, and the antialiased ones
for mode, d in [("bilinear", 2), ("bicubic", 2), ("linear", 1), ("trilinear", 3), ("nearest", 2)]:
    kw = {"mode": mode, "scale_factor": [1.6, 0.7, 2.0][:d]}
    if mode != "nearest": kw["align_corners"] = False
    record(f"interp_{mode}_{d}d_f64", {"op": "interpolate", "mode": mode, "size": None, "scale": kw["scale_factor"],
           "recompute": None, "align": kw.get("align_corners"), "antialias": False, "cl": False},
           {"x": torch.randn(*shapes[d])}, lambda x, kw=kw: F.interpolate(x, **kw), dtype=torch.float64)
for mode in ["bilinear", "bicubic"]:
    for tag, size, align in [("down", [3, 4], False), ("down_align", [2, 5], True), ("up", [9, 8], False)]:
        record(f"interp_{mode}_aa_{tag}", {"op": "interpolate", "mode": mode, "size": size, "scale": None,
               "recompute": None, "align": align, "antialias": True, "cl": False},
               {"x": torch.randn(2, 3, 7, 9)},
               lambda x, mode=mode, size=size, align=align: F.interpolate(x, size=size, mode=mode, align_corners=align,
                                                                          antialias=True), dtype=torch.float32)

# ---- grid_sample / affine_grid --------------------------------------------------------------------
for d in [2, 3]:
    for mode in ["bilinear", "nearest", "bicubic"]:
        if mode == "bicubic" and d == 3:
            continue
        for padding in ["zeros", "border", "reflection"]:
            for align in [False, True]:
                x = torch.randn(2, 3, 5, 6) if d == 2 else torch.randn(2, 2, 4, 5, 3)
                grid = torch.rand(2, 4, 7, 2) * 2.6 - 1.3 if d == 2 else torch.rand(2, 3, 4, 2, 3) * 2.6 - 1.3
                name = f"grid_{mode}_{padding}_{d}d" + ("_align" if align else "")
                record(name, {"op": "grid_sample", "mode": mode, "padding": padding, "align": align, "cl": False},
                       {"x": x, "grid": grid},
                       lambda x, grid, mode=mode, padding=padding, align=align:
                       F.grid_sample(x, grid, mode=mode, padding_mode=padding, align_corners=align))
record("grid_bilinear_zeros_2d_cl", {"op": "grid_sample", "mode": "bilinear", "padding": "zeros", "align": False,
       "cl": True}, {"x": torch.randn(2, 3, 5, 6), "grid": torch.rand(2, 4, 7, 2) * 2.6 - 1.3},
       lambda x, grid: F.grid_sample(x, grid, align_corners=False), dtype=torch.float32)
for size, align in [([2, 3, 4, 5], False), ([2, 3, 4, 5], True), ([2, 1, 3, 4, 2], False), ([2, 1, 3, 4, 2], True),
                    ([2, 3, 1, 5], True)]:
    d = len(size) - 2
    name = f"affine_{d}d_{'x'.join(map(str, size))}" + ("_align" if align else "")
    record(name, {"op": "affine_grid", "size": size, "align": align}, {"theta": torch.randn(2, d, d + 1)},
           lambda theta, size=size, align=align: F.affine_grid(theta, size, align_corners=align))

# ---- pixel_shuffle / pixel_unshuffle, unfold / fold, one_hot ---------------------------------------------
for cl in [False, True]:
    record("pixel_shuffle" + ("_cl" if cl else ""), {"op": "pixel_shuffle", "r": 2, "cl": cl},
           {"x": torch.randn(2, 8, 3, 4)}, lambda x: F.pixel_shuffle(x, 2), dtype=torch.float32)
    record("pixel_unshuffle" + ("_cl" if cl else ""), {"op": "pixel_unshuffle", "r": 3, "cl": cl},
           {"x": torch.randn(2, 2, 6, 9)}, lambda x: F.pixel_unshuffle(x, 3), dtype=torch.float32)
record("pixel_shuffle_5d", {"op": "pixel_shuffle", "r": 3, "cl": False}, {"x": torch.randn(2, 3, 9, 2, 3)},
       lambda x: F.pixel_shuffle(x, 3))
record("pixel_unshuffle_3d", {"op": "pixel_unshuffle", "r": 2, "cl": False}, {"x": torch.randn(3, 4, 6)},
       lambda x: F.pixel_unshuffle(x, 2))
for tag, shape, k, dil, pad, stride in [("basic", (2, 3, 5, 6), [2, 2], [1, 1], [0, 0], [1, 1]),
                                        ("all", (2, 2, 7, 8), [3, 2], [2, 1], [1, 2], [2, 3]),
                                        ("unbatched", (3, 4, 5), [2, 3], [1, 2], [1, 0], [1, 2])]:
    args = {"k": k, "d": dil, "p": pad, "s": stride}
    record(f"unfold_{tag}", dict(args, op="unfold"), {"x": torch.randn(*shape)},
           lambda x, k=k, dil=dil, pad=pad, stride=stride: F.unfold(x, k, dil, pad, stride))
    cols = F.unfold(torch.zeros(*shape), k, dil, pad, stride)
    record(f"fold_{tag}", dict(args, op="fold", out=list(shape[-2:])), {"x": torch.randn(*cols.shape)},
           lambda x, k=k, dil=dil, pad=pad, stride=stride, o=shape[-2:]: F.fold(x, o, k, dil, pad, stride))
for tag, n in [("infer", -1), ("given", 7)]:
    record(f"one_hot_{tag}", {"op": "one_hot", "n": n}, {"x": torch.randint(0, 5, (3, 4))},
           lambda x, n=n: F.one_hot(x, n), dtype=torch.int64)

save_file(out, os.path.join(os.path.dirname(os.path.abspath(__file__)), "nn_spatial.safetensors"), metadata=meta)
print(len(meta), "cases,", sum(v.numel() * v.element_size() for v in out.values()) // 1024, "KiB")
