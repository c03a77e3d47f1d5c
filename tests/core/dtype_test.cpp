// ScalarType: names and sizes, PyTorch's promotion table, canCast, result_type with 0-dim
// tensors and wrapped numbers, and the default dtype, all against tables that
// tests/golden/gen_golden.py recorded from PyTorch (tests/golden/dtypes.golden).
#include <climits>
#include <limits>
#include <sstream>

#include "ember/ops/convert.h"
#include "ember/ops/type_promotion.h"
#include "test_util.h"

namespace ember::test {
namespace {

const GoldenCase& dtype_case(const std::string& name) {
  for (const GoldenCase& c : load_golden("dtypes"))
    if (c.name == name) return c;
  throw std::runtime_error("dtypes.golden has no case " + name);
}

// Restores the default dtype when a test ends, even when it fails.
struct DefaultDtypeGuard {
  ScalarType saved = get_default_dtype();
  explicit DefaultDtypeGuard(ScalarType t) { set_default_dtype(t); }
  ~DefaultDtypeGuard() { set_default_dtype(saved); }
};

TEST(Dtype, NamesAndSizes) {
  EXPECT_EQ(element_size(kBool), 1u);
  EXPECT_EQ(element_size(kByte), 1u);
  EXPECT_EQ(element_size(kChar), 1u);
  EXPECT_EQ(element_size(kShort), 2u);
  EXPECT_EQ(element_size(kInt), 4u);
  EXPECT_EQ(element_size(kLong), 8u);
  EXPECT_EQ(element_size(kHalf), 2u);
  EXPECT_EQ(element_size(kBFloat16), 2u);
  EXPECT_EQ(element_size(kFloat), 4u);
  EXPECT_EQ(element_size(kDouble), 8u);
  EXPECT_EQ(element_size(kComplexHalf), 4u);
  EXPECT_EQ(element_size(kComplexFloat), 8u);
  EXPECT_EQ(element_size(kComplexDouble), 16u);
  std::ostringstream os;
  os << kBFloat16 << " " << kComplexHalf << " " << kLong;
  EXPECT_EQ(os.str(), "BFloat16 ComplexHalf Long");
  EXPECT_EQ(kFloat32, kFloat);
  EXPECT_EQ(kInt64, kLong);
  EXPECT_EQ(kComplex64, kComplexFloat);
  for (int i = 0; i < kNumScalarTypes; ++i) EXPECT_EQ(dtype_from_torch_name(torch_name(ScalarType(i))), ScalarType(i));
}

TEST(Dtype, Categories) {
  EXPECT_TRUE(isComplexType(kComplexHalf));
  EXPECT_FALSE(isComplexType(kHalf));
  EXPECT_TRUE(isFloatingType(kBFloat16));
  EXPECT_FALSE(isFloatingType(kComplexFloat));
  EXPECT_TRUE(isIntegralType(kBool, true));
  EXPECT_FALSE(isIntegralType(kBool, false));
  EXPECT_FALSE(isSignedType(kByte));
  EXPECT_TRUE(isSignedType(kChar));
  EXPECT_EQ(toRealValueType(kComplexHalf), kHalf);
  EXPECT_EQ(toRealValueType(kComplexDouble), kDouble);
  EXPECT_EQ(toComplexType(kHalf), kComplexHalf);
  EXPECT_EQ(toComplexType(kFloat), kComplexFloat);
  EXPECT_EQ(toComplexType(kBFloat16), kComplexFloat);  // as PyTorch: BFloat16 has Float's range
  EXPECT_EQ(toComplexType(kDouble), kComplexDouble);
  EXPECT_ANY_THROW(toComplexType(kLong));
}

TEST(Dtype, PromoteTypesMatchesPyTorchForAll13x13Pairs) {
  const GoldenCase& c = dtype_case("promote_types");
  const Json& names = (*c.json)["dtypes"];
  const Json& table = (*c.json)["table"];
  ASSERT_EQ(names.size(), size_t(kNumScalarTypes));
  for (size_t i = 0; i < names.size(); ++i) {
    ScalarType a = dtype_from_torch_name(names[i].as_string());
    for (size_t j = 0; j < names.size(); ++j) {
      ScalarType b = dtype_from_torch_name(names[j].as_string());
      const std::string& want = table[i][j].as_string();
      if (want == "error") {
        EXPECT_ANY_THROW(promoteTypes(a, b)) << a << ", " << b;
        continue;
      }
      EXPECT_EQ(promoteTypes(a, b), dtype_from_torch_name(want)) << "promote_types(" << a << ", " << b << ")";
      EXPECT_EQ(promote_types(a, b), promoteTypes(b, a)) << "symmetric: " << a << ", " << b;
    }
  }
}

TEST(Dtype, CanCastMatchesPyTorchForAll13x13Pairs) {
  const GoldenCase& c = dtype_case("can_cast");
  const Json& names = (*c.json)["dtypes"];
  const Json& table = (*c.json)["table"];
  for (size_t i = 0; i < names.size(); ++i)
    for (size_t j = 0; j < names.size(); ++j) {
      ScalarType from = dtype_from_torch_name(names[i].as_string());
      ScalarType to = dtype_from_torch_name(names[j].as_string());
      EXPECT_EQ(canCast(from, to), table[i][j].as_bool()) << "can_cast(" << from << ", " << to << ")";
    }
}

// An operand of a result_type case: "dim:<dtype>", "zero:<dtype>" or "scalar:<kind>".
struct Operand {
  bool is_scalar = false;
  Tensor t;
  Scalar s;
};
Operand make_operand(const std::string& spec) {
  Operand o;
  size_t colon = spec.find(':');
  std::string kind = spec.substr(0, colon), what = spec.substr(colon + 1);
  if (kind == "scalar") {
    o.is_scalar = true;
    if (what == "bool") o.s = Scalar(true);
    else if (what == "int") o.s = Scalar(2);
    else if (what == "float") o.s = Scalar(2.5);
    else o.s = Scalar(std::complex<double>(1, 1));
    return o;
  }
  ScalarType t = dtype_from_torch_name(what);
  o.t = kind == "dim" ? empty({2}, TensorOptions().dtype(t)) : empty({}, TensorOptions().dtype(t));
  return o;
}

void check_result_type_table(const GoldenCase& c) {
  const Json& ops = (*c.json)["operands"];
  const Json& table = (*c.json)["table"];
  std::vector<Operand> operands;
  for (const Json& o : ops.items()) operands.push_back(make_operand(o.as_string()));
  int checked = 0;
  for (size_t i = 0; i < operands.size(); ++i)
    for (size_t j = 0; j < operands.size(); ++j) {
      const std::string& want = table[i][j].as_string();
      if (want.empty()) continue;  // two numbers
      const Operand &a = operands[i], &b = operands[j];
      std::string what = "result_type(" + ops[i].as_string() + ", " + ops[j].as_string() + ") with default " +
                         torch_name(get_default_dtype());
      try {
        ScalarType got = a.is_scalar ? result_type(a.s, b.t) : b.is_scalar ? result_type(a.t, b.s) : result_type(a.t, b.t);
        if (want == "error") ADD_FAILURE() << what << ": PyTorch raises, ember gives " << got;
        else EXPECT_EQ(got, dtype_from_torch_name(want)) << what;
        // the TensorList form agrees when both are tensors
        if (!a.is_scalar && !b.is_scalar && want != "error")
          EXPECT_EQ(result_type(std::vector<Tensor>{a.t, b.t}), got) << what;
      } catch (const Error& e) {
        if (want != "error") ADD_FAILURE() << what << ": ember throws " << e.what();
      }
      ++checked;
    }
  EXPECT_GT(checked, 800);
}

TEST(Dtype, ResultTypeMatchesPyTorch) {
  check_result_type_table(dtype_case("result_type/default_float32"));
}

TEST(Dtype, ResultTypeWithDoubleDefaultMatchesPyTorch) {
  DefaultDtypeGuard g(kDouble);
  check_result_type_table(dtype_case("result_type/default_float64"));
}

TEST(Dtype, ResultTypeHandPickedCases) {
  Tensor i32 = empty({3}, TensorOptions().dtype(kInt));
  Tensor u8 = empty({3}, TensorOptions().dtype(kByte));
  Tensor f16 = empty({3}, TensorOptions().dtype(kHalf));
  Tensor d0 = scalar_tensor(1.5, TensorOptions().dtype(kDouble));
  Tensor l0 = scalar_tensor(1, TensorOptions().dtype(kLong));
  EXPECT_EQ(result_type(i32, 2.5), kFloat);      // a float number only raises the category
  EXPECT_EQ(result_type(i32, int64_t(2)), kInt);  // an int number never widens
  EXPECT_EQ(result_type(u8, -1), kByte);
  EXPECT_EQ(result_type(i32, d0), kDouble);       // a 0-dim tensor of a higher category wins
  EXPECT_EQ(result_type(f16, d0), kHalf);         // same category: the dimensioned tensor wins
  EXPECT_EQ(result_type(u8, l0), kByte);
  EXPECT_EQ(result_type(f16, Scalar(std::complex<double>(0, 1))), kComplexHalf);
  EXPECT_EQ(result_type(empty({2}, TensorOptions().dtype(kBFloat16)), Scalar(std::complex<double>(0, 1))),
            kComplexFloat);
  EXPECT_EQ(result_type(empty({2}, TensorOptions().dtype(kBool)), Scalar(2)), kLong);
  EXPECT_EQ(result_type(Scalar(2), Scalar(2.5)), kFloat);
  // a wrapped number behaves like a Scalar, a plain 0-dim tensor does not
  Tensor wrapped = scalar_to_tensor(2.5);
  EXPECT_TRUE(wrapped.unsafeGetTensorImpl()->is_wrapped_number());
  EXPECT_EQ(wrapped.scalar_type(), kDouble);
  EXPECT_EQ(result_type(i32, wrapped), kFloat);
  EXPECT_EQ(result_type(i32, scalar_tensor(2.5, TensorOptions().dtype(kDouble))), kDouble);
}

TEST(Dtype, DefaultDtypeAffectsFactoriesAndFloatScalars) {
  for (const char* name : {"default_dtype/float32", "default_dtype/float64"}) {
    const GoldenCase& c = dtype_case(name);
    const Json& j = *c.json;
    DefaultDtypeGuard g(dtype_from_torch_name(j["default_dtype"].as_string()));
    auto want = [&](const char* key) { return dtype_from_torch_name(j[key].as_string()); };
    SCOPED_TRACE(name);
    EXPECT_EQ(zeros({2}).scalar_type(), want("zeros"));
    EXPECT_EQ(full({2}, 1.5).scalar_type(), want("full_float"));
    EXPECT_EQ(full({2}, 2).scalar_type(), want("full_int"));
    EXPECT_EQ(arange(0, 1, 0.5).scalar_type(), want("arange_float"));
    EXPECT_EQ(arange(0, 3).scalar_type(), want("arange_int"));
    Tensor ints = zeros({2}, TensorOptions().dtype(kLong));
    EXPECT_EQ(div(ints, 2).scalar_type(), want("int_div"));
    EXPECT_EQ((ints / 2).scalar_type(), want("int_div"));
    Tensor i32 = zeros({2}, TensorOptions().dtype(kInt));
    EXPECT_EQ(div(i32, i32).scalar_type(), want("int_div_tensor"));
    EXPECT_EQ(mul(ints, 1.5).scalar_type(), want("int_times_float"));
    EXPECT_EQ(mul(ints, Scalar(std::complex<double>(0, 1))).scalar_type(), want("int_times_complex"));
    EXPECT_EQ(exp(ints).scalar_type(), want("int_exp"));
    EXPECT_EQ(get_default_complex_dtype(), toComplexType(get_default_dtype()));
  }
  EXPECT_EQ(get_default_dtype(), kFloat);  // the guards restored it
}

TEST(Dtype, OnesAndRandDefaultToTheDefaultFloatDtype) {
  // LibTorch's factories without a dtype give the default dtype, whatever the fill value.
  EXPECT_EQ(ones({2}).scalar_type(), kFloat);
  EXPECT_EQ(zeros({2}).scalar_type(), kFloat);
  EXPECT_EQ(empty({2}).scalar_type(), kFloat);
  EXPECT_EQ(rand({2}).scalar_type(), kFloat);
  EXPECT_EQ(eye(2).scalar_type(), kFloat);
  DefaultDtypeGuard g(kDouble);
  EXPECT_EQ(ones({2}).scalar_type(), kDouble);
  EXPECT_EQ(randn({2}).scalar_type(), kDouble);
}

TEST(Dtype, SetDefaultDtypeRejectsNonFloatingTypes) {
  EXPECT_ANY_THROW(set_default_dtype(kLong));
  EXPECT_ANY_THROW(set_default_dtype(kComplexFloat));
  EXPECT_EQ(get_default_dtype(), kFloat);
}

TEST(Dtype, IntegerDivisionPromotesToFloat) {
  Tensor a = arange(-3, 4, TensorOptions().dtype(kLong));
  Tensor q = div(a, 2);
  EXPECT_EQ(q.scalar_type(), kFloat);
  EXPECT_TENSOR_EQ(q, arange(-3, 4, TensorOptions().dtype(kFloat)).div(2));
  EXPECT_EQ(true_divide(a, a.add(10)).scalar_type(), kFloat);
  Tensor b = ones({2}, TensorOptions().dtype(kBool));
  EXPECT_EQ(div(b, b).scalar_type(), kFloat);
  EXPECT_EQ(div(ones({2}, TensorOptions().dtype(kByte)), 2.5).scalar_type(), kFloat);
}

TEST(Dtype, DtypeSet) {
  EXPECT_TRUE(kAllTypes.contains(kComplexHalf));
  EXPECT_FALSE(kRealTypes.contains(kBool));
  EXPECT_FALSE(kRealTypes.contains(kComplexFloat));
  EXPECT_TRUE((kFloatingTypes - DtypeSet{kHalf}).contains(kBFloat16));
  EXPECT_FALSE((kFloatingTypes - DtypeSet{kHalf}).contains(kHalf));
  int n = 0;
  for (int i = 0; i < kNumScalarTypes; ++i) n += kAllTypes.contains(ScalarType(i));
  EXPECT_EQ(n, 13);
}

}  // namespace
}  // namespace ember::test

// Note [Float to integer conversion] (ember/ops/convert.h): floating values outside an integer
// type's range, and NaN, convert as PyTorch's do on x86 instead of being undefined behaviour.
// Expected values printed by PyTorch 1.13 (python3-torch) on x86-64:
//   torch.tensor([1e300, -1e300, nan, 3e9, -1.0, 300.0, -2147483648.5, 2.5e19, 1.5e19]).to(dt)
TEST(Dtype, OutOfRangeFloatToIntegerConversionsMatchPyTorchOnX86) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto x = ember::tensor({1e300, -1e300, nan, 3e9, -1.0, 300.0, -2147483648.5, 2.5e19, 1.5e19},
                         ember::kDouble);
  const int64_t m64 = INT64_MIN, m32 = INT32_MIN;
  const std::vector<std::pair<ember::ScalarType, std::vector<int64_t>>> cases = {
      {ember::kLong, {m64, m64, m64, 3000000000, -1, 300, -2147483648, m64, m64}},
      {ember::kInt, {m32, m32, m32, m32, -1, 300, m32, m32, m32}},
      {ember::kShort, {0, 0, 0, 0, -1, 300, 0, 0, 0}},
      {ember::kChar, {0, 0, 0, 0, -1, 44, 0, 0, 0}},
      {ember::kByte, {0, 0, 0, 0, 255, 44, 0, 0, 0}},
  };
  for (const auto& src : {x, x.to(ember::kFloat)}) {
    for (const auto& [dtype, expected] : cases) {
      SCOPED_TRACE(ember::detail::str_cat(src.scalar_type(), " -> ", dtype));
      auto got = src.to(dtype).to(ember::kLong);
      ASSERT_EQ(got.numel(), int64_t(expected.size()));
      for (size_t i = 0; i < expected.size(); ++i)
        EXPECT_EQ(got[int64_t(i)].item<int64_t>(), expected[i]) << "element " << i;
    }
  }
  // uint64 takes values in [0, 2^64) directly.
  EXPECT_EQ(ember::detail::float_to_integer<uint64_t>(1.5e19), uint64_t(15000000000000000000ull));
  EXPECT_EQ(ember::detail::float_to_integer<uint64_t>(-1.0), uint64_t(-1));
}
