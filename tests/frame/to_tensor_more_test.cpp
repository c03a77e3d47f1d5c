// Whole frames and list columns to tensors (tensor_ops.h): the dict, list and matrix forms
// against hand-built values, zero copy where promised (data pointers equal), nulls as masks
// or errors naming the column, strings kept as strings, and PadSequence with its lengths.
#include "ember/frame/frame.h"
#include "ember/frame/tensor_ops.h"
#include "test_util.h"

namespace ember::frame {
namespace {

namespace dt = dtypes;

// A tensor's elements (any dtype, any shape) as int64 / double, row-major.
std::vector<int64_t> longs(const Tensor& t) {
  Tensor c = t.contiguous().to(kLong);
  const int64_t* p = c.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}
std::vector<double> doubles(const Tensor& t) {
  Tensor c = t.contiguous().to(kDouble);
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}
std::vector<int64_t> shape(const Tensor& t) { return t.sizes().vec(); }

DataFrame numeric_frame() {
  return DataFrame{{"a", column(std::vector<int32_t>{1, 2, 3, 4})},
                   {"b", column(std::vector<double>{0.5, 1.5, 2.5, 3.5})},
                   {"c", column({true, false, true, true})}};
}

TEST(FrameTensorMore, DictSharesColumnBuffers) {
  DataFrame df = numeric_frame();
  std::map<std::string, Tensor> d = to_tensor_dict(df);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d["a"].scalar_type(), kInt);
  EXPECT_EQ(longs(d["a"]), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(d["b"].scalar_type(), kDouble);
  EXPECT_EQ(doubles(d["b"]), (std::vector<double>{0.5, 1.5, 2.5, 3.5}));
  EXPECT_EQ(d["c"].scalar_type(), kBool);
  EXPECT_EQ(longs(d["c"]), (std::vector<int64_t>{1, 0, 1, 1}));
  EXPECT_EQ(d["a"].data_ptr(), static_cast<const void*>(df["a"].values<int32_t>()));
  EXPECT_EQ(d["b"].data_ptr(), static_cast<const void*>(df["b"].values<double>()));

  // A slice (what frame_batches yields) still shares: the tensors start at the slice's row.
  DataFrame s = df.slice(1, 2);
  std::vector<Tensor> l = to_tensors(s);
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(longs(l[0]), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(doubles(l[1]), (std::vector<double>{1.5, 2.5}));
  EXPECT_EQ(longs(l[2]), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(l[0].data_ptr(), static_cast<const void*>(df["a"].values<int32_t>() + 1));
  EXPECT_EQ(l[1].data_ptr(), static_cast<const void*>(df["b"].values<double>() + 1));
  // Column order, not name order.
  DataFrame r = df.select({"b", "a"});
  std::vector<Tensor> lr = to_tensors(r);
  EXPECT_EQ(lr[0].scalar_type(), kDouble);
  EXPECT_EQ(lr[1].scalar_type(), kInt);
}

TEST(FrameTensorMore, MatrixIsColumnsSideBySide) {
  DataFrame df = numeric_frame();
  Tensor m = to_tensor(df, kFloat);
  EXPECT_EQ(m.scalar_type(), kFloat);
  EXPECT_EQ(shape(m), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(doubles(m), (std::vector<double>{1, 0.5, 1, 2, 1.5, 0, 3, 2.5, 1, 4, 3.5, 1}));
  Tensor s = to_tensor(df.slice(2, 2).select({"a"}), kLong);
  EXPECT_EQ(shape(s), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(longs(s), (std::vector<int64_t>{3, 4}));
  // Writing to the matrix does not touch the frame (it is a copy).
  m.fill_(0);
  EXPECT_EQ(*df["a"].get<int32_t>(0), 1);
  EXPECT_EQ(shape(to_tensor(DataFrame{{"a", column(std::vector<int64_t>{})}}, kFloat)), (std::vector<int64_t>{0, 1}));
}

TEST(FrameTensorMore, NullsAsMaskOrErrorNamingTheColumn) {
  DataFrame df{{"x", column({1, std::nullopt, 3})}, {"y", column(std::vector<float>{1, 2, 3})}};
  EXPECT_ERROR_WITH(to_tensor_dict(df), "to_tensor_dict: column 'x' (Int64(nullable=True)) has 1 nulls");
  EXPECT_ERROR_WITH(to_tensors(df), "to_tensors: column 'x'");
  EXPECT_ERROR_WITH(to_tensor(df, kFloat), "column 'x' (Int64(nullable=True)) has 1 nulls");
  std::map<std::string, MaskedTensor> d = to_tensor_dict_with_mask(df);
  EXPECT_EQ(longs(d["x"].values), (std::vector<int64_t>{1, 0, 3}));
  EXPECT_EQ(d["x"].mask.scalar_type(), kBool);
  EXPECT_EQ(longs(d["x"].mask), (std::vector<int64_t>{1, 0, 1}));
  EXPECT_EQ(longs(d["y"].mask), (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(d["y"].values.data_ptr(), static_cast<const void*>(df["y"].values<float>()));  // no nulls: shared
  std::vector<MaskedTensor> l = to_tensors_with_mask(df.slice(1, 2));
  EXPECT_EQ(longs(l[0].values), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(longs(l[0].mask), (std::vector<int64_t>{0, 1}));
}

TEST(FrameTensorMore, StringsStayStrings) {
  DataFrame df{{"name", column({"ab", "", "\xc3\xa9"})}, {"v", column(std::vector<int64_t>{1, 2, 3})}};
  EXPECT_ERROR_WITH(to_tensor_dict(df), "column 'name' is a string column; strings stay strings (read them with to_strings(df[\"name\"]))");
  EXPECT_ERROR_WITH(to_tensor(df, kFloat), "column 'name' is a string column");
  EXPECT_EQ(to_strings(df["name"]), (std::vector<std::string>{"ab", "", "\xc3\xa9"}));
  EXPECT_EQ(to_strings(df["name"].slice(1, 2)), (std::vector<std::string>{"", "\xc3\xa9"}));
  EXPECT_EQ(to_strings(column({"p", "q", "p"}).dictionary_encode()), (std::vector<std::string>{"p", "q", "p"}));
  EXPECT_EQ(longs(to_tensor_dict(df.select({"v"}))["v"]), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_ERROR_WITH(to_strings(column({"a", std::nullopt})), "to_strings: row 1 is null");
  EXPECT_ERROR_WITH(to_strings(df["v"]), "to_strings: expected a string");
  DataFrame lists{{"ids", column(std::vector<std::vector<int64_t>>{{1}})}};
  EXPECT_ERROR_WITH(to_tensor_dict(lists), "column 'ids' is a List(int64) column; pad it with pad_sequence");
  DataFrame u{{"u", column(std::vector<uint64_t>{1})}};
  EXPECT_ERROR_WITH(to_tensors(u), "column 'u' of type uint64 has no tensor form");
}

TEST(FrameTensorMore, PadSequencePadsAndGivesLengths) {
  Column c = column(std::vector<std::vector<int64_t>>{{1, 2, 3}, {4}, {}, {5, 6}});
  PaddedSequence p = pad_sequence(c, /*batch_first=*/true, /*padding_value=*/-1);
  EXPECT_EQ(p.padded.scalar_type(), kLong);
  EXPECT_EQ(shape(p.padded), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(longs(p.padded), (std::vector<int64_t>{1, 2, 3, 4, -1, -1, -1, -1, -1, 5, 6, -1}));
  EXPECT_EQ(p.lengths.scalar_type(), kLong);
  EXPECT_EQ(longs(p.lengths), (std::vector<int64_t>{3, 1, 0, 2}));
  EXPECT_FALSE(p.inner_lengths.defined());

  // torch's default layout: time first, [max_len, n].
  PaddedSequence t = PadSequence{}(c);
  EXPECT_EQ(shape(t.padded), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(longs(t.padded), (std::vector<int64_t>{1, 4, 0, 5, 2, 0, 0, 6, 3, 0, 0, 0}));
  EXPECT_TRUE(t.padded.is_contiguous());

  // A slice of the column pads only its rows.
  PaddedSequence s = pad_sequence(c.slice(1, 3), true, 9);
  EXPECT_EQ(shape(s.padded), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(longs(s.padded), (std::vector<int64_t>{4, 9, 9, 9, 5, 6}));
  EXPECT_EQ(longs(s.lengths), (std::vector<int64_t>{1, 0, 2}));

  // Floats and booleans keep their tensor dtype; the padding value is converted.
  PaddedSequence f = pad_sequence(column(std::vector<std::vector<float>>{{0.5f}, {1.5f, 2.5f}}), true, 0.25);
  EXPECT_EQ(f.padded.scalar_type(), kFloat);
  EXPECT_EQ(doubles(f.padded), (std::vector<double>{0.5, 0.25, 1.5, 2.5}));
  PaddedSequence b = pad_sequence(column(std::vector<std::vector<bool>>{{true, true}, {false}}), true);
  EXPECT_EQ(b.padded.scalar_type(), kBool);
  EXPECT_EQ(longs(b.padded), (std::vector<int64_t>{1, 1, 0, 0}));
  // Large lists and empty columns.
  PaddedSequence ll = pad_sequence(column(std::vector<std::vector<int32_t>>{{7}, {8, 9}}, dt::LargeList(dt::int32)), true);
  EXPECT_EQ(ll.padded.scalar_type(), kInt);
  EXPECT_EQ(longs(ll.padded), (std::vector<int64_t>{7, 0, 8, 9}));
  PaddedSequence e = pad_sequence(column(std::vector<std::vector<int64_t>>{}), true);
  EXPECT_EQ(shape(e.padded), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(shape(e.lengths), (std::vector<int64_t>{0}));
}

TEST(FrameTensorMore, PadSequenceOfEqualRowsIsAView) {
  Column c = column(std::vector<std::vector<int32_t>>{{1, 2}, {3, 4}, {5, 6}, {7, 8}});
  const int32_t* items = c.list_values().values<int32_t>();
  PaddedSequence p = pad_sequence(c, true);
  EXPECT_EQ(shape(p.padded), (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(longs(p.padded), (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(p.padded.data_ptr(), static_cast<const void*>(items));
  PaddedSequence s = pad_sequence(c.slice(1, 2), true);
  EXPECT_EQ(longs(s.padded), (std::vector<int64_t>{3, 4, 5, 6}));
  EXPECT_EQ(s.padded.data_ptr(), static_cast<const void*>(items + 2));
  // The view keeps the column's memory alive.
  c = Column();
  EXPECT_EQ(longs(s.padded), (std::vector<int64_t>{3, 4, 5, 6}));
  // Time-first needs a transpose: a copy with the same values.
  Column d = column(std::vector<std::vector<int32_t>>{{1, 2}, {3, 4}});
  PaddedSequence t = pad_sequence(d, false);
  EXPECT_NE(t.padded.data_ptr(), static_cast<const void*>(d.list_values().values<int32_t>()));
  EXPECT_EQ(longs(t.padded), (std::vector<int64_t>{1, 3, 2, 4}));
}

TEST(FrameTensorMore, PadSequenceOfNestedLists) {
  Column c = column(std::vector<std::vector<std::vector<int32_t>>>{{{1}, {2, 3}}, {{4, 5, 6}}, {}});
  PaddedSequence p = pad_sequence(c, true, -1);
  EXPECT_EQ(shape(p.padded), (std::vector<int64_t>{3, 2, 3}));
  EXPECT_EQ(longs(p.padded), (std::vector<int64_t>{1, -1, -1, 2, 3, -1,     //
                                                   4, 5, 6, -1, -1, -1,     //
                                                   -1, -1, -1, -1, -1, -1}));
  EXPECT_EQ(longs(p.lengths), (std::vector<int64_t>{2, 1, 0}));
  EXPECT_EQ(shape(p.inner_lengths), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(longs(p.inner_lengths), (std::vector<int64_t>{1, 2, 3, 0, 0, 0}));
  PaddedSequence t = pad_sequence(c.slice(0, 2), false, 0);
  EXPECT_EQ(shape(t.padded), (std::vector<int64_t>{2, 2, 3}));  // [max_outer, n, max_inner]
  EXPECT_EQ(longs(t.padded), (std::vector<int64_t>{1, 0, 0, 4, 5, 6, 2, 3, 0, 0, 0, 0}));
  EXPECT_EQ(longs(t.inner_lengths), (std::vector<int64_t>{1, 3, 2, 0}));
  // Sliced rows start in the middle of the inner lists.
  PaddedSequence s = pad_sequence(c.slice(1, 1), true);
  EXPECT_EQ(longs(s.padded), (std::vector<int64_t>{4, 5, 6}));
}

TEST(FrameTensorMore, PadSequenceErrors) {
  EXPECT_ERROR_WITH(pad_sequence(column({1, 2})), "pad_sequence: expected a list or large_list column, got int64");
  Column null_row = column(std::vector<std::optional<std::vector<int64_t>>>{std::vector<int64_t>{1}, std::nullopt});
  EXPECT_ERROR_WITH(pad_sequence(null_row), "pad_sequence: row 1 is null");
  Column null_item = column_from_values({Value::List{1, 2}, Value::List{Value(), 4}}, dt::List(dt::Int64(true)));
  EXPECT_ERROR_WITH(pad_sequence(null_item), "pad_sequence: item 2 of the list values is null");
  EXPECT_ERROR_WITH(pad_sequence(column(std::vector<std::vector<std::string>>{{"a"}})),
                    "pad_sequence: items of type string have no tensor form");
  Column null_inner = column_from_values(std::vector<Value>{Value(Value::List{Value::List{1}, Value()})},
                                         dt::List(dt::List(dt::int64, true)));
  EXPECT_ERROR_WITH(pad_sequence(null_inner), "pad_sequence: inner list (of the list values) 1 is null");
}

}  // namespace
}  // namespace ember::frame
