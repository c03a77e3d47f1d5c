# Golden data for tests/nn/ctc_test.cpp: torch.nn.functional.ctc_loss (torch 1.13, CPU, float64).
#   PYTHONPATH=<dir with safetensors> /usr/bin/python3 tests/golden/gen_nn_ctc.py
# Case <name>: logits (T, N, C), targets, input_lengths, target_lengths, then for each reduction r
# in none/sum/mean: loss_<r> of ctc_loss(log_softmax(logits)) and grad_<r> = d sum(loss_r * w) /
# d logits (w = 1 for the scalar reductions, a fixed vector for none). Gradients are taken
# through log_softmax: torch's ctc_loss returns exp(lp) - occupancy as its gradient with
# respect to log_probs (right only after log_softmax's backward), ember the exact -occupancy;
# both give the same gradient with respect to the logits.
import os
import torch
import torch.nn.functional as F
from safetensors.torch import save_file

torch.manual_seed(0)
out = {}

def case(name, T, N, C, targets, in_len, tg_len, blank=0, zero_infinity=False, unbatched=False):
    logits = torch.randn(T, N, C, dtype=torch.float64)
    if unbatched:
        logits = logits[:, 0]
    out[f"{name}.logits"] = logits.contiguous()
    out[f"{name}.targets"] = torch.tensor(targets, dtype=torch.int64)
    out[f"{name}.input_lengths"] = torch.tensor(in_len, dtype=torch.int64)
    out[f"{name}.target_lengths"] = torch.tensor(tg_len, dtype=torch.int64)
    for r in ["none", "sum", "mean"]:
        x = logits.clone().requires_grad_()
        loss = F.ctc_loss(x.log_softmax(-1), out[f"{name}.targets"], out[f"{name}.input_lengths"], out[f"{name}.target_lengths"],
                          blank=blank, reduction=r, zero_infinity=zero_infinity)
        w = torch.linspace(0.5, 1.5, loss.numel(), dtype=torch.float64).view(loss.shape) if r == "none" else 1.0
        (loss * w).sum().backward()
        out[f"{name}.loss_{r}"] = loss.detach().contiguous()
        out[f"{name}.grad_{r}"] = x.grad.contiguous()

case("padded", 12, 3, 6, [[1, 2, 3, 4], [2, 2, 5, 0], [3, 1, 0, 0]], [12, 10, 7], [4, 3, 2])
case("concat", 9, 2, 5, [1, 2, 2, 3, 4], [9, 8], [3, 2])
case("blank_last", 8, 2, 4, [[0, 1, 2], [2, 2, 1]], [8, 8], [3, 3], blank=3)
case("empty_target", 5, 2, 4, [[1, 2], [0, 0]], [5, 4], [2, 0])
case("too_short", 3, 2, 5, [[1, 2, 3, 4], [1, 1, 0, 0]], [3, 3], [4, 2], zero_infinity=True)
case("unbatched", 7, 1, 5, [1, 3, 3], 7, 3, unbatched=True)
save_file(out, os.path.join(os.path.dirname(os.path.abspath(__file__)), "nn_ctc.safetensors"))
