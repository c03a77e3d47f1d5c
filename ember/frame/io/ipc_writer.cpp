// Writing the Arrow IPC stream and file formats. A message is written as
//   0xFFFFFFFF, int32 metadata size, Message flatbuffer (padded to 8), body
// and a body is the batch's buffers in pre-order, each padded to 8 bytes (and, with
// compression, each an int64 uncompressed length followed by the codec's output). Sliced
// columns are written from element 0: bitmaps are shifted, offsets rebased, children cut
// to the range their parents use.
#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <ostream>

#include "ember/core/error.h"
#include "ember/frame/detail/physical.h"
#include "ember/frame/io/compression.h"
#include "ember/frame/io/concat.h"
#include "ember/frame/io/ipc.h"
#include "ember/frame/io/ipc_format.h"

namespace ember::frame {

using io::detail::BatchMeta;
using io::detail::BlockMeta;
using io::detail::SchemaNode;

const char* to_string(IpcCompression c) {
  switch (c) {
    case IpcCompression::None: return "none";
    case IpcCompression::Lz4Frame: return "lz4";
    case IpcCompression::Zstd: return "zstd";
  }
  return "?";
}

namespace {

int64_t pad8(int64_t n) { return (n + 7) & ~int64_t(7); }

// One batch's body: its field nodes and buffers, with their places in the body.
class BodyBuilder {
 public:
  BodyBuilder(const IpcWriteOptions& opts, const std::map<int64_t, int64_t>& shifts) : opts_(opts), shifts_(shifts) {
    meta_.compression = opts.compression;
  }

  void add(const ArrayData& a, const SchemaNode& node) {
    meta_.nodes.push_back({a.length, a.null_count()});
    add_buffer(a.null_count() == 0 ? Buffer() : bitmap(a.buffers[0], a.offset, a.length));
    const DType& t = a.type;
    if (t.id() == TypeId::Bool) {
      add_buffer(bitmap(a.buffers[1], a.offset, a.length));
    } else if (t.is_fixed_width()) {
      add_buffer(fixed(a.buffers[1], a.offset, a.length, t.byte_width()));
    } else if (t.is_binary_like() || t.is_list_like()) {
      int64_t first = 0, last = 0;
      add_buffer(t.has_large_offsets() ? offsets<int64_t>(a, &first, &last) : offsets<int32_t>(a, &first, &last));
      if (t.is_binary_like()) {
        add_buffer(last > first ? a.buffers[2].slice(first, last - first) : Buffer());
      } else {
        add(*a.children[0]->slice(first, last - first), node.children[0]);
      }
    } else if (t.id() == TypeId::Struct) {
      for (size_t i = 0; i < a.children.size(); ++i) add(*a.children[i]->slice(a.offset, a.length), node.children[i]);
    } else if (t.id() == TypeId::Dictionary) {
      const DType& it = t.index_type();
      auto s = shifts_.find(node.dict_id);
      if (s == shifts_.end() || s->second == 0) add_buffer(fixed(a.buffers[1], a.offset, a.length, it.byte_width()));
      else add_buffer(shifted(a, s->second));
    } else {
      EMBER_ERROR("write_ipc: unsupported type ", t.to_string());
    }
  }

  BatchMeta& meta() { return meta_; }
  const std::vector<Buffer>& buffers() const { return buffers_; }
  int64_t body_length() const { return body_length_; }

 private:
  void add_buffer(Buffer b) {
    if (opts_.compression != IpcCompression::None && b.defined() && b.size() > 0) {
      BufferBuilder out;
      out.append_value<int64_t>(b.size());
      io::detail::compress(opts_.compression, opts_.compression_level, b.data(), b.size(), out);
      b = out.finish();
    }
    const int64_t n = b.defined() ? b.size() : 0;
    meta_.buffers.push_back({body_length_, n});
    buffers_.push_back(std::move(b));
    body_length_ += pad8(n);
  }

  static Buffer bitmap(const Buffer& b, int64_t offset, int64_t length) {
    const int64_t bytes = bits::bytes_for(length);
    if (offset % 8 == 0) return b.slice(offset / 8, bytes);
    BufferBuilder out;
    out.resize(bytes);
    io::detail::copy_bits(b.data(), offset, length, out.data(), 0);
    return out.finish();
  }

  static Buffer fixed(const Buffer& b, int64_t offset, int64_t length, int64_t width) {
    if (length == 0) return Buffer();
    return b.slice(offset * width, length * width);
  }

  template <class O>
  static Buffer offsets(const ArrayData& a, int64_t* first, int64_t* last) {
    if (a.length == 0) return Buffer::zeros(sizeof(O));
    const O* o = a.buffers[1].data_as<O>() + a.offset;
    *first = int64_t(o[0]);
    *last = int64_t(o[a.length]);
    if (*first == 0) return a.buffers[1].slice(a.offset * int64_t(sizeof(O)), (a.length + 1) * int64_t(sizeof(O)));
    BufferBuilder out;
    out.resize((a.length + 1) * int64_t(sizeof(O)));
    O* d = reinterpret_cast<O*>(out.data());
    for (int64_t i = 0; i <= a.length; ++i) d[i] = O(o[i] - o[0]);
    return out.finish();
  }

  // A dictionary array's indices plus `shift` (the file format appends a changed dictionary
  // to the old one instead of replacing it).
  static Buffer shifted(const ArrayData& a, int64_t shift) {
    const DType& it = a.type.index_type();
    BufferBuilder out;
    out.resize(a.length * it.byte_width());
    frame::detail::visit_numeric(it.id(), [&](auto tag) {
      using I = decltype(tag);
      if constexpr (std::is_integral_v<I>) {
        const I* src = a.buffers[1].data_as<I>() + a.offset;
        I* dst = reinterpret_cast<I*>(out.data());
        for (int64_t i = 0; i < a.length; ++i) {
          if (!a.is_valid(i)) continue;
          const int64_t v = int64_t(src[i]) + shift;
          EMBER_CHECK(uint64_t(v) <= uint64_t(std::numeric_limits<I>::max()), "write_ipc: the dictionary of a ",
                      a.type.to_string(), " column changed between batches; the IPC file format cannot replace a "
                      "dictionary, and appending it overflows the index type (write a stream, or use one dictionary)");
          dst[i] = I(v);
        }
      }
    });
    return out.finish();
  }

  const IpcWriteOptions& opts_;
  const std::map<int64_t, int64_t>& shifts_;
  BatchMeta meta_;
  std::vector<Buffer> buffers_;
  int64_t body_length_ = 0;
};

// Every null where `want` (a schema type) says non-nullable, searched through the nesting.
void check_nulls_fit(const ArrayData& a, const DType& want, const std::string& path) {
  EMBER_CHECK(want.nullable() || a.null_count() == 0, "write_ipc: column ", path, " has ", a.null_count(),
              " nulls but the schema's type ", want.to_string(), " is not nullable");
  const DType& t = a.type;
  if (t.is_list_like()) {
    auto [first, last] = a.length == 0 ? std::pair<int64_t, int64_t>{0, 0}
                                       : std::pair{frame::detail::list_range(a, 0).first,
                                                   frame::detail::list_range(a, a.length - 1).second};
    check_nulls_fit(*a.children[0]->slice(first, last - first), child_type(want, 0), path + ".item");
  } else if (t.id() == TypeId::Struct) {
    for (size_t i = 0; i < a.children.size(); ++i)
      check_nulls_fit(*a.children[i]->slice(a.offset, a.length), want.fields()[i].dtype,
                      path + "." + want.fields()[i].name);
  } else if (t.id() == TypeId::Dictionary) {
    check_nulls_fit(*a.dictionary, want.value_type(), path + ".dictionary");
  }
}

// The dictionaries a batch uses, inner ones (inside dictionary values) first.
void collect_dictionaries(const ArrayData& a, const SchemaNode& node, std::vector<std::pair<int64_t, ArrayDataPtr>>& out) {
  if (a.type.id() == TypeId::Dictionary) {
    for (size_t i = 0; i < a.dictionary->children.size(); ++i)
      collect_dictionaries(*a.dictionary->children[i], node.children[i], out);
    out.emplace_back(node.dict_id, a.dictionary);
    return;
  }
  for (size_t i = 0; i < a.children.size(); ++i) collect_dictionaries(*a.children[i], node.children[i], out);
}

bool is_prefix(const ArrayData& prefix, const ArrayData& whole) {
  if (prefix.length > whole.length) return false;
  for (int64_t i = 0; i < prefix.length; ++i)
    if (!frame::detail::elements_equal(prefix, i, whole, i)) return false;
  return true;
}

}  // namespace

// Note [IPC dictionaries]
// A dictionary id's state is what a reader holds for it. Per batch: the same dictionary as
// last time is not sent again; one that extends what the reader holds is sent as a delta of
// the new entries; any other is a replacement in the stream format, while the file format
// (which cannot replace) gets it as a delta appended after the old entries, with this
// batch's indices shifted by the old length.
struct IpcWriterCore {
  std::string op;  // "write_feather: 'path'"
  std::ostream* out = nullptr;
  std::unique_ptr<std::ofstream> owned;
  bool file_format = false;
  DType schema{TypeId::Bool};
  std::vector<SchemaNode> nodes;
  IpcWriteOptions opts;
  int64_t pos = 0;
  bool closed = false;
  struct DictState {
    ArrayDataPtr held;      // what the reader holds
    ArrayDataPtr last_src;  // the dictionary of the last batch
    int64_t last_shift = 0;
  };
  std::map<int64_t, DictState> dicts;
  std::vector<BlockMeta> dict_blocks, batch_blocks;

  IpcWriterCore(std::ostream* o, std::unique_ptr<std::ofstream> f, std::string op_name, bool file, const DType& s,
                const IpcWriteOptions& options)
      : op(std::move(op_name)), out(o), owned(std::move(f)), file_format(file), schema(s), opts(options) {
    EMBER_CHECK(schema.id() == TypeId::Struct, op, ": the schema must be a struct type (DataFrame::dtype()), got ",
                schema.to_string());
    for (size_t i = 0; i < schema.fields().size(); ++i)
      for (size_t j = 0; j < i; ++j)
        EMBER_CHECK(schema.fields()[i].name != schema.fields()[j].name, op, ": the column name '",
                    schema.fields()[i].name, "' appears twice");
    nodes = io::detail::schema_nodes(schema);
    if (file_format) write_bytes("ARROW1\0\0", 8);
    write_message(io::detail::schema_message(schema, nodes, opts.metadata), {}, 0);
  }

  void write_bytes(const void* p, int64_t n) {
    out->write(static_cast<const char*>(p), std::streamsize(n));
    EMBER_CHECK(out->good(), op, ": writing failed after ", pos, " bytes");
    pos += n;
  }

  void write_zeros(int64_t n) {
    static const char zeros[8] = {};
    write_bytes(zeros, n);
  }

  BlockMeta write_message(const std::vector<uint8_t>& metadata, const std::vector<Buffer>& body, int64_t body_length) {
    BlockMeta block{pos, 0, 0, body_length};
    const int64_t padded = pad8(8 + int64_t(metadata.size())) - 8;
    const uint32_t cont = io::detail::fbs::kContinuation;
    const int32_t len = int32_t(padded);
    write_bytes(&cont, 4);
    write_bytes(&len, 4);
    write_bytes(metadata.data(), int64_t(metadata.size()));
    write_zeros(padded - int64_t(metadata.size()));
    block.metadata_length = int32_t(8 + padded);
    for (const Buffer& b : body) {
      if (!b.defined() || b.size() == 0) continue;
      write_bytes(b.data(), b.size());
      write_zeros(pad8(b.size()) - b.size());
    }
    return block;
  }

  void write_dictionary(int64_t id, const ArrayData& values, bool delta, const std::map<int64_t, int64_t>& shifts) {
    BodyBuilder body(opts, shifts);
    const SchemaNode& d = *io::detail::find_dictionary_node(nodes, id);
    body.add(values, d);
    body.meta().length = values.length;
    const BlockMeta block =
        write_message(io::detail::dictionary_batch_message(id, delta, body.meta(), body.body_length()), body.buffers(),
                      body.body_length());
    dict_blocks.push_back(block);
  }

  void write(const DataFrame& batch) {
    EMBER_CHECK(!closed, op, ": the writer is closed");
    EMBER_CHECK(batch.num_columns() == int64_t(schema.fields().size()), op, ": the batch has ", batch.num_columns(),
                " columns; the schema has ", schema.fields().size());
    std::vector<ArrayDataPtr> cols;
    for (int64_t i = 0; i < batch.num_columns(); ++i) {
      const Field& f = schema.fields()[size_t(i)];
      const Column& c = batch.column(i);
      EMBER_CHECK(batch.columns()[size_t(i)] == f.name && c.dtype().equals(f.dtype, false), op, ": batch column ", i,
                  " is '", batch.columns()[size_t(i)], "' of type ", c.dtype().to_string(), "; the schema has '",
                  f.name, "' of type ", f.dtype.to_string());
      if (!(c.dtype() == f.dtype)) check_nulls_fit(*c.data(), f.dtype, "'" + f.name + "'");
      cols.push_back(c.data());
    }

    // Dictionaries first (see Note [IPC dictionaries]); `shifts` applies to this batch.
    std::vector<std::pair<int64_t, ArrayDataPtr>> used;
    for (size_t i = 0; i < cols.size(); ++i) collect_dictionaries(*cols[i], nodes[i], used);
    std::map<int64_t, int64_t> shifts;
    for (const auto& [id, dict] : used) {
      DictState& s = dicts[id];
      if (s.last_src == dict) {
        shifts[id] = s.last_shift;
        continue;
      }
      if (!s.held) {
        write_dictionary(id, *dict, false, shifts);
        s = {dict, dict, 0};
      } else if (is_prefix(*s.held, *dict)) {
        if (dict->length > s.held->length)
          write_dictionary(id, *dict->slice(s.held->length, dict->length - s.held->length), true, shifts);
        s = {dict, dict, 0};
      } else if (!file_format) {
        write_dictionary(id, *dict, false, shifts);
        s = {dict, dict, 0};
      } else {
        write_dictionary(id, *dict, true, shifts);
        const int64_t shift = s.held->length;
        s = {io::detail::concat_arrays({s.held, dict}, dict->type), dict, shift};
      }
      shifts[id] = s.last_shift;
    }

    BodyBuilder body(opts, shifts);
    for (size_t i = 0; i < cols.size(); ++i) body.add(*cols[i], nodes[i]);
    body.meta().length = batch.num_rows();
    const BlockMeta block = write_message(io::detail::record_batch_message(body.meta(), body.body_length()),
                                          body.buffers(), body.body_length());
    batch_blocks.push_back(block);
  }

  void close() {
    if (closed) return;
    closed = true;
    const uint32_t eos[2] = {io::detail::fbs::kContinuation, 0};
    write_bytes(eos, 8);
    if (file_format) {
      const std::vector<uint8_t> f = io::detail::footer(schema, nodes, opts.metadata, dict_blocks, batch_blocks);
      write_bytes(f.data(), int64_t(f.size()));
      const int32_t n = int32_t(f.size());
      write_bytes(&n, 4);
      write_bytes("ARROW1", 6);
    }
    out->flush();
    EMBER_CHECK(out->good(), op, ": flushing failed");
    if (owned) {
      owned->close();
      EMBER_CHECK(!owned->fail(), op, ": closing the file failed");
    }
  }
};

namespace {

std::unique_ptr<std::ofstream> open_out(const std::string& path, const std::string& op) {
  auto f = std::make_unique<std::ofstream>(path, std::ios::binary | std::ios::trunc);
  EMBER_CHECK(f->is_open(), op, ": cannot open '", path, "' for writing");
  return f;
}

void write_frame(IpcWriterCore& w, const DataFrame& df) {
  const int64_t step = w.opts.max_rows_per_batch > 0 ? w.opts.max_rows_per_batch : std::max<int64_t>(df.num_rows(), 1);
  if (df.num_rows() == 0) w.write(df);
  for (int64_t at = 0; at < df.num_rows(); at += step) w.write(df.slice(at, std::min(step, df.num_rows() - at)));
  w.close();
}

}  // namespace

// ---- public API -------------------------------------------------------------------------

struct IpcStreamWriter::Impl : IpcWriterCore {
  using IpcWriterCore::IpcWriterCore;
};
struct IpcFileWriter::Impl : IpcWriterCore {
  using IpcWriterCore::IpcWriterCore;
};

IpcStreamWriter::IpcStreamWriter(const std::string& path, const DType& schema, const IpcWriteOptions& options) {
  const std::string op = "IpcStreamWriter: '" + path + "'";
  auto f = open_out(path, op);
  std::ostream* o = f.get();
  impl_ = std::make_unique<Impl>(o, std::move(f), op, false, schema, options);
}
IpcStreamWriter::IpcStreamWriter(std::ostream& out, const DType& schema, const IpcWriteOptions& options)
    : impl_(std::make_unique<Impl>(&out, nullptr, "IpcStreamWriter", false, schema, options)) {}
IpcStreamWriter::~IpcStreamWriter() {
  if (!impl_) return;
  try {
    impl_->close();
  } catch (...) {
  }
}
IpcStreamWriter::IpcStreamWriter(IpcStreamWriter&&) noexcept = default;
void IpcStreamWriter::write(const DataFrame& batch) { impl_->write(batch); }
void IpcStreamWriter::close() { impl_->close(); }

IpcFileWriter::IpcFileWriter(const std::string& path, const DType& schema, const IpcWriteOptions& options) {
  const std::string op = "IpcFileWriter: '" + path + "'";
  auto f = open_out(path, op);
  std::ostream* o = f.get();
  impl_ = std::make_unique<Impl>(o, std::move(f), op, true, schema, options);
}
IpcFileWriter::IpcFileWriter(std::ostream& out, const DType& schema, const IpcWriteOptions& options)
    : impl_(std::make_unique<Impl>(&out, nullptr, "IpcFileWriter", true, schema, options)) {}
IpcFileWriter::~IpcFileWriter() {
  if (!impl_) return;
  try {
    impl_->close();
  } catch (...) {
  }
}
IpcFileWriter::IpcFileWriter(IpcFileWriter&&) noexcept = default;
void IpcFileWriter::write(const DataFrame& batch) { impl_->write(batch); }
void IpcFileWriter::close() { impl_->close(); }

void write_feather(const DataFrame& df, const std::string& path, const IpcWriteOptions& options) {
  const std::string op = "write_feather: '" + path + "'";
  auto f = open_out(path, op);
  std::ostream* o = f.get();
  IpcWriterCore w(o, std::move(f), op, true, df.dtype(), options);
  write_frame(w, df);
}

void write_feather(const DataFrame& df, std::ostream& out, const IpcWriteOptions& options) {
  IpcWriterCore w(&out, nullptr, "write_feather", true, df.dtype(), options);
  write_frame(w, df);
}

void write_ipc_stream(const DataFrame& df, const std::string& path, const IpcWriteOptions& options) {
  const std::string op = "write_ipc_stream: '" + path + "'";
  auto f = open_out(path, op);
  std::ostream* o = f.get();
  IpcWriterCore w(o, std::move(f), op, false, df.dtype(), options);
  write_frame(w, df);
}

void write_ipc_stream(const DataFrame& df, std::ostream& out, const IpcWriteOptions& options) {
  IpcWriterCore w(&out, nullptr, "write_ipc_stream", false, df.dtype(), options);
  write_frame(w, df);
}

void DataFrame::to_feather(const std::string& path) const { write_feather(*this, path); }
void DataFrame::to_feather(const std::string& path, const IpcWriteOptions& options) const {
  write_feather(*this, path, options);
}

}  // namespace ember::frame
