// Hand-checked semantics of ember::frame compute: operators, overflow and division rules,
// exact mixed-sign comparisons, Kleene logic, casts, selection on every layout, aggregations
// and sorting corner cases, and the error messages (op, row, dtypes, lengths).
#include <cmath>
#include <limits>

#include "ember/frame/compute/compute.h"
#include "ember/frame/frame.h"
#include "frame_test_util.h"
#include "test_util.h"

namespace ember::frame {
namespace {

using test::vals;  // frame_test_util.h

TEST(ComputeOps, OperatorsKeepWholeColumnEquality) {
  const Column a = column({1, 2, 3});
  const Column b = column({1, 5, 3});
  static_assert(std::is_same_v<decltype(a == b), bool>);
  static_assert(std::is_same_v<decltype(a != b), bool>);
  static_assert(std::is_same_v<decltype(a == Value(2)), Column>);
  static_assert(std::is_same_v<decltype(a < b), Column>);
  EXPECT_FALSE(a == b);
  EXPECT_TRUE(a != b);
  EXPECT_TRUE(a == column({1, 2, 3}));
  EXPECT_EQ(vals(a == 2), (std::vector<Value>{false, true, false}));
  EXPECT_EQ(vals(2 == a), (std::vector<Value>{false, true, false}));
  EXPECT_EQ(vals(a != 2), (std::vector<Value>{true, false, true}));
  EXPECT_EQ(vals(a < b), (std::vector<Value>{false, true, false}));
  EXPECT_EQ(vals(a >= b), (std::vector<Value>{true, false, true}));
  EXPECT_EQ(vals(1 < a), (std::vector<Value>{false, true, true}));
  EXPECT_EQ(vals(a < 2.5), (std::vector<Value>{true, true, false}));
  EXPECT_EQ(vals(-a), (std::vector<Value>{-1, -2, -3}));
  EXPECT_EQ(vals(a * 2 + 1), (std::vector<Value>{3, 5, 7}));
  EXPECT_EQ(vals(10 - a), (std::vector<Value>{9, 8, 7}));
  EXPECT_EQ(vals(a % 2), (std::vector<Value>{1, 0, 1}));
  EXPECT_EQ(vals(a / 2), (std::vector<Value>{0.5, 1.0, 1.5}));
  EXPECT_EQ(vals((a > 1) & (a < 3)), (std::vector<Value>{false, true, false}));
  EXPECT_EQ(vals((a < 2) | (a > 2)), (std::vector<Value>{true, false, true}));
  EXPECT_EQ(vals(~(a > 1)), (std::vector<Value>{true, false, false}));
  EXPECT_EQ(vals((a > 2) ^ (b > 2)), (std::vector<Value>{false, true, false}));
  EXPECT_EQ(vals(column({"a", "b"}) + "!"), (std::vector<Value>{"a!", "b!"}));
}

TEST(ComputeOps, IntegerOverflowWrapsAndPythonDivision) {
  EXPECT_EQ(vals(column({127, -128}, dtypes::int8) + 1), (std::vector<Value>{-128, -127}));
  EXPECT_EQ(vals(column({0, 5}, dtypes::uint8) - 1), (std::vector<Value>{255, 4}));
  EXPECT_EQ(vals(column({200}, dtypes::uint8) * column({2}, dtypes::uint8)), (std::vector<Value>{144}));
  EXPECT_EQ(vals(column({65535}, dtypes::uint16) * column({65535}, dtypes::uint16)), (std::vector<Value>{1}));
  const int64_t mn = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(vals(floordiv(column({mn, -7, 7, -7}), column({-1, 2, -2, -2}))), (std::vector<Value>{mn, -4, -4, 3}));
  EXPECT_EQ(vals(mod(column({mn, -7, 7, -7}), column({-1, 2, -2, -2}))), (std::vector<Value>{0, 1, -1, -1}));
  EXPECT_EQ(vals(mod(column({-7.5, 7.5}), 2)), (std::vector<Value>{0.5, 1.5}));
  EXPECT_EQ(vals(floordiv(column({-7.5, 7.5}), -2)), (std::vector<Value>{3.0, -4.0}));
  EXPECT_EQ(vals(pow(column({2, 3, -2}), column({10, 0, 3}))), (std::vector<Value>{1024, 1, -8}));
  EXPECT_EQ(vals(pow(column({2}, dtypes::int8), 7)), (std::vector<Value>{-128}));
  EXPECT_EQ(vals(pow(2, column({0, 3}))), (std::vector<Value>{1, 8}));
  EXPECT_EQ(vals(pow(column({4, 9}), 0.5)), (std::vector<Value>{2.0, 3.0}));
  EXPECT_EQ(vals(column({1.0, -1.0, 0.0}) / 0.0)[0], Value(INFINITY));
  EXPECT_TRUE(std::isnan(truediv(column({0}), 0).get<double>(0).value()));
}

TEST(ComputeOps, ErrorsNameOpRowDtypesAndLengths) {
  EXPECT_ERROR_WITH(floordiv(column({1, 2, 3}), column({1, 0, 1})),
                    "floordiv: integer division by zero at row 1 (int64 // int64)");
  EXPECT_ERROR_WITH(mod(column({1, 2}, dtypes::int16), 0), "mod: integer modulo by zero at row 0 (int16 % scalar 0)");
  EXPECT_ERROR_WITH(pow(column({2}), column({-1})), "pow: integers to negative integer powers are not allowed at row 0");
  EXPECT_ERROR_WITH(add(column({1, 2}), column({1.0, 2.0, 3.0})),
                    "add: the columns have different lengths (2 and 3; dtypes int64 and float64)");
  EXPECT_ERROR_WITH(add(column({"a"}), 1), "add: unsupported operand types for +: string and scalar 1");
  EXPECT_ERROR_WITH(sub(column({"a"}), column({"b"})), "unsupported operand types for -: string and string");
  EXPECT_ERROR_WITH(add(column({1}, dtypes::int8), 1000), "add: the scalar 1000 does not fit the column's type int8");
  EXPECT_EQ(add(column({1}), 2.5).dtype(), dtypes::float64);
  EXPECT_ERROR_WITH(lt(column({"a"}), column({1})), "lt: cannot compare string with int64");
  EXPECT_ERROR_WITH(logical_and(column({1}), column({true})), "logical_and: the column's dtype is int64; expected a boolean column");
  EXPECT_ERROR_WITH(neg(column({true})), "neg: the column's dtype is boolean");
  EXPECT_ERROR_WITH(column({1}).str(), "str: the column's dtype is int64; expected string or large_string");
  EXPECT_ERROR_WITH(column({1}).list(), "list: the column's dtype is int64; expected a list or large_list");
  EXPECT_ERROR_WITH(column({1}).struct_(), "struct: the column's dtype is int64; expected a struct");
  EXPECT_ERROR_WITH(column({1, 2}).filter(column({true})), "filter: the mask has 1 rows but the column has 2");
  EXPECT_ERROR_WITH(column({1, 2}).filter(column({1, 0})), "filter: the mask's dtype is int64; expected a boolean column");
  EXPECT_ERROR_WITH(take(column({1, 2}), std::vector<int64_t>{0, -3}), "take: index -3 is out of range for a column of length 2");
  EXPECT_ERROR_WITH(concat({column({1}), column({1.5})}), "concat: column 1 has dtype float64 but column 0 has int64");
  EXPECT_ERROR_WITH(column({"x"}).sum(), "sum: the column's dtype is string");
  EXPECT_ERROR_WITH(column(std::vector<int64_t>{}).argmax(), "argmax: the column has no valid (non-null, non-NaN) values (length 0)");
  EXPECT_EQ(column({1, std::nullopt}).cast(dtypes::int32).dtype(), dtypes::Int32(true));  // nulls stay
  EXPECT_ERROR_WITH(column({1.5}).cast(dtypes::int64, CastOptions{true}),
                    "cast: value 1.5 at row 0 would be truncated casting to int64");
  EXPECT_ERROR_WITH(column({300, 1}).cast(dtypes::int8, CastOptions{true}),
                    "cast: value 300 at row 0 is out of range for int8 (-128 to 127)");
  EXPECT_ERROR_WITH(column({"1", "x"}).cast(dtypes::int32), "cast: cannot parse 'x' at row 1 as int32");
  EXPECT_ERROR_WITH(column({"a"}).cast(dtypes::List(dtypes::int64)), "cast: cannot cast string to List(int64)");
  EXPECT_ERROR_WITH(column({"abc"}).str().contains("a[", true), "str.contains: invalid regular expression 'a['");
  EXPECT_ERROR_WITH(column({"abc"}).str().match("(?<x>a)"), "str.match: invalid regular expression '(?<x>a)'");
  EXPECT_ERROR_WITH(column({"abc"}).str().slice(0, 1, 0), "str.slice: step cannot be zero");
  EXPECT_ERROR_WITH(column({1}).quantile(-0.1), "quantile: q must be in [0, 1], got -0.1");
  EXPECT_ERROR_WITH(column({1}).round(400), "round: decimals must be in [-308, 308]");
}

TEST(ComputeOps, MixedSignComparisonsAreExact) {
  const uint64_t big = (uint64_t(1) << 63) + 5;
  const Column u = column(std::vector<uint64_t>{big, 3, 0});
  const Column s = column(std::vector<int64_t>{-1, 3, -5});
  EXPECT_EQ(vals(u > s), (std::vector<Value>{true, false, true}));
  EXPECT_EQ(vals(s < u), (std::vector<Value>{true, false, true}));
  EXPECT_EQ(vals(eq(u, s)), (std::vector<Value>{false, true, false}));
  EXPECT_EQ(vals(u > Value(-1)), (std::vector<Value>{true, true, true}));
  EXPECT_EQ(vals(u == Value(big)), (std::vector<Value>{true, false, false}));
  // A scalar out of the column's range compares without wrapping.
  const Column i8 = column({-128, 0, 127}, dtypes::int8);
  EXPECT_EQ(vals(i8 < 1000), (std::vector<Value>{true, true, true}));
  EXPECT_EQ(vals(i8 == 256), (std::vector<Value>{false, false, false}));
  EXPECT_EQ(vals(i8 > -129), (std::vector<Value>{true, true, true}));
  // float32 against a double scalar compares in float32 (PyTorch's weak scalars).
  EXPECT_EQ(vals(column(std::vector<float>{0.1f}) == 0.1), (std::vector<Value>{true}));
  EXPECT_EQ(vals(column({1.0, NAN}) != NAN), (std::vector<Value>{true, true}));
}

TEST(ComputeOps, KleeneLogic) {
  const Column t = column({true, true, true, false, false, false, std::nullopt, std::nullopt, std::nullopt});
  const Column u = column({true, false, std::nullopt, true, false, std::nullopt, true, false, std::nullopt});
  const Value n;
  EXPECT_EQ(vals(t & u), (std::vector<Value>{true, false, n, false, false, false, n, false, n}));
  EXPECT_EQ(vals(t | u), (std::vector<Value>{true, true, true, true, false, n, true, n, n}));
  EXPECT_EQ(vals(t ^ u), (std::vector<Value>{false, true, n, true, false, n, n, n, n}));
  EXPECT_EQ(vals(~t), (std::vector<Value>{false, false, false, true, true, true, n, n, n}));
  EXPECT_EQ((t & u).dtype(), dtypes::Boolean(true));
  EXPECT_EQ((column({true}) & column({false})).dtype(), dtypes::boolean);
}

TEST(ComputeOps, NullsAndMembership) {
  const Column c = column({1, std::nullopt, 3});
  EXPECT_EQ(vals(c.is_null()), (std::vector<Value>{false, true, false}));
  EXPECT_EQ(c.is_null().dtype(), dtypes::boolean);
  EXPECT_EQ(vals(c.notnull()), (std::vector<Value>{true, false, true}));
  EXPECT_EQ(c.fill_null(0).dtype(), dtypes::int64);
  EXPECT_EQ(vals(c.fill_null(-1)), (std::vector<Value>{1, -1, 3}));
  EXPECT_EQ(vals(c.drop_null()), (std::vector<Value>{1, 3}));
  EXPECT_EQ(vals(c.isin({3, 2.0, "x", true})), (std::vector<Value>{true, false, true}));
  EXPECT_EQ(vals(c.isin({Value(), 2.5})), (std::vector<Value>{false, true, false}));
  EXPECT_EQ(vals(column({1.5, NAN}).isin({NAN})), (std::vector<Value>{false, true}));
  EXPECT_EQ(vals(column({true, false}).isin({1})), (std::vector<Value>{true, false}));
  // Nested and temporal columns fill through the builders.
  const Column l = column(std::vector<std::optional<std::vector<int64_t>>>{std::nullopt, std::vector<int64_t>{1}});
  EXPECT_EQ(vals(l.fill_null(Value::List{7, 8})), (std::vector<Value>{Value::List{7, 8}, Value::List{1}}));
  const Column d = column({1, std::nullopt}, dtypes::Date32(true));
  EXPECT_EQ(d.fill_null(0).dtype(), dtypes::date32);
  EXPECT_ERROR_WITH(c.fill_null(2.5), "fill_null: the value 2.5 is not an integer (the column is Int64(nullable=True))");
}

TEST(ComputeOps, Casts) {
  EXPECT_EQ(vals(column({300, -1, 7}).cast(dtypes::int8)), (std::vector<Value>{44, -1, 7}));
  EXPECT_EQ(vals(column({2.9, -2.9}).cast(dtypes::int32)), (std::vector<Value>{2, -2}));
  EXPECT_EQ(vals(column({1e20, 0.1, 100.0, 1e-7}).cast(dtypes::string)), (std::vector<Value>{"1e+20", "0.1", "100", "1e-7"}));
  EXPECT_EQ(vals(column({true, false}).cast(dtypes::string)), (std::vector<Value>{"true", "false"}));
  EXPECT_EQ(vals(column({"1.5", "-2"}).cast(dtypes::float32)), (std::vector<Value>{1.5f, -2.0f}));
  EXPECT_EQ(vals(column({19723}, dtypes::date32).cast(dtypes::string)), (std::vector<Value>{"2024-01-01"}));
  EXPECT_EQ(vals(column({1500}, dtypes::Timestamp(TimeUnit::Milli, "UTC")).cast(dtypes::string)),
            (std::vector<Value>{"1970-01-01 00:00:01.500Z"}));
  EXPECT_EQ(vals(column({"2024-01-01 00:00:01"}).cast(dtypes::Timestamp(TimeUnit::Second))), (std::vector<Value>{1704067201}));
  EXPECT_EQ(vals(column({2}, dtypes::date32).cast(dtypes::Timestamp(TimeUnit::Second))), (std::vector<Value>{172800}));
  EXPECT_EQ(column({5}).cast(dtypes::Timestamp(TimeUnit::Micro)).dtype(), dtypes::Timestamp(TimeUnit::Micro));
  EXPECT_EQ(vals(column({5}, dtypes::int16).cast(dtypes::date32)), (std::vector<Value>{5}));
  // Strings, their variants and dictionaries.
  const Column s = column({"b", std::nullopt, "a", "b"});
  EXPECT_EQ(s.cast(dtypes::large_string).dtype(), dtypes::LargeString(true));
  const Column enc = s.cast(dtypes::Dictionary(dtypes::int8, dtypes::string, true));
  EXPECT_EQ(enc.dtype().id(), TypeId::Dictionary);
  EXPECT_EQ(enc.dictionary().size(), 2);
  EXPECT_EQ(vals(enc), vals(s));
  EXPECT_EQ(vals(enc.cast(dtypes::String(true))), vals(s));
  EXPECT_ERROR_WITH(column_from_values({std::string("\xff")}, dtypes::binary).cast(dtypes::string),
                    "cast: row 0 is not valid UTF-8 (byte 0)");
  // Lists and structs cast item by item.
  const Column l = column(std::vector<std::vector<int32_t>>{{1, 2}, {}});
  EXPECT_EQ(l.cast(dtypes::LargeList(dtypes::float64)).dtype(), dtypes::LargeList(dtypes::float64));
  EXPECT_EQ(vals(l.cast(dtypes::List(dtypes::string))), (std::vector<Value>{Value::List{"1", "2"}, Value::List{}}));
  const Column st = struct_column({{"a", column({1, 2})}, {"b", column({"x", "y"})}});
  const Column st2 = st.cast(dtypes::Struct({{"a", dtypes::float64}, {"b", dtypes::string}}));
  EXPECT_EQ(vals(st2.field("a")), (std::vector<Value>{1.0, 2.0}));
  // Same type: zero-copy, nullable flag as asked.
  const Column nn = column({1, 2});
  EXPECT_EQ(nn.cast(dtypes::Int64(true)).dtype(), dtypes::Int64(true));
  EXPECT_EQ(nn.cast(dtypes::Int64(true)).data()->buffers[1].data(), nn.data()->buffers[1].data());
}

TEST(ComputeOps, SelectionOnEveryLayout) {
  const std::vector<Column> cols = {
      column({1, std::nullopt, 3, 4}),
      column({true, std::nullopt, false, true}),
      column({"a", "bb", std::nullopt, "dddd"}),
      column({"x", "y", "x", std::nullopt}).dictionary_encode(),
      column(std::vector<std::optional<std::vector<std::string>>>{std::vector<std::string>{"p"}, std::nullopt,
                                                                  std::vector<std::string>{}, std::vector<std::string>{"q", "r"}}),
      struct_column({{"a", column({1, 2, 3, 4})}, {"b", column({"w", std::nullopt, "y", "z"})}}),
      column_from_values({Value::List{Value(Value::List{"k", 1})}, Value(), Value::List{}, Value::List{Value(Value::List{"m", 2})}},
                         dtypes::Map(dtypes::string, dtypes::int64, true)),
      column({0, 1, 2, 3, 4, 5}).slice(2, 4),
  };
  const Column mask = column({true, false, std::nullopt, true});
  for (const Column& c : cols) {
    SCOPED_TRACE(c.dtype().to_string());
    const Column f = c.where(mask);
    ASSERT_EQ(f.size(), 2);
    EXPECT_EQ(f.get_value(0), c.get_value(0));
    EXPECT_EQ(f.get_value(1), c.get_value(3));
    EXPECT_NO_THROW(f.data()->validate());
    const Column t = take(c, column({3, std::nullopt, -4, 1}, dtypes::Int32(true)));
    ASSERT_EQ(t.size(), 4);
    EXPECT_EQ(t.get_value(0), c.get_value(3));
    EXPECT_TRUE(t.is_null(1));
    EXPECT_EQ(t.get_value(2), c.get_value(0));
    EXPECT_EQ(t.get_value(3), c.get_value(1));
    EXPECT_NO_THROW(t.data()->validate());
    const Column cat = concat({c.slice(1, 2), c, c.slice(0, 0)});
    ASSERT_EQ(cat.size(), 6);
    for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(cat.get_value(i), c.get_value(i < 2 ? i + 1 : i - 2));
    EXPECT_NO_THROW(cat.data()->validate());
  }
}

TEST(ComputeOps, AggregationCorners) {
  EXPECT_EQ(column(std::vector<int8_t>{100, 100, 100}).sum(), Value(300));
  EXPECT_EQ(column(std::vector<uint64_t>{uint64_t(1) << 63, 1}).sum(), Value((uint64_t(1) << 63) + 1));
  EXPECT_EQ(column(std::vector<std::optional<double>>{std::nullopt, std::nullopt}).sum(), Value(0.0));
  EXPECT_EQ(column(std::vector<int64_t>{}).sum(), Value(0));
  EXPECT_TRUE(std::isnan(column(std::vector<int64_t>{}).mean()));
  EXPECT_TRUE(column(std::vector<double>{}).min().is_null());
  EXPECT_TRUE(std::isnan(column({1.0}).std()));
  EXPECT_DOUBLE_EQ(column({1.0, 2.0, 3.0, 4.0}).std(0), std::sqrt(1.25));
  EXPECT_EQ(column({true, std::nullopt, true}).sum(), Value(2));
  EXPECT_EQ(column({true, false}).min(), Value(false));
  EXPECT_EQ(column({"b", "a", std::nullopt}).max(), Value("b"));
  EXPECT_EQ(column({3, 9}, dtypes::date32).max(), Value(9));
  EXPECT_FALSE(column(std::vector<bool>{}).any());
  EXPECT_TRUE(column(std::vector<bool>{}).all());
  EXPECT_TRUE(column({0.0, NAN}).any());
  EXPECT_EQ(column({3, 1, std::nullopt, 1}).argmin(), 1);
  EXPECT_EQ(column({NAN, 2.0, 7.0, 7.0}).argmax(), 2);
  EXPECT_EQ(quantile(column({1, 2, 3, 4}), std::vector<double>{0.0, 0.5, 1.0}), (std::vector<double>{1.0, 2.5, 4.0}));
  EXPECT_EQ(column({std::nullopt, 1, std::nullopt}).count(), 1);
  EXPECT_EQ(vals(column({true, std::nullopt, true}).cumsum()), (std::vector<Value>{1, Value(), 2}));
  EXPECT_EQ(column({true}).cumsum().dtype(), dtypes::int64);
  EXPECT_EQ(column(std::vector<uint8_t>{250, 10}).cumsum().dtype(), dtypes::uint64);
}

TEST(ComputeOps, SortIsStableWithNullAndNaNPlacement) {
  const Column c = column({2.0, NAN, std::nullopt, 1.0, 2.0, NAN, 1.0});
  EXPECT_EQ(vals(c.argsort()), (std::vector<Value>{3, 6, 0, 4, 1, 5, 2}));
  EXPECT_EQ(vals(c.argsort({false, false})), (std::vector<Value>{0, 4, 3, 6, 1, 5, 2}));
  EXPECT_EQ(vals(c.argsort({true, true})), (std::vector<Value>{2, 1, 5, 3, 6, 0, 4}));
  EXPECT_EQ(c.sort().size(), 7);
  EXPECT_TRUE(c.sort().is_null(6));
  const Column s = column({"b", "a", "b", "a"});
  EXPECT_EQ(vals(s.argsort({false, false})), (std::vector<Value>{0, 2, 1, 3}));
  EXPECT_EQ(vals(column({0.0, -0.0, 1.0, 0.0}).unique()), (std::vector<Value>{0.0, 1.0}));
  EXPECT_EQ(vals(column({NAN, std::nullopt, NAN, 1.0}).unique()).size(), 3u);
  const Column vc = column({"x", "y", "y", std::nullopt}).value_counts(false);
  EXPECT_EQ(vc.dtype().fields()[0].name, "values");
  EXPECT_EQ(vc.dtype().fields()[1].name, "counts");
  EXPECT_EQ(vals(vc.field("values")), (std::vector<Value>{"y", "x", Value()}));
  EXPECT_EQ(vals(vc.field("counts")), (std::vector<Value>{2, 1, 1}));
  EXPECT_EQ(DataFrame::from_struct(vc).num_rows(), 3);
  EXPECT_EQ(column({1, std::nullopt, 1}).nunique(false), 2);
  EXPECT_EQ(column({"a", "b"}).dictionary_encode().sort({false, false}).get_value(0), Value("b"));
}

TEST(ComputeOps, MathFunctions) {
  const Column c = column({-1.5, 2.25, std::nullopt});
  EXPECT_EQ(vals(c.abs()), (std::vector<Value>{1.5, 2.25, Value()}));
  EXPECT_EQ(vals(c.ceil()), (std::vector<Value>{-1.0, 3.0, Value()}));
  EXPECT_EQ(vals(c.floor()), (std::vector<Value>{-2.0, 2.0, Value()}));
  EXPECT_EQ(vals(c.round(1)), (std::vector<Value>{-1.5, 2.2, Value()}));
  EXPECT_EQ(vals(column({4, 9}).sqrt()), (std::vector<Value>{2.0, 3.0}));
  EXPECT_EQ(column({4}, dtypes::int8).sqrt().dtype(), dtypes::float64);
  EXPECT_EQ(column(std::vector<float>{4.0f}).sqrt().dtype(), dtypes::float32);
  EXPECT_EQ(vals(column({0.0}).log()), (std::vector<Value>{-INFINITY}));
  EXPECT_EQ(vals(column({0}).exp()), (std::vector<Value>{1.0}));
  EXPECT_EQ(vals(column({1234, -1250}).round(-2)), (std::vector<Value>{1200, -1200}));
  EXPECT_EQ(vals(column({-5}).abs()), (std::vector<Value>{5}));
  EXPECT_EQ(vals(column({2}).pow(10)), (std::vector<Value>{1024}));
}

}  // namespace
}  // namespace ember::frame
