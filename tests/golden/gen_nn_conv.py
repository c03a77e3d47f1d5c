# Golden data for tests/nn/conv_test.cpp: PyTorch convolutions (values and gradients).
#   PYTHONPATH=<dir with safetensors> /usr/bin/python3 tests/golden/gen_nn_conv.py
# Each case <name> stores input, weight, bias, output, grad_output and the gradients
# <name>.gx / .gw / .gb of sum(output * grad_output); float32, computed by torch 1.13 on CPU.
import os
import torch
import torch.nn.functional as F
from safetensors.torch import save_file

torch.manual_seed(0)
cases = {
    # name: (dims, N, C, O, spatial, kernel, stride, padding, dilation, groups, channels_last)
    "c1d": (1, 2, 3, 4, (11,), (3,), (2,), (1,), (1,), 1, False),
    "c1d_same_dil": (1, 2, 4, 4, (9,), (4,), (1,), "same", (2,), 2, False),
    "c2d": (2, 2, 3, 5, (9, 8), (3, 3), (1, 1), (1, 1), (1, 1), 1, False),
    "c2d_strided": (2, 3, 4, 6, (10, 9), (3, 2), (2, 3), (1, 0), (1, 2), 2, False),
    "c2d_same_even": (2, 2, 3, 4, (7, 6), (4, 2), (1, 1), "same", (1, 1), 1, False),
    "c2d_depthwise_cl": (2, 2, 6, 6, (8, 8), (3, 3), (1, 1), (1, 1), (1, 1), 6, True),
    "c2d_cl": (2, 2, 8, 16, (7, 7), (3, 3), (2, 2), (1, 1), (1, 1), 1, True),
    "c3d": (3, 2, 2, 3, (5, 6, 4), (3, 2, 3), (1, 2, 1), (1, 0, 1), (1, 1, 1), 1, False),
}
out = {}
for name, (d, n, c, o, spatial, k, stride, padding, dilation, groups, cl) in cases.items():
    x = torch.randn(n, c, *spatial)
    w = torch.randn(o, c // groups, *k) * 0.3
    b = torch.randn(o)
    if cl:
        x = x.contiguous(memory_format=torch.channels_last)
    x.requires_grad_(), w.requires_grad_(), b.requires_grad_()
    conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[d]
    y = conv(x, w, b, stride, padding, dilation, groups)
    gy = torch.randn_like(y)
    (y * gy).sum().backward()
    for key, t in {"x": x, "w": w, "b": b, "y": y, "gy": gy, "gx": x.grad, "gw": w.grad, "gb": b.grad}.items():
        out[f"{name}.{key}"] = t.detach().contiguous()

# Transposed convolutions: (dims, N, C_in, C_out, spatial, kernel, stride, padding, output_padding,
# dilation, groups, channels_last); weight (C_in, C_out / groups, k...).
tcases = {
    "t1d": (1, 2, 3, 4, (7,), (3,), (2,), (1,), (1,), (1,), 1, False),
    "t2d": (2, 2, 4, 6, (5, 4), (3, 3), (2, 2), (1, 1), (1, 0), (1, 1), 2, False),
    "t2d_dil": (2, 2, 3, 2, (6, 5), (3, 2), (1, 1), (2, 1), (0, 0), (2, 1), 1, False),
    "t2d_outpad_gt_pad": (2, 1, 2, 3, (4, 4), (2, 2), (3, 3), (0, 0), (2, 1), (1, 1), 1, False),
    "t2d_cl": (2, 2, 8, 4, (5, 5), (4, 4), (2, 2), (1, 1), (0, 0), (1, 1), 1, True),
    "t3d": (3, 1, 2, 3, (3, 4, 2), (2, 3, 2), (2, 1, 2), (0, 1, 0), (1, 0, 0), (1, 1, 1), 1, False),
}
for name, (d, n, c, o, spatial, k, stride, padding, opad, dilation, groups, cl) in tcases.items():
    x = torch.randn(n, c, *spatial)
    w = torch.randn(c, o // groups, *k) * 0.3
    b = torch.randn(o)
    if cl:
        x = x.contiguous(memory_format=torch.channels_last)
    x.requires_grad_(), w.requires_grad_(), b.requires_grad_()
    conv = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}[d]
    y = conv(x, w, b, stride, padding, opad, groups, dilation)
    gy = torch.randn_like(y)
    (y * gy).sum().backward()
    for key, t in {"x": x, "w": w, "b": b, "y": y, "gy": gy, "gx": x.grad, "gw": w.grad, "gb": b.grad}.items():
        out[f"{name}.{key}"] = t.detach().contiguous()

# Padding modes: nn.ConvNd(padding_mode=...) modules (weights stored as w, b).
pcases = {
    "pm_reflect2d": (2, dict(in_channels=2, out_channels=3, kernel_size=3, padding=1, padding_mode="reflect"), (2, 2, 6, 5)),
    "pm_replicate_same": (2, dict(in_channels=2, out_channels=2, kernel_size=(4, 3), padding="same", padding_mode="replicate"),
                          (1, 2, 6, 6)),
    "pm_circular1d": (1, dict(in_channels=3, out_channels=2, kernel_size=3, padding=2, dilation=2, padding_mode="circular"),
                      (2, 3, 9)),
    "pm_circular3d": (3, dict(in_channels=1, out_channels=2, kernel_size=3, padding=(1, 0, 1), padding_mode="circular",
                              stride=2), (1, 1, 5, 4, 5)),
}
for name, (d, kw, xs) in pcases.items():
    m = {1: torch.nn.Conv1d, 2: torch.nn.Conv2d, 3: torch.nn.Conv3d}[d](**kw)
    x = torch.randn(*xs, requires_grad=True)
    y = m(x)
    gy = torch.randn_like(y)
    (y * gy).sum().backward()
    for key, t in {"x": x, "w": m.weight, "b": m.bias, "y": y, "gy": gy, "gx": x.grad, "gw": m.weight.grad,
                   "gb": m.bias.grad}.items():
        out[f"{name}.{key}"] = t.detach().contiguous()

# Complex convolutions (complex64): gradients of y.backward(gy), PyTorch's conjugate
# Wirtinger convention. Stored as real views (trailing dim 2).
ccases = {
    "cx2d": (2, (2, 3, 6, 5), (4, 3, 3, 2), dict(stride=(2, 1), padding=(1, 0)), False),
    "cx1d": (1, (2, 2, 7), (2, 1, 3), dict(stride=1, padding=1, groups=2), False),
    # (torch 1.13 has no complex transposed convolution on CPU; ember's is checked against
    # its definition through real transposed convolutions in the test.)
}
for name, (d, xs, ws, kw, transposed) in ccases.items():
    x = torch.randn(*xs, dtype=torch.complex64, requires_grad=True)
    w = (torch.randn(*ws, dtype=torch.complex64) * 0.3).requires_grad_()
    b = torch.randn(ws[1] * kw.get("groups", 1) if transposed else ws[0], dtype=torch.complex64, requires_grad=True)
    if transposed:
        y = F.conv_transpose2d(x, w, b, **kw)
    else:
        y = {1: F.conv1d, 2: F.conv2d}[d](x, w, b, **kw)
    gy = torch.randn_like(y)
    y.backward(gy)
    for key, t in {"x": x, "w": w, "b": b, "y": y, "gy": gy, "gx": x.grad, "gw": w.grad, "gb": b.grad}.items():
        out[f"{name}.{key}"] = torch.view_as_real(t.detach()).contiguous()
save_file(out, os.path.join(os.path.dirname(os.path.abspath(__file__)), "nn_conv.safetensors"))
