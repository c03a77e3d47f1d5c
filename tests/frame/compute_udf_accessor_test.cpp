// map/transform UDFs and the .str() / .list() / .struct_() accessors, by hand: argument and
// result type deduction, null handling, batches, Unicode case mapping and classes, regex
// replacement groups, list access at non-zero offsets, vmap, struct fields under null
// structs, and their errors.
#include <cmath>

#include "ember/frame/compute/compute.h"
#include "ember/frame/frame.h"
#include "frame_test_util.h"
#include "test_util.h"

namespace ember::frame {
namespace {

using test::vals;  // frame_test_util.h

TEST(ComputeUdf, MapDeducesTypesAndHandlesNulls) {
  const Column c = column({1, std::nullopt, 3});
  const Column doubled = c.map([](int64_t x) { return x * 2.5; });
  EXPECT_EQ(doubled.dtype(), dtypes::Float64(true));
  EXPECT_EQ(vals(doubled), (std::vector<Value>{2.5, Value(), 7.5}));
  int calls = 0;
  const Column seen = c.map([&](std::optional<int64_t> x) {
    ++calls;
    return x.value_or(-1);
  });
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(seen.dtype(), dtypes::int64);
  EXPECT_EQ(vals(seen), (std::vector<Value>{1, -1, 3}));
  const Column maybe = column({1, 2, 3}).map([](int32_t x) -> std::optional<std::string> {
    if (x == 2) return std::nullopt;
    return std::string(size_t(x), '*');
  });
  EXPECT_EQ(maybe.dtype(), dtypes::String(true));
  EXPECT_EQ(vals(maybe), (std::vector<Value>{"*", Value(), "***"}));
  // The column is cast to the argument's number type, with checks.
  EXPECT_EQ(vals(column({1.0, 2.0}).map([](int64_t x) { return x + 1; })), (std::vector<Value>{2, 3}));
  EXPECT_ERROR_WITH(column({1.5}).map([](int64_t x) { return x; }), "cast: value 1.5 at row 0 would be truncated");
  EXPECT_EQ(vals(column({true, false}).map([](bool b) { return !b; })), (std::vector<Value>{false, true}));
  const Column s = column({"ab", std::nullopt, "xyz"});
  EXPECT_EQ(vals(s.map([](std::string_view v) { return int64_t(v.size()); })), (std::vector<Value>{2, Value(), 3}));
  EXPECT_EQ(vals(s.dictionary_encode().map([](const std::string& v) { return v + "!"; })),
            (std::vector<Value>{"ab!", Value(), "xyz!"}));
  const Column l = column(std::vector<std::vector<int64_t>>{{1, 2}, {}, {5}});
  EXPECT_EQ(vals(l.map([](const Column& items) { return items.size(); })), (std::vector<Value>{2, 0, 1}));
  EXPECT_EQ(vals(column({1, 2}).map([](int64_t x) { return std::vector<int64_t>(size_t(x), x); })),
            (std::vector<Value>{Value::List{1}, Value::List{2, 2}}));
  const Column any = column({1, 2}).map([](const Value& v) { return Value(v.as_int() * 10); }, dtypes::Int32(true));
  EXPECT_EQ(any.dtype(), dtypes::Int32(true));
  EXPECT_EQ(vals(any), (std::vector<Value>{10, 20}));
  EXPECT_ERROR_WITH(column({1}).map([](const Value& v) { return v; }), "map: the callable returns Value; pass the result dtype");
  EXPECT_ERROR_WITH(column({1}).map([](std::string_view v) { return v.size(); }),
                    "map: the callable takes std::string_view but the column's dtype is int64");
  EXPECT_ERROR_WITH(column({"a"}).map([](double x) { return x; }), "map: the callable takes double but the column's dtype is string");
  EXPECT_EQ(frame::map(column({1}), [](int64_t x) { return x > 0; }).dtype(), dtypes::boolean);
}

TEST(ComputeUdf, TransformRunsOnBatches) {
  const Column c = column({1, 2, 3, 4, 5});
  std::vector<int64_t> sizes;
  const Column r = c.transform(
      [&](const Column& batch) {
        sizes.push_back(batch.size());
        return batch * 10;
      },
      2);
  EXPECT_EQ(sizes, (std::vector<int64_t>{2, 2, 1}));
  EXPECT_EQ(vals(r), (std::vector<Value>{10, 20, 30, 40, 50}));
  EXPECT_EQ(vals(c.transform([](const Column& all) { return all.cast(dtypes::string); })),
            (std::vector<Value>{"1", "2", "3", "4", "5"}));
  EXPECT_ERROR_WITH(c.transform([](const Column& b) { return b.head(1); }, 3),
                    "transform: the callable returned 1 rows for the batch of rows [0, 3)");
  EXPECT_ERROR_WITH(c.transform([](const Column&) { return Column(); }), "transform: the callable returned an undefined column");
}

TEST(ComputeStrings, UnicodeCaseAndClasses) {
  const Column s = column({"straße", "ΟΔΥΣΣΕΥΣ", "İstanbul", "ǅemal", "Москва", "ﬁ", std::nullopt});
  EXPECT_EQ(vals(s.str().upper()),
            (std::vector<Value>{"STRAẞE", "ΟΔΥΣΣΕΥΣ", "İSTANBUL", "ǄEMAL", "МОСКВА", "ﬁ", Value()}));
  EXPECT_EQ(vals(s.str().lower()),
            (std::vector<Value>{"straße", "οδυσσευσ", "istanbul", "ǆemal", "москва", "ﬁ", Value()}));
  EXPECT_EQ(vals(s.str().length()), (std::vector<Value>{6, 8, 8, 5, 6, 1, Value()}));
  const Column k = column({"abc", "ABC", "Abc", "123", "½", "٣", " \t\u3000", "", "ǅ", "aǅ"});
  EXPECT_EQ(vals(k.str().islower()), (std::vector<Value>{true, false, false, false, false, false, false, false, false, false}));
  EXPECT_EQ(vals(k.str().isupper()), (std::vector<Value>{false, true, false, false, false, false, false, false, false, false}));
  EXPECT_EQ(vals(k.str().isdigit()), (std::vector<Value>{false, false, false, true, true, true, false, false, false, false}));
  EXPECT_EQ(vals(k.str().isdecimal()), (std::vector<Value>{false, false, false, true, false, true, false, false, false, false}));
  EXPECT_EQ(vals(k.str().isnumeric()), (std::vector<Value>{false, false, false, true, true, true, false, false, false, false}));
  EXPECT_EQ(vals(k.str().isspace()), (std::vector<Value>{false, false, false, false, false, false, true, false, false, false}));
  EXPECT_EQ(vals(k.str().isalpha()), (std::vector<Value>{true, true, true, false, false, false, false, false, true, true}));
}

TEST(ComputeStrings, SlicesSearchesAndRegex) {
  const Column s = column({"αβγδε", "hello world", std::nullopt, ""}).slice(0, 4);
  EXPECT_EQ(vals(s.str().slice(1, 3)), (std::vector<Value>{"βγ", "el", Value(), ""}));
  EXPECT_EQ(vals(s.str().slice(std::nullopt, std::nullopt, -2)), (std::vector<Value>{"εγα", "drwolh", Value(), ""}));
  EXPECT_EQ(vals(s.str().slice(-2)), (std::vector<Value>{"δε", "ld", Value(), ""}));
  EXPECT_EQ(vals(s.str().find("δ")), (std::vector<Value>{3, -1, Value(), -1}));
  EXPECT_EQ(vals(s.str().find("o")), (std::vector<Value>{-1, 4, Value(), -1}));
  EXPECT_EQ(vals(s.str().split()), (std::vector<Value>{Value::List{"αβγδε"}, Value::List{"hello", "world"}, Value(), Value::List{}}));
  EXPECT_EQ(vals(s.str().split("l", 1)), (std::vector<Value>{Value::List{"αβγδε"}, Value::List{"he", "lo world"}, Value(), Value::List{""}}));
  EXPECT_EQ(vals(s.str().contains("o w", false)), (std::vector<Value>{false, true, Value(), false}));
  EXPECT_EQ(vals(s.str().contains("^h.*d$")), (std::vector<Value>{false, true, Value(), false}));
  EXPECT_EQ(vals(s.str().replace("(\\w+) (\\w+)", "\\2 \\1", true)), (std::vector<Value>{"αβγδε", "world hello", Value(), ""}));
  EXPECT_EQ(vals(s.str().replace("l", "L", false, 2)), (std::vector<Value>{"αβγδε", "heLLo world", Value(), ""}));
  EXPECT_EQ(vals(s.str().replace("", "|")), (std::vector<Value>{"|α|β|γ|δ|ε|", "|h|e|l|l|o| |w|o|r|l|d|", Value(), "|"}));
  EXPECT_EQ(vals(s.str().findall("o.")), (std::vector<Value>{Value::List{}, Value::List{"o ", "or"}, Value(), Value::List{}}));
  EXPECT_EQ(vals(s.str().findall("(l+)o")), (std::vector<Value>{Value::List{}, Value::List{"ll"}, Value(), Value::List{}}));
  EXPECT_EQ(vals(s.str().match("hel")), (std::vector<Value>{false, true, Value(), false}));
  EXPECT_EQ(vals(s.str().fullmatch("hel")), (std::vector<Value>{false, false, Value(), false}));
  EXPECT_EQ(vals(s.str().startswith("αβ")), (std::vector<Value>{true, false, Value(), false}));
  EXPECT_EQ(vals(s.str().endswith("")), (std::vector<Value>{true, true, Value(), true}));
  EXPECT_EQ(vals(column({"  x  ", "xxyxx"}).str().strip("x ")), (std::vector<Value>{"", "y"}));
  EXPECT_EQ(vals(column({"\u00a0 a \u2003"}).str().strip()), (std::vector<Value>{"a"}));
  EXPECT_EQ(vals(column({"\u00a0 a \u2003"}).str().lstrip()), (std::vector<Value>{"a \u2003"}));
  EXPECT_EQ(vals(s.str().cat(column({"1", "2", "3", std::nullopt}), "-")), (std::vector<Value>{"αβγδε-1", "hello world-2", Value(), Value()}));
  EXPECT_EQ(s.str().cat(", "), "αβγδε, hello world, ");
  EXPECT_EQ(vals(column({"x", "y"}).dictionary_encode().str().upper()), (std::vector<Value>{"X", "Y"}));
  EXPECT_ERROR_WITH(s.str().replace("(a)", "\\3", true), "str.replace: the replacement '\\3' refers to group \\3 but the pattern '(a)' has 1 groups");
  EXPECT_ERROR_WITH(s.str().findall("(a)(b)"), "str.findall: the pattern '(a)(b)' has 2 groups");
}

TEST(ComputeStrings, AsciiFastPathOnSlices) {
  // Rows at a non-zero offset of the bytes: the offsets are re-based, the result is valid.
  const Column base = column({"skip", "MiXeD", std::nullopt, "ABC"});
  const Column s = base.slice(1, 3);
  const Column lo = s.str().lower();
  EXPECT_NO_THROW(lo.data()->validate(ValidateOptions{true}));
  EXPECT_EQ(vals(lo), (std::vector<Value>{"mixed", Value(), "abc"}));
  // Non-ASCII rows map in place when every code point keeps its UTF-8 length, and row by
  // row when one does not (the Kelvin sign lowercases to a one-byte k).
  const Column accented = column({"skip", "ÀÉ", std::nullopt, "Ωx"}).slice(1, 3);
  const Column al = accented.str().lower();
  EXPECT_NO_THROW(al.data()->validate(ValidateOptions{true}));
  EXPECT_EQ(vals(al), (std::vector<Value>{"àé", Value(), "ωx"}));
  const Column kelvin = column({"skip", "\u212A\u212A", "ÀK"}).slice(1, 2);
  const Column kl = kelvin.str().lower();
  EXPECT_NO_THROW(kl.data()->validate(ValidateOptions{true}));
  EXPECT_EQ(vals(kl), (std::vector<Value>{"kk", "àk"}));
  // At offset 0 the offsets and validity buffers are shared.
  const Column up = base.str().upper();
  EXPECT_EQ(up.data()->buffers[1].data(), base.data()->buffers[1].data());
  EXPECT_EQ(vals(up), (std::vector<Value>{"SKIP", "MIXED", Value(), "ABC"}));
}

TEST(ComputeLists, AccessAtOffsetsAndVmap) {
  const Column full = column(std::vector<std::optional<std::vector<int64_t>>>{
      std::vector<int64_t>{9, 9}, std::vector<int64_t>{1, 2, 3}, std::nullopt, std::vector<int64_t>{}, std::vector<int64_t>{4, 5}});
  const Column l = full.slice(1, 4);
  EXPECT_EQ(vals(l.list().length()), (std::vector<Value>{3, Value(), 0, 2}));
  EXPECT_EQ(vals(l.list().get(0)), (std::vector<Value>{1, Value(), Value(), 4}));
  EXPECT_EQ(vals(l.list().get(-1)), (std::vector<Value>{3, Value(), Value(), 5}));
  EXPECT_EQ(vals(l.list().get(5)), (std::vector<Value>{Value(), Value(), Value(), Value()}));
  EXPECT_EQ(vals(l.list().slice(1)), (std::vector<Value>{Value::List{2, 3}, Value(), Value::List{}, Value::List{5}}));
  EXPECT_EQ(vals(l.list().flatten()), (std::vector<Value>{1, 2, 3, 4, 5}));
  const Column v = l.list().vmap([](const Column& items) { return (items * 2).cast(dtypes::float64); });
  EXPECT_EQ(v.dtype(), dtypes::List(dtypes::float64, true));
  EXPECT_EQ(vals(v), (std::vector<Value>{Value::List{2.0, 4.0, 6.0}, Value(), Value::List{}, Value::List{8.0, 10.0}}));
  EXPECT_NO_THROW(v.data()->validate());
  EXPECT_ERROR_WITH(l.list().vmap([](const Column& items) { return items.head(1); }),
                    "list.vmap: the function returned 1 values for 5 values");
  const Column words = column(std::vector<std::optional<std::vector<std::string>>>{
      std::vector<std::string>{"a", "b"}, std::nullopt, std::vector<std::string>{}});
  EXPECT_EQ(vals(words.list().join("-")), (std::vector<Value>{"a-b", Value(), ""}));
  EXPECT_ERROR_WITH(l.list().join(","), "list.join: the column's dtype is List(int64, nullable=True); expected a list of strings");
  // A null list may cover items (Arrow allows it); flatten leaves them out, as pyarrow.
  auto items = column({1, 2, 3}).data();
  std::vector<int32_t> offs{0, 1, 3};
  Buffer valid = Buffer::copy_of("\x01", 1);
  const Column hidden(ArrayData::make(dtypes::List(dtypes::int64, true), 2,
                                      {valid, Buffer::copy_of(offs.data(), 12)}, {items}, 1));
  EXPECT_EQ(vals(hidden.list().flatten()), (std::vector<Value>{1}));
}

TEST(ComputeStructs, FieldsUnderNullStructs) {
  const DType t = dtypes::Struct({{"a", dtypes::int64}, {"b", dtypes::String(true)}}, true);
  const Column s = column_from_values({Value::List{1, "x"}, Value(), Value::List{3, Value()}, Value::List{4, "w"}}, t).slice(1, 3);
  EXPECT_EQ(vals(s.struct_().field("a")), (std::vector<Value>{Value(), 3, 4}));
  EXPECT_EQ(s.struct_().field("a").dtype(), dtypes::Int64(true));
  EXPECT_EQ(vals(s.struct_().field(1)), (std::vector<Value>{Value(), Value(), "w"}));
  EXPECT_EQ(s.struct_().names(), (std::vector<std::string>{"a", "b"}));
  EXPECT_ERROR_WITH(s.struct_().field("c"), "Column.field: no field named 'c'");
  const Column plain = struct_column({{"a", column({1, 2})}});
  EXPECT_EQ(plain.struct_().field("a").dtype(), dtypes::int64);
}

}  // namespace
}  // namespace ember::frame
