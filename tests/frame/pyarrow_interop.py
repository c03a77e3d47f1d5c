"""ember::frame <-> pyarrow through the Arrow C Data and C Stream Interfaces.

Run by tests/frame/pyarrow_test.cpp as `python3 pyarrow_interop.py <bridge.so>`. The bridge
(pyarrow_bridge.cpp) exports ember columns, frames and streams into structs allocated here
and imports what pyarrow exports. Every check prints "OK <section>:<name>" or
"FAIL <section>:<name>: <detail>"; the last line is "DONE <ok> <failed>".

Expected values are spelled independently, with pyarrow's own constructors.
"""
import ctypes
import datetime
import gc
import json
import sys
import traceback

import pyarrow as pa

ok_count = 0
fail_count = 0


def check(name, cond, detail=""):
    global ok_count, fail_count
    if cond:
        ok_count += 1
        print("OK " + name, flush=True)
    else:
        fail_count += 1
        print("FAIL " + name + ": " + str(detail).replace("\n", " | "), flush=True)
    return cond


class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p), ("name", ctypes.c_char_p), ("metadata", ctypes.c_char_p),
    ("flags", ctypes.c_int64), ("n_children", ctypes.c_int64),
    ("children", ctypes.c_void_p), ("dictionary", ctypes.c_void_p),
    ("release", ctypes.c_void_p), ("private_data", ctypes.c_void_p),
]


class ArrowArray(ctypes.Structure):
    _fields_ = [
        ("length", ctypes.c_int64), ("null_count", ctypes.c_int64), ("offset", ctypes.c_int64),
        ("n_buffers", ctypes.c_int64), ("n_children", ctypes.c_int64),
        ("buffers", ctypes.c_void_p), ("children", ctypes.c_void_p), ("dictionary", ctypes.c_void_p),
        ("release", ctypes.c_void_p), ("private_data", ctypes.c_void_p),
    ]


class ArrowArrayStream(ctypes.Structure):
    _fields_ = [
        ("get_schema", ctypes.c_void_p), ("get_next", ctypes.c_void_p), ("get_last_error", ctypes.c_void_p),
        ("release", ctypes.c_void_p), ("private_data", ctypes.c_void_p),
    ]


lib = ctypes.CDLL(sys.argv[1])
for fn in ["ember_import_digest", "ember_import_frame_digest", "ember_import_stream_digest", "ember_digest_slot",
           "ember_fixture_name", "ember_last_error"]:
    getattr(lib, fn).restype = ctypes.c_char_p
for fn in ["ember_export_releases", "ember_schema_releases", "ember_stream_releases", "ember_release_violations",
           "ember_owner_frees", "ember_import_releases"]:
    getattr(lib, fn).restype = ctypes.c_int64
lib.ember_owned_address.restype = ctypes.c_uint64
lib.ember_export_fixture.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p]
lib.ember_export_frame.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
lib.ember_export_stream.argtypes = [ctypes.c_void_p]
lib.ember_import_digest.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
lib.ember_import_frame_digest.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
lib.ember_import_stream_digest.argtypes = [ctypes.c_void_p]
lib.ember_digest_slot.argtypes = [ctypes.c_int]
lib.ember_drop_slot.argtypes = [ctypes.c_int]


def field(name, t, nullable=True):
    return pa.field(name, t, nullable=nullable)


def nn_list(t):  # list<item: t not null>
    return pa.list_(field("item", t, False))


def date_array(days, t=pa.date32()):
    return pa.array(days, pa.int32()).cast(t)


def ts_array(values, t):
    return pa.array(values, pa.int64()).cast(t)


# ---- ember -> pyarrow: the fixtures of tests/frame/frame_fixtures.h ---------------------------
bools = [None if i % 7 == 3 else (i % 3 == 0) for i in range(20)]
point = pa.struct([field("x", pa.int64()), field("tags", nn_list(pa.string()), False)])
EXPORTED = {
    # name: (expected array, expected offset or None)
    "bool": (pa.array([True, None, False, True, True, False, True, False, True], pa.bool_()), None),
    "int8": (pa.array([-128, 127, None], pa.int8()), None),
    "int16": (pa.array([-3, 4], pa.int16()), None),
    "int32": (pa.array([1, None, 3], pa.int32()), None),
    "int64": (pa.array([1, 2, None, 4], pa.int64()), None),
    "uint8": (pa.array([0, 255], pa.uint8()), None),
    "uint16": (pa.array([65535], pa.uint16()), None),
    "uint32": (pa.array([None, 4000000000], pa.uint32()), None),
    "uint64": (pa.array([2 ** 63, 7], pa.uint64()), None),
    "float32": (pa.array([0.5, -1048576.0], pa.float32()), None),
    "float64": (pa.array([1.5, None, -0.25], pa.float64()), None),
    "string": (pa.array(["a", None, "", "\u00e9t\u00e9"], pa.string()), None),
    "large_string": (pa.array(["xy", "z"], pa.large_string()), None),
    "binary": (pa.array([b"\x00\x01", None], pa.binary()), None),
    "large_binary": (pa.array([b"q"], pa.large_binary()), None),
    "date32": (date_array([0, 19358, None]), None),
    "timestamp": (ts_array([0, 1000000], pa.timestamp("us", tz="UTC")), None),
    "timestamp_s": (ts_array([-1], pa.timestamp("s")), None),
    "list": (pa.array([[1, 2], None, []], nn_list(pa.int64())), None),
    "large_list": (pa.array([["a"], ["b", "c"]], pa.large_list(field("item", pa.string(), False))), None),
    "list_list": (pa.array([[[1], []], [[2, 3]]], nn_list(nn_list(pa.int32()))), None),
    "struct": (pa.array([{"a": 1, "b": "x"}, {"a": 2, "b": None}, {"a": 3, "b": "z"}],
                        pa.struct([field("a", pa.int64(), False), field("b", pa.string())])), None),
    "map": (pa.array([[("k", 1), ("l", None)], None, []], pa.map_(pa.string(), pa.int64())), None),
    "dictionary": (pa.array(["red", "green", None, "red"]).dictionary_encode(), None),
    "sliced_int64": (pa.array([None, 3, 4], pa.int64()), 2),
    "sliced_string": (pa.array(["b", None, "cccc"]), 1),
    "sliced_struct": (pa.array([{"a": 2, "l": [2]}, {"a": 3, "l": []}, {"a": 4, "l": [3, 4]}],
                               pa.struct([field("a", pa.int64(), False), field("l", nn_list(pa.int8()), False)])), 1),
    "empty_string": (pa.array([], pa.string()), None),
    "sliced_bool": (pa.array(bools[3:16], pa.bool_()), 3),
    "sliced_list": (pa.array([[1, 2], None, [3, 4, 5]], nn_list(pa.int64())), 1),
    "nested": (pa.array([[{"x": 1, "tags": ["a", "b"]}, None], [], [{"x": None, "tags": []}]],
                        pa.list_(field("item", point, True))), None),
    "map_of_lists": (pa.array([[("a", [1.5])], []],
                              pa.map_(pa.string(), field("value", nn_list(pa.float64()), False))), None),
    "timestamp_ns_tz": (ts_array([1, None], pa.timestamp("ns", tz="Asia/Tokyo")), None),
    "sliced_dictionary": (pa.DictionaryArray.from_arrays(pa.array([0, 1, None, 0, 2], pa.int32()),
                                                         pa.array(["a", "b", "c"])).slice(1, 4), 1),
}


def section_export():
    names = [lib.ember_fixture_name(i).decode() for i in range(lib.ember_fixture_count())]
    check("export:fixtures_known", set(names) == set(EXPORTED), sorted(set(names) ^ set(EXPORTED)))
    kept = []
    for name in names:
        if name not in EXPORTED:
            continue
        expected, offset = EXPORTED[name]
        c_arr, c_sch = ArrowArray(), ArrowSchema()
        rc = lib.ember_export_fixture(name.encode(), ctypes.addressof(c_arr), ctypes.addressof(c_sch))
        if not check(f"export:{name}:rc", rc == 0, lib.ember_last_error()) and rc != 0:
            continue
        arr = pa.Array._import_from_c(ctypes.addressof(c_arr), ctypes.addressof(c_sch))
        check(f"export:{name}:moved", c_arr.release is None and c_sch.release is None)
        try:
            arr.validate(full=True)
            check(f"export:{name}:validate", True)
        except Exception as e:
            check(f"export:{name}:validate", False, e)
        check(f"export:{name}:type", arr.type == expected.type, f"{arr.type} != {expected.type}")
        check(f"export:{name}:values", arr.equals(expected), f"{arr.to_pylist()} != {expected.to_pylist()}")
        check(f"export:{name}:null_count", arr.null_count == expected.null_count, arr.null_count)
        if offset is not None:
            check(f"export:{name}:offset", arr.offset == offset, arr.offset)
        kept.append(arr)
    n = len(kept)
    check("release:exports_held", lib.ember_export_releases() == 0, lib.ember_export_releases())
    check("release:schemas_consumed", lib.ember_schema_releases() == n, (lib.ember_schema_releases(), n))
    # Reading after the C++ side has dropped every fixture: the exports keep the memory.
    gc.collect()
    check("release:values_survive", all(a.equals(EXPORTED[nm][0]) for a, nm in zip(kept, [x for x in names if x in EXPORTED])))
    del arr
    kept.clear()
    gc.collect()
    check("release:exports_released_once", lib.ember_export_releases() == n, (lib.ember_export_releases(), n))
    check("release:no_violations", lib.ember_release_violations() == 0, lib.ember_release_violations())

    # Memory ember does not own: its owner runs once, after pyarrow lets go, and pyarrow
    # sees the very same bytes (zero copy).
    c_arr, c_sch = ArrowArray(), ArrowSchema()
    lib.ember_export_fixture(b"owned_int64", ctypes.addressof(c_arr), ctypes.addressof(c_sch))
    arr = pa.Array._import_from_c(ctypes.addressof(c_arr), ctypes.addressof(c_sch))
    check("release:owner_alive_while_imported", lib.ember_owner_frees() == 0, lib.ember_owner_frees())
    check("release:owned_values", arr.to_pylist() == [22, 33, 44] and arr.offset == 1, (arr.to_pylist(), arr.offset))
    check("release:zero_copy_export", arr.buffers()[1].address == lib.ember_owned_address(),
          (arr.buffers()[1].address, lib.ember_owned_address()))
    before = lib.ember_export_releases()
    del arr
    gc.collect()
    check("release:owner_freed_once", lib.ember_owner_frees() == 1, lib.ember_owner_frees())
    check("release:owned_export_released", lib.ember_export_releases() == before + 1)


# ---- pyarrow -> ember ---------------------------------------------------------------------------
big = list(range(100000))
IMPORTED = [
    # (name, array, ember type, plain values)
    ("int64", pa.array([1, None, 3]), "Int64(nullable=True)", [1, None, 3]),
    ("int8", pa.array([-128, 5], pa.int8()), "Int8(nullable=True)", [-128, 5]),
    ("int16", pa.array([300], pa.int16()), "Int16(nullable=True)", [300]),
    ("int32", pa.array([None, -7], pa.int32()), "Int32(nullable=True)", [None, -7]),
    ("uint8", pa.array([255], pa.uint8()), "UInt8(nullable=True)", [255]),
    ("uint16", pa.array([65535], pa.uint16()), "UInt16(nullable=True)", [65535]),
    ("uint32", pa.array([2 ** 32 - 1], pa.uint32()), "UInt32(nullable=True)", [2 ** 32 - 1]),
    ("uint64", pa.array([2 ** 64 - 1, None], pa.uint64()), "UInt64(nullable=True)", [2 ** 64 - 1, None]),
    ("float32", pa.array([0.25, None], pa.float32()), "Float32(nullable=True)", [0.25, None]),
    ("float64", pa.array([1e300, -0.5]), "Float64(nullable=True)", [1e300, -0.5]),
    ("bool_sliced", pa.array([True, False, None, True] * 5).slice(3, 9), "Boolean(nullable=True)",
     ([True, False, None, True] * 5)[3:12]),
    ("string", pa.array(["a", None, "\u00e9\u20ac", ""]), "String(nullable=True)", ["a", None, "\u00e9\u20ac", ""]),
    ("string_sliced", pa.array(["aa", "b", None, "cccc"]).slice(1, 3), "String(nullable=True)", ["b", None, "cccc"]),
    ("large_string", pa.array(["x"], pa.large_string()), "LargeString(nullable=True)", ["x"]),
    ("binary", pa.array([b"\x00\xff", None]), "Binary(nullable=True)", ["00ff", None]),
    ("large_binary", pa.array([b"ab"], pa.large_binary()), "LargeBinary(nullable=True)", ["6162"]),
    ("date32", pa.array([datetime.date(2023, 1, 1), None]), "Date32(nullable=True)", [19358, None]),
    ("timestamp_ms", pa.array([datetime.datetime(1970, 1, 1, 0, 0, 1)], pa.timestamp("ms")),
     "Timestamp(ms, nullable=True)", [1000]),
    ("timestamp_tz", ts_array([5, None], pa.timestamp("ns", tz="UTC")), "Timestamp(ns, 'UTC', nullable=True)", [5, None]),
    ("list", pa.array([[1, None], None, []], pa.list_(pa.int64())), "List(Int64(nullable=True), nullable=True)",
     [[1, None], None, []]),
    ("list_sliced", pa.array([[1], [2, 3], None, [4]]).slice(1, 2), "List(Int64(nullable=True), nullable=True)",
     [[2, 3], None]),
    ("large_list", pa.array([["a", "b"]], pa.large_list(pa.string())),
     "LargeList(String(nullable=True), nullable=True)", [["a", "b"]]),
    ("struct", pa.array([{"a": 1, "b": "x"}, None, {"a": None, "b": "z"}]),
     "Struct([Field('a', Int64(nullable=True)), Field('b', String(nullable=True))], nullable=True)",
     [{"a": 1, "b": "x"}, None, {"a": None, "b": "z"}]),
    ("struct_sliced", pa.array([{"a": 1}, {"a": 2}, {"a": 3}]).slice(1, 2),
     "Struct([Field('a', Int64(nullable=True))], nullable=True)", [{"a": 2}, {"a": 3}]),
    ("map", pa.array([[("a", 1), ("b", None)], None, []], pa.map_(pa.string(), pa.int64())),
     "Map(string, Int64(nullable=True), nullable=True)", [[["a", 1], ["b", None]], None, []]),
    ("dictionary", pa.array(["x", "y", None, "x"]).dictionary_encode(),
     "Dictionary(int32, String(nullable=True), nullable=True)", ["x", "y", None, "x"]),
    ("nested", pa.array([[{"p": [1.5, None]}], None]),
     "List(Struct([Field('p', List(Float64(nullable=True), nullable=True))], nullable=True), nullable=True)",
     [[{"p": [1.5, None]}], None]),
    ("empty", pa.array([], pa.string()), "String(nullable=True)", []),
    ("big", pa.array(big, pa.int64()), "Int64(nullable=True)", big),
]


def export_pa(arr):
    c_arr, c_sch = ArrowArray(), ArrowSchema()
    arr._export_to_c(ctypes.addressof(c_arr), ctypes.addressof(c_sch))
    return c_arr, c_sch


def section_import():
    expected_releases = lib.ember_import_releases()
    for slot, (name, arr, type_str, values) in enumerate(IMPORTED):
        c_arr, c_sch = export_pa(arr)
        raw = lib.ember_import_digest(ctypes.addressof(c_arr), ctypes.addressof(c_sch), slot, 1).decode()
        if not check(f"import:{name}:ok", not raw.startswith("ERROR"), raw):
            continue
        d = json.loads(raw)
        check(f"import:{name}:moved", c_arr.release is None and c_sch.release is None)
        if type_str is not None:
            check(f"import:{name}:type", d["type"] == type_str, d["type"])
        check(f"import:{name}:values", d["values"] == values, f"{d['values'][:20]} != {values[:20]}")
        check(f"import:{name}:length", d["length"] == len(arr), d["length"])
        check(f"import:{name}:offset", d["offset"] == arr.offset, (d["offset"], arr.offset))
        check(f"import:{name}:null_count", d["null_count"] == arr.null_count, (d["null_count"], arr.null_count))
        # Zero copy: ember reads pyarrow's own data buffers.
        if not (pa.types.is_nested(arr.type) or pa.types.is_dictionary(arr.type)):
            bufs = arr.buffers()
            for i in range(1, len(bufs)):
                if bufs[i] is not None and bufs[i].size > 0:
                    check(f"import:{name}:zero_copy_buffer{i}", d["addresses"][i] == bufs[i].address,
                          (d["addresses"][i], bufs[i].address))
        # Nothing is released while ember holds the column.
        check(f"import:{name}:held", lib.ember_import_releases() == expected_releases)
        lib.ember_drop_slot(slot)
        expected_releases += 1
        check(f"import:{name}:released_once", lib.ember_import_releases() == expected_releases,
              (lib.ember_import_releases(), expected_releases))
    check("import:no_violations", lib.ember_release_violations() == 0, lib.ember_release_violations())

    # ember keeps pyarrow's memory alive after pyarrow's last reference goes, and releases
    # it (once) when the column goes.
    gc.collect()
    base = pa.total_allocated_bytes()
    arr = pa.array(list(range(200000)), pa.int64())
    check("lifetime:allocated", pa.total_allocated_bytes() >= base + 1600000, (pa.total_allocated_bytes(), base))
    c_arr, c_sch = export_pa(arr)
    first = lib.ember_import_digest(ctypes.addressof(c_arr), ctypes.addressof(c_sch), 99, 1)
    releases = lib.ember_import_releases()
    del arr
    gc.collect()
    check("lifetime:kept_alive", pa.total_allocated_bytes() >= base + 1600000, (pa.total_allocated_bytes(), base))
    again = lib.ember_digest_slot(99)
    check("lifetime:readable_after_pyarrow_let_go", again == first and json.loads(again)["values"][-1] == 199999)
    check("lifetime:not_yet_released", lib.ember_import_releases() == releases)
    lib.ember_drop_slot(99)
    check("lifetime:released_once", lib.ember_import_releases() == releases + 1)
    check("lifetime:memory_returned", pa.total_allocated_bytes() == base, (pa.total_allocated_bytes(), base))

    # Errors: unsupported types and corrupt arrays are refused, and still released once.
    offsets = pa.py_buffer(bytes(memoryview(pa.array([0, 3, 1, 4], pa.int32()).buffers()[1])))
    bad_offsets = pa.Array.from_buffers(pa.string(), 3, [None, offsets, pa.py_buffer(b"abcd")])
    utf8_offsets = pa.py_buffer(bytes(memoryview(pa.array([0, 1, 2], pa.int32()).buffers()[1])))
    bad_utf8 = pa.Array.from_buffers(pa.string(), 2, [None, utf8_offsets, pa.py_buffer(b"a\xff")])
    cases = [
        ("float16", pa.array([1.5], pa.float16()).cast(pa.float16()), 1,
         "Arrow format 'e' (float16) is not supported"),
        ("decimal", pa.array([1], pa.decimal128(10, 2)), 1, "(decimal) is not supported"),
        ("bad_offsets", bad_offsets, 1, "offsets decrease at element 1 (3 then 1)"),
        ("bad_utf8", bad_utf8, 1, "element 1 is not valid UTF-8"),
    ]
    for name, arr, utf8, message in cases:
        before = lib.ember_import_releases()
        c_arr, c_sch = export_pa(arr)
        raw = lib.ember_import_digest(ctypes.addressof(c_arr), ctypes.addressof(c_sch), 50, utf8).decode()
        check(f"import_error:{name}:message", raw.startswith("ERROR") and message in raw, raw)
        check(f"import_error:{name}:released_once", lib.ember_import_releases() == before + 1)
        check(f"import_error:{name}:schema_released", c_sch.release is None)
    c_arr, c_sch = export_pa(bad_utf8)
    raw = lib.ember_import_digest(ctypes.addressof(c_arr), ctypes.addressof(c_sch), 51, 0).decode(errors="replace")
    check("import_error:utf8_unchecked_on_request", not raw.startswith("ERROR"), raw)
    lib.ember_drop_slot(51)


# ---- frames (record batches) and streams -----------------------------------------------------------
def frame_rows(k):
    """frame_fixture(k).slice(1, 2) of the bridge, as pyarrow spells it."""
    schema = pa.schema([field("id", pa.int64(), False), field("name", pa.string()), field("score", pa.float64()),
                        field("tags", nn_list(pa.string()), False)])
    full = pa.record_batch([pa.array([k, k + 1, k + 2]), pa.array(["a", None, "c"]), pa.array([0.5, 1.5, None]),
                            pa.array([["x"], [], ["y", "z"]])], schema=schema)
    return full.slice(1, 2), schema


def section_frames():
    c_arr, c_sch = ArrowArray(), ArrowSchema()
    check("frame:export_rc", lib.ember_export_frame(5, ctypes.addressof(c_arr), ctypes.addressof(c_sch)) == 0)
    batch = pa.RecordBatch._import_from_c(ctypes.addressof(c_arr), ctypes.addressof(c_sch))
    expected, schema = frame_rows(5)
    check("frame:export_schema", batch.schema == schema, f"{batch.schema} != {schema}")
    check("frame:export_values", batch.equals(expected), f"{batch.to_pydict()} != {expected.to_pydict()}")
    batch.validate(full=True)
    before = lib.ember_export_releases()
    del batch
    gc.collect()
    check("frame:export_released_once", lib.ember_export_releases() == before + 1)

    rb = pa.record_batch({"a": pa.array([1, 2, None]), "s": pa.array(["x", None, "z"])}).slice(1)
    c_arr, c_sch = ArrowArray(), ArrowSchema()
    rb._export_to_c(ctypes.addressof(c_arr), ctypes.addressof(c_sch))
    raw = lib.ember_import_frame_digest(ctypes.addressof(c_arr), ctypes.addressof(c_sch), 60).decode()
    if check("frame:import_ok", not raw.startswith("ERROR"), raw):
        d = json.loads(raw)
        check("frame:import_rows", d["rows"] == 2, d["rows"])
        check("frame:import_columns", list(d["columns"]) == ["a", "s"], list(d["columns"]))
        check("frame:import_values", d["columns"]["a"]["values"] == [2, None] and d["columns"]["s"]["values"] == [None, "z"],
              d)
        check("frame:import_types", d["columns"]["a"]["type"] == "Int64(nullable=True)", d["columns"]["a"]["type"])
    lib.ember_drop_slot(60)


def section_streams():
    exports = lib.ember_export_releases()
    c_stream = ArrowArrayStream()
    check("stream:export_rc", lib.ember_export_stream(ctypes.addressof(c_stream)) == 0)
    reader = pa.RecordBatchReader._import_from_c(ctypes.addressof(c_stream))
    check("stream:moved", c_stream.release is None)
    batches = list(reader)
    check("stream:batches", len(batches) == 3, len(batches))
    exp = [frame_rows(0)[0].schema]
    ids = [b.column(0).to_pylist() for b in batches]
    check("stream:ids", ids == [[0, 1, 2], [10, 11, 12], [21, 22]], ids)
    check("stream:schema", reader.schema == exp[0], f"{reader.schema} != {exp[0]}")
    names = [b.column(1).to_pylist() for b in batches]
    check("stream:names", names == [["a", None, "c"], ["a", None, "c"], [None, "c"]], names)
    tags = batches[2].column(3).to_pylist()
    check("stream:tags", tags == [[], ["y", "z"]], tags)
    del reader, batches
    gc.collect()
    check("stream:released_once", lib.ember_stream_releases() == 1, lib.ember_stream_releases())
    check("stream:batches_released", lib.ember_export_releases() == exports + 3, (lib.ember_export_releases(), exports))

    schema = pa.schema([field("k", pa.int32()), field("v", pa.list_(pa.string()))])
    rbs = [pa.record_batch([pa.array([1, 2], pa.int32()), pa.array([["a"], None])], schema=schema),
           pa.record_batch([pa.array([None], pa.int32()), pa.array([[]], pa.list_(pa.string()))], schema=schema)]
    reader = pa.RecordBatchReader.from_batches(schema, rbs)
    c_stream = ArrowArrayStream()
    reader._export_to_c(ctypes.addressof(c_stream))
    raw = lib.ember_import_stream_digest(ctypes.addressof(c_stream)).decode()
    if check("stream:import_ok", not raw.startswith("ERROR"), raw):
        frames = json.loads(raw)
        check("stream:import_count", len(frames) == 2, len(frames))
        check("stream:import_values",
              [f["columns"]["k"]["values"] for f in frames] == [[1, 2], [None]] and
              [f["columns"]["v"]["values"] for f in frames] == [[["a"], None], [[]]], frames)
        check("stream:import_types", frames[0]["columns"]["v"]["type"] == "List(String(nullable=True), nullable=True)",
              frames[0]["columns"]["v"]["type"])
    check("stream:import_moved", c_stream.release is None)


for section in [section_export, section_import, section_frames, section_streams]:
    try:
        section()
    except Exception:
        check(section.__name__.replace("section_", "") + ":exception", False, traceback.format_exc())
print(f"DONE {ok_count} {fail_count}", flush=True)
