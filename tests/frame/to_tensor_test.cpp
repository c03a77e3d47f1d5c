// Columns to and from tensors: shared memory where the layout allows (and the owner kept
// alive), copies where it does not, nulls as a presence mask, and clear errors.
#include "ember/frame/frame.h"
#include "test_util.h"

namespace ember::frame {
namespace {

namespace dt = dtypes;

TEST(FrameTensor, FromTensorSharesContiguousMemory) {
  Tensor t = ember::arange(0, 5, TensorOptions().dtype(kLong));
  Column c = from_tensor(t);
  EXPECT_EQ(c.dtype(), dt::int64);
  EXPECT_EQ(c.to_values(), (std::vector<Value>{0, 1, 2, 3, 4}));
  EXPECT_EQ(static_cast<const void*>(c.values<int64_t>()), t.data_ptr());
  // The column keeps the storage alive after the last tensor handle goes.
  const void* p = t.data_ptr();
  t.reset();
  EXPECT_EQ(static_cast<const void*>(c.values<int64_t>()), p);
  EXPECT_EQ(*c.get<int64_t>(4), 4);

  Tensor f = ember::arange(0, 10, TensorOptions().dtype(kFloat)).slice(0, 1, 9, 2);  // strided: copied
  Column cf = from_tensor(f);
  EXPECT_EQ(cf.dtype(), dt::float32);
  EXPECT_EQ(cf.to_values(), (std::vector<Value>{1.0f, 3.0f, 5.0f, 7.0f}));
  Tensor off = ember::arange(0, 6, TensorOptions().dtype(kInt)).slice(0, 2, 6);  // contiguous with an offset
  Column co = from_tensor(off);
  EXPECT_EQ(static_cast<const void*>(co.values<int32_t>()), off.data_ptr());
  EXPECT_EQ(co.to_values(), (std::vector<Value>{2, 3, 4, 5}));

  Tensor b = ember::arange(0, 10, TensorOptions().dtype(kLong)).remainder(3).eq(0);
  Column cb = from_tensor(b);
  EXPECT_EQ(cb.dtype(), dt::boolean);
  EXPECT_EQ(cb.data()->buffers[1].data()[0], 0b01001001);  // 0, 3, 6 (LSB first)
  EXPECT_EQ(*cb.get<bool>(9), true);

  for (auto [dtype, type] : {std::pair{kByte, dt::uint8}, {kChar, dt::int8}, {kShort, dt::int16}, {kDouble, dt::float64}})
    EXPECT_EQ(from_tensor(ember::zeros({3}, TensorOptions().dtype(dtype))).dtype(), type);
  EXPECT_ERROR_WITH(from_tensor(ember::zeros({2, 2})), "expected a 1-d tensor, got 2 dimensions");
  EXPECT_ERROR_WITH(from_tensor(ember::zeros({2}, TensorOptions().dtype(kHalf))), "tensors of dtype Half have no column type");
  EXPECT_ERROR_WITH(from_tensor(Tensor()), "undefined tensor");
}

TEST(FrameTensor, ToTensorSharesTheColumnBuffer) {
  Column c = column(std::vector<int32_t>{5, 6, 7, 8}).slice(1, 3);
  Tensor t = to_tensor(c);
  EXPECT_EQ(t.scalar_type(), kInt);
  EXPECT_EQ(t.sizes().vec(), (std::vector<int64_t>{3}));
  EXPECT_EQ(t.data_ptr(), static_cast<const void*>(c.values<int32_t>()));
  EXPECT_EQ(t[2].item<int32_t>(), 8);
  // The tensor keeps the column's memory alive.
  c = Column();
  EXPECT_EQ(t[0].item<int32_t>(), 6);

  // Tensor -> column -> tensor is the same memory throughout.
  Tensor d = ember::arange(0, 4, TensorOptions().dtype(kDouble));
  EXPECT_EQ(to_tensor(from_tensor(d)).data_ptr(), d.data_ptr());

  Column dates = column(std::vector<int32_t>{1, 2}, dt::date32);
  EXPECT_EQ(to_tensor(dates).scalar_type(), kInt);
  Column ts = column(std::vector<int64_t>{1, 2}, dt::Timestamp(TimeUnit::Nano));
  EXPECT_EQ(to_tensor(ts).scalar_type(), kLong);
  EXPECT_EQ(to_tensor(column(std::vector<uint8_t>{250})).scalar_type(), kByte);
}

TEST(FrameTensor, CopiesAndErrors) {
  Tensor b = to_tensor(column({true, false, true}));
  EXPECT_EQ(b.scalar_type(), kBool);
  EXPECT_EQ(b.sum().item<int64_t>(), 2);
  Tensor u16 = to_tensor(column(std::vector<uint16_t>{65535, 1}));
  EXPECT_EQ(u16.scalar_type(), kInt);
  EXPECT_EQ(u16[0].item<int32_t>(), 65535);
  Tensor u32 = to_tensor(column(std::vector<uint32_t>{4000000000u}));
  EXPECT_EQ(u32.scalar_type(), kLong);
  EXPECT_EQ(u32[0].item<int64_t>(), 4000000000LL);
  EXPECT_ERROR_WITH(to_tensor(column(std::vector<uint64_t>{1})), "a column of type uint64 has no tensor form");
  EXPECT_ERROR_WITH(to_tensor(column({"a"})), "a column of type string has no tensor form");
  EXPECT_ERROR_WITH(to_tensor(column({1, std::nullopt})),
                    "the Int64(nullable=True) column has 1 nulls; use to_tensor_with_mask, or fill the nulls first");
}

TEST(FrameTensor, NullsAsAPresenceMask) {
  MaskedTensor m = to_tensor_with_mask(column({1.5, std::nullopt, -2.0}));
  EXPECT_EQ(m.values.scalar_type(), kDouble);
  EXPECT_EQ(m.mask.scalar_type(), kBool);
  EXPECT_TENSOR_EQ(m.values, ember::from_blob(std::vector<double>{1.5, 0.0, -2.0}.data(), {3},
                                             TensorOptions().dtype(kDouble)).clone());
  EXPECT_EQ(m.mask[0].item<bool>(), true);
  EXPECT_EQ(m.mask[1].item<bool>(), false);
  EXPECT_EQ(m.mask[2].item<bool>(), true);

  // Without nulls the values are shared and the mask is all true.
  Column c = column(std::vector<int64_t>{4, 5});
  MaskedTensor n = to_tensor_with_mask(c);
  EXPECT_EQ(n.values.data_ptr(), static_cast<const void*>(c.values<int64_t>()));
  EXPECT_EQ(n.mask.sum().item<int64_t>(), 2);
  MaskedTensor bm = to_tensor_with_mask(column({true, std::nullopt}));
  EXPECT_EQ(bm.values[1].item<bool>(), false);
  EXPECT_EQ(bm.mask[1].item<bool>(), false);
}

}  // namespace
}  // namespace ember::frame
