// ArrayData::validate on hand-made corrupt arrays: every invariant a reader relies on is
// checked, with an error that names the array path and what is wrong.
#include <cstring>

#include "ember/frame/frame.h"
#include "test_util.h"

namespace ember::frame {
namespace {

namespace dt = dtypes;

template <class T>
Buffer buf(std::vector<T> v) {
  return Buffer::copy_of(v.data(), int64_t(v.size() * sizeof(T)));
}
Buffer bytes(std::string_view s) { return Buffer::copy_of(s.data(), int64_t(s.size())); }

ArrayDataPtr string_array(std::vector<int32_t> offsets, std::string_view data, int64_t length, DType t = dt::string) {
  return ArrayData::make(t, length, {Buffer(), buf(std::move(offsets)), bytes(data)});
}

TEST(FrameValidate, AcceptsWellFormedArrays) {
  EXPECT_NO_THROW(string_array({0, 1, 3}, "abc", 2)->validate({true}));
  // Offsets need not start at 0; slots past offset + length are not read.
  EXPECT_NO_THROW(string_array({2, 3, 5, -7}, "abcde", 2)->validate());
  auto sliced = ArrayData::make(dt::string, 1, {Buffer(), buf<int32_t>({9, 0, 2}), bytes("ab")}, {}, -1, 1);
  EXPECT_NO_THROW(sliced->validate());
  // An empty array may omit its offsets.
  EXPECT_NO_THROW(ArrayData::make(dt::string, 0, {Buffer(), Buffer(), Buffer()})->validate());
}

TEST(FrameValidate, BadOffsets) {
  EXPECT_ERROR_WITH(string_array({0, 3, 2, 4}, "abcd", 3)->validate(),
                    "validate: array (string, length 3, offset 0): offsets decrease at element 1 (3 then 2)");
  EXPECT_ERROR_WITH(string_array({0, 2, 9}, "abcd", 2)->validate(),
                    "the last offset 9 is past the end of the data buffer (4)");
  EXPECT_ERROR_WITH(string_array({-1, 2}, "abcd", 1)->validate(), "offset 0 is negative (-1)");
  EXPECT_ERROR_WITH(string_array({0, 1}, "abcd", 3)->validate(),
                    "the offsets buffer (buffer 1) has 8 bytes but offset + length needs 16");
  auto large = ArrayData::make(dt::large_binary, 2, {Buffer(), buf<int64_t>({0, 5, 4}), bytes("abcde")});
  EXPECT_ERROR_WITH(large->validate(), "offsets decrease at element 1 (5 then 4)");
  // Offsets of a list index its child: they may not pass the child's length.
  auto child = ArrayData::make(dt::int64, 4, {Buffer(), buf<int64_t>({1, 2, 3, 4})});
  auto list = ArrayData::make(dt::List(dt::int64), 2, {Buffer(), buf<int32_t>({0, 2, 5})}, {child});
  EXPECT_ERROR_WITH(list->validate(), "validate: array (List(int64), length 2, offset 0): the last offset 5 is past "
                                      "the end of the child array (4)");
  // An offset before the slice start is fine only when it is not read.
  auto list2 = ArrayData::make(dt::List(dt::int64), 1, {Buffer(), buf<int32_t>({0, 3, 1})}, {child}, -1, 1);
  EXPECT_ERROR_WITH(list2->validate(), "offsets decrease at element 0 (3 then 1)");
}

TEST(FrameValidate, ShortBuffers) {
  auto v = ArrayData::make(dt::Int8(true), 20, {buf<uint8_t>({0xff}), Buffer::zeros(20)});
  EXPECT_ERROR_WITH(v->validate(), "the validity buffer (buffer 0) has 1 bytes but offset + length needs 3");
  auto d = ArrayData::make(dt::int32, 2, {Buffer(), Buffer::zeros(16)}, {}, -1, 3);
  EXPECT_ERROR_WITH(d->validate(), "(int32, length 2, offset 3): the data buffer (buffer 1) has 16 bytes but offset + "
                                   "length needs 20");
  auto b = ArrayData::make(dt::boolean, 17, {Buffer(), Buffer::zeros(2)});
  EXPECT_ERROR_WITH(b->validate(), "the data buffer (buffer 1) has 2 bytes but offset + length needs 3");
  auto missing = ArrayData::make(dt::float64, 1, {Buffer(), Buffer()});
  EXPECT_ERROR_WITH(missing->validate(), "the data buffer (buffer 1) is missing");
  auto dict = ArrayData::make(dt::Dictionary(dt::int16, dt::string), 3, {Buffer(), Buffer::zeros(4)}, {}, -1, 0,
                              string_array({0, 1}, "a", 1));
  EXPECT_ERROR_WITH(dict->validate(), "the indices buffer (buffer 1) has 4 bytes but offset + length needs 6");
}

TEST(FrameValidate, StructuralMismatches) {
  EXPECT_ERROR_WITH(ArrayData::make(dt::int64, 1, {Buffer(), Buffer::zeros(8), Buffer()})->validate(),
                    "has 3 buffers; the type's layout has 2");
  auto child32 = ArrayData::make(dt::int32, 1, {Buffer(), Buffer::zeros(4)});
  EXPECT_ERROR_WITH(ArrayData::make(dt::List(dt::int64), 1, {Buffer(), buf<int32_t>({0, 1})}, {child32})->validate(),
                    "child 0 has type int32; the parent's type says int64");
  EXPECT_ERROR_WITH(ArrayData::make(dt::List(dt::int64), 1, {Buffer(), buf<int32_t>({0, 1})})->validate(),
                    "has 0 children; the type has 1");
  EXPECT_ERROR_WITH(ArrayData::make(dt::int64, -1, {Buffer(), Buffer()})->validate(), "negative length");
  EXPECT_ERROR_WITH(ArrayData::make(dt::int64, 1, {Buffer(), Buffer::zeros(8)}, {}, -1, -2)->validate(),
                    "negative offset");
  EXPECT_ERROR_WITH(ArrayData::make(dt::int64, int64_t(1) << 62, {Buffer(), Buffer()})->validate(),
                    "beyond the supported maximum");
  // A struct's children must cover offset + length.
  auto a = ArrayData::make(dt::int64, 3, {Buffer(), Buffer::zeros(24)});
  auto s = ArrayData::make(dt::Struct({{"a", dt::int64}}), 3, {Buffer()}, {a}, -1, 1);
  EXPECT_ERROR_WITH(s->validate(), "field 'a' has length 3; offset + length needs 4");
  // Dictionaries.
  auto idx = Buffer::zeros(4);
  EXPECT_ERROR_WITH(ArrayData::make(dt::Dictionary(dt::int32, dt::string), 1, {Buffer(), idx})->validate(),
                    "the dictionary is missing");
  EXPECT_ERROR_WITH(ArrayData::make(dt::Dictionary(dt::int32, dt::string), 1, {Buffer(), idx}, {}, -1, 0, a)->validate(),
                    "the dictionary has type int64; the type says string");
  // Misaligned buffers would make typed reads undefined.
  static const int32_t raw[3] = {1, 2, 3};
  Buffer odd = Buffer::wrap(reinterpret_cast<const uint8_t*>(raw) + 1, 8, nullptr);
  EXPECT_ERROR_WITH(ArrayData::make(dt::int32, 2, {Buffer(), odd})->validate(), "is not aligned to 4 bytes");
}

TEST(FrameValidate, DictionaryIndicesInRange) {
  auto dict = string_array({0, 1, 2}, "ab", 2);
  auto make = [&](std::vector<int32_t> ix, Buffer validity = Buffer()) {
    return ArrayData::make(dt::Dictionary(dt::int32, dt::string, true), int64_t(ix.size()),
                           {std::move(validity), buf(ix)}, {}, -1, 0, dict);
  };
  EXPECT_NO_THROW(make({0, 1, 1})->validate());
  EXPECT_ERROR_WITH(make({0, 2})->validate(), "dictionary index 2 at element 1 is outside the dictionary of length 2");
  EXPECT_ERROR_WITH(make({-1})->validate(), "dictionary index -1 at element 0");
  // Null slots may hold anything.
  EXPECT_NO_THROW(make({0, 99}, buf<uint8_t>({0b01}))->validate());
  auto u8 = ArrayData::make(dt::Dictionary(dt::uint8, dt::string), 1, {Buffer(), buf<uint8_t>({200})}, {}, -1, 0, dict);
  EXPECT_ERROR_WITH(u8->validate(), "dictionary index 200 at element 0");
}

TEST(FrameValidate, Utf8OnRequest) {
  auto s = string_array({0, 1, 2, 4}, "a\xff\xc3\xa9", 3);
  EXPECT_NO_THROW(s->validate());
  EXPECT_ERROR_WITH(s->validate({true}), "element 1 is not valid UTF-8 (byte 0 of 1)");
  // Binary columns and null slots are not checked.
  EXPECT_NO_THROW(string_array({0, 1, 2, 4}, "a\xff\xc3\xa9", 3, dt::binary)->validate({true}));
  auto with_null = ArrayData::make(dt::String(true), 3, {buf<uint8_t>({0b101}), buf<int32_t>({0, 1, 2, 4}),
                                                        bytes("a\xff\xc3\xa9")});
  EXPECT_NO_THROW(with_null->validate({true}));
  // A truncated sequence at the end of an element is caught even when the next bytes complete it.
  EXPECT_ERROR_WITH(string_array({0, 1, 2}, "\xc3\xa9", 2)->validate({true}), "element 0 is not valid UTF-8");
}

TEST(FrameValidate, NullCounts) {
  auto v = [](int64_t declared, DType t = dt::Int8(true)) {
    return ArrayData::make(t, 3, {buf<uint8_t>({0b101}), Buffer::zeros(3)}, {}, declared);
  };
  EXPECT_NO_THROW(v(1)->validate());
  EXPECT_NO_THROW(v(-1)->validate());
  EXPECT_ERROR_WITH(v(2)->validate(), "null_count is 2 but the validity bitmap has 1 nulls");
  EXPECT_ERROR_WITH(v(0)->validate(), "null_count is 0 but the validity bitmap has 1 nulls");
  EXPECT_ERROR_WITH(v(-1, dt::int8)->validate(), "the type is not nullable but the array has 1 nulls");
  auto no_bitmap = ArrayData::make(dt::Int8(true), 3, {Buffer(), Buffer::zeros(3)}, {}, 2);
  EXPECT_ERROR_WITH(no_bitmap->validate(), "null_count is 2 but the validity bitmap has 0 nulls");
}

TEST(FrameValidate, ErrorsNameTheNestedPath) {
  // struct<b: list<string>> whose innermost strings have bad offsets.
  auto bad_strings = string_array({0, 5}, "abc", 1);
  auto list = ArrayData::make(dt::List(dt::string), 1, {Buffer(), buf<int32_t>({0, 1})}, {bad_strings});
  auto s = ArrayData::make(dt::Struct({{"b", dt::List(dt::string)}}), 1, {Buffer()}, {list});
  EXPECT_ERROR_WITH(s->validate(), "validate: array.b.item (string, length 1, offset 0): the last offset 5 is past");
  // Map keys may never be null: the key child is non-nullable.
  auto keys = ArrayData::make(dt::String(false), 2, {buf<uint8_t>({0b01}), buf<int32_t>({0, 1, 1}), bytes("k")});
  auto vals = ArrayData::make(dt::int64, 2, {Buffer(), Buffer::zeros(16)});
  auto entries = ArrayData::make(dt::Struct({{"key", dt::string}, {"value", dt::int64}}), 2, {Buffer()}, {keys, vals});
  auto m = ArrayData::make(dt::Map(dt::string, dt::int64), 1, {Buffer(), buf<int32_t>({0, 2})}, {entries});
  EXPECT_ERROR_WITH(m->validate(), "array.entries.key (string, length 2, offset 0): the type is not nullable but the "
                                   "array has 1 nulls");
}

}  // namespace
}  // namespace ember::frame
