# Cross-checks ember's safetensors files with the reference Python package (safetensors.numpy).
#   python3 python_interop.py <file written by ember> <file to write for ember>
# Exit status 0 when the ember file holds exactly the expected tensors and metadata.
import sys

import numpy as np
from safetensors import safe_open
from safetensors.numpy import load_file, save_file

src, dst = sys.argv[1], sys.argv[2]
got = load_file(src)
expected = {
    "a": np.arange(12, dtype=np.float32).reshape(3, 4),
    "b": np.array([1, -2, 3], dtype=np.int64),
    "c": np.array([True, False]),
    "h": (np.arange(4) / 4).astype(np.float16),
    "nested.w": np.full((2, 2), -1.5, dtype=np.float64),
    # complex64 [1+2j, -3.5j] is stored as its real view with a trailing dimension of 2
    "z": np.array([[1, 2], [0, -3.5]], dtype=np.float32),
}
assert sorted(got) == sorted(expected), f"keys {sorted(got)} != {sorted(expected)}"
for k, v in expected.items():
    assert got[k].dtype == v.dtype and got[k].shape == v.shape, f"{k}: {got[k].dtype}{got[k].shape} vs {v.dtype}{v.shape}"
    assert np.array_equal(got[k], v), f"{k}: {got[k]} != {v}"
with safe_open(src, framework="np") as f:
    meta = f.metadata()
assert meta.get("note") == "h\u00e9llo \"quoted\"", meta
assert meta.get("ember.dtype.z") == "complex64", meta

save_file({
    "x": np.linspace(0, 1, 10, dtype=np.float64).reshape(2, 5),
    "y": np.array([[1, 2], [3, 4]], dtype=np.int32),
    "u": np.array([0, 255], dtype=np.uint8),
    "s": np.array(7.5, dtype=np.float32),
}, dst, metadata={"from": "python"})
print("python safetensors interop ok")
