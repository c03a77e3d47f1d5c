// The Arrow IPC stream and file formats within C++: the FlatBuffers reader and builder,
// round trips of every dtype (nested, dictionaries, slices, nulls) through both formats and
// every compression, several batches, dictionary deltas and replacements, and the errors
// of bad input. Interop with pyarrow, pandas and polars is in io_ipc_pyarrow_test.cpp; the
// fuzzer in io_ipc_fuzz_test.cpp.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ember/frame/frame.h"
#include "ember/frame/io/flatbuf.h"
#include "ember/frame/io/ipc.h"
#include "frame/frame_fixtures.h"
#include "test_util.h"

namespace ember::frame {
namespace {

namespace dt = dtypes;
namespace fs = std::filesystem;

const IpcCompression kCodecs[] = {IpcCompression::None, IpcCompression::Lz4Frame, IpcCompression::Zstd};

std::string temp_path(const std::string& name) {
  return (fs::temp_directory_path() / ("ember_io_ipc_" + std::to_string(::getpid()) + "_" + name)).string();
}

Buffer bytes_of(const std::string& s) { return Buffer::copy_of(s.data(), int64_t(s.size())); }

std::string file_bytes(const DataFrame& df, const IpcWriteOptions& o = {}) {
  std::ostringstream out;
  write_feather(df, out, o);
  return out.str();
}

std::string stream_bytes(const DataFrame& df, const IpcWriteOptions& o = {}) {
  std::ostringstream out;
  write_ipc_stream(df, out, o);
  return out.str();
}

// ---- FlatBuffers ------------------------------------------------------------------------

TEST(FrameIoFlatbuffers, BuildsAndReadsTables) {
  io::fb::Builder b;
  const auto name = b.create_string("hello");
  b.start_table();
  b.add_scalar<int32_t>(0, 42);
  b.add_scalar<uint8_t>(1, 1);
  const auto inner = b.end_table();
  struct Pair {
    int64_t a, b;
  };
  const std::vector<Pair> pairs{{1, 2}, {3, -4}};
  const auto vec = b.create_vector(pairs, 8);
  const auto tables = b.create_offset_vector({inner, inner});
  b.start_table();
  b.add_scalar<int64_t>(0, -7);
  b.add_offset(2, name);  // field 1 absent
  b.add_offset(3, inner);
  b.add_offset(4, vec);
  b.add_offset(5, tables);
  const std::vector<uint8_t> buf = b.finish(b.end_table());

  const auto root = io::fb::Table::root(buf.data(), int64_t(buf.size()), "test");
  EXPECT_EQ(root.scalar<int64_t>(0, 0), -7);
  EXPECT_FALSE(root.has(1));
  EXPECT_EQ(root.scalar<int32_t>(1, 99), 99);  // absent: the default
  EXPECT_EQ(root.string(2), "hello");
  EXPECT_EQ(root.table(3).scalar<int32_t>(0, 0), 42);
  EXPECT_EQ(root.table(3).scalar<uint8_t>(1, 0), 1);
  EXPECT_EQ(root.table(3).scalar<int64_t>(7, 5), 5);  // beyond the vtable: absent
  const auto v = root.vector(4, 16);
  ASSERT_EQ(v.size(), 2);
  EXPECT_EQ(v.get<Pair>(1).b, -4);
  const auto t = root.vector(5, 4);
  ASSERT_EQ(t.size(), 2);
  EXPECT_EQ(t.table(1).scalar<int32_t>(0, 0), 42);
  EXPECT_FALSE(root.table(9).present());
  EXPECT_EQ(root.vector(9, 4).size(), 0);
  // The root offset and vtables are 8-byte-friendly: int64 fields sit at multiples of 8.
  EXPECT_EQ(buf.size() % 8, 0u);
}

TEST(FrameIoFlatbuffers, RejectsCorruptBuffers) {
  io::fb::Builder b;
  const auto s = b.create_string("abc");
  b.start_table();
  b.add_offset(0, s);
  b.add_scalar<int64_t>(1, 5);
  std::vector<uint8_t> buf = b.finish(b.end_table());
  const int64_t n = int64_t(buf.size());
  EXPECT_ERROR_WITH(io::fb::Table::root(buf.data(), 4, "t"), "too small");
  {  // a root offset past the end
    std::vector<uint8_t> bad = buf;
    const uint32_t off = uint32_t(n);
    std::memcpy(bad.data(), &off, 4);
    EXPECT_ERROR_WITH(io::fb::Table::root(bad.data(), n, "t"), "outside");
  }
  {  // a vtable offset that points before the buffer
    std::vector<uint8_t> bad = buf;
    uint32_t root;
    std::memcpy(&root, bad.data(), 4);
    const int32_t soff = int32_t(root) + 100;
    std::memcpy(bad.data() + root, &soff, 4);
    EXPECT_ERROR_WITH(io::fb::Table::root(bad.data(), n, "t"), "vtable");
  }
  {  // the string's length runs past the end
    std::vector<uint8_t> bad = buf;
    const auto t = io::fb::Table::root(bad.data(), n, "t");
    const int64_t at = int64_t(t.string(0).data() - reinterpret_cast<const char*>(bad.data())) - 4;
    const uint32_t len = 1000;
    std::memcpy(bad.data() + at, &len, 4);
    EXPECT_ERROR_WITH(io::fb::Table::root(bad.data(), n, "t").string(0), "runs past the end");
  }
  // Every truncation either fails cleanly or reads what remains.
  for (int64_t cut = 0; cut < n; ++cut) {
    std::vector<uint8_t> part(buf.begin(), buf.begin() + cut);
    try {
      const auto t = io::fb::Table::root(part.data(), cut, "t");
      (void)t.string(0);
      (void)t.scalar<int64_t>(1, 0);
    } catch (const Error&) {
    }
  }
}

// ---- round trips ----------------------------------------------------------------------------

TEST(FrameIoIpc, EveryFixtureRoundTripsThroughBothFormatsAndCodecs) {
  for (const auto& [name, col] : test::fixtures()) {
    SCOPED_TRACE(name);
    const DataFrame df{{name, col}};
    for (IpcCompression c : kCodecs) {
      SCOPED_TRACE(to_string(c));
      const IpcWriteOptions o = IpcWriteOptions().with_compression(c);
      IpcFileReader fr(bytes_of(file_bytes(df, o)), name);
      EXPECT_EQ(fr.schema(), df.dtype());
      const DataFrame a = fr.read_table();
      EXPECT_EQ(a.dtypes(), df.dtypes());
      EXPECT_EQ(a, df);
      IpcStreamReader sr(bytes_of(stream_bytes(df, o)), name);
      const DataFrame b = sr.read_table();
      EXPECT_EQ(b.dtypes(), df.dtypes());
      EXPECT_EQ(b, df);
      std::istringstream in(stream_bytes(df, o));
      EXPECT_EQ(read_ipc_stream(in), df);
    }
  }
}

DataFrame mixed_frame(int64_t n) {
  std::vector<std::optional<int64_t>> ints;
  std::vector<std::optional<std::string>> strs;
  std::vector<double> dbl;
  std::vector<std::optional<bool>> bools;
  std::vector<std::vector<int32_t>> lists;
  for (int64_t i = 0; i < n; ++i) {
    ints.push_back(i % 5 == 0 ? std::nullopt : std::optional<int64_t>(i * 1000003 % 9973));
    strs.push_back(i % 7 == 3 ? std::nullopt : std::optional<std::string>("s" + std::to_string(i % 13)));
    dbl.push_back(double(i) / 7);
    bools.push_back(i % 11 == 0 ? std::nullopt : std::optional<bool>(i % 3 == 1));
    lists.push_back(std::vector<int32_t>(size_t(i % 4), int32_t(i)));
  }
  Column s = column(strs);
  return DataFrame{{"i", column(ints)},
                   {"s", s},
                   {"d", column(dbl)},
                   {"b", column(bools)},
                   {"l", column(lists)},
                   {"cat", s.dictionary_encode()},
                   {"st", struct_column({{"x", column(ints)}, {"y", column(dbl)}})}};
}

TEST(FrameIoIpc, SeveralBatchesAndSlices) {
  const DataFrame df = mixed_frame(1000);
  for (IpcCompression c : kCodecs) {
    SCOPED_TRACE(to_string(c));
    const IpcWriteOptions o = IpcWriteOptions().with_compression(c).with_max_rows_per_batch(97);
    IpcFileReader r(bytes_of(file_bytes(df, o)));
    EXPECT_EQ(r.num_record_batches(), 11);  // ceil(1000 / 97)
    const DataFrame b3 = r.read_record_batch(3);
    EXPECT_EQ(b3, df.slice(3 * 97, 97));
    EXPECT_EQ(r.read_record_batch(10), df.slice(970, 30));
    EXPECT_EQ(r.read_table(), df);
    IpcStreamReader s(bytes_of(stream_bytes(df, o)));
    const auto batches = s.read_all();
    ASSERT_EQ(batches.size(), 11u);
    EXPECT_EQ(batches[4], df.slice(4 * 97, 97));
    // A slice at an odd offset is written from its element 0 (bitmaps shifted, offsets rebased).
    const DataFrame part = df.slice(13, 501);
    EXPECT_EQ(IpcFileReader(bytes_of(file_bytes(part, o))).read_table(), part);
  }
  // Every batch shares one dictionary: written once.
  const std::string one = file_bytes(df, IpcWriteOptions().with_max_rows_per_batch(0));
  const std::string many = file_bytes(df, IpcWriteOptions().with_max_rows_per_batch(97));
  EXPECT_LT(many.size(), one.size() * 2);
}

TEST(FrameIoIpc, FilesAndStreamsOnDisk) {
  const DataFrame df = mixed_frame(300);
  const std::string f = temp_path("a.feather"), s = temp_path("a.arrows");
  write_feather(df, f, IpcWriteOptions().with_compression(IpcCompression::Zstd).with_metadata({{"k", "v"}}));
  EXPECT_EQ(read_feather(f), df);
  IpcFileReader r(f);
  ASSERT_EQ(r.metadata().size(), 1u);
  EXPECT_EQ(r.metadata()[0], (std::pair<std::string, std::string>{"k", "v"}));
  df.to_feather(f);  // pandas' spelling
  EXPECT_EQ(read_feather(f), df);
  df.to_feather(f, IpcWriteOptions().with_compression(IpcCompression::Lz4Frame));
  EXPECT_EQ(read_feather(f), df);
  write_ipc_stream(df, s);
  EXPECT_EQ(read_ipc_stream(s), df);
  {
    IpcStreamWriter w(s, df.dtype(), IpcWriteOptions().with_compression(IpcCompression::Lz4Frame));
    w.write(df.slice(0, 100));
    w.write(df.slice(100, 200));
  }  // the destructor closes
  EXPECT_EQ(read_ipc_stream(s), df);
  fs::remove(f);
  fs::remove(s);
}

TEST(FrameIoIpc, EmptyFramesAndColumns) {
  const DataFrame empty = mixed_frame(0);
  EXPECT_EQ(IpcFileReader(bytes_of(file_bytes(empty))).read_table(), empty);
  EXPECT_EQ(IpcStreamReader(bytes_of(stream_bytes(empty))).read_table(), empty);
  // A file with no batches at all gives empty columns of the schema's types.
  std::ostringstream out;
  { IpcFileWriter w(out, empty.dtype()); }
  IpcFileReader r(bytes_of(out.str()));
  EXPECT_EQ(r.num_record_batches(), 0);
  const DataFrame t = r.read_table();
  EXPECT_EQ(t.dtypes(), empty.dtypes());
  EXPECT_EQ(t.num_rows(), 0);
}

// Dictionaries that change between batches (Note [IPC dictionaries]).
TEST(FrameIoIpc, DictionaryDeltasAndReplacements) {
  const Column d1 = column({"a", "b", "a"}).dictionary_encode();
  const Column d2 = dictionary_column(column({0, 2, 1}, dt::int32), column({"a", "b", "c"}));  // extends d1's
  const Column d3 = dictionary_column(column({1, 0}, dt::int32), column({"x", "y"}));          // replaces
  const DType schema = DataFrame{{"c", d1}}.dtype();
  for (bool file : {false, true}) {
    SCOPED_TRACE(file ? "file" : "stream");
    std::ostringstream out;
    if (file) {
      IpcFileWriter w(out, schema);
      for (const Column& c : {d1, d2, d2, d3, d3}) w.write(DataFrame{{"c", c}});
    } else {
      IpcStreamWriter w(out, schema);
      for (const Column& c : {d1, d2, d2, d3, d3}) w.write(DataFrame{{"c", c}});
    }
    std::vector<DataFrame> got;
    if (file) got = IpcFileReader(bytes_of(out.str())).read_all();
    else got = IpcStreamReader(bytes_of(out.str())).read_all();
    ASSERT_EQ(got.size(), 5u);
    const std::vector<std::vector<Value>> want{{"a", "b", "a"}, {"a", "c", "b"}, {"a", "c", "b"}, {"y", "x"}, {"y", "x"}};
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i]["c"].to_values(), want[i]) << "batch " << i;
    // The stream replaces the dictionary; the file appends (Arrow files cannot replace), and a
    // file reader loads every dictionary before the batches.
    EXPECT_EQ(got[4]["c"].dictionary().size(), file ? 5 : 2);
    EXPECT_EQ(got[1]["c"].dictionary().size(), file ? 5 : 3);
  }
}

// Dictionaries of nested values, and dictionary columns nested in lists and structs.
TEST(FrameIoIpc, DictionariesOfAnyValueType) {
  const Column points = struct_column({{"x", column({1, 2})}, {"tags", column(std::vector<std::vector<std::string>>{{"a"}, {}})}});
  const Column lists = column(std::vector<std::vector<int64_t>>{{1, 2}, {}, {3}});
  const DataFrame df{
      {"dict_of_struct", dictionary_column(column({1, 0, 1, std::nullopt}, dt::Int8(true)), points)},
      {"dict_of_list", dictionary_column(column({2, 2, 0, 1}, dt::int16), lists, true)},
      {"dict_of_double", dictionary_column(column({0, 0, 1, 1}, dt::uint32), column({0.5, -1.0}))},
      {"list_of_dict", column_from_values({Value::List{"a", "b"}, Value::List{}, Value(), Value::List{"b"}},
                                          dt::List(dt::Dictionary(dt::int32, dt::string), true))},
      {"struct_of_dict", struct_column({{"d", column({"p", "q", "p", "p"}).dictionary_encode()}})}};
  for (IpcCompression c : kCodecs) {
    const IpcWriteOptions o = IpcWriteOptions().with_compression(c).with_max_rows_per_batch(3);
    const DataFrame a = IpcFileReader(bytes_of(file_bytes(df, o))).read_table();
    EXPECT_EQ(a.dtypes(), df.dtypes());
    EXPECT_EQ(a, df);
    EXPECT_EQ(IpcStreamReader(bytes_of(stream_bytes(df, o))).read_table(), df);
  }
}

TEST(FrameIoIpc, NullabilityOfBatchesAgainstTheSchema) {
  const DataFrame nn{{"x", column(std::vector<int64_t>{1, 2})}};
  const DataFrame with_nulls{{"x", column({1, std::nullopt})}};
  std::ostringstream out;
  IpcStreamWriter w(out, with_nulls.dtype());
  w.write(nn);  // a non-nullable column fits a nullable schema
  w.write(with_nulls);
  w.close();
  const DataFrame back = IpcStreamReader(bytes_of(out.str())).read_table();
  EXPECT_EQ(back["x"].to_values(), (std::vector<Value>{1, 2, 1, Value()}));
  std::ostringstream out2;
  IpcStreamWriter w2(out2, nn.dtype());
  EXPECT_ERROR_WITH(w2.write(with_nulls), "is not nullable");
  const DataFrame other{{"y", column(std::vector<int64_t>{1})}};
  EXPECT_ERROR_WITH(w2.write(other), "the schema has 'x'");
}

TEST(FrameIoIpc, ReadErrorsNameTheProblem) {
  const DataFrame df = mixed_frame(50);
  const std::string f = file_bytes(df);
  EXPECT_ERROR_WITH(IpcFileReader(bytes_of("hello world, not arrow at all"), "x.feather"), "not an Arrow IPC file");
  EXPECT_ERROR_WITH(IpcFileReader(bytes_of(f.substr(0, f.size() - 1))), "magic");
  EXPECT_ERROR_WITH(IpcFileReader(temp_path("missing.feather")), "cannot open");
  EXPECT_ERROR_WITH(IpcFileReader(fs::temp_directory_path().string()), "is a directory");
  EXPECT_ERROR_WITH(IpcStreamReader(fs::temp_directory_path().string()), "is a directory");
  const std::string s = stream_bytes(df);
  EXPECT_ERROR_WITH(IpcStreamReader(bytes_of("")), "no schema message");
  EXPECT_ERROR_WITH(IpcStreamReader(bytes_of(s.substr(0, 6))), "truncated");
  {
    IpcStreamReader r(bytes_of(s.substr(0, s.size() - 100)), "cut.arrows");
    EXPECT_ERROR_WITH(r.read_all(), "cut.arrows");
  }
  {
    std::istringstream in(s.substr(0, s.size() - 100));
    IpcStreamReader r(in, "cut.arrows");
    EXPECT_ERROR_WITH(r.read_all(), "is cut off");
  }
  // A file whose string column holds invalid UTF-8 (its bytes patched in place).
  std::string patched = file_bytes(DataFrame{{"s", column({"ok", "zz"})}});
  const size_t at = patched.find("okzz");
  ASSERT_NE(at, std::string::npos);
  patched.replace(at, 4, "ok\xff\xfe");
  EXPECT_ERROR_WITH(IpcFileReader(bytes_of(patched)).read_table(), "UTF-8");
}

}  // namespace
}  // namespace ember::frame
