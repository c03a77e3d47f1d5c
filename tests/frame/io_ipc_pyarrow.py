"""Arrow IPC files and streams between ember::frame and pyarrow, pandas and polars.

Run by tests/frame/io_ipc_pyarrow_test.cpp:

  python3 io_ipc_pyarrow.py check <dir>   reads the files ember wrote into <dir> with pyarrow
                                          (open_file, open_stream, feather.read_table), pandas
                                          (read_feather) and polars (read_ipc, read_ipc_stream)
                                          and compares them with the tables spelled below;
  python3 io_ipc_pyarrow.py write <dir>   writes files with pyarrow, pandas and polars for ember
                                          to read, and <dir>/manifest.json describing each one
                                          (schema as pyarrow prints it, values as JSON).

Every check prints "OK <section>:<name>" or "FAIL <section>:<name>: <detail>"; the last line
is "DONE <ok> <failed>". The tables are spelled independently of the C++ side, with
pyarrow's own constructors (io_ipc_pyarrow_test.cpp spells the same data with ember's).
"""
import io
import json
import os
import sys
import traceback

import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.ipc as ipc

ok_count = 0
fail_count = 0


def check(name, cond, detail=""):
    global ok_count, fail_count
    if cond:
        ok_count += 1
        print("OK " + name, flush=True)
    else:
        fail_count += 1
        print("FAIL " + name + ": " + str(detail).replace("\n", " | ")[:2000], flush=True)
    return cond


def attempt(name, fn):
    """Runs fn(); an exception is a failed check named `name`."""
    try:
        fn()
    except BaseException as e:  # polars raises pyo3 PanicException, a BaseException
        check(name, False, "%s: %s | %s" % (type(e).__name__, e, traceback.format_exc()[-1500:]))


def field(name, t, nullable=True):
    return pa.field(name, t, nullable=nullable)


def ts(values, unit, tz=None):
    return pa.array(values, pa.int64()).cast(pa.timestamp(unit, tz=tz))


# ---- the tables both sides spell (all_types_frame() etc. in io_ipc_pyarrow_test.cpp) ----------

def all_types_table():
    point = pa.struct([field("x", pa.int64()), field("tags", pa.list_(field("item", pa.string(), False)), False)])
    cols = [
        (field("bool", pa.bool_()), pa.array([True, None, False, True, False])),
        (field("int8", pa.int8(), False), pa.array([-128, 127, 0, 1, -1], pa.int8())),
        (field("int16", pa.int16()), pa.array([1, None, -32768, 32767, 0], pa.int16())),
        (field("int32", pa.int32(), False), pa.array([2 ** 31 - 1, -2 ** 31, 0, 5, 6], pa.int32())),
        (field("int64", pa.int64()), pa.array([2 ** 63 - 1, None, -2 ** 63, 7, 8], pa.int64())),
        (field("uint8", pa.uint8(), False), pa.array([0, 255, 1, 2, 3], pa.uint8())),
        (field("uint16", pa.uint16()), pa.array([65535, None, 0, 1, 2], pa.uint16())),
        (field("uint32", pa.uint32(), False), pa.array([4294967295, 0, 1, 2, 3], pa.uint32())),
        (field("uint64", pa.uint64()), pa.array([2 ** 64 - 1, 0, None, 2 ** 63, 1], pa.uint64())),
        (field("float32", pa.float32()), pa.array([0.5, -1.25, None, float("inf"), 3.0], pa.float32())),
        (field("float64", pa.float64(), False), pa.array([0.1, -2.5e300, 5e-324, float("-inf"), 0.0], pa.float64())),
        (field("string", pa.string()), pa.array(["a", None, "", "\u00e9t\u00e9 \u2603", "x,y\n\"z\""], pa.string())),
        (field("large_string", pa.large_string(), False), pa.array(["xy", "z", "", "w", "\u00e9"], pa.large_string())),
        (field("binary", pa.binary()), pa.array([b"\x00\x01", None, b"", b"\xff", b"abc"], pa.binary())),
        (field("large_binary", pa.large_binary()), pa.array([b"q", b"", None, b"\x00", b"r"], pa.large_binary())),
        (field("date32", pa.date32()), pa.array([0, 19358, None, -1, 2932896], pa.int32()).cast(pa.date32())),
        (field("ts_s", pa.timestamp("s")), ts([-1, 0, None, 1700000000, 86400], "s")),
        (field("ts_ms_utc", pa.timestamp("ms", tz="UTC"), False), ts([0, 1, 2, 3, 1700000000123], "ms", "UTC")),
        (field("ts_us_ny", pa.timestamp("us", tz="America/New_York")), ts([0, None, 1, 2, 3], "us", "America/New_York")),
        (field("ts_ns_kolkata", pa.timestamp("ns", tz="Asia/Kolkata")), ts([1, 2, 3, None, 5], "ns", "Asia/Kolkata")),
        (field("list", pa.list_(pa.int64())), pa.array([[1, 2], None, [], [None, 3], [4]], pa.list_(pa.int64()))),
        (field("large_list", pa.large_list(field("item", pa.string(), False)), False),
         pa.array([["a"], ["b", "c"], [], ["d"], ["e", "f", "g"]], pa.large_list(field("item", pa.string(), False)))),
        (field("list_list", pa.list_(pa.list_(pa.int32()))),
         pa.array([[[1], []], None, [[2, 3]], [], [None]], pa.list_(pa.list_(pa.int32())))),
        (field("struct", pa.struct([field("a", pa.int64(), False), field("b", pa.string())])),
         pa.array([{"a": 1, "b": "x"}, None, {"a": 3, "b": None}, {"a": 4, "b": "w"}, {"a": 5, "b": ""}],
                  pa.struct([field("a", pa.int64(), False), field("b", pa.string())]))),
        (field("map", pa.map_(pa.string(), pa.int64())),
         pa.array([[("k", 1), ("l", None)], None, [], [("m", 3)], [("n", 4), ("o", 5)]], pa.map_(pa.string(), pa.int64()))),
        (field("nested", pa.list_(field("item", point))),
         pa.array([[{"x": 1, "tags": ["a", "b"]}, None], [], None, [{"x": None, "tags": []}], [{"x": 2, "tags": ["c"]}]],
                  pa.list_(field("item", point)))),
        (field("dict", pa.dictionary(pa.int32(), pa.string())),
         pa.DictionaryArray.from_arrays(pa.array([0, 1, None, 0, 2], pa.int32()), pa.array(["red", "green", "blue"]))),
        (field("dict8_ordered", pa.dictionary(pa.int8(), pa.large_string(), ordered=True), False),
         pa.DictionaryArray.from_arrays(pa.array([1, 0, 1, 1, 0], pa.int8()), pa.array(["lo", "hi"], pa.large_string()),
                                        ordered=True)),
        (field("dict_int", pa.dictionary(pa.int16(), pa.int64())),
         pa.DictionaryArray.from_arrays(pa.array([0, 1, 1, None, 0], pa.int16()), pa.array([10, 20], pa.int64()))),
        (field("list_dict", pa.list_(pa.dictionary(pa.int32(), pa.string()))),
         pa.array([["a"], ["b", "a"], None, [], ["c"]], pa.list_(pa.dictionary(pa.int32(), pa.string())))),
    ]
    schema = pa.schema([f for f, _ in cols])
    return pa.Table.from_arrays([a for _, a in cols], schema=schema)


def wide_table(n=10000):
    keys = [None if i % 13 == 0 else (i * 7919) % 1000 for i in range(n)]
    vals = [i * 0.5 for i in range(n)]
    strs = [None if i % 17 == 5 else "s%d" % (i % 97) for i in range(n)]
    return pa.table({"key": pa.array(keys, pa.int64()), "value": pa.array(vals, pa.float64()),
                     "s": pa.array(strs, pa.string())},
                    schema=pa.schema([field("key", pa.int64()), field("value", pa.float64(), False),
                                      field("s", pa.string())]))


# The dictionary batches ember's writer emits for a changing dictionary (the C++ side writes
# these frames one batch each): the values each batch holds.
DICT_BATCHES = [["a", "b", "a"], ["a", "c", "b"], ["a", "c", "b"], ["y", "x"], ["y", "x"]]


# ---- ember -> python ---------------------------------------------------------------------------

def same_table(got, want):
    if not got.schema.equals(want.schema, check_metadata=False):
        return False, "schema %s != %s" % (got.schema, want.schema)
    if not got.equals(want):
        for name in want.column_names:
            if not got.column(name).equals(want.column(name)):
                return False, "column %s: %s != %s" % (name, got.column(name), want.column(name))
        return False, "tables differ"
    return True, ""


def check_with_pandas(name, path, want):
    import pandas as pd

    def run():
        got = pd.read_feather(path)
        exp = want.to_pandas()
        pd.testing.assert_frame_equal(got, exp)
        check("pandas:" + name, True)
    attempt("pandas:" + name, run)


def check_with_polars(name, path, want, stream):
    import polars as pl

    def run():
        got = pl.read_ipc_stream(path) if stream else pl.read_ipc(path)
        exp = pl.from_arrow(want)
        check("polars:" + name, got.schema == exp.schema and got.equals(exp), "%s vs %s" % (got, exp))
    attempt("polars:" + name, run)


def check_ember_files(d):
    all_types = all_types_table()
    for codec in ["", "_lz4", "_zstd"]:
        for kind in ["feather", "arrows"]:
            name = "all" + codec + "." + kind
            path = os.path.join(d, name)
            stream = kind == "arrows"

            def read_pyarrow():
                if stream:
                    with ipc.open_stream(path) as r:
                        got = r.read_all()
                else:
                    with ipc.open_file(path) as r:
                        check("pyarrow:%s batches" % name, r.num_record_batches == 1, r.num_record_batches)
                        got = r.read_all()
                    same, why = same_table(feather.read_table(path), all_types)
                    check("pyarrow:%s feather.read_table" % name, same, why)
                same, why = same_table(got, all_types)
                check("pyarrow:" + name, same, why)
            attempt("pyarrow:" + name, read_pyarrow)
            if not stream:
                check_with_pandas(name, path, all_types)
            check_with_polars(name, path, all_types, stream)

    # Several batches (max_rows_per_batch = 2): 3 batches of 2, 2 and 1 rows.
    for name in ["all_batches.feather", "all_batches_zstd.arrows"]:
        path = os.path.join(d, name)

        def read_batches():
            if name.endswith(".feather"):
                r = ipc.open_file(path)
                batches = [r.get_batch(i) for i in range(r.num_record_batches)]
            else:
                batches = list(ipc.open_stream(path))
            check("pyarrow:%s batch sizes" % name, [b.num_rows for b in batches] == [2, 2, 1],
                  [b.num_rows for b in batches])
            same, why = same_table(pa.Table.from_batches(batches), all_types)
            check("pyarrow:" + name, same, why)
        attempt("pyarrow:" + name, read_batches)
        check_with_polars(name, path, all_types, name.endswith(".arrows"))

    wide = wide_table()
    for name in ["wide_lz4.feather", "wide_zstd.arrows"]:
        path = os.path.join(d, name)

        def read_wide():
            got = ipc.open_stream(path).read_all() if name.endswith(".arrows") else feather.read_table(path)
            same, why = same_table(got, wide)
            check("pyarrow:" + name, same, why)
        attempt("pyarrow:" + name, read_wide)
        if name.endswith(".feather"):
            check_with_pandas(name, path, wide)
        check_with_polars(name, path, wide, name.endswith(".arrows"))

    # A dictionary that grows (a delta) and then changes (a replacement in the stream; in the
    # file, a delta after the old values with shifted indices).
    for name in ["dict_changes.arrows", "dict_changes.feather"]:
        path = os.path.join(d, name)

        def read_dict():
            if name.endswith(".arrows"):
                batches = list(ipc.open_stream(path))
            else:
                r = ipc.open_file(path)
                batches = [r.get_batch(i) for i in range(r.num_record_batches)]
            got = [b.column(0).to_pylist() for b in batches]
            check("pyarrow:" + name, got == DICT_BATCHES, got)
            check("pyarrow:%s type" % name, batches[0].schema.field("c").type == pa.dictionary(pa.int32(), pa.string()),
                  batches[0].schema)
        attempt("pyarrow:" + name, read_dict)


# ---- python -> ember --------------------------------------------------------------------------

def enc_scalar(s, t):
    """A value as JSON: floats as repr strings, bytes as hex, dates and timestamps as their
    integer counts, structs as lists of field values, maps as lists of [key, value]."""
    if not s.is_valid:
        return None
    if pa.types.is_dictionary(t):
        return enc_scalar(s.value, t.value_type)
    if pa.types.is_timestamp(t):
        return s.cast(pa.int64()).as_py()
    if pa.types.is_date32(t):
        return s.cast(pa.int32()).as_py()
    if pa.types.is_floating(t):
        return repr(float(s.as_py()))
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return s.as_py().hex()
    if pa.types.is_map(t):
        return [[enc_scalar(e[0], t.key_type), enc_scalar(e[1], t.item_type)] for e in s.values]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [enc_scalar(x, t.value_type) for x in s.values]
    if pa.types.is_struct(t):
        return [enc_scalar(s[i], t.field(i).type) for i in range(t.num_fields)]
    return s.as_py()


def describe(name, kind, table, batch_rows):
    return {
        "name": name, "format": kind, "batches": batch_rows,
        "schema": [{"name": f.name, "type": str(f.type), "nullable": f.nullable} for f in table.schema],
        "columns": [[enc_scalar(x, f.type) for x in table.column(i)] for i, f in enumerate(table.schema)],
    }


def write_files(d):
    manifest = []
    all_types = all_types_table()
    codecs = {"": None, "_lz4": "lz4", "_zstd": "zstd"}
    for suffix, codec in codecs.items():
        opts = ipc.IpcWriteOptions(compression=codec)
        with ipc.new_file(os.path.join(d, "py_all%s.feather" % suffix), all_types.schema, options=opts) as w:
            w.write_table(all_types)
        manifest.append(describe("py_all%s.feather" % suffix, "file", all_types, [5]))
        with ipc.new_stream(os.path.join(d, "py_all%s.arrows" % suffix), all_types.schema, options=opts) as w:
            w.write_table(all_types)
        manifest.append(describe("py_all%s.arrows" % suffix, "stream", all_types, [5]))
    # Several batches, in both formats.
    opts = ipc.IpcWriteOptions(compression="zstd")
    with ipc.new_file(os.path.join(d, "py_batches.feather"), all_types.schema, options=opts) as w:
        for b in all_types.to_batches(max_chunksize=2):
            w.write_batch(b)
    manifest.append(describe("py_batches.feather", "file", all_types, [2, 2, 1]))
    with ipc.new_stream(os.path.join(d, "py_batches.arrows"), all_types.schema) as w:
        for b in all_types.to_batches(max_chunksize=2):
            w.write_batch(b)
    manifest.append(describe("py_batches.arrows", "stream", all_types, [2, 2, 1]))
    # feather.write_feather with its own defaults (lz4, chunks of 3 rows).
    wide = wide_table()
    feather.write_feather(wide, os.path.join(d, "py_wide.feather"), chunksize=3000)
    manifest.append(describe("py_wide.feather", "file", wide, [3000, 3000, 3000, 1000]))
    # Slices: pyarrow writes a sliced table from its offsets.
    sliced = all_types.slice(1, 3)
    with ipc.new_file(os.path.join(d, "py_sliced.feather"), sliced.schema) as w:
        w.write_table(sliced)
    manifest.append(describe("py_sliced.feather", "file", sliced, [3]))
    # Dictionary deltas and a replacement in a stream.
    dt = pa.dictionary(pa.int32(), pa.string())
    dschema = pa.schema([field("c", dt)])
    batches = [
        pa.DictionaryArray.from_arrays(pa.array([0, 1, 0], pa.int32()), pa.array(["a", "b"])),
        pa.DictionaryArray.from_arrays(pa.array([2, None, 1], pa.int32()), pa.array(["a", "b", "c"])),
        pa.DictionaryArray.from_arrays(pa.array([0, 0], pa.int32()), pa.array(["zz"])),
    ]
    opts = ipc.IpcWriteOptions(emit_dictionary_deltas=True)
    with ipc.new_stream(os.path.join(d, "py_dict_deltas.arrows"), dschema, options=opts) as w:
        for arr in batches:
            w.write_batch(pa.record_batch([arr], schema=dschema))
    dtable = pa.Table.from_batches([pa.record_batch([a], schema=dschema) for a in batches])
    manifest.append(describe("py_dict_deltas.arrows", "stream", dtable, [3, 3, 2]))
    # pandas' to_feather (pandas' own conversion: categorical, datetime with a timezone, NaN).
    import pandas as pd
    pdf = pd.DataFrame({
        "i": pd.array([1, 2, 3], dtype="int64"),
        "f": [1.5, float("nan"), -2.0],
        "s": ["x", None, "z"],
        "b": [True, False, True],
        "cat": pd.Categorical(["lo", "hi", "lo"]),
        "t": pd.to_datetime(["2020-01-01 00:00", "2021-06-30 12:00", None]).tz_localize("UTC"),
    })
    pdf.to_feather(os.path.join(d, "py_pandas.feather"))
    manifest.append(describe("py_pandas.feather", "file", feather.read_table(os.path.join(d, "py_pandas.feather")), [3]))
    # polars: write_ipc (file, zstd) and write_ipc_stream, in the oldest compat level (plain
    # strings; polars' newest level writes Utf8View, which ember does not read).
    import polars as pl
    pldf = pl.DataFrame({"a": [1, None, 3], "s": ["p", "q", None], "l": [[1, 2], [], None],
                         "c": pl.Series(["u", "v", "u"], dtype=pl.Categorical)})
    pldf.write_ipc(os.path.join(d, "py_polars.feather"), compression="zstd", compat_level=pl.CompatLevel.oldest())
    manifest.append(describe("py_polars.feather", "file", feather.read_table(os.path.join(d, "py_polars.feather")), [3]))
    pldf.write_ipc_stream(os.path.join(d, "py_polars.arrows"), compression="lz4", compat_level=pl.CompatLevel.oldest())
    manifest.append(describe("py_polars.arrows", "stream", ipc.open_stream(os.path.join(d, "py_polars.arrows")).read_all(),
                             [3]))
    pldf.write_ipc(os.path.join(d, "py_polars_views.feather"))  # newest: string views
    # Types ember::frame does not have: each file must fail to read, naming the type.
    import decimal
    import numpy as np
    unsupported = {
        "Decimal": pa.array([decimal.Decimal("1.25")], pa.decimal128(5, 2)),
        "float16": pa.array(np.array([1.5], dtype=np.float16), pa.float16()),
        "Time": pa.array([1], pa.time32("s")),
        "Duration": pa.array([1], pa.duration("s")),
        "Null": pa.nulls(2),
        "FixedSizeBinary": pa.array([b"ab"], pa.binary(2)),
        "date64": pa.array([0], pa.date64()),
        "Utf8View": pa.array(["x"], pa.string_view()),
        "FixedSizeList": pa.array([[1, 2]], pa.list_(pa.int64(), 2)),
    }
    bad = []
    for what, arr in unsupported.items():
        name = "py_unsupported_%s.feather" % what
        feather.write_feather(pa.table({"col": arr}), os.path.join(d, name), compression="uncompressed")
        bad.append({"name": name, "expect": what})
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(manifest, f)
    with open(os.path.join(d, "unsupported.json"), "w") as f:
        json.dump(bad, f)
    print("DONE %d %d" % (ok_count, fail_count), flush=True)


def main():
    mode, d = sys.argv[1], sys.argv[2]
    if mode == "write":
        write_files(d)
    else:
        attempt("check", lambda: check_ember_files(d))
        print("DONE %d %d" % (ok_count, fail_count), flush=True)


if __name__ == "__main__":
    main()
