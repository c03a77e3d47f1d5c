// A minimal FlatBuffers reader and builder for the Arrow IPC metadata (Schema.fbs,
// Message.fbs, File.fbs), written from the FlatBuffers binary format: no generated code and
// no library. Internal to ember/frame/io.
//
// Note [Bounds-checked FlatBuffers]
// The reader trusts nothing: every table, vtable, vector, string and field it touches is
// checked to lie inside the buffer before any byte is read (all reads are memcpy, so no
// alignment is assumed either). A table is checked once when it is opened (its soffset,
// vtable size and inline size); a field is then inside the table's inline bytes by the
// vtable's own bounds, and an offset field's target is checked when followed. Failures
// raise ember::Error naming `what` (the message being read) and the byte offset. Callers
// bound recursion and the total number of tables they decode (a vector may repeat one
// offset many times, so a small buffer can describe a huge tree).
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace ember::frame::io::fb {

class Table;

// A vector field: `length` elements of `elem_size` bytes starting at byte `pos`.
class Vector {
 public:
  Vector() = default;
  int64_t size() const { return length_; }
  bool present() const { return data_ != nullptr; }
  // Element i of a vector of scalars or structs, as raw bytes copied into T (structs are
  // read with their FlatBuffers layout, little-endian, which matches x86-64's).
  template <class T>
  T get(int64_t i) const {
    check(i, sizeof(T));
    T v;
    std::memcpy(&v, data_ + pos_ + 4 + i * elem_size_, sizeof(T));
    return v;
  }
  // Element i of a vector of tables.
  Table table(int64_t i) const;
  // Element i of a vector of strings.
  std::string_view string(int64_t i) const;

 private:
  friend class Table;
  void check(int64_t i, size_t read_bytes) const;
  const uint8_t* data_ = nullptr;
  int64_t size_ = 0;
  int64_t pos_ = 0;
  int64_t length_ = 0;
  int64_t elem_size_ = 1;
  const char* what_ = "";
};

// A table: fields by id (their order in the .fbs file; a union takes two ids, its type
// and its value).
class Table {
 public:
  Table() = default;
  // The root table of a finished buffer (a uoffset at byte 0).
  static Table root(const uint8_t* data, int64_t size, const char* what);

  bool present() const { return data_ != nullptr; }
  int64_t position() const { return pos_; }

  template <class T>
  T scalar(int field, T default_value) const {
    const int64_t off = field_offset(field, sizeof(T));
    if (off == 0) return default_value;
    T v;
    std::memcpy(&v, data_ + pos_ + off, sizeof(T));
    return v;
  }
  bool has(int field) const { return field_offset(field, 1) != 0; }
  // An absent field gives an absent table / vector and an empty string.
  Table table(int field) const;
  bool has_string(int field) const { return field_offset(field, 4) != 0; }
  std::string_view string(int field) const;
  Vector vector(int field, int64_t elem_size) const;
  // A struct stored inline in the table (its raw bytes copied into T).
  template <class T>
  bool inline_struct(int field, T* out) const {
    const int64_t off = field_offset(field, sizeof(T));
    if (off == 0) return false;
    std::memcpy(out, data_ + pos_ + off, sizeof(T));
    return true;
  }

 private:
  friend class Vector;
  static Table at(const uint8_t* data, int64_t size, int64_t pos, const char* what);
  // The offset of field `field` inside the table, 0 when absent; raises an error when the
  // field's `bytes` would not fit in the table's inline data.
  int64_t field_offset(int field, int64_t bytes) const;
  // The position an offset field points at (checked to leave `min_bytes` in the buffer).
  int64_t follow(int field, int64_t min_bytes) const;
  [[noreturn]] void fail(const std::string& msg) const;

  const uint8_t* data_ = nullptr;
  int64_t size_ = 0;
  int64_t pos_ = 0;
  int64_t vtable_ = 0;
  int64_t vtable_bytes_ = 0;
  int64_t table_bytes_ = 0;
  const char* what_ = "";
};

// Builds a buffer back to front, as the FlatBuffers libraries do: children are finished
// before their parents, and an Offset is the distance of an object from the buffer's end.
class Builder {
 public:
  using Offset = uint32_t;

  Offset create_string(std::string_view s);
  // A vector of `n` structs or scalars of `elem_size` bytes each, copied from `data` (in
  // order), aligned to `align`.
  Offset create_vector(const void* data, int64_t n, int64_t elem_size, int64_t align);
  template <class T>
  Offset create_vector(const std::vector<T>& v, int64_t align = sizeof(T)) {
    return create_vector(v.data(), int64_t(v.size()), int64_t(sizeof(T)), align);
  }
  Offset create_offset_vector(const std::vector<Offset>& offsets);

  void start_table();
  template <class T>
  void add_scalar(int field, T v) {
    align(sizeof(T), 0);
    push(&v, sizeof(T));
    fields_.push_back({field, size()});
  }
  void add_offset(int field, Offset target);
  // A struct stored inline (raw bytes, aligned to `align`).
  void add_inline_struct(int field, const void* data, int64_t bytes, int64_t align);
  Offset end_table();

  // The finished buffer, with `root` as its root table.
  std::vector<uint8_t> finish(Offset root);

 private:
  int64_t size() const { return int64_t(buf_.size()) - head_; }
  void reserve(int64_t n);
  void push(const void* p, int64_t n);
  void pad(int64_t n);
  // Pads so that after `additional` more bytes, size() is a multiple of `alignment`.
  void align(int64_t alignment, int64_t additional);
  void push_uoffset(Offset target);

  std::vector<uint8_t> buf_;  // bytes live in [head_, buf_.size())
  int64_t head_ = 0;
  int64_t min_align_ = 1;
  struct FieldLoc {
    int field;
    int64_t at;  // distance from the end
  };
  std::vector<FieldLoc> fields_;
  int64_t table_start_ = -1;
};

}  // namespace ember::frame::io::fb
