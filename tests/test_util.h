// Helpers shared by the tests: golden-file reading and tensor comparison.
#pragma once
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ember/ember.h"

namespace ember::test {

// The sanitizer build (clang or GCC AddressSanitizer): loops that repeat a check over many random
// inputs run a tenth of their iterations there (scaled_for_sanitizers). The sanitizers look for
// memory errors and undefined behaviour, which the code paths find, not the volume, and test
// code runs unoptimized and instrumented there; the Release suite runs every iteration.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitizerBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitizerBuild = true;
#else
inline constexpr bool kSanitizerBuild = false;
#endif
#else
inline constexpr bool kSanitizerBuild = false;
#endif
constexpr int64_t scaled_for_sanitizers(int64_t n) { return kSanitizerBuild ? (n + 9) / 10 : n; }

// Asserts that `actual` matches `expected` in shape, dtype and values (within tolerances
// scaled for the dtype unless given). NaNs must match NaNs.
::testing::AssertionResult tensors_close(const Tensor& actual, const Tensor& expected, double rtol = -1,
                                         double atol = -1);
#define EXPECT_TENSOR_CLOSE(a, b, ...) EXPECT_TRUE(::ember::test::tensors_close(a, b, ##__VA_ARGS__))
#define EXPECT_TENSOR_EQ(a, b) EXPECT_TRUE(::ember::test::tensors_close(a, b, 0, 0))

// Random test data: integers uniform in [int_low, int_high), floating values N(0, 1)
// (complex: real and imaginary parts each N(0, 1)), drawn in double and cast to `dt`.
Tensor random_tensor(IntArrayRef shape, ScalarType dt, int64_t int_low = -5, int64_t int_high = 6);
// Element values in row-major order as complex double, and back (a kComplexDouble tensor).
std::vector<std::complex<double>> to_complex_vector(const Tensor& t);
Tensor from_complex_vector(const std::vector<std::complex<double>>& v, IntArrayRef shape);

// Expects `stmt` to throw ember::Error whose message contains `substr`.
#define EXPECT_ERROR_WITH(stmt, substr)                                                   \
  do {                                                                                    \
    try {                                                                                 \
      stmt;                                                                               \
      ADD_FAILURE() << "expected an ember::Error containing \"" << (substr) << "\"";     \
    } catch (const ::ember::Error& e) {                                                   \
      EXPECT_NE(std::string(e.what()).find(substr), std::string::npos)                    \
          << "message was: " << e.what();                                                 \
    }                                                                                     \
  } while (0)

// ---- golden files -------------------------------------------------------------------
// tests/golden/*.golden, written by tests/golden/gen_golden.py (its header documents the
// format: magic, a JSON header of cases, then raw little-endian tensor bytes).

// A parsed JSON value (the golden headers), read by ember::json::parse. Objects keep their
// keys in file order.
class Json {
 public:
  enum class Type { Null, Bool, Number, String, Array, Object };
  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::Null; }
  bool as_bool() const;
  double as_double() const;
  int64_t as_int() const;
  const std::string& as_string() const;  // a String, or a Number's text
  const std::vector<Json>& items() const;  // an Array
  const std::vector<std::pair<std::string, Json>>& fields() const;  // an Object
  size_t size() const { return type_ == Type::Array ? items_.size() : fields_.size(); }
  const Json& operator[](size_t i) const { return items().at(i); }
  // An Object's field; a Null value when absent.
  const Json& operator[](std::string_view key) const;
  bool contains(std::string_view key) const;

  static Json parse(std::string_view text);  // throws std::runtime_error
  // tests/golden/<name> parsed once and kept for the process (a failed read fails the test).
  static const Json& golden(const std::string& name);

 private:
  friend struct JsonParser;
  Type type_ = Type::Null;
  bool b_ = false;
  double num_ = 0;
  std::string str_;
  std::vector<Json> items_;
  std::vector<std::pair<std::string, Json>> fields_;
};

// One argument or result of a golden case.
struct GoldenValue {
  enum class Kind { None, Tensor, Scalar, String };
  Kind kind = Kind::None;
  Tensor tensor;       // Kind::Tensor: with the recorded sizes and strides
  Scalar scalar;       // Kind::Scalar: a Python number (bool, int, float or complex)
  std::string str;     // Kind::String
  bool is_tensor() const { return kind == Kind::Tensor; }
  bool is_scalar() const { return kind == Kind::Scalar; }
  bool is_none() const { return kind == Kind::None; }
};

struct GoldenCase {
  std::string name;      // unique in its file, e.g. "add/0/float32/pairs"
  std::string op;        // the public function (ember::<op>)
  std::string table_op;  // the pointwise-table entry it exercises (may be empty)
  std::string ref;       // "torch" or "upcast" (see gen_golden.py)
  std::vector<GoldenValue> args;
  std::vector<std::pair<std::string, GoldenValue>> kwargs;
  GoldenValue expect;    // the expected result (a tensor) unless expect_error
  bool expect_error = false;
  std::string error;     // PyTorch's message when expect_error
  // Where PyTorch 1.13's CPU kernel lacks the dtype ("not implemented for 'ComplexFloat'")
  // and ember computes it on purpose, the generator's reference for it (an upcast or an
  // equivalent formula in double precision, rounded to the dtype); none: ember must raise.
  std::optional<GoldenValue> extension;
  std::vector<std::string> tags;
  const Json* json = nullptr;  // the whole case, for fields beyond these

  bool has_tag(std::string_view t) const;
  const GoldenValue* kwarg(std::string_view key) const;  // null when absent
};

// The cases of tests/golden/<name>.golden (cached: loaded once per process). Throws
// std::runtime_error with the file and offset when the file is malformed.
const std::vector<GoldenCase>& load_golden(const std::string& name);
std::string golden_path(const std::string& name);
// "float32" -> kFloat, "complex32" -> kComplexHalf, ... (PyTorch's dtype names).
ScalarType dtype_from_torch_name(std::string_view name);
std::string torch_name(ScalarType t);

// Whether libember (built with EMBER_ALLOW_UNDEFINED) defines the symbol with this mangled
// name: tests skip what needs ops that are not written yet instead of crashing.
bool ember_has_symbol(const char* mangled_name);
// Ops some pointwise functions call internally.
inline bool ember_has_any() { return ember_has_symbol("_ZNK5ember6Tensor3anyEv"); }
inline bool ember_has_complex() { return ember_has_symbol("_ZN5ember7complexERKNS_6TensorES2_"); }

}  // namespace ember::test
