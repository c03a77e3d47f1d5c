// read_csv against pandas.read_csv (and Python's csv module) on the same files, and
// pandas.read_csv on what write_csv wrote. io_csv_pandas.py writes the files and what pandas
// makes of them (types as pyarrow names them, values as JSON); the comparisons are here.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ember/frame/detail/format.h"
#include "ember/frame/frame.h"
#include "ember/frame/io/csv.h"
#include "temp_files.h"
#include "test_util.h"

namespace ember::frame {
namespace {

namespace dt = dtypes;
namespace fs = std::filesystem;
using ember::test::Json;
using ember::test::read_bytes;
using ember::test::TempDir;

// Runs the script; "" when it finished, else why not (a "skip:" prefix when pandas is missing).
std::string run_io_csv_pandas(const std::string& args, const fs::path& log) {
  if (std::system("python3 -c 'import pandas, pyarrow' >/dev/null 2>&1") != 0)
    return "skip: pandas or pyarrow is not installed for python3 (scripts/install-deps.sh installs them)";
  const fs::path script = fs::path(EMBER_GOLDEN_DIR).parent_path() / "frame" / "io_csv_pandas.py";
  const std::string cmd = "python3 '" + script.string() + "' " + args + " >'" + log.string() + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  const std::string out = read_bytes(log);
  if (rc != 0 || out.find("DONE") == std::string::npos) return "the script failed (" + std::to_string(rc) + "):\n" + out;
  return "";
}

CsvReadOptions options_from(const Json& o) {
  CsvReadOptions r;
  auto ch = [&](const char* k, char& out) {
    if (o.contains(k)) out = o[k].as_string().empty() ? '\0' : o[k].as_string()[0];
  };
  ch("delimiter", r.delimiter);
  ch("quotechar", r.quotechar);
  ch("escapechar", r.escapechar);
  if (o.contains("doublequote")) r.doublequote = o["doublequote"].as_bool();
  if (o.contains("skipinitialspace")) r.skipinitialspace = o["skipinitialspace"].as_bool();
  if (o.contains("header")) r.header = o["header"].as_bool();
  if (o.contains("column_names"))
    for (const Json& n : o["column_names"].items()) r.column_names.push_back(n.as_string());
  if (o.contains("null_values")) {
    r.null_values.clear();
    for (const Json& n : o["null_values"].items()) r.null_values.push_back(n.as_string());
  }
  if (o.contains("skip_rows")) r.skip_rows = o["skip_rows"].as_int();
  if (o.contains("chunk_bytes")) r.chunk_bytes = o["chunk_bytes"].as_int();
  return r;
}

// A timestamp-like element as a count of `unit` (pandas' parse_dates unit).
int64_t as_unit(const Column& c, int64_t i, TimeUnit unit) {
  static const int64_t per_second[] = {1, 1000, 1000000, 1000000000};
  if (c.dtype().id() == TypeId::Date32) return int64_t(*c.get<int32_t>(i)) * 86400 * per_second[int(unit)];
  const int64_t v = *c.get<int64_t>(i);
  const int from = int(c.dtype().unit()), to = int(unit);
  return from <= to ? v * (per_second[to] / per_second[from]) : v / (per_second[from] / per_second[to]);
}

TimeUnit unit_of(const std::string& pyarrow_type) {
  if (pyarrow_type.find("[ns") != std::string::npos) return TimeUnit::Nano;
  if (pyarrow_type.find("[us") != std::string::npos) return TimeUnit::Micro;
  if (pyarrow_type.find("[ms") != std::string::npos) return TimeUnit::Milli;
  return TimeUnit::Second;
}

// Column `c` holds what pandas read: the same kind of type, nulls in the same places, the
// same values (floats exactly: both parse correctly rounded).
void expect_like_pandas(const Column& c, const Json& want) {
  const std::string pt = want["type"].as_string();
  const Json& values = want["values"];
  ASSERT_EQ(c.size(), int64_t(values.size()));
  bool any_null = false;
  for (const Json& v : values.items()) any_null |= v.is_null();
  const TypeId id = c.dtype().id();
  if (pt == "null") {
    EXPECT_EQ(c.dtype(), dt::String(true));
    EXPECT_EQ(c.null_count(), c.size());
    return;
  }
  if (pt == "int64") EXPECT_EQ(id, TypeId::Int64);
  else if (pt == "uint64") EXPECT_EQ(id, TypeId::UInt64);
  else if (pt == "double") EXPECT_EQ(id, TypeId::Float64);
  else if (pt == "bool") EXPECT_EQ(id, TypeId::Bool);
  else if (pt == "string" || pt == "large_string") EXPECT_TRUE(c.dtype().is_string()) << c.dtype();
  else if (pt.rfind("timestamp", 0) == 0) EXPECT_TRUE(id == TypeId::Timestamp || id == TypeId::Date32) << c.dtype();
  else ADD_FAILURE() << "unexpected pandas type " << pt;
  EXPECT_EQ(c.dtype().nullable(), any_null) << c.dtype();
  for (int64_t i = 0; i < c.size(); ++i) {
    const Json& v = values[size_t(i)];
    if (v.is_null() || c.is_null(i)) {
      EXPECT_EQ(c.is_null(i), v.is_null()) << "row " << i;
      continue;
    }
    std::string got;
    switch (id) {
      case TypeId::Int64: got = std::to_string(*c.get<int64_t>(i)); break;
      case TypeId::UInt64: got = std::to_string(*c.get<uint64_t>(i)); break;
      case TypeId::Float64: detail::format_double(got, *c.get<double>(i)); break;
      case TypeId::Bool: EXPECT_EQ(*c.get<bool>(i), v.as_bool()) << "row " << i; continue;
      case TypeId::Date32:
      case TypeId::Timestamp: got = std::to_string(as_unit(c, i, unit_of(pt))); break;
      default: got = std::string(*c.get_string(i)); break;
    }
    EXPECT_EQ(got, v.as_string()) << "row " << i;
  }
}

TEST(FrameIoCsvPandas, ReadsLikePandasAndPythonCsv) {
  TempDir d("ember-io-csv");
  const std::string err = run_io_csv_pandas("gen '" + d.path.string() + "'", d.path / "gen.log");
  if (err.rfind("skip:", 0) == 0) GTEST_SKIP() << err;
  ASSERT_TRUE(err.empty()) << err;
  const Json files = Json::parse(read_bytes(d.path / "expected.json"));
  int checked = 0;
  for (const Json& f : files.items()) {
    const std::string name = f["name"].as_string();
    SCOPED_TRACE(name);
    CsvReadOptions o = options_from(f["options"]);
    DataFrame df;
    try {
      df = read_csv((d.path / name).string(), o);
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    const Json& cols = f["pandas"];
    ASSERT_EQ(df.num_columns(), int64_t(cols.size()));
    for (int64_t c = 0; c < df.num_columns(); ++c) {
      SCOPED_TRACE(cols[size_t(c)]["name"].as_string());
      EXPECT_EQ(df.columns()[size_t(c)], cols[size_t(c)]["name"].as_string());
      expect_like_pandas(df.column(c), cols[size_t(c)]);
    }
    // The dialect files: every field, as text, as csv.reader splits them.
    if (f.contains("rows")) {
      CsvReadOptions raw = o;
      raw.header = false;
      raw.column_names.clear();
      raw.null_values = {};
      const Json& rows = f["rows"];
      for (size_t c = 0; c < rows[0].size(); ++c) raw.dtypes.insert_or_assign(std::to_string(c), dt::string);
      const DataFrame text = read_csv((d.path / name).string(), raw);
      ASSERT_EQ(text.num_rows(), int64_t(rows.size()));
      for (size_t r = 0; r < rows.size(); ++r)
        for (size_t c = 0; c < rows[r].size(); ++c)
          EXPECT_EQ(*text.column(int64_t(c)).get_string(int64_t(r)), rows[r][c].as_string()) << "row " << r << " field " << c;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 9);
}

TEST(FrameIoCsvPandas, PandasReadsWhatEmberWrites) {
  std::vector<std::optional<int64_t>> ints;
  std::vector<double> dbl;
  std::vector<std::string> strs;
  std::vector<std::optional<bool>> bools;
  const char* pool[] = {"plain", "a,b", "say \"hi\"", "line\nbreak", "caf\u00e9", "\r\n", " lead", "x;y"};
  for (int i = 0; i < 4000; ++i) {
    ints.push_back(i % 9 == 0 ? std::nullopt : std::optional<int64_t>(int64_t(i) * 2654435761LL % 1000003 - 500000));
    dbl.push_back(std::ldexp(double(i * 7919 % 10007) - 5003.5, i % 41 - 20));
    strs.push_back(pool[i % 8]);
    bools.push_back(i % 7 == 0 ? std::nullopt : std::optional<bool>(i % 3 == 0));
  }
  const DataFrame df{{"i", column(ints)}, {"f", column(dbl)}, {"s", column(strs)}, {"b", column(bools)}};
  TempDir d("ember-io-csv");
  const fs::path csv = d.path / "ember.csv", out = d.path / "pandas.json";
  write_csv(df, csv.string());
  const std::string err = run_io_csv_pandas("read '" + csv.string() + "' '" + out.string() + "'", d.path / "read.log");
  if (err.rfind("skip:", 0) == 0) GTEST_SKIP() << err;
  ASSERT_TRUE(err.empty()) << err;
  const Json cols = Json::parse(read_bytes(out));
  ASSERT_EQ(cols.size(), 4u);
  for (size_t c = 0; c < 4; ++c) {
    SCOPED_TRACE(cols[c]["name"].as_string());
    EXPECT_EQ(cols[c]["name"].as_string(), df.columns()[c]);
    expect_like_pandas(df.column(int64_t(c)), cols[c]);
  }
}

}  // namespace
}  // namespace ember::frame
