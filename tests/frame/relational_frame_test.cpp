// DataFrame's relational members on small hand-computed frames: column operations, where,
// append/concat, sort, groupby, join, drop_duplicates, describe; dtypes of the results,
// dictionary and other key types, empty frames, and the errors (unknown columns with the
// closest name, mismatched dtypes, bad arguments). relational_pandas_test.cpp checks the same
// operations against pandas on larger generated frames.
#include "ember/frame/frame.h"
#include "ember/frame/relational/relational.h"
#include "test_util.h"

namespace ember::frame {
namespace {

namespace dt = dtypes;

DataFrame sales() {
  return DataFrame{{"city", column({"Oslo", "Rome", std::nullopt, "Oslo", "Rome", "Lima"})},
                   {"year", column({2020, 2021, 2020, 2021, 2020, std::nullopt})},
                   {"price", column({10.0, 20.0, 30.0, std::nullopt, 50.0, 60.0})}};
}

std::vector<Value> values(const Column& c) { return c.to_values(); }

TEST(FrameRelationalColumns, SelectAssignDropRenameReorder) {
  const DataFrame df = sales();
  EXPECT_EQ(df.select({"price", "city"}).columns(), (std::vector<std::string>{"price", "city"}));
  const DataFrame a = df.assign("twice", column({1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(a.columns(), (std::vector<std::string>{"city", "year", "price", "twice"}));
  EXPECT_EQ(df.num_columns(), 3);  // assign returns a copy
  EXPECT_EQ(df.assign("year", column({0, 0, 0, 0, 0, 0}))["year"].to_values()[0], Value(0));
  EXPECT_EQ(df.drop({"year"}).columns(), (std::vector<std::string>{"city", "price"}));
  EXPECT_EQ(df.rename({{"price", "cost"}, {"city", "town"}}).columns(), (std::vector<std::string>{"town", "year", "cost"}));
  EXPECT_EQ(df.reorder({"year", "city"}).columns(), (std::vector<std::string>{"year", "city"}));
  EXPECT_EQ(df.head(2).num_rows(), 2);
  EXPECT_EQ(df.tail(1).row(0), (std::vector<Value>{"Lima", Value(), 60.0}));

  EXPECT_ERROR_WITH(df.drop({"prise"}), "drop: DataFrame: no column named 'prise'; did you mean 'price'?");
  EXPECT_ERROR_WITH(df.rename({{"yaer", "y"}}), "did you mean 'year'?");
  EXPECT_ERROR_WITH(df.rename({{"year", "price"}}), "rename: the new names give two columns the name 'price'");
  EXPECT_ERROR_WITH(df.reorder({"cty"}), "reorder: DataFrame: no column named 'cty'; did you mean 'city'?");
  EXPECT_ERROR_WITH(df.assign("x", column({1})), "column 'x' has length 1 but the frame has 6 rows");
}

// TorchArrow's select(*args, **kwargs): the two examples of its documentation, then the rest.
TEST(FrameRelationalColumns, SelectComputedColumns) {
  const DataFrame xf{{"A", column({"a", "b", "a", "b"})}, {"B", column({1, 2, 3, 4})}, {"C", column({10, 11, 12, 13})}};
  const auto me_b_plus_c = [](const DataFrame& me) { return me["B"] + me["C"]; };
  const DataFrame d1 = xf.select({"A", "B", "C", {"D", me_b_plus_c}});
  EXPECT_EQ(d1.columns(), (std::vector<std::string>{"A", "B", "C", "D"}));
  EXPECT_EQ(values(d1["D"]), (std::vector<Value>{11, 13, 15, 17}));
  EXPECT_EQ(d1["D"].dtype(), dt::Int64());
  const DataFrame d2 = xf.select({"*", "-B", {"D", me_b_plus_c}});
  EXPECT_EQ(d2.columns(), (std::vector<std::string>{"A", "C", "D"}));
  EXPECT_EQ(values(d2["D"]), (std::vector<Value>{11, 13, 15, 17}));
  // A Column value; "-name" before "*" too; a computed name already selected replaces it in place.
  const DataFrame d3 = xf.select({"-A", "*", {"B", xf["B"] * 10}, {"E", column({0.5, 1.5, 2.5, 3.5})}});
  EXPECT_EQ(d3.columns(), (std::vector<std::string>{"B", "C", "E"}));
  EXPECT_EQ(values(d3["B"]), (std::vector<Value>{10, 20, 30, 40}));
  EXPECT_EQ(values(d3["E"]), (std::vector<Value>{0.5, 1.5, 2.5, 3.5}));
  EXPECT_EQ(xf.select({"C", "A"}).columns(), (std::vector<std::string>{"C", "A"}));  // plain names, in order
  EXPECT_EQ(xf.num_columns(), 3);  // select returns a new frame
  // assign with a function of the frame (pandas' assign(x=lambda df: ...)).
  EXPECT_EQ(values(xf.assign("D", me_b_plus_c)["D"]), (std::vector<Value>{11, 13, 15, 17}));

  EXPECT_ERROR_WITH(xf.select({"*", "-Bee"}), "select: DataFrame: no column named 'Bee'; did you mean 'B'?");
  EXPECT_ERROR_WITH(xf.select({"A", "Cc"}), "did you mean 'C'?");
  EXPECT_ERROR_WITH(xf.select({"A", "A"}), "select: the column 'A' is selected twice");
  EXPECT_ERROR_WITH(xf.select({"*", "B"}), "select: the column 'B' is selected twice");
  EXPECT_ERROR_WITH(xf.select({"A", {"D", column({1, 2})}}),
                    "select: the computed column 'D' has length 2 but the frame has 4 rows");
  EXPECT_ERROR_WITH(xf.select({{"D", [](const DataFrame& me) { return me["Z"]; }}}), "no column named 'Z'");
  EXPECT_ERROR_WITH(xf.select({{"D", std::function<Column(const DataFrame&)>()}}), "the computed column 'D' has an empty function");
}

TEST(FrameRelationalRows, WhereDropsFalseAndNull) {
  const DataFrame df = sales();
  const DataFrame w = df.where(column({true, false, std::nullopt, true, std::nullopt, true}));
  EXPECT_EQ(values(w["city"]), (std::vector<Value>{"Oslo", "Oslo", "Lima"}));
  EXPECT_TRUE(w["price"].dtype() == df["price"].dtype());
  EXPECT_EQ(df.where(column({true, true, true, true, true, true}))["city"].data(), df["city"].data());  // all kept: shared
  EXPECT_EQ(df.where(column({false, false, false, false, false, false})).num_rows(), 0);
  EXPECT_ERROR_WITH(df.where(column({true})), "where: the mask has length 1 but the frame has 6 rows");
  EXPECT_ERROR_WITH(df.where(df["year"]), "where: the mask must be a boolean column, got Int64(nullable=True)");
}

TEST(FrameRelationalRows, AppendAndConcat) {
  const DataFrame df = sales();
  const DataFrame more = df.append({{"Kyiv", 2022, 1.5}, {Value(), Value(), Value()}});
  EXPECT_EQ(more.num_rows(), 8);
  EXPECT_EQ(more.row(6), (std::vector<Value>{"Kyiv", 2022, 1.5}));
  EXPECT_EQ(more.row(7), (std::vector<Value>{Value(), Value(), Value()}));
  EXPECT_ERROR_WITH(df.append({{"Kyiv", "x", 1.5}}), "append: ");

  // Columns are matched by name; nullable flags merge.
  const DataFrame other{{"price", column(std::vector<double>{7.0})}, {"year", column(std::vector<int64_t>{1999})},
                        {"city", column(std::vector<std::string>{"Pisa"})}};
  const DataFrame c = concat({df, other, df.head(1)});
  EXPECT_EQ(c.columns(), df.columns());
  EXPECT_EQ(c.num_rows(), 8);
  EXPECT_EQ(c.row(6), (std::vector<Value>{"Pisa", 1999, 7.0}));
  EXPECT_TRUE(c["city"].dtype() == dt::String(true));
  EXPECT_TRUE(df.append(other) == concat({df, other}));

  const DataFrame bad{{"city", column({"x"})}, {"year", column({1.5})}, {"price", column({1.0})}};
  EXPECT_ERROR_WITH(concat({df, bad}), "concat: column 'year' has dtype Int64(nullable=True) in frame 0 but float64 in frame 1");
  const DataFrame missing{{"city", column({"x"})}, {"price", column({1.0})}};
  EXPECT_ERROR_WITH(concat({df, missing}), "concat: frame 1 has no column 'year'");
  const DataFrame extra = df.assign("z", column({1, 2, 3, 4, 5, 6}));
  EXPECT_ERROR_WITH(concat({df, extra}), "frame 1 has a column 'z' that frame 0 lacks");
  EXPECT_ERROR_WITH(concat(std::vector<DataFrame>{}), "concat: no frames to concatenate");
}

TEST(FrameRelationalSort, KeysDirectionsNulls) {
  const DataFrame df = sales();
  const DataFrame s = df.sort({"year", "price"}, {true, false});
  EXPECT_EQ(values(s["price"]), (std::vector<Value>{50.0, 30.0, 10.0, 20.0, Value(), 60.0}));
  const DataFrame s2 = df.sort({"city"}, {false}, {true});
  EXPECT_EQ(values(s2["city"]), (std::vector<Value>{Value(), "Rome", "Rome", "Oslo", "Oslo", "Lima"}));
  EXPECT_EQ(values(s2["price"]), (std::vector<Value>{30.0, 20.0, 50.0, 10.0, Value(), 60.0}));  // stable among ties
  // Per-key null placement.
  const DataFrame s3 = df.sort({"year", "city"}, {true}, {true, false});
  EXPECT_EQ(values(s3["city"]), (std::vector<Value>{"Lima", "Oslo", "Rome", Value(), "Oslo", "Rome"}));
  // Floats: -0.0 ties with 0.0 (stable), NaN above inf, nulls last.
  const DataFrame f{{"x", column({0.0, std::nullopt, std::nan(""), -0.0, -1.0, HUGE_VAL})}, {"i", column({0, 1, 2, 3, 4, 5})}};
  EXPECT_EQ(values(f.sort({"x"})["i"]), (std::vector<Value>{4, 0, 3, 5, 2, 1}));
  EXPECT_EQ(values(f.sort({"x"}, {false})["i"]), (std::vector<Value>{2, 5, 0, 3, 4, 1}));
  // Booleans, unsigned, dates and dictionaries.
  const DataFrame t{{"b", column({true, false, true})},
                    {"u", column(std::vector<uint64_t>{uint64_t(1) << 63, 1, 0})},
                    {"d", column({3, -5, 0}, dt::date32)},
                    {"c", column({"pear", "apple", "fig"}).dictionary_encode()}};
  EXPECT_EQ(values(t.sort({"b", "u"})["u"]), (std::vector<Value>{1, 0, uint64_t(1) << 63}));
  EXPECT_EQ(values(t.sort({"d"})["d"]), (std::vector<Value>{-5, 0, 3}));
  EXPECT_EQ(values(t.sort({"c"})["c"]), (std::vector<Value>{"apple", "fig", "pear"}));
  EXPECT_TRUE(t.sort({"c"})["c"].dtype() == t["c"].dtype());

  EXPECT_EQ(df.head(0).sort({"price"}).num_rows(), 0);
  EXPECT_ERROR_WITH(df.sort({"prce"}), "sort: DataFrame: no column named 'prce'; did you mean 'price'?");
  EXPECT_ERROR_WITH(df.sort({"year", "price"}, {true, false, true}), "sort: 3 ascending flags for 2 keys");
  EXPECT_ERROR_WITH(df.sort({}), "sort: no key columns given");
  const DataFrame l{{"l", column(std::vector<std::vector<int64_t>>{{1}, {}})}};
  EXPECT_ERROR_WITH(l.sort({"l"}), "sort: column 'l' has dtype List(int64), which cannot be sorted");
}

TEST(FrameRelationalGroupBy, AggregationsAndNames) {
  const DataFrame df = sales();
  const DataFrame g = df.groupby({"city"}).agg({{"price", {"sum", "mean", "count", "size", "min", "max", "first", "last"}},
                                                {"year", {"list"}}});
  EXPECT_EQ(g.columns(), (std::vector<std::string>{"city", "price.sum", "price.mean", "price.count", "price.size",
                                                   "price.min", "price.max", "price.first", "price.last", "year.list"}));
  // Sorted keys (pandas' default), the null key dropped.
  EXPECT_EQ(values(g["city"]), (std::vector<Value>{"Lima", "Oslo", "Rome"}));
  EXPECT_EQ(values(g["price.sum"]), (std::vector<Value>{60.0, 10.0, 70.0}));
  EXPECT_EQ(values(g["price.mean"]), (std::vector<Value>{60.0, 10.0, 35.0}));
  EXPECT_EQ(values(g["price.count"]), (std::vector<Value>{1, 1, 2}));
  EXPECT_EQ(values(g["price.size"]), (std::vector<Value>{1, 2, 2}));
  EXPECT_EQ(values(g["price.last"]), (std::vector<Value>{60.0, 10.0, 50.0}));  // skips the null
  EXPECT_EQ(values(g["year.list"]), (std::vector<Value>{Value::List{Value()}, Value::List{2020, 2021},
                                                        Value::List{2021, 2020}}));
  EXPECT_TRUE(g["price.sum"].dtype() == dt::float64);
  EXPECT_TRUE(g["price.mean"].dtype() == dt::Float64(true));
  EXPECT_TRUE(g["price.count"].dtype() == dt::int64);
  EXPECT_TRUE(g["price.min"].dtype() == dt::Float64(true));
  EXPECT_TRUE(g["year.list"].dtype() == dt::List(dt::Int64(true)));

  // First appearance order, null keys kept (last in sorted order).
  EXPECT_EQ(values(df.groupby({"city"}, false, false).size()["city"]), (std::vector<Value>{"Oslo", "Rome", Value(), "Lima"}));
  EXPECT_EQ(values(df.groupby({"city"}, true, false).size()["size"]), (std::vector<Value>{1, 2, 2, 1}));
  EXPECT_EQ(df.groupby({"city"}).ngroups(), 3);
  // TorchArrow's grouped.sum(): every non-key column.
  EXPECT_EQ(df.groupby({"city"}).sum().columns(), (std::vector<std::string>{"city", "year.sum", "price.sum"}));
  const DataFrame std2 = df.groupby({"year"}).agg({{"price", {"std"}}});
  EXPECT_EQ(values(std2["year"]), (std::vector<Value>{2020, 2021}));
  EXPECT_NEAR(std2["price.std"].get<double>(0).value(), 20.0, 1e-12);  // 10, 30, 50
  EXPECT_TRUE(std2["price.std"].is_null(1));                             // one value
  // Booleans sum as integers; integer sums are int64, unsigned ones uint64.
  const DataFrame b{{"k", column({1, 1, 2})}, {"f", column({true, true, false})},
                    {"u", column(std::vector<uint8_t>{200, 100, 1})}, {"i", column({5, -7, 1}, dt::int32)}};
  const DataFrame bs = b.groupby({"k"}).sum();
  EXPECT_EQ(values(bs["f.sum"]), (std::vector<Value>{2, 0}));
  EXPECT_EQ(values(bs["u.sum"]), (std::vector<Value>{300, 1}));
  EXPECT_TRUE(bs["u.sum"].dtype() == dt::uint64);
  EXPECT_EQ(values(bs["i.sum"]), (std::vector<Value>{-2, 1}));
  EXPECT_TRUE(bs["i.sum"].dtype() == dt::int64);
}

TEST(FrameRelationalGroupBy, KeyTypesEmptyAndErrors) {
  // Dictionary keys group by value; float keys: -0.0 == 0.0 and NaNs together.
  const DataFrame d{{"c", column({"x", "y", "x"}).dictionary_encode()}, {"v", column({1, 2, 3})}};
  EXPECT_EQ(values(d.groupby({"c"}).sum()["v.sum"]), (std::vector<Value>{4, 2}));
  const DataFrame f{{"x", column({0.0, -0.0, std::nan(""), std::nan(""), 1.0})}, {"v", column({1, 2, 3, 4, 5})}};
  const DataFrame fs = f.groupby({"x"}).sum();
  EXPECT_EQ(values(fs["v.sum"]), (std::vector<Value>{3, 5, 7}));  // 0, 1, NaN (above every number)
  // Several keys, strings and booleans.
  const DataFrame m{{"a", column({"p", "q", "p", "p"})}, {"b", column({true, false, true, false})}, {"v", column({1, 2, 3, 4})}};
  const DataFrame ms = m.groupby({"a", "b"}).sum();
  EXPECT_EQ(values(ms["a"]), (std::vector<Value>{"p", "p", "q"}));
  EXPECT_EQ(values(ms["b"]), (std::vector<Value>{false, true, false}));
  EXPECT_EQ(values(ms["v.sum"]), (std::vector<Value>{4, 4, 2}));

  const DataFrame empty = sales().head(0);
  const DataFrame e = empty.groupby({"city"}).agg({{"price", {"mean", "count"}}});
  EXPECT_EQ(e.num_rows(), 0);
  EXPECT_TRUE(e["price.mean"].dtype() == dt::Float64(true));

  const DataFrame df = sales();
  EXPECT_ERROR_WITH(df.groupby({"cty"}), "groupby: DataFrame: no column named 'cty'; did you mean 'city'?");
  EXPECT_ERROR_WITH(df.groupby({"city"}).agg({{"prize", {"sum"}}}), "did you mean 'price'?");
  EXPECT_ERROR_WITH(df.groupby({"city"}).agg({{"price", {"median"}}}), "groupby.agg: unknown aggregation 'median'");
  EXPECT_ERROR_WITH(df.groupby({"year"}).agg({{"city", {"sum"}}}),
                    "groupby.agg: 'sum' needs a numeric or boolean column; 'city' has dtype String(nullable=True)");
  EXPECT_ERROR_WITH(df.groupby({}), "groupby: no key columns given");
  EXPECT_ERROR_WITH(df.groupby({"city", "city"}), "the key 'city' is given twice");
  const DataFrame l{{"l", column(std::vector<std::vector<int64_t>>{{1}, {}})}};
  EXPECT_ERROR_WITH(l.groupby({"l"}), "groupby: key 'l' has dtype List(int64); keys must be");
}

TEST(FrameRelationalJoin, KindsOrderAndTypes) {
  const DataFrame left{{"k", column({1, 2, 2, std::nullopt, 4})}, {"a", column({"a0", "a1", "a2", "a3", "a4"})}};
  const DataFrame right{{"k", column({2, 1, 5, std::nullopt, 2})}, {"b", column({10, 11, 12, 13, 14})}};
  const DataFrame inner = left.join(right, {"k"});
  EXPECT_EQ(values(inner["a"]), (std::vector<Value>{"a0", "a1", "a1", "a2", "a2"}));
  EXPECT_EQ(values(inner["b"]), (std::vector<Value>{11, 10, 14, 10, 14}));
  EXPECT_TRUE(inner["b"].dtype() == dt::int64);
  const DataFrame l = left.join(right, {"k"}, "left");
  EXPECT_EQ(values(l["b"]), (std::vector<Value>{11, 10, 14, 10, 14, Value(), Value()}));  // null keys never match
  EXPECT_TRUE(l["b"].dtype() == dt::Int64(true));
  const DataFrame r = left.join(right, {"k"}, "right");
  EXPECT_EQ(values(r["k"]), (std::vector<Value>{2, 2, 1, 5, Value(), 2, 2}));
  EXPECT_EQ(values(r["a"]), (std::vector<Value>{"a1", "a2", "a0", Value(), Value(), "a1", "a2"}));
  const DataFrame o = left.join(right, {"k"}, "outer");
  EXPECT_EQ(values(o["k"]), (std::vector<Value>{1, 2, 2, 2, 2, 4, 5, Value(), Value()}));
  EXPECT_EQ(values(o["a"]), (std::vector<Value>{"a0", "a1", "a1", "a2", "a2", "a4", Value(), "a3", Value()}));
  EXPECT_EQ(values(o["b"]), (std::vector<Value>{11, 10, 14, 10, 14, Value(), 12, Value(), 13}));
  EXPECT_TRUE(o["a"].dtype() == dt::String(true));

  // left_on / right_on keep both keys; overlapping columns get suffixes.
  const DataFrame r2{{"key", column({2, 4})}, {"a", column({"x", "y"})}};
  const DataFrame j = left.join(right.rename({{"k", "key"}}).assign("a", column({"p", "q", "r", "s", "t"})),
                                JoinOptions{JoinHow::Inner, {}, {"k"}, {"key"}, {"_l", "_r"}});
  EXPECT_EQ(j.columns(), (std::vector<std::string>{"k", "a_l", "key", "b", "a_r"}));
  EXPECT_EQ(left.join(r2, {.how = JoinHow::Left, .left_on = {"k"}, .right_on = {"key"}}).columns(),
            (std::vector<std::string>{"k", "a_x", "key", "a_y"}));
  // Dictionary keys join with plain strings; several keys.
  const DataFrame ds{{"s", column({"u", "v", "u"}).dictionary_encode()}, {"n", column({1, 2, 3})}};
  const DataFrame ps{{"s", column({"v", "u"})}, {"n", column({2, 3})}, {"z", column({true, false})}};
  EXPECT_EQ(values(ds.join(ps, {"s"})["n_y"]), (std::vector<Value>{3, 2, 3}));
  EXPECT_EQ(values(ds.join(ps, {"s", "n"})["z"]), (std::vector<Value>{true, false}));
  // A unique right key with every left row matched: the left columns are shared.
  const DataFrame dim{{"k", column({4, 2, 1})}, {"name", column({"four", "two", "one"})}};
  const DataFrame fact = left.head(3);
  EXPECT_EQ(fact.join(dim, {"k"}, "left")["a"].data(), fact["a"].data());
  // Empty sides.
  EXPECT_EQ(left.head(0).join(right, {"k"}).num_rows(), 0);
  EXPECT_EQ(left.join(right.head(0), {"k"}, "left").num_rows(), 5);
  EXPECT_EQ(left.head(0).join(right, {"k"}, "outer").num_rows(), 5);
}

TEST(FrameRelationalJoin, Errors) {
  const DataFrame left{{"k", column({1, 2})}, {"v", column({1.0, 2.0})}};
  const DataFrame right{{"k", column({"1", "2"})}, {"w", column({1, 2})}};
  EXPECT_ERROR_WITH(left.join(right, {"k"}), "join: key 'k' has dtype int64 in the left frame but string in the right frame");
  EXPECT_ERROR_WITH(left.join(right, {"kk"}), "join (left frame): DataFrame: no column named 'kk'; did you mean 'k'?");
  EXPECT_ERROR_WITH(left.join(left, {.left_on = {"k"}, .right_on = {"kw"}}), "join (right frame): DataFrame: no column named 'kw'");
  EXPECT_ERROR_WITH(left.join(left, {"k"}, "cross"), "join: unknown join kind 'cross'");
  EXPECT_ERROR_WITH(left.join(left, {.left_on = {"k", "v"}, .right_on = {"k"}}), "join: 2 left keys ('k', 'v') but 1 right keys");
  EXPECT_ERROR_WITH(left.join(left, {.on = {"k"}, .left_on = {"k"}}), "give the keys either as `on` or as `left_on`");
  EXPECT_ERROR_WITH(left.join(left, std::vector<std::string>{}), "join: no key columns given");
  EXPECT_ERROR_WITH(left.join(left, {"k"}, "inner", {"", ""}), "join: the output column 'v' appears twice");
  const DataFrame l{{"l", column(std::vector<std::vector<int64_t>>{{1}, {}})}};
  EXPECT_ERROR_WITH(l.join(l, {"l"}), "join: key 'l' has dtype List(int64); keys must be");
}

TEST(FrameRelationalDuplicates, KeepFirstLastNone) {
  const DataFrame df{{"a", column({1, 1, std::nullopt, 2, std::nullopt, 1})}, {"b", column({"x", "x", "y", "x", "y", "z"})}};
  EXPECT_EQ(values(df.drop_duplicates()["b"]), (std::vector<Value>{"x", "y", "x", "z"}));  // nulls equal nulls
  EXPECT_EQ(values(df.drop_duplicates({"a"}, "last")["b"]), (std::vector<Value>{"x", "y", "z"}));
  EXPECT_EQ(values(df.drop_duplicates({"a", "b"}, "none")["a"]), (std::vector<Value>{2, 1}));
  EXPECT_ERROR_WITH(df.drop_duplicates({"a"}, "middle"), "drop_duplicates: keep must be 'first', 'last' or 'none'");
  EXPECT_ERROR_WITH(df.drop_duplicates({"c"}), "drop_duplicates: DataFrame: no column named 'c'");
}

TEST(FrameRelationalDescribe, PandasLayout) {
  // pandas: pd.DataFrame({"i": [1, 2, 3], "f": [1.5, 2.5, None]}).describe()
  const DataFrame df{{"i", column({1, 2, 3})}, {"b", column({true, false, true})}, {"f", column({1.5, 2.5, std::nullopt})},
                     {"s", column({"a", "b", "c"})}};
  const DataFrame d = df.describe();
  EXPECT_EQ(d.columns(), (std::vector<std::string>{"metric", "i", "f"}));
  EXPECT_EQ(values(d["metric"]), (std::vector<Value>{"count", "mean", "std", "min", "25%", "50%", "75%", "max"}));
  EXPECT_EQ(values(d["i"]), (std::vector<Value>{3.0, 2.0, 1.0, 1.0, 1.5, 2.0, 2.5, 3.0}));
  const auto f = values(d["f"]);
  EXPECT_EQ(f[0], Value(2.0));
  EXPECT_NEAR(f[2].as_double(), 0.7071067811865476, 1e-15);
  EXPECT_EQ(f[4], Value(1.75));
  EXPECT_EQ(values(df.describe({0.1, 0.333})["metric"]),
            (std::vector<Value>{"count", "mean", "std", "min", "10%", "33.3%", "max"}));
  const DataFrame one{{"x", column({4.0, std::nullopt})}};
  EXPECT_EQ(values(one.describe()["x"]), (std::vector<Value>{1.0, 4.0, Value(), 4.0, 4.0, 4.0, 4.0, 4.0}));
  EXPECT_ERROR_WITH(df.describe({1.5}), "describe: percentiles must be between 0 and 1, got 1.5");
}

}  // namespace
}  // namespace ember::frame
