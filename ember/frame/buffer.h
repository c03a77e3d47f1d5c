// Buffers for ember::frame columns: immutable, shared, 64-byte aligned blocks of bytes
// (Arrow's buffers), the growable BufferBuilder that produces them, and LSB-order bitmap
// helpers. See ember/frame/frame.h for the design.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

namespace ember::frame {

constexpr int64_t kBufferAlignment = 64;  // Arrow's recommended alignment and padding
constexpr int64_t kMaxBufferBytes = int64_t(1) << 40;  // a sanity bound that keeps sizes far from overflow

// An immutable view of bytes with shared ownership. Copies and slices share the memory;
// it is freed (or its foreign owner released) when the last Buffer referring to it goes.
// Memory allocated by ember is 64-byte aligned and zero-padded to a multiple of 64 bytes.
class Buffer {
 public:
  Buffer() = default;  // undefined: no memory (an absent validity bitmap, say)

  // `size_bytes` zeroed bytes.
  static Buffer zeros(int64_t size_bytes);
  static Buffer copy_of(const void* data, int64_t size_bytes);
  // Wraps memory owned elsewhere: `owner` is kept alive as long as any Buffer refers to the
  // bytes (the zero-copy path for tensors and imported Arrow arrays). No alignment promise.
  static Buffer wrap(const void* data, int64_t size_bytes, std::shared_ptr<const void> owner);

  bool defined() const { return data_ != nullptr; }
  const uint8_t* data() const { return data_; }
  template <class T> const T* data_as() const { return reinterpret_cast<const T*>(data_); }
  int64_t size() const { return size_; }  // bytes that may be read
  // Bytes [offset, offset + size) of this buffer, sharing its memory.
  Buffer slice(int64_t offset, int64_t size_bytes) const;
  // The shared owner (keeps the bytes alive); null for an undefined buffer.
  const std::shared_ptr<const void>& owner() const { return owner_; }
  bool is_aligned(int64_t alignment) const {
    return reinterpret_cast<uintptr_t>(data_) % uintptr_t(alignment) == 0;
  }

 private:
  Buffer(const uint8_t* data, int64_t size, std::shared_ptr<const void> owner)
      : data_(data), size_(size), owner_(std::move(owner)) {}
  friend class BufferBuilder;
  const uint8_t* data_ = nullptr;
  int64_t size_ = 0;
  std::shared_ptr<const void> owner_;
};

// A growable, 64-byte aligned byte buffer; finish() hands its memory to a Buffer without a
// copy and leaves the builder empty.
class BufferBuilder {
 public:
  BufferBuilder() = default;
  BufferBuilder(const BufferBuilder&) = delete;
  BufferBuilder& operator=(const BufferBuilder&) = delete;
  BufferBuilder(BufferBuilder&& o) noexcept;
  BufferBuilder& operator=(BufferBuilder&& o) noexcept;
  ~BufferBuilder();

  int64_t size() const { return size_; }
  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  void reserve(int64_t capacity_bytes);
  // Grows (new bytes are zero) or shrinks to `size_bytes`.
  void resize(int64_t size_bytes);
  void append(const void* bytes, int64_t n) {
    if (size_ + n > capacity_) grow(size_ + n);
    if (n > 0) std::memcpy(data_ + size_, bytes, size_t(n));
    size_ += n;
  }
  template <class T> void append_value(const T& v) {
    if (size_ + int64_t(sizeof(T)) > capacity_) grow(size_ + int64_t(sizeof(T)));
    std::memcpy(data_ + size_, &v, sizeof(T));
    size_ += int64_t(sizeof(T));
  }
  // The bytes written so far as a Buffer (padding zeroed); the builder is empty afterwards.
  Buffer finish();

 private:
  void grow(int64_t min_capacity);
  uint8_t* data_ = nullptr;
  int64_t size_ = 0;
  int64_t capacity_ = 0;
};

// ---- bitmaps (Arrow's LSB bit order: bit i is byte i/8, bit i%8) ----------------------
namespace bits {
inline bool get(const uint8_t* bitmap, int64_t i) { return (bitmap[i >> 3] >> (i & 7)) & 1; }
inline void set(uint8_t* bitmap, int64_t i) { bitmap[i >> 3] |= uint8_t(1u << (i & 7)); }
inline void clear(uint8_t* bitmap, int64_t i) { bitmap[i >> 3] &= uint8_t(~(1u << (i & 7))); }
inline void set_to(uint8_t* bitmap, int64_t i, bool v) { v ? set(bitmap, i) : clear(bitmap, i); }
inline int64_t bytes_for(int64_t nbits) { return (nbits + 7) / 8; }
// Number of set bits in [offset, offset + length).
int64_t count_set(const uint8_t* bitmap, int64_t offset, int64_t length);
// Copies `length` bits starting at `src_offset` to `dst` starting at `dst_offset`.
void copy(const uint8_t* src, int64_t src_offset, int64_t length, uint8_t* dst, int64_t dst_offset);
}  // namespace bits

// Appends bits one at a time (validity bitmaps, boolean data).
class BitmapBuilder {
 public:
  int64_t length() const { return length_; }
  int64_t count_unset() const { return unset_; }
  void reserve(int64_t nbits) { bytes_.reserve(bits::bytes_for(nbits)); }
  void append(bool v) {
    if ((length_ & 7) == 0) bytes_.append_value(uint8_t(0));
    if (v) bits::set(bytes_.data(), length_); else ++unset_;
    ++length_;
  }
  void append_n(int64_t n, bool v);
  // Appends `length` bits of `bitmap` from `offset` (nullptr: all set).
  void append_bits(const uint8_t* bitmap, int64_t offset, int64_t length);
  bool get(int64_t i) const { return bits::get(bytes_.data(), i); }
  Buffer finish() {
    length_ = unset_ = 0;
    return bytes_.finish();
  }

 private:
  BufferBuilder bytes_;
  int64_t length_ = 0;
  int64_t unset_ = 0;
};

}  // namespace ember::frame
