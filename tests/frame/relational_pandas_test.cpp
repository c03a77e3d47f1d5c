// ember::frame's relational operations against pandas: sort, groupby().agg, join (merge),
// drop_duplicates, where and describe on generated frames with nulls, several key types and
// strings. relational_pandas.py computes the expected values and row orders with pandas and
// writes them, with the frames, to a JSON file next to this binary (regenerated when the
// script changes); each test compares ember's results with them exactly (floats to 1e-9
// relative).
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "ember/frame/frame.h"
#include "ember/frame/relational/relational.h"
#include "frame_test_util.h"
#include "temp_files.h"
#include "test_util.h"

namespace ember::frame {
namespace {

namespace fs = std::filesystem;
using ember::test::Json;
using ember::test::read_bytes;
using test::quote;  // frame_test_util.h

struct PandasReference {
  std::string skip, error;
  Json json;
  std::map<std::string, DataFrame> frames;
};

DType dtype_named(const std::string& name, bool nullable) {
  if (name == "int64") return dtypes::Int64(nullable);
  if (name == "int32") return dtypes::Int32(nullable);
  if (name == "uint8") return dtypes::UInt8(nullable);
  if (name == "float64") return dtypes::Float64(nullable);
  if (name == "float32") return dtypes::Float32(nullable);
  if (name == "bool") return dtypes::Boolean(nullable);
  if (name == "string") return dtypes::String(nullable);
  throw std::runtime_error("unknown dtype " + name);
}

Value value_of(const Json& j, const DType& t) {
  if (j.is_null()) return Value();
  if (t.id() == TypeId::Bool) return Value(j.as_bool());
  if (t.is_string()) return Value(j.as_string());
  if (t.is_floating()) return Value(j.as_double());
  return Value(j.as_int());
}

DataFrame frame_from_json(const Json& f) {
  std::vector<std::pair<std::string, Column>> cols;
  for (const Json& c : f["columns"].items()) {
    const DType t = dtype_named(c["dtype"].as_string(), c["nullable"].as_bool());
    std::vector<Value> values;
    for (const Json& v : c["values"].items()) values.push_back(value_of(v, t));
    cols.emplace_back(c["name"].as_string(), column_from_values(values, t));
  }
  return DataFrame(std::move(cols));
}

PandasReference load() {
  PandasReference r;
  if (std::system("python3 -c 'import pandas' >/dev/null 2>&1") != 0) {
    r.skip = "pandas is not installed for python3";
    return r;
  }
  const fs::path script = fs::path(EMBER_GOLDEN_DIR).parent_path() / "frame" / "relational_pandas.py";
  const fs::path dir = fs::read_symlink("/proc/self/exe").parent_path();
  const fs::path out = dir / "relational_pandas.json", log = dir / "relational_pandas.log";
  // Under a lock (CTest runs these tests as parallel processes); regenerated when the script
  // is newer than its output.
  const std::string cmd = "flock " + quote(dir / "relational_pandas.lock") + " sh -c \"[ " + quote(out) + " -nt " +
                          quote(script) + " ] || (python3 " + quote(script) + " " + quote(out.string() + ".tmp") +
                          " && mv " + quote(out.string() + ".tmp") + " " + quote(out) + ")\" >" + quote(log) + " 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    r.error = "relational_pandas.py failed:\n" + read_bytes(log);
    return r;
  }
  try {
    r.json = Json::parse(read_bytes(out));
    for (const auto& [name, f] : r.json["frames"].fields()) r.frames[name] = frame_from_json(f);
  } catch (const std::exception& e) {
    r.error = std::string("reading ") + out.string() + ": " + e.what();
  }
  return r;
}

const PandasReference& pandas_reference() {
  static const PandasReference r = load();
  return r;
}

#define REQUIRE_REFERENCE()                        \
  const PandasReference& ref = pandas_reference(); \
  if (!ref.skip.empty()) GTEST_SKIP() << ref.skip; \
  ASSERT_TRUE(ref.error.empty()) << ref.error;

std::vector<const Json*> cases(const PandasReference& ref, const std::string& op) {
  std::vector<const Json*> out;
  for (const Json& c : ref.json["cases"].items())
    if (c["op"].as_string() == op) out.push_back(&c);
  return out;
}

std::vector<std::string> strings(const Json& j) {
  std::vector<std::string> out;
  for (const Json& x : j.items()) out.push_back(x.as_string());
  return out;
}

std::vector<bool> bools(const Json& j) {
  std::vector<bool> out;
  for (const Json& x : j.items()) out.push_back(x.as_bool());
  return out;
}

// "" when element `got` (of dtype t) matches the expected JSON value, else why not.
std::string mismatch(const Value& got, const DType& t, const Json& want) {
  std::ostringstream os;
  if (want.is_null() || got.is_null()) {
    if (want.is_null() && got.is_null()) return "";
    os << "got " << got.to_string() << ", expected " << (want.is_null() ? "None" : "a value");
    return os.str();
  }
  if (t.is_list_like()) {
    if (want.type() != Json::Type::Array || got.as_list().size() != want.items().size()) {
      os << "got the list " << got.to_string() << " of another length than expected";
      return os.str();
    }
    for (size_t i = 0; i < want.items().size(); ++i) {
      std::string m = mismatch(got.as_list()[i], t.value_type(), want.items()[i]);
      if (!m.empty()) return "list item " + std::to_string(i) + ": " + m;
    }
    return "";
  }
  if (t.is_floating()) {
    const double a = got.as_double(), b = want.as_double();
    if (a == b || std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b))) return "";
    os.precision(17);
    os << "got " << a << ", expected " << b;
    return os.str();
  }
  if (t.id() == TypeId::Bool) {
    if (want.type() == Json::Type::Bool && got.as_bool() == want.as_bool()) return "";
  } else if (t.is_string()) {
    if (want.type() == Json::Type::String && got.as_string() == want.as_string()) return "";
  } else if (t.is_integer()) {
    if (want.type() == Json::Type::Number &&
        (t.is_unsigned_integer() ? got.as_uint() == uint64_t(want.as_int()) : got.as_int() == want.as_int()))
      return "";
  }
  os << "got " << got.to_string() << ", expected " << (want.type() == Json::Type::String ? want.as_string() : "another value");
  return os.str();
}

// The frame has the expected column names, in order, and values, row by row.
void expect_frame(const DataFrame& got, const Json& expect, const std::string& ctx) {
  const auto& cols = expect["columns"].items();
  std::vector<std::string> names;
  for (const Json& c : cols) names.push_back(c["name"].as_string());
  ASSERT_EQ(got.columns(), names) << ctx;
  int failures = 0;
  for (size_t c = 0; c < cols.size(); ++c) {
    const auto& want = cols[c]["values"].items();
    const Column& col = got.column(int64_t(c));
    ASSERT_EQ(col.size(), int64_t(want.size())) << ctx << ", column " << names[c];
    for (size_t i = 0; i < want.size() && failures < 8; ++i) {
      const std::string m = mismatch(col.get_value(int64_t(i)), col.dtype(), want[i]);
      if (!m.empty()) {
        ADD_FAILURE() << ctx << ", column '" << names[c] << "' (" << col.dtype() << "), row " << i << ": " << m;
        ++failures;
      }
    }
  }
}

std::vector<int64_t> int64_values(const DataFrame& df, const std::string& name) {
  std::vector<int64_t> out;
  const Column& c = df[name];
  for (int64_t i = 0; i < c.size(); ++i) out.push_back(*c.get<int64_t>(i));
  return out;
}

std::vector<int64_t> ints(const Json& j) {
  std::vector<int64_t> out;
  for (const Json& x : j.items()) out.push_back(x.as_int());
  return out;
}

// Every row of `got` is row ids[i] of `src`.
void expect_rows_of(const DataFrame& got, const DataFrame& src, const std::vector<int64_t>& ids, const std::string& ctx) {
  ASSERT_EQ(got.num_rows(), int64_t(ids.size())) << ctx;
  ASSERT_EQ(got.columns(), src.columns()) << ctx;
  for (int64_t c = 0; c < got.num_columns(); ++c) {
    ASSERT_TRUE(got.column(c).dtype() == src.column(c).dtype()) << ctx;
    for (size_t i = 0; i < ids.size(); ++i)
      ASSERT_EQ(got.column(c).get_value(int64_t(i)), src.column(c).get_value(ids[i]))
          << ctx << ", column " << got.columns()[size_t(c)] << ", row " << i;
  }
}

TEST(FrameRelationalPandas, Sort) {
  REQUIRE_REFERENCE();
  const auto cs = cases(ref, "sort");
  ASSERT_GE(cs.size(), 17u);
  for (const Json* c : cs) {
    const std::string ctx = "sort " + (*c)["name"].as_string();
    const DataFrame& df = ref.frames.at((*c)["frame"].as_string());
    const DataFrame got = df.sort(strings((*c)["by"]), bools((*c)["ascending"]), bools((*c)["nulls_first"]));
    const auto want = ints((*c)["expect_ids"]);
    EXPECT_EQ(int64_values(got, "id"), want) << ctx;
    if (df.num_rows() <= 5000) expect_rows_of(got, df, want, ctx);
  }
}

TEST(FrameRelationalPandas, GroupByAgg) {
  REQUIRE_REFERENCE();
  const auto cs = cases(ref, "groupby");
  ASSERT_GE(cs.size(), 10u);
  for (const Json* c : cs) {
    const std::string ctx = "groupby " + (*c)["name"].as_string();
    const DataFrame& df = ref.frames.at((*c)["frame"].as_string());
    std::vector<std::pair<std::string, std::vector<std::string>>> spec;
    for (const Json& s : (*c)["spec"].items()) spec.push_back({s[0].as_string(), strings(s[1])});
    const GroupBy g = df.groupby(strings((*c)["keys"]), (*c)["sort"].as_bool(), (*c)["dropna"].as_bool());
    expect_frame(g.agg(spec), (*c)["expect"], ctx);
  }
}

TEST(FrameRelationalPandas, Join) {
  REQUIRE_REFERENCE();
  const auto cs = cases(ref, "join");
  ASSERT_GE(cs.size(), 18u);
  const DataFrame& left = ref.frames.at("L");
  const DataFrame& right = ref.frames.at("R");
  for (const Json* c : cs) {
    const std::string ctx = "join " + (*c)["name"].as_string();
    JoinOptions o;
    const std::string how = (*c)["how"].as_string();
    o.how = how == "inner" ? JoinHow::Inner : how == "left" ? JoinHow::Left : how == "right" ? JoinHow::Right : JoinHow::Outer;
    o.on = strings((*c)["on"]);
    o.left_on = strings((*c)["left_on"]);
    o.right_on = strings((*c)["right_on"]);
    o.suffixes = {(*c)["suffixes"][0].as_string(), (*c)["suffixes"][1].as_string()};
    expect_frame(left.join(right, o), (*c)["expect"], ctx);
    if (!o.on.empty() && o.suffixes.first == "_x") {  // the pandas-style spelling gives the same frame
      EXPECT_TRUE(left.join(right, o.on, how).equals(left.join(right, o))) << ctx;
    }
  }
}

TEST(FrameRelationalPandas, DropDuplicates) {
  REQUIRE_REFERENCE();
  const auto cs = cases(ref, "drop_duplicates");
  ASSERT_GE(cs.size(), 6u);
  for (const Json* c : cs) {
    const std::string ctx = "drop_duplicates " + (*c)["name"].as_string();
    const DataFrame& df = ref.frames.at((*c)["frame"].as_string());
    const DataFrame got = df.drop_duplicates(strings((*c)["subset"]), (*c)["keep"].as_string());
    const auto want = ints((*c)["expect_ids"]);
    EXPECT_EQ(int64_values(got, "id"), want) << ctx;
    expect_rows_of(got, df, want, ctx);
  }
}

TEST(FrameRelationalPandas, Where) {
  REQUIRE_REFERENCE();
  const auto cs = cases(ref, "where");
  ASSERT_GE(cs.size(), 1u);
  for (const Json* c : cs) {
    const DataFrame& df = ref.frames.at((*c)["frame"].as_string());
    const DataFrame got = df.where(df[(*c)["mask"].as_string()]);
    const auto want = ints((*c)["expect_ids"]);
    EXPECT_EQ(int64_values(got, "id"), want);
    expect_rows_of(got, df, want, "where");
  }
}

TEST(FrameRelationalPandas, Describe) {
  REQUIRE_REFERENCE();
  const auto cs = cases(ref, "describe");
  ASSERT_GE(cs.size(), 3u);
  for (const Json* c : cs) {
    const DataFrame& df = ref.frames.at((*c)["frame"].as_string());
    std::vector<double> ps;
    for (const Json& p : (*c)["percentiles"].items()) ps.push_back(p.as_double());
    expect_frame(df.describe(ps), (*c)["expect"], "describe " + (*c)["name"].as_string());
  }
}

#undef REQUIRE_REFERENCE

}  // namespace
}  // namespace ember::frame
