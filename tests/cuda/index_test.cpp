// Indexing, sorting and index-producing reductions on CUDA against the CPU: advanced
// indexing and index_put_ (with accumulate and repeated indices), index_select, gather,
// scatter and scatter_reduce, index_add_, masked ops, where, nonzero, flip, tril/triu,
// sort/topk/kthvalue (NaNs, stability, descending), max/min with indices, argmax, aminmax,
// and the errors for out-of-range indices. Skipped without a GPU.
#include <torch/torch.h>

#include "cuda_test_util.h"
#include "test_util.h"

namespace ember::test {
namespace {

// The CUDA result of f over the inputs, moved back, against the CPU's; integer and bool
// results exactly.
void expect_same_on_cuda(const std::string& what, const std::function<Tensor(const std::vector<Tensor>&)>& f,
                         const std::vector<Tensor>& inputs, double rtol = 0, double atol = 0) {
  SCOPED_TRACE(what);
  Tensor expected = f(inputs);
  std::vector<Tensor> on_gpu;
  for (const Tensor& t : inputs) on_gpu.push_back(t.cuda());
  Tensor got = f(on_gpu);
  ASSERT_TRUE(got.is_cuda());
  EXPECT_TENSOR_CLOSE(got.cpu(), expected, rtol, atol);
}

TEST(CudaIndex, AdvancedIndexingAndIndexPut) {
  EMBER_REQUIRE_GPU();
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16, kLong, kInt, kByte, kBool, kComplexFloat}) {
    SCOPED_TRACE(torch_name(dt));
    Tensor x = random_tensor({7, 5, 6}, dt, 0, 4);
    Tensor i0 = torch::tensor({0, 6, -1, 3, 3}, kLong), i1 = torch::tensor({4, 0, 2, -5, 1}, kLong);
    expect_same_on_cuda("index one dim", [](auto& v) { return v[0].index({v[1]}); }, {x, i0});
    expect_same_on_cuda("index two dims", [](auto& v) { return v[0].index({v[1], v[2]}); }, {x, i0, i1});
    expect_same_on_cuda("index middle dim", [](auto& v) {
      return v[0].index({torch::indexing::Slice(), v[1]});
    }, {x, i1});
    expect_same_on_cuda("index of a transpose", [](auto& v) { return v[0].transpose(0, 2).index({v[1]}); },
                        {x, torch::tensor({5, 0, 2}, kLong)});
    expect_same_on_cuda("index_select", [](auto& v) { return v[0].index_select(1, v[1]); },
                        {x, torch::tensor({4, 4, 0}, kInt)});
    expect_same_on_cuda("take", [](auto& v) { return v[0].take(v[1]); }, {x, torch::tensor({0, 209, -1, 17}, kLong)});
    expect_same_on_cuda("bool mask", [](auto& v) { return v[0].index({v[1]}); }, {x, x.ne(0).to(kBool)});
    expect_same_on_cuda("index_put_", [](auto& v) {
      Tensor y = v[0].clone();
      y.index_put_({v[1]}, v[2]);
      return y;
    }, {x, torch::tensor({1, 5}, kLong), random_tensor({2, 5, 6}, dt, 0, 4)});
    if (dt != kBool) {
      // Repeated indices accumulate (atomics on the device).
      expect_same_on_cuda("index_put_ accumulate", [](auto& v) {
        Tensor y = v[0].clone();
        y.index_put_({v[1]}, v[2], true);
        return y;
      }, {x, torch::tensor({1, 1, 3, 1}, kLong), random_tensor({4, 5, 6}, dt, 0, 3)},
                          cuda_rtol(dt), cuda_rtol(dt));
      expect_same_on_cuda("index_add_", [](auto& v) { return v[0].index_add(0, v[1], v[2], 2); },
                          {x, torch::tensor({2, 0, 2}, kLong), random_tensor({3, 5, 6}, dt, 0, 3)},
                          cuda_rtol(dt), cuda_rtol(dt));
    }
  }
}

TEST(CudaIndex, GatherScatterAlongADim) {
  EMBER_REQUIRE_GPU();
  for (ScalarType dt : {kFloat, kDouble, kHalf, kLong, kInt, kShort, kChar, kByte, kBool}) {
    SCOPED_TRACE(torch_name(dt));
    Tensor x = random_tensor({6, 9}, dt, 0, 4);
    Tensor idx = torch::randint(0, 6, {4, 9}, kLong), idx1 = torch::randint(0, 9, {6, 5}, kLong);
    expect_same_on_cuda("gather dim 0", [](auto& v) { return v[0].gather(0, v[1]); }, {x, idx});
    expect_same_on_cuda("gather dim 1", [](auto& v) { return v[0].gather(1, v[1]); }, {x, idx1});
    expect_same_on_cuda("gather of a transpose", [](auto& v) { return v[0].t().gather(1, v[1]); },
                        {x, torch::randint(0, 6, {9, 3}, kLong)});
    // scatter with unique indices per line (a permutation), so that the result is defined.
    Tensor perm = torch::stack({torch::randperm(9), torch::randperm(9)}).to(kLong);
    expect_same_on_cuda("scatter", [](auto& v) { return v[0].scatter(1, v[1], v[2]); },
                        {x.slice(0, 0, 2), perm, random_tensor({2, 9}, dt, 0, 4)});
    expect_same_on_cuda("scatter value", [](auto& v) { return v[0].scatter(1, v[1], 1); },
                        {x.slice(0, 0, 2), perm.slice(1, 0, 4)});
    if (dt == kBool) continue;
    const double t = cuda_rtol(dt);
    expect_same_on_cuda("scatter_add", [](auto& v) { return v[0].scatter_add(0, v[1], v[2]); },
                        {x, idx, random_tensor({4, 9}, dt, 0, 3)}, t, t);
    for (const char* r : {"sum", "prod", "amax", "amin", "mean"}) {
      if (std::string(r) == "mean" && !isFloatingType(dt)) continue;
      expect_same_on_cuda(std::string("scatter_reduce ") + r, [r](auto& v) {
        return v[0].scatter_reduce(0, v[1], v[2], r, /*include_self=*/true);
      }, {x, idx, random_tensor({4, 9}, dt, 1, 3)}, t, t);
    }
  }
  // A long 1-d gather: one line of a million entries, spread over the device.
  Tensor big = torch::rand({1000000});
  Tensor where = torch::randint(0, 1000000, {1000000}, kLong);
  expect_same_on_cuda("long 1-d gather", [](auto& v) { return v[0].gather(0, v[1]); }, {big, where});
}

TEST(CudaIndex, MasksWhereNonzeroFlipTrilu) {
  EMBER_REQUIRE_GPU();
  for (ScalarType dt : {kFloat, kHalf, kDouble, kLong, kByte, kBool, kComplexDouble}) {
    SCOPED_TRACE(torch_name(dt));
    Tensor x = random_tensor({5, 8}, dt, 0, 3);
    Tensor mask = torch::rand({5, 8}).lt(0.4);
    expect_same_on_cuda("masked_fill", [](auto& v) { return v[0].masked_fill(v[1], 1); }, {x, mask});
    expect_same_on_cuda("masked_fill broadcast", [](auto& v) { return v[0].masked_fill(v[1], 0); },
                        {x, mask.slice(0, 0, 1)});
    expect_same_on_cuda("masked_select", [](auto& v) { return v[0].masked_select(v[1]); }, {x, mask});
    expect_same_on_cuda("masked_scatter", [](auto& v) { return v[0].masked_scatter(v[1], v[2]); },
                        {x, mask, random_tensor({40}, dt, 0, 3)});
    expect_same_on_cuda("where", [](auto& v) { return torch::where(v[1], v[0], v[2]); },
                        {x, mask, random_tensor({1, 8}, dt, 0, 3)});
    expect_same_on_cuda("where with a scalar", [](auto& v) { return torch::where(v[1], v[0], 0); }, {x, mask});
    expect_same_on_cuda("nonzero", [](auto& v) { return v[0].nonzero(); }, {x});
    expect_same_on_cuda("nonzero 3-d", [](auto& v) { return v[0].nonzero(); }, {x.reshape({2, 4, 5}).transpose(0, 2)});
    expect_same_on_cuda("flip", [](auto& v) { return v[0].flip({0, 1}); }, {x});
    expect_same_on_cuda("roll", [](auto& v) { return v[0].roll(3, 1); }, {x});
    expect_same_on_cuda("tril", [](auto& v) { return v[0].tril(1); }, {x});
    expect_same_on_cuda("triu of a batch transpose", [](auto& v) { return v[0].triu(-1); },
                        {random_tensor({3, 4, 6}, dt, 0, 3).transpose(1, 2)});
  }
  Tensor sparse = torch::zeros({3000000});
  sparse.index_put_({torch::tensor({5, 1234567, 2999999}, kLong)}, 1);
  expect_same_on_cuda("nonzero of a large sparse vector", [](auto& v) { return v[0].nonzero(); }, {sparse});
  EXPECT_EQ(torch::zeros({0, 3}).cuda().nonzero().sizes(), IntArrayRef({0, 2}));
  EXPECT_EQ(torch::zeros({4}).cuda().nonzero().sizes(), IntArrayRef({0, 1}));
  EXPECT_EQ(torch::tensor(3.0).cuda().nonzero().sizes(), IntArrayRef({1, 0}));
}

TEST(CudaIndex, OutOfRangeIndicesAreErrorsNamingTheIndex) {
  EMBER_REQUIRE_GPU();
  Tensor x = torch::rand({4, 3}).cuda();
  EXPECT_ERROR_WITH(x.index({torch::tensor({0, 4}, kLong).cuda()}),
                    "index 4 is out of bounds for dimension 0 with size 4");
  EXPECT_ERROR_WITH(x.index({torch::tensor({-5}, kLong).cuda()}), "index -5 is out of bounds");
  EXPECT_ERROR_WITH(x.index_select(1, torch::tensor({3}, kLong).cuda()), "index out of range in self");
  EXPECT_ERROR_WITH(x.gather(1, torch::tensor({{0}, {3}, {1}, {2}}, kLong).cuda()),
                    "index 3 is out of bounds for dimension 1 with size 3");
  Tensor y = x.clone();
  EXPECT_ERROR_WITH(y.scatter_add_(0, torch::tensor({{7, 0, 0}}, kLong).cuda(), x.slice(0, 0, 1)),
                    "index 7 is out of bounds for dimension 0 with size 4");
  EXPECT_TENSOR_CLOSE(y.cpu(), x.cpu(), 0, 0);  // nothing was written
  // A CPU index tensor indexes a CUDA tensor, as in PyTorch.
  EXPECT_TENSOR_CLOSE(x.index({torch::tensor({1, 0}, kLong)}).cpu(), x.cpu().index({torch::tensor({1, 0}, kLong)}),
                      0, 0);
}

TEST(CudaSort, MatchesTheCpuWithNansStabilityAndDirections) {
  EMBER_REQUIRE_GPU();
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16, kLong, kInt, kShort, kChar, kByte, kBool}) {
    SCOPED_TRACE(torch_name(dt));
    // Few distinct values: many ties, so stability shows in the indices.
    Tensor x = random_tensor({7, 300}, dt, -3, 3).round();
    if (isFloatingType(dt)) x.index_put_({torch::tensor({0, 3, 6}, kLong), torch::tensor({5, 0, 299}, kLong)},
                                         std::numeric_limits<double>::quiet_NaN());
    for (bool desc : {false, true}) {
      for (int64_t dim : {1, 0}) {
        expect_same_on_cuda("stable sort", [=](auto& v) {
          auto [s, i] = v[0].sort(/*stable=*/true, dim, desc);
          return torch::cat({s.to(kDouble).flatten(), i.to(kDouble).flatten()});
        }, {x});
      }
    }
    expect_same_on_cuda("1-d stable sort", [](auto& v) {
      auto [s, i] = v[0].flatten().sort(true, 0, false);
      return torch::cat({s.to(kDouble), i.to(kDouble)});
    }, {x});
    expect_same_on_cuda("argsort of a transpose", [](auto& v) { return v[0].t().argsort(true, 1, true); }, {x});
    if (dt == kBool) continue;
    // topk/kthvalue values (ties make the indices implementation-defined; the values are not).
    expect_same_on_cuda("topk values", [](auto& v) { return std::get<0>(v[0].topk(5, 1)); }, {x});
    expect_same_on_cuda("topk smallest values", [](auto& v) { return std::get<0>(v[0].topk(4, 0, false)); }, {x});
    expect_same_on_cuda("kthvalue", [](auto& v) { return std::get<0>(v[0].kthvalue(10, 1)); }, {x});
    Tensor distinct = torch::randperm(1000).to(dt == kByte || dt == kChar ? kShort : dt).reshape({4, 250});
    if (dt == kHalf || dt == kBFloat16) distinct = torch::randperm(250).to(dt).reshape({1, 250});
    expect_same_on_cuda("topk indices of distinct values", [](auto& v) { return std::get<1>(v[0].topk(7, 1)); },
                        {distinct});
  }
  Tensor big = torch::randn({3000000});
  expect_same_on_cuda("large 1-d sort", [](auto& v) { return std::get<0>(v[0].sort()); }, {big});
  expect_same_on_cuda("unique", [](auto& v) { return std::get<0>(torch::_unique(v[0])); },
                      {torch::randint(0, 50, {1000}, kLong)});
}

TEST(CudaReduceIndex, MaxMinWithIndicesArgmaxAminmax) {
  EMBER_REQUIRE_GPU();
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16, kLong, kInt, kByte, kChar, kBool}) {
    SCOPED_TRACE(torch_name(dt));
    Tensor x = random_tensor({9, 40, 33}, dt, -2, 2).round();  // ties: the first index wins
    if (isFloatingType(dt)) x.index_put_({torch::tensor({1, 4}, kLong)}, std::numeric_limits<double>::quiet_NaN());
    for (int64_t dim : {0, 1, 2}) {
      expect_same_on_cuda("max dim", [=](auto& v) {
        auto [m, i] = v[0].max(dim);
        return torch::cat({m.to(kDouble).flatten(), i.to(kDouble).flatten()});
      }, {x});
      expect_same_on_cuda("min dim keepdim", [=](auto& v) {
        auto [m, i] = v[0].min(dim, true);
        return torch::cat({m.to(kDouble).flatten(), i.to(kDouble).flatten()});
      }, {x});
      expect_same_on_cuda("argmax", [=](auto& v) { return v[0].argmax(dim); }, {x});
    }
    expect_same_on_cuda("argmin of all", [](auto& v) { return v[0].argmin(); }, {x});
    expect_same_on_cuda("argmax of a transpose", [](auto& v) { return v[0].transpose(0, 2).argmax(1); }, {x});
    if (dt != kBool) {
      expect_same_on_cuda("aminmax", [](auto& v) {
        auto [lo, hi] = torch::aminmax(v[0], 1);
        return torch::cat({lo.to(kDouble).flatten(), hi.to(kDouble).flatten()});
      }, {x});
    }
  }
  Tensor big = torch::rand({5000011});
  big[4000000] = 2.0;
  big[4500000] = 2.0;
  EXPECT_EQ(big.cuda().argmax().item<int64_t>(), 4000000) << "split reduction keeps the first of equal maxima";
}

TEST(CudaScanSearch, CummaxLogcumsumexpCountNonzeroSearchsorted) {
  EMBER_REQUIRE_GPU();
  for (ScalarType dt : {kFloat, kDouble, kHalf, kLong, kInt, kByte, kBool}) {
    SCOPED_TRACE(torch_name(dt));
    Tensor x = random_tensor({5, 30, 4}, dt, -3, 3).round();
    if (isFloatingType(dt)) x.index_put_({torch::tensor({1, 3}, kLong), torch::tensor({7, 20}, kLong)},
                                         std::numeric_limits<double>::quiet_NaN());
    for (int64_t dim : {1, 2}) {
      expect_same_on_cuda("cummax", [=](auto& v) {
        auto [m, i] = torch::cummax(v[0], dim);
        return torch::cat({m.to(kDouble).flatten(), i.to(kDouble).flatten()});
      }, {x});
      expect_same_on_cuda("cummin", [=](auto& v) {
        auto [m, i] = torch::cummin(v[0], dim);
        return torch::cat({m.to(kDouble).flatten(), i.to(kDouble).flatten()});
      }, {x});
      expect_same_on_cuda("count_nonzero", [=](auto& v) { return torch::count_nonzero(v[0], std::optional<int64_t>(dim)); }, {x});
      if (isFloatingType(dt))
        expect_same_on_cuda("logcumsumexp", [=](auto& v) { return torch::logcumsumexp(v[0], dim); }, {x},
                            cuda_rtol(dt), cuda_rtol(dt));
    }
  }
  Tensor bd = std::get<0>(torch::randn({4, 50}, kDouble).sort(1));
  Tensor vals = torch::randn({4, 9}, kDouble);
  vals[0][0] = std::numeric_limits<double>::quiet_NaN();
  for (bool right : {false, true}) {
    expect_same_on_cuda("searchsorted batched", [=](auto& v) { return torch::searchsorted(v[0], v[1], false, right); },
                        {bd, vals});
    expect_same_on_cuda("searchsorted shared int32", [=](auto& v) {
      return torch::searchsorted(v[0], v[1], true, right).to(kLong);
    }, {bd[0], vals});
  }
  Tensor unsorted = torch::randn({30}, kDouble);
  Tensor sorter = unsorted.argsort();
  expect_same_on_cuda("searchsorted with sorter", [](auto& v) {
    return torch::searchsorted(v[0], v[1], false, false, std::nullopt, v[2]);
  }, {unsorted, vals.flatten(), sorter});
  EXPECT_ERROR_WITH(torch::searchsorted(unsorted.cuda(), vals.flatten().cuda(), false, false, std::nullopt,
                                        torch::full({30}, 30, kLong).cuda()),
                    "sorter index out of range");
}

}  // namespace
}  // namespace ember::test
