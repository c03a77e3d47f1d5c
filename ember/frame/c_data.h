// The Arrow C Data Interface and C Stream Interface
// (arrow.apache.org/docs/format/CDataInterface.html, CStreamInterface.html): the ABI
// structs exactly as the specification defines them, and zero-copy export and import of
// columns, frames (as struct arrays, i.e. record batches) and streams of frames.
//
// Ownership, as the specification says:
//  * export_*: ember fills caller-provided structs. Each exported ArrowArray (every child and
//    dictionary too) holds references to ember's buffers, so the memory stays alive until
//    the consumer calls release; release frees that node's references, releases the
//    children it still owns (a consumer may move children out and release them alone),
//    and sets release to NULL.
//  * import_*: ember takes ownership. The ArrowArray is moved (the caller's struct is
//    marked released) into a shared owner that every imported buffer references; release
//    runs exactly once, when the last column, slice or tensor using the memory goes. The
//    ArrowSchema is consumed (released) as soon as the type is read. On any error both
//    are released and ember::Error says what was wrong.
//  * Imports check everything the C interface lets them check (ArrayData::validate: counts
//    of buffers and children, offsets, child lengths, dictionary indices, null counts,
//    UTF-8) before any element is read. The interface carries no buffer sizes: ember
//    trusts that each buffer holds what length + offset (and, for strings and binaries,
//    the last offset) say, as every Arrow consumer must. A buffer that is not aligned to
//    its element size is copied (the spec does not require alignment).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

extern "C" {
struct ArrowSchema {
  // Array type description
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;

  // Release callback
  void (*release)(struct ArrowSchema*);
  // Opaque producer-specific data
  void* private_data;
};

struct ArrowArray {
  // Array data description
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;

  // Release callback
  void (*release)(struct ArrowArray*);
  // Opaque producer-specific data
  void* private_data;
};
}  // extern "C"

#endif  // ARROW_C_DATA_INTERFACE

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

extern "C" {
struct ArrowArrayStream {
  // Callbacks providing stream functionality
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
  const char* (*get_last_error)(struct ArrowArrayStream*);

  // Release callback
  void (*release)(struct ArrowArrayStream*);

  // Opaque producer-specific data
  void* private_data;
};
}  // extern "C"

#endif  // ARROW_C_STREAM_INTERFACE

#include "ember/frame/dataframe.h"

namespace ember::frame {

struct ImportOptions {
  // Check that strings are valid UTF-8 (ember's string columns always are).
  bool validate_utf8 = true;
};

// ---- export ---------------------------------------------------------------------------
// The type as a schema (a dictionary type's values become schema->dictionary).
void export_type(const DType& type, ArrowSchema* out, const std::string& name = "");
// The column's array, and its schema when out_schema is not null.
void export_column(const Column& column, ArrowArray* out_array, ArrowSchema* out_schema = nullptr);
// The frame as a struct array without nulls (Arrow's record batch), and its schema.
void export_dataframe(const DataFrame& df, ArrowArray* out_array, ArrowSchema* out_schema = nullptr);

// ---- import ---------------------------------------------------------------------------
// The type a schema describes; the schema is released. `name`, if given, receives its name.
DType import_type(ArrowSchema* schema, std::string* name = nullptr);
Column import_column(ArrowArray* array, ArrowSchema* schema, const ImportOptions& options = {});
// With the type known already (say from a stream's schema).
Column import_column(ArrowArray* array, const DType& type, const ImportOptions& options = {});
// A struct array without top-level nulls (a record batch) as a frame.
DataFrame import_dataframe(ArrowArray* array, ArrowSchema* schema, const ImportOptions& options = {});
DataFrame import_dataframe(ArrowArray* array, const DType& struct_type, const ImportOptions& options = {});

// ---- streams --------------------------------------------------------------------------
// A stream of frames sharing `schema` (a struct type): get_next calls next() until it
// returns nullopt. A frame with another schema, or an exception from next(), ends the
// stream with an error (EINVAL, or EIO for exceptions that are not ember::Error; ENOMEM for
// bad_alloc) that get_last_error describes.
void export_stream(const DType& schema, std::function<std::optional<DataFrame>()> next, ArrowArrayStream* out);
// The frames, in order; the schema is the first frame's (or `schema` when given, needed
// for an empty list).
void export_stream(std::vector<DataFrame> frames, ArrowArrayStream* out,
                   const std::optional<DType>& schema = std::nullopt);

// Reads a stream that someone else produced; takes ownership of it (the caller's struct
// is marked released) and releases it on destruction.
class StreamReader {
 public:
  explicit StreamReader(ArrowArrayStream* stream, const ImportOptions& options = {});
  ~StreamReader();
  StreamReader(StreamReader&&) noexcept;
  StreamReader(const StreamReader&) = delete;
  StreamReader& operator=(const StreamReader&) = delete;

  const DType& schema() const { return schema_; }
  // The next frame, or nullopt at the end of the stream.
  std::optional<DataFrame> next();
  std::vector<DataFrame> read_all();

 private:
  std::unique_ptr<ArrowArrayStream> stream_;
  DType schema_{TypeId::Bool};
  ImportOptions options_;
  bool done_ = false;
};

}  // namespace ember::frame
