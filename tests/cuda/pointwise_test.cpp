// Every op of the pointwise table on CUDA against the CPU on the same inputs, for every dtype
// the op accepts, through the layouts the CUDA engine treats differently (contiguous and
// vectorized, contiguous at an odd offset, transposed, broadcast, a 0-dim CPU scalar); and
// copy_/fill_ for every dtype pair. Skipped without a GPU.
#include <torch/torch.h>

#include "cuda_test_util.h"
#include "ember/ops/pointwise.h"
#include "test_util.h"

namespace ember::test {
namespace {

struct Row {
  const PointwiseOp* op;
  int arity;
};
std::vector<Row> rows() {
  std::vector<Row> r;
#define EMBER_ROW(name, F, dtypes, ...) r.push_back({&name##_op, ARITY});
#define ARITY 1
  EMBER_UNARY_OPS(EMBER_ROW)
#undef ARITY
#define ARITY 2
  EMBER_BINARY_OPS(EMBER_ROW)
#undef ARITY
#define ARITY 3
  EMBER_TERNARY_OPS(EMBER_ROW)
#undef ARITY
#undef EMBER_ROW
  return r;
}

// Inputs every op takes without a domain error that one device would raise and the other
// not: integers in [1, 5] (no division by zero), floating values N(0, 1) (NaNs from domain
// errors compare equal).
Tensor input(IntArrayRef shape, ScalarType dt) {
  if (isIntegralType(dt, /*includeBool=*/false)) return random_tensor(shape, dt, 1, 6);
  return random_tensor(shape, dt);
}

void compare(const Row& row, ScalarType dt, const std::vector<Tensor>& cpu_in, const std::string& layout) {
  SCOPED_TRACE(std::string(row.op->name) + " " + torch_name(dt) + " " + layout);
  const PointwiseArgs args{2, 3};
  std::vector<Tensor> gpu_in;
  for (const Tensor& t : cpu_in) gpu_in.push_back(t.dim() == 0 ? t : t.cuda());
  auto run = [&](const std::vector<Tensor>& in) {
    if (row.arity == 1) return run_pointwise(*row.op, {}, {in[0]}, args);
    if (row.arity == 2) return run_pointwise(*row.op, {}, {in[0], in[1]}, args);
    return run_pointwise(*row.op, {}, {in[0], in[1], in[2]}, args);
  };
  Tensor expected;
  try {
    expected = run(cpu_in);
  } catch (const Error& e) {
    // The CPU refuses (an integer op's domain error...): CUDA must refuse too, not answer.
    EXPECT_ANY_THROW(run(gpu_in).cpu());
    return;
  }
  Tensor got = run(gpu_in);
  ASSERT_TRUE(got.is_cuda());
  const double tol = cuda_rtol(dt);
  EXPECT_TENSOR_CLOSE(got.cpu(), expected, tol, tol);
}

TEST(CudaPointwise, EveryTableOpMatchesTheCpu) {
  EMBER_REQUIRE_GPU();
  for (const Row& row : rows()) {
    for (int t = 0; t < kNumScalarTypes; ++t) {
      const ScalarType dt = ScalarType(t);
      if (!row.op->dtypes.contains(dt)) continue;
      std::vector<Tensor> contiguous, odd, transposed, broadcast;
      for (int i = 0; i < row.arity; ++i) {
        contiguous.push_back(input({1031}, dt));  // vector body and a tail
        odd.push_back(input({1032}, dt).slice(0, 1));
        transposed.push_back(input({37, 29}, dt).t());
        broadcast.push_back(i == 0 ? input({5, 1, 7}, dt) : input({6, 1}, dt));
      }
      compare(row, dt, contiguous, "contiguous");
      compare(row, dt, odd, "odd offset");
      compare(row, dt, transposed, "transposed");
      compare(row, dt, broadcast, "broadcast");
      if (row.arity >= 2) {
        std::vector<Tensor> scalar = contiguous;
        scalar[1] = input({}, dt);  // stays on the CPU: passed by value
        compare(row, dt, scalar, "cpu scalar");
      }
    }
  }
}

// Both AD modes on CUDA against the CPU for every differentiable op of the table (float64):
// the gradient of sum(w * f(x...)) for each input, and the forward-mode tangent along random
// directions. An op whose derivative the CPU refuses is skipped; CUDA must refuse it too.
TEST(CudaPointwise, GradientsAndTangentsMatchTheCpu) {
  EMBER_REQUIRE_GPU();
  namespace fwd = autograd::forward_ad;
  const PointwiseArgs args{2, 3};
  int checked = 0;
  for (const Row& row : rows()) {
    if (!row.op->dtypes.contains(kDouble)) continue;
    SCOPED_TRACE(row.op->name);
    std::vector<Tensor> x, v;
    for (int i = 0; i < row.arity; ++i) {
      x.push_back(random_tensor({6, 5}, kDouble).abs().add(0.5));  // positive: log, sqrt, pow stay real
      v.push_back(random_tensor({6, 5}, kDouble));
    }
    Tensor w = random_tensor({6, 5}, kDouble);
    auto call = [&](const std::vector<Tensor>& in) {
      if (row.arity == 1) return run_pointwise(*row.op, {}, {in[0]}, args);
      if (row.arity == 2) return run_pointwise(*row.op, {}, {in[0], in[1]}, args);
      return run_pointwise(*row.op, {}, {in[0], in[1], in[2]}, args);
    };
    auto grads = [&](bool cuda) {
      std::vector<Tensor> leaves;
      for (const Tensor& t : x) leaves.push_back((cuda ? t.cuda() : t.clone()).requires_grad_());
      Tensor y = call(leaves);
      if (!y.requires_grad() || !isFloatingType(y.scalar_type())) return std::vector<Tensor>{};
      y.mul(cuda ? w.cuda() : w).sum().backward();
      std::vector<Tensor> g;
      for (const Tensor& l : leaves) g.push_back(l.grad().defined() ? l.grad().cpu() : Tensor());
      return g;
    };
    auto tangent = [&](bool cuda) {
      fwd::dual_level level;
      std::vector<Tensor> duals;
      for (size_t i = 0; i < x.size(); ++i)
        duals.push_back(fwd::make_dual(cuda ? x[i].cuda() : x[i], cuda ? v[i].cuda() : v[i]));
      Tensor t = fwd::unpack_dual(call(duals)).tangent;
      return t.defined() ? t.cpu() : t;
    };
    std::vector<Tensor> gc;
    try {
      gc = grads(false);
    } catch (const Error&) {
      EXPECT_ANY_THROW(grads(true));
      continue;
    }
    std::vector<Tensor> gg = grads(true);
    ASSERT_EQ(gc.size(), gg.size());
    for (size_t i = 0; i < gc.size(); ++i) {
      ASSERT_EQ(gc[i].defined(), gg[i].defined()) << "input " << i;
      if (gc[i].defined()) EXPECT_TENSOR_CLOSE(gg[i], gc[i], 1e-9, 1e-9);
    }
    Tensor tc;
    try {
      tc = tangent(false);
    } catch (const Error&) {
      EXPECT_ANY_THROW(tangent(true));
      continue;
    }
    Tensor tg = tangent(true);
    ASSERT_EQ(tc.defined(), tg.defined());
    if (tc.defined()) EXPECT_TENSOR_CLOSE(tg, tc, 1e-9, 1e-9);
    ++checked;
  }
  EXPECT_GT(checked, 50) << "most differentiable ops of the table were compared";
}

TEST(CudaPointwise, InPlaceAndOutVariants) {
  EMBER_REQUIRE_GPU();
  Tensor a = random_tensor({64, 33}, kFloat), b = random_tensor({33}, kFloat);
  Tensor ga = a.cuda(), gb = b.cuda();
  ga.add_(gb, 2);
  EXPECT_TENSOR_CLOSE(ga.cpu(), a + 2 * b);
  Tensor out = torch::empty({64, 33}, torch::kCUDA);
  torch::mul_out(out, ga, gb);
  EXPECT_TENSOR_CLOSE(out.cpu(), (a + 2 * b) * b);
  // A result dtype the output does not have: computed, then cast on the device.
  Tensor dout = torch::empty({64, 33}, torch::TensorOptions().dtype(kDouble).device(torch::kCUDA));
  torch::add_out(dout, ga, gb);
  EXPECT_TENSOR_CLOSE(dout.cpu(), (a + 2 * b + b).to(kDouble), 1e-6, 1e-6);
  // Promotion across dtypes: int + float on the device.
  Tensor i = torch::arange(10, torch::TensorOptions().dtype(kInt).device(torch::kCUDA));
  EXPECT_TENSOR_EQ((i + 0.5).cpu(), torch::arange(10, kInt) + 0.5);
}

TEST(CudaCopy, EveryDtypePairAndFill) {
  EMBER_REQUIRE_GPU();
  for (int s = 0; s < kNumScalarTypes; ++s) {
    const ScalarType st = ScalarType(s);
    if (!kAllTypes.contains(st)) continue;
    Tensor src = random_tensor({17, 9}, st);
    Tensor gsrc = src.cuda();
    for (int d = 0; d < kNumScalarTypes; ++d) {
      const ScalarType dt = ScalarType(d);
      if (!kAllTypes.contains(dt)) continue;
      SCOPED_TRACE(torch_name(st) + " -> " + torch_name(dt));
      Tensor expected = src.to(dt);
      EXPECT_TENSOR_EQ(gsrc.to(dt).cpu(), expected);              // contiguous, on the device
      EXPECT_TENSOR_EQ(gsrc.t().to(dt).cpu(), expected.t());      // strided, on the device
      const Scalar v = src.flatten()[3].item();
      Tensor cpu_filled = torch::empty({5, 3}, dt);
      Tensor filled = torch::empty({5, 3}, torch::TensorOptions().dtype(dt).device(torch::kCUDA));
      try {
        cpu_filled.fill_(v);
      } catch (const Error&) {
        EXPECT_ANY_THROW(filled.fill_(v)) << "the CPU refuses this value; CUDA must too";
        continue;
      }
      filled.fill_(v);
      EXPECT_TENSOR_EQ(filled.cpu(), cpu_filled);
    }
  }
}

}  // namespace
}  // namespace ember::test
