// The op table as a whole: every registered op has a CPU kernel, every pointwise op has
// golden coverage from PyTorch (tests/golden/), and in-place / out= variants of a sample
// of ops agree with the functional forms and refuse lossy casts as PyTorch does.
#include <map>
#include <set>

#include "ember/ops/op_def.h"
#include "test_util.h"

namespace ember::test {
namespace {

TEST(OpTable, OpsAreRegisteredOnce) {
  std::set<std::string_view> seen;
  ASSERT_FALSE(OpInfo::all().empty());
  for (const OpInfo* op : OpInfo::all()) {
    EXPECT_FALSE(op->name.empty());
    EXPECT_TRUE(seen.insert(op->name).second) << "op registered twice: " << op->name;
    EXPECT_EQ(OpInfo::find(op->name), op) << op->name;
  }
  EXPECT_EQ(OpInfo::find("no_such_op"), nullptr);
}

TEST(OpTable, EveryOpHasACpuKernel) {
  std::string missing;
  for (const OpInfo* op : OpInfo::all())
    if (!lookup_kernel(op->name, kCPU)) missing += std::string(missing.empty() ? "" : ", ") + std::string(op->name);
  EXPECT_TRUE(missing.empty()) << "ops without a CPU kernel: " << missing;
}

TEST(OpTable, PointwiseOpsAcceptSomeDtype) {
  for (const OpInfo* op : OpInfo::all()) {
    if (op->fusion != FusionClass::Pointwise) continue;
    EXPECT_NE(op->dtypes.bits(), 0u) << op->name;
  }
}

// Note [Golden coverage]: adding an op to ember/ops/pointwise_ops.h without adding it to
// tests/golden/gen_golden.py (and rerunning it) fails here.
TEST(OpTable, EveryPointwiseOpHasGoldenCases) {
  std::map<std::string, int> covered;
  for (const char* f : {"pointwise_unary", "pointwise_binary", "pointwise_ternary", "copy"})
    for (const GoldenCase& c : load_golden(f))
      if (!c.table_op.empty()) ++covered[c.table_op];
  std::string missing;
  int n = 0;
  for (const OpInfo* op : OpInfo::all()) {
    if (op->fusion != FusionClass::Pointwise) continue;
    ++n;
    auto it = covered.find(std::string(op->name));
    if (it == covered.end() || it->second == 0) missing += " " + std::string(op->name);
  }
  EXPECT_GT(n, 90);
  EXPECT_TRUE(missing.empty()) << "pointwise ops without golden cases (add them to tests/golden/gen_golden.py):"
                               << missing;
}

TEST(OpTable, GoldenCasesNameTableOps) {
  // The reverse direction: every table_op recorded in the golden files names an op.
  for (const char* f : {"pointwise_unary", "pointwise_binary", "pointwise_ternary", "copy"})
    for (const GoldenCase& c : load_golden(f))
      if (!c.table_op.empty()) EXPECT_NE(OpInfo::find(c.table_op), nullptr) << c.name << ": " << c.table_op;
}

// Every dtype an op accepts has at least one golden case whose value is checked: PyTorch's
// result, or the generator's reference where PyTorch lacks the kernel (an error case alone
// only shows that ember raises, which an accepted dtype must not).
TEST(OpTable, GoldenCasesCoverEveryAcceptedDtype) {
  std::map<std::string, uint32_t> seen;  // table_op -> dtype bits of the first tensor argument
  for (const char* f : {"pointwise_unary", "pointwise_binary", "pointwise_ternary", "copy"})
    for (const GoldenCase& c : load_golden(f))
      if (!c.table_op.empty() && (!c.expect_error || c.extension)) {
        if (const GoldenValue* dt = c.kwarg("dtype"))  // factories: full(..., dtype)
          seen[c.table_op] |= 1u << int(dtype_from_torch_name(dt->str));
        else if (!c.args.empty() && c.args[0].is_tensor())
          seen[c.table_op] |= 1u << int(c.args[0].tensor.scalar_type());
      }
  for (const OpInfo* op : OpInfo::all()) {
    if (op->fusion != FusionClass::Pointwise) continue;
    uint32_t missing = op->dtypes.bits() & ~seen[std::string(op->name)];
    for (int t = 0; t < kNumScalarTypes; ++t)
      EXPECT_FALSE(missing >> t & 1u) << op->name << " accepts " << ScalarType(t) << " but no golden case uses it";
  }
}

// ---- in-place and out= variants ------------------------------------------------------------
Tensor sample(ScalarType t, IntArrayRef shape = {3, 4}) {
  Tensor x = arange(1, 1 + 3 * 4, TensorOptions().dtype(kDouble)).reshape({3, 4});
  x = (x * 0.37).sub(2.0);
  if (isIntegralType(t, false)) x = x.mul(3);
  return x.to(t).reshape(shape);
}

TEST(OpTableInplace, UnaryInplaceMatchesFunctional) {
  for (ScalarType t : {kFloat, kDouble, kBFloat16}) {
    Tensor x = sample(t);
    Tensor y = x.clone();
    y.exp_();
    EXPECT_TENSOR_EQ(y, exp(x));
    y = x.clone();
    y.neg_();
    EXPECT_TENSOR_EQ(y, neg(x));
    y = x.clone();
    y.abs_();
    EXPECT_TENSOR_EQ(y, abs(x));
    y = x.clone();
    y.sigmoid_();
    EXPECT_TENSOR_EQ(y, sigmoid(x));
    y = x.clone();
    y.round_(1);
    EXPECT_TENSOR_EQ(y, round(x, 1));
    y = x.clone();
    y.clamp_(std::optional<Scalar>(-0.5), std::optional<Scalar>(0.5));
    EXPECT_TENSOR_EQ(y, clamp(x, std::optional<Scalar>(-0.5), std::optional<Scalar>(0.5)));
  }
}

TEST(OpTableInplace, InplaceOnNonContiguousWritesThroughTheView) {
  Tensor base = sample(kFloat);
  Tensor view = base.t();
  Tensor expected = sin(view);
  view.sin_();
  EXPECT_TENSOR_EQ(view, expected);
  EXPECT_TENSOR_EQ(base, expected.t());
}

TEST(OpTableInplace, InplaceKeepsChannelsLast) {
  Tensor x = sample(kFloat, {1, 3, 2, 2}).contiguous(MemoryFormat::ChannelsLast);
  Tensor expected = x.mul(2);
  x.mul_(2);
  EXPECT_TRUE(x.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_TENSOR_EQ(x, expected);
}

TEST(OpTableInplace, BinaryInplaceMatchesFunctional) {
  Tensor a = sample(kFloat), b = sample(kFloat).t().contiguous().reshape({3, 4});
  Tensor y = a.clone();
  y.add_(b, 2);
  EXPECT_TENSOR_EQ(y, add(a, b, 2));
  y = a.clone();
  y.sub_(b);
  EXPECT_TENSOR_EQ(y, sub(a, b));
  y = a.clone();
  y.mul_(b);
  EXPECT_TENSOR_EQ(y, mul(a, b));
  y = a.clone();
  y.div_(b);
  EXPECT_TENSOR_EQ(y, div(a, b));
  y = a.clone();
  y.div_(b, "floor");
  EXPECT_TENSOR_EQ(y, div(a, b, "floor"));
  y = a.clone();
  y.pow_(2);
  EXPECT_TENSOR_EQ(y, pow(a, 2));
  y = a.clone();
  y.atan2_(b);
  EXPECT_TENSOR_EQ(y, atan2(a, b));
  y = a.clone();
  y.lerp_(b, 0.25);
  EXPECT_TENSOR_EQ(y, lerp(a, b, 0.25));
  y = a.clone();
  y.addcmul_(a, b, 0.5);
  EXPECT_TENSOR_EQ(y, addcmul(a, a, b, 0.5));
  // broadcasting the other operand into self
  y = a.clone();
  Tensor row = b.select(0, 0);
  y.add_(row);
  EXPECT_TENSOR_EQ(y, add(a, row));
  // operators
  y = a.clone();
  y += b;
  EXPECT_TENSOR_EQ(y, a + b);
  y *= 2;
  EXPECT_TENSOR_EQ(y, (a + b) * 2);
}

TEST(OpTableInplace, InplaceComputesInSelfsDtypeWhenTheCastIsAllowed) {
  // float self, int/double others: result type float, written into self.
  Tensor f = sample(kFloat);
  Tensor y = f.clone();
  y.add_(sample(kLong));
  EXPECT_EQ(y.scalar_type(), kFloat);
  EXPECT_TENSOR_CLOSE(y, add(f, sample(kLong)));
  y = f.clone();
  y.mul_(sample(kDouble));  // double tensor: computes in double, cast back to float
  EXPECT_EQ(y.scalar_type(), kFloat);
  EXPECT_TENSOR_CLOSE(y, mul(f.to(kDouble), sample(kDouble)).to(kFloat));
  // int self with an int scalar stays int
  Tensor i = sample(kLong);
  Tensor z = i.clone();
  z.add_(3);
  EXPECT_TENSOR_EQ(z, add(i, 3));
  // comparisons in place write 0/1 in self's dtype
  z = i.clone();
  z.gt_(0);
  EXPECT_EQ(z.scalar_type(), kLong);
  EXPECT_TENSOR_EQ(z, gt(i, 0).to(kLong));
}

TEST(OpTableInplace, LossyInplaceCastsAreErrors) {
  Tensor i = sample(kLong);
  EXPECT_ERROR_WITH(i.add_(1.5), "result type Float can't be cast to the desired output type Long");
  EXPECT_ERROR_WITH(i.mul_(sample(kFloat)), "result type Float can't be cast to the desired output type Long");
  EXPECT_ERROR_WITH(i.div_(2), "result type Float can't be cast to the desired output type Long");
  EXPECT_ERROR_WITH(i.sqrt_(), "result type Float can't be cast to the desired output type Long");
  Tensor b = zeros({3}, TensorOptions().dtype(kBool));
  EXPECT_ERROR_WITH(b.add_(2), "result type Long can't be cast to the desired output type Bool");
  Tensor f = sample(kFloat);
  Tensor c = full({3, 4}, Scalar(Complex<double>(1, 1)), TensorOptions().dtype(kComplexFloat));
  EXPECT_ERROR_WITH(f.add_(c), "result type ComplexFloat can't be cast to the desired output type Float");
  // the failed op left self unchanged
  EXPECT_TENSOR_EQ(i, sample(kLong));
}

TEST(OpTableInplace, InplaceCannotBroadcastSelf) {
  Tensor a = sample(kFloat).select(0, 0);  // {4}
  Tensor b = sample(kFloat);                // {3, 4}
  EXPECT_ANY_THROW(a.add_(b));
}

TEST(OpTableOut, OutVariantsMatchFunctional) {
  Tensor a = sample(kFloat), b = sample(kFloat).t().contiguous().reshape({3, 4}).neg();
  Tensor out = empty({3, 4});
  add_out(out, a, b, 3);
  EXPECT_TENSOR_EQ(out, add(a, b, 3));
  exp_out(out, a);
  EXPECT_TENSOR_EQ(out, exp(a));
  Tensor bools = empty({3, 4}, TensorOptions().dtype(kBool));
  lt_out(bools, a, b);
  EXPECT_TENSOR_EQ(bools, lt(a, b));
  // out with a wider dtype than the result: computes, then casts
  Tensor dout = empty({3, 4}, TensorOptions().dtype(kDouble));
  mul_out(dout, a, b);
  EXPECT_TENSOR_EQ(dout, mul(a, b).to(kDouble));
  // out of the wrong size is resized (an empty out) as in PyTorch
  Tensor resized = empty({0});
  sub_out(resized, a, b);
  EXPECT_TENSOR_EQ(resized, sub(a, b));
  // out is returned by reference and its version bumps
  uint32_t v = out._version();
  Tensor& r = neg_out(out, a);
  EXPECT_TRUE(r.is_same(out));
  EXPECT_GT(out._version(), v);
}

TEST(OpTableOut, OutLossyCastsAreErrors) {
  Tensor a = sample(kFloat);
  Tensor iout = empty({3, 4}, TensorOptions().dtype(kLong));
  EXPECT_ERROR_WITH(add_out(iout, a, a), "result type Float can't be cast to the desired output type Long");
  EXPECT_ERROR_WITH(div_out(iout, sample(kLong), sample(kLong)),
                    "result type Float can't be cast to the desired output type Long");
  // comparisons write bool results into any dtype
  Tensor fout = empty({3, 4});
  eq_out(fout, a, a);
  EXPECT_TENSOR_EQ(fout, ones({3, 4}, TensorOptions().dtype(kFloat)));
}

}  // namespace
}  // namespace ember::test
