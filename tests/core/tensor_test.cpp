// Tensor, TensorImpl and Storage basics: metadata, views and their aliasing and errors,
// the version counter shared by views, from_blob deleters, the CPU caching allocator, and
// printing (expected strings produced by LibTorch 1.13's operator<<).
#include <sstream>

#include "ember/ops/tensor_literal.h"
#include "test_util.h"

namespace ember::test {
namespace {

Tensor iota(IntArrayRef shape, ScalarType t = kFloat) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return arange(0, n, TensorOptions().dtype(t)).reshape(shape);
}

// Element (i...) of a float tensor read through its strides.
float at(const Tensor& t, std::initializer_list<int64_t> idx) {
  const float* base = static_cast<const float*>(t.storage().data()) + t.storage_offset();
  int64_t off = 0, d = 0;
  for (int64_t i : idx) off += i * t.stride(d++);
  return base[off];
}

TEST(Tensor, Metadata) {
  Tensor t = empty({2, 3, 4});
  EXPECT_EQ(t.dim(), 3);
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(t.size(-1), 4);
  EXPECT_EQ(t.stride(0), 12);
  EXPECT_EQ(t.storage_offset(), 0);
  EXPECT_EQ(t.element_size(), 4u);
  EXPECT_EQ(t.nbytes(), 96u);
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_TRUE(t.is_cpu());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data_ptr()) % kStorageAlignment, 0u);  // 64-byte aligned
  EXPECT_ANY_THROW(t.size(3));
  Tensor s = empty({});
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.numel(), 1);
  Tensor z = empty({3, 0});
  EXPECT_EQ(z.numel(), 0);
  EXPECT_FALSE(Tensor().defined());
}

TEST(Tensor, DataPtrTypeIsChecked) {
  Tensor t = empty({2});
  EXPECT_NO_THROW(t.data_ptr<float>());
  EXPECT_ANY_THROW(t.data_ptr<double>());
  EXPECT_ANY_THROW(t.data_ptr<int32_t>());
}

TEST(Tensor, HandlesShareTheImpl) {
  Tensor a = empty({2});
  Tensor b = a;
  EXPECT_TRUE(a.is_same(b));
  EXPECT_EQ(a.use_count(), 2u);
  b = empty({2});
  EXPECT_FALSE(a.is_same(b));
  EXPECT_EQ(a.use_count(), 1u);
}

// ---- views ------------------------------------------------------------------------------
TEST(TensorViews, ViewSharesStorageAndChecksCompatibility) {
  Tensor x = iota({2, 6});
  Tensor v = x.view({3, 4});
  EXPECT_TRUE(v.is_alias_of(x));
  EXPECT_EQ(v.data_ptr(), x.data_ptr());
  EXPECT_EQ(x.view({-1}).sizes(), (std::vector<int64_t>{12}));
  EXPECT_EQ(x.view({4, -1}).sizes(), (std::vector<int64_t>{4, 3}));
  EXPECT_ERROR_WITH(x.view({5, -1}), "shape '[5, -1]' is invalid for input of size 12");
  EXPECT_ERROR_WITH(x.view({-1, -1}), "only one dimension can be inferred");
  Tensor t = x.t();  // {6, 2}, strides {1, 6}
  EXPECT_ERROR_WITH(t.view({12}), "is not compatible with input tensor's size");
  EXPECT_ERROR_WITH(t.view({12}), "Use .reshape(...) instead.");
  // a view that keeps the non-contiguous dims intact works
  EXPECT_EQ(t.view({6, 1, 2}).strides(), (std::vector<int64_t>{1, 12, 6}));  // as PyTorch
}

TEST(TensorViews, ReshapeAliasesWhenItCanAndCopiesOtherwise) {
  Tensor x = iota({2, 6});
  Tensor r = x.reshape({3, 4});
  EXPECT_TRUE(r.is_alias_of(x));
  Tensor t = x.t();
  Tensor rt = t.reshape({12});
  EXPECT_FALSE(rt.is_alias_of(x));
  EXPECT_TRUE(rt.is_contiguous());
  for (int64_t i = 0; i < 12; ++i) EXPECT_EQ(rt.data_ptr<float>()[i], float((i % 2) * 6 + i / 2));
  EXPECT_ERROR_WITH(x.reshape({7}), "shape '[7]' is invalid for input of size 12");
  EXPECT_TENSOR_EQ(x.flatten(), iota({12}));
  EXPECT_EQ(iota({2, 3, 4}).flatten(1).sizes(), (std::vector<int64_t>{2, 12}));
  EXPECT_EQ(iota({2, 12}).unflatten(1, {3, 4}).sizes(), (std::vector<int64_t>{2, 3, 4}));
}

TEST(TensorViews, SqueezeUnsqueeze) {
  Tensor x = iota({1, 3, 1, 2});
  EXPECT_EQ(x.squeeze().sizes(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(x.squeeze(2).sizes(), (std::vector<int64_t>{1, 3, 2}));
  EXPECT_EQ(x.squeeze(1).sizes(), x.sizes());  // not size 1: unchanged
  EXPECT_EQ(x.squeeze(-4).sizes(), (std::vector<int64_t>{3, 1, 2}));
  EXPECT_EQ(x.unsqueeze(0).sizes(), (std::vector<int64_t>{1, 1, 3, 1, 2}));
  EXPECT_EQ(x.unsqueeze(-1).sizes(), (std::vector<int64_t>{1, 3, 1, 2, 1}));
  EXPECT_ANY_THROW(x.unsqueeze(6));
  EXPECT_ANY_THROW(x.squeeze(4));
  EXPECT_TRUE(x.squeeze().is_alias_of(x));
  Tensor y = x.clone();
  y.squeeze_();
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{3, 2}));
  y.unsqueeze_(1);
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{3, 1, 2}));
}

TEST(TensorViews, PermuteTransposeMovedim) {
  Tensor x = iota({2, 3, 4});
  Tensor p = x.permute({2, 0, 1});
  EXPECT_EQ(p.sizes(), (std::vector<int64_t>{4, 2, 3}));
  EXPECT_EQ(p.strides(), (std::vector<int64_t>{1, 12, 4}));
  EXPECT_EQ(at(p, {3, 1, 2}), at(x, {1, 2, 3}));
  EXPECT_ERROR_WITH(x.permute({0, 1}), "number of dims don't match in permute");
  EXPECT_ERROR_WITH(x.permute({0, 1, 1}), "repeated dim");
  Tensor t = x.transpose(0, 2);
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{4, 3, 2}));
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{1, 4, 12}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(x.transpose(-1, -2).sizes(), (std::vector<int64_t>{2, 4, 3}));
  EXPECT_ERROR_WITH(x.t(), "expects a tensor with <= 2 dimensions");
  EXPECT_EQ(iota({5}).t().sizes(), (std::vector<int64_t>{5}));
  EXPECT_EQ(x.movedim(0, 2).sizes(), (std::vector<int64_t>{3, 4, 2}));
  EXPECT_EQ(x.movedim({0, 1}, {2, 0}).sizes(), (std::vector<int64_t>{3, 4, 2}));
  EXPECT_ANY_THROW(x.movedim({0, 0}, {1, 2}));
  EXPECT_EQ(x.mT().sizes(), (std::vector<int64_t>{2, 4, 3}));
}

TEST(TensorViews, Expand) {
  Tensor x = iota({3, 1});
  Tensor e = x.expand({2, 3, 4});
  EXPECT_EQ(e.sizes(), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(e.strides(), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_TRUE(e.is_alias_of(x));
  EXPECT_EQ(x.expand({-1, 5}).sizes(), (std::vector<int64_t>{3, 5}));
  EXPECT_ERROR_WITH(x.expand({4, 4}), "expand");
  EXPECT_ERROR_WITH(x.expand({4}), "expand");
  EXPECT_EQ(x.expand_as(empty({3, 7})).sizes(), (std::vector<int64_t>{3, 7}));
  EXPECT_EQ(broadcast_to(x, {2, 3, 2}).strides(), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(broadcast_shapes({3, 1}, {4}), (std::vector<int64_t>{3, 4}));
}

TEST(TensorViews, NarrowSelectSlice) {
  Tensor x = iota({4, 5});
  Tensor n = x.narrow(1, 1, 3);
  EXPECT_EQ(n.sizes(), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(n.storage_offset(), 1);
  EXPECT_EQ(x.narrow(0, -2, 2).storage_offset(), 10);
  EXPECT_ANY_THROW(x.narrow(1, 3, 3));
  Tensor s = x.select(0, 2);
  EXPECT_EQ(s.sizes(), (std::vector<int64_t>{5}));
  EXPECT_EQ(s.storage_offset(), 10);
  EXPECT_EQ(x.select(1, -1).storage_offset(), 4);
  EXPECT_ANY_THROW(x.select(0, 4));
  EXPECT_ANY_THROW(iota({}).select(0, 0));
  EXPECT_EQ(x[1].storage_offset(), 5);
  Tensor sl = x.slice(1, 1, std::nullopt, 2);
  EXPECT_EQ(sl.sizes(), (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(sl.strides(), (std::vector<int64_t>{5, 2}));
  EXPECT_EQ(at(sl, {3, 1}), 18.0f);
  EXPECT_EQ(x.slice(0, -3, -1).sizes(), (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(x.slice(0, 2, 100).sizes(), (std::vector<int64_t>{2, 5}));  // clamped like Python
  EXPECT_EQ(x.slice(0, 3, 1).sizes(), (std::vector<int64_t>{0, 5}));
  EXPECT_ERROR_WITH(x.slice(0, 0, 4, 0), "step must be positive");
}

TEST(TensorViews, UnfoldDiagonalAsStrided) {
  Tensor x = iota({7});
  Tensor u = x.unfold(0, 3, 2);
  EXPECT_EQ(u.sizes(), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(u.strides(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(at(u, {2, 1}), 5.0f);
  EXPECT_ANY_THROW(x.unfold(0, 8, 1));
  Tensor m = iota({3, 4});
  Tensor d = m.diagonal();
  EXPECT_EQ(d.sizes(), (std::vector<int64_t>{3}));
  EXPECT_EQ(d.strides(), (std::vector<int64_t>{5}));
  EXPECT_EQ(m.diagonal(1).sizes(), (std::vector<int64_t>{3}));
  EXPECT_EQ(m.diagonal(1).storage_offset(), 1);
  EXPECT_EQ(m.diagonal(-2).sizes(), (std::vector<int64_t>{1}));
  EXPECT_EQ(m.diagonal(-2).storage_offset(), 8);
  EXPECT_EQ(m.diagonal(5).numel(), 0);
  EXPECT_EQ(iota({2, 3, 3}).diagonal(0, 1, 2).sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_ERROR_WITH(m.diagonal(0, 1, 1), "diagonal");
  Tensor a = m.as_strided({2, 2}, {1, 4}, 1);
  EXPECT_EQ(at(a, {1, 1}), 6.0f);
  EXPECT_TRUE(a.is_alias_of(m));
  EXPECT_ANY_THROW(m.as_strided({4, 4}, {4, 1}));  // past the end of the storage
}

TEST(TensorViews, SplitChunkUnbind) {
  Tensor x = iota({7, 2});
  auto parts = x.split(3);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[2].sizes(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(parts[1].storage_offset(), 6);
  auto ws = x.split(std::vector<int64_t>{2, 5});
  ASSERT_EQ(ws.size(), 2u);
  EXPECT_EQ(ws[1].sizes(), (std::vector<int64_t>{5, 2}));
  EXPECT_ANY_THROW(x.split(std::vector<int64_t>{2, 4}));
  auto ch = x.chunk(3);
  ASSERT_EQ(ch.size(), 3u);  // ceil(7/3) = 3 per chunk: 3, 3, 1
  EXPECT_EQ(ch[0].size(0), 3);
  EXPECT_EQ(ch[2].size(0), 1);
  EXPECT_EQ(iota({4}).chunk(3).size(), 2u);  // PyTorch: chunks of 2, 2
  EXPECT_ANY_THROW(x.chunk(0));
  auto ub = x.unbind(1);
  ASSERT_EQ(ub.size(), 2u);
  EXPECT_EQ(ub[1].sizes(), (std::vector<int64_t>{7}));
  EXPECT_EQ(ub[1].strides(), (std::vector<int64_t>{2}));
  EXPECT_EQ(ub[1].storage_offset(), 1);
  auto ts = iota({7}).tensor_split(3);
  ASSERT_EQ(ts.size(), 3u);
  EXPECT_EQ(ts[0].numel(), 3);
  EXPECT_EQ(ts[2].numel(), 2);
}

TEST(TensorViews, ViewAsRealAndComplex) {
  Tensor c = empty({3}, TensorOptions().dtype(kComplexFloat));
  Tensor r = view_as_real(c);
  EXPECT_EQ(r.scalar_type(), kFloat);
  EXPECT_EQ(r.sizes(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(r.strides(), (std::vector<int64_t>{2, 1}));
  EXPECT_TRUE(r.is_alias_of(c));
  r.select(1, 0).fill_(1.5);
  r.select(1, 1).fill_(-2);
  Tensor back = view_as_complex(r);
  EXPECT_EQ(back.scalar_type(), kComplexFloat);
  EXPECT_EQ(back.data_ptr<Complex<float>>()[2], Complex<float>(1.5f, -2.0f));
  EXPECT_EQ(view_as_real(empty({2}, TensorOptions().dtype(kComplexHalf))).scalar_type(), kHalf);
  EXPECT_EQ(view_as_complex(empty({2, 2}, TensorOptions().dtype(kHalf))).scalar_type(), kComplexHalf);
  EXPECT_ERROR_WITH(view_as_real(empty({2})), "view_as_real");
  EXPECT_ERROR_WITH(view_as_complex(empty({2, 3})), "last dimension of size 2");
  EXPECT_ERROR_WITH(view_as_complex(empty({4, 2}).t().contiguous().t()), "stride");
  // real()/imag() are views too
  EXPECT_TRUE(c.real().is_alias_of(c));
  EXPECT_EQ(c.imag().storage_offset(), 1);
  EXPECT_ANY_THROW(empty({2}).imag());
}

TEST(TensorViews, VersionCounterIsSharedByViews) {
  Tensor x = zeros({4, 4});
  Tensor v = x.select(0, 1);
  Tensor w = x.t();
  uint32_t v0 = x._version();
  EXPECT_EQ(v._version(), v0);
  v.add_(1);
  EXPECT_EQ(x._version(), v0 + 1);
  EXPECT_EQ(w._version(), v0 + 1);
  x.mul_(2);
  EXPECT_EQ(v._version(), v0 + 2);
  // a copy (clone) has its own counter
  Tensor c = x.clone();
  uint32_t c0 = c._version();
  x.zero_();
  EXPECT_EQ(c._version(), c0);
  EXPECT_EQ(at(w, {0, 1}), 0.0f);
}

TEST(TensorViews, WritesThroughViewsAreVisible) {
  Tensor x = zeros({3, 3});
  x.select(1, 2).fill_(7);
  x.diagonal().fill_(1);
  EXPECT_EQ(at(x, {0, 2}), 7.0f);
  EXPECT_EQ(at(x, {2, 2}), 1.0f);
  EXPECT_EQ(at(x, {1, 0}), 0.0f);
  x.t().select(0, 0).fill_(5);  // column 0
  EXPECT_EQ(at(x, {2, 0}), 5.0f);
}

// ---- storage, from_blob, allocator -------------------------------------------------------------
TEST(TensorStorage, FromBlobDeleterRunsExactlyOnce) {
  static float data[6] = {1, 2, 3, 4, 5, 6};
  int calls = 0;
  void* seen = nullptr;
  {
    Tensor t = from_blob(data, {2, 3}, [&](void* p) { ++calls, seen = p; });
    EXPECT_EQ(t.data_ptr(), data);
    Tensor v = t.t();
    Tensor w = t.view({6});
    t.reset();
    EXPECT_EQ(calls, 0);  // views keep the storage alive
    EXPECT_EQ(w.data_ptr<float>()[4], 5.0f);
    v.reset();
  }
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen, data);
  // without a deleter the memory is borrowed and left alone
  {
    Tensor t = from_blob(data, {3}, TensorOptions().dtype(kFloat));
    EXPECT_EQ(t.data_ptr<float>()[2], 3.0f);
    Tensor s = from_blob(data, {2, 2}, {1, 2});
    EXPECT_EQ(at(s, {1, 1}), 4.0f);
  }
  EXPECT_EQ(data[0], 1.0f);
  // clone of a from_blob tensor owns its memory
  int calls2 = 0;
  Tensor c;
  {
    Tensor t = from_blob(data, {6}, [&](void*) { ++calls2; });
    c = t.clone();
  }
  EXPECT_EQ(calls2, 1);
  EXPECT_NE(c.data_ptr(), static_cast<void*>(data));
  EXPECT_EQ(c.data_ptr<float>()[5], 6.0f);
}

TEST(TensorStorage, AllocatorReusesAFreed64MiBBlock) {
  cpu::empty_cache();
  const int64_t n = 64 * 1024 * 1024 / 4;
  void* first;
  AllocatorStats before;
  {
    Tensor big = empty({n});
    first = big.data_ptr();
    before = cpu::allocator_stats();
    EXPECT_GE(before.allocated_bytes, 64 * 1024 * 1024);
    EXPECT_GE(before.reserved_bytes, before.allocated_bytes);
  }
  AllocatorStats freed = cpu::allocator_stats();
  EXPECT_LE(freed.allocated_bytes, before.allocated_bytes - 64 * 1024 * 1024);
  EXPECT_EQ(freed.reserved_bytes, before.reserved_bytes);  // cached, not returned to the OS
  {
    Tensor again = empty({n});
    AllocatorStats after = cpu::allocator_stats();
    EXPECT_EQ(after.num_os_allocs, before.num_os_allocs);  // no new OS allocation
    EXPECT_EQ(after.num_allocs, before.num_allocs + 1);
    EXPECT_EQ(again.data_ptr(), first);
    EXPECT_GE(after.peak_allocated_bytes, after.allocated_bytes);
  }
  cpu::empty_cache();
  AllocatorStats emptied = cpu::allocator_stats();
  EXPECT_LE(emptied.reserved_bytes, freed.reserved_bytes - 64 * 1024 * 1024);
  cpu::reset_peak_stats();
  EXPECT_EQ(cpu::allocator_stats().peak_allocated_bytes, cpu::allocator_stats().allocated_bytes);
}

// requested_bytes counts what tensors asked for; allocated_bytes the size classes they got (a
// block just above 4 MiB takes the next 256 KiB step).
TEST(TensorStorage, AllocatorCountsRequestedAndRoundedBytes) {
  const AllocatorStats before = cpu::allocator_stats();
  const int64_t floats = (4 << 20) / 4 + 1024;  // 4 MiB + 4 KiB
  {
    Tensor t = empty({floats});
    const AllocatorStats during = cpu::allocator_stats();
    EXPECT_EQ(during.requested_bytes - before.requested_bytes, floats * 4);
    EXPECT_EQ(during.allocated_bytes - before.allocated_bytes, (4 << 20) + (256 << 10));
    EXPECT_GE(during.peak_requested_bytes, during.requested_bytes);
  }
  const AllocatorStats after = cpu::allocator_stats();
  EXPECT_EQ(after.requested_bytes, before.requested_bytes);
  EXPECT_EQ(after.allocated_bytes, before.allocated_bytes);
  cpu::reset_peak_stats();
  EXPECT_EQ(cpu::allocator_stats().peak_requested_bytes, cpu::allocator_stats().requested_bytes);
}

TEST(TensorStorage, CopyAndCloneDoNotAlias) {
  Tensor x = iota({2, 3});
  Tensor c = x.clone();
  EXPECT_FALSE(c.is_alias_of(x));
  EXPECT_TENSOR_EQ(c, x);
  Tensor cl = iota({1, 2, 2, 3}).clone(MemoryFormat::ChannelsLast);
  EXPECT_TRUE(cl.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_EQ(cl.strides(), (std::vector<int64_t>{12, 1, 6, 2}));
  EXPECT_EQ(cl.suggest_memory_format(), MemoryFormat::ChannelsLast);
  EXPECT_TENSOR_EQ(cl, iota({1, 2, 2, 3}));
  Tensor y = empty({2, 3});
  y.copy_(x.t().t());
  EXPECT_TENSOR_EQ(y, x);
  EXPECT_ANY_THROW(y.copy_(iota({4})));
}

// ---- printing: exact LibTorch 1.13 output ---------------------------------------------------
std::string printed(const Tensor& t) {
  std::ostringstream os;
  os << t;
  return os.str();
}

TEST(TensorPrint, IntegerTensors) {
  EXPECT_EQ(printed(iota({2, 3}, kLong)), " 0  1  2\n 3  4  5\n[ CPULongType{2,3} ]");
  EXPECT_EQ(printed(tensor({1, -2, 300}, TensorOptions().dtype(kInt))), "   1\n  -2\n 300\n[ CPUIntType{3} ]");
  EXPECT_EQ(printed(tensor({0, 255, 7}, TensorOptions().dtype(kByte))), "   0\n 255\n   7\n[ CPUByteType{3} ]");
  EXPECT_EQ(printed(tensor({true, false, true})), " 1\n 0\n 1\n[ CPUBoolType{3} ]");
  EXPECT_EQ(printed(tensor({int64_t(-1000000), int64_t(5)})), "  -1e+06\n       5\n[ CPULongType{2} ]");
  EXPECT_EQ(printed(tensor({int64_t(123456789), int64_t(-5)})), "1.23457e+08\n        -5\n[ CPULongType{2} ]");
}

TEST(TensorPrint, FloatTensors) {
  EXPECT_EQ(printed(tensor({1.5f, -2.25f, 3.0f, 0.125f})), " 1.5000\n-2.2500\n 3.0000\n 0.1250\n[ CPUFloatType{4} ]");
  EXPECT_EQ(printed(tensor({1.5f, -2.25f, 3.0f, 0.125f, 10.0f, 7.0f}).reshape({2, 3})),
            "  1.5000  -2.2500   3.0000\n  0.1250  10.0000   7.0000\n[ CPUFloatType{2,3} ]");
  EXPECT_EQ(printed(tensor({1.0f, 2.0f, -3.0f})), " 1\n 2\n-3\n[ CPUFloatType{3} ]");
  EXPECT_EQ(printed(tensor({1.0, 0.1, 2.5}, TensorOptions().dtype(kDouble))), " 1.0000\n 0.1000\n 2.5000\n[ CPUDoubleType{3} ]");
  EXPECT_EQ(printed(tensor({1.0f, NAN, INFINITY, -INFINITY})), " 1\nnan\ninf\n-inf\n[ CPUFloatType{4} ]");
  EXPECT_EQ(printed(tensor({1.5, 2.0}, TensorOptions().dtype(kHalf))), " 1.5000\n 2.0000\n[ CPUHalfType{2} ]");
  EXPECT_EQ(printed(iota({2, 3}).t()), " 0  3\n 1  4\n 2  5\n[ CPUFloatType{3,2} ]");
}

TEST(TensorPrint, ScaledAndScientific) {
  EXPECT_EQ(printed(tensor({1000.5f, 20000.25f, 3.0f})), "  1000.5000\n 20000.2500\n     3.0000\n[ CPUFloatType{3} ]");
  EXPECT_EQ(printed(tensor({0.0001, 0.0002, 0.5}, TensorOptions().dtype(kDouble))), " 0.0001\n 0.0002\n 0.5000\n[ CPUDoubleType{3} ]");
  EXPECT_EQ(printed(tensor({1e-10f, 1.0f, 1e10f})), " 1.0000e-10\n 1.0000e+00\n 1.0000e+10\n[ CPUFloatType{3} ]");
  EXPECT_EQ(printed(tensor({1e20, 2e21}, TensorOptions().dtype(kDouble))), " 1.0000e+20\n 2.0000e+21\n[ CPUDoubleType{2} ]");
  EXPECT_EQ(printed(tensor({123456.5f, 1.5f, 2.0f})), " 1.2346e+05\n 1.5000e+00\n 2.0000e+00\n[ CPUFloatType{3} ]");
  EXPECT_EQ(printed(tensor({100000.0, 1.0, 0.5, 2.0}, TensorOptions().dtype(kDouble)).reshape({2, 2})),
            " 1.0000e+05  1.0000e+00\n 5.0000e-01  2.0000e+00\n[ CPUDoubleType{2,2} ]");
  EXPECT_EQ(printed(tensor({1e-5f, 1.5f})), " 1.0000e-05\n 1.5000e+00\n[ CPUFloatType{2} ]");
  EXPECT_EQ(printed(tensor({-0.001f, 1234.5f})), "-1.0000e-03\n 1.2345e+03\n[ CPUFloatType{2} ]");
  // a common scale factor printed before the values
  EXPECT_EQ(printed(tensor({100000.5f, 200000.25f, 300000.0f})), "1e+05 *\n 1.0000\n 2.0000\n 3.0000\n[ CPUFloatType{3} ]");
  EXPECT_EQ(printed(tensor({0.001f, 0.002f})), "0.001 *\n 1.0000\n 2.0000\n[ CPUFloatType{2} ]");
  EXPECT_EQ(printed(tensor({12345.5f, 23456.25f})), " 12345.5000\n 23456.2500\n[ CPUFloatType{2} ]");
  EXPECT_EQ(printed(tensor({10000.0f, 1.5f})), " 10000.0000\n     1.5000\n[ CPUFloatType{2} ]");
  EXPECT_EQ(printed(tensor({123456.0, 654321.0}, TensorOptions().dtype(kDouble)).reshape({1, 2})),
            " 123456  654321\n[ CPUDoubleType{1,2} ]");
  EXPECT_EQ(printed(iota({2, 2, 2}).add(100000.5)),
            "(1,.,.) = \n 1e+05 *\n  1.0000  1.0000\n   1.0000  1.0000\n\n(2,.,.) = \n 1e+05 *\n"
            "  1.0000  1.0001\n   1.0001  1.0001\n[ CPUFloatType{2,2,2} ]");
}

TEST(TensorPrint, ThreeDimensionalAndEdgeCases) {
  EXPECT_EQ(printed(iota({2, 2, 3}).div(4)),
            "(1,.,.) = \n  0.0000  0.2500  0.5000\n  0.7500  1.0000  1.2500\n\n(2,.,.) = \n"
            "  1.5000  1.7500  2.0000\n  2.2500  2.5000  2.7500\n[ CPUFloatType{2,2,3} ]");
  EXPECT_EQ(printed(tensor(3.5f)), "3.5\n[ CPUFloatType{} ]");
  EXPECT_EQ(printed(tensor(int64_t(7))), "7\n[ CPULongType{} ]");
  EXPECT_EQ(printed(zeros({0}, TensorOptions().dtype(kFloat))), "[ CPUFloatType{0} ]");
  EXPECT_EQ(printed(zeros({2, 0}, TensorOptions().dtype(kFloat))), "[ CPUFloatType{2,0} ]");
  EXPECT_EQ(printed(Tensor()), "[ Tensor (undefined) ]");
}

}  // namespace
}  // namespace ember::test
