"""Reference results for ember::frame's relational operations, computed with pandas.

Usage: python3 relational_pandas.py OUT.json

Generates frames with nulls, several key types and strings (seeded, so the output is
deterministic), runs pandas' sort_values, groupby().agg, merge, drop_duplicates, describe and
boolean filtering on them, and writes the frames and the expected results (values and row
order) as JSON for tests/frame/relational_pandas_test.cpp. Conventions where ember differs
from pandas on purpose are applied here (see Note [Relational semantics] in
ember/frame/relational/relational.h): joins never match null keys, agg outputs are named
"<column>.<aggregation>", per-key null placement in sorts.
"""
import json
import math
import random
import sys

import numpy as np
import pandas as pd

PD_DTYPES = {
    "int64": "Int64", "int32": "Int32", "uint8": "UInt8", "float64": "Float64",
    "float32": "Float32", "bool": "boolean", "string": "string",
}


def jvalue(v):
    if v is None or v is pd.NA:
        return None
    if isinstance(v, (list, tuple, np.ndarray)):
        return [jvalue(x) for x in v]
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return None if math.isnan(v) else float(v)
    return str(v)


class Frame:
    """Columns as Python lists (None for null) plus their dtypes."""

    def __init__(self, columns):
        self.columns = columns  # [(name, dtype, nullable, values)]

    def to_pandas(self):
        return pd.DataFrame({n: pd.array(v, dtype=PD_DTYPES[t]) for n, t, _, v in self.columns})

    def values(self, name):
        for n, _, _, v in self.columns:
            if n == name:
                return v
        raise KeyError(name)

    def json(self):
        return {"columns": [{"name": n, "dtype": t, "nullable": nb, "values": [jvalue(x) for x in v]}
                            for n, t, nb, v in self.columns]}


def frame_json(df):
    """A pandas result as JSON columns (names and values; nulls as None)."""
    return {"columns": [{"name": str(c), "values": [jvalue(x) for x in df[c].tolist()]} for c in df.columns]}


def maybe(rng, p, v):
    return None if rng.random() < p else v


WORDS = ["apple", "banana", "cherry", "date", "", "a much longer string value", "\u00fcn\u00efc\u00f6de",
         "prefix_common_1", "prefix_common_2", "prefix_common_10", "prefix_c", "prefix_co", "Zebra"]


def make_a(rng, n):
    cols = [
        ("id", "int64", False, list(range(n))),
        ("k1", "int64", True, [maybe(rng, 0.06, rng.randint(0, 30)) for _ in range(n)]),
        ("k2", "string", True, [maybe(rng, 0.05, rng.choice(WORDS)) for _ in range(n)]),
        ("k3", "int32", True, [maybe(rng, 0.05, rng.randint(-3, 3)) for _ in range(n)]),
        ("b", "bool", True, [maybe(rng, 0.1, rng.random() < 0.4) for _ in range(n)]),
        ("f", "float64", True, [maybe(rng, 0.08, rng.choice([round(rng.gauss(0, 10), 1), 0.0, -0.0,
                                                              rng.gauss(0, 1e6)])) for _ in range(n)]),
        ("g", "float32", True, [maybe(rng, 0.08, float(np.float32(rng.gauss(0, 3)))) for _ in range(n)]),
        ("u", "uint8", True, [maybe(rng, 0.04, rng.randint(0, 255)) for _ in range(n)]),
        ("s", "string", False, ["".join(rng.choice("abcxyz") for _ in range(rng.randint(0, 12))) for _ in range(n)]),
    ]
    return Frame(cols)


def make_big(rng, n):
    return Frame([
        ("id", "int64", False, list(range(n))),
        ("k", "int64", True, [maybe(rng, 0.02, rng.randint(0, 999)) for _ in range(n)]),
        ("f", "float64", False, [rng.gauss(0, 1) for _ in range(n)]),
        ("s", "string", True, [maybe(rng, 0.02, "s%d" % rng.randint(0, 5000)) for _ in range(n)]),
    ])


def sort_key_value(v):
    return 0.0 if isinstance(v, float) and v == 0 else v


def python_sort(frame, by, ascending, nulls_first):
    """Stable sort by several keys with per-key direction and null placement (LSD over keys)."""
    n = len(frame.columns[0][3])
    idx = list(range(n))
    for name, asc, first in reversed(list(zip(by, ascending, nulls_first))):
        vals = frame.values(name)
        valid = [i for i in idx if vals[i] is not None]
        nulls = [i for i in idx if vals[i] is None]
        valid.sort(key=lambda i: sort_key_value(vals[i]), reverse=not asc)  # reverse keeps stability
        idx = nulls + valid if first else valid + nulls
    return idx


def main():
    out_path = sys.argv[1]
    rng = random.Random(20240607)
    frames = {"A": make_a(rng, 3000), "B": make_big(rng, 140000)}
    pdf = {k: f.to_pandas() for k, f in frames.items()}
    cases = []

    # ---- sort: pandas' stable sort with one na_position for all keys ----
    for name, by, asc, na in [
        ("k1_asc_last", ["k1"], [True], "last"),
        ("k1_desc_first", ["k1"], [False], "first"),
        ("k2_k1", ["k2", "k1"], [True, False], "last"),
        ("f_first", ["f"], [True], "first"),
        ("f_desc", ["f"], [False], "last"),
        ("g_desc", ["g"], [False], "last"),
        ("u_b_k3", ["u", "b", "k3"], [False, True, True], "first"),
        ("s_asc", ["s"], [True], "last"),
        ("s_desc", ["s"], [False], "last"),
        ("k2_desc_first", ["k2"], [False], "first"),
        ("k3_s_f", ["k3", "s", "f"], [True, False, True], "last"),
        ("b_g", ["b", "g"], [False, True], "first"),
    ]:
        df = pdf["A"].sort_values(by, ascending=asc, na_position=na, kind="stable")
        cases.append({"op": "sort", "name": name, "frame": "A", "by": by, "ascending": asc,
                      "nulls_first": [na == "first"] * len(by), "expect_ids": [int(x) for x in df["id"]]})
    # Per-key null placement: Python's stable sorts as the reference.
    for name, by, asc, nf in [
        ("mixed_nulls", ["k3", "k2", "f"], [True, False, True], [True, False, True]),
        ("mixed_nulls2", ["b", "k1"], [True, True], [False, True]),
    ]:
        cases.append({"op": "sort", "name": name, "frame": "A", "by": by, "ascending": asc, "nulls_first": nf,
                      "expect_ids": python_sort(frames["A"], by, asc, nf)})
    for name, by, asc, na in [
        ("big_f_desc", ["f"], [False], "last"),
        ("big_k_f", ["k", "f"], [True, True], "first"),
        ("big_s_k", ["s", "k"], [True, False], "last"),
    ]:
        df = pdf["B"].sort_values(by, ascending=asc, na_position=na, kind="stable")
        cases.append({"op": "sort", "name": name, "frame": "B", "by": by, "ascending": asc,
                      "nulls_first": [na == "first"] * len(by), "expect_ids": [int(x) for x in df["id"]]})

    # ---- groupby(...).agg ----
    def groupby_case(name, frame, keys, spec, sort, dropna):
        df = pdf[frame].copy()
        # Sums, means and stds of float32 columns in float64 (ember accumulates in float64).
        for c in df.columns:
            if str(df[c].dtype) == "Float32":
                df[c] = df[c].astype("Float64")
        pandas_spec = {c: [a if a != "list" else list for a in aggs] for c, aggs in spec.items()}
        res = df.groupby(keys, sort=sort, dropna=dropna).agg(pandas_spec)
        res.columns = ["%s.%s" % (c, a if isinstance(a, str) else "list") for c, a in res.columns]
        res = res.reset_index()
        # float32 min/max/first/last are float32 values: compare them as such (they are exact).
        cases.append({"op": "groupby", "name": name, "frame": frame, "keys": keys,
                      "spec": [[c, aggs] for c, aggs in spec.items()], "sort": sort, "dropna": dropna,
                      "expect": frame_json(res)})

    num_aggs = ["sum", "mean", "min", "max", "count", "std", "first", "last", "size"]
    groupby_case("k1", "A", ["k1"], {"f": num_aggs, "k3": ["sum", "mean", "min", "max", "list"],
                                      "s": ["min", "max", "first", "last", "count"], "b": ["sum", "mean", "min", "max"]},
                 True, True)
    groupby_case("k2_k3_unsorted_nulls", "A", ["k2", "k3"],
                 {"f": ["sum", "mean", "std", "count", "size", "first", "last"], "u": ["sum", "min", "max", "list"],
                  "g": ["mean", "min", "max"]}, False, False)
    groupby_case("k2_k3_sorted_nulls", "A", ["k2", "k3"], {"f": ["sum", "count"], "k1": ["max", "first"]}, True, False)
    groupby_case("s", "A", ["s"], {"f": ["mean", "max"], "k2": ["min", "max", "count", "last"]}, True, True)
    groupby_case("b_nulls", "A", ["b"], {"f": ["sum", "mean", "std"], "k1": ["sum", "min", "max"]}, True, False)
    groupby_case("f_key_unsorted", "A", ["f"], {"k1": ["sum", "count", "size"]}, False, True)
    groupby_case("u_k2", "A", ["u", "k2"], {"k1": ["sum", "mean"], "id": ["first", "last", "size"]}, True, False)
    groupby_case("big_k", "B", ["k"], {"f": ["mean", "sum", "std", "min", "max", "count", "first", "last"],
                                       "s": ["min", "max"]}, True, True)
    groupby_case("big_k_unsorted", "B", ["k"], {"f": ["mean", "size"]}, False, False)
    groupby_case("big_s", "B", ["s"], {"f": ["mean", "size"], "k": ["max"]}, True, False)

    # ---- join (merge): null keys replaced by unique sentinels so that they never match ----
    lrng = random.Random(7)
    nl, nr = 400, 300
    L = Frame([
        ("lid", "int64", False, list(range(nl))),
        ("k1", "int64", True, [maybe(lrng, 0.06, lrng.randint(0, 50)) for _ in range(nl)]),
        ("k2", "string", True, [maybe(lrng, 0.06, lrng.choice(WORDS)) for _ in range(nl)]),
        ("v", "float64", True, [maybe(lrng, 0.1, lrng.gauss(0, 1)) for _ in range(nl)]),
        ("lv", "string", True, [maybe(lrng, 0.1, lrng.choice(WORDS)) for _ in range(nl)]),
    ])
    R = Frame([
        ("rid", "int64", False, list(range(nr))),
        ("k2", "string", True, [maybe(lrng, 0.06, lrng.choice(WORDS)) for _ in range(nr)]),
        ("v", "float64", True, [maybe(lrng, 0.1, lrng.gauss(0, 1)) for _ in range(nr)]),
        ("k1", "int64", True, [maybe(lrng, 0.06, lrng.randint(10, 70)) for _ in range(nr)]),
        ("rk", "int64", True, [maybe(lrng, 0.06, lrng.randint(0, 50)) for _ in range(nr)]),
        ("rv", "bool", True, [maybe(lrng, 0.1, lrng.random() < 0.5) for _ in range(nr)]),
    ])
    frames["L"], frames["R"] = L, R
    BIG = 10 ** 12

    def sentinelized(frame, keys, side):
        df = frame.to_pandas()
        vals = {k: frame.values(k) for k in keys}
        n = len(frame.columns[0][3])
        for k in keys:
            t = [t for nm, t, _, _ in frame.columns if nm == k][0]
            col = []
            for i in range(n):
                if any(vals[kk][i] is None for kk in keys):
                    col.append(BIG + side * 10 ** 6 + i if t != "string" else "\U0010ffff%d%08d" % (side, i))
                else:
                    col.append(vals[k][i])
            df[k] = pd.array(col, dtype=PD_DTYPES[t] if t == "string" else "Int64")
        return df

    def join_case(name, how, on=None, left_on=None, right_on=None, suffixes=("_x", "_y")):
        lkeys = on or left_on
        rkeys = on or right_on
        ldf, rdf = sentinelized(L, lkeys, 0), sentinelized(R, rkeys, 1)
        if on:
            res = ldf.merge(rdf, how=how, on=on, suffixes=suffixes, sort=False)
        else:
            res = ldf.merge(rdf, how=how, left_on=left_on, right_on=right_on, suffixes=suffixes, sort=False)
        lid = [None if x is pd.NA else int(x) for x in res["lid"].tolist()]
        rid = [None if x is pd.NA else int(x) for x in res["rid"].tolist()]
        # Restore the key columns' original values (the sentinels stood for nulls). A key
        # named alike on both sides is one column (the left value, else the right one); other
        # keys are their side's column, suffixed when the other side has that name too.
        lcols = [c[0] for c in L.columns]
        rcols = [c[0] for c in R.columns]
        for i, (lk, rk) in enumerate(zip(lkeys, rkeys)):
            if lk == rk:
                res[lk] = pd.Series([L.values(lk)[a] if a is not None else R.values(rk)[b] for a, b in zip(lid, rid)],
                                    dtype="object")
                continue
            lname = lk + suffixes[0] if lk in rcols and lk not in rkeys else lk
            rname = rk + suffixes[1] if rk in lcols and rk not in lkeys else rk
            res[lname] = pd.Series([L.values(lk)[a] if a is not None else None for a in lid], dtype="object")
            res[rname] = pd.Series([R.values(rk)[b] if b is not None else None for b in rid], dtype="object")
        cases.append({"op": "join", "name": name, "how": how, "on": on or [], "left_on": left_on or [],
                      "right_on": right_on or [], "suffixes": list(suffixes), "expect": frame_json(res)})

    for how in ["inner", "left", "right", "outer"]:
        join_case("k1_" + how, how, on=["k1"])
        join_case("k1_k2_" + how, how, on=["k1", "k2"])
        join_case("k2_" + how, how, on=["k2"])
        join_case("lon_ron_" + how, how, left_on=["k1"], right_on=["rk"])
    join_case("suffixes", "left", on=["k2"], suffixes=("_l", "_r"))
    join_case("lon_ron_multi", "outer", left_on=["k1", "k2"], right_on=["rk", "k2"])

    # ---- drop_duplicates (nulls equal), where, describe ----
    for subset, keep in [(["k1", "k3"], "first"), (["k1", "k3"], "last"), (["k1", "k3"], False),
                         (["k2"], "first"), (["k2", "b", "k3"], False), (["s"], "last")]:
        df = pdf["A"].drop_duplicates(subset=subset, keep=keep)
        cases.append({"op": "drop_duplicates", "name": "_".join(subset) + "_" + str(keep).lower(), "frame": "A",
                      "subset": subset, "keep": "none" if keep is False else keep,
                      "expect_ids": [int(x) for x in df["id"]]})
    mask = pdf["A"]["b"].fillna(False).astype(bool)
    cases.append({"op": "where", "name": "b", "frame": "A", "mask": "b",
                  "expect_ids": [int(x) for x in pdf["A"][mask]["id"]]})
    for frame, pct in [("A", [0.25, 0.5, 0.75]), ("A", [0.1, 0.333, 0.9]), ("B", [0.05, 0.95])]:
        df = pdf[frame].copy()
        for c in df.columns:
            if str(df[c].dtype) == "Float32":
                df[c] = df[c].astype("Float64")
        res = df.describe(percentiles=pct)
        res.insert(0, "metric", res.index.astype(str))
        cases.append({"op": "describe", "name": frame + "_" + "_".join(map(str, pct)), "frame": frame,
                      "percentiles": pct, "expect": frame_json(res.reset_index(drop=True))})

    with open(out_path, "w", encoding="utf-8") as f:
        json.dump({"pandas": pd.__version__, "frames": {k: v.json() for k, v in frames.items()}, "cases": cases}, f,
                  ensure_ascii=False)


if __name__ == "__main__":
    main()
