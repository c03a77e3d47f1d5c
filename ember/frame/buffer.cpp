#include "ember/frame/buffer.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <limits>
#include <utility>

#include "ember/core/error.h"

namespace ember::frame {

namespace {

// Zero-length buffers point here, so that a defined buffer never has a null pointer (the
// C Data Interface's consumers differ on null pointers for empty buffers).
alignas(kBufferAlignment) const uint8_t kEmptyBlock[kBufferAlignment] = {};

int64_t round_up(int64_t n, int64_t a) { return (n + a - 1) / a * a; }

}  // namespace

Buffer Buffer::zeros(int64_t size_bytes) {
  BufferBuilder b;
  b.resize(size_bytes);
  return b.finish();
}

Buffer Buffer::copy_of(const void* data, int64_t size_bytes) {
  BufferBuilder b;
  b.append(data, size_bytes);
  return b.finish();
}

Buffer Buffer::wrap(const void* data, int64_t size_bytes, std::shared_ptr<const void> owner) {
  EMBER_CHECK(size_bytes >= 0, "Buffer::wrap: negative size ", size_bytes);
  EMBER_CHECK(data != nullptr || size_bytes == 0, "Buffer::wrap: null pointer for ", size_bytes, " bytes");
  if (data == nullptr) return Buffer(kEmptyBlock, 0, std::move(owner));
  return Buffer(static_cast<const uint8_t*>(data), size_bytes, std::move(owner));
}

Buffer Buffer::slice(int64_t offset, int64_t size_bytes) const {
  EMBER_CHECK(offset >= 0 && size_bytes >= 0 && offset <= size_ && size_bytes <= size_ - offset,
              "Buffer::slice: bytes [", offset, ", ", offset, " + ", size_bytes, ") are outside a buffer of ",
              size_, " bytes");
  return Buffer(data_ + offset, size_bytes, owner_);
}

// ---- BufferBuilder ------------------------------------------------------------------

BufferBuilder::BufferBuilder(BufferBuilder&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)),
      capacity_(std::exchange(o.capacity_, 0)) {}

BufferBuilder& BufferBuilder::operator=(BufferBuilder&& o) noexcept {
  if (this != &o) {
    std::free(data_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    capacity_ = std::exchange(o.capacity_, 0);
  }
  return *this;
}

BufferBuilder::~BufferBuilder() { std::free(data_); }

void BufferBuilder::grow(int64_t min_capacity) {
  EMBER_CHECK(min_capacity >= 0 && min_capacity <= kMaxBufferBytes, "BufferBuilder: cannot hold ",
              min_capacity, " bytes (the limit is ", kMaxBufferBytes, ")");
  int64_t cap = std::max<int64_t>({min_capacity, capacity_ + capacity_ / 2, kBufferAlignment});
  cap = std::min(round_up(cap, kBufferAlignment), round_up(kMaxBufferBytes, kBufferAlignment));
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(size_t(kBufferAlignment), size_t(cap)));
  EMBER_CHECK(p != nullptr, "BufferBuilder: out of memory allocating ", cap, " bytes");
  if (size_ > 0) std::memcpy(p, data_, size_t(size_));
  std::free(data_);
  data_ = p;
  capacity_ = cap;
}

void BufferBuilder::reserve(int64_t capacity_bytes) {
  if (capacity_bytes > capacity_) grow(capacity_bytes);
}

void BufferBuilder::resize(int64_t size_bytes) {
  EMBER_CHECK(size_bytes >= 0, "BufferBuilder::resize: negative size ", size_bytes);
  if (size_bytes > capacity_) grow(size_bytes);
  if (size_bytes > size_) std::memset(data_ + size_, 0, size_t(size_bytes - size_));
  size_ = size_bytes;
}

Buffer BufferBuilder::finish() {
  if (data_ == nullptr) return Buffer(kEmptyBlock, 0, nullptr);
  // Zero the padding up to the next 64 bytes (capacity is a multiple of 64), as Arrow
  // recommends: readers may touch it with wide loads, and it must not leak old bytes.
  const int64_t padded = round_up(size_, kBufferAlignment);
  std::memset(data_ + size_, 0, size_t(padded - size_));
  std::shared_ptr<const void> owner(data_, [](const void* p) { std::free(const_cast<void*>(p)); });
  Buffer b(data_, size_, std::move(owner));
  data_ = nullptr;
  size_ = capacity_ = 0;
  return b;
}

// ---- bitmaps ------------------------------------------------------------------------

namespace bits {

int64_t count_set(const uint8_t* bitmap, int64_t offset, int64_t length) {
  int64_t n = 0, i = offset;
  const int64_t end = offset + length;
  for (; i < end && (i & 7); ++i) n += get(bitmap, i);
  for (; i + 64 <= end; i += 64) {
    uint64_t w;
    std::memcpy(&w, bitmap + (i >> 3), 8);
    n += std::popcount(w);
  }
  for (; i + 8 <= end; i += 8) n += std::popcount(unsigned(bitmap[i >> 3]));
  for (; i < end; ++i) n += get(bitmap, i);
  return n;
}

void copy(const uint8_t* src, int64_t src_offset, int64_t length, uint8_t* dst, int64_t dst_offset) {
  if ((src_offset & 7) == 0 && (dst_offset & 7) == 0) {
    const int64_t whole = length / 8;
    std::memcpy(dst + dst_offset / 8, src + src_offset / 8, size_t(whole));
    for (int64_t i = whole * 8; i < length; ++i) set_to(dst, dst_offset + i, get(src, src_offset + i));
    return;
  }
  for (int64_t i = 0; i < length; ++i) set_to(dst, dst_offset + i, get(src, src_offset + i));
}

}  // namespace bits

void BitmapBuilder::append_n(int64_t n, bool v) {
  const int64_t end = length_ + n;
  bytes_.resize(bits::bytes_for(end));
  if (v) {
    for (int64_t i = length_; i < end; ++i) bits::set(bytes_.data(), i);
  } else {
    unset_ += n;  // resize zero-filled the new bytes; old bits past length_ are zero
  }
  length_ = end;
}

void BitmapBuilder::append_bits(const uint8_t* bitmap, int64_t offset, int64_t length) {
  if (bitmap == nullptr) return append_n(length, true);
  const int64_t end = length_ + length;
  bytes_.resize(bits::bytes_for(end));
  bits::copy(bitmap, offset, length, bytes_.data(), length_);
  unset_ += length - bits::count_set(bytes_.data(), length_, length);
  length_ = end;
}

}  // namespace ember::frame
