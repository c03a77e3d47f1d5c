// DataFrame: construction (from columns, column by column, row by row), selection, slices,
// the struct array underneath, name suggestions, and the printed table.
#include "ember/frame/frame.h"
#include "test_util.h"

namespace ember::frame {
namespace {

namespace dt = dtypes;

DataFrame sample() {
  return DataFrame{{"id", column({1, 2, 3})},
                   {"name", column({"ab", std::nullopt, "c"})},
                   {"score", column({1.5, 2.25, std::nullopt})}};
}

TEST(FrameDataFrame, ConstructionAndShape) {
  DataFrame df = sample();
  EXPECT_EQ(df.shape(), (std::pair<int64_t, int64_t>{3, 3}));
  EXPECT_EQ(df.num_rows(), 3);
  EXPECT_EQ(df.length(), 3);
  EXPECT_EQ(df.columns(), (std::vector<std::string>{"id", "name", "score"}));
  EXPECT_EQ(df.dtypes(), (std::vector<DType>{dt::int64, dt::String(true), dt::Float64(true)}));
  EXPECT_EQ(df.dtype(), dt::Struct({{"id", dt::int64}, {"name", dt::String(true)}, {"score", dt::Float64(true)}}));
  EXPECT_EQ(*df["name"].get_string(0), "ab");
  EXPECT_EQ(df.column(2).get<double>(1), 2.25);
  EXPECT_EQ(df.row(1), (std::vector<Value>{2, Value(), 2.25}));
  EXPECT_TRUE(df.has_column("id"));
  EXPECT_EQ(df.column_index("score"), 2);
  EXPECT_EQ(DataFrame().shape(), (std::pair<int64_t, int64_t>{0, 0}));

  EXPECT_ERROR_WITH((DataFrame{{"a", column({1})}, {"a", column({2})}}), "the column name 'a' appears twice");
  EXPECT_ERROR_WITH((DataFrame{{"a", column({1})}, {"b", column({2, 3})}}),
                    "column 'b' has length 2 but the frame has 1 rows");
  EXPECT_ERROR_WITH(df.column(3), "index 3 is out of range for a frame of 3 columns");
  EXPECT_ERROR_WITH(df.row(3), "row 3 is out of range");
}

TEST(FrameDataFrame, UnknownNamesSuggestTheClosest) {
  DataFrame df = DataFrame{{"price", column({1})}, {"quantity", column({2})}, {"name", column({"x"})}};
  EXPECT_ERROR_WITH(df["pric"], "no column named 'pric'; did you mean 'price'? (columns: 'price', 'quantity', 'name')");
  EXPECT_ERROR_WITH(df["Quantty"], "did you mean 'quantity'?");
  try {
    df["zzzzzzzzzz"];
    ADD_FAILURE() << "expected an error";
  } catch (const IndexError& e) {
    EXPECT_EQ(std::string(e.what()).find("did you mean"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("(columns: 'price', 'quantity', 'name')"), std::string::npos);
  }
  EXPECT_ERROR_WITH(df.select({"price", "nme"}), "did you mean 'name'?");
  EXPECT_ERROR_WITH(df.drop_column("prise"), "did you mean 'price'?");
}

TEST(FrameDataFrame, ColumnByColumn) {
  DataFrame df;
  df.set_column("a", column({1, 2}));
  df.set_column("b", column({"x", "y"}));
  EXPECT_EQ(df.shape(), (std::pair<int64_t, int64_t>{2, 2}));
  df.set_column("a", column({10, 20}));  // replaces in place
  EXPECT_EQ(df.columns(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(df["a"].to_values(), (std::vector<Value>{10, 20}));
  EXPECT_ERROR_WITH(df.set_column("c", column({1})), "column 'c' has length 1 but the frame has 2 rows");
  EXPECT_ERROR_WITH(df.set_column("c", Column()), "column 'c' is undefined");
  df.drop_column("a");
  EXPECT_EQ(df.columns(), (std::vector<std::string>{"b"}));
}

TEST(FrameDataFrame, SelectSliceHeadTailShareMemory) {
  DataFrame df = sample();
  DataFrame s = df.select({"score", "id"});
  EXPECT_EQ(s.columns(), (std::vector<std::string>{"score", "id"}));
  EXPECT_EQ(s["id"].data().get(), df["id"].data().get());
  EXPECT_ERROR_WITH(df.select({"id", "id"}), "selected twice");

  DataFrame t = df.slice(1, 2);
  EXPECT_EQ(t.num_rows(), 2);
  EXPECT_EQ(t.row(0), (std::vector<Value>{2, Value(), 2.25}));
  EXPECT_EQ(t["id"].data()->buffers[1].data(), df["id"].data()->buffers[1].data());
  EXPECT_EQ(df.head(1).row(0), df.row(0));
  EXPECT_EQ(df.tail(1).row(0), df.row(2));
  EXPECT_EQ(df.head(-1).num_rows(), 2);
  EXPECT_EQ(df.tail(10).num_rows(), 3);
  EXPECT_ERROR_WITH(df.slice(2, 2), "rows [2, 2 + 2) are outside a frame of 3 rows");
  EXPECT_EQ(df.slice(1, 2), t);
  EXPECT_NE(df.slice(0, 2), t);
}

TEST(FrameDataFrame, StructArrayUnderneath) {
  DataFrame df = sample();
  Column s = df.to_struct();
  EXPECT_EQ(s.dtype(), df.dtype());
  EXPECT_EQ(s.null_count(), 0);
  EXPECT_EQ(s.field("name").data().get(), df["name"].data().get());
  EXPECT_EQ(DataFrame::from_struct(s), df);
  // A sliced struct gives sliced columns.
  DataFrame t = DataFrame::from_struct(s.slice(1, 2));
  EXPECT_EQ(t, df.slice(1, 2));

  StructBuilder b(dt::Struct({{"x", dt::int64}}, true));
  b.append_value(Value::List{1});
  b.append_null();
  EXPECT_ERROR_WITH(DataFrame::from_struct(b.finish()), "the struct column has 1 null rows");
  EXPECT_ERROR_WITH(DataFrame::from_struct(column({1})), "expected a struct");
}

TEST(FrameDataFrame, RowByRow) {
  DataFrameBuilder b({{"id", dt::int64},
                      {"tags", dt::List(dt::string)},
                      {"pos", dt::Struct({{"x", dt::float32}, {"y", dt::float32}}, true)},
                      {"attrs", dt::Map(dt::string, dt::Int32(true))},
                      {"when", dt::Timestamp(TimeUnit::Milli, "UTC", true)}});
  b.append_row({1, Value::List{"a", "b"}, Value::List{0.5, 1}, Value::List{Value(Value::List{"k", 3})}, 1000});
  b.append_row({2, Value::List{}, Value(), Value::List{}, Value()});
  // A bad value anywhere leaves the builder as it was.
  EXPECT_ERROR_WITH(b.append_row({3, Value::List{"c"}, Value::List{1.5, "oops"}, Value::List{}, 0}),
                    "append_row: row 2, column 'pos' (Struct([Field('x', float32), Field('y', float32)], nullable=True)): "
                    "field 'y': cannot store 'oops' (a string) in a column of type float32");
  EXPECT_ERROR_WITH(b.append_row({Value(), Value::List{}, Value(), Value::List{}, 0}),
                    "row 2, column 'id' (int64): null in a column of non-nullable type int64");
  EXPECT_ERROR_WITH(b.append_row({uint64_t(1) << 63, Value::List{}, Value(), Value::List{}, 0}),
                    "9223372036854775808 is out of range for int64");
  EXPECT_ERROR_WITH(b.append_row({1, 2}), "row 2 has 2 values for 5 columns");
  EXPECT_ERROR_WITH(b.append_row({1, Value::List{}, Value(), Value::List{Value(Value::List{Value(), 1})}, 0}),
                    "map keys cannot be null");
  EXPECT_EQ(b.num_rows(), 2);
  DataFrame df = b.finish();
  EXPECT_EQ(df.num_rows(), 2);
  EXPECT_EQ(df.row(0), (std::vector<Value>{1, Value::List{"a", "b"}, Value::List{0.5, 1.0}, Value::List{Value(Value::List{"k", 3})}, 1000}));
  EXPECT_EQ(df.row(1), (std::vector<Value>{2, Value::List{}, Value(), Value::List{}, Value()}));
  EXPECT_EQ(df["pos"].field("x").to_values(), (std::vector<Value>{0.5, 0.0}));

  DataFrame d2 = dataframe({{1, "a"}, {2, Value()}}, dt::Struct({{"n", dt::int8}, {"s", dt::String(true)}}));
  EXPECT_EQ(d2, (DataFrame{{"n", column({1, 2}, dt::int8)}, {"s", column({"a", std::nullopt})}}));
  EXPECT_ERROR_WITH(dataframe({{300, "a"}}, dt::Struct({{"n", dt::int8}, {"s", dt::string}})),
                    "column 'n' (int8): 300 is out of range for int8");
  EXPECT_ERROR_WITH(DataFrameBuilder(dt::Struct({{"a", dt::int8}, {"a", dt::int8}})), "the column name 'a' appears twice");
}

TEST(FrameDataFrame, PrintsAnAlignedTable) {
  EXPECT_EQ(sample().to_string(),
            "index  id  name  score\n"
            "-----  --  ----  -----\n"
            "    0   1  'ab'    1.5\n"
            "    1   2  None   2.25\n"
            "    2   3  'c'    None\n"
            "dtype: Struct([Field('id', int64), Field('name', String(nullable=True)), Field('score', "
            "Float64(nullable=True))]), count: 3, null_count: 0");

  DataFrameBuilder b({{"l", dt::List(dt::Int64(true))},
                      {"s", dt::Struct({{"a", dt::int8}, {"b", dt::string}})},
                      {"m", dt::Map(dt::string, dt::boolean)},
                      {"d", dt::Dictionary(dt::int32, dt::string)},
                      {"u", dt::string}});
  b.append_row({Value::List{1, Value()}, Value::List{1, "x"}, Value::List{Value(Value::List{"k", true})}, "cat", "\xc3\xa9t\xc3\xa9"});
  b.append_row({Value::List{}, Value::List{-2, ""}, Value::List{}, "dog", "e"});
  std::ostringstream os;
  os << b.finish();
  EXPECT_EQ(os.str(),
            "index  l          s         m            d      u\n"
            "-----  ---------  --------  -----------  -----  -----\n"
            "    0  [1, None]  (1, 'x')  {'k': True}  'cat'  '\xc3\xa9t\xc3\xa9'\n"
            "    1  []         (-2, '')  {}           'dog'  'e'\n"
            "dtype: Struct([Field('l', List(Int64(nullable=True))), Field('s', Struct([Field('a', int8), Field('b', "
            "string)])), Field('m', Map(string, boolean)), Field('d', Dictionary(int32, string)), Field('u', string)]), "
            "count: 2, null_count: 0");
}

TEST(FrameDataFrame, LongFramesElideTheMiddle) {
  std::vector<int64_t> v;
  for (int i = 0; i < 25; ++i) v.push_back(i * 100);
  DataFrame df{{"v", column(v)}};
  EXPECT_EQ(df.to_string({4}),
            "index     v\n"
            "-----  ----\n"
            "    0     0\n"
            "    1   100\n"
            "  ...   ...\n"
            "   23  2300\n"
            "   24  2400\n"
            "dtype: Struct([Field('v', int64)]), count: 25, null_count: 0");
  // The default shows 20 rows: 10 + "..." + 10 lines, plus header, rule and footer.
  const std::string full = df.to_string();
  EXPECT_EQ(std::count(full.begin(), full.end(), '\n'), 2 + 21);
}

}  // namespace
}  // namespace ember::frame
