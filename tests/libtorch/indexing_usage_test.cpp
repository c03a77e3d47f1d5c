// Tensor indexing as LibTorch 1.13 code writes it: the torch::indexing names (Slice, None,
// Ellipsis, TensorIndex) with index() and index_put_(), operator[] chains, boolean masks and
// integer index tensors, and the errors LibTorch raises. Expected values come from LibTorch 1.13.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "libtorch_test_util.h"

using namespace torch::indexing;

namespace {

torch::Tensor grid() { return torch::arange(12).view({3, 4}); }

using libtorch_test::dims;

}  // namespace

TEST(IndexingUsage, IntegersAndOperatorBrackets) {
  auto g = grid();
  EXPECT_EQ(g[1][2].item<int64_t>(), 6);
  EXPECT_EQ(g[-1][-1].item<int64_t>(), 11);
  EXPECT_EQ(g.index({1, 2}).item<int64_t>(), 6);
  EXPECT_EQ(g.index({-1}).sizes(), (std::vector<int64_t>{4}));
  EXPECT_TRUE(g[2].equal(torch::tensor({8, 9, 10, 11})));
  EXPECT_EQ(g[0].dim(), 1);
  EXPECT_EQ(g.index({0, 0}).dim(), 0);
  EXPECT_THROW(g[3], c10::Error);
  EXPECT_THROW(g.index({0, 4}), c10::Error);
  EXPECT_THROW(g.index({0, 0, 0}), c10::Error);  // too many indices

  // operator[] returns a view: writing through it changes the base
  g[0][0] = 100;
  EXPECT_EQ(g[0][0].item<int64_t>(), 100);
  auto row = g[1];
  row.fill_(-1);
  EXPECT_EQ(g.sum().item<int64_t>(), 100 + 1 + 2 + 3 - 4 + 8 + 9 + 10 + 11);
  // indexing with a 0-dim integer tensor works like an integer
  EXPECT_TRUE(g[torch::tensor(2)].equal(torch::tensor({8, 9, 10, 11})));
}

TEST(IndexingUsage, SlicesLikePython) {
  auto g = grid();
  // g[:, 1:3]
  auto cols = g.index({Slice(), Slice(1, 3)});
  EXPECT_EQ(dims(cols), (std::vector<int64_t>{3, 2}));
  EXPECT_TRUE(cols.equal(torch::tensor({{1, 2}, {5, 6}, {9, 10}})));
  // g[1:, ::2]
  auto strided = g.index({Slice(1, None), Slice(None, None, 2)});
  EXPECT_TRUE(strided.equal(torch::tensor({{4, 6}, {8, 10}})));
  EXPECT_EQ(strided.stride(1), 2);
  // g[:-1]
  EXPECT_EQ(dims(g.index({Slice(None, -1)})), (std::vector<int64_t>{2, 4}));
  // g[-2:, -1]
  EXPECT_TRUE(g.index({Slice(-2, None), -1}).equal(torch::tensor({7, 11})));
  // out of range bounds are clamped like Python
  EXPECT_EQ(dims(g.index({Slice(2, 100)})), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(dims(g.index({Slice(5, 10)})), (std::vector<int64_t>{0, 4}));
  EXPECT_EQ(dims(g.index({Slice(3, 1)})), (std::vector<int64_t>{0, 4}));
  // slices are views
  auto v = g.index({Slice(), 0});
  v.mul_(10);
  EXPECT_EQ(g[2][0].item<int64_t>(), 80);
  EXPECT_EQ(v.data_ptr<int64_t>(), g.data_ptr<int64_t>());
}

TEST(IndexingUsage, NegativeStepsAreRejected) {
  auto g = grid();
  EXPECT_THROW(g.index({Slice(None, None, -1)}), c10::Error);
  EXPECT_THROW(g.index({Slice(), Slice(None, None, 0)}), c10::Error);
  try {
    g.index({Slice(None, None, -1)});
    FAIL() << "expected an error";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("step must be greater than zero"), std::string::npos);
  }
  // the usual replacement is flip
  EXPECT_TRUE(g.flip(0)[0].equal(torch::tensor({8, 9, 10, 11})));
}

TEST(IndexingUsage, NoneAndEllipsis) {
  auto t = torch::arange(24).view({2, 3, 4});
  EXPECT_EQ(dims(t.index({None})), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(dims(t.index({Slice(), None})), (std::vector<int64_t>{2, 1, 3, 4}));
  EXPECT_EQ(dims(t.index({Ellipsis, None})), (std::vector<int64_t>{2, 3, 4, 1}));
  EXPECT_EQ(dims(t.index({"..."})), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_TRUE(t.index({Ellipsis, 0}).equal(torch::tensor({{0, 4, 8}, {12, 16, 20}})));
  EXPECT_TRUE(t.index({0, Ellipsis, 1}).equal(torch::tensor({1, 5, 9})));
  EXPECT_EQ(dims(t.index({None, Ellipsis, None})), (std::vector<int64_t>{1, 2, 3, 4, 1}));
  EXPECT_EQ(t.index({true}).dim(), 4);
  EXPECT_EQ(t.index({false}).size(0), 0);
}

TEST(IndexingUsage, TensorIndexObjects) {
  std::vector<TensorIndex> idx;
  idx.emplace_back(Slice(None, 2));
  idx.emplace_back(1);
  auto g = grid();
  EXPECT_TRUE(g.index(idx).equal(torch::tensor({1, 5})));

  TensorIndex i(3);
  EXPECT_TRUE(i.is_integer());
  EXPECT_EQ(i.integer(), 3);
  TensorIndex s(Slice(1, None, 2));
  EXPECT_TRUE(s.is_slice());
  EXPECT_EQ(s.slice().start(), 1);
  EXPECT_EQ(s.slice().step(), 2);
  EXPECT_TRUE(TensorIndex(None).is_none());
  EXPECT_TRUE(TensorIndex(Ellipsis).is_ellipsis());
  EXPECT_TRUE(TensorIndex(true).is_boolean());
  EXPECT_TRUE(TensorIndex(torch::tensor({0})).is_tensor());

  std::ostringstream os;
  os << TensorIndex(None) << " " << TensorIndex(Ellipsis) << " " << TensorIndex(5) << " " << TensorIndex(Slice(None, 3));
  EXPECT_EQ(os.str(), "None ... 5 0:3:1");
  std::ostringstream all;
  all << std::vector<TensorIndex>{Slice(), 0};
  EXPECT_EQ(all.str(), "(0:9223372036854775807:1, 0)");
}

TEST(IndexingUsage, BooleanMasks) {
  auto x = torch::tensor({5.0f, -1.0f, 3.0f, -7.0f});
  auto mask = x < 0;
  EXPECT_TRUE(x.index({mask}).equal(torch::tensor({-1.0f, -7.0f})));
  auto y = x.clone();
  y.index_put_({mask}, 0);
  EXPECT_TRUE(y.equal(torch::tensor({5.0f, 0.0f, 3.0f, 0.0f})));
  y.index_put_({y == 0}, torch::tensor({10.0f, 20.0f}));
  EXPECT_TRUE(y.equal(torch::tensor({5.0f, 10.0f, 3.0f, 20.0f})));

  auto g = grid();
  auto rows = g.index({g.select(1, 0) > 2});
  EXPECT_EQ(dims(rows), (std::vector<int64_t>{2, 4}));
  auto elems = g.index({g % 5 == 0});
  EXPECT_TRUE(elems.equal(torch::tensor({0, 5, 10})));
  // a mask on the second dimension
  auto colmask = torch::tensor({true, false, true, false});
  EXPECT_TRUE(g.index({Slice(), colmask}).equal(torch::tensor({{0, 2}, {4, 6}, {8, 10}})));
  EXPECT_THROW(g.index({torch::tensor({true, false})}), c10::Error);  // wrong mask length
  // masked reads copy
  auto copy = g.index({g > 100});
  EXPECT_EQ(copy.numel(), 0);
  EXPECT_EQ(dims(copy), (std::vector<int64_t>{0}));
}

TEST(IndexingUsage, IntegerTensorIndices) {
  auto g = grid();
  auto picked = g.index({torch::tensor({2, 0})});
  EXPECT_TRUE(picked.equal(torch::tensor({{8, 9, 10, 11}, {0, 1, 2, 3}})));
  // advanced indices in two dims are paired up
  auto pairs = g.index({torch::tensor({0, 1, 2}), torch::tensor({3, 2, 1})});
  EXPECT_TRUE(pairs.equal(torch::tensor({3, 6, 9})));
  // broadcasting index tensors
  auto block = g.index({torch::tensor({{0}, {2}}), torch::tensor({1, 3})});
  EXPECT_TRUE(block.equal(torch::tensor({{1, 3}, {9, 11}})));
  // mixed with a slice
  auto cols = g.index({Slice(), torch::tensor({0, 0, 3})});
  EXPECT_EQ(dims(cols), (std::vector<int64_t>{3, 3}));
  EXPECT_TRUE(cols[1].equal(torch::tensor({4, 4, 7})));
  // negative indices inside tensors
  EXPECT_TRUE(g.index({torch::tensor({-1})}).equal(g.index({Slice(2, 3)})));
  // advanced indexing copies rather than views
  auto c = g.index({torch::tensor({0})});
  c.fill_(0);
  EXPECT_EQ(g[0][1].item<int64_t>(), 1);
  EXPECT_THROW(g.index({torch::tensor({5})}), c10::Error);
  EXPECT_THROW(g.index({torch::tensor({0.5})}), c10::Error);  // float indices
}

TEST(IndexingUsage, IndexPutWithSlicesAndScalars) {
  auto t = torch::zeros({3, 4});
  t.index_put_({0}, 1);
  t.index_put_({Slice(), -1}, 2);
  t.index_put_({Slice(1, None), Slice(None, 2)}, torch::tensor({{3.0f, 4.0f}, {5.0f, 6.0f}}));
  EXPECT_TRUE(t.equal(torch::tensor({{1.0f, 1.0f, 1.0f, 2.0f}, {3.0f, 4.0f, 0.0f, 2.0f}, {5.0f, 6.0f, 0.0f, 2.0f}})));
  // broadcasting a row into a column block
  t.index_put_({Slice(), Slice(1, 3)}, torch::tensor({7.0f, 8.0f}));
  EXPECT_TRUE(t.index({Slice(), 1}).equal(torch::full({3}, 7.0f)));
  EXPECT_THROW(t.index_put_({Slice(), 0}, torch::ones({2})), c10::Error);
  // index_put_ with integer tensors and accumulate
  auto acc = torch::zeros({4});
  acc.index_put_({torch::tensor({0, 0, 3})}, torch::tensor({1.0f, 2.0f, 3.0f}), /*accumulate=*/true);
  EXPECT_TRUE(acc.equal(torch::tensor({3.0f, 0.0f, 0.0f, 3.0f})));
  auto over = torch::zeros({2});
  over.index_put_({torch::tensor({1, 1})}, torch::tensor({5.0f, 5.0f}));
  EXPECT_FLOAT_EQ(over[1].item<float>(), 5.0f);
  // Ellipsis assignment
  auto e = torch::zeros({2, 2, 2});
  e.index_put_({Ellipsis, 1}, 9);
  EXPECT_FLOAT_EQ(e.sum().item<float>(), 36.0f);
  // the functional form
  auto f = torch::zeros({3}).index_put({torch::tensor({1})}, torch::tensor(4.0f));
  EXPECT_TRUE(f.equal(torch::tensor({0.0f, 4.0f, 0.0f})));
}

TEST(IndexingUsage, AssignmentThroughIndexResult) {
  auto t = torch::zeros({2, 3});
  // index() with basic indices returns a view, so in-place ops write back
  t.index({0, Slice(1, None)}).fill_(5);
  t.index({1}).add_(torch::tensor({1.0f, 2.0f, 3.0f}));
  EXPECT_TRUE(t.equal(torch::tensor({{0.0f, 5.0f, 5.0f}, {1.0f, 2.0f, 3.0f}})));
  t.index({Slice(), 0}) = torch::tensor({-1.0f, -2.0f});  // Tensor::operator= on a view copies
  EXPECT_TRUE(t.select(1, 0).equal(torch::tensor({-1.0f, -2.0f})));
  t[1][1] = 42;
  EXPECT_FLOAT_EQ(t[1][1].item<float>(), 42.0f);
  t.index_put_({t > 4}, 0);
  EXPECT_FLOAT_EQ(t.max().item<float>(), 3.0f);
}

TEST(IndexingUsage, IndexingKeepsAutograd) {
  auto w = torch::ones({3, 2}, torch::requires_grad());
  auto sel = w.index({torch::tensor({0, 0, 2}), Slice()});
  sel.sum().backward();
  EXPECT_TRUE(w.grad().equal(torch::tensor({{2.0f, 2.0f}, {0.0f, 0.0f}, {1.0f, 1.0f}})));
  auto x = torch::zeros({3}, torch::requires_grad());
  auto y = x * 1;
  y.index_put_({1}, 5.0);
  y.sum().backward();
  EXPECT_TRUE(x.grad().equal(torch::tensor({1.0f, 0.0f, 1.0f})));
  EXPECT_THROW(x.index_put_({0}, 1.0), c10::Error);  // a leaf requiring grad can't be modified in-place
}

TEST(IndexingUsage, PrintingIndexedViews) {
  auto g = grid();
  std::ostringstream os;
  os << g.index({Slice(None, 2), Slice(2, None)});
  EXPECT_EQ(os.str(), " 2  3\n 6  7\n[ CPULongType{2,2} ]");
  EXPECT_EQ(g.index({Slice(None, 2), Slice(2, None)}).is_contiguous(), false);
  EXPECT_EQ(g.index({Slice(1, 2)}).is_contiguous(), true);
  EXPECT_EQ(g.index({Slice(1, 2)}).storage_offset(), 4);
}
