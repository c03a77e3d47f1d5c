# Golden values for tests/nn/rnn_test.cpp and tests/nn/transformer_test.cpp, from PyTorch:
#   PYTHONPATH=<dir with safetensors> /usr/bin/python3 tests/golden/gen_rnn_transformer.py
# Each case builds a PyTorch module (float64, eval mode, parameters perturbed off their
# initial values), runs it, and back-propagates loss = sum_i (outputs[i] * r[i]).sum() for
# fixed random r[i]. rnn_transformer.safetensors holds, for case C:
#   C.model.<state_dict name>   the module's state_dict (ember loads it by these names)
#   C.in.<name>                 inputs (floating inputs whose name has no "mask" get gradients)
#   C.out.<i>, C.r.<i>          outputs and their loss weights
#   C.grad.in.<name>, C.grad.model.<parameter name>   gradients of the loss
# and the metadata entry "C.params": the state_dict's names in PyTorch's order.
import math
import os

import torch
import torch.nn as nn
from safetensors.torch import save_file

here = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(0)
torch.set_default_dtype(torch.float64)
tensors, metadata = {}, {}


def record(name, module, inputs, run):
    """run(module, inputs) -> list of output tensors."""
    if module is not None:
        module.double().eval()
        with torch.no_grad():
            for p in module.parameters():
                p.add_(0.1 * torch.randn_like(p))
        state = module.state_dict()
        metadata[name + ".params"] = ",".join(state.keys())
        for k, v in state.items():
            tensors[f"{name}.model.{k}"] = v.detach().clone().contiguous()
    ins = {}
    for k, v in inputs.items():
        v = v.detach().clone()
        if v.is_floating_point() and "mask" not in k:
            v.requires_grad_(True)
        ins[k] = v
        tensors[f"{name}.in.{k}"] = v.detach().clone().contiguous()
    outs = run(module, ins)
    loss = 0
    for i, o in enumerate(outs):
        r = torch.randn_like(o)
        tensors[f"{name}.out.{i}"] = o.detach().clone().contiguous()
        tensors[f"{name}.r.{i}"] = r.contiguous()
        loss = loss + (o * r).sum()
    loss.backward()
    for k, v in ins.items():
        if v.requires_grad:
            tensors[f"{name}.grad.in.{k}"] = v.grad.detach().clone().contiguous()
    if module is not None:
        for k, p in module.named_parameters():
            tensors[f"{name}.grad.model.{k}"] = p.grad.detach().clone().contiguous()


randn = torch.randn

# ---- recurrent layers ----
record("lstm", nn.LSTM(3, 5, num_layers=2, bidirectional=True, batch_first=True, proj_size=2, dropout=0.3),
       {"x": randn(2, 4, 3), "h0": randn(4, 2, 2), "c0": randn(4, 2, 5)},
       lambda m, i: (lambda o: [o[0], o[1][0], o[1][1]])(m(i["x"], (i["h0"], i["c0"]))))
record("lstm_unbatched", nn.LSTM(3, 4, bias=False), {"x": randn(5, 3), "h0": randn(1, 4), "c0": randn(1, 4)},
       lambda m, i: (lambda o: [o[0], o[1][0], o[1][1]])(m(i["x"], (i["h0"], i["c0"]))))
record("gru", nn.GRU(3, 4, num_layers=2, bidirectional=True, dropout=0.2), {"x": randn(5, 2, 3), "h0": randn(4, 2, 4)},
       lambda m, i: list(m(i["x"], i["h0"])))
record("rnn_relu", nn.RNN(3, 4, num_layers=2, nonlinearity="relu", bias=False, batch_first=True),
       {"x": randn(2, 5, 3)}, lambda m, i: list(m(i["x"])))
record("rnn_tanh", nn.RNN(3, 4, bidirectional=True), {"x": randn(5, 3), "h0": randn(2, 4)},
       lambda m, i: list(m(i["x"], i["h0"])))
record("lstm_cell", nn.LSTMCell(3, 4), {"x": randn(2, 3), "h0": randn(2, 4), "c0": randn(2, 4)},
       lambda m, i: list(m(i["x"], (i["h0"], i["c0"]))))
record("gru_cell", nn.GRUCell(3, 4), {"x": randn(3)}, lambda m, i: [m(i["x"])])
record("rnn_cell", nn.RNNCell(3, 4, bias=False, nonlinearity="relu"), {"x": randn(2, 3), "h0": randn(2, 4)},
       lambda m, i: [m(i["x"], i["h0"])])

# ---- attention ----
mask = torch.zeros(3, 4, dtype=torch.bool)
mask[0, 3] = mask[2, 1] = True
kpm = torch.zeros(2, 4, dtype=torch.bool)
kpm[1, 0] = True
record("mha", nn.MultiheadAttention(6, 2),
       {"query": randn(3, 2, 6), "key": randn(4, 2, 6), "value": randn(4, 2, 6), "attn_mask": mask,
        "key_padding_mask": kpm},
       lambda m, i: list(m(i["query"], i["key"], i["value"], key_padding_mask=i["key_padding_mask"],
                           attn_mask=i["attn_mask"])))
record("mha_kv", nn.MultiheadAttention(6, 3, kdim=4, vdim=5, add_bias_kv=True, add_zero_attn=True, batch_first=True),
       {"query": randn(2, 3, 6), "key": randn(2, 4, 4), "value": randn(2, 4, 5), "attn_mask": randn(6, 3, 4),
        "key_padding_mask": kpm},
       lambda m, i: list(m(i["query"], i["key"], i["value"], key_padding_mask=i["key_padding_mask"],
                           attn_mask=i["attn_mask"], average_attn_weights=False)))
record("mha_unbatched", nn.MultiheadAttention(4, 2), {"x": randn(3, 4), "key_padding_mask": randn(3)},
       lambda m, i: list(m(i["x"], i["x"], i["x"], key_padding_mask=i["key_padding_mask"])))


def sdpa(q, k, v, attn_mask=None, is_causal=False):
    """PyTorch 2's documented F.scaled_dot_product_attention (1.13 has only a private variant)."""
    L, S = q.size(-2), k.size(-2)
    bias = torch.zeros(L, S)
    if is_causal:
        bias.masked_fill_(torch.ones(L, S, dtype=torch.bool).tril().logical_not(), float("-inf"))
    if attn_mask is not None:
        bias = bias.masked_fill(attn_mask.logical_not(), float("-inf")) if attn_mask.dtype == torch.bool \
            else bias + attn_mask
    return torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)) + bias, dim=-1) @ v


qkv = {"q": randn(2, 3, 4, 5), "k": randn(2, 3, 6, 5), "v": randn(2, 3, 6, 7)}
record("sdpa", None, dict(qkv, attn_mask=randn(4, 6)), lambda m, i: [sdpa(i["q"], i["k"], i["v"], i["attn_mask"])])
bool_mask = torch.rand(2, 1, 4, 6) > 0.4
bool_mask[..., 0] = True  # every query attends to something
record("sdpa_bool", None, dict(qkv, attn_mask=bool_mask), lambda m, i: [sdpa(i["q"], i["k"], i["v"], i["attn_mask"])])
record("sdpa_causal", None, {"q": randn(3, 4, 5), "k": randn(3, 4, 5), "v": randn(3, 4, 2)},
       lambda m, i: [sdpa(i["q"], i["k"], i["v"], is_causal=True)])
# 1.13's private function agrees where its semantics are the same (float masks)
with torch.no_grad():
    got = torch.nn.functional._scaled_dot_product_attention(qkv["q"], qkv["k"], qkv["v"], tensors["sdpa.in.attn_mask"])
    assert torch.allclose(got[0], tensors["sdpa.out.0"], rtol=1e-12, atol=1e-12)

# ---- transformer layers ----
causal5 = nn.Transformer.generate_square_subsequent_mask(5)
causal4 = nn.Transformer.generate_square_subsequent_mask(4)
kpm5 = torch.zeros(2, 5, dtype=torch.bool)
kpm5[1, 4] = True
record("enc_layer", nn.TransformerEncoderLayer(8, 2, dim_feedforward=16),
       {"src": randn(5, 2, 8), "src_mask": causal5, "src_key_padding_mask": kpm5},
       lambda m, i: [m(i["src"], src_mask=i["src_mask"], src_key_padding_mask=i["src_key_padding_mask"])])
sq_mask = torch.rand(5, 5) > 0.6
sq_mask.fill_diagonal_(False)
record("enc_layer_norm_first", nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, activation="gelu",
                                                          layer_norm_eps=1e-6, batch_first=True, norm_first=True),
       {"src": randn(2, 5, 8), "src_mask": sq_mask}, lambda m, i: [m(i["src"], src_mask=i["src_mask"])])
record("dec_layer", nn.TransformerDecoderLayer(8, 2, dim_feedforward=16),
       {"tgt": randn(4, 2, 8), "memory": randn(5, 2, 8), "tgt_mask": causal4, "memory_key_padding_mask": kpm5},
       lambda m, i: [m(i["tgt"], i["memory"], tgt_mask=i["tgt_mask"],
                       memory_key_padding_mask=i["memory_key_padding_mask"])])
tgt_kpm = torch.zeros(2, 4, dtype=torch.bool)
tgt_kpm[1, 3] = True
record("dec_layer_norm_first", nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, activation="gelu",
                                                          batch_first=True, norm_first=True),
       {"tgt": randn(2, 4, 8), "memory": randn(2, 5, 8), "tgt_mask": causal4 == float("-inf"),
        "memory_mask": randn(4, 5), "tgt_key_padding_mask": tgt_kpm},
       lambda m, i: [m(i["tgt"], i["memory"], tgt_mask=i["tgt_mask"], memory_mask=i["memory_mask"],
                       tgt_key_padding_mask=i["tgt_key_padding_mask"])])
record("encoder", nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, dim_feedforward=16), 2, nn.LayerNorm(8)),
       {"src": randn(5, 2, 8), "src_key_padding_mask": kpm5},
       lambda m, i: [m(i["src"], src_key_padding_mask=i["src_key_padding_mask"])])
record("decoder", nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, dim_feedforward=16), 2),
       {"tgt": randn(4, 2, 8), "memory": randn(5, 2, 8), "tgt_mask": causal4},
       lambda m, i: [m(i["tgt"], i["memory"], tgt_mask=i["tgt_mask"])])
record("transformer", nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=1,
                                     dim_feedforward=16, batch_first=True),
       {"src": randn(2, 5, 8), "tgt": randn(2, 4, 8), "tgt_mask": causal4, "src_key_padding_mask": kpm5},
       lambda m, i: [m(i["src"], i["tgt"], tgt_mask=i["tgt_mask"], src_key_padding_mask=i["src_key_padding_mask"],
                       memory_key_padding_mask=i["src_key_padding_mask"])])

save_file(tensors, os.path.join(here, "rnn_transformer.safetensors"), metadata=metadata)
print(f"wrote {len(tensors)} tensors")
