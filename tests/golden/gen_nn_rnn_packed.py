# Golden data for tests/nn/rnn_packed_test.cpp: torch.nn.utils.rnn and packed RNN inputs
# (torch 1.13, CPU, float64).  PYTHONPATH=<safetensors dir> /usr/bin/python3 tests/golden/gen_nn_rnn_packed.py
import os
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence, pack_sequence
from safetensors.torch import save_file

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)
out = {}

x = torch.randn(5, 3, 2)
p = pack_padded_sequence(x, torch.tensor([5, 3, 2]))
out["sorted.x"], out["sorted.data"], out["sorted.batch_sizes"] = x, p.data, p.batch_sizes
p = pack_padded_sequence(x, torch.tensor([2, 5, 3]), enforce_sorted=False)
out["unsorted.data"], out["unsorted.batch_sizes"] = p.data, p.batch_sizes
out["unsorted.sorted_indices"], out["unsorted.unsorted_indices"] = p.sorted_indices, p.unsorted_indices
padded, lengths = pad_packed_sequence(p, batch_first=True, padding_value=-1.0, total_length=6)
out["unsorted.padded"], out["unsorted.lengths"] = padded, lengths
seqs = [torch.randn(4, 2), torch.randn(2, 2), torch.randn(3, 2)]
for i, s in enumerate(seqs):
    out[f"seq.{i}"] = s
out["seq.padded"] = pad_sequence(seqs)
out["seq.padded_bf"] = pad_sequence(seqs, batch_first=True, padding_value=7.0)
out["seq.packed_data"] = pack_sequence(seqs, enforce_sorted=False).data

# Recurrent modules on a packed, unsorted batch: output data, final states, and gradients of
# sum(padded output * w) + sum(h_n * v) with respect to the padded input and the parameters.
lengths = torch.tensor([3, 6, 4, 1])
for name, mod in [("lstm", torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True)),
                  ("gru", torch.nn.GRU(3, 5, batch_first=True)),
                  ("rnn", torch.nn.RNN(3, 2, nonlinearity="relu", bidirectional=True))]:
    bf = mod.batch_first
    inp = torch.randn(4, 6, 3) if bf else torch.randn(6, 4, 3)
    inp.requires_grad_()
    packed = pack_padded_sequence(inp, lengths, batch_first=bf, enforce_sorted=False)
    hx = torch.randn(mod.num_layers * (2 if mod.bidirectional else 1), 4, mod.hidden_size)
    if name == "lstm":
        cx = torch.randn_like(hx)
        res, (h, c) = mod(packed, (hx, cx))
        out[f"{name}.cx"], out[f"{name}.c_n"] = cx, c.detach()
    else:
        res, h = mod(packed, hx)
    padded, _ = pad_packed_sequence(res, batch_first=bf)
    w = torch.randn_like(padded)
    v = torch.randn_like(h)
    ((padded * w).sum() + (h * v).sum()).backward()
    out[f"{name}.input"], out[f"{name}.hx"], out[f"{name}.w"], out[f"{name}.v"] = inp.detach(), hx, w, v
    out[f"{name}.data"], out[f"{name}.h_n"], out[f"{name}.grad_input"] = res.data.detach(), h.detach(), inp.grad
    for k, t in mod.state_dict().items():
        out[f"{name}.params.{k}"] = t
        out[f"{name}.grads.{k}"] = dict(mod.named_parameters())[k].grad
out["lengths"] = lengths
save_file({k: v.contiguous() for k, v in out.items()},
          os.path.join(os.path.dirname(os.path.abspath(__file__)), "nn_rnn_packed.safetensors"))
