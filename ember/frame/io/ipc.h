// The Arrow IPC formats for ember::frame (arrow.apache.org/docs/format/Columnar.html#serialization-and-interprocess-communication-ipc):
// the stream format (a schema message, then dictionary and record batch messages, then an
// end-of-stream marker) and the file format, which is Feather v2 (the stream between
// "ARROW1" magics, with a footer that indexes the batches). pyarrow, pandas (read_feather)
// and polars (read_ipc) read what these write, and these read theirs.
//
//   write_feather(df, "data.feather");                      // pandas' df.to_feather
//   DataFrame df = read_feather("data.feather");            // pd.read_feather
//   IpcStreamWriter w("data.arrows", df.dtype(), IpcWriteOptions().with_compression(IpcCompression::Zstd));
//   w.write(batch1); w.write(batch2); w.close();
//   IpcStreamReader r("data.arrows"); while (auto b = r.next()) { ... }
//
// Every ember dtype is supported, nested ones and dictionaries included (DictionaryBatch
// messages: deltas when a batch's dictionary extends the previous one, replacements in
// streams). Buffers are little-endian, 8-byte aligned and padded; bodies may be compressed
// with LZ4_FRAME or ZSTD per buffer. Reading checks everything (see Note [IPC reading]).
#pragma once
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/frame/dataframe.h"

namespace ember::frame {

enum class IpcCompression : uint8_t { None, Lz4Frame, Zstd };
const char* to_string(IpcCompression c);  // "none", "lz4", "zstd"

using KeyValueMetadata = std::vector<std::pair<std::string, std::string>>;

struct IpcWriteOptions {
  IpcCompression compression = IpcCompression::None;
  // The codec's level; nullopt: its default (LZ4's fast mode, ZSTD level 1 as Arrow uses).
  std::optional<int> compression_level;
  // write_feather / write_ipc_stream split a frame into batches of at most this many rows
  // (pyarrow's feather chunksize); 0: one batch.
  int64_t max_rows_per_batch = 64 * 1024;
  // Schema-level custom metadata (pyarrow's schema.metadata).
  KeyValueMetadata metadata;

  IpcWriteOptions& with_compression(IpcCompression c, std::optional<int> level = std::nullopt) {
    compression = c;
    compression_level = level;
    return *this;
  }
  IpcWriteOptions& with_max_rows_per_batch(int64_t n) { max_rows_per_batch = n; return *this; }
  IpcWriteOptions& with_metadata(KeyValueMetadata m) { metadata = std::move(m); return *this; }
};

// Note [IPC reading]
// Files and streams are untrusted bytes. The FlatBuffers metadata is read with bounds checks
// (flatbuf.h); every buffer and field node is checked against the message body; compressed
// buffers are checked to decompress to exactly their stated length; each column (and each
// dictionary) passes ArrayData::validate() with UTF-8 checks before it is handed out. So a
// truncated or corrupt file raises ember::Error (naming the file, the message, the column)
// and never reads out of bounds. Buffers are zero-copy slices of the file's bytes when they
// are aligned and uncompressed.

// ---- whole frames ---------------------------------------------------------------------
// Feather v2 = the Arrow IPC file format.
void write_feather(const DataFrame& df, const std::string& path, const IpcWriteOptions& options = {});
void write_feather(const DataFrame& df, std::ostream& out, const IpcWriteOptions& options = {});
// All record batches as one frame (concatenated; zero-copy when there is one batch).
DataFrame read_feather(const std::string& path);
void write_ipc_stream(const DataFrame& df, const std::string& path, const IpcWriteOptions& options = {});
void write_ipc_stream(const DataFrame& df, std::ostream& out, const IpcWriteOptions& options = {});
DataFrame read_ipc_stream(const std::string& path);
DataFrame read_ipc_stream(std::istream& in);

// Frames of one schema (a struct type, DataFrame::dtype()) in order. Each frame may have a
// column type with another nullable flag than the schema's, as long as a column of a
// non-nullable schema field holds no nulls.
class IpcStreamWriter {
 public:
  IpcStreamWriter(const std::string& path, const DType& schema, const IpcWriteOptions& options = {});
  IpcStreamWriter(std::ostream& out, const DType& schema, const IpcWriteOptions& options = {});
  ~IpcStreamWriter();  // closes (errors are swallowed there; call close() to see them)
  IpcStreamWriter(IpcStreamWriter&&) noexcept;
  // One record batch (preceded by the dictionaries it needs).
  void write(const DataFrame& batch);
  // Ends the stream (the end-of-stream marker) and flushes. Idempotent.
  void close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class IpcFileWriter {
 public:
  IpcFileWriter(const std::string& path, const DType& schema, const IpcWriteOptions& options = {});
  IpcFileWriter(std::ostream& out, const DType& schema, const IpcWriteOptions& options = {});
  ~IpcFileWriter();
  IpcFileWriter(IpcFileWriter&&) noexcept;
  void write(const DataFrame& batch);
  // Writes the footer and the trailing magic. Idempotent.
  void close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Reads an IPC file (Feather v2) through its footer: random access to record batches.
class IpcFileReader {
 public:
  // Reads the whole file into memory (columns share that memory).
  explicit IpcFileReader(const std::string& path);
  // Reads from bytes held elsewhere (zero-copy: columns keep `bytes` alive). `name` is
  // what errors call it.
  explicit IpcFileReader(Buffer bytes, std::string name = "<buffer>");
  ~IpcFileReader();
  IpcFileReader(IpcFileReader&&) noexcept;

  const DType& schema() const;  // a struct type
  const KeyValueMetadata& metadata() const;
  int64_t num_record_batches() const;
  DataFrame read_record_batch(int64_t i);
  std::vector<DataFrame> read_all();
  // All batches as one frame.
  DataFrame read_table();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Reads the stream format message by message (from a std::istream, a file, or bytes).
class IpcStreamReader {
 public:
  explicit IpcStreamReader(const std::string& path);
  // Reads from `in`, which must outlive the reader.
  explicit IpcStreamReader(std::istream& in, std::string name = "<stream>");
  explicit IpcStreamReader(Buffer bytes, std::string name = "<buffer>");
  ~IpcStreamReader();
  IpcStreamReader(IpcStreamReader&&) noexcept;

  const DType& schema() const;
  const KeyValueMetadata& metadata() const;
  // The next record batch, or nullopt at the end of the stream.
  std::optional<DataFrame> next();
  std::vector<DataFrame> read_all();
  DataFrame read_table();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ember::frame
