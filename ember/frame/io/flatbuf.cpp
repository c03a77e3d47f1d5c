// See Note [Bounds-checked FlatBuffers] in flatbuf.h. The binary format, briefly: a table
// starts with an int32 soffset to its vtable (vtable = table - soffset); the vtable holds
// uint16 {vtable bytes, table inline bytes, one offset per field (0 = absent)}; offset fields
// (tables, vectors, strings) hold a uint32 added to their own position; a vector or string
// is a uint32 length and then its elements (a string also has a NUL after its bytes).
#include "ember/frame/io/flatbuf.h"

#include <algorithm>

#include "ember/core/error.h"

namespace ember::frame::io::fb {

namespace {

template <class T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

}  // namespace

// ---- reading ------------------------------------------------------------------------

void Table::fail(const std::string& msg) const {
  EMBER_ERROR(what_, ": corrupt metadata (table at byte ", pos_, "): ", msg);
}

Table Table::root(const uint8_t* data, int64_t size, const char* what) {
  EMBER_CHECK(data != nullptr && size >= 8, what, ": corrupt metadata: ", size, " bytes is too small for a FlatBuffer");
  return at(data, size, int64_t(load<uint32_t>(data)), what);
}

Table Table::at(const uint8_t* data, int64_t size, int64_t pos, const char* what) {
  EMBER_CHECK(pos >= 0 && pos <= size - 4, what, ": corrupt metadata: a table offset points to byte ", pos,
              ", outside the ", size, " bytes");
  Table t;
  t.data_ = data;
  t.size_ = size;
  t.pos_ = pos;
  t.what_ = what;
  const int64_t vtable = pos - int64_t(load<int32_t>(data + pos));
  if (vtable < 0 || vtable > size - 4) t.fail("its vtable offset points to byte " + std::to_string(vtable));
  t.vtable_ = vtable;
  t.vtable_bytes_ = load<uint16_t>(data + vtable);
  t.table_bytes_ = load<uint16_t>(data + vtable + 2);
  if (t.vtable_bytes_ < 4 || vtable + t.vtable_bytes_ > size)
    t.fail("bad vtable size " + std::to_string(t.vtable_bytes_));
  if (t.table_bytes_ < 4 || pos + t.table_bytes_ > size) t.fail("bad table size " + std::to_string(t.table_bytes_));
  return t;
}

int64_t Table::field_offset(int field, int64_t bytes) const {
  if (data_ == nullptr) return 0;
  const int64_t entry = 4 + 2 * int64_t(field);
  if (entry + 2 > vtable_bytes_) return 0;  // a field newer than the writer's schema
  const int64_t off = load<uint16_t>(data_ + vtable_ + entry);
  if (off == 0) return 0;
  if (off < 4 || off + bytes > table_bytes_)
    fail("field " + std::to_string(field) + " at offset " + std::to_string(off) + " does not fit in the table's " +
         std::to_string(table_bytes_) + " bytes");
  return off;
}

int64_t Table::follow(int field, int64_t min_bytes) const {
  const int64_t off = field_offset(field, 4);
  if (off == 0) return -1;
  const int64_t target = pos_ + off + int64_t(load<uint32_t>(data_ + pos_ + off));
  if (target > size_ - min_bytes)
    fail("field " + std::to_string(field) + " points to byte " + std::to_string(target) + ", outside the " +
         std::to_string(size_) + " bytes");
  return target;
}

Table Table::table(int field) const {
  const int64_t t = follow(field, 4);
  return t < 0 ? Table() : at(data_, size_, t, what_);
}

std::string_view Table::string(int field) const {
  const int64_t t = follow(field, 4);
  if (t < 0) return {};
  const int64_t n = load<uint32_t>(data_ + t);
  if (n > size_ - t - 4)
    fail("the string of field " + std::to_string(field) + " (" + std::to_string(n) + " bytes) runs past the end");
  return {reinterpret_cast<const char*>(data_ + t + 4), size_t(n)};
}

Vector Table::vector(int field, int64_t elem_size) const {
  Vector v;
  const int64_t t = follow(field, 4);
  if (t < 0) return v;
  const int64_t n = load<uint32_t>(data_ + t);
  if (n * elem_size > size_ - t - 4)
    fail("the vector of field " + std::to_string(field) + " (" + std::to_string(n) + " elements of " +
         std::to_string(elem_size) + " bytes) runs past the end");
  v.data_ = data_;
  v.size_ = size_;
  v.pos_ = t;
  v.length_ = n;
  v.elem_size_ = elem_size;
  v.what_ = what_;
  return v;
}

void Vector::check(int64_t i, size_t read_bytes) const {
  EMBER_CHECK(data_ != nullptr && i >= 0 && i < length_, what_, ": internal: vector index ", i, " of ", length_);
  EMBER_CHECK(int64_t(read_bytes) <= elem_size_, what_, ": internal: reading ", read_bytes, " bytes from elements of ",
              elem_size_);
}

Table Vector::table(int64_t i) const {
  check(i, 4);
  const int64_t at = pos_ + 4 + 4 * i;
  return Table::at(data_, size_, at + int64_t(load<uint32_t>(data_ + at)), what_);
}

std::string_view Vector::string(int64_t i) const {
  check(i, 4);
  const int64_t at = pos_ + 4 + 4 * i;
  const int64_t t = at + int64_t(load<uint32_t>(data_ + at));
  EMBER_CHECK(t <= size_ - 4, what_, ": corrupt metadata: string ", i, " of a vector points outside the buffer");
  const int64_t n = load<uint32_t>(data_ + t);
  EMBER_CHECK(n <= size_ - t - 4, what_, ": corrupt metadata: string ", i, " of a vector runs past the end");
  return {reinterpret_cast<const char*>(data_ + t + 4), size_t(n)};
}

// ---- building -----------------------------------------------------------------------

void Builder::reserve(int64_t n) {
  if (head_ >= n) return;
  const int64_t used = size();
  const int64_t cap = std::max<int64_t>({int64_t(buf_.size()) * 2, used + n + 64, 256});
  std::vector<uint8_t> grown(size_t(cap), 0);
  if (used > 0) std::memcpy(grown.data() + cap - used, buf_.data() + head_, size_t(used));
  buf_.swap(grown);
  head_ = cap - used;
}

void Builder::push(const void* p, int64_t n) {
  reserve(n);
  head_ -= n;
  if (n > 0) std::memcpy(buf_.data() + head_, p, size_t(n));
}

void Builder::pad(int64_t n) {
  reserve(n);
  if (n == 0) return;
  head_ -= n;
  std::memset(buf_.data() + head_, 0, size_t(n));
}

void Builder::align(int64_t alignment, int64_t additional) {
  min_align_ = std::max(min_align_, alignment);
  pad((alignment - (size() + additional) % alignment) % alignment);
}

void Builder::push_uoffset(Offset target) {
  align(4, 0);
  const uint32_t rel = uint32_t(size() + 4 - int64_t(target));
  push(&rel, 4);
}

Builder::Offset Builder::create_string(std::string_view s) {
  align(4, int64_t(s.size()) + 1);
  pad(1);
  push(s.data(), int64_t(s.size()));
  const uint32_t n = uint32_t(s.size());
  push(&n, 4);
  return Offset(size());
}

Builder::Offset Builder::create_vector(const void* data, int64_t n, int64_t elem_size, int64_t alignment) {
  align(std::max<int64_t>(alignment, 4), n * elem_size);
  push(data, n * elem_size);
  const uint32_t len = uint32_t(n);
  push(&len, 4);
  return Offset(size());
}

Builder::Offset Builder::create_offset_vector(const std::vector<Offset>& offsets) {
  align(4, 4 * int64_t(offsets.size()));
  for (size_t i = offsets.size(); i-- > 0;) push_uoffset(offsets[i]);
  const uint32_t len = uint32_t(offsets.size());
  push(&len, 4);
  return Offset(size());
}

void Builder::start_table() {
  EMBER_INTERNAL_ASSERT(table_start_ < 0, "flatbuffers: nested start_table");
  fields_.clear();
  table_start_ = size();
}

void Builder::add_offset(int field, Offset target) {
  push_uoffset(target);
  fields_.push_back({field, size()});
}

void Builder::add_inline_struct(int field, const void* data, int64_t bytes, int64_t alignment) {
  align(alignment, bytes);
  push(data, bytes);
  fields_.push_back({field, size()});
}

Builder::Offset Builder::end_table() {
  EMBER_INTERNAL_ASSERT(table_start_ >= 0, "flatbuffers: end_table without start_table");
  align(4, 0);
  const int32_t placeholder = 0;
  push(&placeholder, 4);
  const int64_t table_off = size();
  int nfields = 0;
  for (const FieldLoc& f : fields_) nfields = std::max(nfields, f.field + 1);
  std::vector<uint16_t> entries(size_t(nfields), 0);
  for (const FieldLoc& f : fields_) entries[size_t(f.field)] = uint16_t(table_off - f.at);
  for (size_t i = entries.size(); i-- > 0;) push(&entries[i], 2);
  const uint16_t table_bytes = uint16_t(table_off - table_start_);
  const uint16_t vtable_bytes = uint16_t(4 + 2 * nfields);
  push(&table_bytes, 2);
  push(&vtable_bytes, 2);
  const int32_t soffset = int32_t(size() - table_off);
  std::memcpy(buf_.data() + buf_.size() - table_off, &soffset, 4);
  table_start_ = -1;
  fields_.clear();
  return Offset(table_off);
}

std::vector<uint8_t> Builder::finish(Offset root) {
  align(min_align_, 4);
  push_uoffset(root);
  return std::vector<uint8_t>(buf_.begin() + head_, buf_.end());
}

}  // namespace ember::frame::io::fb
