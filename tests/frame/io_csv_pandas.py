"""CSV files and their reading by pandas.read_csv (and Python's csv module), for ember's
read_csv and write_csv to be compared with. Run by tests/frame/io_csv_pandas_test.cpp:

  python3 io_csv_pandas.py gen <dir>          writes CSV files into <dir> and <dir>/expected.json:
                                              for each file the options ember reads it with,
                                              pandas.read_csv's result with the same options
                                              (dtype_backend="pyarrow": types as pyarrow names
                                              them, values as JSON) and, for the dialect files,
                                              csv.reader's rows;
  python3 io_csv_pandas.py read <csv> <json>  pandas.read_csv of a file ember wrote, as JSON.

Values are encoded as in io_ipc_pyarrow.py: floats as repr strings, timestamps as integer
counts of their unit, nulls as null.
"""
import csv
import io
import json
import os
import random
import sys

import pandas as pd
import pyarrow as pa


def enc(v, t):
    if v is None:
        return None
    if pa.types.is_timestamp(t):
        return v  # already an integer count (see describe)
    if pa.types.is_floating(t):
        return repr(float(v))
    return v


def describe(df):
    table = pa.Table.from_pandas(df, preserve_index=False)
    cols = []
    for i, f in enumerate(table.schema):
        col = table.column(i)
        if pa.types.is_timestamp(f.type):
            values = col.cast(pa.int64()).to_pylist()
        else:
            values = col.to_pylist()
        cols.append({"name": f.name, "type": str(f.type), "values": [enc(v, f.type) for v in values]})
    return cols


def pandas_read(path, o, parse_dates=()):
    kw = dict(dtype_backend="pyarrow", engine="c", sep=o.get("delimiter", ","))
    if "quotechar" in o:
        kw["quotechar"] = o["quotechar"]
    if "escapechar" in o:
        kw["escapechar"] = o["escapechar"]
    if "doublequote" in o:
        kw["doublequote"] = o["doublequote"]
    if o.get("skipinitialspace"):
        kw["skipinitialspace"] = True
    if "null_values" in o:
        kw["keep_default_na"] = False
        kw["na_values"] = o["null_values"]
    if o.get("header") is False:
        kw["header"] = None
        if "column_names" in o:
            kw["names"] = o["column_names"]
    if "skip_rows" in o:
        kw["skiprows"] = o["skip_rows"]
    if parse_dates:
        kw["parse_dates"] = list(parse_dates)
    return pd.read_csv(path, **kw)


def r6(rng):
    """A float as pandas would write it (repr), over many magnitudes."""
    return repr(rng.gauss(0, 1) * 10.0 ** rng.randint(-12, 12))


def gen(d):
    rng = random.Random(20240611)
    files = []

    def add(name, text, options, parse_dates=(), python_rows=False):
        path = os.path.join(d, name)
        with open(path, "w", newline="", encoding="utf-8") as f:
            f.write(text)
        entry = {"name": name, "options": options, "parse_dates": list(parse_dates),
                 "pandas": describe(pandas_read(path, options, parse_dates))}
        if python_rows:
            kw = {"delimiter": options.get("delimiter", ","), "quotechar": options.get("quotechar", '"'),
                  "doublequote": options.get("doublequote", True),
                  "skipinitialspace": options.get("skipinitialspace", False)}
            if "escapechar" in options:
                kw["escapechar"] = options["escapechar"]
            with open(path, newline="", encoding="utf-8") as f:
                entry["rows"] = [r for r in csv.reader(f, **kw) if r]
        files.append(entry)

    # Numbers: ints with nulls, floats of every magnitude (some written as ints), big
    # unsigned values, negative zero, surrounding spaces.
    lines = ["i,f,mixed,big,spaced"]
    for k in range(20000):
        i = "" if k % 17 == 0 else str(rng.randint(-10 ** 12, 10 ** 12))
        f = r6(rng)
        mixed = str(rng.randint(-50, 50)) if k % 3 else r6(rng)
        big = str(2 ** 63 + rng.randint(0, 2 ** 62)) if k % 5 else str(rng.randint(0, 100))
        spaced = " %d " % rng.randint(-99, 99)
        lines.append(",".join([i, f, mixed, big, spaced]))
    add("numbers.csv", "\n".join(lines) + "\n", {})

    # Strings: quotes, delimiters and line breaks inside quotes, unicode, null spellings.
    pool = ["plain", "with space", "a,b", 'say "hi"', "line\nbreak", "caf\u00e9", "\u65e5\u672c", "NA", "", "null",
            "N/A", "x" * 50, "tab\there", "cr\r\nlf"]
    lines = ["k,s,t"]
    for k in range(5000):
        cells = [str(k)]
        for _ in range(2):
            v = rng.choice(pool)
            cells.append('"' + v.replace('"', '""') + '"' if any(c in v for c in ',"\n\r') or rng.random() < 0.2 else v)
        lines.append(",".join(cells))
    add("strings.csv", "\r\n".join(lines) + "\r\n", {})

    # Booleans with nulls; a column of only nulls.
    lines = ["b,n"]
    for k in range(3000):
        lines.append(",".join([rng.choice(["True", "False", "true", "FALSE", ""]), ""]))
    add("bools.csv", "\n".join(lines) + "\n", {})

    # Dates and timestamps (pandas parses them when asked; ember infers them).
    lines = ["d,ts,tms"]
    for k in range(3000):
        y, m, day = rng.randint(1900, 2100), rng.randint(1, 12), rng.randint(1, 28)
        hh, mm, ss = rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)
        d_ = "%04d-%02d-%02d" % (y, m, day) if k % 11 else ""
        ts = "%04d-%02d-%02d %02d:%02d:%02d" % (y, m, day, hh, mm, ss)
        tms = "%sT%02d:%02d:%02d.%03d" % (d_ or "2000-01-01", hh, mm, ss, rng.randint(0, 999))
        lines.append(",".join([d_, ts, tms]))
    add("dates.csv", "\n".join(lines) + "\n", {}, parse_dates=["d", "ts", "tms"])

    # Several megabytes, for ember's chunks and threads.
    lines = ["key,value,s,q"]
    for k in range(120000):
        lines.append("%d,%s,%s,%s" % (rng.randint(0, 999), r6(rng), rng.choice(["alpha", "beta", "gamma", ""]),
                                      '"multi\nline, %d"' % k if k % 1000 == 7 else "q%d" % (k % 13)))
    add("big.csv", "\n".join(lines) + "\n", {"chunk_bytes": 65536})

    # Dialects, with Python's csv.reader rows to compare the tokens with.
    body = ["a;b;c", "'x;y'; 'it''s'; 1", "z\\;w;  v;2", "'q';'';3"]
    add("semicolon.csv", "\n".join(body) + "\n",
        {"delimiter": ";", "quotechar": "'", "escapechar": "\\", "skipinitialspace": True}, python_rows=True)
    body = ["1\tone\t", "2\t\"two\"\t2.5", "3\tthree\t-1"]
    add("noheader.tsv", "\n".join(body) + "\n",
        {"delimiter": "\t", "header": False, "column_names": ["n", "word", "x"]}, python_rows=True)
    body = ["# a comment line", "# another", "a,b", "-,1", "missing,2", "3,-"]
    add("nulls.csv", "\n".join(body) + "\n", {"skip_rows": 2, "null_values": ["-", "missing"]})
    body = ['a,b', '"x ""quoted"" \\"esc\\"",1', '"\\\\",2']
    add("escapes.csv", "\n".join(body) + "\n", {"escapechar": "\\"}, python_rows=True)

    with open(os.path.join(d, "expected.json"), "w") as f:
        json.dump(files, f)
    print("DONE", flush=True)


def read(path, out):
    with open(out, "w") as f:
        json.dump(describe(pandas_read(path, {})), f)
    print("DONE", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        read(sys.argv[2], sys.argv[3])
