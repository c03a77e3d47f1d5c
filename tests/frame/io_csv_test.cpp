// read_csv and write_csv within C++: Python's csv dialect (quotes, escapes, line ends),
// type inference and given types, nulls, header options, chunked parallel parsing (cuts in
// quoted fields, kinds that change between chunks), the errors of malformed input, and
// write_csv's quoting and round trips. Comparisons with pandas are in io_csv_pandas_test.cpp.
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "ember/frame/frame.h"
#include "ember/frame/io/csv.h"
#include "ember/frame/io/csv_values.h"
#include "test_util.h"

namespace ember::frame {
namespace {

namespace dt = dtypes;
namespace fs = std::filesystem;

DataFrame csv(std::string_view text, CsvReadOptions o = {}) { return read_csv_string(text, o); }

std::vector<Value> values(const DataFrame& df, const std::string& col) { return df[col].to_values(); }

// ---- value parsers ----------------------------------------------------------------------

TEST(FrameIoCsvValues, Numbers) {
  using namespace io::detail;
  int64_t i;
  bool neg;
  EXPECT_EQ(parse_int64(" +42 ", 5, &i), IntParse::Ok);
  EXPECT_EQ(i, 42);
  EXPECT_EQ(parse_int64("-9223372036854775808", 20, &i), IntParse::Ok);
  EXPECT_EQ(i, INT64_MIN);
  EXPECT_EQ(parse_int64("9223372036854775808", 19, &i, &neg), IntParse::Overflow);
  EXPECT_FALSE(neg);
  EXPECT_EQ(parse_int64("-99999999999999999999", 21, &i, &neg), IntParse::Overflow);
  EXPECT_TRUE(neg);
  EXPECT_EQ(parse_int64("1.0", 3, &i), IntParse::NotInt);
  EXPECT_EQ(parse_int64("-", 1, &i), IntParse::NotInt);
  EXPECT_EQ(parse_int64("", 0, &i), IntParse::NotInt);
  uint64_t u;
  EXPECT_TRUE(parse_uint64("18446744073709551615", 20, &u));
  EXPECT_EQ(u, UINT64_MAX);
  EXPECT_FALSE(parse_uint64("18446744073709551616", 20, &u));
  EXPECT_FALSE(parse_uint64("-1", 2, &u));
  double d;
  for (const char* s : {"1e5", ".5", "5.", "-0.0", "+2.5", "inf", "-Infinity", " 3.25 "}) {
    EXPECT_TRUE(parse_double(s, std::strlen(s), &d)) << s;
    EXPECT_EQ(d, std::strtod(s, nullptr)) << s;
  }
  EXPECT_TRUE(parse_double("1e400", 5, &d));
  EXPECT_EQ(d, INFINITY);
  EXPECT_TRUE(parse_double("0.1", 3, &d));
  EXPECT_EQ(d, 0.1);
  for (const char* s : {"1.5e", "0x10", "1d5", "1,5", "+-1", "--1", "", "e5"}) EXPECT_FALSE(parse_double(s, std::strlen(s), &d)) << s;
}

TEST(FrameIoCsvValues, DatesAndTimestamps) {
  using namespace io::detail;
  int32_t days;
  EXPECT_TRUE(parse_date32("1970-01-01", 10, &days));
  EXPECT_EQ(days, 0);
  EXPECT_TRUE(parse_date32("2024-02-29", 10, &days));
  EXPECT_EQ(days, 19782);
  EXPECT_TRUE(parse_date32("1969-12-31", 10, &days));
  EXPECT_EQ(days, -1);
  EXPECT_FALSE(parse_date32("2023-02-29", 10, &days));
  EXPECT_FALSE(parse_date32("2023-13-01", 10, &days));
  EXPECT_FALSE(parse_date32("2023-1-01", 9, &days));
  TimestampValue t;
  ASSERT_TRUE(parse_timestamp("2020-01-01T10:00:00.5", 21, &t));
  EXPECT_EQ(t.seconds, 1577872800);
  EXPECT_EQ(t.nanos, 500000000);
  EXPECT_EQ(timestamp_unit_for(t), 1);
  ASSERT_TRUE(parse_timestamp("2020-01-01 10:00+01:30", 22, &t));
  EXPECT_EQ(t.seconds, 1577872800 - 5400);
  EXPECT_TRUE(t.has_offset);
  ASSERT_TRUE(parse_timestamp("1970-01-01 00:00:00.123456789Z", 30, &t));
  EXPECT_EQ(timestamp_unit_for(t), 3);
  int64_t v;
  EXPECT_TRUE(timestamp_in_unit(t, 3, &v));
  EXPECT_EQ(v, 123456789);
  EXPECT_FALSE(timestamp_in_unit(t, 2, &v));  // microseconds cannot hold it
  EXPECT_FALSE(parse_timestamp("2020-01-01 25:00", 16, &t));
  EXPECT_FALSE(parse_timestamp("2020-01-01 10:00:00.", 20, &t));
  EXPECT_FALSE(parse_timestamp("2020-01-01x10:00", 16, &t));
}

// ---- dialect ----------------------------------------------------------------------------

TEST(FrameIoCsv, QuotingAndLineEnds) {
  CsvReadOptions raw;
  raw.null_values = {};
  raw.dtypes = {{"a", dt::string}, {"b", dt::string}};
  const DataFrame df = csv("a,b\r\n\"x,y\",\"he said \"\"hi\"\"\"\r\n\"multi\nline\",\"\"\rplain,\"q\"tail\n", raw);
  EXPECT_EQ(values(df, "a"), (std::vector<Value>{"x,y", "multi\nline", "plain"}));
  EXPECT_EQ(values(df, "b"), (std::vector<Value>{"he said \"hi\"", "", "qtail"}));
  // No line end at the end; an empty last field.
  EXPECT_EQ(values(csv("a,b\n1,", raw), "b"), (std::vector<Value>{""}));
  // Blank lines are skipped (pandas' skip_blank_lines), a UTF-8 BOM dropped.
  const DataFrame blank = csv("\xEF\xBB\xBFx\n\n1\n\r\n2\n\n");
  EXPECT_EQ(blank.columns(), (std::vector<std::string>{"x"}));
  EXPECT_EQ(values(blank, "x"), (std::vector<Value>{1, 2}));
}

TEST(FrameIoCsv, PythonDialectOptions) {
  CsvReadOptions o;
  o.delimiter = ';';
  o.escapechar = '\\';
  o.quotechar = '\'';
  o.skipinitialspace = true;
  o.null_values = {};
  const DataFrame df = csv("a; b\n'x;y'; 'it''s'\nz\\;w;   v\\\nw\n", o);
  EXPECT_EQ(df.columns(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(values(df, "a"), (std::vector<Value>{"x;y", "z;w"}));
  EXPECT_EQ(values(df, "b"), (std::vector<Value>{"it's", "v\nw"}));
  // No quoting: quote characters are data.
  CsvReadOptions nq;
  nq.quotechar = '\0';
  EXPECT_EQ(values(csv("a\n\"x\"\n", nq), "a"), (std::vector<Value>{"\"x\""}));
  // doublequote off: a quote ends the quoted part and the rest is data, as in Python.
  CsvReadOptions ndq;
  ndq.doublequote = false;
  ndq.escapechar = '\\';
  EXPECT_EQ(values(csv("a\n\"x\\\"y\"z\n", ndq), "a"), (std::vector<Value>{"x\"yz"}));
  // Tabs.
  EXPECT_EQ(values(csv("a\tb\n1\t2\n", CsvReadOptions().with_delimiter('\t')), "b"), (std::vector<Value>{2}));
}

// ---- types ------------------------------------------------------------------------------

TEST(FrameIoCsv, InfersTypesLikePandas) {
  const DataFrame df = csv(
      "i,f,mix,big,neg,b,s,d,t,tz,n\n"
      "1,1.5,1,18446744073709551615,-1,True,x,2020-01-01,2020-01-01 10:00:00,2020-01-01T10:00:00Z,\n"
      "2,-2,2.5,1,9223372036854775808,false,NA,2021-12-31,2020-01-01 10:00:00.25,2020-01-01 11:00+01:00,NA\n"
      " 3 ,inf,,0,2,,y,,2020-01-02,2020-01-01T10:00:00.123456Z,\n");
  EXPECT_EQ(df.dtypes(), (std::vector<DType>{dt::int64, dt::float64, dt::Float64(true), dt::uint64, dt::float64,
                                             dt::Boolean(true), dt::String(true), dt::Date32(true),
                                             dt::Timestamp(TimeUnit::Milli), dt::Timestamp(TimeUnit::Micro, "UTC"),
                                             dt::String(true)}));
  EXPECT_EQ(values(df, "i"), (std::vector<Value>{1, 2, 3}));
  EXPECT_EQ(values(df, "f"), (std::vector<Value>{1.5, -2.0, INFINITY}));
  EXPECT_EQ(values(df, "mix"), (std::vector<Value>{1.0, 2.5, Value()}));
  EXPECT_EQ(values(df, "big"), (std::vector<Value>{UINT64_MAX, 1, 0}));
  EXPECT_EQ(values(df, "neg"), (std::vector<Value>{-1.0, 9223372036854775808.0, 2.0}));
  EXPECT_EQ(values(df, "b"), (std::vector<Value>{true, false, Value()}));
  EXPECT_EQ(values(df, "s"), (std::vector<Value>{"x", Value(), "y"}));
  EXPECT_EQ(values(df, "d"), (std::vector<Value>{18262, 18992, Value()}));
  EXPECT_EQ(values(df, "t"), (std::vector<Value>{int64_t(1577872800000), int64_t(1577872800250), int64_t(1577923200000)}));
  EXPECT_EQ(values(df, "tz"), (std::vector<Value>{int64_t(1577872800000000), int64_t(1577872800000000),
                                                  int64_t(1577872800123456)}));
  EXPECT_EQ(values(df, "n"), (std::vector<Value>(3, Value())));  // only nulls: a nullable string column
  // Mixtures that only strings hold; dates with naive timestamps are timestamps.
  const DataFrame s = csv("a,b,c,d\nTrue,1,2020-01-01,2020-01-01T00:00Z\n1,x,2020-01-01 10:00,2020-01-01T00:00\n");
  for (const auto& c : {"a", "b", "d"}) EXPECT_EQ(s[c].dtype(), dt::string) << c;
  EXPECT_EQ(values(s, "d"), (std::vector<Value>{"2020-01-01T00:00Z", "2020-01-01T00:00"}));
  EXPECT_EQ(s["c"].dtype(), dt::Timestamp(TimeUnit::Second));
  EXPECT_EQ(values(s, "c"), (std::vector<Value>{int64_t(1577836800), int64_t(1577872800)}));
  // infer_dates off: dates stay strings.
  CsvReadOptions nd;
  nd.infer_dates = false;
  EXPECT_EQ(csv("d\n2020-01-01\n", nd)["d"].dtype(), dt::string);
}

TEST(FrameIoCsv, NullValuesAndQuotedNulls) {
  EXPECT_EQ(values(csv("a\nx\nNA\nnull\n\"\"\nn/a\n"), "a"), (std::vector<Value>{"x", Value(), Value(), Value(), Value()}));
  CsvReadOptions o;
  o.null_values = {"-", "missing"};
  const DataFrame df = csv("a,b\n-,1\nmissing,\n3,2\n", o);
  EXPECT_EQ(values(df, "a"), (std::vector<Value>{Value(), Value(), 3}));
  EXPECT_EQ(df["b"].dtype(), dt::string);  // "" is not a null value here
  EXPECT_EQ(values(df, "b"), (std::vector<Value>{"1", "", "2"}));
  CsvReadOptions q;
  q.quoted_nulls = false;
  EXPECT_EQ(values(csv("a\n\"NA\"\nNA\n\"\"\n", q), "a"), (std::vector<Value>{"NA", Value(), ""}));
  // A numeric null value turns the fast paths off but still applies.
  CsvReadOptions num;
  num.null_values = {"-999", "nan"};
  EXPECT_EQ(values(csv("a,b\n1,0.5\n-999,-999\n", num), "a"), (std::vector<Value>{1, Value()}));
  EXPECT_EQ(values(csv("a,b\n1,0.5\n-999,-999\n", num), "b"), (std::vector<Value>{0.5, Value()}));
  // NaN spelled as a null value is null; with no null values it is a float NaN.
  EXPECT_EQ(values(csv("a\n1.5\nNaN\n"), "a"), (std::vector<Value>{1.5, Value()}));
  CsvReadOptions none;
  none.null_values = {};
  const Column nan = csv("a\n1.5\nNaN\n", none)["a"];
  EXPECT_EQ(nan.dtype(), dt::float64);
  EXPECT_TRUE(std::isnan(*nan.get<double>(1)));
}

TEST(FrameIoCsv, GivenTypes) {
  CsvReadOptions o;
  o.dtypes = {{"i8", dt::Int8(true)},   {"u16", dt::uint16}, {"f32", dt::float32},
              {"s", dt::large_string},  {"bin", dt::binary}, {"d", dt::date32},
              {"t", dt::Timestamp(TimeUnit::Micro, "UTC")}, {"c", dt::Dictionary(dt::int32, dt::string, true)},
              {"i", dt::string},        {"b", dt::boolean}};
  const DataFrame df = csv(
      "i8,u16,f32,s,bin,d,t,c,i,b\n"
      "-128,65535,0.1,x,\xff\xfe,2020-01-01,2020-01-01 00:00:00+02:00,lo,007,TRUE\n"
      ",0,-1e3,,ab,1970-01-01,1970-01-01,hi,1,false\n"
      "127,1,2,z,,2000-02-29,1970-01-01T00:00:00.000001Z,,x,True\n",
      o);
  for (const auto& [name, type] : o.dtypes) EXPECT_EQ(df[name].dtype(), type) << name;
  EXPECT_EQ(values(df, "i8"), (std::vector<Value>{-128, Value(), 127}));
  EXPECT_EQ(values(df, "u16"), (std::vector<Value>{65535, 0, 1}));
  EXPECT_EQ(values(df, "f32"), (std::vector<Value>{0.1f, -1000.0f, 2.0f}));
  EXPECT_EQ(values(df, "s"), (std::vector<Value>{"x", "", "z"}));  // a non-nullable string: "" stays ""
  EXPECT_EQ(values(df, "bin"), (std::vector<Value>{std::string("\xff\xfe"), "ab", ""}));
  EXPECT_EQ(values(df, "t"), (std::vector<Value>{int64_t(1577829600000000), 0, 1}));
  EXPECT_EQ(values(df, "c"), (std::vector<Value>{"lo", "hi", Value()}));
  EXPECT_EQ(values(df, "i"), (std::vector<Value>{"007", "1", "x"}));
  EXPECT_EQ(values(df, "b"), (std::vector<Value>{true, false, true}));
}

// A header and no rows, for every given type: empty columns of those types (a Boolean column's
// null buffers had reached memcpy, which UBSan aborts on).
TEST(FrameIoCsv, HeaderOnlyGivesEmptyColumnsOfTheGivenTypes) {
  for (const DType& type : {dt::boolean, dt::Boolean(true), dt::int64, dt::float64, dt::string, dt::date32,
                            dt::Dictionary(dt::int32, dt::string, true)}) {
    CsvReadOptions o;
    o.dtypes = {{"b", type}};
    for (const char* text : {"id,b\n", "id,b", "id,b\r\n"}) {
      const DataFrame df = read_csv_string(text, o);
      ASSERT_EQ(df.num_columns(), 2) << text;
      EXPECT_EQ(df.num_rows(), 0) << text;
      EXPECT_EQ(df["b"].dtype(), type) << text;
      EXPECT_EQ(df["b"].length(), 0);
    }
  }
}

TEST(FrameIoCsv, HeaderOptions) {
  CsvReadOptions none;
  none.header = false;
  const DataFrame a = csv("1,x\n2,y\n", none);
  EXPECT_EQ(a.columns(), (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(a.num_rows(), 2);
  none.column_names = {"n", "s"};
  EXPECT_EQ(values(csv("1,x\n2,y\n", none), "s"), (std::vector<Value>{"x", "y"}));
  CsvReadOptions rename;
  rename.column_names = {"p", "q"};
  EXPECT_EQ(csv("a,b\n1,2\n", rename).columns(), (std::vector<std::string>{"p", "q"}));
  CsvReadOptions skip;
  skip.skip_rows = 2;
  EXPECT_EQ(values(csv("# comment\n# another, with a comma\nv\n5\n", skip), "v"), (std::vector<Value>{5}));
  // pandas' names for repeated and empty header fields.
  EXPECT_EQ(csv("a,a,,a.1,a\n1,2,3,4,5\n").columns(), (std::vector<std::string>{"a", "a.1", "Unnamed: 2", "a.1.1", "a.2"}));
  // A header alone gives empty columns.
  const DataFrame h = csv("x,y\n");
  EXPECT_EQ(h.num_rows(), 0);
  EXPECT_EQ(h.columns(), (std::vector<std::string>{"x", "y"}));
}

// ---- errors -----------------------------------------------------------------------------

TEST(FrameIoCsv, MalformedInputErrors) {
  CsvReadOptions named;
  named.name = "data.csv";
  EXPECT_ERROR_WITH(csv("a,b\n1,2\n3,4,5\n", named), "read_csv: 'data.csv' row 1 (line 3): expected 2 fields (as the header has), got 3");
  EXPECT_ERROR_WITH(csv("a,b\n1,2\n\n3\n", named), "row 1 (line 4): expected 2 fields (as the header has), got 1");
  EXPECT_ERROR_WITH(csv("a,b\n1,\"open\n2,3\n", named), "row 0 (line 2): a quoted field is not closed before the end of the data");
  CsvReadOptions strict = named;
  strict.strict = true;
  EXPECT_ERROR_WITH(csv("a\n\"x\"y\n", strict), "'y' after the closing quote");
  CsvReadOptions typed = named;
  typed.dtypes = {{"b", dt::int32}};
  EXPECT_ERROR_WITH(csv("a,b\n1,2\nx,3\ny,z\n", typed), "row 2 (line 4), column 'b': expected int32, got 'z'");
  EXPECT_ERROR_WITH(csv("a,b\n1,3000000000\n", typed), "expected int32 (the value is out of its range), got '3000000000'");
  EXPECT_ERROR_WITH(csv("a,b\n1,\n", typed), "column 'b': a null (an empty field or a null value) in a column of the non-nullable type int32");
  CsvReadOptions d = named;
  d.dtypes = {{"t", dt::Timestamp(TimeUnit::Second)}};
  EXPECT_ERROR_WITH(csv("t\n2020-01-01 00:00:00.5\n", d), "does not fit the unit s");
  d.dtypes = {{"nope", dt::int64}};
  EXPECT_ERROR_WITH(csv("a\n1\n", d), "dtypes names column 'nope', which the data does not have");
  d.dtypes = {{"a", dt::List(dt::int64)}};
  EXPECT_ERROR_WITH(csv("a\n1\n", d), "cannot be read from CSV");
  EXPECT_ERROR_WITH(csv("a\n\xff\xfe\n", named), "row 0, column 'a': the value is not valid UTF-8");
  EXPECT_ERROR_WITH(csv("", named), "the input is empty");
  CsvReadOptions bad = named;
  bad.delimiter = '"';
  EXPECT_ERROR_WITH(csv("a\n", bad), "must differ");
  EXPECT_ERROR_WITH(read_csv("/nonexistent/ember.csv"), "cannot open '/nonexistent/ember.csv'");
  EXPECT_ERROR_WITH(read_csv(fs::temp_directory_path().string()), "is a directory");
  // Line numbers count line breaks inside quotes and "\r" line ends.
  EXPECT_ERROR_WITH(csv("a,b\r1,\"x\ny\"\r2\r", named), "row 1 (line 4)");
}

// ---- chunks and threads -----------------------------------------------------------------

// A file with quoted line breaks, blank lines, "\r\n" ends and values that change kind late,
// read in chunks of 64 KiB by several threads, must equal its reading as a single chunk.
TEST(FrameIoCsv, ChunkedParsingMatchesOneChunk) {
  const int n = 60000;
  auto make = [](bool ragged) {
  std::mt19937_64 rng(7);
  std::string text = "id,x,s,late_float,late_string,sparse,date\r\n";
  for (int i = 0; i < n; ++i) {
    text += std::to_string(i) + ",";
    text += std::to_string(int64_t(rng() % 2000) - 1000) + "." + std::to_string(rng() % 100) + ",";
    switch (rng() % 4) {
      case 0: text += "\"quoted, with a comma\""; break;
      case 1: text += "\"line\nbreak\r\n\"\"and quotes\"\"\""; break;
      case 2: text += "plain"; break;
      default: text += ""; break;
    }
    text += ",";
    text += i == n - 10 ? "0.5" : std::to_string(i % 7);
    text += ",";
    text += i == n - 3 ? "word" : std::to_string(i);
    text += ",";
    text += i % 20000 == 12345 ? "7" : "";
    text += ",";
    text += i == 50000 ? "2020-01-01 12:00:00" : "2020-01-0" + std::to_string(1 + i % 9);
    if (ragged && i == n / 2) text += ",extra";
    text += "\r\n";
    if (i % 9973 == 0) text += "\r\n\n";  // blank lines
  }
  return text;
  };
  const std::string text = make(false);
  CsvReadOptions one;
  one.chunk_bytes = int64_t(1) << 40;
  one.num_threads = 1;
  const DataFrame a = csv(text, one);
  CsvReadOptions many;
  many.chunk_bytes = 64 << 10;
  many.num_threads = 2;
  const DataFrame b = csv(text, many);
  EXPECT_EQ(a.num_rows(), n);
  EXPECT_EQ(b.dtypes(), a.dtypes());
  EXPECT_EQ(b, a);
  EXPECT_EQ(a["late_float"].dtype(), dt::float64);
  EXPECT_EQ(a["late_string"].dtype(), dt::string);
  EXPECT_EQ(a["sparse"].dtype(), dt::Int64(true));
  EXPECT_EQ(a["date"].dtype(), dt::Timestamp(TimeUnit::Second));
  EXPECT_EQ(a["s"].get_string(1).value_or("?").size() > 0, true);
  // late_string looks numeric in the records the reader samples first, so it has no byte
  // region sized for the text: every chunk's strings spill (and most chunks are parsed again
  // as strings). Every value must still be right.
  const std::vector<Value> late = values(b, "late_string");
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(late[size_t(i)], Value(i == n - 3 ? std::string("word") : std::to_string(i))) << "row " << i;
  // Errors report the same row either way.
  const std::string bad = make(true);
  std::string e1, e2;
  try { csv(bad, one); } catch (const Error& e) { e1 = e.what(); }
  try { csv(bad, many); } catch (const Error& e) { e2 = e.what(); }
  EXPECT_NE(e1.find("row " + std::to_string(n / 2) + " (line "), std::string::npos) << e1;
  EXPECT_EQ(e1, e2);
}

// Long quoted values with line breaks, nearly all of the text: records cross the chunks' cuts
// and a chunk's strings outgrow its share of the text.
TEST(FrameIoCsv, LongQuotedValuesAcrossChunks) {
  std::string text = "s\n";
  std::vector<Value> want;
  for (int i = 0; i < 60; ++i) {
    std::string v;
    const int n = i % 3 == 0 ? 20000 + 997 * i : 5;
    for (int k = 0; k < n; ++k) v += k % 61 == 60 ? '\n' : char('a' + (k + i) % 26);
    text += "\"" + v + "\"\n";
    want.push_back(v);
  }
  CsvReadOptions many;
  many.chunk_bytes = 64 << 10;
  many.num_threads = 2;
  const DataFrame df = csv(text, many);
  EXPECT_EQ(values(df, "s"), want);
  CsvReadOptions one;
  one.chunk_bytes = int64_t(1) << 40;
  EXPECT_EQ(csv(text, one), df);
}

// Random damage (quotes, delimiters, line ends, escapes, NULs, invalid UTF-8, cuts) to a
// file of a few chunks: every read either raises ember::Error or gives a frame whose every
// element reads; and a chunked read agrees with a one-chunk read (the same frame, or the same
// error). Run under valgrind and ASan too.
TEST(FrameIoCsv, MutatedInputsFailCleanly) {
  std::string base = "a,b,c,d\n";
  for (int i = 0; i < 6000; ++i)
    base += std::to_string(i) + "," + std::to_string(i * 0.25) + ",\"q" + std::to_string(i % 7) + ",\"\"x\"\"\"," +
            (i % 3 ? "2020-01-0" + std::to_string(1 + i % 9) : std::string("")) + "\n";
  std::mt19937_64 rng(11);
  const char junk[] = {'"', ',', '\n', '\r', '\\', '\0', '\xff', 'x', '1', '.', ' ', ';'};
  int errors = 0, ok = 0;
  for (int round = 0; round < 200; ++round) {
    std::string t = base;
    const int edits = 1 + int(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % t.size();
      switch (rng() % 3) {
        case 0: t[at] = junk[rng() % sizeof(junk)]; break;
        case 1: t.insert(at, 1, junk[rng() % sizeof(junk)]); break;
        default: t.erase(at, 1 + rng() % 40); break;
      }
    }
    if (rng() % 4 == 0) t.resize(rng() % t.size());
    CsvReadOptions one, many;
    one.num_threads = 1;
    one.chunk_bytes = int64_t(1) << 40;
    many.num_threads = 2;
    many.chunk_bytes = 64 << 10;
    many.escapechar = one.escapechar = round % 2 ? '\\' : '\0';
    std::string e1 = "-", e2 = "-";
    DataFrame a, b;
    try {
      a = csv(t, one);
      for (int64_t c = 0; c < a.num_columns(); ++c) (void)a.column(c).to_values();
      e1.clear();
    } catch (const Error& e) {
      e1 = e.what();
    }
    try {
      b = csv(t, many);
      e2.clear();
    } catch (const Error& e) {
      e2 = e.what();
    }
    EXPECT_EQ(e1, e2) << "round " << round;
    if (e1.empty() && e2.empty()) EXPECT_EQ(a, b) << "round " << round;
    (e1.empty() ? ok : errors)++;
  }
  EXPECT_GT(ok, 0);
  EXPECT_GT(errors, 0);
}

TEST(FrameIoCsv, FilesAndStreams) {
  const std::string path = (fs::temp_directory_path() / ("ember_io_csv_" + std::to_string(::getpid()) + ".csv")).string();
  {
    std::ofstream f(path, std::ios::binary);
    f << "a,b\n1,x\n2,y";
  }
  const DataFrame df = read_csv(path);
  EXPECT_EQ(values(df, "b"), (std::vector<Value>{"x", "y"}));
  std::ifstream in(path);
  EXPECT_EQ(read_csv(in), df);
  df.to_csv(path);  // pandas' spelling
  EXPECT_EQ(read_csv(path), df);
  df.to_csv(path, CsvWriteOptions().with_delimiter(';'));
  EXPECT_EQ(read_csv(path, CsvReadOptions().with_delimiter(';')), df);
  // A file whose size is a multiple of the page size (the sentinel goes past the mapping).
  {
    std::ofstream f(path, std::ios::binary);
    std::string s = "v\n";
    while (s.size() < 4096 - 2) s += "7\n";
    s += "8\n";
    ASSERT_EQ(s.size(), 4096u);
    f << s;
  }
  const DataFrame page = read_csv(path);
  EXPECT_EQ(page.num_rows(), 2047);
  EXPECT_EQ(*page["v"].get<int64_t>(2046), 8);
  fs::remove(path);
}

// ---- writing ----------------------------------------------------------------------------

TEST(FrameIoCsv, WritesLikePython) {
  const DataFrame df{{"i", column({1, std::nullopt, -3})},
                     {"f", column({0.1, 1e16, std::nullopt})},
                     {"s", column({"plain", "a,b \"q\"", std::nullopt})},
                     {"e", column({"", "NA", "line\nbreak"})},
                     {"b", column({true, false, std::nullopt})}};
  EXPECT_EQ(to_csv(df),
            "i,f,s,e,b\n"
            "1,0.1,plain,\"\",True\n"
            ",1e+16,\"a,b \"\"q\"\"\",\"NA\",False\n"
            "-3,,,\"line\nbreak\",\n");
  CsvWriteOptions all;
  all.quoting = CsvWriteOptions::Quoting::All;
  all.null_value = "NULL";
  EXPECT_EQ(to_csv(df.select({"i"}).head(2), all), "\"i\"\n\"1\"\n\"NULL\"\n");
  CsvWriteOptions nonnum;
  nonnum.quoting = CsvWriteOptions::Quoting::NonNumeric;
  nonnum.header = false;
  EXPECT_EQ(to_csv(df.select({"i", "s"}).head(1), nonnum), "1,\"plain\"\n");
  CsvWriteOptions none;
  none.quoting = CsvWriteOptions::Quoting::None;
  EXPECT_ERROR_WITH(to_csv(df, none), "needs an escapechar");
  none.escapechar = '\\';
  EXPECT_EQ(to_csv(DataFrame{{"s", column({"a,b"})}}, none), "s\na\\,b\n");
  // A single column's null is quoted, so that it is not a blank line.
  EXPECT_EQ(to_csv(DataFrame{{"x", column({1, std::nullopt})}}), "x\n1\n\"\"\n");
  EXPECT_ERROR_WITH(to_csv(DataFrame{{"l", column(std::vector<std::vector<int64_t>>{{1}})}}), "column 'l' has type List(int64)");
  // Dictionaries as their values; dates; timestamps with every digit of their unit (and "Z"
  // when they have a timezone); binaries as their bytes; float32 as Python prints it.
  const DataFrame more{{"c", column({"lo", "hi", "lo"}).dictionary_encode()},
                       {"d", column({0, -1, 19782}, dt::date32)},
                       {"t", column({0, 1500, -1}, dt::Timestamp(TimeUnit::Milli))},
                       {"z", column({0, 1, 2}, dt::Timestamp(TimeUnit::Second, "Asia/Tokyo"))},
                       {"bin", column_from_values({"a", std::string("\0b", 2), "c"}, dt::binary)},
                       {"f", column(std::vector<float>{0.1f, 1.5f, -2.0f})}};
  EXPECT_EQ(to_csv(more),
            "c,d,t,z,bin,f\n"
            "lo,1970-01-01,1970-01-01 00:00:00.000,1970-01-01 00:00:00Z,a,0.1\n"
            "hi,1969-12-31,1970-01-01 00:00:01.500,1970-01-01 00:00:01Z," + std::string("\0b", 2) + ",1.5\n"
            "lo,2024-02-29,1969-12-31 23:59:59.999,1970-01-01 00:00:02Z,c,-2.0\n");
}

TEST(FrameIoCsv, RoundTripsThroughWriteAndRead) {
  std::vector<std::optional<int64_t>> ints;
  std::vector<double> dbl;
  std::vector<std::optional<std::string>> strs;
  std::vector<std::optional<bool>> bools;
  std::vector<std::optional<int32_t>> dates;
  std::vector<int64_t> ts;
  std::mt19937_64 rng(3);
  for (int i = 0; i < 50000; ++i) {
    ints.push_back(i % 11 == 0 ? std::nullopt : std::optional<int64_t>(int64_t(rng()) >> (rng() % 60)));
    dbl.push_back(std::ldexp(double(int64_t(rng())), -int(rng() % 80)));
    const int kind = int(rng() % 5);
    strs.push_back(kind == 0 ? std::nullopt
                   : kind == 1 ? std::optional<std::string>("with \"quotes\", commas\nand lines")
                   : kind == 2 ? std::optional<std::string>("")
                               : std::optional<std::string>("w" + std::to_string(rng() % 1000) + "\u00e9"));
    bools.push_back(i % 13 == 0 ? std::nullopt : std::optional<bool>(rng() % 2));
    dates.push_back(i % 17 == 0 ? std::nullopt : std::optional<int32_t>(int32_t(rng() % 40000) - 10000));
    ts.push_back(int64_t(rng() % 4000000000000000ULL));
  }
  const DataFrame df{{"i", column(ints)},
                     {"d", column(dbl)},
                     {"s", column(strs)},
                     {"b", column(bools)},
                     {"date", column(dates, dt::Date32(true))},
                     {"ts", column(ts, dt::Timestamp(TimeUnit::Micro, "UTC"))}};
  CsvReadOptions o;
  o.quoted_nulls = false;  // "" is the empty string, an empty field the null
  o.chunk_bytes = 128 << 10;
  const DataFrame back = read_csv_string(to_csv(df), o);
  EXPECT_EQ(back.dtypes(), df.dtypes());
  EXPECT_EQ(back, df);
}

}  // namespace
}  // namespace ember::frame
