// Columns of every type ember::frame supports (nulls, slices, nesting), shared by the C
// Data Interface tests, the import fuzzer and the pyarrow bridge (pyarrow_bridge.cpp, whose
// Python side, pyarrow_interop.py, spells the same values with pyarrow).
//
// A one-element list of lists is written Value::List{Value(Value::List{...})}: with
// Value::List{Value::List{...}} clang (the fuzz build, fuzz/) copies the inner list instead
// (CWG 2137), where GCC makes a list of one.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "ember/frame/factory.h"

namespace ember::frame::test {

namespace fixture_dt = dtypes;

// One column of each supported type (with nulls, slices and nesting).
inline std::vector<std::pair<std::string, Column>> fixtures() {
  std::vector<std::pair<std::string, Column>> f;
  f.push_back({"bool", column(std::vector<std::optional<bool>>{true, std::nullopt, false, true, true, false, true, false, true})});
  f.push_back({"int8", column(std::vector<std::optional<int8_t>>{-128, 127, std::nullopt})});
  f.push_back({"int16", column(std::vector<int16_t>{-3, 4})});
  f.push_back({"int32", column({1, std::nullopt, 3}, fixture_dt::Int32(true))});
  f.push_back({"int64", column({1, 2, std::nullopt, 4})});
  f.push_back({"uint8", column(std::vector<uint8_t>{0, 255})});
  f.push_back({"uint16", column(std::vector<uint16_t>{65535})});
  f.push_back({"uint32", column(std::vector<std::optional<uint32_t>>{std::nullopt, 4000000000u})});
  f.push_back({"uint64", column(std::vector<uint64_t>{uint64_t(1) << 63, 7})});
  f.push_back({"float32", column(std::vector<float>{0.5f, -1048576.0f})});
  f.push_back({"float64", column({1.5, std::nullopt, -0.25})});
  f.push_back({"string", column({"a", std::nullopt, "", "\xc3\xa9t\xc3\xa9"})});
  f.push_back({"large_string", column(std::vector<std::string>{"xy", "z"}, fixture_dt::large_string)});
  f.push_back({"binary", column_from_values({std::string("\0\1", 2), Value()}, fixture_dt::Binary(true))});
  f.push_back({"large_binary", column_from_values({"q"}, fixture_dt::large_binary)});
  f.push_back({"date32", column({0, 19358, std::nullopt}, fixture_dt::Date32(true))});
  f.push_back({"timestamp", column(std::vector<int64_t>{0, 1'000'000}, fixture_dt::Timestamp(TimeUnit::Micro, "UTC"))});
  f.push_back({"timestamp_s", column(std::vector<int64_t>{-1}, fixture_dt::Timestamp(TimeUnit::Second))});
  f.push_back({"list", column(std::vector<std::optional<std::vector<int64_t>>>{std::vector<int64_t>{1, 2}, std::nullopt,
                                                                               std::vector<int64_t>{}})});
  f.push_back({"large_list", column(std::vector<std::vector<std::string>>{{"a"}, {"b", "c"}}, fixture_dt::LargeList(fixture_dt::string))});
  f.push_back({"list_list", column(std::vector<std::vector<std::vector<int32_t>>>{{{1}, {}}, {{2, 3}}})});
  f.push_back({"struct", struct_column({{"a", column({1, 2, 3})}, {"b", column({"x", std::nullopt, "z"})}})});
  f.push_back({"map", column_from_values({Value::List{Value::List{"k", 1}, Value::List{"l", Value()}}, Value(), Value::List{}},
                                         fixture_dt::Map(fixture_dt::string, fixture_dt::Int64(true), true))});
  f.push_back({"dictionary", column({"red", "green", std::nullopt, "red"}).dictionary_encode()});
  f.push_back({"sliced_int64", column({0, 1, std::nullopt, 3, 4, 5}).slice(2, 3)});
  f.push_back({"sliced_string", column({"aa", "b", std::nullopt, "cccc"}).slice(1, 3)});
  f.push_back({"sliced_struct", struct_column({{"a", column({1, 2, 3, 4})}, {"l", column(std::vector<std::vector<int8_t>>{{1}, {2}, {}, {3, 4}})}}).slice(1, 3)});
  f.push_back({"empty_string", column(std::vector<std::string>{})});
  std::vector<std::optional<bool>> bools;
  for (int i = 0; i < 20; ++i) bools.push_back(i % 7 == 3 ? std::nullopt : std::optional<bool>(i % 3 == 0));
  f.push_back({"sliced_bool", column(bools).slice(3, 13)});
  f.push_back({"sliced_list", column(std::vector<std::optional<std::vector<int64_t>>>{
                                         std::vector<int64_t>{9}, std::vector<int64_t>{1, 2}, std::nullopt,
                                         std::vector<int64_t>{3, 4, 5}})
                                  .slice(1, 3)});
  const DType point = fixture_dt::Struct({{"x", fixture_dt::Int64(true)}, {"tags", fixture_dt::List(fixture_dt::string)}}, true);
  f.push_back({"nested", column_from_values({Value::List{Value::List{1, Value::List{"a", "b"}}, Value()},
                                             Value::List{},
                                             Value::List{Value(Value::List{Value(), Value::List{}})}},
                                            fixture_dt::List(point))});
  f.push_back({"map_of_lists", column_from_values({Value::List{Value(Value::List{"a", Value::List{1.5}})}, Value::List{}},
                                                  fixture_dt::Map(fixture_dt::string, fixture_dt::List(fixture_dt::float64)))});
  f.push_back({"timestamp_ns_tz", column({1, std::nullopt}, fixture_dt::Timestamp(TimeUnit::Nano, "Asia/Tokyo", true))});
  f.push_back({"sliced_dictionary", column({"a", "b", std::nullopt, "a", "c"}).dictionary_encode().slice(1, 4)});
  return f;
}

}  // namespace ember::frame::test
