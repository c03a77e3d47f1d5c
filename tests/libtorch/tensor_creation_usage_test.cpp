// Creating tensors the way LibTorch 1.13 programs and tutorials do: factories with
// TensorOptions chains, from_blob, nested initializer lists, the new_* methods, conversions,
// element access through item/data_ptr/accessor, and printing. Expected values are what
// LibTorch 1.13 itself produces.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<int64_t> shape(const torch::Tensor& t) { return t.sizes().vec(); }

template <typename T>
std::vector<T> to_vec(const torch::Tensor& t) {
  auto c = t.contiguous();
  return std::vector<T>(c.data_ptr<T>(), c.data_ptr<T>() + c.numel());
}

}  // namespace

TEST(TensorCreationUsage, FactoriesWithOptionChains) {
  auto opts = torch::TensorOptions().dtype(torch::kFloat64).device(torch::kCPU).requires_grad(true);
  auto a = torch::zeros({2, 3}, opts);
  EXPECT_EQ(a.scalar_type(), torch::kDouble);
  EXPECT_TRUE(a.requires_grad());
  EXPECT_TRUE(a.is_leaf());
  EXPECT_EQ(a.device().type(), torch::kCPU);
  EXPECT_EQ(shape(a), (std::vector<int64_t>{2, 3}));

  auto b = torch::ones({4}, torch::dtype(torch::kInt32));
  EXPECT_EQ(b.dtype(), torch::kInt32);
  EXPECT_EQ(b.sum().item<int64_t>(), 4);

  auto c = torch::full({2, 2}, 7, torch::TensorOptions().dtype(torch::kInt64));
  EXPECT_EQ(c.scalar_type(), torch::kLong);
  EXPECT_EQ(c[1][1].item<int64_t>(), 7);

  // full with a floating fill value and no dtype gives the default float dtype
  auto d = torch::full({3}, 1.5);
  EXPECT_EQ(d.scalar_type(), torch::kFloat);

  auto e = torch::empty({0, 4});
  EXPECT_EQ(e.numel(), 0);
  EXPECT_EQ(e.dim(), 2);

  auto o = torch::TensorOptions().dtype(torch::kHalf);
  EXPECT_EQ(o.dtype(), torch::kHalf);
  EXPECT_FALSE(o.requires_grad());
  EXPECT_EQ(torch::device(torch::kCPU).dtype(torch::kBool).dtype(), torch::kBool);
}

TEST(TensorCreationUsage, TensorFromNestedLists) {
  auto t = torch::tensor({{1, 2, 3}, {4, 5, 6}});
  EXPECT_EQ(t.scalar_type(), torch::kLong);
  EXPECT_EQ(shape(t), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t[1][2].item<int64_t>(), 6);

  auto f = torch::tensor({{1.5, 2.5}, {3.5, 4.5}});
  EXPECT_EQ(f.scalar_type(), torch::kFloat);  // double literals take the default dtype

  auto ff = torch::tensor({1.0f, 2.0f});
  EXPECT_EQ(ff.scalar_type(), torch::kFloat);

  auto bools = torch::tensor({true, false, true});
  EXPECT_EQ(bools.scalar_type(), torch::kBool);
  EXPECT_EQ(bools.sum().item<int64_t>(), 2);

  auto with_opts = torch::tensor({1, 2, 3}, torch::kFloat);
  EXPECT_EQ(with_opts.scalar_type(), torch::kFloat);

  std::vector<float> v{0.5f, 1.5f, 2.5f};
  auto from_vec = torch::tensor(v);
  EXPECT_EQ(from_vec.scalar_type(), torch::kFloat);
  EXPECT_EQ(from_vec.numel(), 3);

  auto scalar = torch::tensor(3.25);
  EXPECT_EQ(scalar.dim(), 0);
  EXPECT_DOUBLE_EQ(scalar.item<double>(), 3.25);

  auto nested3 = torch::tensor({{{1}, {2}}, {{3}, {4}}});
  EXPECT_EQ(shape(nested3), (std::vector<int64_t>{2, 2, 1}));
  EXPECT_THROW(torch::tensor({{1, 2}, {3}}), c10::Error);
}

TEST(TensorCreationUsage, FromBlobSharesMemory) {
  float data[] = {1, 2, 3, 4, 5, 6};
  auto t = torch::from_blob(data, {2, 3});
  EXPECT_EQ(t.scalar_type(), torch::kFloat);
  EXPECT_EQ(t.data_ptr<float>(), data);
  t[0][0] = 10;
  EXPECT_FLOAT_EQ(data[0], 10.0f);

  int64_t ints[] = {1, 2, 3, 4};
  auto it = torch::from_blob(ints, {4}, torch::kLong);
  EXPECT_EQ(it.sum().item<int64_t>(), 10);

  // with explicit strides: a transposed view of the buffer
  auto tt = torch::from_blob(data, {3, 2}, {1, 3}, torch::kFloat);
  EXPECT_FALSE(tt.is_contiguous());
  EXPECT_FLOAT_EQ(tt[2][1].item<float>(), 6.0f);

  // clone owns its memory
  auto owned = t.clone();
  data[1] = -1;
  EXPECT_FLOAT_EQ(owned[0][1].item<float>(), 2.0f);
  EXPECT_FLOAT_EQ(t[0][1].item<float>(), -1.0f);

  bool deleted = false;
  {
    auto with_deleter = torch::from_blob(data, {6}, [&](void*) { deleted = true; }, torch::kFloat);
    EXPECT_EQ(with_deleter.numel(), 6);
  }
  EXPECT_TRUE(deleted);
}

TEST(TensorCreationUsage, RangesAndSpaces) {
  auto a = torch::arange(5);
  EXPECT_EQ(a.scalar_type(), torch::kLong);
  EXPECT_EQ(to_vec<int64_t>(a), (std::vector<int64_t>{0, 1, 2, 3, 4}));

  auto b = torch::arange(1, 10, 3);
  EXPECT_EQ(to_vec<int64_t>(b), (std::vector<int64_t>{1, 4, 7}));

  auto c = torch::arange(0.0, 1.0, 0.25);
  EXPECT_EQ(c.scalar_type(), torch::kFloat);
  EXPECT_EQ(c.numel(), 4);

  auto d = torch::arange(0, 4, torch::kFloat);
  EXPECT_EQ(d.scalar_type(), torch::kFloat);

  auto l = torch::linspace(0, 1, 5);
  EXPECT_EQ(l.scalar_type(), torch::kFloat);
  EXPECT_TRUE(l.allclose(torch::tensor({0.0f, 0.25f, 0.5f, 0.75f, 1.0f})));

  auto lg = torch::logspace(0, 3, 4);
  EXPECT_TRUE(lg.allclose(torch::tensor({1.0f, 10.0f, 100.0f, 1000.0f})));
  auto lg2 = torch::logspace(0, 3, 4, /*base=*/2.0);
  EXPECT_TRUE(lg2.allclose(torch::tensor({1.0f, 2.0f, 4.0f, 8.0f})));

  auto e = torch::eye(3);
  EXPECT_EQ(e.sum().item<float>(), 3.0f);
  auto e2 = torch::eye(2, 3, torch::kInt);
  EXPECT_EQ(shape(e2), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(e2.scalar_type(), torch::kInt);
  EXPECT_EQ(e2[1][1].item<int>(), 1);
  EXPECT_EQ(e2[1][2].item<int>(), 0);
}

TEST(TensorCreationUsage, LikeAndNewFactories) {
  auto base = torch::ones({2, 3}, torch::kDouble);
  auto z = torch::zeros_like(base);
  EXPECT_EQ(z.scalar_type(), torch::kDouble);
  EXPECT_EQ(shape(z), shape(base));

  auto zi = torch::zeros_like(base, torch::kInt);
  EXPECT_EQ(zi.scalar_type(), torch::kInt);

  auto ol = torch::ones_like(base, torch::TensorOptions().dtype(torch::kFloat).requires_grad(true));
  EXPECT_TRUE(ol.requires_grad());
  EXPECT_EQ(ol.scalar_type(), torch::kFloat);

  auto fl = torch::full_like(base, 2.5);
  EXPECT_DOUBLE_EQ(fl.sum().item<double>(), 15.0);

  auto em = torch::empty_like(base);
  EXPECT_EQ(shape(em), shape(base));
  EXPECT_EQ(em.scalar_type(), torch::kDouble);

  auto rl = torch::rand_like(base);
  EXPECT_TRUE((rl >= 0).all().item<bool>());
  auto ri = torch::randint_like(base, 10);
  EXPECT_TRUE((ri < 10).all().item<bool>());

  auto nz = base.new_zeros({4});
  EXPECT_EQ(nz.scalar_type(), torch::kDouble);
  EXPECT_EQ(shape(nz), (std::vector<int64_t>{4}));
  auto no = base.new_ones({2, 2}, torch::kLong);
  EXPECT_EQ(no.scalar_type(), torch::kLong);
  EXPECT_EQ(no.sum().item<int64_t>(), 4);
  auto nf = base.new_full({3}, 9);
  EXPECT_EQ(nf.scalar_type(), torch::kDouble);
  EXPECT_DOUBLE_EQ(nf[2].item<double>(), 9.0);
  auto ne = base.new_empty({5, 0});
  EXPECT_EQ(ne.numel(), 0);
}

TEST(TensorCreationUsage, CloneContiguousAndConversions) {
  auto x = torch::arange(6, torch::kFloat).view({2, 3});
  auto t = x.t();
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.strides().vec(), (std::vector<int64_t>{1, 3}));
  auto c = t.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(c.strides().vec(), (std::vector<int64_t>{2, 1}));
  EXPECT_TRUE(c.equal(t));

  auto cl = t.clone();
  EXPECT_EQ(cl.strides().vec(), (std::vector<int64_t>{1, 3}));  // preserve_format keeps dense strides as they are
  auto cl2 = t.clone(torch::MemoryFormat::Contiguous);
  EXPECT_TRUE(cl2.is_contiguous());

  auto d = x.to(torch::kDouble);
  EXPECT_EQ(d.scalar_type(), torch::kDouble);
  auto same = x.to(torch::kFloat);
  EXPECT_TRUE(same.is_same(x));  // no copy when nothing changes
  auto forced = x.to(torch::kFloat, /*non_blocking=*/false, /*copy=*/true);
  EXPECT_FALSE(forced.is_same(x));

  auto cpu = x.to(torch::Device("cpu"));
  EXPECT_TRUE(cpu.is_cpu());
  auto i = torch::tensor({1.7, -1.7}).to(torch::kInt);
  EXPECT_EQ(to_vec<int>(i), (std::vector<int>{1, -1}));  // truncation toward zero

  auto like = x.to(torch::zeros({1}, torch::kInt16));
  EXPECT_EQ(like.scalar_type(), torch::kShort);
  EXPECT_EQ(x.toType(torch::kByte).scalar_type(), torch::kByte);
  EXPECT_EQ(x.type().scalarType(), torch::kFloat);
}

TEST(TensorCreationUsage, ItemDataPtrAndAccessors) {
  auto t = torch::tensor({{1.0f, 2.0f}, {3.0f, 4.0f}});
  EXPECT_FLOAT_EQ(t[1][0].item<float>(), 3.0f);
  EXPECT_EQ(t[1][0].item().toFloat(), 3.0f);
  EXPECT_EQ(t.sum().item<int>(), 10);
  EXPECT_THROW(t.item<float>(), c10::Error);

  float* p = t.data_ptr<float>();
  p[3] = 40.0f;
  EXPECT_FLOAT_EQ(t[1][1].item<float>(), 40.0f);
  EXPECT_THROW(t.data_ptr<double>(), c10::Error);

  auto acc = t.accessor<float, 2>();
  EXPECT_EQ(acc.size(0), 2);
  float total = 0;
  for (int64_t i = 0; i < acc.size(0); ++i)
    for (int64_t j = 0; j < acc.size(1); ++j) total += acc[i][j];
  EXPECT_FLOAT_EQ(total, 46.0f);
  acc[0][1] = 20.0f;
  EXPECT_FLOAT_EQ(t[0][1].item<float>(), 20.0f);

  auto ints = torch::arange(12, torch::kInt).view({2, 2, 3});
  auto ia = ints.accessor<int, 3>();
  EXPECT_EQ(ia[1][0][2], 8);
  EXPECT_EQ(ia.stride(0), 6);

  auto scalar = torch::scalar_tensor(5, torch::kLong);
  EXPECT_EQ(scalar.item<int64_t>(), 5);
  EXPECT_EQ(scalar.dim(), 0);
  c10::Scalar s = scalar.item();
  EXPECT_TRUE(s.isIntegral(false));
  EXPECT_EQ(s.toLong(), 5);
}

TEST(TensorCreationUsage, ShapeQueries) {
  auto t = torch::zeros({2, 3, 4});
  EXPECT_EQ(t.dim(), 3);
  EXPECT_EQ(t.ndimension(), 3);
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.size(0), 2);
  EXPECT_EQ(t.size(-1), 4);
  EXPECT_EQ(t.stride(0), 12);
  EXPECT_EQ(t.stride(-1), 1);
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(t.strides(), c10::IntArrayRef({12, 4, 1}));
  EXPECT_EQ(t.element_size(), 4);
  EXPECT_EQ(t.nbytes(), 96u);
  EXPECT_EQ(t.itemsize(), 4u);
  EXPECT_TRUE(t.defined());
  EXPECT_FALSE(torch::Tensor().defined());
  EXPECT_THROW(t.size(3), c10::Error);

  auto s = t.sizes();
  std::vector<int64_t> as_vec(s.begin(), s.end());
  EXPECT_EQ(as_vec.size(), 3u);
  EXPECT_EQ(s.back(), 4);
  EXPECT_EQ(s.slice(1).vec(), (std::vector<int64_t>{3, 4}));

  std::ostringstream os;
  os << t.sizes();
  EXPECT_EQ(os.str(), "[2, 3, 4]");
}

TEST(TensorCreationUsage, PrintingTensors) {
  auto t = torch::arange(6).reshape({2, 3});
  std::ostringstream os;
  os << t;
  EXPECT_EQ(os.str(), " 0  1  2\n 3  4  5\n[ CPULongType{2,3} ]");
  EXPECT_EQ(t.toString(), "CPULongType");

  std::ostringstream f;
  f << torch::tensor({1.5f, -2.25f});
  EXPECT_EQ(f.str(), " 1.5000\n-2.2500\n[ CPUFloatType{2} ]");

  std::ostringstream sc;
  sc << torch::tensor(3);
  EXPECT_EQ(sc.str(), "3\n[ CPULongType{} ]");

  std::ostringstream b;
  b << torch::tensor({true, false});
  EXPECT_EQ(b.str(), " 1\n 0\n[ CPUBoolType{2} ]");

  std::ostringstream e;
  e << torch::empty({0});
  EXPECT_EQ(e.str(), "[ CPUFloatType{0} ]");

  std::ostringstream u;
  u << torch::Tensor();
  EXPECT_EQ(u.str(), "[ Tensor (undefined) ]");

  std::ostringstream d;
  d << torch::kFloat << " " << torch::kCPU << " " << torch::Device("cpu");
  EXPECT_EQ(d.str(), "Float cpu cpu");
}

TEST(TensorCreationUsage, RandomFactoriesWithOptions) {
  torch::manual_seed(0);
  auto r = torch::rand({2, 2}, torch::TensorOptions().dtype(torch::kDouble));
  EXPECT_EQ(r.scalar_type(), torch::kDouble);
  auto n = torch::randn({3}, torch::requires_grad());
  EXPECT_TRUE(n.requires_grad());
  auto ri = torch::randint(5, {100});
  EXPECT_EQ(ri.scalar_type(), torch::kLong);
  EXPECT_TRUE((ri >= 0).logical_and(ri < 5).all().item<bool>());
  auto ri2 = torch::randint(-3, 3, {50}, torch::kInt);
  EXPECT_EQ(ri2.scalar_type(), torch::kInt);
  EXPECT_GE(ri2.min().item<int>(), -3);
  auto p = torch::randperm(10);
  EXPECT_EQ(std::get<0>(p.sort()).equal(torch::arange(10)), true);
  auto nrm = torch::normal(2.0, 0.5, {1000});
  EXPECT_NEAR(nrm.mean().item<float>(), 2.0, 0.1);
}

TEST(TensorCreationUsage, RequiresGradAndOptionsOfExistingTensors) {
  auto x = torch::randn({2, 2});
  EXPECT_FALSE(x.requires_grad());
  x.requires_grad_();
  EXPECT_TRUE(x.requires_grad());
  auto opts = x.options();
  EXPECT_EQ(opts.dtype(), torch::kFloat);
  EXPECT_EQ(opts.device(), torch::Device(torch::kCPU));
  EXPECT_EQ(opts.layout(), torch::kStrided);
  auto y = torch::zeros({3}, x.options());
  EXPECT_EQ(y.scalar_type(), torch::kFloat);
  EXPECT_FALSE(y.requires_grad());  // options() never carries requires_grad

  auto ints = torch::zeros({2}, torch::kInt);
  EXPECT_THROW(ints.requires_grad_(), c10::Error);  // only floating point tensors
  EXPECT_THROW(torch::zeros({2}, torch::TensorOptions().dtype(torch::kLong).requires_grad(true)), c10::Error);
}

TEST(TensorCreationUsage, ComplexHalfAndBFloat16) {
  auto re = torch::tensor({1.0f, 0.0f});
  auto im = torch::tensor({0.0f, 2.0f});
  auto z = torch::complex(re, im);
  EXPECT_EQ(z.scalar_type(), torch::kComplexFloat);
  EXPECT_TRUE(z.is_complex());
  auto v = z[1].item<c10::complex<float>>();
  EXPECT_FLOAT_EQ(v.real(), 0.0f);
  EXPECT_FLOAT_EQ(v.imag(), 2.0f);
  EXPECT_TRUE(torch::view_as_real(z).equal(torch::tensor({{1.0f, 0.0f}, {0.0f, 2.0f}})));
  EXPECT_TRUE(z.abs().equal(torch::tensor({1.0f, 2.0f})));
  EXPECT_TRUE(torch::real(z * z).equal(torch::tensor({1.0f, -4.0f})));
  auto polar = torch::polar(torch::tensor({2.0}, torch::kDouble), torch::tensor({0.0}, torch::kDouble));
  EXPECT_EQ(polar.scalar_type(), torch::kComplexDouble);

  auto h = torch::tensor({1.5f, 2.25f}).to(torch::kHalf);
  EXPECT_EQ(h.scalar_type(), torch::kHalf);
  EXPECT_EQ(h.element_size(), 2);
  EXPECT_FLOAT_EQ(h[1].item<float>(), 2.25f);
  EXPECT_FLOAT_EQ(static_cast<float>(h[0].item<c10::Half>()), 1.5f);
  auto bf = torch::ones({3}, torch::kBFloat16) * 3;
  EXPECT_EQ(bf.scalar_type(), torch::kBFloat16);
  EXPECT_FLOAT_EQ(bf.sum().item<float>(), 9.0f);
  EXPECT_FLOAT_EQ(torch::tensor({0.1f}).to(torch::kHalf).item<float>(), 0.0999755859f);  // half rounding
}
