// ember::frame types: TorchArrow's spelling, Arrow format strings, equality, parameters.
#include "ember/frame/frame.h"
#include "test_util.h"

namespace ember::frame {
namespace {

namespace dt = dtypes;

TEST(FrameDType, TorchArrowNames) {
  EXPECT_EQ(dt::int64.to_string(), "int64");
  EXPECT_EQ(dt::Int64(true).to_string(), "Int64(nullable=True)");
  EXPECT_EQ(dt::boolean.to_string(), "boolean");
  EXPECT_EQ(dt::Boolean(true).to_string(), "Boolean(nullable=True)");
  EXPECT_EQ(dt::UInt16(true).to_string(), "UInt16(nullable=True)");
  EXPECT_EQ(dt::string.to_string(), "string");
  EXPECT_EQ(dt::String(true).to_string(), "String(nullable=True)");
  EXPECT_EQ(dt::large_binary.to_string(), "large_binary");
  EXPECT_EQ(dt::date32.to_string(), "date32");
  EXPECT_EQ(dt::List(dt::string).to_string(), "List(string)");
  EXPECT_EQ(dt::List(dt::Int64(true), true).to_string(), "List(Int64(nullable=True), nullable=True)");
  EXPECT_EQ(dt::LargeList(dt::float32).to_string(), "LargeList(float32)");
  EXPECT_EQ(dt::Struct({{"a", dt::int64}}).to_string(), "Struct([Field('a', int64)])");
  EXPECT_EQ(dt::Struct({{"a", dt::int64}, {"b", dt::String(true)}}, true).to_string(),
            "Struct([Field('a', int64), Field('b', String(nullable=True))], nullable=True)");
  EXPECT_EQ(dt::Map(dt::string, dt::float64).to_string(), "Map(string, float64)");
  EXPECT_EQ(dt::Dictionary(dt::int32, dt::string).to_string(), "Dictionary(int32, string)");
  EXPECT_EQ(dt::Timestamp(TimeUnit::Micro).to_string(), "Timestamp(us)");
  EXPECT_EQ(dt::Timestamp(TimeUnit::Nano, "UTC", true).to_string(), "Timestamp(ns, 'UTC', nullable=True)");
  std::ostringstream os;
  os << dt::List(dt::int8);
  EXPECT_EQ(os.str(), "List(int8)");
}

TEST(FrameDType, ArrowFormats) {
  // The C Data Interface's format strings, from the specification's table.
  const std::pair<DType, const char*> cases[] = {
      {dt::boolean, "b"},   {dt::int8, "c"},    {dt::uint8, "C"},         {dt::int16, "s"},
      {dt::uint16, "S"},    {dt::int32, "i"},   {dt::uint32, "I"},        {dt::int64, "l"},
      {dt::uint64, "L"},    {dt::float32, "f"}, {dt::float64, "g"},       {dt::string, "u"},
      {dt::large_string, "U"}, {dt::binary, "z"}, {dt::large_binary, "Z"}, {dt::date32, "tdD"},
      {dt::Timestamp(TimeUnit::Second), "tss:"}, {dt::Timestamp(TimeUnit::Milli, "Europe/Paris"), "tsm:Europe/Paris"},
      {dt::Timestamp(TimeUnit::Micro, "UTC"), "tsu:UTC"}, {dt::Timestamp(TimeUnit::Nano), "tsn:"},
      {dt::List(dt::int64), "+l"}, {dt::LargeList(dt::int64), "+L"}, {dt::Struct({}), "+s"},
      {dt::Map(dt::string, dt::int64), "+m"}, {dt::Dictionary(dt::int16, dt::string), "s"},
  };
  for (const auto& [t, f] : cases) EXPECT_EQ(t.arrow_format(), f) << t.to_string();
}

TEST(FrameDType, EqualityAndParameters) {
  EXPECT_EQ(dt::int64, DType(TypeId::Int64));
  EXPECT_NE(dt::int64, dt::Int64(true));
  EXPECT_TRUE(dt::int64.equals(dt::Int64(true), /*check_nullable=*/false));
  EXPECT_EQ(dt::List(dt::int64), dt::List(dt::int64));
  EXPECT_NE(dt::List(dt::int64), dt::List(dt::Int64(true)));
  EXPECT_NE(dt::List(dt::int64), dt::LargeList(dt::int64));
  EXPECT_NE(dt::Struct({{"a", dt::int64}}), dt::Struct({{"b", dt::int64}}));
  EXPECT_NE(dt::Timestamp(TimeUnit::Micro), dt::Timestamp(TimeUnit::Micro, "UTC"));
  EXPECT_NE(dt::Timestamp(TimeUnit::Micro), dt::Timestamp(TimeUnit::Milli));
  EXPECT_NE(dt::Map(dt::string, dt::int64), dt::Map(dt::string, dt::int64, false, true));

  const DType s = dt::Struct({{"x", dt::float32}, {"y", dt::List(dt::string)}});
  EXPECT_EQ(s.fields().size(), 2u);
  EXPECT_EQ(s.field_index("y"), 1);
  EXPECT_EQ(s.field_index("z"), -1);
  EXPECT_EQ(s.fields()[1].dtype.value_type(), dt::string);
  const DType m = dt::Map(dt::string, dt::Int32(true));
  EXPECT_EQ(m.key_type(), dt::string);
  EXPECT_EQ(m.value_type(), dt::Int32(true));
  EXPECT_EQ(m.map_entries_type(), dt::Struct({{"key", dt::string}, {"value", dt::Int32(true)}}));
  const DType d = dt::Dictionary(dt::int8, dt::string, true, true);
  EXPECT_EQ(d.index_type(), dt::int8);
  EXPECT_TRUE(d.ordered());
  EXPECT_TRUE(d.nullable());
  EXPECT_EQ(dt::Timestamp(TimeUnit::Milli, "UTC").timezone(), "UTC");
  EXPECT_EQ(dt::Int64(true).with_nullable(false), dt::int64);

  EXPECT_EQ(dt::boolean.bit_width(), 1);
  EXPECT_EQ(dt::uint16.byte_width(), 2);
  EXPECT_EQ(dt::Timestamp(TimeUnit::Nano).byte_width(), 8);
  EXPECT_EQ(dt::string.bit_width(), 0);
  EXPECT_EQ(dt::string.num_buffers(), 3);
  EXPECT_EQ(dt::Struct({}).num_buffers(), 1);
  EXPECT_EQ(dt::List(dt::int8).num_buffers(), 2);
}

TEST(FrameDType, Errors) {
  EXPECT_ERROR_WITH(dt::int64.value_type(), "not a list, map or dictionary type");
  EXPECT_ERROR_WITH(dt::string.fields(), "is not a struct type");
  EXPECT_ERROR_WITH(dt::Map(dt::String(true), dt::int64), "map keys cannot be null");
  EXPECT_ERROR_WITH(dt::Dictionary(dt::float32, dt::string), "index type must be an integer type");
  EXPECT_ERROR_WITH(dt::int64.unit(), "not a timestamp type");
  EXPECT_ERROR_WITH(DType(TypeId::List), "has parameters; make it with dtypes::List");
}

}  // namespace
}  // namespace ember::frame
