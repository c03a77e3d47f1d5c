#!/usr/bin/env python3
"""Reference results for tests/frame/compute_reference_test.cpp.

Generates columns (random values with nulls, empty and all-null columns, slices with
non-zero offsets, unicode strings) and computes what each ember::frame compute function must
return with numpy, pandas 3 (its pyarrow-backed string dtype) and pyarrow. Writes one JSON
document: {"cases": [{"name", "op", "args", "kw", "expect"}]} where args are column specs
{"type", "values", "nullable", "slice": [offset, length]} (the C++ side builds the whole
column and slices it) or scalar specs {"scalar", "kind"}, and expect is a column spec, a
scalar spec, {"error": substring} or {"values": col, "counts": col} (value_counts).

Result dtypes of arithmetic follow Note [Compute semantics] (compute.h); they are written
out again below (promote) and checked against PyTorch's own promotion in
compute_promotion_test.cpp. Usage: compute_reference.py OUT.json
"""
import json
import math
import random
import sys
from collections import OrderedDict

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

R = random.Random(20240601)

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float32", "float64"]
NUMERIC = INTS + FLOATS
NP = {t: getattr(np, t) for t in NUMERIC}
NP["bool"] = np.bool_
BITS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64, "uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64}

cases = []


# ---- encoding ---------------------------------------------------------------------------

def base_type(t):
    return t


def enc(v, t):
    if v is None:
        return None
    if t in FLOATS:
        v = float(v)
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v
    if t in INTS:
        return int(v)
    if t == "bool":
        return bool(v)
    if t.startswith("list<"):
        inner = t[5:-1]
        return [enc(x, inner) for x in v]
    return v  # strings, dates (days), timestamps (counts)


def pad_value(t):
    if t in FLOATS:
        return 12345.5
    if t in INTS or t in ("date32",) or t.startswith("timestamp"):
        return 7
    if t == "bool":
        return True
    if t.startswith("list<"):
        return []
    return "pad"


def col(values, t, nullable=None, offset=None):
    """A column spec; with offset, the C++ side builds offset padding rows + values + 2 more and slices."""
    if nullable is None:
        nullable = any(v is None for v in values) or R.random() < 0.3
    if offset is None:
        offset = R.choice([0, 0, 3, 13, 65])
    full = [pad_value(t) if (i % 3) else None for i in range(offset)] if nullable else [pad_value(t)] * offset
    full = full + list(values) + ([pad_value(t), None] if nullable else [pad_value(t)] * 2)
    return {"type": t, "values": [enc(v, t) for v in full], "nullable": nullable, "slice": [offset, len(values)]}


def out(values, t, nullable=None):
    spec = {"type": t, "values": [enc(v, t) for v in values]}
    if nullable is not None:
        spec["nullable"] = nullable
    return spec


def scalar(v, kind):
    if kind == "float":
        return {"scalar": enc(v, "float64"), "kind": "float"}
    return {"scalar": v, "kind": kind}


def add(name, op, args, expect, **kw):
    cases.append({"name": name, "op": op, "args": args, "kw": kw, "expect": expect})


# ---- data -------------------------------------------------------------------------------------

def gen(t, n, null_p=0.15, small=True):
    vals = []
    for _ in range(n):
        if R.random() < null_p:
            vals.append(None)
            continue
        if t in INTS:
            if small:
                lo, hi = (0, 60) if t.startswith("u") else (-60, 60)
            else:
                b = BITS[t]
                lo, hi = (0, 2 ** b - 1) if t.startswith("u") else (-(2 ** (b - 1)), 2 ** (b - 1) - 1)
            vals.append(R.randint(lo, hi))
        elif t in FLOATS:
            x = R.gauss(0, 20) if small else R.gauss(0, 1e6)
            if t == "float32":
                x = float(np.float32(x))
            vals.append(x)
        elif t == "bool":
            vals.append(R.random() < 0.5)
        else:
            raise ValueError(t)
    return vals


WORDS = ["", "a", "abc", "Hello World", "  padded  ", "ÉCOLE élève", "ǅemal", "straße", "İstanbul", "ΟΔΥΣΣΕΥΣ",
         "Москва", "日本語テキスト", "x1y22z333", "\t tab\n", "MiXeD CaSe", "αβγ.δεζ", "😀 emoji", "a,b,,c", "١٢٣",
         "½", "ABC", "abc123", "   ", "ﬁ ligature", "Ω≈ç√", "ĳ Ĳ", "ǉ", "ᾳ"]


def gen_strings(n, null_p=0.15):
    return [None if R.random() < null_p else R.choice(WORDS) + (R.choice(WORDS) if R.random() < 0.3 else "")
            for _ in range(n)]


# ---- promotion (Note [Compute semantics]) ---------------------------------------------------------

def cat(t):
    return 0 if t == "bool" else 1 if t in INTS else 2


def promote(a, b):
    if a == "bool" and b == "bool":
        return "int64"
    if a == "bool":
        return b
    if b == "bool":
        return a
    if cat(a) == 2 or cat(b) == 2:
        if cat(a) == 2 and cat(b) == 2:
            return "float64" if "float64" in (a, b) else "float32"
        return a if cat(a) == 2 else b
    sa, sb = not a.startswith("u"), not b.startswith("u")
    if sa == sb:
        return a if BITS[a] >= BITS[b] else b
    s, u = (a, b) if sa else (b, a)
    if BITS[s] > BITS[u]:
        return s
    return "int%d" % min(64, 2 * BITS[u])


def promote_scalar(t, kind):
    if kind == "bool":
        return promote(t, "bool")
    if kind == "int":
        return "int64" if t == "bool" else t
    return t if cat(t) == 2 else "float64"


# ---- arithmetic ---------------------------------------------------------------------------------

NP_OPS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide,
          "floordiv": np.floor_divide, "mod": np.remainder, "pow": np.power}


def values_array(vals, t, fill):
    return np.array([fill if v is None else v for v in vals], dtype=object)


def arith(op, av, at, bv, bt, res):
    """Element-wise numpy op in dtype res; av/bv lists (None = null) or a scalar (not list)."""
    n = len(av) if isinstance(av, list) else len(bv)
    A = np.array([1 if x is None else x for x in av] if isinstance(av, list) else [av] * n, dtype=object)
    B = np.array([1 if x is None else x for x in bv] if isinstance(bv, list) else [bv] * n, dtype=object)
    if res in FLOATS:
        A = A.astype(np.float64).astype(NP[res])
        B = B.astype(np.float64).astype(NP[res])
    else:
        # Integers wrap into the result type (two's complement), as the C++ casts do.
        b = BITS[res]
        def wrap(x):
            x = int(x) % (2 ** b)
            if not res.startswith("u") and x >= 2 ** (b - 1):
                x -= 2 ** b
            return x
        A = np.array([wrap(x) for x in A], dtype=NP[res])
        B = np.array([wrap(x) for x in B], dtype=NP[res])
    with np.errstate(all="ignore"):
        Rr = NP_OPS[op](A, B)  # raises ValueError for integers to negative integer powers
    nulls = [(isinstance(av, list) and av[i] is None) or (isinstance(bv, list) and bv[i] is None) for i in range(n)]
    return [None if nulls[i] else Rr[i].item() for i in range(n)], nulls, A, B


def arith_cases():
    ops = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow"]
    pairs = [("int64", "int64"), ("int32", "int64"), ("int8", "uint8"), ("uint16", "int16"), ("uint64", "int32"),
             ("uint32", "uint8"), ("int64", "float64"), ("int16", "float32"), ("float32", "float32"),
             ("float32", "float64"), ("bool", "bool"), ("bool", "int32"), ("float64", "bool"), ("uint64", "uint64")]
    for op in ops:
        for at, bt in pairs:
            n = R.choice([1, 37, 64, 130, 200])
            small = op != "pow"
            av = gen(at, n, small=True)
            bv = gen(bt, n, small=True)
            res = promote(at, bt)
            if op == "truediv" and res not in FLOATS:
                res = "float64"
            if op in ("floordiv", "mod") and res not in FLOATS:
                bv = [None if v is None else (v if v != 0 else 3) for v in bv]
                if bt == "bool":
                    bv = [None if v is None else True for v in bv]
            if op == "pow":
                if res in FLOATS:
                    av = [None if v is None else (abs(v) / 10 if at in FLOATS else abs(v) % 7) for v in av]
                    bv = [None if v is None else (v / 20 if bt in FLOATS else v % 4) for v in bv]
                else:
                    bv = [None if v is None else (abs(int(v)) % 5 if bt != "bool" else v) for v in bv]
            vals, nulls, _, _ = arith(op, av, at, bv, bt, res)
            acol, bcol = col(av, at), col(bv, bt)
            add("%s/%s/%s" % (op, at, bt), op, [acol, bcol], out(vals, res, acol["nullable"] or bcol["nullable"]))
        # column op scalar and scalar op column
        for t, kind, s in [("int64", "int", 7), ("int8", "int", -3), ("uint16", "int", 5), ("float32", "float", 1.5),
                           ("int32", "float", 0.25), ("float64", "int", 3), ("bool", "int", 2), ("int16", "bool", True)]:
            n = 70
            cv = gen(t, n)
            if op in ("floordiv", "mod") and promote_scalar(t, kind) not in FLOATS:
                cv = [None if v is None else (v if v != 0 else 1) for v in cv]
            if op == "pow":
                cv = [None if v is None else abs(v) % 6 for v in cv] if t != "bool" else cv
            res = promote_scalar(t, kind)
            if op == "truediv" and res not in FLOATS:
                res = "float64"
            c = col(cv, t)
            try:
                vals, _, _, _ = arith(op, cv, t, s, kind, res)
                expect = out(vals, res, c["nullable"])
            except ValueError:
                expect = {"error": "integers to negative integer powers are not allowed"}
            add("%s/%s/scalar_%s" % (op, t, kind), op, [c, scalar(s, kind)], expect)
            svalue = s
            vals2, _, _, _ = arith(op, svalue, kind, cv, t, res)
            if op in ("floordiv", "mod") and res not in FLOATS and any(v == 0 for v in cv if v is not None):
                continue
            if op == "pow" and res not in FLOATS and any(v is not None and v < 0 for v in cv):
                continue
            add("%s/scalar_%s/%s" % (op, kind, t), op, [scalar(s, kind), c], out(vals2, res, c["nullable"]))
    # Errors and edge cases.
    a = col([5, None, 7], "int64")
    add("floordiv/zero", "floordiv", [a, col([1, 0, 0], "int64", offset=0)], {"error": "integer division by zero at row 2"})
    add("mod/zero_scalar", "mod", [a, scalar(0, "int")], {"error": "integer modulo by zero at row 0"})
    add("floordiv/zero_under_null", "floordiv", [col([5, None, 7], "int64", offset=0), col([2, 0, -2], "int64", offset=0)],
        out([2, None, -4], "int64"))
    add("pow/negative", "pow", [a, scalar(-1, "int")], {"error": "negative integer powers"})
    add("add/scalar_overflow", "add", [col([1, 2], "int8"), scalar(300, "int")], {"error": "does not fit"})
    add("add/string_int", "add", [col(["a"], "string"), col([1], "int64")], {"error": "unsupported operand types"})
    add("add/length", "add", [col([1, 2], "int64"), col([1], "int64")], {"error": "different lengths"})
    add("add/null_scalar", "add", [col([1, 2], "int32"), scalar(None, "null")], out([None, None], "int32", True))
    add("floordiv/min_by_minus_one", "floordiv", [col([-128, 7], "int8", offset=0), scalar(-1, "int")],
        out([-128, -7], "int8"))
    add("mod/min_by_minus_one", "mod", [col([-2 ** 63], "int64", offset=0), scalar(-1, "int")], out([0], "int64"))
    f = [1.0, -1.0, 0.0, float("nan"), float("inf"), -7.5, 7.5]
    for op in ("floordiv", "mod", "truediv"):
        A = np.array(f)
        with np.errstate(all="ignore"):
            r0 = NP_OPS[op](A, np.zeros_like(A))
            r2 = NP_OPS[op](A, np.full_like(A, -2.0))
        add("%s/float_by_zero" % op, op, [col(f, "float64"), scalar(0.0, "float")], out(list(r0), "float64"))
        add("%s/float_by_minus_two" % op, op, [col(f, "float64"), scalar(-2.0, "float")], out(list(r2), "float64"))
    add("truediv/int_by_zero", "truediv", [col([1, -1, 0, None], "int64"), scalar(0, "int")],
        out([math.inf, -math.inf, math.nan, None], "float64"))
    s1, s2 = ["ab", None, "é", ""], ["x", "y", None, "z"]
    add("add/strings", "add", [col(s1, "string"), col(s2, "string")], out(["abx", None, None, "z"], "string"))
    add("add/string_scalar", "add", [col(s1, "string"), scalar("!", "str")], out(["ab!", None, "é!", "!"], "string"))
    add("add/scalar_string", "add", [scalar("<", "str"), col(s1, "string")], out(["<ab", None, "<é", "<"], "string"))
    add("add/empty", "add", [col([], "int64"), col([], "float32")], out([], "float32"))
    add("mul/all_null", "mul", [col([None] * 70, "int16"), col(list(range(70)), "int16")], out([None] * 70, "int16"))


# ---- unary math ---------------------------------------------------------------------------------

def math_cases():
    for t in ["int8", "int64", "uint32", "float32", "float64"]:
        v = gen(t, 150, small=True)
        if t in FLOATS:
            v = [None if x is None else x / 7 for x in v]
            v = [None if x is None else float(NP[t](x)) for x in v]
        c = col(v, t)
        a = np.array([0 if x is None else x for x in v], dtype=NP[t])
        mask = [x is None for x in v]
        def res(arr, rt):
            return out([None if m else y.item() for m, y in zip(mask, arr)], rt)
        with np.errstate(all="ignore"):
            if not t.startswith("u"):
                add("neg/" + t, "neg", [c], res(-a, t))
                add("abs/" + t, "abs", [c], res(np.abs(a), t))
            add("ceil/" + t, "ceil", [c], res(np.ceil(a) if t in FLOATS else a, t))
            add("floor/" + t, "floor", [c], res(np.floor(a) if t in FLOATS else a, t))
            for d in [0, 1, 2, -1]:
                add("round%d/%s" % (d, t), "round", [c], res(np.round(a, d), t), decimals=d)
            ft = t if t in FLOATS else "float64"
            af = a if t in FLOATS else a.astype(np.float64)
            add("log/" + t, "log", [c], res(np.log(af), ft))
            add("exp/" + t, "exp", [c], res(np.exp(af / 10 if t in INTS else af), ft) if t in FLOATS else res(np.exp(af), ft))
            add("sqrt/" + t, "sqrt", [c], res(np.sqrt(af), ft))
    add("round/half_even", "round", [col([0.5, 1.5, 2.5, -0.5, -1.5, 2.675, 1234.5678], "float64")],
        out(list(np.round(np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.675, 1234.5678]), 2)), "float64"), decimals=2)
    add("round/int_tens", "round", [col([15, 25, -15, 14, None], "int32")], out([20, 20, -20, 10, None], "int32"), decimals=-1)
    add("neg/bool", "neg", [col([True], "bool")], {"error": "expected a numeric column"})
    add("log/string", "log", [col(["x"], "string")], {"error": "expected a numeric column"})


# ---- comparisons and logic -------------------------------------------------------------------------

def cmp_value(op, x, y):
    return {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[op]


def as_compute(v, t, res):
    if v is None:
        return None
    if res in FLOATS:
        return float(NP[res](v))
    return v  # Python ints and bools compare exactly


def compare_cases():
    ops = ["eq", "ne", "lt", "le", "gt", "ge"]
    pairs = [("int64", "int64"), ("int8", "uint64"), ("uint64", "int64"), ("int32", "float64"), ("float32", "float32"),
             ("float32", "float64"), ("bool", "bool"), ("uint8", "int16"), ("bool", "float64")]
    for op in ops:
        for at, bt in pairs:
            n = R.choice([5, 64, 129])
            av, bv = gen(at, n, small=True), gen(bt, n, small=True)
            # Equal values need to occur.
            bv = [av[i] if (av[i] is not None and R.random() < 0.3 and bt not in ("bool",) and at not in ("bool",)
                            and not (bt.startswith("u") and av[i] < 0)) else bv[i] for i in range(n)]
            if at == "uint64" and bt == "int64":
                av = [None if v is None else v + 2 ** 63 * R.randint(0, 1) for v in av]
            res = "float64" if "float64" in (at, bt) else "float32" if "float32" in (at, bt) else None
            if res == "float32" and ("int" in at and at != "float32" or "int" in bt and bt != "float32"):
                res = "float32"
            vals = [None if (x is None or y is None) else cmp_value(op, as_compute(x, at, res), as_compute(y, bt, res))
                    for x, y in zip(av, bv)]
            acol, bcol = col(av, at), col(bv, bt)
            add("%s/%s/%s" % (op, at, bt), op, [acol, bcol], out(vals, "bool", acol["nullable"] or bcol["nullable"]))
        for t, kind, s in [("int64", "int", 3), ("int8", "int", 1000), ("int8", "int", -1000), ("uint8", "int", -1),
                           ("float32", "float", 0.1), ("int32", "float", 2.5), ("bool", "bool", True),
                           ("uint64", "int", 2 ** 63 + 5), ("float64", "float", float("nan"))]:
            cv = gen(t, 100)
            if t == "uint64":
                cv = [None if v is None else v + (2 ** 63 if R.random() < 0.5 else 0) for v in cv]
            res = promote_scalar(t, kind) if kind == "float" else None
            vals = [None if x is None else cmp_value(op, as_compute(x, t, res), as_compute(s, kind, res)) for x in cv]
            c = col(cv, t)
            add("%s/%s/scalar_%s_%s" % (op, t, kind, s), op, [c, scalar(s, kind)], out(vals, "bool", c["nullable"]))
            vals2 = [None if x is None else cmp_value(op, as_compute(s, kind, res), as_compute(x, t, res)) for x in cv]
            add("%s/scalar_%s_%s/%s" % (op, kind, s, t), op, [scalar(s, kind), c], out(vals2, "bool", c["nullable"]))
        sv, tv = gen_strings(90), gen_strings(90)
        tv = [sv[i] if R.random() < 0.3 else tv[i] for i in range(90)]
        vals = [None if x is None or y is None else cmp_value(op, x, y) for x, y in zip(sv, tv)]
        add(op + "/strings", op, [col(sv, "string"), col(tv, "large_string")], out(vals, "bool"))
        vals = [None if x is None else cmp_value(op, x, "MiXeD") for x in sv]
        add(op + "/string_scalar", op, [col(sv, "string"), scalar("MiXeD", "str")], out(vals, "bool"))
        dv, ev = [R.randint(-3, 3) if R.random() > 0.1 else None for _ in range(50)], [R.randint(-3, 3) for _ in range(50)]
        vals = [None if x is None else cmp_value(op, x, y) for x, y in zip(dv, ev)]
        add(op + "/date32", op, [col(dv, "date32"), col(ev, "date32")], out(vals, "bool"))
        add(op + "/timestamp", op, [col(dv, "timestamp[ms]"), col(ev, "timestamp[ms]")], out(vals, "bool"))
    add("eq/null_scalar", "eq", [col([1, 2], "int64"), scalar(None, "null")], out([None, None], "bool", True))
    add("lt/string_int", "lt", [col(["a"], "string"), scalar(1, "int")], {"error": "cannot compare"})
    add("lt/units", "lt", [col([1], "timestamp[ms]"), col([1], "timestamp[s]")], {"error": "cannot compare"})
    # Kleene logic against pandas' nullable boolean.
    for op in ["and", "or", "xor"]:
        n = 200
        av = [R.choice([True, False, None]) for _ in range(n)]
        bv = [R.choice([True, False, None]) for _ in range(n)]
        pa_, pb = pd.array(av, dtype="boolean"), pd.array(bv, dtype="boolean")
        r = {"and": pa_ & pb, "or": pa_ | pb, "xor": pa_ ^ pb}[op]
        add("logic_%s" % op, op, [col(av, "bool"), col(bv, "bool")], out([None if x is pd.NA else bool(x) for x in r], "bool"))
    av = [R.choice([True, False, None]) for _ in range(77)]
    add("logic_not", "not", [col(av, "bool")], out([None if x is None else not x for x in av], "bool"))
    add("logic_and/int", "and", [col([1], "int64"), col([True], "bool")], {"error": "expected a boolean column"})


# ---- nulls, isin, cast, selection ---------------------------------------------------------------------

def arrow_type(t):
    if t in NUMERIC:
        return getattr(pa, t)()
    if t == "bool":
        return pa.bool_()
    if t in ("string", "large_string", "date32"):
        return getattr(pa, t)()
    if t.startswith("timestamp["):
        return pa.timestamp(t[10:-1])
    raise ValueError(t)


def arrow_values(arr):
    if pa.types.is_date32(arr.type):
        arr = pc.cast(arr, pa.int32())
    elif pa.types.is_timestamp(arr.type):
        arr = pc.cast(arr, pa.int64())
    return arr.to_pylist()


def null_cases():
    for t, fill in [("int32", 9), ("float64", 2.5), ("bool", True), ("string", "—"), ("uint8", 200)]:
        v = gen(t, 120) if t != "string" else gen_strings(120)
        c = col(v, t, nullable=True)
        add("is_null/" + t, "is_null", [c], out([x is None for x in v], "bool", False))
        add("is_valid/" + t, "is_valid", [c], out([x is not None for x in v], "bool", False))
        kind = "int" if t in INTS else "float" if t in FLOATS else "bool" if t == "bool" else "str"
        add("fill_null/" + t, "fill_null", [c], out([fill if x is None else x for x in v], t, False),
            value=scalar(fill, kind))
        add("drop_null/" + t, "drop_null", [c], out([x for x in v if x is not None], t))
    add("fill_null/type", "fill_null", [col([1, None], "int64")], {"error": "is not an integer"}, value=scalar("x", "str"))
    add("fill_null/range", "fill_null", [col([1, None], "int8")], {"error": "does not fit"}, value=scalar(1000, "int"))
    for t, values, kinds in [("int64", [3, 5, 1000, -1], "int"), ("float64", [1.5, 2.0, float("nan")], "float"),
                             ("string", ["abc", "Hello World", "", "nope"], "str"), ("uint8", [0, 7, 255], "int")]:
        v = gen(t, 150) if t != "string" else gen_strings(150)
        if t == "float64":
            v = [None if x is None else (float("nan") if R.random() < 0.1 else float(round(x) / 2)) for x in v]
        arr = pa.array(v, type=arrow_type(t))
        expect = pc.is_in(arr, value_set=pa.array(values, type=arrow_type(t))).to_pylist()
        add("isin/" + t, "isin", [col(v, t)], out(expect, "bool", False), values=[scalar(x, kinds) for x in values])
        vn = pc.is_in(arr, value_set=pa.array(values + [None], type=arrow_type(t)), skip_nulls=False).to_pylist()
        add("isin_null/" + t, "isin", [col(v, t)], out(vn, "bool", False),
            values=[scalar(x, kinds) for x in values] + [scalar(None, "null")])
    # filter and take
    for t in ["int64", "float32", "bool", "string", "list<int64>", "date32"]:
        n = 150
        if t == "string":
            v = gen_strings(n)
        elif t == "list<int64>":
            v = [None if R.random() < 0.1 else [R.randint(-5, 5) for _ in range(R.randint(0, 4))] for _ in range(n)]
        elif t == "date32":
            v = [None if R.random() < 0.1 else R.randint(-1000, 20000) for _ in range(n)]
        else:
            v = gen(t, n)
        m = [R.choice([True, False, True, None]) for _ in range(n)]
        add("filter/" + t, "filter", [col(v, t), col(m, "bool")], out([x for x, k in zip(v, m) if k], t))
        idx = [R.randint(-n, n - 1) if R.random() > 0.1 else None for _ in range(90)]
        add("take/" + t, "take", [col(v, t), col(idx, "int32")], out([None if i is None else v[i] for i in idx], t))
    add("filter/length", "filter", [col([1, 2], "int64"), col([True], "bool")], {"error": "the mask has 1 rows"})
    add("take/range", "take", [col([1, 2], "int64"), col([2], "int64")], {"error": "out of range"})


def cast_cases():
    combos = [("int64", "int8"), ("int64", "uint16"), ("int32", "float32"), ("float64", "int32"), ("float64", "float32"),
              ("uint64", "int64"), ("bool", "int16"), ("int16", "bool"), ("float32", "bool"), ("int8", "uint64")]
    for src, dst in combos:
        for safe in (True, False):
            if src in FLOATS:
                v = [None if x is None else (round(x) if (safe or dst == "bool") else x) for x in gen(src, 120)]
            elif src in INTS:
                v = gen(src, 120, small=not safe)
            else:
                v = gen(src, 120)
            arr = pa.array(v, type=arrow_type(src))
            try:
                expect = out(pc.cast(arr, arrow_type(dst), safe=safe).to_pylist(), dst)
            except pa.ArrowInvalid:
                expect = {"error": "cast: value"}
            add("cast/%s/%s/%s" % (src, dst, "safe" if safe else "unsafe"), "cast", [col(v, src)], expect, type=dst,
                safe=safe)
    for src in ["int64", "uint8", "float64", "float32", "bool", "date32", "timestamp[s]", "timestamp[ms]",
                "timestamp[us]", "timestamp[ns]"]:
        if src in NUMERIC or src == "bool":
            v = gen(src, 100, small=False)
            if src in FLOATS:
                v += [0.1, 1e16, 1e-7, 123456789.0, 1e10, -0.0, 2.5e-6, float("inf"), float("nan")]
                if src == "float32":
                    v = [None if x is None else float(np.float32(x)) for x in v]
        elif src == "date32":
            v = [None if R.random() < 0.1 else R.randint(-719000, 2900000) for _ in range(80)]
        else:
            # Years 1..9999 (the unit's range for ns).
            per = {"s": 1, "ms": 10 ** 3, "us": 10 ** 6, "ns": 10 ** 9}[src[10:-1]]
            lo, hi = (-62135596800 * per, 253402300799 * per) if per < 10 ** 9 else (-2 ** 63 + 1, 2 ** 63 - 1)
            v = [None if R.random() < 0.1 else R.randint(lo, hi) for _ in range(80)]
        arr = pa.array(v, type=arrow_type(src))
        add("cast/%s/string" % src, "cast", [col(v, src)], out(pc.cast(arr, pa.string()).to_pylist(), "string"),
            type="string", safe=False)
        back = src if src not in ("float32",) else "float32"
        if src in NUMERIC or src in ("bool", "date32") or src.startswith("timestamp"):
            s = pc.cast(arr, pa.string())
            add("cast/string/%s" % src, "cast", [col(s.to_pylist(), "string")],
                out(arrow_values(pc.cast(s, arrow_type(back))), back), type=back, safe=False)
    # Parsing forms pyarrow accepts.
    for t, strs in [("int32", ["12", "-7", "0", "2147483647"]), ("float64", ["1e3", "+1.5", ".5", "1.", "nan", "-Infinity", "1e400"]),
                    ("bool", ["true", "False", "1", "0", "TRUE"]),
                    ("timestamp[us]", ["2024-01-02", "2024-01-02 03:04:05", "2024-01-02T03:04:05.123456", "1969-12-31 23:59"]),
                    ("date32", ["2024-02-29", "1900-03-01", "0001-01-01"])]:
        r = pc.cast(pa.array(strs), arrow_type(t))
        add("cast/parse/" + t, "cast", [col(strs, "string")], out(arrow_values(r), t), type=t, safe=False)
    for t, good, bad in [("int64", "1", "1.0"), ("int8", "1", "300"), ("float64", "1", "abc"), ("bool", "1", "yes"),
                         ("date32", "2020-01-01", "2023-02-29"), ("timestamp[s]", "2020-01-01", "2024-01-02 03:04:05Z"),
                         ("uint8", "1", "-1")]:
        add("cast/parse_error/" + t, "cast", [col([good, None, bad], "string", offset=0)],
            {"error": "cannot parse '%s' at row 2" % bad}, type=t, safe=False)
    ts = [1500, -1500, 0, None, 86400000 * 3 + 5]
    arr = pa.array(ts, pa.timestamp("ms"))
    add("cast/ts_ms_s", "cast", [col(ts, "timestamp[ms]")],
        out(arrow_values(pc.cast(arr, pa.timestamp("s"), safe=False)), "timestamp[s]"), type="timestamp[s]", safe=False)
    add("cast/ts_ms_us", "cast", [col(ts, "timestamp[ms]")],
        out(arrow_values(pc.cast(arr, pa.timestamp("us"))), "timestamp[us]"), type="timestamp[us]", safe=True)
    add("cast/ts_date", "cast", [col(ts, "timestamp[ms]")],
        out(arrow_values(pc.cast(arr, pa.date32())), "date32"), type="date32", safe=True)
    add("cast/ts_lossy_safe", "cast", [col([1500], "timestamp[ms]", offset=0)], {"error": "would lose data"},
        type="timestamp[s]", safe=True)
    add("cast/float_nan_int", "cast", [col([1.0, float("nan")], "float64", offset=0)], {"error": "NaN at row 1"},
        type="int64", safe=False)
    add("cast/list", "cast", [col([[1, 2], None, [], [3]], "list<int64>")],
        out([[1.0, 2.0], None, [], [3.0]], "list<float64>"), type="list<float64>", safe=True)


# ---- aggregations -----------------------------------------------------------------------------

def agg_cases():
    for t in NUMERIC + ["bool"]:
        for n, null_p in [(0, 0), (1, 0), (150, 0.2), (300, 0.0), (40, 1.0)]:
            v = gen(t, n, null_p=null_p, small=t not in ("int64", "uint64"))
            c = col(v, t)
            valid = [x for x in v if x is not None]
            name = "%s/n%d_p%s" % (t, n, null_p)
            if t in INTS:
                acc = np.array(valid, dtype=np.uint64 if t.startswith("u") else np.int64)
                s = int(acc.sum()) if len(valid) else 0
                add("sum/" + name, "sum", [c], scalar(s, "int"))
            elif t == "bool":
                add("sum/" + name, "sum", [c], scalar(sum(valid), "int"))
            else:
                add("sum/" + name, "sum", [c], fscalar(float(np.array(valid, dtype=np.float64).sum()), mag * len(valid)))
            fv = np.array(valid, dtype=np.float64)
            nan = float("nan")
            # Float results are compared to a tolerance relative to the data's magnitude.
            mag = float(np.abs(fv).mean()) if len(valid) else 0.0

            def fscalar(x, scale=None):
                d = scalar(x, "float")
                d["scale"] = mag if scale is None else scale
                return d
            add("mean/" + name, "mean", [c], fscalar(float(fv.mean()) if len(valid) else nan))
            add("std/" + name, "std", [c], fscalar(float(np.std(fv, ddof=1)) if len(valid) > 1 else nan))
            add("var0/" + name, "var", [c], fscalar(float(np.var(fv, ddof=0)) if len(valid) > 0 else nan, mag * mag),
                ddof=0)
            add("median/" + name, "median", [c], fscalar(float(np.median(fv)) if len(valid) else nan))
            for q in (0.0, 0.1, 0.75, 1.0):
                add("quantile%s/%s" % (q, name), "quantile", [c],
                    fscalar(float(np.quantile(fv, q)) if len(valid) else nan), q=q)
            add("count/" + name, "count", [c], scalar(len(valid), "int"))
            mm = pc.min_max(pa.array(v, type=arrow_type(t))).as_py()
            kind = "int" if t in INTS else "float" if t in FLOATS else "bool"
            add("min/" + name, "min", [c], scalar(mm["min"], kind if mm["min"] is not None else "null"))
            add("max/" + name, "max", [c], scalar(mm["max"], kind if mm["max"] is not None else "null"))
            add("any/" + name, "any", [c], scalar(any(bool(x) for x in valid), "bool"))
            add("all/" + name, "all", [c], scalar(all(bool(x) for x in valid), "bool"))
            if valid:
                add("argmin/" + name, "argmin", [c], scalar(min((x, i) for i, x in enumerate(v) if x is not None)[1], "int"))
                top = max(valid)
                add("argmax/" + name, "argmax", [c], scalar(next(i for i, x in enumerate(v) if x == top and x is not None), "int"))
            else:
                add("argmin/" + name, "argmin", [c], {"error": "has no valid"})
            acc_t = "int64" if (t in INTS and not t.startswith("u")) or t == "bool" else "uint64" if t in INTS else t
            filled = np.array([0 if x is None else x for x in v], dtype=NP[acc_t])
            cs = np.cumsum(filled, dtype=NP[acc_t]) if n else filled
            add("cumsum/" + name, "cumsum", [c], out([None if x is None else y.item() for x, y in zip(v, cs)], acc_t))
    f = [1.0, float("nan"), None, -2.0]
    add("sum/nan", "sum", [col(f, "float64")], scalar(float("nan"), "float"))
    add("min/nan", "min", [col(f, "float64")], scalar(-2.0, "float"))
    add("max/nan", "max", [col(f, "float64")], scalar(1.0, "float"))
    add("median/nan", "median", [col(f, "float64")], scalar(-0.5, "float"))
    add("argmax/nan", "argmax", [col(f, "float64")], scalar(0, "int"))
    add("cumsum/nan", "cumsum", [col(f, "float64")], out([1.0, float("nan"), None, float("nan")], "float64"))
    sv = gen_strings(60)
    add("min/string", "min", [col(sv, "string")], scalar(min(x for x in sv if x is not None), "str"))
    add("max/string", "max", [col(sv, "string")], scalar(max(x for x in sv if x is not None), "str"))
    add("sum/string", "sum", [col(["a"], "string")], {"error": "expected a numeric or boolean column"})
    add("quantile/range", "quantile", [col([1], "int64")], {"error": "q must be in [0, 1]"}, q=1.5)


# ---- sorting and distinct values -----------------------------------------------------------------

def sort_cases():
    kinds = [("int64", lambda n: [None if R.random() < 0.15 else R.randint(-5, 5) for _ in range(n)]),
             ("uint8", lambda n: gen("uint8", n)),
             ("float64", lambda n: [None if R.random() < 0.1 else (float("nan") if R.random() < 0.1 else float(R.randint(-4, 4)) / 2)
                                    for _ in range(n)]),
             ("float32", lambda n: gen("float32", n)),
             ("bool", lambda n: gen("bool", n)),
             ("string", lambda n: gen_strings(n)),
             ("date32", lambda n: [None if R.random() < 0.1 else R.randint(0, 9) for _ in range(n)])]
    for t, g in kinds:
        for n in (0, 1, 200):
            v = g(n)
            arr = pa.array(v, type=arrow_type(t))
            c = col(v, t)
            for asc in (True, False):
                for nulls_first in (False, True):
                    idx = pc.array_sort_indices(arr, order="ascending" if asc else "descending",
                                                null_placement="at_start" if nulls_first else "at_end").to_pylist()
                    tag = "%s/n%d/%s/%s" % (t, n, "asc" if asc else "desc", "nf" if nulls_first else "nl")
                    add("argsort/" + tag, "argsort", [c], out(idx, "int64"), ascending=asc, nulls_first=nulls_first)
                    add("sort/" + tag, "sort", [c], out([v[i] for i in idx], t), ascending=asc, nulls_first=nulls_first)
            if t == "float64":
                uniq = list(OrderedDict.fromkeys(("nan" if (x is not None and x != x) else x) for x in v))
                uniq = [float("nan") if x == "nan" else x for x in uniq]
            else:
                uniq = list(OrderedDict.fromkeys(v))
            add("unique/%s/n%d" % (t, n), "unique", [c], out(uniq, t))
            for dropna in (True, False):
                counts = OrderedDict()
                for x in v:
                    k = "nan" if (t == "float64" and x is not None and x != x) else x
                    if k is None and dropna:
                        continue
                    counts[k] = counts.get(k, 0) + 1
                items = sorted(counts.items(), key=lambda kv: -kv[1])  # stable: ties stay first-seen
                vals = [float("nan") if k == "nan" else k for k, _ in items]
                add("value_counts/%s/n%d/%s" % (t, n, dropna), "value_counts", [c],
                    {"values": out(vals, t), "counts": out([c_ for _, c_ in items], "int64")}, dropna=dropna)
                add("nunique/%s/n%d/%s" % (t, n, dropna), "nunique", [c], scalar(len(counts), "int"), dropna=dropna)
    # pandas' value_counts on the same data agrees (ints, strings).
    v = [3, 1, 3, 2, 1, 3, None, None, 2]
    vc = pd.Series(v, dtype="Int64").value_counts(dropna=False)
    add("value_counts/pandas", "value_counts", [col(v, "int64")],
        {"values": out([None if x is pd.NA else int(x) for x in vc.index], "int64"), "counts": out(list(map(int, vc.values)), "int64")},
        dropna=False)


# ---- strings --------------------------------------------------------------------------------------

MASK = []  # the input column of the string case being built: its nulls give nulls


def str_list(series):
    vals = [None if (x is None or (isinstance(x, float) and math.isnan(x)) or x is pd.NA) else x for x in series]
    # pandas' NaN-backed "str" dtype answers False for missing values in predicates: nulls here.
    return [None if m is None else x for m, x in zip(MASK, vals)] if len(MASK) == len(vals) else vals


def string_cases():
    global MASK
    for n in (0, 40, 300):
        v = gen_strings(n)
        MASK = v
        t = R.choice(["string", "large_string"])
        c = col(v, t)
        s = pd.Series(v, dtype="str")
        arr = pa.array(v, type=pa.string())
        tag = "n%d" % n
        add("str.len/" + tag, "str.len", [c], out([None if x is None else int(x) for x in str_list(s.str.len())], "int64"))
        for a, b, st in [(1, 4, 1), (-3, None, 1), (None, 2, 1), (0, 10, 2), (5, 1, -2), (None, None, -1), (2, 2, 1)]:
            add("str.slice%s_%s_%s/%s" % (a, b, st, tag), "str.slice", [c],
                out(str_list(s.str.slice(a, b, st)), t), start=a, stop=b, step=st)
        for sep, mx in [("", -1), (" ", -1), (",", 1), ("", 1), ("ab", -1)]:
            r = [None if x is None else (x.split(sep or None, mx)) for x in v]
            add("str.split%r_%d/%s" % (sep, mx, tag), "str.split", [c], out(r, "list<%s>" % t), sep=sep, maxsplit=mx)
        add("str.strip/" + tag, "str.strip", [c], out(pc.utf8_trim_whitespace(arr).to_pylist(), t), chars="")
        add("str.lstrip/" + tag, "str.lstrip", [c], out(pc.utf8_ltrim_whitespace(arr).to_pylist(), t), chars="")
        add("str.rstrip/" + tag, "str.rstrip", [c], out(pc.utf8_rtrim_whitespace(arr).to_pylist(), t), chars="")
        add("str.strip_chars/" + tag, "str.strip", [c], out(pc.utf8_trim(arr, characters="aé ").to_pylist(), t), chars="aé ")
        add("str.lower/" + tag, "str.lower", [c], out(str_list(s.str.lower()), t))
        add("str.upper/" + tag, "str.upper", [c], out(str_list(s.str.upper()), t))
        for p in ["a", "É", ""]:
            add("str.startswith%r/%s" % (p, tag), "str.startswith", [c], out(str_list(s.str.startswith(p)), "bool"), pat=p)
            add("str.endswith%r/%s" % (p, tag), "str.endswith", [c], out(str_list(s.str.endswith(p)), "bool"), pat=p)
        # Regular expressions through pyarrow (RE2, as ours; pandas may switch to Python's re).
        for p, rx in [("l+", True), ("^[A-Z]", True), ("\\d{2}", True), ("ß", False), (".", False), ("", True)]:
            r = pc.match_substring_regex(arr, p).to_pylist() if rx else str_list(s.str.contains(p, regex=False))
            add("str.contains%r_%s/%s" % (p, rx, tag), "str.contains", [c], out(r, "bool"), pat=p, regex=rx)
        for p in ["β", "l", "", "World"]:
            add("str.find%r/%s" % (p, tag), "str.find", [c],
                out([None if x is None else int(x) for x in str_list(s.str.find(p))], "int64"), pat=p)
        for p, r_, rx, k in [("l", "L", False, -1), ("a", "", False, 1), ("", "-", False, -1), ("[aeiou]", "_", True, -1),
                             ("(\\d)(\\d)", "\\2\\1", True, -1), ("x*", "-", True, -1), ("s", "5", True, 1)]:
            r = (pc.replace_substring_regex(arr, p, r_, max_replacements=None if k < 0 else k).to_pylist() if rx
                 else str_list(s.str.replace(p, r_, regex=False, n=k)))
            add("str.replace%r_%r_%s_%d/%s" % (p, r_, rx, k, tag), "str.replace", [c], out(r, t), pat=p, repl=r_,
                regex=rx, n=k)
        for p in ["[a-z]+", "(?i)m", "\\s", "\\d"]:
            add("str.match%r/%s" % (p, tag), "str.match", [c],
                out(pc.match_substring_regex(arr, "^(?:%s)" % p).to_pylist(), "bool"), pat=p)
            add("str.fullmatch%r/%s" % (p, tag), "str.fullmatch", [c],
                out(pc.match_substring_regex(arr, "^(?:%s)$" % p).to_pylist(), "bool"), pat=p)
        for p in ["[a-z]+", "[0-9]", "([a-z])[a-z]"]:
            add("str.findall%r/%s" % (p, tag), "str.findall", [c],
                out([None if x is None else list(x) for x in str_list(s.str.findall(p))], "list<%s>" % t), pat=p)
        other = gen_strings(n)
        o = pd.Series(other, dtype="str")
        MASK = [None if x is None or y is None else x for x, y in zip(v, other)]
        add("str.cat/" + tag, "str.cat", [c, col(other, "string")], out(str_list(s.str.cat(o, sep="|")), t), sep="|")
        MASK = v
        add("str.cat_all/" + tag, "str.cat_all", [c], scalar(s.str.cat(sep=", "), "str"), sep=", ")
        for m in ["isalpha", "isnumeric", "isdigit", "isdecimal", "isalnum", "isspace", "islower", "isupper"]:
            add("str.%s/%s" % (m, tag), "str." + m, [c], out(str_list(getattr(s.str, m)()), "bool"))
    MASK = []
    # Case mapping and classes over whole Unicode blocks (pyarrow's utf8 kernels, as pandas 3).
    blocks = [(0x80, 0x250), (0x370, 0x530), (0x1E00, 0x2000), (0x2C00, 0x2D30), (0xA640, 0xA800), (0xFF00, 0xFF70),
              (0x10400, 0x10500), (0x1E900, 0x1E960)]
    chars = [chr(cp) for lo, hi in blocks for cp in range(lo, hi) if not (0xD800 <= cp < 0xE000)]
    words = ["".join(chars[i:i + 5]) for i in range(0, len(chars), 5)]
    arr = pa.array(words)
    c = col(words, "string")
    add("str.lower/blocks", "str.lower", [c], out(pc.utf8_lower(arr).to_pylist(), "string"))
    add("str.upper/blocks", "str.upper", [c], out(pc.utf8_upper(arr).to_pylist(), "string"))
    singles = pa.array(chars)
    cs = col(chars, "string")
    for m in ["alpha", "numeric", "digit", "decimal", "alnum", "space", "lower", "upper"]:
        add("str.is%s/blocks" % m, "str.is" + m, [cs], out(getattr(pc, "utf8_is_" + m)(singles).to_pylist(), "bool"))
    add("str.len/blocks", "str.len", [c], out([len(w) for w in words], "int64"))
    add("str.contains/bad_regex", "str.contains", [col(["a"], "string")], {"error": "invalid regular expression 'a('"},
        pat="a(", regex=True)
    add("str.findall/groups", "str.findall", [col(["a"], "string")], {"error": "has 2 groups"}, pat="(a)(b)")
    add("str.replace/bad_group", "str.replace", [col(["a"], "string")], {"error": "refers to group \\2"}, pat="(a)",
        repl="\\2", regex=True, n=-1)
    add("str/int", "str.len", [col([1], "int64")], {"error": "expected string or large_string"})


# ---- lists ------------------------------------------------------------------------------------------

def list_cases():
    for t, inner in [("list<int64>", lambda: R.randint(-9, 9) if R.random() > 0.1 else None),
                     ("list<string>", lambda: R.choice(WORDS) if R.random() > 0.05 else None)]:
        v = [None if R.random() < 0.15 else [inner() for _ in range(R.randint(0, 5))] for _ in range(120)]
        c = col(v, t)
        et = t[5:-1]
        add("list.len/" + t, "list.len", [c], out([None if x is None else len(x) for x in v], "int64"))
        for i in (0, 2, -1, -3, 9):
            add("list.get%d/%s" % (i, t), "list.get", [c],
                out([None if x is None or not (-len(x) <= i < len(x)) else x[i] for x in v], et), i=i)
        for a, b in [(1, 3), (None, 2), (-2, None), (3, 1), (-10, 10)]:
            add("list.slice%s_%s/%s" % (a, b, t), "list.slice", [c], out([None if x is None else x[a:b] for x in v], t),
                start=a, stop=b)
        arr = pa.array(v, type=pa.list_(pa.int64() if et == "int64" else pa.string()))
        add("list.flatten/" + t, "list.flatten", [c], out(pc.list_flatten(arr).to_pylist(), et))
        if et == "string":
            add("list.join/" + t, "list.join", [c], out(pc.binary_join(arr, "+").to_pylist(), "string"), sep="+")
    add("list.join/int", "list.join", [col([[1]], "list<int64>")], {"error": "expected a list of strings"}, sep=",")


def main():
    arith_cases()
    math_cases()
    compare_cases()
    null_cases()
    cast_cases()
    agg_cases()
    sort_cases()
    string_cases()
    list_cases()
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names)), [n for n in names if names.count(n) > 1][:5]
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        json.dump({"cases": cases}, f, ensure_ascii=False, allow_nan=False)


if __name__ == "__main__":
    main()
