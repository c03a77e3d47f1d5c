// ember::frame compute against numpy, pandas 3 and pyarrow: compute_reference.py generates
// columns (nulls, empty and all-null columns, slices at non-zero offsets, unicode strings)
// and the results those libraries give; each test below runs one family of ops on them
// and compares dtypes, nulls and values (floats to a tight tolerance) or error messages.
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "ember/frame/compute/compute.h"
#include "ember/frame/frame.h"
#include "test_util.h"

namespace ember::frame {
namespace {

namespace fs = std::filesystem;
using ember::test::Json;

struct Reference {
  std::string skip;
  Json doc;
};

const Reference& reference() {
  static Reference* ref = [] {
    auto* r = new Reference;
    if (std::system("python3 -c 'import numpy, pandas, pyarrow' >/dev/null 2>&1") != 0) {
      r->skip = "numpy, pandas and pyarrow are not installed for python3 (scripts/install-deps.sh installs them)";
      return r;
    }
    const fs::path script = fs::path(EMBER_GOLDEN_DIR).parent_path() / "frame" / "compute_reference.py";
    const fs::path out = fs::read_symlink("/proc/self/exe").parent_path() /
                         ("compute_reference." + std::to_string(getpid()) + ".json");
    const std::string cmd = "python3 '" + script.string() + "' '" + out.string() + "' 2>&1";
    std::string output;
    if (FILE* p = popen(cmd.c_str(), "r")) {
      char buf[4096];
      while (size_t k = fread(buf, 1, sizeof(buf), p)) output.append(buf, k);
      EXPECT_EQ(pclose(p), 0) << "compute_reference.py failed:\n" << output;
    }
    std::ifstream in(out);
    std::stringstream ss;
    ss << in.rdbuf();
    fs::remove(out);
    r->doc = Json::parse(ss.str());
    return r;
  }();
  return *ref;
}

// ---- specs -> columns and values --------------------------------------------------------------

DType parse_type(std::string_view t, bool nullable) {
  if (t.rfind("list<", 0) == 0) return dtypes::List(parse_type(t.substr(5, t.size() - 6), true), nullable);
  if (t.rfind("timestamp[", 0) == 0) {
    const std::string_view u = t.substr(10, t.size() - 11);
    const TimeUnit unit = u == "s" ? TimeUnit::Second : u == "ms" ? TimeUnit::Milli : u == "us" ? TimeUnit::Micro : TimeUnit::Nano;
    return dtypes::Timestamp(unit, "", nullable);
  }
  static const std::map<std::string, TypeId, std::less<>> ids = {
      {"bool", TypeId::Bool},       {"int8", TypeId::Int8},       {"int16", TypeId::Int16},
      {"int32", TypeId::Int32},     {"int64", TypeId::Int64},     {"uint8", TypeId::UInt8},
      {"uint16", TypeId::UInt16},   {"uint32", TypeId::UInt32},   {"uint64", TypeId::UInt64},
      {"float32", TypeId::Float32}, {"float64", TypeId::Float64}, {"string", TypeId::String},
      {"large_string", TypeId::LargeString}, {"date32", TypeId::Date32}};
  auto it = ids.find(t);
  if (it == ids.end()) throw std::runtime_error("unknown type " + std::string(t));
  return DType(it->second, nullable);
}

Value integer_value(const Json& j) {
  const std::string& s = j.as_string();
  if (!s.empty() && s[0] == '-') return Value(int64_t(std::stoll(s)));
  return Value(uint64_t(std::stoull(s)));
}

double float_value(const Json& j) {
  if (j.type() == Json::Type::String) {
    const std::string& s = j.as_string();
    if (s == "nan") return std::nan("");
    return s == "inf" ? INFINITY : -INFINITY;
  }
  return std::strtod(j.as_string().c_str(), nullptr);
}

Value json_value(const Json& j, const DType& t) {
  if (j.is_null()) return Value();
  if (t.is_floating()) return Value(float_value(j));
  if (t.is_integer() || t.id() == TypeId::Date32 || t.id() == TypeId::Timestamp) return integer_value(j);
  if (t.id() == TypeId::Bool) return Value(j.as_bool());
  if (t.is_binary_like()) return Value(j.as_string());
  Value::List items;
  for (const Json& x : j.items()) items.push_back(json_value(x, t.value_type()));
  return Value(std::move(items));
}

Column make_column(const Json& spec) {
  const DType t = parse_type(spec["type"].as_string(), spec["nullable"].as_bool());
  std::vector<Value> values;
  for (const Json& v : spec["values"].items()) values.push_back(json_value(v, t));
  Column c = column_from_values(values, t);
  if (spec.contains("slice")) c = c.slice(spec["slice"][0].as_int(), spec["slice"][1].as_int());
  return c;
}

Value make_scalar(const Json& spec) {
  const std::string& kind = spec["kind"].as_string();
  const Json& v = spec["scalar"];
  if (kind == "null") return Value();
  if (kind == "int") return integer_value(v);
  if (kind == "float") return Value(float_value(v));
  if (kind == "bool") return Value(v.as_bool());
  return Value(v.as_string());
}

struct Arg {
  bool is_column = false;
  Column col;
  Value val;
};

Arg make_arg(const Json& spec) {
  Arg a;
  if (spec.contains("scalar")) {
    a.val = make_scalar(spec);
  } else {
    a.is_column = true;
    a.col = make_column(spec);
  }
  return a;
}

// ---- the ops, by name -----------------------------------------------------------------------

struct Result {
  enum Kind { Col, Val, Counts } kind = Val;
  Column col;
  Value val;
};
Result col_result(Column c) { return Result{Result::Col, std::move(c), Value()}; }
Result val_result(Value v) { return Result{Result::Val, Column(), std::move(v)}; }

using BinaryCC = Column (*)(const Column&, const Column&);
using BinaryCV = Column (*)(const Column&, const Value&);
using BinaryVC = Column (*)(const Value&, const Column&);
struct Binary {
  BinaryCC cc;
  BinaryCV cv;
  BinaryVC vc;
};
#define EMBER_BINARY(f) Binary{static_cast<BinaryCC>(&f), static_cast<BinaryCV>(&f), static_cast<BinaryVC>(&f)}

const std::map<std::string, Binary>& binaries() {
  static const std::map<std::string, Binary> m = {
      {"add", EMBER_BINARY(add)}, {"sub", EMBER_BINARY(sub)}, {"mul", EMBER_BINARY(mul)},
      {"truediv", EMBER_BINARY(truediv)}, {"floordiv", EMBER_BINARY(floordiv)}, {"mod", EMBER_BINARY(mod)},
      {"pow", EMBER_BINARY(pow)}, {"eq", EMBER_BINARY(eq)}, {"ne", EMBER_BINARY(ne)}, {"lt", EMBER_BINARY(lt)},
      {"le", EMBER_BINARY(le)}, {"gt", EMBER_BINARY(gt)}, {"ge", EMBER_BINARY(ge)}};
  return m;
}
#undef EMBER_BINARY

std::optional<int64_t> opt_int(const Json& kw, std::string_view key) {
  if (!kw.contains(key) || kw[key].is_null()) return std::nullopt;
  return kw[key].as_int();
}

Result run_op(const std::string& op, const std::vector<Arg>& a, const Json& kw) {
  if (auto it = binaries().find(op); it != binaries().end()) {
    const Binary& b = it->second;
    if (a[0].is_column && a[1].is_column) return col_result(b.cc(a[0].col, a[1].col));
    if (a[0].is_column) return col_result(b.cv(a[0].col, a[1].val));
    return col_result(b.vc(a[0].val, a[1].col));
  }
  const Column& c = a[0].col;
  static const std::map<std::string, std::function<Result(const Column&, const std::vector<Arg>&, const Json&)>> ops = {
      {"and", [](const Column& c, const auto& a, const Json&) { return col_result(c & a[1].col); }},
      {"or", [](const Column& c, const auto& a, const Json&) { return col_result(c | a[1].col); }},
      {"xor", [](const Column& c, const auto& a, const Json&) { return col_result(c ^ a[1].col); }},
      {"not", [](const Column& c, const auto&, const Json&) { return col_result(~c); }},
      {"neg", [](const Column& c, const auto&, const Json&) { return col_result(-c); }},
      {"abs", [](const Column& c, const auto&, const Json&) { return col_result(c.abs()); }},
      {"ceil", [](const Column& c, const auto&, const Json&) { return col_result(c.ceil()); }},
      {"floor", [](const Column& c, const auto&, const Json&) { return col_result(c.floor()); }},
      {"round", [](const Column& c, const auto&, const Json& kw) { return col_result(c.round(int(kw["decimals"].as_int()))); }},
      {"log", [](const Column& c, const auto&, const Json&) { return col_result(c.log()); }},
      {"exp", [](const Column& c, const auto&, const Json&) { return col_result(c.exp()); }},
      {"sqrt", [](const Column& c, const auto&, const Json&) { return col_result(c.sqrt()); }},
      {"is_null", [](const Column& c, const auto&, const Json&) { return col_result(c.is_null()); }},
      {"is_valid", [](const Column& c, const auto&, const Json&) { return col_result(c.is_valid()); }},
      {"fill_null", [](const Column& c, const auto&, const Json& kw) { return col_result(c.fill_null(make_scalar(kw["value"]))); }},
      {"drop_null", [](const Column& c, const auto&, const Json&) { return col_result(c.drop_null()); }},
      {"isin",
       [](const Column& c, const auto&, const Json& kw) {
         std::vector<Value> vals;
         for (const Json& v : kw["values"].items()) vals.push_back(make_scalar(v));
         return col_result(c.isin(vals));
       }},
      {"filter", [](const Column& c, const auto& a, const Json&) { return col_result(c.filter(a[1].col)); }},
      {"take", [](const Column& c, const auto& a, const Json&) { return col_result(c.take(a[1].col)); }},
      {"cast",
       [](const Column& c, const auto&, const Json& kw) {
         return col_result(c.cast(parse_type(kw["type"].as_string(), true), CastOptions{kw["safe"].as_bool()}));
       }},
      {"sum", [](const Column& c, const auto&, const Json&) { return val_result(c.sum()); }},
      {"mean", [](const Column& c, const auto&, const Json&) { return val_result(c.mean()); }},
      {"std", [](const Column& c, const auto&, const Json&) { return val_result(c.std()); }},
      {"var", [](const Column& c, const auto&, const Json& kw) { return val_result(c.var(kw["ddof"].as_int())); }},
      {"median", [](const Column& c, const auto&, const Json&) { return val_result(c.median()); }},
      {"quantile", [](const Column& c, const auto&, const Json& kw) { return val_result(c.quantile(kw["q"].as_double())); }},
      {"count", [](const Column& c, const auto&, const Json&) { return val_result(c.count()); }},
      {"min", [](const Column& c, const auto&, const Json&) { return val_result(c.min()); }},
      {"max", [](const Column& c, const auto&, const Json&) { return val_result(c.max()); }},
      {"any", [](const Column& c, const auto&, const Json&) { return val_result(c.any()); }},
      {"all", [](const Column& c, const auto&, const Json&) { return val_result(c.all()); }},
      {"argmin", [](const Column& c, const auto&, const Json&) { return val_result(c.argmin()); }},
      {"argmax", [](const Column& c, const auto&, const Json&) { return val_result(c.argmax()); }},
      {"cumsum", [](const Column& c, const auto&, const Json&) { return col_result(c.cumsum()); }},
      {"sort",
       [](const Column& c, const auto&, const Json& kw) {
         return col_result(c.sort(SortOptions{kw["ascending"].as_bool(), kw["nulls_first"].as_bool()}));
       }},
      {"argsort",
       [](const Column& c, const auto&, const Json& kw) {
         return col_result(c.argsort(SortOptions{kw["ascending"].as_bool(), kw["nulls_first"].as_bool()}));
       }},
      {"unique", [](const Column& c, const auto&, const Json&) { return col_result(c.unique()); }},
      {"value_counts",
       [](const Column& c, const auto&, const Json& kw) {
         return Result{Result::Counts, c.value_counts(kw["dropna"].as_bool()), Value()};
       }},
      {"nunique", [](const Column& c, const auto&, const Json& kw) { return val_result(c.nunique(kw["dropna"].as_bool())); }},
      {"str.len", [](const Column& c, const auto&, const Json&) { return col_result(c.str().len()); }},
      {"str.slice",
       [](const Column& c, const auto&, const Json& kw) {
         return col_result(c.str().slice(opt_int(kw, "start"), opt_int(kw, "stop"), kw["step"].as_int()));
       }},
      {"str.split",
       [](const Column& c, const auto&, const Json& kw) {
         return col_result(c.str().split(kw["sep"].as_string(), kw["maxsplit"].as_int()));
       }},
      {"str.strip", [](const Column& c, const auto&, const Json& kw) { return col_result(c.str().strip(kw["chars"].as_string())); }},
      {"str.lstrip", [](const Column& c, const auto&, const Json& kw) { return col_result(c.str().lstrip(kw["chars"].as_string())); }},
      {"str.rstrip", [](const Column& c, const auto&, const Json& kw) { return col_result(c.str().rstrip(kw["chars"].as_string())); }},
      {"str.lower", [](const Column& c, const auto&, const Json&) { return col_result(c.str().lower()); }},
      {"str.upper", [](const Column& c, const auto&, const Json&) { return col_result(c.str().upper()); }},
      {"str.startswith", [](const Column& c, const auto&, const Json& kw) { return col_result(c.str().startswith(kw["pat"].as_string())); }},
      {"str.endswith", [](const Column& c, const auto&, const Json& kw) { return col_result(c.str().endswith(kw["pat"].as_string())); }},
      {"str.contains",
       [](const Column& c, const auto&, const Json& kw) {
         return col_result(c.str().contains(kw["pat"].as_string(), kw["regex"].as_bool()));
       }},
      {"str.find", [](const Column& c, const auto&, const Json& kw) { return col_result(c.str().find(kw["pat"].as_string())); }},
      {"str.replace",
       [](const Column& c, const auto&, const Json& kw) {
         return col_result(c.str().replace(kw["pat"].as_string(), kw["repl"].as_string(), kw["regex"].as_bool(),
                                           kw["n"].as_int()));
       }},
      {"str.match", [](const Column& c, const auto&, const Json& kw) { return col_result(c.str().match(kw["pat"].as_string())); }},
      {"str.fullmatch", [](const Column& c, const auto&, const Json& kw) { return col_result(c.str().fullmatch(kw["pat"].as_string())); }},
      {"str.findall", [](const Column& c, const auto&, const Json& kw) { return col_result(c.str().findall(kw["pat"].as_string())); }},
      {"str.cat", [](const Column& c, const auto& a, const Json& kw) { return col_result(c.str().cat(a[1].col, kw["sep"].as_string())); }},
      {"str.cat_all", [](const Column& c, const auto&, const Json& kw) { return val_result(Value(c.str().cat(kw["sep"].as_string()))); }},
      {"str.isalpha", [](const Column& c, const auto&, const Json&) { return col_result(c.str().isalpha()); }},
      {"str.isnumeric", [](const Column& c, const auto&, const Json&) { return col_result(c.str().isnumeric()); }},
      {"str.isdigit", [](const Column& c, const auto&, const Json&) { return col_result(c.str().isdigit()); }},
      {"str.isdecimal", [](const Column& c, const auto&, const Json&) { return col_result(c.str().isdecimal()); }},
      {"str.isalnum", [](const Column& c, const auto&, const Json&) { return col_result(c.str().isalnum()); }},
      {"str.isspace", [](const Column& c, const auto&, const Json&) { return col_result(c.str().isspace()); }},
      {"str.islower", [](const Column& c, const auto&, const Json&) { return col_result(c.str().islower()); }},
      {"str.isupper", [](const Column& c, const auto&, const Json&) { return col_result(c.str().isupper()); }},
      {"list.len", [](const Column& c, const auto&, const Json&) { return col_result(c.list().length()); }},
      {"list.get", [](const Column& c, const auto&, const Json& kw) { return col_result(c.list().get(kw["i"].as_int())); }},
      {"list.slice",
       [](const Column& c, const auto&, const Json& kw) {
         return col_result(c.list().slice(opt_int(kw, "start"), opt_int(kw, "stop")));
       }},
      {"list.join", [](const Column& c, const auto&, const Json& kw) { return col_result(c.list().join(kw["sep"].as_string())); }},
      {"list.flatten", [](const Column& c, const auto&, const Json&) { return col_result(c.list().flatten()); }},
  };
  auto it = ops.find(op);
  if (it == ops.end()) throw std::runtime_error("unknown op " + op);
  return it->second(c, a, kw);
}

// ---- comparison ---------------------------------------------------------------------------------

bool close(double got, double want, double rtol, double atol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= atol + rtol * std::fabs(want);
}

// Element equality of a result Value and an expected Value of dtype t.
bool same_value(const Value& got, const Value& want, const DType& t, std::string* why) {
  if (want.is_null() || got.is_null()) {
    if (want.is_null() != got.is_null()) *why = "null mismatch";
    return want.is_null() == got.is_null();
  }
  if (t.is_floating()) {
    const double rtol = t.id() == TypeId::Float32 ? 1e-6 : 1e-13;
    if (!close(got.as_double(), want.as_double(), rtol, 1e-300)) {
      *why = "float mismatch";
      return false;
    }
    return true;
  }
  if (t.is_list_like()) {
    const auto& g = got.as_list();
    const auto& w = want.as_list();
    if (g.size() != w.size()) {
      *why = "list length mismatch";
      return false;
    }
    for (size_t i = 0; i < g.size(); ++i)
      if (!same_value(g[i], w[i], t.value_type(), why)) return false;
    return true;
  }
  if (!(got == want)) *why = "value mismatch";
  return got == want;
}

::testing::AssertionResult column_matches(const Column& got, const Json& spec) {
  const DType want_t = parse_type(spec["type"].as_string(), true);
  if (!got.dtype().equals(want_t, false))
    return ::testing::AssertionFailure() << "dtype " << got.dtype() << ", expected " << want_t;
  if (spec.contains("nullable") && got.dtype().nullable() != spec["nullable"].as_bool())
    return ::testing::AssertionFailure() << "dtype " << got.dtype() << " should " << (spec["nullable"].as_bool() ? "" : "not ")
                                         << "be nullable";
  const auto& values = spec["values"].items();
  if (got.size() != int64_t(values.size()))
    return ::testing::AssertionFailure() << "length " << got.size() << ", expected " << values.size();
  for (size_t i = 0; i < values.size(); ++i) {
    const Value want = json_value(values[i], want_t);
    const Value g = got.get_value(int64_t(i));
    std::string why;
    if (!same_value(g, want, want_t, &why))
      return ::testing::AssertionFailure() << why << " at row " << i << ": got " << g << ", expected " << want;
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult scalar_matches(const Value& got, const Json& spec) {
  const Value want = make_scalar(spec);
  const std::string& kind = spec["kind"].as_string();
  if (kind == "float") {
    if (!(got.is_double() || got.is_integer()))
      return ::testing::AssertionFailure() << "got " << got << ", expected a float " << want;
    const double scale = spec.contains("scale") ? spec["scale"].as_double() : 0.0;
    if (!close(got.as_double(), want.as_double(), 1e-13, 1e-11 * scale + 1e-300))
      return ::testing::AssertionFailure() << "got " << got << ", expected " << want;
    return ::testing::AssertionSuccess();
  }
  if (!(got == want)) return ::testing::AssertionFailure() << "got " << got << ", expected " << want;
  return ::testing::AssertionSuccess();
}

// Runs every case whose op is in `ops`; returns how many ran.
int run_cases(const std::set<std::string>& ops) {
  const Reference& ref = reference();
  if (!ref.skip.empty()) return -1;
  int ran = 0, failures = 0;
  for (const Json& c : ref.doc["cases"].items()) {
    const std::string& op = c["op"].as_string();
    if (!ops.count(op)) continue;
    ++ran;
    const std::string name = c["name"].as_string();
    const Json& expect = c["expect"];
    std::string problem;
    try {
      std::vector<Arg> args;
      for (const Json& a : c["args"].items()) args.push_back(make_arg(a));
      const Result r = run_op(op, args, c["kw"]);
      if (expect.contains("error")) {
        problem = "expected an error containing \"" + expect["error"].as_string() + "\"";
      } else if (r.kind == Result::Counts) {
        auto v = column_matches(r.col.field("values"), expect["values"]);
        auto n = column_matches(r.col.field("counts"), expect["counts"]);
        if (!v) problem = std::string("values: ") + v.message();
        else if (!n) problem = std::string("counts: ") + n.message();
      } else if (r.kind == Result::Col) {
        if (auto m = column_matches(r.col, expect); !m) problem = m.message();
      } else {
        if (auto m = scalar_matches(r.val, expect); !m) problem = m.message();
      }
    } catch (const Error& e) {
      if (!expect.contains("error")) problem = std::string("unexpected error: ") + e.what();
      else if (std::string(e.what()).find(expect["error"].as_string()) == std::string::npos)
        problem = std::string("error \"") + e.what() + "\" does not contain \"" + expect["error"].as_string() + "\"";
    }
    if (!problem.empty() && ++failures <= 40) ADD_FAILURE() << name << ": " << problem;
  }
  EXPECT_EQ(failures, 0) << "cases failed";
  return ran;
}

// The op families, one test each.
const std::vector<std::pair<std::string, std::set<std::string>>>& families() {
  static const std::vector<std::pair<std::string, std::set<std::string>>> f = {
      {"Arithmetic", {"add", "sub", "mul", "truediv", "floordiv", "mod", "pow"}},
      {"Math", {"neg", "abs", "ceil", "floor", "round", "log", "exp", "sqrt"}},
      {"ComparisonsAndLogic", {"eq", "ne", "lt", "le", "gt", "ge", "and", "or", "xor", "not"}},
      {"NullsMembershipSelection", {"is_null", "is_valid", "fill_null", "drop_null", "isin", "filter", "take"}},
      {"Cast", {"cast"}},
      {"Aggregations", {"sum", "mean", "std", "var", "median", "quantile", "count", "min", "max", "any", "all", "argmin",
                        "argmax", "cumsum"}},
      {"SortAndDistinct", {"sort", "argsort", "unique", "value_counts", "nunique"}},
      {"Strings", {"str.len", "str.slice", "str.split", "str.strip", "str.lstrip", "str.rstrip", "str.lower", "str.upper",
                   "str.startswith", "str.endswith", "str.contains", "str.find", "str.replace", "str.match",
                   "str.fullmatch", "str.findall", "str.cat", "str.cat_all", "str.isalpha", "str.isnumeric",
                   "str.isdigit", "str.isdecimal", "str.isalnum", "str.isspace", "str.islower", "str.isupper"}},
      {"Lists", {"list.len", "list.get", "list.slice", "list.join", "list.flatten"}},
  };
  return f;
}

void run_family(const std::string& name) {
  for (const auto& [n, ops] : families()) {
    if (n != name) continue;
    const int ran = run_cases(ops);
    if (ran < 0) GTEST_SKIP() << reference().skip;
    EXPECT_GT(ran, 20) << "too few cases for " << name;
    return;
  }
  FAIL() << "no family " << name;
}

TEST(ComputeReference, Arithmetic) { run_family("Arithmetic"); }
TEST(ComputeReference, Math) { run_family("Math"); }
TEST(ComputeReference, ComparisonsAndLogic) { run_family("ComparisonsAndLogic"); }
TEST(ComputeReference, NullsMembershipSelection) { run_family("NullsMembershipSelection"); }
TEST(ComputeReference, Cast) { run_family("Cast"); }
TEST(ComputeReference, Aggregations) { run_family("Aggregations"); }
TEST(ComputeReference, SortAndDistinct) { run_family("SortAndDistinct"); }
TEST(ComputeReference, Strings) { run_family("Strings"); }
TEST(ComputeReference, Lists) { run_family("Lists"); }

TEST(ComputeReference, EveryCaseBelongsToAFamily) {
  const Reference& ref = reference();
  if (!ref.skip.empty()) GTEST_SKIP() << ref.skip;
  std::set<std::string> known, missing;
  for (const auto& [n, ops] : families()) known.insert(ops.begin(), ops.end());
  for (const Json& c : ref.doc["cases"].items())
    if (!known.count(c["op"].as_string())) missing.insert(c["op"].as_string());
  EXPECT_TRUE(missing.empty()) << "cases of ops no test runs, e.g. " << *missing.begin();
  EXPECT_GT(ref.doc["cases"].size(), 1500u);
}

}  // namespace
}  // namespace ember::frame
