# Golden data for tests/ops/random_golden_test.cpp: what PyTorch's CPU samplers draw after
# torch.manual_seed, for every sampler, dtype, size class (below 16, 16, ragged tails, large)
# and layout (contiguous, transposed, channels-last, strided), and for sequences that share the
# generator (the cached second Box-Muller value, state save and restore).
#   PYTHONPATH=<dir with safetensors> /usr/bin/python3 tests/golden/gen_random.py
# Each case is stored as metadata "case.<name>" = "<seed>;<step>;<step>..." and one tensor
# "<name>.<k>" per step, in the step's own dtype; the C++ test runs the same steps and compares
# bit for bit (complex results as view_as_real). A step is "<op> <dtype> <shape>[:<layout>] <args...>" (see run_step).
# Values depend on the CPU: PyTorch fuses multiply-adds on x86 with AVX2 and FMA (ember's
# Note [Fused multiply-add in PyTorch's kernels]); metadata "fused" records this machine's.
import math
import os
import sys

import torch
import torch.nn.functional as F
from safetensors.torch import save_file

DTYPES = {
    "f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16,
    "c64": torch.complex64, "c128": torch.complex128, "i64": torch.int64, "i32": torch.int32,
    "i16": torch.int16, "i8": torch.int8, "u8": torch.uint8, "b": torch.bool,
}


def make(dt, spec):
    """An uninitialized tensor of shape spec ("3,4" or "3,4:t|cl|s") and dtype dt."""
    shape, _, layout = spec.partition(":")
    shape = [int(s) for s in shape.split(",") if s != ""]
    if layout == "":
        return torch.empty(shape, dtype=dt)
    if layout == "t":  # all dims reversed in memory
        return torch.empty(shape[::-1], dtype=dt).permute(*reversed(range(len(shape))))
    if layout == "cl":
        return torch.empty(shape, dtype=dt).contiguous(memory_format=torch.channels_last)
    if layout == "s":  # every other element of a twice-as-long last dim
        return torch.empty(shape[:-1] + [2 * shape[-1]], dtype=dt)[..., ::2]
    raise ValueError(layout)


def ramp(shape, dt, lo, hi):
    """Deterministic values in [lo, hi] (inputs that are not themselves random)."""
    n = math.prod(shape)
    v = (torch.arange(n, dtype=torch.float64) * 0.618034) % 1.0
    return (lo + (hi - lo) * v).reshape(shape).to(dt)


def run_step(step):
    op, dt, spec, *args = step.split(" ")
    dt = DTYPES[dt]
    a = [float(x) for x in args if x not in DTYPES and "," not in x]
    t = make(dt, spec)
    if op == "uniform_":
        return t.uniform_(*a)
    if op == "normal_":
        return t.normal_(*a)
    if op == "log_normal_":
        return t.log_normal_(*a)
    if op == "exponential_":
        return t.exponential_(*a)
    if op == "cauchy_":
        return t.cauchy_(*a)
    if op == "geometric_":
        return t.geometric_(*a)
    if op == "bernoulli_":
        return t.bernoulli_(*a)
    if op == "bernoulli_t":  # p of dtype args[0], shape args[1] (broadcast to t)
        pshape = [int(s) for s in args[1].split(",")]
        return t.bernoulli_(ramp(pshape, DTYPES[args[0]], 0.0, 1.0))
    if op == "bernoulli":  # torch.bernoulli(p), p of the step's dtype and shape
        return torch.bernoulli(ramp(list(t.shape), dt, 0.0, 1.0))
    if op == "random_":
        return t.random_(*[int(x) for x in args])
    if op == "random_full":
        return t.random_(-2**63, None)
    if op == "rand":
        return torch.rand(t.shape, dtype=dt)
    if op == "randn":
        return torch.randn(t.shape, dtype=dt)
    if op == "randint":
        return torch.randint(int(args[0]), int(args[1]), t.shape, dtype=dt)
    if op == "randperm":
        return torch.randperm(int(args[0]), dtype=dt)
    if op == "multinomial":  # args: n_sample, replacement (0/1)
        probs = ramp(list(t.shape), dt, 0.0, 1.0) ** 2
        return torch.multinomial(probs, int(args[0]), bool(int(args[1])))
    if op == "normal_tt":
        return torch.normal(ramp(list(t.shape), dt, -2, 2), ramp(list(t.shape), dt, 0, 3))
    if op == "normal_td":
        return torch.normal(ramp(list(t.shape), dt, -2, 2), a[0])
    if op == "normal_dt":
        return torch.normal(a[0], ramp(list(t.shape), dt, 0, 3))
    if op == "dropout":
        return F.dropout(ramp(list(t.shape), dt, -1, 1), a[0], True)
    if op == "dropout2d":
        return F.dropout2d(ramp(list(t.shape), dt, -1, 1), a[0], True)
    if op == "alpha_dropout":
        return F.alpha_dropout(ramp(list(t.shape), dt, -1, 1), a[0], True)
    if op == "get_state":  # the generator's state, then the stream continues from it
        return torch.get_rng_state()
    raise ValueError(op)


CASES = {}


def case(name, seed, *steps):
    assert name not in CASES and "." not in name, name
    CASES[name] = (seed, steps)


FLOATS = ["f32", "f64", "f16", "bf16"]
SIZES = ["1", "7", "15", "16", "17", "33", "100", "1001"]

for dt in FLOATS:
    for n in SIZES:
        case(f"rand_{dt}_{n}", 11, f"uniform_ {dt} {n}")
        case(f"randn_{dt}_{n}", 12, f"normal_ {dt} {n}")
    case(f"uniform_ab_{dt}", 13, f"uniform_ {dt} 40 -0.37 0.91", f"uniform_ {dt} 9 2 1000")
    case(f"normal_ms_{dt}", 14, f"normal_ {dt} 40 0.3 1.7", f"normal_ {dt} 9 -5 0.25")
    for layout in ["3,5:t", "2,3,4,5:cl", "4,9:s", "5,7:t", "2,3,4,4:cl"]:
        case(f"layout_{dt}_{layout.replace(',', 'x').replace(':', '_')}", 15,
             f"uniform_ {dt} {layout} -1 1", f"normal_ {dt} {layout} 0.5 2")
    case(f"exponential_{dt}", 16, f"exponential_ {dt} 30 1.5", f"exponential_ {dt} 4,5:t 0.5")
    case(f"cauchy_{dt}", 17, f"cauchy_ {dt} 30 0.5 2")
    case(f"log_normal_{dt}", 18, f"log_normal_ {dt} 7 1 0.5", f"log_normal_ {dt} 20 0 1")
    case(f"geometric_{dt}", 19, f"geometric_ {dt} 25 0.3")
    case(f"normal_tensors_{dt}", 20, f"normal_tt {dt} 5,7", f"normal_td {dt} 20 0.5", f"normal_dt {dt} 3,6 1.5")
    if dt != "f16":  # PyTorch 1.13 has no Bernoulli sampler for float16 on the CPU
        case(f"dropout_{dt}", 21, f"dropout {dt} 8,9 0.3", f"dropout2d {dt} 4,6,3,3 0.5", f"alpha_dropout {dt} 50 0.2")
for dt in ["c64", "c128"]:
    case(f"complex_{dt}", 22, f"uniform_ {dt} 10 -1 1", f"normal_ {dt} 7", f"normal_ {dt} 20 1 2")

# The cached Box-Muller value is shared between scalar draws of any dtype, until a reseed.
case("normal_cache", 23, "normal_ f32 3", "normal_ f64 5", "uniform_ f32 2", "normal_ f16 1", "normal_ f32 16",
     "normal_ bf16 3", "normal_ f64 3,3:t")
case("state_roundtrip", 24, "normal_ f64 3", "get_state u8 1", "normal_ f64 3", "uniform_ f32 4")

INTS = ["i64", "i32", "i16", "i8", "u8", "b"]
for dt in INTS + FLOATS:
    case(f"random_{dt}", 30, f"random_ {dt} 37", f"random_ {dt} 5,4:t", f"random_ {dt} 20 {2 if dt == 'b' else 7}")
    lo, hi = {"b": (0, 2), "u8": (3, 100)}.get(dt, (-3, 100))
    case(f"random_from_to_{dt}", 31, f"random_ {dt} 40 {lo} {hi}")
    if dt == "f16":  # no Bernoulli sampler for float16 on the CPU in PyTorch 1.13
        continue
    case(f"bernoulli_{dt}", 32, f"bernoulli_ {dt} 41 0.3", f"bernoulli_ {dt} 3,7:t 0.8")
    case(f"bernoulli_p_{dt}", 33, f"bernoulli_t {dt} 6,5 f32 6,5", f"bernoulli_t {dt} 6,5 f64 1,5",
         f"bernoulli_t {dt} 4,6:t bf16 4,6")
for dt in ["i64", "f32", "f64", "bf16"]:
    case(f"random_wide_{dt}", 34, f"random_full {dt} 20")
case("random_wide_range", 35, "random_ i64 20 -5000000000 5000000000", "random_ f64 20 0 9000000000",
     "random_ f32 20 -4294967296 4294967296", "random_ i32 20 -2147483648 2147483647")
case("random_float_bounds", 36, "random_ f32 20 16777215 16777300", "random_ f16 20 -3000 3000",
     "random_ bf16 20 250 100000")
for dt in ["i64", "i32", "f32", "f64", "u8"]:
    case(f"randint_{dt}", 37, f"randint {dt} 3,4 {0 if dt == 'u8' else -7} 7", f"randint {dt} 25 0 2")
    case(f"randperm_{dt}", 38, f"randperm {dt} 0 10", f"randperm {dt} 0 1", f"randperm {dt} 0 2",
         f"randperm {dt} 0 100" if dt != "u8" else f"randperm {dt} 0 200")
for dt in ["f32", "f64", "bf16"]:
    case(f"multinomial_{dt}", 39, f"multinomial {dt} 12 20 1", f"multinomial {dt} 3,9 5 1",
         f"multinomial {dt} 10 4 0", f"multinomial {dt} 4,8 1 0", f"multinomial {dt} 3,8 8 0")
case("bernoulli_fn", 40, "bernoulli f32 5,6", "bernoulli f64 17", "bernoulli bf16 3,3")
case("sequence", 41, "rand f32 5", "randn f32 5", "randint i64 5 0 10", "randperm i64 0 6", "randn f64 20",
     "rand bf16 4", "randn f16 19")

if __name__ == "__main__":
    out, meta = {}, {}
    for name, (seed, steps) in CASES.items():
        torch.manual_seed(seed)
        meta[f"case.{name}"] = ";".join([str(seed), *steps])
        for k, step in enumerate(steps):
            r = run_step(step)
            # complex results as (..., 2) real tensors (the test compares view_as_real)
            out[f"{name}.{k}"] = (torch.view_as_real(r) if r.is_complex() else r).contiguous().clone()
            if step.startswith("get_state"):
                torch.set_rng_state(r)
    # Whether this machine's PyTorch fused multiply-adds (a value that differs when it does).
    torch.manual_seed(0)
    probe = torch.empty(64, dtype=torch.float64).uniform_(-0.37, 0.91)
    torch.manual_seed(0)
    bits = torch.empty(64, dtype=torch.int64).random_(-2**63, None)  # the same random64() draws
    unfused = [(int(v) & ((1 << 53) - 1)) * 2.0**-53 * (0.91 + 0.37) - 0.37 for v in bits]
    meta["fused"] = "0" if all(float(p) == u for p, u in zip(probe, unfused)) else "1"
    meta["torch"] = torch.__version__
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "random.safetensors")
    save_file(out, path, metadata=meta)
    print(f"{len(CASES)} cases, {len(out)} tensors, fused={meta['fused']} -> {path}", file=sys.stderr)
