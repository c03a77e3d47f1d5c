# Golden files for tests/serialize: written by the reference safetensors package with PyTorch.
#   PYTHONPATH=<dir with safetensors> /usr/bin/python3 tests/golden/gen_safetensors.py
# (python3-torch from Debian; `pip install --target <dir> safetensors`.)
import os
import torch
from safetensors.torch import save_file

here = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(0)

# Every dtype the format and ember share, with values that exercise each type.
tensors = {
    "bool": torch.tensor([[True, False, True], [False, False, True]]),
    "u8": torch.arange(0, 250, 50, dtype=torch.uint8),
    "i8": torch.tensor([-128, -1, 0, 127], dtype=torch.int8),
    "i16": torch.tensor([-32768, 7, 32767], dtype=torch.int16),
    "i32": torch.tensor([[-2**31, 0], [5, 2**31 - 1]], dtype=torch.int32),
    "i64": torch.tensor([-2**63, 3, 2**63 - 1], dtype=torch.int64),
    "f16": torch.tensor([1.5, -0.0, 65504.0, 6e-8], dtype=torch.float16),
    "bf16": torch.tensor([[1.0, -2.5], [3.0e38, 1e-38]], dtype=torch.bfloat16),
    "f32": torch.randn(2, 3, 4),
    "f64": torch.randn(5, dtype=torch.float64),
    "scalar": torch.tensor(3.25),
    "empty": torch.zeros(0, 3),
}
save_file(tensors, os.path.join(here, "safetensors_dtypes.safetensors"), metadata={"producer": "gen_safetensors.py"})

# A PyTorch model's state_dict, an input and the model's output in eval mode: ember builds the
# same architecture, loads the state_dict from this file and must reproduce the output.
model = torch.nn.Sequential(
    torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.BatchNorm2d(4), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
    torch.nn.Flatten(), torch.nn.Linear(4 * 4 * 4, 10))
with torch.no_grad():
    model[1].running_mean.uniform_(-0.5, 0.5)
    model[1].running_var.uniform_(0.5, 1.5)
    model[1].weight.uniform_(0.5, 1.5)
    model[1].bias.uniform_(-0.5, 0.5)
    model[1].num_batches_tracked.fill_(7)
model.eval()
x = torch.randn(2, 1, 8, 8)
with torch.no_grad():
    y = model(x)
state = {k: v.contiguous() for k, v in model.state_dict().items()}
state["input"] = x
state["output"] = y
save_file(state, os.path.join(here, "safetensors_model.safetensors"))
