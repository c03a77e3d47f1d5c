#!/usr/bin/python3
# Writes the golden files in tests/golden/ that the C++ tests compare against: inputs and
# PyTorch's outputs for every pointwise op, the dtype promotion tables, and the float
# values of every Half/BFloat16 bit pattern.
#
# Run by hand with Debian's python3-torch (PyTorch 1.13), from the repository root:
#     /usr/bin/python3 tests/golden/gen_golden.py
# The output is deterministic (fixed seeds, sorted JSON); rerun it after adding an op to
# ember/ops/pointwise_table.h (its functor in ember/ops/pointwise_ops.h) and add the op to the
# tables below.
#
# ---- File format (read by ember::test::load_golden in tests/test_util.cpp) ----------
#   bytes 0..7     magic "EMBGLD01"
#   bytes 8..15    uint64 little-endian H: byte length of the JSON header
#   bytes 16..16+H UTF-8 JSON header (below)
#   then the blob: raw little-endian tensor bytes; each tensor's "at" is its byte offset
#   from the start of the blob.
# Header: {"format": 1, "torch": version, "cases": [case, ...]}
# case:   {"name": unique str, "op": public function name (ember::<op>),
#          "table_op": the pointwise-table entry it exercises (e.g. div_floor, clamp_scalar),
#          "args": [value, ...], "kwargs": {name: value},
#          "expect": value (a tensor) or {"error": torch's message} with, where ember
#                 extends PyTorch on purpose (EXTENSIONS), "extension": the reference value,
#          "ref": "torch" (PyTorch CPU computed it) or "upcast" (PyTorch's CPU kernel lacks
#                 this dtype (Half/BFloat16/ComplexHalf): computed in float32/complex64 and
#                 rounded to the dtype, which is what its CUDA kernels do),
#          "tags": [layout and kind tags: contiguous, transposed, sliced, expanded,
#                   channels_last, broadcast, scalar, zero_dim, mixed, special, alias, ...]}
# value:  {"kind": "tensor", "dtype": torch name without "torch." (float32, bfloat16,
#                 complex32, bool, ...), "shape": [...], "stride": [...] (elements),
#                 "span": elements of storage the view reaches (storage offset is 0),
#                 "at": blob offset, "nbytes": span * itemsize}
#         {"kind": "scalar", "type": "bool"|"int"|"float"|"complex", "v": str}
#                 (a Python number; floats as repr, e.g. "nan", "-inf", "0.1";
#                  complex as "re,im")
#         {"kind": "string", "v": str} | {"kind": "none"}
# complex32 is stored as its float16 (re, im) pairs, bfloat16 and float16 as their uint16
# bit patterns, bool as one byte.
import json
import math
import os
import struct
import sys
import warnings
import zlib

import torch
import torch.nn.functional as F

warnings.simplefilter("ignore")
torch.set_num_threads(1)
OUT_DIR = os.path.dirname(os.path.abspath(__file__))

ALL_DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
              torch.float16, torch.bfloat16, torch.float32, torch.float64,
              torch.complex32, torch.complex64, torch.complex128]
INT_DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
FLOAT_DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
COMPLEX_DTYPES = [torch.complex32, torch.complex64, torch.complex128]
REDUCED = {torch.float16: torch.float32, torch.bfloat16: torch.float32, torch.complex32: torch.complex64}


def dname(dt):
    return str(dt).replace("torch.", "")


# ---- writer -------------------------------------------------------------------------
class GoldenFile:
    def __init__(self, name):
        self.name = name
        self.cases = []
        self.blob = bytearray()
        self.names = set()

    def tensor(self, t):
        t = t.detach()
        if t.numel() == 0:
            span = 0
        else:
            span = 1 + sum((s - 1) * st for s, st in zip(t.shape, t.stride()) if s > 0)
        flat = torch.as_strided(t, (span,), (1,), t.storage_offset()).clone() if span else t.new_empty(0)
        if flat.dtype == torch.complex32:
            raw = torch.view_as_real(flat).contiguous().view(torch.int16).numpy().tobytes()
        elif flat.dtype in (torch.float16, torch.bfloat16):
            raw = flat.view(torch.int16).numpy().tobytes()
        elif flat.dtype == torch.bool:
            raw = flat.to(torch.uint8).numpy().tobytes()
        else:
            raw = flat.numpy().tobytes()
        assert sys.byteorder == "little"
        while len(self.blob) % 16:
            self.blob.append(0)
        at = len(self.blob)
        self.blob += raw
        return {"t": dname(t.dtype), "shape": list(t.shape), "stride": list(t.stride()), "at": at}

    def value(self, v):
        if v is None:
            return None
        if isinstance(v, torch.Tensor):
            return self.tensor(v)
        if isinstance(v, bool):
            return {"s": "bool", "v": "true" if v else "false"}
        if isinstance(v, int):
            return {"s": "int", "v": str(v)}
        if isinstance(v, float):
            return {"s": "float", "v": repr(v)}
        if isinstance(v, complex):
            return {"s": "complex", "v": "%r,%r" % (v.real, v.imag)}
        if isinstance(v, str):
            return {"str": v}
        raise TypeError(type(v))

    def add(self, name, op, table_op, args, kwargs, expect, ref="torch", tags=(), extra=None):
        if isinstance(expect, Skip):
            return
        assert name not in self.names, name
        self.names.add(name)
        c = {"name": name, "op": op, "args": [self.value(a) for a in args]}
        if table_op:
            c["table_op"] = table_op
        if kwargs:
            c["kwargs"] = {k: self.value(v) for k, v in kwargs.items()}
        if ref != "torch":
            c["ref"] = ref
        if tags:
            c["tags"] = list(tags)
        if isinstance(expect, Exception):
            c["expect"] = {"error": str(expect).split("\n")[0][:160]}
            if getattr(expect, "extension", None) is not None:
                c["expect"]["extension"] = self.value(expect.extension)
        else:
            c["expect"] = self.value(expect)
        if extra:
            c.update(extra)
        self.cases.append(c)

    def write(self):
        header = json.dumps({"format": 1, "torch": torch.__version__, "cases": self.cases},
                            sort_keys=True, separators=(",", ":")).encode()
        path = os.path.join(OUT_DIR, self.name + ".golden")
        with open(path, "wb") as f:
            f.write(b"EMBGLD01")
            f.write(struct.pack("<Q", len(header)))
            f.write(header)
            f.write(bytes(self.blob))
        print("%-28s %5d cases %9d bytes" % (self.name + ".golden", len(self.cases), os.path.getsize(path)))


# ---- inputs ---------------------------------------------------------------------------
def gen(seed_text):
    return torch.Generator().manual_seed(zlib.crc32(seed_text.encode()))


FLOAT_SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 1.5, 3.7, -7.25, 0.25, 1e-3, -1e-3,
                  0.999, -0.999, 1e4, -1e4, 1e30, -1e30, 1e-30, 88.5, -88.5, 100.0,
                  math.inf, -math.inf, math.nan]


def int_specials(dt):
    info = torch.iinfo(dt)
    vals = [0, 1, 2, 3, 7, 100, info.max, info.max - 1, info.min]
    if info.min < 0:
        vals += [-1, -2, -7, -100, info.min + 1]
    return [v for v in vals if info.min <= v <= info.max]


# Domains where an op gives finite values, used for the random part of its inputs.
DOMAIN = {"log": (0.05, 6), "log2": (0.05, 6), "log10": (0.05, 6), "sqrt": (0.0, 9), "rsqrt": (0.05, 9),
          "lgamma": (0.1, 8), "digamma": (0.1, 8), "acosh": (1.0, 6), "asin": (-0.99, 0.99),
          "acos": (-0.99, 0.99), "atanh": (-0.99, 0.99), "erfinv": (-0.99, 0.99), "logit": (0.01, 0.99),
          "log1p": (-0.9, 6), "ndtri": (0.01, 0.99)}


def rand_values(dt, n, g, op=""):
    """n random values of dtype dt (in the op's domain for real floats)."""
    if dt == torch.bool:
        return torch.randint(0, 2, (n,), generator=g).bool()
    if dt in INT_DTYPES:
        lo, hi = (0, 40) if dt == torch.uint8 else (-20, 21)
        return torch.randint(lo, hi, (n,), generator=g).to(dt)
    if dt.is_complex:
        re = torch.randn(n, generator=g, dtype=torch.float64) * 1.5
        im = torch.randn(n, generator=g, dtype=torch.float64) * 1.5
        return torch.complex(re, im).to(dt)
    if op in DOMAIN:
        lo, hi = DOMAIN[op]
        x = lo + (hi - lo) * torch.rand(n, generator=g, dtype=torch.float64)
    else:
        x = torch.randn(n, generator=g, dtype=torch.float64) * 2.5
    return x.to(dt)


def special_values(dt, g, op="", n_random=13):
    """A 1-d tensor with the dtype's edge values followed by random values."""
    if dt == torch.bool:
        return torch.tensor([False, True, True, False, True, False, False, True])
    if dt in INT_DTYPES:
        return torch.cat([torch.tensor(int_specials(dt), dtype=dt), rand_values(dt, n_random, g)])
    if dt.is_complex:
        reals = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -3.25, 1e-3, 10.0]
        vals = [complex(a, b) for a, b in zip(reals, reals[3:] + reals[:3])]
        vals += [complex(0, 1), complex(0, -1), complex(-1, 0), complex(1e3, -1e3)]
        base = torch.tensor(vals, dtype=torch.complex128)
        return torch.cat([base, rand_values(torch.complex128, n_random, g)]).to(dt)
    base = torch.tensor(FLOAT_SPECIALS, dtype=torch.float64)
    return torch.cat([base, rand_values(torch.float64, n_random, g, op)]).to(dt)


def complex_nonfinite(dt):
    inf, nan = math.inf, math.nan
    vals = [complex(inf, 0), complex(-inf, 1), complex(0, inf), complex(1, -inf), complex(nan, 0),
            complex(0, nan), complex(inf, nan), complex(nan, nan), complex(2, 3), complex(-0.0, -0.0)]
    return torch.tensor(vals, dtype=torch.complex128).to(dt)


def layouts(make, dt, g):
    """Non-contiguous and channels-last versions of an input: (tag, tensor) pairs.
    make(dt, n, g) gives n values."""
    out = []
    base = make(dt, 35, g).reshape(5, 7)
    out.append(("transposed", base.t()))
    base3 = make(dt, 3 * 6 * 5, g).reshape(3, 6, 5)
    out.append(("sliced", base3[::2, 1::2, 1:4]))
    out.append(("expanded", make(dt, 7, g).reshape(1, 7).expand(4, 7)))
    out.append(("channels_last", make(dt, 2 * 3 * 3 * 4, g).reshape(2, 3, 3, 4).contiguous(memory_format=torch.channels_last)))
    return out


# ---- running torch ----------------------------------------------------------------------
def to_compute(x):
    if isinstance(x, torch.Tensor) and x.dtype in REDUCED:
        return x.to(REDUCED[x.dtype])
    return x


def round_back(r, reduced):
    """Rounds an upcast result back: float32 -> the reduced real type, complex64 -> complex32."""
    if not isinstance(r, torch.Tensor):
        return r
    real = torch.float16 if reduced & {torch.float16, torch.complex32} else torch.bfloat16
    if r.dtype == torch.float32:
        return r.to(real)
    if r.dtype == torch.complex64:
        return r.to(torch.complex32 if real == torch.float16 else torch.complex64)
    return r


class Skip(Exception):
    """A call Python's bindings reject before the op runs (no such overload)."""


# Inverse trigonometric/hyperbolic functions of complex64: PyTorch evaluates them in single
# precision and loses up to tens of ulp (asin(10+1j) is off by 2e-6); ember evaluates them in
# complex128 and rounds once, so the reference is complex128 rounded to complex64.
WIDE_COMPLEX = {"asin", "acos", "atan", "asinh", "acosh", "atanh", "arcsin", "arccos", "arctan"}

# Ops whose meaning is tied to the storage type: computing them in float32 is not a reference.
NO_UPCAST = {"nextafter", "nan_to_num"}

# Complex inputs ember computes where PyTorch 1.13's CPU kernels raise "not implemented for":
# the reference for ember's extension, evaluated in complex128 by the identity later PyTorch
# versions implement, then rounded to the input's dtype. Any other "not implemented" case has
# no reference, and ember must raise there too.
EXTENSIONS = {
    "exp2": lambda z, **kw: torch.exp(z * math.log(2.0)),
    "expm1": lambda z, **kw: torch.exp(z) - 1,
    "log1p": lambda z, **kw: torch.log(z + 1),
    "nan_to_num": lambda z, **kw: torch.complex(torch.nan_to_num(z.real, **kw), torch.nan_to_num(z.imag, **kw)),
}


def extension_reference(name, args, kwargs):
    """The reference for an EXTENSIONS op on complex inputs, or None."""
    z = args[0] if args else None
    if name not in EXTENSIONS or not isinstance(z, torch.Tensor) or not z.is_complex():
        return None
    r = EXTENSIONS[name](z.to(torch.complex128), *args[1:], **kwargs)
    return r.to(torch.complex64).to(torch.complex32) if z.dtype == torch.complex32 else r.to(z.dtype)


def precast(args):
    """Two tensors of different dtypes: both cast to their result type first, as
    TensorIterator does (PyTorch's CPU add/mul keep a 0-dim operand in float instead)."""
    ts = [a for a in args if isinstance(a, torch.Tensor)]
    if len(ts) == 2 and ts[0].dtype != ts[1].dtype:
        rt = torch.result_type(ts[0], ts[1])
        return [a.to(rt) if isinstance(a, torch.Tensor) else a for a in args]
    return list(args)


def same_values(x, y):
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    if x.is_complex():
        x, y = torch.view_as_real(x.to(torch.complex128)), torch.view_as_real(y.to(torch.complex128))
    x, y = x.to(torch.float64), y.to(torch.float64)
    return bool(((x == y) | (torch.isnan(x) & torch.isnan(y))).all())


def run_torch(fn, args, kwargs, op=""):
    """(result or exception, ref).

    Reduced dtypes (float16, bfloat16, complex32): ember computes them in float32/complex64
    and rounds once (DESIGN.md). Where PyTorch's CPU kernel lacks the dtype, or its
    reduced-precision kernel rounds intermediate results and so differs from that, the
    reference is PyTorch's float32/complex64 result rounded to the dtype (ref "upcast")."""
    tensors = [a for a in list(args) + list(kwargs.values()) if isinstance(a, torch.Tensor)]
    if getattr(fn, "__name__", op) in WIDE_COMPLEX and any(t.dtype == torch.complex64 for t in tensors):
        wide = [a.to(torch.complex128) if isinstance(a, torch.Tensor) and a.dtype == torch.complex64 else a for a in args]
        return fn(*wide, **kwargs).to(torch.complex64), "upcast"
    reduced = {t.dtype for t in tensors} & set(REDUCED)
    try:
        native = fn(*args, **kwargs)
        err = None
    except TypeError as e:
        return Skip(str(e)), "torch"
    except Exception as e:  # noqa: BLE001
        native, err = None, e
        if "not implemented for '" in str(e):
            e.extension = extension_reference(getattr(fn, "__name__", op), args, kwargs)
    if not reduced or getattr(fn, "__name__", op) in NO_UPCAST:
        return (native, "torch") if err is None else (err, "torch")
    if err is not None and not any("not implemented for '%s'" % n in str(err)
                                   for n in ("Half", "BFloat16", "ComplexHalf")):
        return err, "torch"
    try:
        up = round_back(fn(*[to_compute(a) for a in precast(args)], **{k: to_compute(v) for k, v in kwargs.items()}),
                        reduced)
    except Exception:  # noqa: BLE001
        return (native, "torch") if err is None else (err, "torch")
    if err is None and (not isinstance(native, torch.Tensor) or same_values(native, up)):
        return native, "torch"
    if err is None and up.dtype != native.dtype:
        return native, "torch"
    return up, "upcast"


# ---- the op lists -------------------------------------------------------------------------
# public name -> (torch callable, pointwise-table entry)
UNARY = {}
for n in ["neg", "abs", "sign", "sgn", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt",
          "rsqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
          "atanh", "sigmoid", "erf", "erfc", "erfinv", "lgamma", "digamma", "i0", "reciprocal", "floor",
          "ceil", "trunc", "frac", "relu", "square", "logical_not", "bitwise_not", "sinc", "deg2rad",
          "rad2deg", "isnan", "isinf", "isposinf", "isneginf", "isfinite", "signbit", "angle",
          "conj_physical"]:
    UNARY[n] = (getattr(torch, n), n)
for n in ["silu", "mish", "hardsigmoid", "hardswish", "selu"]:
    UNARY[n] = (getattr(F, n), n)
UNARY["relu6"] = (F.relu6, "hardtanh")
ALIASES = {"negative": ("neg", torch.negative), "absolute": ("abs", torch.absolute), "fix": ("trunc", torch.fix),
           "arcsin": ("asin", torch.arcsin), "arccos": ("acos", torch.arccos), "arctan": ("atan", torch.arctan)}

# public name -> (torch callable, table entry, [kwargs variants]); kwargs use ember's names.
PARAM_UNARY = {
    "round": (torch.round, "round", [{}, {"decimals": 2}, {"decimals": -1}]),
    "nan_to_num": (torch.nan_to_num, "nan_to_num", [{}, {"nan": 1.5, "posinf": 2.0, "neginf": -3.0}]),
    "logit": (torch.logit, "logit", [{}, {"eps": 0.1}]),
    "gelu": (F.gelu, "gelu", [{"approximate": "none"}, {"approximate": "tanh"}]),
    "softplus": (F.softplus, "softplus", [{}, {"beta": 2, "threshold": 5}]),
    "hardtanh": (F.hardtanh, "hardtanh", [{}, {"min_val": -2.0, "max_val": 3.0}]),
    "leaky_relu": (F.leaky_relu, "leaky_relu", [{}, {"negative_slope": 0.2}]),
    "elu": (lambda x, alpha=1.0, scale=1.0, input_scale=1.0: torch.ops.aten.elu(x, alpha, scale, input_scale),
            "elu", [{}, {"alpha": 0.5}, {"alpha": 1.5, "scale": 2.0, "input_scale": 0.5}]),
    "celu": (F.celu, "elu", [{}, {"alpha": 0.5}]),
    "softshrink": (F.softshrink, "softshrink", [{}, {"lambd": 1.0}]),
    "hardshrink": (F.hardshrink, "hardshrink", [{}, {"lambd": 1.0}]),
    "threshold": (F.threshold, "threshold", [{"threshold": 0.5, "value": -2.0}, {"threshold": 1, "value": 5}]),
}
TORCH_KW = {"lambd": "lambd", "negative_slope": "negative_slope"}


def call_param_unary(fn, name):
    def f(x, **kw):
        if name == "threshold":
            return fn(x, kw["threshold"], kw["value"])
        if name == "logit":
            return fn(x, kw.get("eps"))
        return fn(x, **kw)
    f.__name__ = name
    return f


BINARY = {  # public name -> (torch callable, table entry, accepts python scalars in ember)
    "add": (torch.add, "add", True), "sub": (torch.sub, "sub", True), "mul": (torch.mul, "mul", True),
    "div": (torch.div, "div_true", True), "remainder": (torch.remainder, "remainder", True),
    "fmod": (torch.fmod, "fmod", True), "pow": (torch.pow, "pow", True),
    "atan2": (torch.atan2, "atan2", False), "hypot": (torch.hypot, "hypot", False),
    "copysign": (torch.copysign, "copysign", False), "nextafter": (torch.nextafter, "nextafter", False),
    "xlogy": (torch.xlogy, "xlogy", True), "maximum": (torch.maximum, "maximum", False),
    "minimum": (torch.minimum, "minimum", False), "fmax": (torch.fmax, "fmax", False),
    "fmin": (torch.fmin, "fmin", False), "eq": (torch.eq, "eq", True), "ne": (torch.ne, "ne", True),
    "lt": (torch.lt, "lt", True), "le": (torch.le, "le", True), "gt": (torch.gt, "gt", True),
    "ge": (torch.ge, "ge", True), "logical_and": (torch.logical_and, "logical_and", True),
    "logical_or": (torch.logical_or, "logical_or", True), "logical_xor": (torch.logical_xor, "logical_xor", True),
    "bitwise_and": (torch.bitwise_and, "bitwise_and", True), "bitwise_or": (torch.bitwise_or, "bitwise_or", True),
    "bitwise_xor": (torch.bitwise_xor, "bitwise_xor", True),
    "bitwise_left_shift": (torch.bitwise_left_shift, "bitwise_left_shift", True),
    "bitwise_right_shift": (torch.bitwise_right_shift, "bitwise_right_shift", True),
}
BINARY_ALIASES = {"multiply": ("mul", torch.multiply), "subtract": ("sub", torch.subtract),
                  "true_divide": ("div_true", torch.true_divide), "floor_divide": ("div_floor", torch.floor_divide),
                  "less": ("lt", torch.less), "greater": ("gt", torch.greater),
                  "less_equal": ("le", torch.less_equal), "greater_equal": ("ge", torch.greater_equal),
                  "not_equal": ("ne", torch.not_equal), "arctan2": ("atan2", torch.arctan2),
                  "max": ("maximum", torch.max), "min": ("minimum", torch.min)}
DIVLIKE = {"div_trunc", "div_floor", "remainder", "fmod"}


PAIR_FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.75, 7.0, 1e30, -1e-30, math.inf, -math.inf, math.nan]


def pair_values(dt, g):
    """A short list of edge values for all-pairs binary cases."""
    if dt in FLOAT_DTYPES:
        return torch.cat([torch.tensor(PAIR_FLOATS, dtype=torch.float64), rand_values(torch.float64, 2, g)]).to(dt)
    if dt in INT_DTYPES:
        return torch.cat([torch.tensor(int_specials(dt), dtype=dt), rand_values(dt, 2, g)])
    return special_values(dt, g, n_random=1)


def binary_operands(table_op, dt, g):
    """(a, b) for the all-pairs case: a column of edge values against a row of them."""
    a = pair_values(dt, g)
    b = pair_values(dt, g)
    if dt in INT_DTYPES:
        if table_op in DIVLIKE:
            b = b[b != 0]
            if dt in (torch.int32, torch.int64):  # INT_MIN / -1 traps (SIGFPE) in PyTorch
                b = b[b != -1]
        if table_op == "pow":
            b = torch.tensor([0, 1, 2, 3, 5, 7, 1], dtype=dt)
        if table_op == "bitwise_left_shift":  # out-of-range left shifts are undefined in PyTorch 1.13
            bits = torch.iinfo(dt).bits
            b = torch.tensor([0, 1, 2, 3, bits - 1, bits // 2], dtype=dt)
            a = a[a >= 0] if dt == torch.uint8 else a
        if table_op == "bitwise_right_shift":
            bits = torch.iinfo(dt).bits
            b = torch.tensor([0, 1, 2, bits // 2, bits - 1], dtype=dt)  # wider shifts: undefined in PyTorch 1.13
    return a.reshape(-1, 1), b.reshape(1, -1)


def scalar_operands(dt):
    return [2 if dt == torch.uint8 else -3, 0.5, True, 1 + 2j]


SCALAR_CASE_DTYPES = [torch.bool, torch.uint8, torch.int16, torch.int64, torch.float16, torch.bfloat16,
                      torch.float32, torch.complex64]


# ---- building the pointwise files ------------------------------------------------------------
def gen_unary(gf):
    for name, (fn, table_op) in list(UNARY.items()):
        for dt in ALL_DTYPES:
            g = gen(name + dname(dt))
            x = special_values(dt, g, name)
            if name == "i0" and dt.is_floating_point:  # PyTorch 1.13 gives i0(inf) = nan
                x = x[~torch.isinf(x)]
            if name == "atan" and dt.is_complex:
                # atan(+-i) is a pole: C99/C++ give (0, +-inf), PyTorch 1.13 (nan, +-inf); ember follows C99.
                x = x[(x != 1j) & (x != -1j)]
            r, ref = run_torch(fn, [x], {})
            gf.add("%s/%s/contiguous" % (name, dname(dt)), name, table_op, [x], {}, r, ref, ["contiguous", "special"])
            if dt.is_complex and name in ("neg", "conj_physical", "isnan", "isinf", "isfinite", "logical_not", "abs",
                                          "angle", "sgn"):
                x = complex_nonfinite(dt)
                if name == "abs":
                    # |inf + nan*j|: C99 hypot gives inf, PyTorch's vectorized sqrt(re^2 + im^2) nan;
                    # ember follows C99 (and keeps hypot's range for large magnitudes).
                    x = x[~(torch.isinf(x.real) & torch.isnan(x.imag))]
                r, ref = run_torch(fn, [x], {})
                gf.add("%s/%s/nonfinite" % (name, dname(dt)), name, table_op, [x], {}, r, ref, ["contiguous", "special"])
        # layouts for a few dtypes the op accepts
        for dt in [torch.float32, torch.int32, torch.complex64]:
            g = gen(name + dname(dt) + "layout")
            probe, _ = run_torch(fn, [rand_values(dt, 3, g, name)], {})
            if isinstance(probe, Exception):
                continue
            for tag, x in layouts(lambda d, n, gg: rand_values(d, n, gg, name), dt, g):
                r, ref = run_torch(fn, [x], {})
                gf.add("%s/%s/%s" % (name, dname(dt), tag), name, table_op, [x], {}, r, ref, [tag])
    for name, (table_op, fn) in ALIASES.items():
        x = special_values(torch.float32, gen(name), name)
        gf.add("%s/float32/alias" % name, name, table_op, [x], {}, fn(x), "torch", ["alias", "contiguous"])
    for name, (fn, table_op, variants) in PARAM_UNARY.items():
        call = call_param_unary(fn, name)
        for vi, kw in enumerate(variants):
            for dt in ALL_DTYPES:
                g = gen(name + dname(dt) + str(vi))
                x = special_values(dt, g, name)
                r, ref = run_torch(call, [x], kw)
                gf.add("%s/%d/%s/contiguous" % (name, vi, dname(dt)), name, table_op, [x], kw, r, ref,
                       ["contiguous", "special"])
            if vi == 0:
                for dt in [torch.float32, torch.bfloat16, torch.int32]:
                    g = gen(name + dname(dt) + "layout")
                    probe, _ = run_torch(call, [rand_values(dt, 3, g)], kw)
                    if isinstance(probe, Exception):
                        continue
                    for tag, x in layouts(lambda d, n, gg: rand_values(d, n, gg, name), dt, g):
                        r, ref = run_torch(call, [x], kw)
                        gf.add("%s/%d/%s/%s" % (name, vi, dname(dt), tag), name, table_op, [x], kw, r, ref, [tag])


def binary_variants(name, table_op):
    """kwargs variants per public binary op."""
    if name == "add" or name == "sub":
        return [({}, table_op), ({"alpha": 2}, table_op), ({"alpha": 0.5}, table_op)]
    if name == "div":
        return [({}, "div_true"), ({"rounding_mode": "trunc"}, "div_trunc"), ({"rounding_mode": "floor"}, "div_floor")]
    return [({}, table_op)]


def guard_zero_division(fn, table_op):
    """PyTorch 1.13 dies of SIGFPE on some integer divisions by zero instead of raising."""
    if table_op not in DIVLIKE:
        return fn

    def f(a, b, **kw):
        rt = torch.result_type(a, b)
        if not (rt.is_floating_point or rt.is_complex):
            if (b == 0).any() if isinstance(b, torch.Tensor) else b == 0:
                raise ZeroDivisionError("ZeroDivisionError (integer division by zero)")
        return fn(a, b, **kw)
    return f


def gen_binary(gf):
    for name, (fn0, table_op0, takes_scalar) in BINARY.items():
        for vi, (kw, table_op) in enumerate(binary_variants(name, table_op0)):
            fn = guard_zero_division(fn0, table_op)
            tkw = dict(kw)
            # all-pairs of edge values, every dtype (broadcast column x row)
            for dt in ALL_DTYPES:
                g = gen("%s%d%s" % (name, vi, dname(dt)))
                a, b = binary_operands(table_op, dt, g)
                r, ref = run_torch(fn, [a, b], tkw)
                gf.add("%s/%d/%s/pairs" % (name, vi, dname(dt)), name, table_op, [a, b], kw, r, ref,
                       ["broadcast", "special"])
            # integer division by zero, negative integer powers
            if table_op in DIVLIKE or table_op == "pow":
                a = torch.tensor([5, -3, 0], dtype=torch.int64)
                b = torch.tensor([2, 0, 1] if table_op != "pow" else [2, -1, 1], dtype=torch.int64)
                r, ref = run_torch(fn, [a, b], tkw)
                gf.add("%s/%d/int64/error" % (name, vi), name, table_op, [a, b], kw, r, ref, ["error"])
            # layouts (float32 and int32 and complex64)
            for dt in [torch.float32, torch.int32, torch.complex64]:
                g = gen("%s%d%slayout" % (name, vi, dname(dt)))

                def mk(d, n, gg):
                    v = rand_values(d, n, gg)
                    if d in INT_DTYPES and table_op in DIVLIKE:
                        v = torch.where(v == 0, torch.ones_like(v), v)
                    if d in INT_DTYPES and table_op in ("pow", "bitwise_left_shift", "bitwise_right_shift"):
                        v = v.abs() % 5
                    return v
                probe, _ = run_torch(fn, [mk(dt, 3, g), mk(dt, 3, g)], tkw)
                if isinstance(probe, Exception):
                    continue
                for tag, x in layouts(mk, dt, g):
                    y = mk(dt, x.numel(), g).reshape(x.shape)  # contiguous other operand
                    r, ref = run_torch(fn, [x, y], tkw)
                    gf.add("%s/%d/%s/%s" % (name, vi, dname(dt), tag), name, table_op, [x, y], kw, r, ref, [tag])
                    if tag == "channels_last":
                        r, ref = run_torch(fn, [y, x], tkw)
                        gf.add("%s/%d/%s/%s_rhs" % (name, vi, dname(dt), tag), name, table_op, [y, x], kw, r, ref,
                               [tag, "mixed_layout"])
                        y2 = mk(dt, x.numel(), g).reshape(x.shape).contiguous(memory_format=torch.channels_last)
                        r, ref = run_torch(fn, [x, y2], tkw)
                        gf.add("%s/%d/%s/%s_both" % (name, vi, dname(dt), tag), name, table_op, [x, y2], kw, r, ref,
                               [tag])
                        y3 = mk(dt, 3, g).reshape(1, 3, 1, 1)  # broadcast a per-channel tensor
                        r, ref = run_torch(fn, [x, y3], tkw)
                        gf.add("%s/%d/%s/%s_bcast" % (name, vi, dname(dt), tag), name, table_op, [x, y3], kw, r, ref,
                               [tag, "broadcast"])
                # broadcasting between different ranks
                x = mk(dt, 12, g).reshape(3, 1, 4)
                y = mk(dt, 5, g).reshape(5, 1)
                r, ref = run_torch(fn, [x, y], tkw)
                gf.add("%s/%d/%s/broadcast_rank" % (name, vi, dname(dt)), name, table_op, [x, y], kw, r, ref,
                       ["broadcast"])
            # python scalars and 0-dim tensors: type promotion
            if vi > 0 and name != "div":
                continue
            for dt in SCALAR_CASE_DTYPES:
                g = gen("%s%d%sscalar" % (name, vi, dname(dt)))
                x = rand_values(dt, 6, g)
                if dt in INT_DTYPES and table_op in ("bitwise_left_shift", "bitwise_right_shift", "pow"):
                    x = x.abs() % 5
                if takes_scalar:
                    for si, s in enumerate(scalar_operands(dt)):
                        if table_op in ("bitwise_left_shift", "bitwise_right_shift") and isinstance(s, int) and s < 0:
                            continue
                        r, ref = run_torch(fn, [x, s], tkw)
                        gf.add("%s/%d/%s/scalar%d" % (name, vi, dname(dt), si), name, table_op, [x, s], kw, r, ref,
                               ["scalar"])
                for zi, zdt in enumerate([torch.float64, torch.int64, torch.complex128]):
                    z = rand_values(zdt, 1, g).reshape(())
                    if zdt == torch.int64:
                        z = torch.tensor(3, dtype=torch.int64)
                    r, ref = run_torch(fn, [x, z], tkw)
                    gf.add("%s/%d/%s/zero_dim%d" % (name, vi, dname(dt), zi), name, table_op, [x, z], kw, r, ref,
                           ["zero_dim"])
                    if zi == 0:
                        r, ref = run_torch(fn, [z, x], tkw)
                        gf.add("%s/%d/%s/zero_dim_lhs" % (name, vi, dname(dt)), name, table_op, [z, x], kw, r, ref,
                               ["zero_dim"])
    # mixed dtypes, every pair, for a few ops
    for name in ["add", "div", "eq", "maximum"]:
        fn, table_op, _ = BINARY[name]
        for da in ALL_DTYPES:
            for db in ALL_DTYPES:
                if da == db:
                    continue
                g = gen("%smixed%s%s" % (name, dname(da), dname(db)))
                a = rand_values(da, 8, g).reshape(2, 4)
                b = rand_values(db, 4, g)
                r, ref = run_torch(fn, [a, b], {})
                gf.add("%s/mixed/%s/%s" % (name, dname(da), dname(db)), name, table_op, [a, b], {}, r, ref,
                       ["mixed", "broadcast"])
    # scalar first operands
    for name, fn, table_op in [("pow", torch.pow, "pow"), ("remainder", torch.remainder, "remainder")]:
        for dt in [torch.float32, torch.int64, torch.float16, torch.int32]:
            x = torch.tensor([1, 2, 3, 5], dtype=dt)
            for s in [2, 1.5]:
                r, ref = run_torch(fn, [s, x], {})
                gf.add("%s/scalar_lhs/%s/%r" % (name, dname(dt), s), name, table_op, [s, x], {}, r, ref, ["scalar"])
    for alias, (table_op, fn) in BINARY_ALIASES.items():
        fn = guard_zero_division(fn, table_op)
        for dt in [torch.float32, torch.int64]:
            g = gen(alias + dname(dt))
            a, b = binary_operands(table_op, dt, g)
            r, ref = run_torch(fn, [a, b], {})
            gf.add("%s/%s/alias" % (alias, dname(dt)), alias, table_op, [a, b], {}, r, ref, ["alias", "broadcast"])
    for dt in [torch.float32, torch.int64, torch.float64]:  # float_power -> pow in double
        g = gen("float_power" + dname(dt))
        a = special_values(dt, g).reshape(-1, 1)
        b = torch.tensor([0, 1, 2, 3], dtype=dt).reshape(1, -1)
        gf.add("float_power/%s" % dname(dt), "float_power", "pow", [a, b], {}, torch.float_power(a, b), "torch",
               ["alias", "broadcast"])


def gen_ternary(gf):
    for dt in ALL_DTYPES:
        g = gen("ternary" + dname(dt))
        s = rand_values(dt, 12, g).reshape(3, 4)
        a = rand_values(dt, 4, g)
        b = rand_values(dt, 3, g).reshape(3, 1)
        if dt not in (torch.bool,) and dt not in INT_DTYPES:
            b = torch.where(b == 0, torch.ones_like(b), b)
        # lerp
        for wi, w in enumerate([0.3, 0.75, -1.5]):
            r, ref = run_torch(torch.lerp, [s, b, w], {})
            gf.add("lerp/scalar%d/%s" % (wi, dname(dt)), "lerp", "lerp_scalar", [s, b, w], {}, r, ref, ["broadcast"])
        wt = (torch.tensor([0.0, 0.25, 0.5, 0.6, 1.0, 2.0, -0.5, 0.49], dtype=torch.float64).reshape(2, 1, 4)).to(dt) \
            if dt.is_floating_point or dt.is_complex else rand_values(dt, 8, g).reshape(2, 1, 4)
        r, ref = run_torch(torch.lerp, [s, b, wt], {})
        gf.add("lerp/tensor/%s" % dname(dt), "lerp", "lerp_tensor", [s, b, wt], {}, r, ref, ["broadcast"])
        # addcmul / addcdiv
        for vi, v in enumerate([1, 0.5, 2]):
            kw = {} if vi == 0 else {"value": v}
            r, ref = run_torch(torch.addcmul, [s, a, b], kw)
            gf.add("addcmul/%d/%s" % (vi, dname(dt)), "addcmul", "addcmul", [s, a, b], kw, r, ref, ["broadcast"])
            r, ref = run_torch(torch.addcdiv, [s, a, b], kw)
            gf.add("addcdiv/%d/%s" % (vi, dname(dt)), "addcdiv", "addcdiv", [s, a, b], kw, r, ref, ["broadcast"])
        # clamp with scalar bounds
        x = special_values(dt, g)
        bounds = [(-1, 2), (0.5, None), (None, -0.25), (2, 1), (-1.5, 2.5)] if dt != torch.uint8 else \
            [(1, 7), (0.5, None), (None, 9), (5, 3)]
        for bi, (lo, hi) in enumerate(bounds):
            kw = {"min": lo, "max": hi}
            r, ref = run_torch(torch.clamp, [x], kw)
            gf.add("clamp/scalar%d/%s" % (bi, dname(dt)), "clamp", "clamp_scalar", [x], kw, r, ref, ["scalar"])
        # clamp with tensor bounds
        lo = rand_values(dt, 4, g)
        hi = (lo.to(torch.float64) + 3).to(dt) if dt != torch.bool else torch.ones(4, dtype=torch.bool)
        xx = special_values(dt, g)[:8].reshape(2, 4)
        for ki, kw in enumerate([{"min": lo, "max": hi}, {"min": lo}, {"max": hi}]):
            r, ref = run_torch(torch.clamp, [xx], kw)
            top = "clamp_tensor" if ki == 0 else ("maximum" if "min" in kw else "minimum")
            gf.add("clamp/tensor%d/%s" % (ki, dname(dt)), "clamp", top, [xx], kw, r, ref, ["broadcast"])
    # layouts for the ternary ops
    for dt in [torch.float32, torch.bfloat16]:
        g = gen("ternarylayout" + dname(dt))
        for tag, x in layouts(lambda d, n, gg: rand_values(d, n, gg), dt, g):
            y = rand_values(dt, x.numel(), g).reshape(x.shape)
            z = (rand_values(dt, x.numel(), g).reshape(x.shape).abs() + 0.5).to(dt)
            gf.add("lerp/tensor/%s/%s" % (dname(dt), tag), "lerp", "lerp_tensor", [x, y, z.remainder(1)], {},
                   torch.lerp(x, y, z.remainder(1)), "torch", [tag])
            gf.add("addcmul/%s/%s" % (dname(dt), tag), "addcmul", "addcmul", [x, y, z], {"value": 0.5},
                   torch.addcmul(x, y, z, value=0.5), "torch", [tag])
            gf.add("addcdiv/%s/%s" % (dname(dt), tag), "addcdiv", "addcdiv", [x, y, z], {"value": 0.5},
                   torch.addcdiv(x, y, z, value=0.5), "torch", [tag])
            gf.add("clamp/tensor/%s/%s" % (dname(dt), tag), "clamp", "clamp_tensor", [x], {"min": y, "max": y + z},
                   torch.clamp(x, y, y + z), "torch", [tag])
            gf.add("lerp/scalar/%s/%s" % (dname(dt), tag), "lerp", "lerp_scalar", [x, y, 0.25], {},
                   torch.lerp(x, y, 0.25), "torch", [tag])
            gf.add("clamp/scalar/%s/%s" % (dname(dt), tag), "clamp", "clamp_scalar", [x], {"min": -0.5, "max": 1.0},
                   torch.clamp(x, -0.5, 1.0), "torch", [tag])


def gen_copy(gf):
    """Casts between every pair of dtypes (the copy_ op) and fill_ with Python numbers."""
    for src in ALL_DTYPES:
        for dst in ALL_DTYPES:
            g = gen("copy" + dname(src) + dname(dst))
            if src == torch.bool:
                x = torch.tensor([True, False, True, True, False])
            elif src in INT_DTYPES:
                x = torch.cat([torch.tensor(int_specials(src), dtype=src), rand_values(src, 3, g)])
            else:
                # float -> integer casts of values out of the target's range are undefined
                vals = [0.0, 1.0, 2.7, -0.0, 100.5, 3.5, 0.49, 126.9]
                if dst.is_signed or not (dst.is_floating_point or dst.is_complex):
                    vals += [-1.5, -3.7, -100.2] if dst != torch.uint8 else []
                if dst == torch.bool or dst.is_floating_point or dst.is_complex:
                    vals += [math.inf, -math.inf, math.nan, 1e30, -1e-30, 70000.0, 1.00048828125, 3.3e-5]
                if dst in (torch.int16, torch.int32, torch.int64):
                    vals += [30000.6, -32000.2]
                if dst in (torch.int32, torch.int64) and src not in (torch.float16,):
                    vals += [2.0e9, -2.1e9]
                if src.is_complex:
                    x = torch.tensor([complex(v, w) for v, w in zip(vals, vals[::-1])], dtype=torch.complex128)
                    if not (dst.is_complex or dst.is_floating_point or dst == torch.bool):
                        x = torch.complex(x.real, torch.zeros_like(x.real))  # keep the cast defined
                else:
                    x = torch.tensor(vals, dtype=torch.float64)
                x = x.to(src)
            gf.add("to/%s/%s" % (dname(src), dname(dst)), "to", "copy_", [x], {"dtype": dname(dst)},
                   x.to(dst), "torch", ["cast"])
        g = gen("copylayout" + dname(src))
        for tag, x in layouts(lambda d, n, gg: rand_values(d, n, gg), src, g):
            dst = torch.float64 if src != torch.float64 else torch.int32
            gf.add("to/%s/%s/%s" % (dname(src), dname(dst), tag), "to", "copy_", [x], {"dtype": dname(dst)},
                   x.to(dst), "torch", ["cast", tag])
    for dt in ALL_DTYPES:
        for vi, v in enumerate([2, -1, 0.5, True, 1 + 2j, 1e30, math.nan, 300]):
            try:
                r = torch.full((5,), v, dtype=dt)
            except Exception as e:  # noqa: BLE001
                r = e
            gf.add("full/%s/%d" % (dname(dt), vi), "full", "fill_", [v], {"dtype": dname(dt)}, r, "torch", ["scalar"])


# ---- dtype tables -------------------------------------------------------------------------------
def gen_dtypes(gf):
    """Tables, as extra case fields: "dtypes" names the rows and columns."""
    names = [dname(d) for d in ALL_DTYPES]

    def promote(a, b):
        try:
            return dname(torch.promote_types(a, b))
        except Exception:  # noqa: BLE001
            return "error"
    gf.add("promote_types", "promote_types", "", [], {}, None, extra={
        "dtypes": names, "table": [[promote(a, b) for b in ALL_DTYPES] for a in ALL_DTYPES]})
    gf.add("can_cast", "can_cast", "", [], {}, None, extra={
        "dtypes": names, "table": [[torch.can_cast(a, b) for b in ALL_DTYPES] for a in ALL_DTYPES]})
    # result_type of pairs of operands: "dim:<dtype>" a 1-d tensor, "zero:<dtype>" a 0-dim
    # tensor, "scalar:<bool|int|float|complex>" a Python number; "" where both are numbers.
    operands = []
    for dt in ALL_DTYPES:
        operands.append(("dim:" + dname(dt), torch.ones(2, dtype=dt)))
        operands.append(("zero:" + dname(dt), torch.ones((), dtype=dt)))
    for tag, v in [("bool", True), ("int", 2), ("float", 2.5), ("complex", 1 + 1j)]:
        operands.append(("scalar:" + tag, v))

    def rt(a, b):
        if not isinstance(a, torch.Tensor) and not isinstance(b, torch.Tensor):
            return ""
        try:
            return dname(torch.result_type(a, b))
        except Exception:  # noqa: BLE001
            return "error"
    for default in [torch.float32, torch.float64]:
        torch.set_default_dtype(default)
        gf.add("result_type/default_" + dname(default), "result_type", "", [], {}, None, extra={
            "default_dtype": dname(default), "operands": [o[0] for o in operands],
            "table": [[rt(a, b) for _, b in operands] for _, a in operands]})
        gf.add("default_dtype/" + dname(default), "default_dtype", "", [], {}, None, extra={
            "default_dtype": dname(default), "zeros": dname(torch.zeros(2).dtype),
            "full_float": dname(torch.full((2,), 1.5).dtype), "full_int": dname(torch.full((2,), 2).dtype),
            "arange_float": dname(torch.arange(0, 1, 0.5).dtype), "arange_int": dname(torch.arange(0, 3).dtype),
            "int_div": dname((torch.ones(2, dtype=torch.int64) / 2).dtype),
            "int_div_tensor": dname(torch.div(torch.ones(2, dtype=torch.int32), torch.ones(2, dtype=torch.int32)).dtype),
            "int_times_float": dname((torch.ones(2, dtype=torch.int64) * 1.5).dtype),
            "int_times_complex": dname((torch.ones(2, dtype=torch.int64) * 1j).dtype),
            "int_exp": dname(torch.exp(torch.ones(2, dtype=torch.int64)).dtype)})
    torch.set_default_dtype(torch.float32)


def gen_half(gf):
    bits = torch.arange(0, 65536, dtype=torch.int32).to(torch.int16)
    h = bits.view(torch.float16).to(torch.float32)
    b = bits.view(torch.bfloat16).to(torch.float32)
    # no args: the input of element i is the bit pattern i
    gf.add("half_to_float", "half_to_float", "", [], {}, h, "torch", [])
    gf.add("bfloat16_to_float", "bfloat16_to_float", "", [], {}, b, "torch", [])
    # float -> half/bfloat16 rounding of random bit patterns and of values near the ties
    g = gen("half_round")
    rnd = torch.randint(-2 ** 31, 2 ** 31, (6000,), generator=g, dtype=torch.int64).to(torch.int32).view(torch.float32)
    hv = h[torch.isfinite(h)].to(torch.float64).unique()
    mids = ((hv[1:] + hv[:-1]) / 2)[torch.randperm(hv.numel() - 1, generator=g)[:1500]]
    near = torch.cat([mids, torch.nextafter(mids, torch.tensor(math.inf, dtype=torch.float64)),
                      torch.nextafter(mids, torch.tensor(-math.inf, dtype=torch.float64))]).to(torch.float32)
    specials = torch.tensor([65504.0, 65519.99, 65520.0, 65536.0, 1e-8, 2.98e-8, 5.96e-8, 6.1e-5,
                             3.4e38, 1e-45, math.inf, -math.inf, math.nan, -0.0], dtype=torch.float32)
    xs = torch.cat([rnd, near, specials])
    gf.add("float_to_half", "float_to_half", "", [xs], {}, xs.to(torch.float16), "torch", [])
    gf.add("float_to_bfloat16", "float_to_bfloat16", "", [xs], {}, xs.to(torch.bfloat16), "torch", [])


# ---- torch.special's table ops ---------------------------------------------------------------
SPECIAL_UNARY = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
                 "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
                 "scaled_modified_bessel_k1", "i0e", "i1", "i1e", "airy_ai", "spherical_bessel_j0", "erfcx",
                 "log_ndtr", "ndtri", "entr"]
SPECIAL_POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
                       "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
                       "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
                       "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"]


def gen_special_unary(gf):
    for n in SPECIAL_UNARY:
        name, fn = "special_" + n, getattr(torch.special, n)
        for dt in ALL_DTYPES:
            x = special_values(dt, gen(name + dname(dt)), "ndtri" if n == "ndtri" else name)
            r, ref = run_torch(fn, [x], {})
            gf.add("%s/%s/contiguous" % (name, dname(dt)), name, name, [x], {}, r, ref, ["contiguous", "special"])
        g = gen(name + "layout")
        for tag, x in layouts(lambda d, k, gg: rand_values(d, k, gg, name), torch.float32, g):
            r, ref = run_torch(fn, [x], {})
            gf.add("%s/float32/%s" % (name, tag), name, name, [x], {}, r, ref, [tag])
    for order in [0, 1, 3]:
        for dt in ALL_DTYPES:
            x = special_values(dt, gen("polygamma%d%s" % (order, dname(dt))), "digamma")
            r, ref = run_torch(lambda t, n: torch.polygamma(n, t), [x], {"n": order})
            gf.add("polygamma/%d/%s/contiguous" % (order, dname(dt)), "polygamma", "polygamma", [x], {"n": order},
                   r, ref, ["contiguous", "special"])


def gen_special_binary(gf):
    cases = [("special_" + n, getattr(torch.special, n),
              [-2.0, -1.0, -0.5, 0.0, 0.3, 0.5, 0.9, 1.0, 1.5, 3.0, math.nan, math.inf, -math.inf],
              [0.0, 1.0, 2.0, 3.0, 4.0, 7.0, 12.0, -1.0, 2.5, math.nan, math.inf]) for n in SPECIAL_POLYNOMIALS]
    cases += [("igamma", torch.igamma, [0.5, 1.0, 2.0, 5.0, 20.0, 0.0, -1.0, math.nan, math.inf],
               [0.0, 0.1, 1.0, 3.0, 10.0, 50.0, -1.0, math.nan, math.inf]),
              ("igammac", torch.igammac, [0.5, 1.0, 2.0, 5.0, 20.0, 0.0, -1.0, math.nan, math.inf],
               [0.0, 0.1, 1.0, 3.0, 10.0, 50.0, -1.0, math.nan, math.inf]),
              ("special_zeta", torch.special.zeta, [1.0, 1.5, 2.0, 3.0, 10.0, 0.5, -1.0, math.nan, math.inf],
               [0.5, 1.0, 2.0, 10.0, -1.5, 0.0, math.nan])]
    for name, fn, xs, ns in cases:
        for dt in FLOAT_DTYPES + [torch.int64]:
            a = torch.tensor(xs, dtype=torch.float64).reshape(-1, 1)
            b = torch.tensor(ns, dtype=torch.float64).reshape(1, -1)
            if dt == torch.int64:
                a, b = a[torch.isfinite(a) & (a == a.round())], b[torch.isfinite(b) & (b == b.round())]
                a, b = a.reshape(-1, 1), b.reshape(1, -1)
            a, b = a.to(dt), b.to(dt)
            r, ref = run_torch(fn, [a, b], {})
            gf.add("%s/%s/pairs" % (name, dname(dt)), name, name, [a, b], {}, r, ref, ["broadcast", "special"])
        x = rand_values(torch.float64, 12, gen(name + "scalar")).abs() + 0.5
        r, ref = run_torch(fn, [x, 2], {})
        gf.add("%s/float64/scalar" % name, name, name, [x, 2], {}, r, ref, ["scalar"])


def main():
    torch.manual_seed(0)
    for name, fn in [("pointwise_unary", lambda gf: (gen_unary(gf), gen_special_unary(gf))),
                     ("pointwise_binary", lambda gf: (gen_binary(gf), gen_special_binary(gf))),
                     ("pointwise_ternary", gen_ternary), ("copy", gen_copy), ("dtypes", gen_dtypes),
                     ("half", gen_half)]:
        gf = GoldenFile(name)
        fn(gf)
        gf.write()


if __name__ == "__main__":
    main()
