// Columns: the Arrow layouts that builders and constructors produce (checked byte by byte
// against the format specification), element access, slices, nested access, dictionaries,
// equality, printing, and the errors for misuse.
#include <cmath>
#include <cstring>
#include <limits>

#include "ember/frame/frame.h"
#include "test_util.h"

namespace ember::frame {
namespace {

namespace dt = dtypes;

template <class T>
std::vector<T> buffer_values(const Buffer& b) {
  std::vector<T> v(size_t(b.size()) / sizeof(T));
  std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

std::string buffer_string(const Buffer& b) { return std::string(reinterpret_cast<const char*>(b.data()), size_t(b.size())); }

TEST(FrameColumn, Int64FromVector) {
  Column c = column(std::vector<int64_t>{10, -20, 30});
  EXPECT_EQ(c.dtype(), dt::int64);
  EXPECT_EQ(c.size(), 3);
  EXPECT_EQ(c.null_count(), 0);
  const ArrayData& a = *c.data();
  ASSERT_EQ(a.buffers.size(), 2u);
  EXPECT_FALSE(a.buffers[0].defined());  // no nulls: no bitmap
  EXPECT_EQ(buffer_values<int64_t>(a.buffers[1]), (std::vector<int64_t>{10, -20, 30}));
  EXPECT_TRUE(a.buffers[1].is_aligned(64));
  EXPECT_EQ(*c.get<int64_t>(1), -20);
  EXPECT_EQ(c.values<int64_t>()[2], 30);
  EXPECT_ERROR_WITH(c.get<int32_t>(0), "Column.get<int32_t>: the column's dtype is int64");
  EXPECT_ERROR_WITH(c.get<int64_t>(3), "index 3 is out of range for a column of length 3");
  EXPECT_ERROR_WITH(c.get<int64_t>(-1), "index -1 is out of range");
  EXPECT_ERROR_WITH(Column().size(), "undefined");
}

TEST(FrameColumn, InitializerListsInferNullability) {
  Column a = column({1, 2, std::nullopt});
  EXPECT_EQ(a.dtype(), dt::Int64(true));
  EXPECT_EQ(a.null_count(), 1);
  EXPECT_TRUE(a.is_valid(1));
  EXPECT_TRUE(a.is_null(2));
  EXPECT_EQ(a.get<int64_t>(2), std::nullopt);
  // LSB bit order: elements 0 and 1 valid, 2 null -> 0b011.
  EXPECT_EQ(a.data()->buffers[0].data()[0], 0b011);
  // The null slot holds zero (the builders' placeholder).
  EXPECT_EQ(buffer_values<int64_t>(a.data()->buffers[1]), (std::vector<int64_t>{1, 2, 0}));

  EXPECT_EQ(column({1, 2, 3}).dtype(), dt::int64);
  EXPECT_EQ(column({1.5, std::nullopt}).dtype(), dt::Float64(true));
  EXPECT_EQ(column({true, false}).dtype(), dt::boolean);
  Column s = column({"a", std::nullopt, "ccc"});
  EXPECT_EQ(s.dtype(), dt::String(true));
  EXPECT_EQ(*s.get_string(2), "ccc");
  EXPECT_EQ(column({1, 2}, dt::Int32()).dtype(), dt::int32);
}

TEST(FrameColumn, OptionalVectorsAndExplicitTypes) {
  Column c = column(std::vector<std::optional<double>>{1.5, std::nullopt, -0.0});
  EXPECT_EQ(c.dtype(), dt::Float64(true));
  EXPECT_EQ(c.to_values(), (std::vector<Value>{1.5, Value(), -0.0}));
  Column u = column(std::vector<uint8_t>{0, 255});
  EXPECT_EQ(u.dtype(), dt::uint8);
  EXPECT_EQ(*u.get<uint8_t>(1), 255);
  Column ts = column(std::vector<int64_t>{0, 1'600'000'000'000'000}, dt::Timestamp(TimeUnit::Micro, "UTC"));
  EXPECT_EQ(ts.dtype(), dt::Timestamp(TimeUnit::Micro, "UTC"));
  EXPECT_EQ(*ts.get<int64_t>(1), 1'600'000'000'000'000);
  Column d = column(std::vector<int32_t>{0, 19000}, dt::date32);
  EXPECT_EQ(*d.get<int32_t>(1), 19000);
  // Values convert through append_value when the dtype's layout differs.
  Column f = column(std::vector<int64_t>{1, 2}, dt::float32);
  EXPECT_EQ(*f.get<float>(1), 2.0f);
  EXPECT_ERROR_WITH(column(std::vector<int64_t>{300}, dt::int8), "300 is out of range for int8");
  EXPECT_ERROR_WITH(column(std::vector<double>{1.5}, dt::int64), "cannot store 1.5 (a double) in a column of type int64");
}

TEST(FrameColumn, EveryIntegerAndFloatType) {
  auto check = [](auto tag, DType t) {
    using T = decltype(tag);
    const T lo = std::numeric_limits<T>::lowest(), hi = std::numeric_limits<T>::max();
    Column c = column(std::vector<std::optional<T>>{lo, std::nullopt, hi});
    EXPECT_EQ(c.dtype(), t.with_nullable(true));
    EXPECT_EQ(*c.template get<T>(0), lo);
    EXPECT_EQ(*c.template get<T>(2), hi);
    EXPECT_EQ(c.data()->buffers[1].size(), int64_t(3 * sizeof(T)));
    EXPECT_EQ(c.get_value(1), Value());
  };
  check(int8_t{}, dt::int8);
  check(int16_t{}, dt::int16);
  check(int32_t{}, dt::int32);
  check(int64_t{}, dt::int64);
  check(uint8_t{}, dt::uint8);
  check(uint16_t{}, dt::uint16);
  check(uint32_t{}, dt::uint32);
  check(uint64_t{}, dt::uint64);
  check(float{}, dt::float32);
  check(double{}, dt::float64);
  // uint64 values above INT64_MAX stay exact through Value.
  Column big = column(std::vector<uint64_t>{uint64_t(1) << 63});
  EXPECT_EQ(big.get_value(0).as_uint(), uint64_t(1) << 63);
  EXPECT_EQ(big.get_value(0).to_string(), "9223372036854775808");
}

TEST(FrameColumn, BooleanIsBitPacked) {
  Column b = column(std::vector<std::optional<bool>>{true, false, true, true, std::nullopt, false, false, false, true});
  EXPECT_EQ(b.dtype(), dt::Boolean(true));
  const ArrayData& a = *b.data();
  // Values 1,0,1,1,0(null),0,0,0 | 1 -> 0b00001101, 0b1 (LSB first).
  EXPECT_EQ(a.buffers[1].data()[0], 0b00001101);
  EXPECT_EQ(a.buffers[1].data()[1], 0b1);
  EXPECT_EQ(a.buffers[0].data()[0], 0b11101111);
  EXPECT_EQ(a.buffers[0].data()[1], 0b1);
  EXPECT_EQ(*b.get<bool>(3), true);
  EXPECT_EQ(b.get<bool>(4), std::nullopt);
  EXPECT_EQ(*b.get<bool>(8), true);
  EXPECT_ERROR_WITH(b.values<bool>(), "a boolean column is a bitmap");
}

TEST(FrameColumn, StringLayout) {
  Column s = column(std::vector<std::optional<std::string>>{"a", "", std::nullopt, "bcd", "\xc3\xa9"});
  const ArrayData& a = *s.data();
  ASSERT_EQ(a.buffers.size(), 3u);
  EXPECT_EQ(buffer_values<int32_t>(a.buffers[1]), (std::vector<int32_t>{0, 1, 1, 1, 4, 6}));
  EXPECT_EQ(buffer_string(a.buffers[2]), "abcd\xc3\xa9");
  EXPECT_EQ(*s.get_string(0), "a");
  EXPECT_EQ(*s.get_string(1), "");
  EXPECT_EQ(s.get_string(2), std::nullopt);
  EXPECT_EQ(*s.get_string(4), "\xc3\xa9");
  EXPECT_ERROR_WITH(s.get<int64_t>(0), "the column's dtype is String(nullable=True)");

  Column l = column(std::vector<std::string>{"xy", "z"}, dt::large_string);
  EXPECT_EQ(buffer_values<int64_t>(l.data()->buffers[1]), (std::vector<int64_t>{0, 2, 3}));
  EXPECT_EQ(*l.get_string(1), "z");

  // binary keeps any bytes; string refuses invalid UTF-8.
  BinaryBuilder bb(dt::binary);
  bb.append(std::string_view("\0\xff", 2));
  Column bin = bb.finish();
  EXPECT_EQ(*bin.get_string(0), std::string_view("\0\xff", 2));
  EXPECT_EQ(bin.get_value(0).as_string(), std::string("\0\xff", 2));
  BinaryBuilder sb(dt::string);
  EXPECT_ERROR_WITH(sb.append("ok\xff"), "not valid UTF-8 (byte 2 of 3); use a binary column for bytes");
  EXPECT_ERROR_WITH(sb.append("\xed\xa0\x80"), "not valid UTF-8");  // a surrogate
  EXPECT_ERROR_WITH(sb.append("\xc0\x80"), "not valid UTF-8");      // overlong
  EXPECT_EQ(sb.length(), 0);
  EXPECT_ERROR_WITH(sb.append_null(), "append_null: the column type string is not nullable");
}

TEST(FrameColumn, Utf8Checker) {
  EXPECT_TRUE(utf8::is_valid(""));
  EXPECT_TRUE(utf8::is_valid("plain ascii text, longer than eight bytes"));
  EXPECT_TRUE(utf8::is_valid("\xf0\x9f\x98\x80 \xe2\x82\xac \xc2\xa9 \xf4\x8f\xbf\xbf"));
  int64_t at = -1;
  EXPECT_FALSE(utf8::is_valid("abcdefgh\x80", &at));
  EXPECT_EQ(at, 8);
  EXPECT_FALSE(utf8::is_valid("\xf4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(utf8::is_valid("\xe2\x82"));          // truncated
  EXPECT_FALSE(utf8::is_valid("\xf8\x88\x80\x80\x80"));
}

TEST(FrameColumn, ListsOfListsAndSlices) {
  using L = std::vector<std::optional<std::vector<int64_t>>>;
  Column c = column(L{std::vector<int64_t>{1, 2}, std::nullopt, std::vector<int64_t>{}, std::vector<int64_t>{3}});
  EXPECT_EQ(c.dtype(), dt::List(dt::int64, true));
  const ArrayData& a = *c.data();
  EXPECT_EQ(buffer_values<int32_t>(a.buffers[1]), (std::vector<int32_t>{0, 2, 2, 2, 3}));
  EXPECT_EQ(a.children[0]->length, 3);
  EXPECT_EQ(c.list_range(3), (std::pair<int64_t, int64_t>{2, 3}));
  EXPECT_EQ(c.get_list(0)->to_values(), (std::vector<Value>{1, 2}));
  EXPECT_EQ(c.get_list(1), std::nullopt);
  EXPECT_EQ(c.get_list(2)->size(), 0);
  EXPECT_EQ(c.get_value(0), Value(Value::List{1, 2}));

  // Nested: List(List(string)).
  using LL = std::vector<std::vector<std::vector<std::string>>>;
  Column n = column(LL{{{"a"}, {}}, {{"b", "c"}}});
  EXPECT_EQ(n.dtype(), dt::List(dt::List(dt::string)));
  EXPECT_EQ(n.get_value(1), Value(Value::List{Value(Value::List{"b", "c"})}));
  EXPECT_EQ(n.list_values().size(), 3);
  EXPECT_EQ(n.list_values().list_values().size(), 3);

  // A slice shares the buffers and keeps the offsets.
  Column s = c.slice(2, 2);
  EXPECT_EQ(s.data()->buffers[1].data(), a.buffers[1].data());
  EXPECT_EQ(s.offset(), 2);
  EXPECT_EQ(s.to_values(), (std::vector<Value>{Value::List{}, Value::List{3}}));
  EXPECT_EQ(s.null_count(), 0);
  EXPECT_EQ(c.slice(1, 3).null_count(), 1);
  EXPECT_EQ(c.slice(1, 3).slice(1, 2).to_values(), s.to_values());
  EXPECT_ERROR_WITH(c.slice(3, 2), "elements [3, 3 + 2) are outside an array of length 4");

  Column ll = column(std::vector<std::vector<int8_t>>{{1}, {2, 3}}, dt::LargeList(dt::int8));
  EXPECT_EQ(buffer_values<int64_t>(ll.data()->buffers[1]), (std::vector<int64_t>{0, 1, 3}));
  EXPECT_EQ(ll.get_value(1), Value(Value::List{2, 3}));
}

TEST(FrameColumn, ListBuilderByHand) {
  ListBuilder b(dt::List(dt::Float64(true), true));
  auto& v = static_cast<Float64Builder&>(b.values());
  b.begin_list();
  v.append(1.0);
  v.append_null();
  b.end_list();
  b.append_null();
  b.begin_list();
  b.end_list();
  Column c = b.finish();
  EXPECT_EQ(c.to_values(), (std::vector<Value>{Value::List{1.0, Value()}, Value(), Value::List{}}));
  EXPECT_EQ(b.length(), 0);  // reusable after finish
  EXPECT_ERROR_WITH(b.end_list(), "end_list: no begin_list() for element 0");
  b.begin_list();
  EXPECT_ERROR_WITH(b.begin_list(), "is still open");
  EXPECT_ERROR_WITH(b.finish(), "still open (no end_list)");
}

TEST(FrameColumn, StructsAndFieldAccess) {
  Column a = column({1, 2, 3});
  Column b = column({"x", std::nullopt, "z"});
  Column s = struct_column({{"a", a}, {"b", b}});
  EXPECT_EQ(s.dtype(), dt::Struct({{"a", dt::int64}, {"b", dt::String(true)}}));
  EXPECT_EQ(s.num_fields(), 2);
  EXPECT_EQ(s.field("b"), b);
  EXPECT_EQ(s.get_value(1), Value(Value::List{2, Value()}));
  // The struct's offset applies to its children.
  Column t = s.slice(1, 2);
  EXPECT_EQ(t.field("a").to_values(), (std::vector<Value>{2, 3}));
  EXPECT_EQ(t.field(1).to_values(), (std::vector<Value>{Value(), "z"}));
  EXPECT_EQ(t.data()->children[0].get(), a.data().get());  // no copy
  EXPECT_ERROR_WITH(s.field("c"), "no field named 'c' in Struct([Field('a', int64), Field('b', String(nullable=True))]) (fields: 'a', 'b')");
  EXPECT_ERROR_WITH(struct_column({{"a", a}, {"b", column({1})}}), "field 'b' has length 1 but field 'a' has length 3");

  // StructBuilder with a nullable struct: a null element fills its fields with empties.
  StructBuilder sb(dt::Struct({{"k", dt::int32}, {"v", dt::String(true)}}, true));
  static_cast<Int32Builder&>(sb.field("k")).append(7);
  static_cast<BinaryBuilder&>(sb.field(1)).append("seven");
  sb.append();
  sb.append_null();
  sb.append_value(Value::List{8, Value()});
  Column r = sb.finish();
  EXPECT_EQ(r.to_values(), (std::vector<Value>{Value::List{7, "seven"}, Value(), Value::List{8, Value()}}));
  EXPECT_EQ(*r.field("k").get<int32_t>(1), 0);  // the non-nullable field's empty value
  EXPECT_TRUE(r.field("v").is_null(1));
  EXPECT_ERROR_WITH(sb.append_value(Value::List{1}), "1 values for the 2 fields");
}

TEST(FrameColumn, Maps) {
  MapBuilder b(dt::Map(dt::string, dt::Int64(true), true));
  b.begin_map();
  static_cast<BinaryBuilder&>(b.keys()).append("a");
  static_cast<Int64Builder&>(b.items()).append(1);
  static_cast<BinaryBuilder&>(b.keys()).append("b");
  b.items().append_null();
  b.end_map();
  b.append_null();
  b.append_value(Value::List{Value(Value::List{"c", 3})});
  Column m = b.finish();
  const ArrayData& a = *m.data();
  EXPECT_EQ(buffer_values<int32_t>(a.buffers[1]), (std::vector<int32_t>{0, 2, 2, 3}));
  EXPECT_EQ(a.children[0]->type, dt::Struct({{"key", dt::string}, {"value", dt::Int64(true)}}));
  EXPECT_EQ(m.map_keys().to_values(), (std::vector<Value>{"a", "b", "c"}));
  EXPECT_EQ(m.map_values().to_values(), (std::vector<Value>{1, Value(), 3}));
  EXPECT_EQ(m.get_value(0), Value(Value::List{Value::List{"a", 1}, Value::List{"b", Value()}}));
  EXPECT_EQ(m.get_list(2)->to_values(), (std::vector<Value>{Value(Value::List{"c", 3})}));
  EXPECT_ERROR_WITH(b.append_value(Value::List{Value(Value::List{Value(), 1})}), "map keys cannot be null");
  b.begin_map();
  static_cast<BinaryBuilder&>(b.keys()).append("x");
  EXPECT_ERROR_WITH(b.end_map(), "1 keys but 0 items");
}

TEST(FrameColumn, DictionaryEncodeAndDecode) {
  Column s = column({"red", "green", std::nullopt, "red", "blue", "green"});
  Column d = s.dictionary_encode();
  EXPECT_EQ(d.dtype(), dt::Dictionary(dt::int32, dt::string, true));
  EXPECT_EQ(d.dictionary().to_values(), (std::vector<Value>{"red", "green", "blue"}));
  EXPECT_EQ(d.indices().to_values(), (std::vector<Value>{0, 1, Value(), 0, 2, 1}));
  EXPECT_EQ(*d.get_string(4), "blue");
  EXPECT_EQ(d.get_string(2), std::nullopt);
  EXPECT_EQ(d.to_values(), s.to_values());
  EXPECT_EQ(d.dictionary_decode(), s);
  EXPECT_EQ(d.slice(3, 2).to_values(), (std::vector<Value>{"red", "blue"}));

  // A dictionary from given indices is validated: an index past the dictionary fails.
  Column dict = column({"a", "b"});
  EXPECT_EQ(dictionary_column(column(std::vector<int8_t>{1, 0, 1}), dict).to_values(),
            (std::vector<Value>{"b", "a", "b"}));
  EXPECT_ERROR_WITH(dictionary_column(column(std::vector<int8_t>{0, 2}), dict),
                    "dictionary index 2 at element 1 is outside the dictionary of length 2");
  EXPECT_ERROR_WITH(column({1, 2}).dictionary_encode(), "dictionary_encode: the column's dtype is int64");

  DictionaryBuilder b(dt::Dictionary(dt::int8, dt::string));
  for (int i = 0; i < 128; ++i) b.append(std::to_string(i));
  b.append("0");
  EXPECT_EQ(b.finish().dictionary().size(), 128);
  for (int i = 0; i < 129; ++i) b.append(std::to_string(i));
  EXPECT_ERROR_WITH(b.finish(), "129 distinct values do not fit int8 indices");
}

TEST(FrameColumn, Equality) {
  Column a = column({1, 2, std::nullopt, 4});
  EXPECT_EQ(a, column({1, 2, std::nullopt, 4}));
  EXPECT_NE(a, column({1, 2, 3, 4}, dt::Int64(true)));
  EXPECT_NE(a, column({1, 2, std::nullopt, 4}, dt::Int32(true)));
  EXPECT_NE(a, a.slice(0, 3));
  // Same values at different offsets and in different buffers.
  EXPECT_EQ(column({0, 1, 2, std::nullopt, 4}).slice(1, 4), a);
  EXPECT_EQ(column({9, 2, std::nullopt}).slice(1, 2), a.slice(1, 2));
  // NaN equals NaN.
  const double nan = std::nan("");
  EXPECT_EQ(column(std::vector<double>{nan, 1}), column(std::vector<double>{nan, 1}));
  EXPECT_NE(column(std::vector<double>{0.5}), column(std::vector<double>{0.25}));
}

TEST(FrameColumn, HeadTailAndValues) {
  Column a = column(std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6});
  EXPECT_EQ(a.head(2).to_values(), (std::vector<Value>{0, 1}));
  EXPECT_EQ(a.tail(2).to_values(), (std::vector<Value>{5, 6}));
  EXPECT_EQ(a.head(-5).to_values(), (std::vector<Value>{0, 1}));
  EXPECT_EQ(a.tail(-5).to_values(), (std::vector<Value>{5, 6}));
  EXPECT_EQ(a.head(100).size(), 7);
  EXPECT_EQ(a.head().size(), 5);
}

TEST(FrameColumn, Printing) {
  EXPECT_EQ(column({1, 2, std::nullopt}).to_string(),
            "0     1\n"
            "1     2\n"
            "2  None\n"
            "dtype: Int64(nullable=True), length: 3, null_count: 1");
  EXPECT_EQ(column({"it's", "a\nb"}).to_string(),
            "0  \"it's\"\n"
            "1  'a\\nb'\n"
            "dtype: string, length: 2, null_count: 0");
  std::vector<double> many;
  for (int i = 0; i < 30; ++i) many.push_back(i * 0.5);
  EXPECT_EQ(column(many).to_string(4),
            "  0   0.0\n"
            "  1   0.5\n"
            "...   ...\n"
            " 28  14.0\n"
            " 29  14.5\n"
            "dtype: float64, length: 30, null_count: 0");
  Column dates = column(std::vector<int32_t>{0, 19358, -1}, dt::date32);
  EXPECT_EQ(dates.to_string(), "0  1970-01-01\n1  2023-01-01\n2  1969-12-31\ndtype: date32, length: 3, null_count: 0");
  Column ts = column(std::vector<int64_t>{1'672'531'200'123'456, -1}, dt::Timestamp(TimeUnit::Micro));
  EXPECT_EQ(ts.to_string(),
            "0  2023-01-01 00:00:00.123456\n1  1969-12-31 23:59:59.999999\ndtype: Timestamp(us), length: 2, null_count: 0");
  Column f = column(std::vector<float>{0.1f, 1e20f, 1e-5f});
  EXPECT_EQ(f.to_string(), "0    0.1\n1  1e+20\n2  1e-05\ndtype: float32, length: 3, null_count: 0");
}

TEST(FrameColumn, ValueBasics) {
  EXPECT_EQ(Value().to_string(), "None");
  EXPECT_EQ(Value(true).to_string(), "True");
  EXPECT_EQ(Value(3).to_string(), "3");
  EXPECT_EQ(Value(2.5).to_string(), "2.5");
  EXPECT_EQ(Value(1.0).to_string(), "1.0");
  EXPECT_EQ(Value(1e16).to_string(), "1e+16");
  EXPECT_EQ(Value(123456789012345.0).to_string(), "123456789012345.0");
  EXPECT_EQ(Value(0.0001).to_string(), "0.0001");
  EXPECT_EQ(Value("x").to_string(), "'x'");
  EXPECT_EQ(Value(Value::List{1, Value(), "a"}).to_string(), "[1, None, 'a']");
  EXPECT_EQ(Value(std::optional<int>()), Value());
  EXPECT_EQ(Value(std::optional<int>(4)), Value(4));
  EXPECT_NE(Value(1), Value(1.0));
  EXPECT_ERROR_WITH(Value("s").as_int(), "Value.as_int: the value is a string ('s')");
  EXPECT_ERROR_WITH(Value(-1).as_uint(), "-1 is negative");
  EXPECT_EQ(column_from_values({Value::List{1}, Value()}, dt::List(dt::int64, true)).to_values(),
            (std::vector<Value>{Value::List{1}, Value()}));
  EXPECT_ERROR_WITH(column_from_values({1, "x"}, dt::int64), "column_from_values: element 1");
}

TEST(FrameColumn, HandMadeArraysAreValidated) {
  // Column's public constructor runs validate(): a short buffer is refused up front.
  auto bad = ArrayData::make(dt::int64, 4, {Buffer(), Buffer::zeros(24)});
  EXPECT_ERROR_WITH(Column{bad}, "the data buffer (buffer 1) has 24 bytes but offset + length needs 32");
  auto good = ArrayData::make(dt::int64, 3, {Buffer(), Buffer::zeros(24)});
  EXPECT_EQ(Column(good).to_values(), (std::vector<Value>{0, 0, 0}));
}

TEST(FrameColumn, BuffersAndBitmaps) {
  BufferBuilder b;
  for (int i = 0; i < 1000; ++i) b.append_value(int32_t(i));
  Buffer buf = b.finish();
  EXPECT_EQ(buf.size(), 4000);
  EXPECT_TRUE(buf.is_aligned(64));
  EXPECT_EQ(buf.data_as<int32_t>()[999], 999);
  // Padding to 64 bytes is zeroed.
  for (int64_t i = 4000; i < 4032; ++i) EXPECT_EQ(buf.data()[i], 0);
  Buffer s = buf.slice(4, 8);
  EXPECT_EQ(s.data_as<int32_t>()[1], 2);
  EXPECT_ERROR_WITH(buf.slice(3990, 20), "outside a buffer of 4000 bytes");
  EXPECT_TRUE(Buffer::zeros(0).defined());
  EXPECT_FALSE(Buffer().defined());

  // A foreign owner runs exactly once, when the last buffer referring to it goes.
  int released = 0;
  {
    static const int64_t data[2] = {5, 6};
    std::shared_ptr<const void> owner(data, [&](const void*) { ++released; });
    Buffer w = Buffer::wrap(data, 16, std::move(owner));
    Column c = Column(ArrayData::make(dt::int64, 2, {Buffer(), w}));
    Column t = c.slice(1, 1);
    c = Column();
    EXPECT_EQ(released, 0);
    EXPECT_EQ(*t.get<int64_t>(0), 6);
  }
  EXPECT_EQ(released, 1);

  uint8_t bm[3] = {0b10110101, 0xff, 0x01};
  EXPECT_EQ(bits::count_set(bm, 0, 8), 5);
  EXPECT_EQ(bits::count_set(bm, 2, 20), 13);
  BitmapBuilder bb;
  bb.append_bits(bm, 1, 17);
  Buffer out = bb.finish();
  for (int i = 0; i < 17; ++i) EXPECT_EQ(bits::get(out.data(), i), bits::get(bm, i + 1)) << i;
}

}  // namespace
}  // namespace ember::frame
