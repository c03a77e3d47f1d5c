// Tensor comparison and golden-file reading for tests.
#include "test_util.h"

#include <dlfcn.h>

#include <cctype>
#include <cmath>
#include <complex>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "ember/core/json.h"

namespace ember::test {

// As PyTorch, the default generator starts from a nondeterministic seed; ember's own tests
// start it from a fixed one, so that every run draws the same inputs (no test depends on luck).
[[maybe_unused]] const bool kTestsSeeded = [] {
  manual_seed(20241203);
  return true;
}();

::testing::AssertionResult tensors_close(const Tensor& actual, const Tensor& expected, double rtol, double atol) {
  if (!actual.defined() || !expected.defined())
    return ::testing::AssertionFailure() << "undefined tensor";
  if (actual.sizes() != expected.sizes())
    return ::testing::AssertionFailure() << "shape " << actual.sizes() << " != expected " << expected.sizes();
  if (actual.scalar_type() != expected.scalar_type())
    return ::testing::AssertionFailure() << "dtype " << actual.scalar_type() << " != expected " << expected.scalar_type();
  ScalarType t = toRealValueType(actual.scalar_type());
  if (rtol < 0) rtol = t == kHalf ? 1e-3 : t == kBFloat16 ? 1.6e-2 : t == kFloat ? 1.3e-6 : 1e-7;
  if (atol < 0) atol = t == kHalf ? 1e-5 : t == kBFloat16 ? 1e-5 : t == kFloat ? 1e-5 : 1e-7;
  ScalarType wide = actual.is_complex() ? kComplexDouble : kDouble;
  Tensor a = actual.to(wide).contiguous(), e = expected.to(wide).contiguous();
  if (actual.is_complex()) {
    a = view_as_real(a).contiguous();
    e = view_as_real(e).contiguous();
  }
  const double* ap = a.data_ptr<double>();
  const double* ep = e.data_ptr<double>();
  int64_t n = a.numel(), bad = 0, first = -1;
  for (int64_t i = 0; i < n; ++i) {
    double x = ap[i], y = ep[i];
    bool ok = (std::isnan(x) && std::isnan(y)) || x == y || std::fabs(x - y) <= atol + rtol * std::fabs(y);
    if (!ok && bad++ == 0) first = i;
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << n << " elements differ; first at flat index " << first
                                       << ": got " << ap[first] << ", expected " << ep[first] << " (rtol " << rtol
                                       << ", atol " << atol << ")";
}

}  // namespace ember::test

// ---- golden files ---------------------------------------------------------------------
namespace ember::test {

bool Json::as_bool() const {
  if (type_ != Type::Bool) throw std::runtime_error("json: not a bool");
  return b_;
}
double Json::as_double() const {
  if (type_ != Type::Number) throw std::runtime_error("json: not a number");
  return num_;
}
int64_t Json::as_int() const {
  if (type_ != Type::Number) throw std::runtime_error("json: not a number");
  return std::stoll(str_);
}
const std::string& Json::as_string() const {
  if (type_ != Type::String && type_ != Type::Number) throw std::runtime_error("json: not a string");
  return str_;
}
const std::vector<Json>& Json::items() const {
  if (type_ != Type::Array) throw std::runtime_error("json: not an array");
  return items_;
}
const std::vector<std::pair<std::string, Json>>& Json::fields() const {
  if (type_ != Type::Object) throw std::runtime_error("json: not an object");
  return fields_;
}
const Json& Json::operator[](std::string_view key) const {
  static const Json null;
  for (const auto& [k, v] : fields()) if (k == key) return v;
  return null;
}
bool Json::contains(std::string_view key) const {
  if (type_ != Type::Object) return false;
  for (const auto& f : fields_) if (f.first == key) return true;
  return false;
}

// The golden headers are read by ember's own JSON reader (ember/core/json.h); the tree is
// copied into this test-side view, which adds operator[] and a Number's text.
struct JsonParser {
  static Json convert(const json::Value& v) {
    Json j;
    if (v.is_null()) return j;
    if (v.is_bool()) {
      j.type_ = Json::Type::Bool;
      j.b_ = v.as_bool();
    } else if (v.is_number()) {
      j.type_ = Json::Type::Number;
      j.num_ = v.as_double();
      j.str_ = json::dump(v);
    } else if (v.is_string()) {
      j.type_ = Json::Type::String;
      j.str_ = v.as_string();
    } else if (v.is_array()) {
      j.type_ = Json::Type::Array;
      for (const json::Value& e : v.as_array()) j.items_.push_back(convert(e));
    } else {
      j.type_ = Json::Type::Object;
      for (const auto& [k, e] : v.as_object()) j.fields_.emplace_back(k, convert(e));
    }
    return j;
  }
};

const Json& Json::golden(const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, Json> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  const std::string path = std::string(EMBER_GOLDEN_DIR) + "/" + name;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::stringstream text;
  text << in.rdbuf();
  return cache.emplace(name, Json::parse(text.str())).first->second;
}

Json Json::parse(std::string_view text) {
  try {
    return JsonParser::convert(json::parse(text, "golden header"));
  } catch (const std::exception& e) {
    throw std::runtime_error(e.what());
  }
}

namespace {
struct DtypeName { const char* name; ScalarType t; };
constexpr DtypeName kTorchNames[] = {
    {"bool", kBool},       {"uint8", kByte},     {"int8", kChar},         {"int16", kShort},
    {"int32", kInt},       {"int64", kLong},     {"float16", kHalf},      {"bfloat16", kBFloat16},
    {"float32", kFloat},   {"float64", kDouble}, {"complex32", kComplexHalf}, {"complex64", kComplexFloat},
    {"complex128", kComplexDouble}};
}  // namespace

ScalarType dtype_from_torch_name(std::string_view name) {
  for (const auto& d : kTorchNames) if (name == d.name) return d.t;
  throw std::runtime_error("golden: unknown dtype '" + std::string(name) + "'");
}
std::string torch_name(ScalarType t) {
  for (const auto& d : kTorchNames) if (t == d.t) return d.name;
  return "undefined";
}

std::string golden_path(const std::string& name) {
#ifdef EMBER_GOLDEN_DIR
  return std::string(EMBER_GOLDEN_DIR) + "/" + name + ".golden";
#else
  return "tests/golden/" + name + ".golden";
#endif
}

namespace {
struct GoldenFileData {
  Json header;
  std::vector<GoldenCase> cases;
};

Scalar parse_scalar(const std::string& type, const std::string& v) {
  if (type == "bool") return Scalar(v == "true");
  if (type == "int") return Scalar(int64_t(std::stoll(v)));
  if (type == "float") return Scalar(std::strtod(v.c_str(), nullptr));
  if (type == "complex") {
    size_t comma = v.find(',');
    return Scalar(std::complex<double>(std::strtod(v.substr(0, comma).c_str(), nullptr),
                                       std::strtod(v.substr(comma + 1).c_str(), nullptr)));
  }
  throw std::runtime_error("golden: unknown scalar type '" + type + "'");
}

GoldenValue parse_value(const Json& j, const std::string& blob, const std::string& file) {
  GoldenValue v;
  if (j.is_null()) return v;
  if (j.contains("t")) {
    v.kind = GoldenValue::Kind::Tensor;
    ScalarType dt = dtype_from_torch_name(j["t"].as_string());
    std::vector<int64_t> shape, stride;
    for (const Json& x : j["shape"].items()) shape.push_back(x.as_int());
    for (const Json& x : j["stride"].items()) stride.push_back(x.as_int());
    int64_t span = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] == 0) { span = 0; break; }
      span += (shape[d] - 1) * stride[d];
    }
    size_t at = size_t(j["at"].as_int()), nbytes = size_t(span) * element_size(dt);
    if (at + nbytes > blob.size())
      throw std::runtime_error(file + ": tensor data at blob offset " + std::to_string(at) + " (+" +
                               std::to_string(nbytes) + " bytes) runs past the end of the file");
    Tensor base = empty({span}, TensorOptions().dtype(dt));
    if (nbytes) std::memcpy(base.data_ptr(), blob.data() + at, nbytes);
    v.tensor = base.as_strided(shape, stride, 0);
    return v;
  }
  if (j.contains("s")) {
    v.kind = GoldenValue::Kind::Scalar;
    v.scalar = parse_scalar(j["s"].as_string(), j["v"].as_string());
    return v;
  }
  if (j.contains("str")) {
    v.kind = GoldenValue::Kind::String;
    v.str = j["str"].as_string();
    return v;
  }
  throw std::runtime_error(file + ": unknown value kind");
}

std::unique_ptr<GoldenFileData> read_golden(const std::string& name) {
  std::string path = golden_path(name);
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("golden: cannot open " + path + " (run tests/golden/gen_golden.py)");
  std::string data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (data.size() < 16 || data.compare(0, 8, "EMBGLD01") != 0)
    throw std::runtime_error(path + ": not a golden file (expected magic EMBGLD01 at offset 0)");
  uint64_t h = 0;
  for (int k = 0; k < 8; ++k) h |= uint64_t(uint8_t(data[8 + k])) << (8 * k);
  if (16 + h > data.size()) throw std::runtime_error(path + ": header length " + std::to_string(h) + " past the end");
  auto out = std::make_unique<GoldenFileData>();
  try {
    out->header = Json::parse(std::string_view(data).substr(16, h));
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": header: " + e.what());
  }
  std::string blob = data.substr(16 + h);
  const Json& cases = out->header["cases"];
  out->cases.reserve(cases.size());
  for (const Json& c : cases.items()) {
    GoldenCase g;
    g.json = &c;
    g.name = c["name"].as_string();
    g.op = c["op"].as_string();
    if (c.contains("table_op")) g.table_op = c["table_op"].as_string();
    g.ref = c.contains("ref") ? c["ref"].as_string() : "torch";
    for (const Json& a : c["args"].items()) g.args.push_back(parse_value(a, blob, path));
    if (c.contains("kwargs"))
      for (const auto& [k, v] : c["kwargs"].fields()) g.kwargs.emplace_back(k, parse_value(v, blob, path));
    const Json& e = c["expect"];
    if (!e.is_null() && e.contains("error")) {
      g.expect_error = true;
      g.error = e["error"].as_string();
      if (e.contains("extension")) g.extension = parse_value(e["extension"], blob, path);
    } else {
      g.expect = parse_value(e, blob, path);
    }
    if (c.contains("tags")) for (const Json& t : c["tags"].items()) g.tags.push_back(t.as_string());
    out->cases.push_back(std::move(g));
  }
  return out;
}
}  // namespace

bool GoldenCase::has_tag(std::string_view t) const {
  for (const auto& x : tags) if (x == t) return true;
  return false;
}
const GoldenValue* GoldenCase::kwarg(std::string_view key) const {
  for (const auto& [k, v] : kwargs) if (k == key) return &v;
  return nullptr;
}

const std::vector<GoldenCase>& load_golden(const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<GoldenFileData>> cache;
  std::lock_guard<std::mutex> g(mu);
  auto& slot = cache[name];
  if (!slot) slot = read_golden(name);
  return slot->cases;
}

bool ember_has_symbol(const char* mangled_name) { return dlsym(RTLD_DEFAULT, mangled_name) != nullptr; }

Tensor random_tensor(IntArrayRef shape, ScalarType dt, int64_t int_low, int64_t int_high) {
  if (isIntegralType(dt, /*includeBool=*/false)) return randint(int_low, int_high, shape, dtype(kLong)).to(dt);
  if (isComplexType(dt)) {
    std::vector<int64_t> s(shape.begin(), shape.end());
    s.push_back(2);
    return view_as_complex(randn(s, dtype(kDouble))).to(dt);
  }
  return randn(shape, dtype(kDouble)).to(dt);
}

std::vector<std::complex<double>> to_complex_vector(const Tensor& t) {
  Tensor c = t.to(kComplexDouble).contiguous();
  const auto* p = c.data_ptr<Complex<double>>();
  std::vector<std::complex<double>> v(size_t(c.numel()));
  for (int64_t i = 0; i < c.numel(); ++i) v[size_t(i)] = {p[i].real(), p[i].imag()};
  return v;
}

Tensor from_complex_vector(const std::vector<std::complex<double>>& v, IntArrayRef shape) {
  Tensor t = empty(shape, dtype(kComplexDouble));
  EMBER_CHECK(size_t(t.numel()) == v.size(), "from_complex_vector: ", v.size(), " values for shape ", shape);
  auto* p = t.data_ptr<Complex<double>>();
  for (size_t i = 0; i < v.size(); ++i) p[i] = Complex<double>(v[i].real(), v[i].imag());
  return t;
}

}  // namespace ember::test
