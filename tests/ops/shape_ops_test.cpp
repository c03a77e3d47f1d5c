// tril/triu, cat/stack family, repeat/tile/repeat_interleave, flip/roll/rot90, meshgrid,
// cartesian_prod, diag family, diff, cross, pad (all modes), one_hot, bincount, histc,
// complex/polar: PyTorch 1.13 values, naive loops, dtypes, layouts and error messages.
#include <cmath>

#include "ops_test_util.h"
#include "test_util.h"

namespace ember::test {
namespace {
using indexing::Slice;

Tensor floats(const TensorDataContainer& d) { return tensor(d, dtype(kFloat)); }

TEST(ShapeOpsTest, TrilTriu) {
  Tensor x = ar({3, 4});
  EXPECT_TENSOR_EQ(x.triu(-1), longs({{0, 1, 2, 3}, {4, 5, 6, 7}, {0, 9, 10, 11}}));
  EXPECT_TENSOR_EQ(x.tril(1), longs({{0, 1, 0, 0}, {4, 5, 6, 0}, {8, 9, 10, 11}}));
  EXPECT_TENSOR_EQ(ar({3, 3}).tril(-1), longs({{0, 0, 0}, {3, 0, 0}, {6, 7, 0}}));
  EXPECT_TENSOR_EQ(ar({3, 3}).triu(2), longs({{0, 0, 2}, {0, 0, 0}, {0, 0, 0}}));
  EXPECT_TENSOR_EQ(ar({3, 3}).triu(5), zeros({3, 3}, dtype(kLong)));
  EXPECT_TENSOR_EQ(ar({3, 3}).tril(-5), zeros({3, 3}, dtype(kLong)));
  // batched, transposed, against a loop; every element size
  Tensor b = randn({2, 5, 4}, dtype(kDouble)).transpose(1, 2);  // [2, 4, 5]
  for (int64_t k : {-2, 0, 3}) {
    Tensor lo = b.tril(k), hi = b.triu(k);
    bool ok = true;
    for (int n = 0; n < 2; ++n)
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 5; ++j) {
          double v = b.index({n, i, j}).item<double>();
          ok &= lo.index({n, i, j}).item<double>() == (j - i <= k ? v : 0.0);
          ok &= hi.index({n, i, j}).item<double>() == (j - i >= k ? v : 0.0);
        }
    EXPECT_TRUE(ok) << k;
  }
  for (ScalarType t : {kBool, kHalf, kComplexDouble})
    EXPECT_TENSOR_EQ(b.to(t).tril(1), b.tril(1).to(t)) << t;
  Tensor in = ar({3, 3}, kFloat);
  in.triu_(1);
  EXPECT_TENSOR_EQ(in, floats({{0, 1, 2}, {0, 0, 5}, {0, 0, 0}}));
  EXPECT_EQ(zeros({0, 3}).tril().sizes(), IntArrayRef({0, 3}));
  EXPECT_ERROR_WITH(arange(3).tril(), "tril: input tensor must have at least 2 dimensions");
}

TEST(ShapeOpsTest, CatAndStack) {
  Tensor a = ar({2, 2}), b = ar({2, 3}) + 10;
  EXPECT_TENSOR_EQ(cat({a, b}, 1), longs({{0, 1, 10, 11, 12}, {2, 3, 13, 14, 15}}));
  EXPECT_TENSOR_EQ(cat({a, a.t()}, -2), longs({{0, 1}, {2, 3}, {0, 2}, {1, 3}}));
  // type promotion across inputs and the legacy empty 1-d tensor (skipped but promoting)
  Tensor p = cat({zeros({2}, dtype(kInt)), zeros({2}, dtype(kHalf)), ones({1}, dtype(kBool))});
  EXPECT_EQ(p.scalar_type(), kHalf);
  EXPECT_TENSOR_EQ(p, floats({0, 0, 0, 0, 1}).to(kHalf));
  Tensor l = cat({zeros({0}, dtype(kDouble)), ones({2, 2}, dtype(kLong))}, 1);
  EXPECT_EQ(l.scalar_type(), kDouble);
  EXPECT_EQ(l.sizes(), IntArrayRef({2, 2}));
  EXPECT_EQ(cat({zeros({0}), zeros({0})}).sizes(), IntArrayRef({0}));
  EXPECT_TENSOR_EQ(cat({zeros({0, 3}), ones({2, 3}, dtype(kFloat))}), ones({2, 3}, dtype(kFloat)));
  EXPECT_TENSOR_EQ(concat({a, a}, 0), cat({a, a}));
  // channels-last survives when every input is channels-last
  Tensor cl = randn({1, 2, 3, 3}).contiguous(MemoryFormat::ChannelsLast);
  Tensor c2 = cat({cl, cl}, 1);
  EXPECT_TRUE(c2.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_TENSOR_EQ(c2.narrow(1, 2, 2), cl);
  EXPECT_TRUE(cat({cl, cl.contiguous()}, 1).is_contiguous());
  // many inputs, large
  Tensor big = randn({300, 200});
  std::vector<Tensor> parts = big.split(7, 0);
  EXPECT_TENSOR_EQ(cat(parts, 0), big);

  EXPECT_ERROR_WITH(cat({zeros({2, 2}), zeros({3, 3})}, 1),
                    "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for tensor number "
                    "1 in the list.");
  EXPECT_ERROR_WITH(cat(std::vector<Tensor>{}), "torch.cat(): expected a non-empty list of Tensors");
  EXPECT_ERROR_WITH(cat({zeros({2, 2}), zeros({2})}), "Tensors must have same number of dimensions: got 2 and 1");
  EXPECT_ERROR_WITH(cat({tensor(1.), tensor(2.)}), "zero-dimensional tensor (at position 0) cannot be concatenated");
  EXPECT_ERROR_WITH(cat({zeros({2, 2})}, 2), "dimension out of range");

  Tensor s = stack({floats({1, 2}), floats({3, 4})}, 1);
  EXPECT_TENSOR_EQ(s, floats({{1, 3}, {2, 4}}));
  EXPECT_EQ(stack({zeros({2, 3}), zeros({2, 3})}, -1).sizes(), IntArrayRef({2, 3, 2}));
  EXPECT_TENSOR_EQ(hstack({tensor(int64_t(1)), longs({2, 3})}), longs({1, 2, 3}));
  EXPECT_TENSOR_EQ(hstack({longs({{1}, {2}}), longs({{3}, {4}})}), longs({{1, 3}, {2, 4}}));
  EXPECT_TENSOR_EQ(vstack({longs({1, 2}), longs({{2, 3}})}), longs({{1, 2}, {2, 3}}));
  EXPECT_TENSOR_EQ(dstack({longs({1, 2}), longs({2, 3})}), longs({{{1, 2}, {2, 3}}}));
  EXPECT_ERROR_WITH(stack({zeros({2}), zeros({3})}),
                    "stack expects each tensor to be equal size, but got [2] at entry 0 and [3] at entry 1");
  EXPECT_ERROR_WITH(stack(std::vector<Tensor>{}), "stack expects a non-empty TensorList");
}

TEST(ShapeOpsTest, RepeatTileInterleave) {
  Tensor x = longs({{1, 2}, {3, 4}});
  EXPECT_TENSOR_EQ(x.repeat({1, 2}), longs({{1, 2, 1, 2}, {3, 4, 3, 4}}));
  EXPECT_TENSOR_EQ(longs({1, 2}).repeat({2, 2}), longs({{1, 2, 1, 2}, {1, 2, 1, 2}}));
  EXPECT_EQ(x.t().repeat({2, 1, 3}).sizes(), IntArrayRef({2, 2, 6}));
  EXPECT_TENSOR_EQ(x.t().repeat({2, 1, 3}).index({1, Slice(), Slice(2, 4)}), x.t());
  EXPECT_EQ(x.repeat({0, 2}).sizes(), IntArrayRef({0, 4}));
  EXPECT_ERROR_WITH(x.repeat({2}), "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  EXPECT_ERROR_WITH(x.repeat({2, -1}), "negative dimension");
  EXPECT_TENSOR_EQ(longs({1, 2}).tile({2, 2}), longs({{1, 2, 1, 2}, {1, 2, 1, 2}}));
  EXPECT_TENSOR_EQ(x.tile({2}), longs({{1, 2, 1, 2}, {3, 4, 3, 4}}));

  EXPECT_TENSOR_EQ(repeat_interleave(x, 2), longs({1, 1, 2, 2, 3, 3, 4, 4}));
  EXPECT_TENSOR_EQ(x.repeat_interleave(longs({1, 2}), 0), longs({{1, 2}, {3, 4}, {3, 4}}));
  EXPECT_TENSOR_EQ(x.repeat_interleave(longs({3}), 0), longs({{1, 2}, {1, 2}, {1, 2}, {3, 4}, {3, 4}, {3, 4}}));
  EXPECT_TENSOR_EQ(x.repeat_interleave(2, -1), longs({{1, 1, 2, 2}, {3, 3, 4, 4}}));
  EXPECT_TENSOR_EQ(repeat_interleave(longs({1, 0, 2})), longs({0, 2, 2}));
  EXPECT_EQ(repeat_interleave(tensor({1, 2}, dtype(kInt))).scalar_type(), kInt);
  EXPECT_ERROR_WITH(repeat_interleave(longs({1, -1})), "repeats can not be negative");
  EXPECT_ERROR_WITH(repeat_interleave(longs({{1}})), "repeat_interleave only accept 1D vector as repeat");
  EXPECT_ERROR_WITH(arange(3).repeat_interleave(longs({1, 2}), 0), "repeats must have the same size as input along dim");
}

TEST(ShapeOpsTest, FlipRollRot90) {
  Tensor x = ar({2, 3});
  EXPECT_TENSOR_EQ(x.flip({0}), longs({{3, 4, 5}, {0, 1, 2}}));
  EXPECT_TENSOR_EQ(x.flip({-1, 0}), longs({{5, 4, 3}, {2, 1, 0}}));
  EXPECT_TENSOR_EQ(x.t().flip({1}), longs({{3, 0}, {4, 1}, {5, 2}}));
  EXPECT_TENSOR_EQ(x.fliplr(), longs({{2, 1, 0}, {5, 4, 3}}));
  EXPECT_TENSOR_EQ(x.flipud(), x.flip({0}));
  EXPECT_TENSOR_EQ(x.flip({}), x);
  Tensor cl = randn({2, 3, 4, 5}).contiguous(MemoryFormat::ChannelsLast);
  Tensor fcl = cl.flip({1, 3});
  EXPECT_TRUE(fcl.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_TENSOR_EQ(fcl.index({1, 0, 2, 4}), cl.index({1, 2, 2, 0}));
  for (ScalarType t : {kBool, kChar, kHalf, kComplexFloat, kComplexDouble})
    EXPECT_TENSOR_EQ(x.to(t).flip({1}), x.flip({1}).to(t)) << t;
  EXPECT_ERROR_WITH(x.flip({0, 0}), "dim 0 appears multiple times in the list of dims");
  EXPECT_ERROR_WITH(arange(3).fliplr(), "Input must be >= 2-d");

  EXPECT_TENSOR_EQ(x.roll({1}), longs({{5, 0, 1}, {2, 3, 4}}));
  EXPECT_TENSOR_EQ(x.roll({-4}, {1}), longs({{1, 2, 0}, {4, 5, 3}}));
  EXPECT_TENSOR_EQ(x.roll({1, 1}, {0, 1}), longs({{5, 3, 4}, {2, 0, 1}}));
  EXPECT_TENSOR_EQ(ar({2, 3, 4}).roll({1, -2}, {2, 0}).index({1, 2}), longs({23, 20, 21, 22}));
  EXPECT_TENSOR_EQ(x.t().roll({1}, {0}), longs({{2, 5}, {0, 3}, {1, 4}}));
  EXPECT_ERROR_WITH(x.roll({1, 2}, {0}), "shifts and dimensions must align. shifts: 2, dims:1");

  EXPECT_TENSOR_EQ(x.rot90(1), longs({{2, 5}, {1, 4}, {0, 3}}));
  EXPECT_TENSOR_EQ(x.rot90(-1), longs({{3, 0}, {4, 1}, {5, 2}}));
  EXPECT_TENSOR_EQ(x.rot90(3), x.rot90(-1));
  EXPECT_TENSOR_EQ(x.rot90(2), longs({{5, 4, 3}, {2, 1, 0}}));
  EXPECT_TENSOR_EQ(x.rot90(4), x);
  EXPECT_TENSOR_EQ(x.view({1, 2, 3}).rot90(1, {1, 2}), longs({{{2, 5}, {1, 4}, {0, 3}}}));
  EXPECT_ERROR_WITH(x.rot90(1, {0, 0}), "expected rotation dims to be different, but got dim0 = 0 and dim1 = 0");
  EXPECT_ERROR_WITH(x.rot90(1, {0}), "expected total rotation dims == 2, but got dims = 1");
}

TEST(ShapeOpsTest, MeshgridCartesianDiag) {
  Tensor a = longs({1, 2}), b = longs({3, 4, 5});
  auto ij = meshgrid({a, b}, "ij");
  EXPECT_TENSOR_EQ(ij[0], longs({{1, 1, 1}, {2, 2, 2}}));
  EXPECT_TENSOR_EQ(ij[1], longs({{3, 4, 5}, {3, 4, 5}}));
  auto xy = meshgrid({a, b}, "xy");
  EXPECT_TENSOR_EQ(xy[0], longs({{1, 2}, {1, 2}, {1, 2}}));
  EXPECT_TENSOR_EQ(xy[1], longs({{3, 3}, {4, 4}, {5, 5}}));
  EXPECT_EQ(meshgrid({a, tensor(int64_t(7)), b})[1].sizes(), IntArrayRef({2, 1, 3}));
  EXPECT_ERROR_WITH(meshgrid({a, a}, "foo"), "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: foo");
  EXPECT_ERROR_WITH(meshgrid({ar({2, 2}), a}), "Expected 0D or 1D tensor in the tensor list");
  EXPECT_TENSOR_EQ(cartesian_prod({a, b}), longs({{1, 3}, {1, 4}, {1, 5}, {2, 3}, {2, 4}, {2, 5}}));
  EXPECT_TENSOR_EQ(cartesian_prod({a}), a);

  EXPECT_TENSOR_EQ(diag(a, -1), longs({{0, 0, 0}, {1, 0, 0}, {0, 2, 0}}));
  EXPECT_TENSOR_EQ(ar({2, 3}).diag(1), longs({1, 5}));
  EXPECT_TENSOR_EQ(ar({3, 2}).t().diag(), longs({0, 3}));
  EXPECT_TENSOR_EQ(diagflat(longs({{1, 2}, {3, 4}}), 1).diag(1), longs({1, 2, 3, 4}));
  EXPECT_EQ(diagflat(longs({{1, 2}, {3, 4}}), -1).sizes(), IntArrayRef({5, 5}));
  Tensor de = longs({{1, 2}, {3, 4}}).diag_embed(1, 0, 2);
  EXPECT_EQ(de.sizes(), IntArrayRef({3, 2, 3}));
  EXPECT_TENSOR_EQ(de.flatten().slice(0, 0, 12), longs({0, 1, 0, 0, 3, 0, 0, 0, 2, 0, 0, 4}));
  EXPECT_TENSOR_EQ(floats({{1, 2}, {3, 4}}).diag_embed().index({1}), floats({{3, 0}, {0, 4}}));
  EXPECT_ERROR_WITH(diag(zeros({2, 2, 2})), "matrix or a vector expected");
  EXPECT_ERROR_WITH(diag_embed(arange(3.), 0, 0, 0), "diagonal dimensions cannot be identical 0, 0");
}

TEST(ShapeOpsTest, DiffAndCross) {
  EXPECT_TENSOR_EQ(longs({{1, 3, 6}, {0, 1, 5}}).diff(2, 1, longs({{0}, {0}})), longs({{1, 1}, {1, 3}}));
  EXPECT_TENSOR_EQ(tensor({true, false, false}).diff(), tensor({true, false}));
  EXPECT_EQ(longs({1, 2}).diff(3).sizes(), IntArrayRef({0}));
  EXPECT_TENSOR_EQ(longs({1, 2}).diff(0), longs({1, 2}));
  EXPECT_TENSOR_EQ(longs({1, 2}).diff(1, -1, floats({5})), floats({-4, 1}));
  EXPECT_TENSOR_EQ(floats({{1, 4}, {2, 8}}).t().diff(1, 1, std::nullopt, floats({{0}, {0}})), floats({{1, -2}, {4, -8}}));
  EXPECT_ERROR_WITH(tensor(1.f).diff(), "diff expects input to be at least one-dimensional");
  EXPECT_ERROR_WITH(longs({1, 2}).diff(1, -1, tensor(int64_t(5))), "diff expects prepend or append to be the same dimension as input");
  EXPECT_ERROR_WITH(longs({1, 2}).diff(-1), "order must be non-negative");

  Tensor a = floats({{1, 2, 3}, {4, 5, 6}}), b = floats({{7, 8, 9}, {1, 0, -1}});
  EXPECT_TENSOR_EQ(cross(a, b, 1), floats({{-6, 12, -6}, {-5, 10, -5}}));
  EXPECT_TENSOR_EQ(a.cross(b), floats({{-6, 12, -6}, {-5, 10, -5}}));  // first dim of size 3
  EXPECT_TENSOR_EQ(linalg::cross(a.t(), b.t(), 0), floats({{-6, 12, -6}, {-5, 10, -5}}).t());
  EXPECT_TENSOR_EQ(cross(floats({{1, 0, 0}}), floats({{0, 1, 0}, {0, 0, 1}})), floats({{0, 0, 1}, {0, -1, 0}}));
  EXPECT_TENSOR_EQ(cross(longs({1, 2, 3}), longs({4, 5, 6})), longs({-3, 6, -3}));
  EXPECT_ERROR_WITH(cross(zeros({2, 3}), zeros({2, 4})), "linalg.cross: inputs dimension 1 must have length 3. Got 3 and 4");
  EXPECT_ERROR_WITH(cross(zeros({2, 4}), zeros({2, 4})), "no dimension of size 3 in input");
  EXPECT_ERROR_WITH(linalg::cross(zeros({3, 2}), zeros({3, 2})), "linalg.cross: inputs dimension -1 must have length 3. Got 2 and 2");
  EXPECT_ERROR_WITH(linalg::cross(longs({1, 2, 3}), longs({{4, 5, 6}})), "linalg.cross: inputs must have the same number of dimensions.");
}

TEST(ShapeOpsTest, Pad) {
  Tensor x = ar({2, 3, 4}, kFloat);
  EXPECT_TENSOR_EQ(pad(x, {1, -1, 0, 1}, "constant", -1),
                   floats({{{-1, 0, 1, 2}, {-1, 4, 5, 6}, {-1, 8, 9, 10}, {-1, -1, -1, -1}},
                           {{-1, 12, 13, 14}, {-1, 16, 17, 18}, {-1, 20, 21, 22}, {-1, -1, -1, -1}}}));
  EXPECT_TENSOR_EQ(constant_pad_nd(ar({2, 3}, kFloat), {1, 2, 0, 1}, 9),
                   floats({{9, 0, 1, 2, 9, 9}, {9, 3, 4, 5, 9, 9}, {9, 9, 9, 9, 9, 9}}));
  EXPECT_TENSOR_EQ(pad(x, {2, 1, 1, 2}, "reflect"),
                   floats({{{6, 5, 4, 5, 6, 7, 6}, {2, 1, 0, 1, 2, 3, 2}, {6, 5, 4, 5, 6, 7, 6}, {10, 9, 8, 9, 10, 11, 10},
                            {6, 5, 4, 5, 6, 7, 6}, {2, 1, 0, 1, 2, 3, 2}},
                           {{18, 17, 16, 17, 18, 19, 18}, {14, 13, 12, 13, 14, 15, 14}, {18, 17, 16, 17, 18, 19, 18},
                            {22, 21, 20, 21, 22, 23, 22}, {18, 17, 16, 17, 18, 19, 18}, {14, 13, 12, 13, 14, 15, 14}}}));
  EXPECT_TENSOR_EQ(pad(x, {2, 1, 1, 2}, "replicate"),
                   floats({{{0, 0, 0, 1, 2, 3, 3}, {0, 0, 0, 1, 2, 3, 3}, {4, 4, 4, 5, 6, 7, 7}, {8, 8, 8, 9, 10, 11, 11},
                            {8, 8, 8, 9, 10, 11, 11}, {8, 8, 8, 9, 10, 11, 11}},
                           {{12, 12, 12, 13, 14, 15, 15}, {12, 12, 12, 13, 14, 15, 15}, {16, 16, 16, 17, 18, 19, 19},
                            {20, 20, 20, 21, 22, 23, 23}, {20, 20, 20, 21, 22, 23, 23}, {20, 20, 20, 21, 22, 23, 23}}}));
  EXPECT_TENSOR_EQ(pad(x.view({1, 2, 3, 4}), {2, 1, 1, 2}, "circular").squeeze(0),
                   floats({{{10, 11, 8, 9, 10, 11, 8}, {2, 3, 0, 1, 2, 3, 0}, {6, 7, 4, 5, 6, 7, 4}, {10, 11, 8, 9, 10, 11, 8},
                            {2, 3, 0, 1, 2, 3, 0}, {6, 7, 4, 5, 6, 7, 4}},
                           {{22, 23, 20, 21, 22, 23, 20}, {14, 15, 12, 13, 14, 15, 12}, {18, 19, 16, 17, 18, 19, 16},
                            {22, 23, 20, 21, 22, 23, 20}, {14, 15, 12, 13, 14, 15, 12}, {18, 19, 16, 17, 18, 19, 16}}}));
  Tensor r3 = pad(ar({1, 1, 2, 2, 4}, kFloat), {1, 2, 1, 0, 0, 1}, "replicate");
  EXPECT_EQ(r3.sizes(), IntArrayRef({1, 1, 3, 3, 7}));
  EXPECT_TENSOR_EQ(r3.index({0, 0, 2, 2}), floats({12, 12, 13, 14, 15, 15, 15}));
  // negative padding crops, each mode as PyTorch
  Tensor y = ar({1, 2, 3}, kFloat);
  EXPECT_TENSOR_EQ(pad(y, {-1, 2}, "replicate"), floats({{{1, 2, 2, 2}, {4, 5, 5, 5}}}));
  EXPECT_TENSOR_EQ(pad(y, {-1, 2}, "circular"), floats({{{1, 2, 1, 2}, {4, 5, 4, 5}}}));
  EXPECT_TENSOR_EQ(pad(y, {-1, 2}, "reflect"), floats({{{1, 2, 1, 0}, {4, 5, 4, 3}}}));
  EXPECT_TENSOR_EQ(pad(ar({2, 3}, kFloat), {-1, -1}), floats({{1}, {4}}));
  EXPECT_TENSOR_EQ(pad(y.transpose(1, 2), {1, 0}, "reflect"), floats({{{3, 0, 3}, {4, 1, 4}, {5, 2, 5}}}));

  EXPECT_ERROR_WITH(pad(arange(3.), {1}), "Padding length must be divisible by 2");
  EXPECT_ERROR_WITH(pad(arange(3.), {1, 1, 1, 1}), "Padding length too large");
  EXPECT_ERROR_WITH(constant_pad_nd(ar({2, 3}), {1, 1, 1, 1, 1, 1}),
                    "Length of pad should be no more than twice the number of dimensions of the input");
  EXPECT_ERROR_WITH(pad(ar({2, 3}, kFloat), {-2, -2}), "resulted in a negative output size");
  EXPECT_ERROR_WITH(pad(ar({1, 3}, kFloat), {3, 3}, "reflect"),
                    "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding "
                    "(3, 3) at dimension 1 of input [1, 3]");
  EXPECT_ERROR_WITH(pad(arange(3.), {1, 1}, "reflect"), "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported");
  EXPECT_ERROR_WITH(pad(y, {1, 1}, "foo"), "Unrecognised padding mode foo");
  EXPECT_THROW(pad(y, {1, 1}, "foo"), NotImplementedError);
  EXPECT_ERROR_WITH(pad(y, {4, 4}, "circular"), "Padding value causes wrapping around more than once.");
  EXPECT_ERROR_WITH(pad(y, {1, 2}, "replicate", 1.0), "Padding mode \"replicate\" doesn't take in value argument");
  EXPECT_ERROR_WITH(pad(zeros({1, 2, 0}), {1, 1}, "replicate"),
                    "Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions");
}

TEST(ShapeOpsTest, OneHotBincountHistc) {
  EXPECT_TENSOR_EQ(one_hot(longs({{0, 2}, {1, 1}})), longs({{{1, 0, 0}, {0, 0, 1}}, {{0, 1, 0}, {0, 1, 0}}}));
  EXPECT_EQ(one_hot(longs({1}), 5).sizes(), IntArrayRef({1, 5}));
  EXPECT_EQ(one_hot(empty({0}, dtype(kLong)), 4).sizes(), IntArrayRef({0, 4}));
  EXPECT_ERROR_WITH(one_hot(longs({3}), 3), "Class values must be smaller than num_classes.");
  EXPECT_ERROR_WITH(one_hot(longs({-1})), "Class values must be non-negative.");
  EXPECT_ERROR_WITH(one_hot(floats({1})), "one_hot is only applicable to index tensor");
  EXPECT_ERROR_WITH(one_hot(empty({0}, dtype(kLong))), "Can not infer total number of classes from empty tensor.");

  EXPECT_TENSOR_EQ(bincount(longs({0, 1, 1, 4})), longs({1, 2, 0, 0, 1}));
  EXPECT_TENSOR_EQ(bincount(longs({0, 1, 1}), floats({0.5, 1, 2})), floats({0.5, 3}));
  EXPECT_TENSOR_EQ(bincount(longs({0, 1, 1}), longs({1, 2, 3})), tensor({1., 5.}, dtype(kDouble)));
  EXPECT_TENSOR_EQ(tensor({0, 1, 1}, dtype(kInt)).bincount(std::nullopt, 4), longs({1, 2, 0, 0}));
  EXPECT_TENSOR_EQ(bincount(empty({0}, dtype(kLong)), std::nullopt, 2), longs({0, 0}));
  EXPECT_ERROR_WITH(bincount(longs({-1})), "bincount only supports 1-d non-negative integral inputs.");
  EXPECT_ERROR_WITH(bincount(longs({{1}})), "bincount only supports 1-d non-negative integral inputs.");
  EXPECT_ERROR_WITH(bincount(floats({1})), "not implemented for dtype Float");

  EXPECT_TENSOR_EQ(histc(floats({0.1, 0.25, 0.5, 0.99, 1.0, -0.1, 0.75}), 4, 0, 1), floats({1, 1, 1, 3}));
  EXPECT_TENSOR_EQ(floats({1, 2, 1, 5}).histc(4), floats({2, 1, 0, 1}));
  EXPECT_TENSOR_EQ(floats({1, 1}).histc(4), floats({0, 0, 2, 0}));
  EXPECT_TENSOR_EQ(tensor({1., 2.}, dtype(kDouble)).histc(4), tensor({1., 0., 0., 1.}, dtype(kDouble)));
  EXPECT_TENSOR_EQ(floats({1, 2, 1, 5, -1}).histc(4, 0, 4), floats({0, 2, 1, 0}));
  EXPECT_ERROR_WITH(histc(floats({1}), 0), "bins must be > 0");
  EXPECT_ERROR_WITH(histc(longs({1})), "input tensor dtype must be floating point");
  EXPECT_ERROR_WITH(histc(floats({1}), 4, 2, 1), "torch.histc: max must be larger than min");
}

TEST(ShapeOpsTest, ComplexAndPolar) {
  Tensor c = complex(floats({1, 2}), floats({{3}, {4}}));
  EXPECT_EQ(c.scalar_type(), kComplexFloat);
  EXPECT_TENSOR_EQ(real(c), floats({{1, 2}, {1, 2}}));
  EXPECT_TENSOR_EQ(imag(c), floats({{3, 3}, {4, 4}}));
  EXPECT_EQ(complex(zeros({2}, dtype(kHalf)), zeros({2}, dtype(kHalf))).scalar_type(), kComplexHalf);
  Tensor p = polar(floats({1, 2}), floats({0.5, -1}));
  EXPECT_TENSOR_CLOSE(real(p), floats({0.8775825500488281, 1.0806045532226562}));
  EXPECT_TENSOR_CLOSE(imag(p), floats({0.4794255495071411, -1.6829419136047363}));
  EXPECT_ERROR_WITH(complex(zeros({2}), zeros({2}, dtype(kDouble))),
                    "Expected object of scalar type Float but got scalar type Double for second argument");
  EXPECT_ERROR_WITH(complex(longs({1}), longs({1})), "Expected both inputs to be Half, Float or Double tensors but got Long and Long");
  EXPECT_ERROR_WITH(polar(zeros({2}), zeros({2}, dtype(kDouble))), "Expected object of scalar type Float");
}

TEST(ShapeOpsTest, OutVariantsAndMoreErrors) {
  Tensor out = empty({0}, dtype(kDouble));
  cat_out(out, {longs({1, 2}), longs({3})});
  EXPECT_TENSOR_EQ(out, tensor({1., 2., 3.}, dtype(kDouble)));
  stack_out(out, {longs({1, 2}), longs({3, 4})}, 1);
  EXPECT_TENSOR_EQ(out, tensor({{1., 3.}, {2., 4.}}, dtype(kDouble)));
  tril_out(out, ar({2, 2}));
  EXPECT_TENSOR_EQ(out, tensor({{0., 0.}, {2., 3.}}, dtype(kDouble)));
  triu_out(out, ar({2, 2}));
  EXPECT_TENSOR_EQ(out, tensor({{0., 1.}, {0., 3.}}, dtype(kDouble)));
  Tensor lo = empty({0}, dtype(kLong));
  EXPECT_ERROR_WITH(cat_out(lo, {floats({1}), floats({2})}), "result type Float can't be cast to the desired output type Long");

  EXPECT_ERROR_WITH(cat({longs({1}), Tensor()}), "tensor at position 1 is undefined");
  EXPECT_ERROR_WITH(hstack(std::vector<Tensor>{}), "hstack expects a non-empty TensorList");
  EXPECT_ERROR_WITH(vstack(std::vector<Tensor>{}), "vstack expects a non-empty TensorList");
  EXPECT_ERROR_WITH(dstack(std::vector<Tensor>{}), "dstack expects a non-empty TensorList");
  EXPECT_ERROR_WITH(repeat_interleave(floats({1})), "repeats has to be Long or Int tensor");
  EXPECT_ERROR_WITH(longs({1}).repeat_interleave(-1), "repeats can not be negative");
  EXPECT_ERROR_WITH(tensor(1.f).flipud(), "Input must be >= 1-d");
  EXPECT_ERROR_WITH(arange(3).rot90(), "expected total dims >= 2, but got total dims = 1");
  EXPECT_ERROR_WITH(meshgrid(std::vector<Tensor>{}), "expects a non-empty TensorList");
  EXPECT_ERROR_WITH(meshgrid({longs({1}), floats({1})}), "expects all tensors to have the same dtype");
  EXPECT_ERROR_WITH(cartesian_prod({ar({2, 2})}), "Expect a 1D vector, but got shape [2, 2]");
  EXPECT_ERROR_WITH(diag_embed(tensor(1.f)), "expected a tensor with at least 1 dimension");
  EXPECT_ERROR_WITH(linalg::cross(longs({1, 2, 3}), floats({4, 5, 6})), "expected both inputs to have the same dtype, got Long and Float");
  EXPECT_ERROR_WITH(constant_pad_nd(ar({2, 3}), {1}), "Length of pad must be even but instead it equals 1");
  EXPECT_ERROR_WITH(pad(ar({2, 3}, kFloat), {1, 1}, "circular"), "Invalid padding size, expected 0 but got 2");
  EXPECT_ERROR_WITH(pad(ar({1, 1, 2}, kFloat), {-1, -1}, "replicate"), "the output size would be 0");
  EXPECT_ERROR_WITH(one_hot(longs({1}), -2), "num_classes should be -1 or non-negative");
  EXPECT_ERROR_WITH(bincount(longs({1, 2}), floats({1})), "weights should be 1-d and have the same length as input");
  EXPECT_ERROR_WITH(bincount(longs({1}), std::nullopt, -1), "minlength should be >= 0");
  EXPECT_ERROR_WITH(histc(floats({1}), 4, 0, INFINITY), "is not finite");
}

}  // namespace
}  // namespace ember::test
