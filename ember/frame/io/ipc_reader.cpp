// Reading the Arrow IPC stream and file formats; see Note [IPC reading] in ipc.h. Messages
// come from a MessageSource (bytes in memory, or a std::istream read message by message);
// ArrayLoader turns a RecordBatch's field nodes and buffers into validated arrays.
#include <cstdlib>
#include <filesystem>
#include <cstring>
#include <exception>
#include <fstream>
#include <istream>
#include <map>

#include "ember/core/error.h"
#include "ember/core/parallel.h"
#include "ember/frame/io/compression.h"
#include "ember/frame/io/concat.h"
#include "ember/frame/io/ipc.h"
#include "ember/frame/io/ipc_format.h"

namespace ember::frame {

using io::detail::BufferMeta;
using io::detail::DecodedSchema;
using io::detail::FieldNodeMeta;
using io::detail::MessageView;
using io::detail::SchemaNode;
namespace fbs = io::detail::fbs;
namespace fb = io::fb;

namespace {

constexpr int kMaxSchemaDepth = 64;
constexpr int64_t kMaxElements = int64_t(1) << 40;
constexpr int64_t kMaxMetadataBytes = int64_t(1) << 28;
// A compressed buffer may claim at most this ratio (plus kRatioSlack bytes): a corrupt length
// cannot make the reader allocate far beyond what the data could hold. Zstandard's best case,
// a run of one byte, is about 32000:1.
constexpr int64_t kMaxRatio = 1 << 16;
constexpr int64_t kRatioSlack = 1 << 20;

template <class T>
T read_le(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// `n` uninitialized bytes, 64-byte aligned, with zeroed padding up to a multiple of 64.
std::pair<uint8_t*, Buffer> allocate(int64_t n, const std::string& what) {
  const int64_t cap = std::max<int64_t>((n + 63) / 64 * 64, 64);
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(64, size_t(cap)));
  EMBER_CHECK(p != nullptr, what, ": out of memory allocating ", n, " bytes");
  std::memset(p + n, 0, size_t(cap - n));
  std::shared_ptr<const void> owner(p, [](const void* q) { std::free(const_cast<void*>(q)); });
  return {p, Buffer::wrap(p, n, std::move(owner))};
}

// A message: its decoded metadata (pointing into `metadata`, which the source or this struct
// keeps alive) and its body.
struct RawMessage {
  MessageView view;
  Buffer body;
  int64_t offset = 0;  // of the message in the file or stream
  std::vector<uint8_t> storage;
};

class MessageSource {
 public:
  virtual ~MessageSource() = default;
  // The next message; false at the end of the stream (the end-of-stream marker, or the end
  // of the data between messages).
  virtual bool next(RawMessage& m) = 0;
};

// Reads the message whose prefix starts at `pos` of `bytes` (`end` bounds it): the
// continuation marker (or a pre-1.0 bare length), the metadata, the body.
bool parse_message(const Buffer& bytes, int64_t pos, int64_t end, RawMessage& m, int64_t* next_pos) {
  const uint8_t* d = bytes.data();
  if (pos == end) return false;
  EMBER_CHECK(end - pos >= 4, "truncated: ", end - pos, " bytes at byte ", pos, " where a message begins");
  int64_t len = read_le<uint32_t>(d + pos);
  int64_t at = pos + 4;
  if (uint32_t(len) == fbs::kContinuation) {
    EMBER_CHECK(end - at >= 4, "truncated: the message length at byte ", at, " is cut off");
    len = read_le<int32_t>(d + at);
    at += 4;
  }
  if (len == 0) return false;  // end of stream
  EMBER_CHECK(len > 0 && len <= end - at, "the message at byte ", pos, " has ", len, " bytes of metadata but only ",
              end - at, " bytes remain");
  m.offset = pos;
  m.view = io::detail::decode_message(d + at, len, "IPC message metadata");
  at += len;
  EMBER_CHECK(m.view.body_length <= end - at, "the ", io::detail::message_type_name(m.view.header_type),
              " message at byte ", pos, " has a body of ", m.view.body_length, " bytes but only ", end - at,
              " bytes remain");
  m.body = bytes.slice(at, m.view.body_length);
  *next_pos = at + m.view.body_length;
  return true;
}

class BufferSource final : public MessageSource {
 public:
  BufferSource(Buffer bytes, int64_t start) : bytes_(std::move(bytes)), pos_(start) {}
  bool next(RawMessage& m) override {
    if (done_) return false;
    int64_t next_pos = pos_;
    if (!parse_message(bytes_, pos_, bytes_.size(), m, &next_pos)) {
      done_ = true;
      return false;
    }
    pos_ = next_pos;
    return true;
  }

 private:
  Buffer bytes_;
  int64_t pos_;
  bool done_ = false;
};

class IstreamSource final : public MessageSource {
 public:
  explicit IstreamSource(std::istream& in) : in_(in) {}
  bool next(RawMessage& m) override {
    if (done_) return false;
    uint8_t word[4];
    const int64_t got = read_some(word, 4);
    if (got == 0) return finish();
    EMBER_CHECK(got == 4, "truncated: ", got, " bytes at byte ", pos_ - got, " where a message begins");
    int64_t len = read_le<uint32_t>(word);
    if (uint32_t(len) == fbs::kContinuation) {
      EMBER_CHECK(read_some(word, 4) == 4, "truncated: the message length at byte ", pos_, " is cut off");
      len = read_le<int32_t>(word);
    }
    if (len == 0) return finish();
    EMBER_CHECK(len > 0 && len <= kMaxMetadataBytes, "the message at byte ", pos_, " claims ", len,
                " bytes of metadata");
    m.offset = pos_;
    // In pieces too: a claim of 256 MB in an 8-byte stream must not zero-fill 256 MB first.
    m.storage.clear();
    for (int64_t done = 0; done < len;) {
      const int64_t piece = std::min<int64_t>(len - done, int64_t(1) << 20);
      m.storage.resize(size_t(done + piece));
      EMBER_CHECK(read_some(m.storage.data() + done, piece) == piece, "truncated: the metadata of the message at byte ",
                  m.offset, " (", len, " bytes) is cut off");
      done += piece;
    }
    m.view = io::detail::decode_message(m.storage.data(), len, "IPC message metadata");
    // The body in pieces, so that a corrupt length runs into the end of the data before it
    // allocates much.
    BufferBuilder body;
    int64_t left = m.view.body_length;
    while (left > 0) {
      const int64_t piece = std::min<int64_t>(left, int64_t(16) << 20);
      const int64_t at = body.size();
      body.resize(at + piece);
      EMBER_CHECK(read_some(body.data() + at, piece) == piece, "truncated: the body of the ",
                  io::detail::message_type_name(m.view.header_type), " message at byte ", m.offset, " (",
                  m.view.body_length, " bytes) is cut off");
      left -= piece;
    }
    m.body = body.finish();
    return true;
  }

 private:
  int64_t read_some(void* p, int64_t n) {
    in_.read(static_cast<char*>(p), std::streamsize(n));
    const int64_t got = in_.gcount();
    pos_ += got;
    return got;
  }
  bool finish() {
    done_ = true;
    return false;
  }
  std::istream& in_;
  int64_t pos_ = 0;
  bool done_ = false;
};

// Loads the arrays of one RecordBatch (or a DictionaryBatch's data) from its body.
class ArrayLoader {
 public:
  ArrayLoader(const fb::Table& batch, const Buffer& body, const std::map<int64_t, ArrayDataPtr>& dicts)
      : body_(body), dicts_(dicts) {
    length_ = batch.scalar<int64_t>(0, 0);
    nodes_ = batch.vector(1, sizeof(FieldNodeMeta));
    buffers_ = batch.vector(2, sizeof(BufferMeta));
    const fb::Table c = batch.table(3);
    if (c.present()) {
      const int8_t codec = c.scalar<int8_t>(0, 0);
      EMBER_CHECK(codec == 0 || codec == 1, "unknown compression codec ", int(codec));
      EMBER_CHECK(c.scalar<int8_t>(1, 0) == 0, "unknown body compression method ", int(c.scalar<int8_t>(1, 0)));
      codec_ = codec == 0 ? IpcCompression::Lz4Frame : IpcCompression::Zstd;
    }
    EMBER_CHECK(length_ >= 0 && length_ <= kMaxElements, "bad batch length ", length_);
  }

  int64_t length() const { return length_; }

  ArrayDataPtr load(const DType& t, const SchemaNode& node, int depth, const std::string& path) {
    EMBER_CHECK(depth <= kMaxSchemaDepth, path, ": arrays nest deeper than ", kMaxSchemaDepth, " levels");
    EMBER_CHECK(node_i_ < nodes_.size(), path, ": the batch has ", nodes_.size(),
                " field nodes, fewer than its schema needs");
    const FieldNodeMeta fn = nodes_.get<FieldNodeMeta>(node_i_++);
    EMBER_CHECK(fn.length >= 0 && fn.length <= kMaxElements, path, ": bad length ", fn.length);
    EMBER_CHECK(fn.null_count >= 0 && fn.null_count <= fn.length, path, ": bad null count ", fn.null_count,
                " for length ", fn.length);
    Buffer validity = next_buffer(1, path, "validity");
    if (fn.null_count == 0) validity = Buffer();
    std::vector<Buffer> buffers{validity};
    std::vector<ArrayDataPtr> children;
    ArrayDataPtr dictionary;
    auto offsets = [&](int64_t width) {
      Buffer o = next_buffer(width, path, "offsets");
      // Writers may leave the offsets of an empty array out.
      if (fn.length == 0 && (!o.defined() || o.size() < width)) o = Buffer::zeros(width);
      buffers.push_back(o);
    };
    if (t.id() == TypeId::Bool) {
      buffers.push_back(next_buffer(1, path, "data"));
    } else if (t.is_fixed_width()) {
      buffers.push_back(next_buffer(t.byte_width(), path, "data"));
    } else if (t.is_binary_like()) {
      offsets(t.has_large_offsets() ? 8 : 4);
      buffers.push_back(next_buffer(1, path, "data"));
    } else if (t.is_list_like()) {
      offsets(t.has_large_offsets() ? 8 : 4);
      children.push_back(load(child_type(t, 0), node.children.at(0), depth + 1,
                              path + (t.id() == TypeId::Map ? ".entries" : ".item")));
    } else if (t.id() == TypeId::Struct) {
      for (size_t i = 0; i < t.fields().size(); ++i)
        children.push_back(load(t.fields()[i].dtype, node.children.at(i), depth + 1, path + "." + t.fields()[i].name));
    } else if (t.id() == TypeId::Dictionary) {
      buffers.push_back(next_buffer(t.index_type().byte_width(), path, "indices"));
      auto it = dicts_.find(node.dict_id);
      if (it != dicts_.end()) {
        dictionary = it->second;
      } else {
        EMBER_CHECK(fn.length == 0, path, ": no dictionary with id ", node.dict_id, " came before the batch");
        dictionary = io::detail::empty_array(t.value_type());
      }
    }
    return ArrayData::make(t, fn.length, std::move(buffers), std::move(children), fn.null_count, 0,
                           std::move(dictionary));
  }

 private:
  Buffer next_buffer(int64_t align, const std::string& path, const char* what) {
    EMBER_CHECK(buffer_i_ < buffers_.size(), path, ": the batch has ", buffers_.size(),
                " buffers, fewer than its schema needs");
    const BufferMeta m = buffers_.get<BufferMeta>(buffer_i_++);
    const int64_t body = body_.size();
    EMBER_CHECK(m.offset >= 0 && m.length >= 0 && m.offset <= body && m.length <= body - m.offset, path, ": the ",
                what, " buffer (bytes ", m.offset, " + ", m.length, ") lies outside the message body of ", body,
                " bytes");
    if (m.length == 0) return Buffer::zeros(0);
    if (codec_ != IpcCompression::None) {
      EMBER_CHECK(m.length >= 8, path, ": the compressed ", what, " buffer has ", m.length,
                  " bytes, too few for its length prefix");
      const uint8_t* src = body_.data() + m.offset;
      const int64_t n = read_le<int64_t>(src);
      if (n == -1) return aligned(body_.slice(m.offset + 8, m.length - 8), align);  // stored uncompressed
      EMBER_CHECK(n >= 0 && n <= kMaxBufferBytes && n <= (m.length - 8) * kMaxRatio + kRatioSlack, path,
                  ": the compressed ", what, " buffer claims ", n, " bytes from ", m.length - 8, " compressed bytes");
      auto [p, buf] = allocate(n, path);
      io::detail::decompress(codec_, src + 8, m.length - 8, p, n, path + ": the " + what + " buffer");
      return buf;
    }
    return aligned(body_.slice(m.offset, m.length), align);
  }

  static Buffer aligned(Buffer b, int64_t align) {
    if (align > 1 && !b.is_aligned(align)) return Buffer::copy_of(b.data(), b.size());
    return b;
  }

  Buffer body_;
  const std::map<int64_t, ArrayDataPtr>& dicts_;
  int64_t length_ = 0;
  fb::Vector nodes_, buffers_;
  int64_t node_i_ = 0, buffer_i_ = 0;
  IpcCompression codec_ = IpcCompression::None;
};

// Whether any string in `a` (a validated array, children and dictionaries included) has a
// byte outside ASCII: a scan of whole data buffers at memory speed, where a UTF-8 check
// goes string by string.
bool has_non_ascii_strings(const ArrayData& a) {
  if (a.type.is_string() && a.length > 0) {
    const auto [b, e] = a.type.has_large_offsets()
                            ? std::pair<int64_t, int64_t>(a.buffers[1].data_as<int64_t>()[a.offset],
                                                          a.buffers[1].data_as<int64_t>()[a.offset + a.length])
                            : std::pair<int64_t, int64_t>(a.buffers[1].data_as<int32_t>()[a.offset],
                                                          a.buffers[1].data_as<int32_t>()[a.offset + a.length]);
    const uint8_t* d = a.buffers[2].data();
    uint64_t high = 0;
    int64_t i = b;
    for (; i + 8 <= e; i += 8) {
      uint64_t w;
      std::memcpy(&w, d + i, 8);
      high |= w;
    }
    for (; i < e; ++i) high |= d[i];
    if (high & 0x8080808080808080ULL) return true;
  }
  for (const auto& c : a.children)
    if (has_non_ascii_strings(*c)) return true;
  return a.dictionary && has_non_ascii_strings(*a.dictionary);
}

// Every check, the UTF-8 of strings included (string by string only when some byte is not
// ASCII).
void validate(const ArrayData& a) {
  a.validate();
  if (has_non_ascii_strings(a)) {
    ValidateOptions opts;
    opts.check_utf8 = true;
    a.validate(opts);
  }
}

}  // namespace

// What the readers share: the schema, the dictionaries received so far, and the decoding of
// batch messages.
struct IpcReaderCore {
  std::string op;  // "read_feather: 'path'"
  std::unique_ptr<DecodedSchema> schema;
  std::map<int64_t, ArrayDataPtr> dicts;
  bool file_format = false;

  // Runs `f`, giving any error the reader's name and `where` as context.
  template <class F>
  auto with_context(const std::string& where, F&& f) -> decltype(f()) {
    try {
      return f();
    } catch (const std::exception& e) {
      EMBER_ERROR(op, where.empty() ? "" : ": ", where, ": ", e.what());
    }
  }

  void set_schema(const fb::Table& t) { schema = std::make_unique<DecodedSchema>(io::detail::decode_schema(t, "schema")); }

  void read_dictionary(const RawMessage& m) {
    const fb::Table& h = m.view.header;
    const int64_t id = h.scalar<int64_t>(0, 0);
    const bool delta = h.scalar<uint8_t>(2, 0) != 0;
    auto it = schema->dictionaries.find(id);
    EMBER_CHECK(it != schema->dictionaries.end(), "dictionary id ", id, " belongs to no field of the schema");
    const DecodedSchema::Dictionary& d = it->second;
    const fb::Table data = h.table(1);
    EMBER_CHECK(data.present(), "the dictionary batch for field ", d.path, " has no data");
    ArrayLoader loader(data, m.body, dicts);
    ArrayDataPtr values = loader.load(d.value_type, *d.node, 0, d.path + ".dictionary");
    EMBER_CHECK(values->length == loader.length(), d.path, ": the dictionary has ", values->length,
                " values but its batch says ", loader.length());
    validate(*values);
    auto held = dicts.find(id);
    if (delta) {
      EMBER_CHECK(held != dicts.end(), d.path, ": a dictionary delta came before the dictionary itself");
      held->second = io::detail::concat_arrays({held->second, values}, d.value_type);
    } else {
      EMBER_CHECK(!file_format || held == dicts.end(), d.path,
                  ": a second dictionary replaces the first; the IPC file format does not allow replacement");
      dicts[id] = std::move(values);
    }
  }

  DataFrame read_batch(const RawMessage& m) {
    ArrayLoader loader(m.view.header, m.body, dicts);
    const auto& fields = schema->type.fields();
    std::vector<std::pair<std::string, Column>> cols;
    for (size_t i = 0; i < fields.size(); ++i) {
      const std::string path = "column '" + fields[i].name + "'";
      ArrayDataPtr a = loader.load(fields[i].dtype, schema->columns[i], 0, path);
      EMBER_CHECK(a->length == loader.length(), path, " has ", a->length, " rows; the batch has ", loader.length());
      validate(*a);
      cols.emplace_back(fields[i].name, Column::from_data_unchecked(std::move(a)));
    }
    return DataFrame(std::move(cols));
  }

  DataFrame empty_frame() const {
    std::vector<std::pair<std::string, Column>> cols;
    for (const Field& f : schema->type.fields())
      cols.emplace_back(f.name, Column::from_data_unchecked(io::detail::empty_array(f.dtype)));
    return DataFrame(std::move(cols));
  }

  DataFrame concat(const std::vector<DataFrame>& frames) const {
    if (frames.empty()) return empty_frame();
    if (frames.size() == 1) return frames[0];
    const auto& fields = schema->type.fields();
    std::vector<std::pair<std::string, Column>> cols(fields.size());
    std::vector<std::exception_ptr> errors(fields.size());
    parallel_for(0, int64_t(fields.size()), 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        try {
          std::vector<ArrayDataPtr> parts;
          for (const DataFrame& f : frames) parts.push_back(f.column(i).data());
          cols[size_t(i)] = {fields[size_t(i)].name,
                             Column::from_data_unchecked(io::detail::concat_arrays(parts, fields[size_t(i)].dtype))};
        } catch (...) {
          errors[size_t(i)] = std::current_exception();
        }
      }
    });
    for (const auto& e : errors)
      if (e) std::rethrow_exception(e);
    return DataFrame(std::move(cols));
  }
};

namespace {

Buffer read_file(const std::string& path, const std::string& op) {
  std::error_code ec;
  EMBER_CHECK(!std::filesystem::is_directory(path, ec), op, ": '", path, "' is a directory");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  EMBER_CHECK(in.is_open(), op, ": cannot open '", path, "'");
  const std::streamoff size = in.tellg();
  EMBER_CHECK(size >= 0, op, ": cannot read '", path, "'");
  in.seekg(0);
  auto [p, buf] = allocate(int64_t(size), op);
  in.read(reinterpret_cast<char*>(p), size);
  EMBER_CHECK(in.gcount() == size, op, ": reading '", path, "' failed");
  return buf;
}

}  // namespace

// ---- file ---------------------------------------------------------------------------

struct IpcFileReader::Impl : IpcReaderCore {
  Buffer bytes;
  std::vector<io::detail::BlockMeta> batches;
  int64_t footer_start = 0;

  void open() {
    file_format = true;
    const uint8_t* d = bytes.data();
    const int64_t n = bytes.size();
    EMBER_CHECK(n >= 6 + 2 + 4 + 6 && std::memcmp(d, "ARROW1", 6) == 0 && std::memcmp(d + n - 6, "ARROW1", 6) == 0,
                op, ": not an Arrow IPC file (Feather v2): the \"ARROW1\" magic is missing at its ",
                n >= 6 && std::memcmp(d, "ARROW1", 6) == 0 ? "end" : "start", " (", n, " bytes)");
    const int64_t footer_len = read_le<int32_t>(d + n - 10);
    EMBER_CHECK(footer_len > 0 && footer_len <= n - 18, op, ": bad footer length ", footer_len, " in a file of ", n,
                " bytes");
    footer_start = n - 10 - footer_len;
    std::vector<io::detail::BlockMeta> dict_blocks;
    with_context("footer", [&] {
      const fb::Table footer = fb::Table::root(d + footer_start, footer_len, "IPC file footer");
      set_schema(footer.table(1));
      const fb::Vector dv = footer.vector(2, sizeof(io::detail::BlockMeta));
      const fb::Vector bv = footer.vector(3, sizeof(io::detail::BlockMeta));
      for (int64_t i = 0; i < bv.size(); ++i) batches.push_back(bv.get<io::detail::BlockMeta>(i));
      for (int64_t i = 0; i < dv.size(); ++i) dict_blocks.push_back(dv.get<io::detail::BlockMeta>(i));
    });
    for (size_t i = 0; i < dict_blocks.size(); ++i) {
      with_context("dictionary batch " + std::to_string(i), [&] {
        RawMessage m = message_at(dict_blocks[i]);
        EMBER_CHECK(m.view.header_type == fbs::kDictionaryBatch, "the footer points to a ",
                    io::detail::message_type_name(m.view.header_type), " message");
        read_dictionary(m);
      });
    }
  }

  RawMessage message_at(const io::detail::BlockMeta& b) {
    EMBER_CHECK(b.offset >= 8 && b.metadata_length > 0 && b.body_length >= 0 && b.offset <= footer_start &&
                    b.metadata_length <= footer_start - b.offset &&
                    b.body_length <= footer_start - b.offset - b.metadata_length,
                "the block (offset ", b.offset, ", metadata ", b.metadata_length, " bytes, body ", b.body_length,
                " bytes) lies outside the file's ", footer_start, " bytes of messages");
    RawMessage m;
    int64_t next = 0;
    const int64_t end = b.offset + b.metadata_length + b.body_length;
    EMBER_CHECK(parse_message(bytes, b.offset, end, m, &next), "the block at byte ", b.offset,
                " holds an end-of-stream marker");
    EMBER_CHECK(next == end, "the message at byte ", b.offset, " ends at byte ", next, "; its block ends at ", end);
    return m;
  }

  DataFrame batch(int64_t i) {
    EMBER_CHECK_INDEX(i >= 0 && i < int64_t(batches.size()), op, ": record batch ", i, " is out of range (the file has ",
                      batches.size(), ")");
    return with_context("record batch " + std::to_string(i), [&] {
      RawMessage m = message_at(batches[size_t(i)]);
      EMBER_CHECK(m.view.header_type == fbs::kRecordBatch, "the footer points to a ",
                  io::detail::message_type_name(m.view.header_type), " message");
      return read_batch(m);
    });
  }
};

IpcFileReader::IpcFileReader(const std::string& path) : impl_(std::make_unique<Impl>()) {
  impl_->op = "read_feather: '" + path + "'";
  impl_->bytes = read_file(path, impl_->op);
  impl_->open();
}

IpcFileReader::IpcFileReader(Buffer bytes, std::string name) : impl_(std::make_unique<Impl>()) {
  impl_->op = "read_feather: '" + name + "'";
  impl_->bytes = std::move(bytes);
  impl_->open();
}

IpcFileReader::~IpcFileReader() = default;
IpcFileReader::IpcFileReader(IpcFileReader&&) noexcept = default;
const DType& IpcFileReader::schema() const { return impl_->schema->type; }
const KeyValueMetadata& IpcFileReader::metadata() const { return impl_->schema->metadata; }
int64_t IpcFileReader::num_record_batches() const { return int64_t(impl_->batches.size()); }
DataFrame IpcFileReader::read_record_batch(int64_t i) { return impl_->batch(i); }

std::vector<DataFrame> IpcFileReader::read_all() {
  // Batches are independent once the dictionaries are read: decoded (and validated) in
  // parallel when there is enough data to pay for the threads.
  const int64_t n = num_record_batches();
  std::vector<DataFrame> out(static_cast<size_t>(n));
  std::vector<std::exception_ptr> errors(static_cast<size_t>(n));
  auto decode = [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      try {
        out[size_t(i)] = impl_->batch(i);
      } catch (...) {
        errors[size_t(i)] = std::current_exception();
      }
    }
  };
  if (n > 1 && impl_->bytes.size() > (int64_t(1) << 20)) parallel_for(0, n, 1, decode);
  else decode(0, n);
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  return out;
}

DataFrame IpcFileReader::read_table() {
  return impl_->with_context("", [&] { return impl_->concat(read_all()); });
}

DataFrame read_feather(const std::string& path) { return IpcFileReader(path).read_table(); }

// ---- stream -------------------------------------------------------------------------

struct IpcStreamReader::Impl : IpcReaderCore {
  std::unique_ptr<std::ifstream> file;
  std::unique_ptr<MessageSource> source;
  int64_t messages = 0;
  bool done = false;

  bool next_message(RawMessage& m) {
    return with_context("message " + std::to_string(messages), [&] {
      const bool got = source->next(m);
      ++messages;
      return got;
    });
  }

  void open() {
    RawMessage m;
    EMBER_CHECK(next_message(m), op, ": the stream is empty (no schema message)");
    EMBER_CHECK(m.view.header_type == fbs::kSchema, op, ": the stream begins with a ",
                io::detail::message_type_name(m.view.header_type), " message; expected a Schema");
    with_context("schema", [&] { set_schema(m.view.header); });
  }

  std::optional<DataFrame> next() {
    while (!done) {
      RawMessage m;
      if (!next_message(m)) {
        done = true;
        break;
      }
      const std::string where = std::string(io::detail::message_type_name(m.view.header_type)) + " message " +
                                std::to_string(messages - 1) + " (at byte " + std::to_string(m.offset) + ")";
      switch (m.view.header_type) {
        case fbs::kDictionaryBatch: with_context(where, [&] { read_dictionary(m); }); break;
        case fbs::kRecordBatch: return with_context(where, [&] { return read_batch(m); });
        default: EMBER_ERROR(op, ": ", where, ": unexpected message type");
      }
    }
    return std::nullopt;
  }
};

IpcStreamReader::IpcStreamReader(const std::string& path) : impl_(std::make_unique<Impl>()) {
  impl_->op = "read_ipc_stream: '" + path + "'";
  std::error_code ec;
  EMBER_CHECK(!std::filesystem::is_directory(path, ec), impl_->op, ": it is a directory");
  impl_->file = std::make_unique<std::ifstream>(path, std::ios::binary);
  EMBER_CHECK(impl_->file->is_open(), impl_->op, ": cannot open the file");
  impl_->source = std::make_unique<IstreamSource>(*impl_->file);
  impl_->open();
}

IpcStreamReader::IpcStreamReader(std::istream& in, std::string name) : impl_(std::make_unique<Impl>()) {
  impl_->op = "read_ipc_stream: '" + name + "'";
  impl_->source = std::make_unique<IstreamSource>(in);
  impl_->open();
}

IpcStreamReader::IpcStreamReader(Buffer bytes, std::string name) : impl_(std::make_unique<Impl>()) {
  impl_->op = "read_ipc_stream: '" + name + "'";
  impl_->source = std::make_unique<BufferSource>(std::move(bytes), 0);
  impl_->open();
}

IpcStreamReader::~IpcStreamReader() = default;
IpcStreamReader::IpcStreamReader(IpcStreamReader&&) noexcept = default;
const DType& IpcStreamReader::schema() const { return impl_->schema->type; }
const KeyValueMetadata& IpcStreamReader::metadata() const { return impl_->schema->metadata; }
std::optional<DataFrame> IpcStreamReader::next() { return impl_->next(); }

std::vector<DataFrame> IpcStreamReader::read_all() {
  std::vector<DataFrame> out;
  while (auto b = next()) out.push_back(std::move(*b));
  return out;
}

DataFrame IpcStreamReader::read_table() {
  std::vector<DataFrame> frames = read_all();
  return impl_->with_context("", [&] { return impl_->concat(frames); });
}

DataFrame read_ipc_stream(const std::string& path) { return IpcStreamReader(path).read_table(); }
DataFrame read_ipc_stream(std::istream& in) { return IpcStreamReader(in).read_table(); }

}  // namespace ember::frame
