// Arrow IPC files and streams between ember::frame and the real pyarrow, pandas and polars.
// ember writes files that io_ipc_pyarrow.py reads with each of them and compares with the
// same data spelled in pyarrow; the script writes files (pyarrow in every codec, several
// batches, slices, dictionary deltas; pandas' to_feather; polars' write_ipc) that ember reads
// and compares with that data spelled here, and with the values the script dumps as JSON.
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "ember/frame/detail/format.h"
#include "ember/frame/frame.h"
#include "ember/frame/io/ipc.h"
#include "frame_test_util.h"
#include "temp_files.h"
#include "test_util.h"

namespace ember::frame {
namespace {

namespace dt = dtypes;
namespace fs = std::filesystem;
using ember::test::Json;
using ember::test::read_bytes;
using ember::test::TempDir;
using test::quote;  // frame_test_util.h

// ---- the data both sides spell (io_ipc_pyarrow.py: all_types_table, wide_table) --------------

DataFrame all_types_frame() {
  using V = Value;
  using L = Value::List;
  const DType point = dt::Struct({{"x", dt::Int64(true)}, {"tags", dt::List(dt::string)}}, true);
  std::vector<std::pair<std::string, Column>> c;
  c.push_back({"bool", column(std::vector<std::optional<bool>>{true, std::nullopt, false, true, false})});
  c.push_back({"int8", column(std::vector<int8_t>{-128, 127, 0, 1, -1})});
  c.push_back({"int16", column(std::vector<std::optional<int16_t>>{1, std::nullopt, -32768, 32767, 0})});
  c.push_back({"int32", column(std::vector<int32_t>{INT32_MAX, INT32_MIN, 0, 5, 6})});
  c.push_back({"int64", column(std::vector<std::optional<int64_t>>{INT64_MAX, std::nullopt, INT64_MIN, 7, 8})});
  c.push_back({"uint8", column(std::vector<uint8_t>{0, 255, 1, 2, 3})});
  c.push_back({"uint16", column(std::vector<std::optional<uint16_t>>{65535, std::nullopt, 0, 1, 2})});
  c.push_back({"uint32", column(std::vector<uint32_t>{4294967295u, 0, 1, 2, 3})});
  c.push_back({"uint64", column(std::vector<std::optional<uint64_t>>{UINT64_MAX, 0, std::nullopt, uint64_t(1) << 63, 1})});
  c.push_back({"float32", column(std::vector<std::optional<float>>{0.5f, -1.25f, std::nullopt, INFINITY, 3.0f})});
  c.push_back({"float64", column(std::vector<double>{0.1, -2.5e300, 5e-324, -INFINITY, 0.0})});
  c.push_back({"string", column({"a", std::nullopt, "", "\u00e9t\u00e9 \u2603", "x,y\n\"z\""})});
  c.push_back({"large_string", column(std::vector<std::string>{"xy", "z", "", "w", "\u00e9"}, dt::large_string)});
  c.push_back({"binary", column_from_values({std::string("\0\1", 2), V(), std::string(), std::string("\xff"), "abc"},
                                            dt::Binary(true))});
  c.push_back({"large_binary", column_from_values({"q", "", V(), std::string("\0", 1), "r"}, dt::LargeBinary(true))});
  c.push_back({"date32", column({0, 19358, std::nullopt, -1, 2932896}, dt::Date32(true))});
  c.push_back({"ts_s", column({-1, 0, std::nullopt, 1700000000, 86400}, dt::Timestamp(TimeUnit::Second, "", true))});
  c.push_back({"ts_ms_utc", column(std::vector<int64_t>{0, 1, 2, 3, 1700000000123}, dt::Timestamp(TimeUnit::Milli, "UTC"))});
  c.push_back({"ts_us_ny", column({0, std::nullopt, 1, 2, 3}, dt::Timestamp(TimeUnit::Micro, "America/New_York", true))});
  c.push_back({"ts_ns_kolkata", column({1, 2, 3, std::nullopt, 5}, dt::Timestamp(TimeUnit::Nano, "Asia/Kolkata", true))});
  c.push_back({"list", column_from_values({L{1, 2}, V(), L{}, L{V(), 3}, L{4}}, dt::List(dt::Int64(true), true))});
  c.push_back({"large_list", column_from_values({L{"a"}, L{"b", "c"}, L{}, L{"d"}, L{"e", "f", "g"}},
                                                dt::LargeList(dt::string))});
  c.push_back({"list_list", column_from_values({L{L{1}, L{}}, V(), L{L{2, 3}}, L{}, L{V()}},
                                               dt::List(dt::List(dt::Int32(true), true), true))});
  c.push_back({"struct", column_from_values({L{1, "x"}, V(), L{3, V()}, L{4, "w"}, L{5, ""}},
                                            dt::Struct({{"a", dt::int64}, {"b", dt::String(true)}}, true))});
  c.push_back({"map", column_from_values({L{L{"k", 1}, L{"l", V()}}, V(), L{}, L{L{"m", 3}}, L{L{"n", 4}, L{"o", 5}}},
                                         dt::Map(dt::string, dt::Int64(true), true))});
  c.push_back({"nested", column_from_values({L{L{1, L{"a", "b"}}, V()}, L{}, V(), L{L{V(), L{}}}, L{L{2, L{"c"}}}},
                                            dt::List(point, true))});
  c.push_back({"dict", dictionary_column(column({0, 1, std::nullopt, 0, 2}, dt::Int32(true)),
                                         column({"red", "green", "blue"}, dt::String(true)))});
  c.push_back({"dict8_ordered", dictionary_column(column(std::vector<int8_t>{1, 0, 1, 1, 0}),
                                                  column(std::vector<std::string>{"lo", "hi"}, dt::LargeString(true)), true)});
  c.push_back({"dict_int", dictionary_column(column({0, 1, 1, std::nullopt, 0}, dt::Int16(true)),
                                             column({10, 20}, dt::Int64(true)))});
  c.push_back({"list_dict", column_from_values({L{"a"}, L{"b", "a"}, V(), L{}, L{"c"}},
                                               dt::List(dt::Dictionary(dt::int32, dt::String(true), true), true))});
  return DataFrame(std::move(c));
}

DataFrame wide_frame(int64_t n = 10000) {
  std::vector<std::optional<int64_t>> keys;
  std::vector<double> vals;
  std::vector<std::optional<std::string>> strs;
  for (int64_t i = 0; i < n; ++i) {
    keys.push_back(i % 13 == 0 ? std::nullopt : std::optional<int64_t>(i * 7919 % 1000));
    vals.push_back(double(i) * 0.5);
    strs.push_back(i % 17 == 5 ? std::nullopt : std::optional<std::string>("s" + std::to_string(i % 97)));
  }
  return DataFrame{{"key", column(keys)}, {"value", column(vals)}, {"s", column(strs)}};
}

// ---- running the script -------------------------------------------------------------------

struct ScriptRun {
  std::string skip, error, output;
  std::map<std::string, int> ok;  // by section
  std::vector<std::string> failures;
};

ScriptRun run_script(const std::string& mode, const fs::path& dir) {
  ScriptRun r;
  if (std::system("python3 -c 'import pyarrow, pandas, polars' >/dev/null 2>&1") != 0) {
    r.skip = "pyarrow, pandas or polars is not installed for python3 (scripts/install-deps.sh installs them)";
    return r;
  }
  const fs::path script = fs::path(EMBER_GOLDEN_DIR).parent_path() / "frame" / "io_ipc_pyarrow.py";
  const fs::path log = dir / (mode + ".log");
  const std::string cmd = "RUST_BACKTRACE=0 python3 " + quote(script) + " " + mode + " " + quote(dir) + " >" +
                          quote(log) + " 2>&1";
  const int rc = std::system(cmd.c_str());
  r.output = read_bytes(log);
  std::istringstream lines(r.output);
  std::string line;
  bool done = false;
  while (std::getline(lines, line)) {
    if (line.rfind("DONE ", 0) == 0) done = true;
    if (line.rfind("OK ", 0) == 0) ++r.ok[line.substr(3, line.find(':') - 3)];
    if (line.rfind("FAIL ", 0) == 0) r.failures.push_back(line);
  }
  if (rc != 0 || !done) r.error = "the script did not finish (exit status " + std::to_string(rc) + "):\n" + r.output;
  return r;
}

// ---- ember -> pyarrow, pandas, polars -------------------------------------------------------

TEST(FrameIoIpcPyarrow, EmberWritesPythonReads) {
  TempDir d("ember-io-ipc");
  const DataFrame all = all_types_frame();
  const std::pair<const char*, IpcCompression> codecs[] = {
      {"", IpcCompression::None}, {"_lz4", IpcCompression::Lz4Frame}, {"_zstd", IpcCompression::Zstd}};
  for (const auto& [suffix, codec] : codecs) {
    const IpcWriteOptions o = IpcWriteOptions().with_compression(codec);
    write_feather(all, (d.path / (std::string("all") + suffix + ".feather")).string(), o);
    write_ipc_stream(all, (d.path / (std::string("all") + suffix + ".arrows")).string(), o);
  }
  write_feather(all, (d.path / "all_batches.feather").string(), IpcWriteOptions().with_max_rows_per_batch(2));
  write_ipc_stream(all, (d.path / "all_batches_zstd.arrows").string(),
                   IpcWriteOptions().with_max_rows_per_batch(2).with_compression(IpcCompression::Zstd));
  const DataFrame wide = wide_frame();
  write_feather(wide, (d.path / "wide_lz4.feather").string(),
                IpcWriteOptions().with_compression(IpcCompression::Lz4Frame).with_max_rows_per_batch(4096));
  write_ipc_stream(wide, (d.path / "wide_zstd.arrows").string(), IpcWriteOptions().with_compression(IpcCompression::Zstd));
  // A dictionary that grows and then changes (Note [IPC dictionaries]).
  const Column d1 = column({"a", "b", "a"}).dictionary_encode();
  const Column d2 = dictionary_column(column({0, 2, 1}, dt::int32), column({"a", "b", "c"}));
  const Column d3 = dictionary_column(column({1, 0}, dt::int32), column({"x", "y"}));
  const DType schema = DataFrame{{"c", d1}}.dtype();
  {
    IpcStreamWriter s((d.path / "dict_changes.arrows").string(), schema);
    IpcFileWriter f((d.path / "dict_changes.feather").string(), schema);
    for (const Column& c : {d1, d2, d2, d3, d3}) {
      s.write(DataFrame{{"c", c}});
      f.write(DataFrame{{"c", c}});
    }
  }

  const ScriptRun r = run_script("check", d.path);
  if (!r.skip.empty()) GTEST_SKIP() << r.skip;
  ASSERT_TRUE(r.error.empty()) << r.error;
  for (const std::string& f : r.failures) ADD_FAILURE() << f;
  EXPECT_GE(r.ok.count("pyarrow") ? r.ok.at("pyarrow") : 0, 6 + 3 + 4 + 2 + 4) << r.output;
  EXPECT_GE(r.ok.count("pandas") ? r.ok.at("pandas") : 0, 3 + 1) << r.output;
  EXPECT_GE(r.ok.count("polars") ? r.ok.at("polars") : 0, 6 + 2 + 2) << r.output;
}

// ---- pyarrow, pandas, polars -> ember -------------------------------------------------------

std::string hex(std::string_view s) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

// pyarrow's str(type).
std::string pyarrow_type(const DType& t) {
  auto field = [](const std::string& name, const DType& f) {
    return name + ": " + pyarrow_type(f) + (f.nullable() ? "" : " not null");
  };
  switch (t.id()) {
    case TypeId::Bool: return "bool";
    case TypeId::Float32: return "float";
    case TypeId::Float64: return "double";
    case TypeId::Date32: return "date32[day]";
    case TypeId::Timestamp:
      return std::string("timestamp[") + to_string(t.unit()) + (t.timezone().empty() ? "" : ", tz=" + t.timezone()) + "]";
    case TypeId::List: return "list<" + field("item", t.value_type()) + ">";
    case TypeId::LargeList: return "large_list<" + field("item", t.value_type()) + ">";
    case TypeId::Struct: {
      std::string s = "struct<";
      for (size_t i = 0; i < t.fields().size(); ++i) s += (i ? ", " : "") + field(t.fields()[i].name, t.fields()[i].dtype);
      return s + ">";
    }
    case TypeId::Map:
      return "map<" + pyarrow_type(t.key_type()) + ", " + pyarrow_type(t.value_type()) +
             (t.keys_sorted() ? ", keys_sorted" : "") + ">";
    case TypeId::Dictionary:
      return "dictionary<values=" + pyarrow_type(t.value_type()) + ", indices=" + pyarrow_type(t.index_type()) +
             ", ordered=" + (t.ordered() ? "1" : "0") + ">";
    default: return to_string(t.id());
  }
}

// Whether `v` (of type `t`) is the value the script encoded as `j` (see enc_scalar there).
bool matches_encoded(const Value& v, const DType& t, const Json& j, std::string* why) {
  auto fail = [&](const std::string& what) {
    *why = what + " (ember " + v.to_string() + ", " + t.to_string() + ")";
    return false;
  };
  if (v.is_null() || j.is_null()) return v.is_null() == j.is_null() || fail("null mismatch");
  switch (t.id()) {
    case TypeId::Bool: return v.as_bool() == j.as_bool() || fail("bool");
    case TypeId::Float32:
    case TypeId::Float64: {
      std::string s;
      detail::format_double(s, v.as_double());
      return s == j.as_string() || fail("float " + j.as_string());
    }
    case TypeId::String:
    case TypeId::LargeString: return v.as_string() == j.as_string() || fail("string '" + j.as_string() + "'");
    case TypeId::Binary:
    case TypeId::LargeBinary: return hex(v.as_string()) == j.as_string() || fail("bytes " + j.as_string());
    case TypeId::List:
    case TypeId::LargeList:
    case TypeId::Map:
    case TypeId::Struct: {
      const auto& items = v.as_list();
      if (items.size() != j.items().size()) return fail("length " + std::to_string(j.items().size()));
      for (size_t k = 0; k < items.size(); ++k) {
        const DType ct = t.id() == TypeId::Struct ? t.fields()[k].dtype
                         : t.id() == TypeId::Map  ? t.map_entries_type()
                                                  : t.value_type();
        if (!matches_encoded(items[k], ct, j[k], why)) return false;
      }
      return true;
    }
    case TypeId::Dictionary: return matches_encoded(v, t.value_type(), j, why);
    default: {  // integers, date32 days, timestamp counts
      const std::string s = v.kind() == Value::Kind::UInt ? std::to_string(v.as_uint()) : std::to_string(v.as_int());
      return s == j.as_string() || fail("integer " + j.as_string());
    }
  }
}

void expect_matches_manifest(const DataFrame& df, const std::vector<DataFrame>& batches, const Json& m) {
  const Json& schema = m["schema"];
  ASSERT_EQ(df.num_columns(), int64_t(schema.size()));
  ASSERT_EQ(batches.size(), m["batches"].size());
  for (size_t b = 0; b < batches.size(); ++b) EXPECT_EQ(batches[b].num_rows(), m["batches"][b].as_int()) << "batch " << b;
  for (int64_t c = 0; c < df.num_columns(); ++c) {
    const Json& f = schema[size_t(c)];
    const Column& col = df.column(c);
    SCOPED_TRACE(f["name"].as_string());
    EXPECT_EQ(df.columns()[size_t(c)], f["name"].as_string());
    EXPECT_EQ(pyarrow_type(col.dtype()), f["type"].as_string());
    EXPECT_EQ(col.dtype().nullable(), f["nullable"].as_bool());
    const Json& values = m["columns"][size_t(c)];
    ASSERT_EQ(col.size(), int64_t(values.size()));
    for (int64_t i = 0; i < col.size(); ++i) {
      std::string why;
      EXPECT_TRUE(matches_encoded(col.get_value(i), col.dtype(), values[size_t(i)], &why))
          << "row " << i << ": " << why;
    }
  }
}

TEST(FrameIoIpcPyarrow, PythonWritesEmberReads) {
  TempDir d("ember-io-ipc");
  const ScriptRun r = run_script("write", d.path);
  if (!r.skip.empty()) GTEST_SKIP() << r.skip;
  ASSERT_TRUE(r.error.empty()) << r.error;
  const Json manifest = Json::parse(read_bytes(d.path / "manifest.json"));
  const DataFrame all = all_types_frame();
  int files = 0;
  for (const Json& m : manifest.items()) {
    const std::string name = m["name"].as_string();
    SCOPED_TRACE(name);
    const std::string path = (d.path / name).string();
    std::vector<DataFrame> batches;
    DataFrame df;
    try {
      if (m["format"].as_string() == "file") {
        IpcFileReader reader(path);
        batches = reader.read_all();
        df = reader.read_table();
      } else {
        IpcStreamReader reader(path);
        batches = reader.read_all();
        df = IpcStreamReader(path).read_table();
      }
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    expect_matches_manifest(df, batches, m);
    // The tables spelled on both sides are equal, dtypes (nullable flags) included.
    if (name.rfind("py_all", 0) == 0 || name.rfind("py_batches", 0) == 0) {
      EXPECT_EQ(df.dtypes(), all.dtypes());
      EXPECT_EQ(df, all);
    }
    if (name == "py_sliced.feather") EXPECT_EQ(df, all.slice(1, 3));
    if (name == "py_wide.feather") EXPECT_EQ(df, wide_frame());
    ++files;
  }
  EXPECT_EQ(files, 14);
  // polars' newest format writes string views, which ember::frame does not read; nor does it
  // read decimals, float16, times, durations, the null type...: each error names the type.
  EXPECT_ERROR_WITH(read_feather((d.path / "py_polars_views.feather").string()), "View");
  const Json bad = Json::parse(read_bytes(d.path / "unsupported.json"));
  EXPECT_EQ(bad.size(), 9u);
  for (const Json& b : bad.items()) {
    SCOPED_TRACE(b["name"].as_string());
    EXPECT_ERROR_WITH(read_feather((d.path / b["name"].as_string()).string()), b["expect"].as_string());
    EXPECT_ERROR_WITH(read_feather((d.path / b["name"].as_string()).string()), "field 'col'");
  }
}

}  // namespace
}  // namespace ember::frame
