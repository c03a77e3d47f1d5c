// The Arrow C Data and Stream Interfaces within C++: round trips of every type, zero-copy
// proofs, the release protocol (exactly once, moved children, memory kept alive until the
// consumer lets go), and clear errors for malformed schemas and arrays.
#include <cerrno>
#include <cstring>

#include "ember/frame/frame.h"
#include "frame/frame_fixtures.h"
#include "test_util.h"

namespace ember::frame {
namespace {

namespace dt = dtypes;

TEST(FrameCData, RoundTripsEveryTypeWithoutCopies) {
  for (const auto& [name, col] : test::fixtures()) {
    SCOPED_TRACE(name);
    ArrowArray a;
    ArrowSchema s;
    export_column(col, &a, &s);
    EXPECT_EQ(a.length, col.size());
    EXPECT_EQ(a.offset, col.offset());
    EXPECT_EQ(a.null_count, col.null_count());
    EXPECT_EQ(a.n_buffers, col.dtype().num_buffers());
    EXPECT_EQ(std::string(s.format), col.dtype().arrow_format());
    Column back = import_column(&a, &s);
    EXPECT_EQ(a.release, nullptr);  // moved into the import
    EXPECT_EQ(s.release, nullptr);  // consumed
    EXPECT_EQ(back.dtype(), col.dtype());
    EXPECT_EQ(back, col);
    EXPECT_EQ(back.to_values(), col.to_values());
    // Zero copy: the imported buffers are ember's own bytes.
    for (size_t i = 1; i < col.data()->buffers.size(); ++i)
      if (col.data()->buffers[i].defined() && col.data()->buffers[i].size() > 0)
        EXPECT_EQ(back.data()->buffers[i].data(), col.data()->buffers[i].data()) << "buffer " << i;
  }
}

TEST(FrameCData, SchemasRoundTrip) {
  const DType types[] = {
      dt::Int64(true), dt::string, dt::Timestamp(TimeUnit::Nano, "America/New_York", true),
      dt::Struct({{"a", dt::List(dt::Int16(true))}, {"", dt::Map(dt::int32, dt::Float32(true), false, true)}}),
      dt::Dictionary(dt::int8, dt::large_string, true, true), dt::LargeList(dt::Struct({{"x", dt::binary}}, true)),
  };
  for (const DType& t : types) {
    ArrowSchema s;
    export_type(t, &s, "col");
    EXPECT_EQ(std::string(s.name), "col");
    std::string name;
    EXPECT_EQ(import_type(&s, &name), t);
    EXPECT_EQ(name, "col");
    EXPECT_EQ(s.release, nullptr);
  }
  ArrowSchema s;
  export_type(dt::Map(dt::string, dt::int64, true, true), &s);
  EXPECT_EQ(s.flags, ARROW_FLAG_NULLABLE | ARROW_FLAG_MAP_KEYS_SORTED);
  ASSERT_EQ(s.n_children, 1);
  EXPECT_EQ(std::string(s.children[0]->name), "entries");
  EXPECT_EQ(s.children[0]->flags, 0);  // entries are never null
  EXPECT_EQ(std::string(s.children[0]->children[0]->name), "key");
  EXPECT_EQ(s.children[0]->children[0]->flags, 0);
  EXPECT_EQ(std::string(s.children[0]->children[1]->name), "value");
  s.release(&s);
  EXPECT_EQ(s.release, nullptr);
}

// A producer of int64 arrays in malloc'd memory that counts its releases.
struct Producer {
  static inline int releases = 0;
  struct Private {
    int64_t* values;
    uint8_t* validity;
    const void* buffers[2];
  };
  static void release(ArrowArray* a) {
    auto* p = static_cast<Private*>(a->private_data);
    std::free(p->values);
    std::free(p->validity);
    delete p;
    a->release = nullptr;
    ++releases;
  }
  // length values 0, 10, 20, ...; every third element null when with_nulls.
  static void make(ArrowArray* out, int64_t length, bool with_nulls, int64_t offset = 0) {
    auto* p = new Private;
    p->values = static_cast<int64_t*>(std::malloc(size_t(length + offset) * 8 + 1));
    p->validity = with_nulls ? static_cast<uint8_t*>(std::calloc(size_t(length + offset) / 8 + 1, 1)) : nullptr;
    int64_t nulls = 0;
    for (int64_t i = 0; i < length + offset; ++i) {
      p->values[i] = (i - offset) * 10;
      const bool valid = !with_nulls || (i - offset) % 3 != 2;
      if (with_nulls && valid) bits::set(p->validity, i);
      if (!valid && i >= offset) ++nulls;
    }
    p->buffers[0] = p->validity;
    p->buffers[1] = p->values;
    *out = ArrowArray{length, nulls, offset, 2, 0, p->buffers, nullptr, nullptr, &release, p};
  }
};

TEST(FrameCData, ImportTakesOwnershipAndReleasesOnce) {
  Producer::releases = 0;
  ArrowArray a;
  Producer::make(&a, 7, true, 2);
  Column slice;
  {
    Column c = import_column(&a, dt::Int64(true));
    EXPECT_EQ(a.release, nullptr);
    EXPECT_EQ(c.to_values(), (std::vector<Value>{0, 10, Value(), 30, 40, Value(), 60}));
    EXPECT_EQ(c.offset(), 2);
    slice = c.slice(3, 2);
    Tensor t = to_tensor(slice);  // the tensor shares the producer's memory too
    c = Column();
    slice = Column();
    EXPECT_EQ(Producer::releases, 0);
    EXPECT_EQ(t[1].item<int64_t>(), 40);
  }
  EXPECT_EQ(Producer::releases, 1);

  // On errors both structs are released, once.
  Producer::make(&a, 3, false);
  ArrowSchema s;
  export_type(dt::string, &s);  // a string schema over int64 buffers: 2 buffers, not 3
  EXPECT_ERROR_WITH(import_column(&a, &s), "import: array (string): has 2 buffers; its Arrow layout has 3");
  EXPECT_EQ(Producer::releases, 2);
  EXPECT_EQ(a.release, nullptr);
  EXPECT_EQ(s.release, nullptr);
  EXPECT_ERROR_WITH(import_column(&a, dt::int64), "the ArrowArray is already released");

  Producer::make(&a, 3, false);
  a.null_count = 1;  // a null count without a bitmap
  EXPECT_ERROR_WITH(import_column(&a, dt::Int64(true)), "null_count is 1 but the validity bitmap is NULL");
  EXPECT_EQ(Producer::releases, 3);
}

TEST(FrameCData, ExportKeepsMemoryAliveUntilReleased) {
  int freed = 0;
  ArrowArray a;
  {
    auto* data = new int64_t[3]{7, 8, 9};
    std::shared_ptr<const void> owner(data, [&](const void* p) {
      delete[] static_cast<const int64_t*>(p);
      ++freed;
    });
    Column c(ArrayData::make(dt::int64, 3, {Buffer(), Buffer::wrap(data, 24, owner)}));
    export_column(c.slice(1, 2), &a);
  }
  EXPECT_EQ(freed, 0);
  EXPECT_EQ(a.offset, 1);
  EXPECT_EQ(static_cast<const int64_t*>(a.buffers[1])[a.offset + 1], 9);
  a.release(&a);
  EXPECT_EQ(a.release, nullptr);
  EXPECT_EQ(freed, 1);
}

TEST(FrameCData, MovedChildrenLiveOnTheirOwn) {
  int freed = 0;
  ArrowArray parent;
  ArrowSchema schema;
  {
    auto* data = new int64_t[2]{5, 6};
    std::shared_ptr<const void> owner(data, [&](const void* p) {
      delete[] static_cast<const int64_t*>(p);
      ++freed;
    });
    Column a(ArrayData::make(dt::int64, 2, {Buffer(), Buffer::wrap(data, 16, owner)}));
    export_dataframe(DataFrame{{"a", a}, {"b", column({"x", "y"})}}, &parent, &schema);
  }
  ASSERT_EQ(parent.n_children, 2);
  // The consumer moves child 0 out, then releases the parent.
  ArrowArray moved = *parent.children[0];
  parent.children[0]->release = nullptr;
  parent.release(&parent);
  EXPECT_EQ(freed, 0);  // the moved child still holds column a
  DType t = import_type(&schema);
  Column c = import_column(&moved, t.fields()[0].dtype);
  EXPECT_EQ(c.to_values(), (std::vector<Value>{5, 6}));
  c = Column();
  EXPECT_EQ(freed, 1);
}

TEST(FrameCData, DataFramesAsRecordBatches) {
  DataFrame df{{"id", column({1, 2, 3})}, {"tags", column(std::vector<std::vector<std::string>>{{"a"}, {}, {"b", "c"}})}};
  ArrowArray a;
  ArrowSchema s;
  export_dataframe(df.slice(1, 2), &a, &s);
  EXPECT_EQ(std::string(s.format), "+s");
  EXPECT_EQ(s.n_children, 2);
  EXPECT_EQ(std::string(s.children[1]->name), "tags");
  EXPECT_EQ(a.null_count, 0);
  EXPECT_EQ(a.buffers[0], nullptr);
  DataFrame back = import_dataframe(&a, &s);
  EXPECT_EQ(back, df.slice(1, 2));

  export_column(column({1}), &a, &s);
  EXPECT_ERROR_WITH(import_dataframe(&a, &s), "the array is a int64, not a struct array (record batch)");
}

TEST(FrameCData, MalformedSchemasAreRejected) {
  auto schema = [](const char* format, int64_t n_children = 0, ArrowSchema** children = nullptr) {
    return ArrowSchema{format, nullptr, nullptr, 0, n_children, children, nullptr, [](ArrowSchema* s) { s->release = nullptr; }, nullptr};
  };
  const std::pair<const char*, const char*> bad[] = {
      {"q", "unknown Arrow format 'q'"},
      {"e", "Arrow format 'e' (float16) is not supported by ember::frame"},
      {"d:10,2", "(decimal) is not supported"},
      {"tsx:", "unknown Arrow format 'tsx:'"},
      {"ts", "unknown Arrow format 'ts'"},
      {"+l", "format '+l' needs 1 child schema, got 0"},
      {"+m", "format '+m' needs 1 child schema, got 0"},
      {"+w:4", "(fixed_size_list) is not supported"},
      {"", "unknown Arrow format ''"},
  };
  for (const auto& [format, msg] : bad) {
    ArrowSchema s = schema(format);
    EXPECT_ERROR_WITH(import_type(&s), msg);
    EXPECT_EQ(s.release, nullptr);
  }
  ArrowSchema s = schema(nullptr);
  EXPECT_ERROR_WITH(import_type(&s), "the schema's format is NULL");
  // A map whose child is not a struct of two fields.
  ArrowSchema item = schema("l");
  ArrowSchema* kids[] = {&item};
  ArrowSchema m = schema("+m", 1, kids);
  EXPECT_ERROR_WITH(import_type(&m), "a map's child must be a struct of two fields");
  // A dictionary with a non-integer index format.
  ArrowSchema values = schema("u");
  ArrowSchema d = schema("g");
  d.dictionary = &values;
  EXPECT_ERROR_WITH(import_type(&d), "a dictionary's index format must be an integer type, got 'g'");
  // Nesting without end is refused instead of overflowing the stack.
  std::vector<ArrowSchema> chain(100);
  std::vector<ArrowSchema*> ptrs(100);
  for (int i = 0; i < 100; ++i) ptrs[i] = &chain[i];
  for (int i = 0; i < 99; ++i) chain[i] = schema("+l", 1, &ptrs[i + 1]);
  chain[99] = schema("l");
  EXPECT_ERROR_WITH(import_type(&chain[0]), "types nest deeper than 64 levels");
}

TEST(FrameCData, StreamsOfFrames) {
  std::vector<DataFrame> frames;
  for (int k = 0; k < 3; ++k)
    frames.push_back(DataFrame{{"k", column(std::vector<int64_t>{k, k + 1})}, {"s", column({"a", std::nullopt})}});
  ArrowArrayStream stream;
  export_stream(frames, &stream);
  StreamReader reader(&stream);
  EXPECT_EQ(stream.release, nullptr);
  EXPECT_EQ(reader.schema(), frames[0].dtype());
  std::vector<DataFrame> got = reader.read_all();
  ASSERT_EQ(got.size(), 3u);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(got[size_t(k)], frames[size_t(k)]);
  EXPECT_EQ(reader.next(), std::nullopt);

  // A frame with another schema breaks the stream with EINVAL and a message.
  int calls = 0;
  export_stream(
      frames[0].dtype(),
      [&]() -> std::optional<DataFrame> {
        if (calls++ == 0) return frames[0];
        return DataFrame{{"other", column({1})}};
      },
      &stream);
  ArrowSchema s;
  EXPECT_EQ(stream.get_schema(&stream, &s), 0);
  s.release(&s);
  ArrowArray a;
  EXPECT_EQ(stream.get_next(&stream, &a), 0);
  a.release(&a);
  EXPECT_EQ(stream.get_next(&stream, &a), EINVAL);
  EXPECT_NE(std::string(stream.get_last_error(&stream)).find("frame 1 has schema Struct([Field('other', int64)])"),
            std::string::npos);
  EXPECT_EQ(stream.get_next(&stream, &a), EINVAL);  // stays broken
  stream.release(&stream);
  EXPECT_EQ(stream.release, nullptr);

  // The reader reports the producer's error.
  calls = 0;
  export_stream(
      frames[0].dtype(), [&]() -> std::optional<DataFrame> { throw std::runtime_error("disk on fire"); }, &stream);
  StreamReader r2(&stream);
  EXPECT_ERROR_WITH(r2.next(), "get_next failed (Input/output error): disk on fire");
  EXPECT_ERROR_WITH(export_stream(std::vector<DataFrame>{}, &stream), "needs an explicit schema");
}

}  // namespace
}  // namespace ember::frame
