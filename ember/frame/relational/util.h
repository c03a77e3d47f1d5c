// Internal helpers of ember/frame/relational: output buffers written in place without a
// zero-fill pass, a bitmap writer, and the chunking used to split kernels across threads.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/parallel.h"
#include "ember/frame/buffer.h"
#include "ember/frame/column.h"
#include "ember/frame/scratch.h"

namespace ember::frame {
class DataFrame;
}

namespace ember::frame::relational {

// Below this many rows a kernel runs on one thread (thread start-up costs more).
constexpr int64_t kParallelMinRows = 1 << 15;

// Note [Scratch memory] (ember/frame/scratch.h) explains the blocks these vectors and
// OutBuffer take; the names are used here unqualified.
using frame::OutBuffer;
using frame::release_scratch_memory;
using frame::scratch_alloc;
using frame::scratch_free;

template <class T>
struct ScratchAllocator {
  using value_type = T;
  ScratchAllocator() = default;
  template <class U> ScratchAllocator(const ScratchAllocator<U>&) {}  // NOLINT
  T* allocate(size_t n) { return static_cast<T*>(scratch_alloc(n * sizeof(T))); }
  void deallocate(T* p, size_t) { scratch_free(p); }
  template <class U> void construct(U* p) { ::new (static_cast<void*>(p)) U; }  // no zero-fill
  template <class U, class... A> void construct(U* p, A&&... a) { ::new (static_cast<void*>(p)) U(std::forward<A>(a)...); }
  template <class U> bool operator==(const ScratchAllocator<U>&) const { return true; }
};
// A vector whose resize() leaves new elements uninitialized, in scratch memory.
template <class T>
using Vec = std::vector<T, ScratchAllocator<T>>;

// A zeroed bitmap of n bits, as an OutBuffer.
OutBuffer zeroed_bitmap(int64_t nbits);

// [begin, end) ranges covering [0, n): one per thread when n is large, boundaries multiples
// of 64 rows (so that chunks write whole bytes and words of bitmaps).
std::vector<int64_t> chunk_bounds(int64_t n, int64_t min_rows = kParallelMinRows);

// Runs f(chunk, begin, end) for each chunk of `bounds`, in parallel.
template <class F>
void run_chunks(const std::vector<int64_t>& bounds, const F& f) {
  const int64_t k = int64_t(bounds.size()) - 1;
  if (k <= 0) return;
  if (k == 1) {
    f(int64_t(0), bounds[0], bounds[1]);
    return;
  }
  parallel_for(0, k, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) f(c, bounds[size_t(c)], bounds[size_t(c) + 1]);
  });
}

// Bits [pos, pos + 64) of a bitmap as a word; reads only the bytes that hold them.
inline uint64_t load_bits(const uint8_t* bitmap, int64_t pos) {
  const uint8_t* p = bitmap + (pos >> 3);
  const int shift = int(pos & 7);
  uint64_t w;
  std::memcpy(&w, p, 8);
  if (shift == 0) return w;
  return (w >> shift) | (uint64_t(p[8]) << (64 - shift));
}

// A boolean mask read 64 rows at a time: bit j of word(w, m) says whether row w + j is true
// and valid (m <= 64 rows from w; a null counts as false).
class MaskWords {
 public:
  explicit MaskWords(const ArrayData& a) : values_(a.buffers[1].data()), valid_(a.validity()), off_(a.offset) {}
  uint64_t word(int64_t w, int64_t m) const {
    if (m == 64) {
      uint64_t x = load_bits(values_, off_ + w);
      if (valid_ != nullptr) x &= load_bits(valid_, off_ + w);
      return x;
    }
    uint64_t x = 0;
    for (int64_t j = 0; j < m; ++j)
      x |= uint64_t(bits::get(values_, off_ + w + j) && (valid_ == nullptr || bits::get(valid_, off_ + w + j))) << j;
    return x;
  }

 private:
  const uint8_t* values_;
  const uint8_t* valid_;
  int64_t off_;
};

// Column names as "'a', 'b'" for error messages.
std::string quoted_names(const std::vector<std::string>& names);

// The column `name` of `df` (the frame's error, with its closest-name suggestion, for an
// unknown name), prefixed by `op`.
const Column& column_for(const DataFrame& df, const std::string& name, const char* op);

}  // namespace ember::frame::relational
