#!/usr/bin/env python3
"""The pandas and polars side of the ember::frame benchmark (issue 6, "Speed"); see
bench/frame_bench.sh, which runs this next to bench/frame_bench.cpp on the same data.

  frame_bench.py gen DIR [ROWS]     writes the data once (deterministic): DIR/k.i64,
                                    DIR/v.f64, DIR/s.off (int32 offsets), DIR/s.bytes and
                                    DIR/data.csv (the same rows as CSV)
  frame_bench.py pandas|polars DIR [REPEATS] [FILTER]
                                    one line per case: name, best seconds, result rows,
                                    checksum (tab-separated)

The in-memory cases start from frames built from the binary files (no parsing timed); only
the "read_csv" case parses. Threads: polars takes POLARS_MAX_THREADS from the environment
(the script sets 2); pandas runs single-threaded as it does by default.
"""
import os
import sys
import time

import numpy as np

WORDS = ["alpha", "Beta", "GAMMA", "delta", "Epsilon", "zeta", "Eta", "THETA"]
KEYS = 1000
LOWER_ROWS = 1_000_000


def gen(d, n):
    import pyarrow as pa
    import polars as pl

    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(6)
    k = rng.integers(0, KEYS, n, dtype=np.int64)
    v = rng.random(n)
    r = rng.integers(0, 8 * 100, n)
    # Short mixed-case ASCII strings, "Beta17": 800 distinct values.
    table = pa.array([w + str(i) for w in WORDS for i in range(100)], pa.string())
    s = table.take(pa.array(r))
    k.tofile(os.path.join(d, "k.i64"))
    v.tofile(os.path.join(d, "v.f64"))
    _, offsets, data = s.buffers()
    np.frombuffer(offsets, np.int32, n + 1).tofile(os.path.join(d, "s.off"))
    with open(os.path.join(d, "s.bytes"), "wb") as f:
        f.write(memoryview(data)[: int(np.frombuffer(offsets, np.int32, n + 1)[-1])])
    # polars writes floats as their shortest round-trip text (as Python's repr).
    pl.DataFrame({"k": k, "v": v, "s": pl.from_arrow(s)}).write_csv(os.path.join(d, "data.csv"))


def load_arrow(d):
    import pyarrow as pa

    k = np.fromfile(os.path.join(d, "k.i64"), np.int64)
    v = np.fromfile(os.path.join(d, "v.f64"), np.float64)
    off = np.fromfile(os.path.join(d, "s.off"), np.int32)
    data = np.fromfile(os.path.join(d, "s.bytes"), np.uint8)
    s = pa.StringArray.from_buffers(len(k), pa.py_buffer(off), pa.py_buffer(data))
    return k, v, s


def best(f, repeats):
    # At least `repeats` runs and, for fast cases, until MIN_SECONDS have passed (at most
    # 100 runs), as frame_bench.cpp does.
    min_seconds = float(os.environ.get("MIN_SECONDS", "1.0"))
    out, t, total, r = None, float("inf"), 0.0, 0
    while r < repeats or (total < min_seconds and r < 100):
        out = None  # the previous result is freed outside the timing
        t0 = time.perf_counter()
        out = f()
        dt = time.perf_counter() - t0
        t, total, r = min(t, dt), total + dt, r + 1
    return t, out


def g(x):
    return f"{float(x):.10g}"


def run_pandas(d, repeats, filt):
    import pandas as pd

    k, v, s = load_arrow(d)
    # The string dtype pandas 3 gives read_csv's string columns (pyarrow storage).
    df = pd.DataFrame({"k": k, "v": v, "s": pd.Series(s, dtype=pd.StringDtype("pyarrow", na_value=np.nan))})
    right = pd.DataFrame({"k": np.arange(KEYS, dtype=np.int64), "w": np.arange(KEYS) * 0.25})
    s1m = df["s"].iloc[:LOWER_ROWS]
    cases = {
        "filter": (lambda: df[df["v"] > 0.5],
                   lambda r: (len(r), f"sum_k={int(r['k'].sum())}")),
        "groupby_mean": (lambda: df.groupby("k")["v"].mean(),
                         lambda r: (len(r), f"sum_mean={g(r.sum())} mean[7]={g(r.loc[7])}")),
        "sort": (lambda: df.sort_values("v"),
                 lambda r: (len(r), f"k[n/2]={int(r['k'].iloc[len(r) // 2])} v[n/2]={g(r['v'].iloc[len(r) // 2])}"
                            f" s[n/2]={r['s'].iloc[len(r) // 2]}")),
        "join": (lambda: df.merge(right, on="k", how="inner"),
                 lambda r: (len(r), f"sum_w={g(r['w'].sum())} k[1]={int(r['k'].iloc[1])}")),
        "str_lower_1M": (lambda: s1m.str.lower(),
                         lambda r: (len(r), f"bytes={int(r.str.len().sum())} s[3]={r.iloc[3]}")),
        "read_csv": (lambda: pd.read_csv(os.path.join(d, "data.csv")),
                     lambda r: (len(r), f"sum_k={int(r['k'].sum())} s[3]={r['s'].iloc[3]}")),
    }
    report(cases, repeats, filt)


def run_polars(d, repeats, filt):
    import polars as pl

    k, v, s = load_arrow(d)
    df = pl.DataFrame({"k": k, "v": v, "s": pl.from_arrow(s)})
    right = pl.DataFrame({"k": np.arange(KEYS, dtype=np.int64), "w": np.arange(KEYS) * 0.25})
    s1m = df["s"].head(LOWER_ROWS)
    cases = {
        "filter": (lambda: df.filter(pl.col("v") > 0.5),
                   lambda r: (r.height, f"sum_k={int(r['k'].sum())}")),
        # pandas and ember give the groups in key order; polars' default is hash order, and
        # ordering 1,000 groups is noise next to the grouping, so its default is kept.
        "groupby_mean": (lambda: df.group_by("k").agg(pl.col("v").mean()),
                         lambda r: (r.height, f"sum_mean={g(r['v'].sum())}"
                                    f" mean[7]={g(r.filter(pl.col('k') == 7)['v'][0])}")),
        "sort": (lambda: df.sort("v"),
                 lambda r: (r.height, f"k[n/2]={int(r['k'][r.height // 2])} v[n/2]={g(r['v'][r.height // 2])}"
                            f" s[n/2]={r['s'][r.height // 2]}")),
        # maintain_order="left": the row order of pandas' inner merge and of ember's join.
        "join": (lambda: df.join(right, on="k", how="inner", maintain_order="left"),
                 lambda r: (r.height, f"sum_w={g(r['w'].sum())} k[1]={int(r['k'][1])}")),
        "str_lower_1M": (lambda: s1m.str.to_lowercase(),
                         lambda r: (len(r), f"bytes={int(r.str.len_bytes().sum())} s[3]={r[3]}")),
        "read_csv": (lambda: pl.read_csv(os.path.join(d, "data.csv")),
                     lambda r: (r.height, f"sum_k={int(r['k'].sum())} s[3]={r['s'][3]}")),
    }
    report(cases, repeats, filt)


def report(cases, repeats, filt):
    for name, (f, check) in cases.items():
        if filt and filt not in name:
            continue
        t, r = best(f, repeats)
        rows, checksum = check(r)
        print(f"{name}\t{t:.6f}\t{rows}\t{checksum}", flush=True)
        del r


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    what, d = sys.argv[1], sys.argv[2]
    if what == "gen":
        gen(d, int(sys.argv[3]) if len(sys.argv) > 3 else 10_000_000)
        return
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    filt = sys.argv[4] if len(sys.argv) > 4 else ""
    {"pandas": run_pandas, "polars": run_polars}[what](d, repeats, filt)


if __name__ == "__main__":
    main()
