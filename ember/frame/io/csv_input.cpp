// The CSV reader's input and memory (csv_reader.h): the text in memory, mapped or copied, with
// its sentinel; the regions the columns are written into; line ends counted, to bound the rows.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__ARM_NEON)
#include <arm_neon.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "ember/core/error.h"
#include "ember/core/parallel.h"
#include "ember/frame/io/csv_reader.h"
#include "ember/frame/scratch.h"

namespace ember::frame::io::detail {

std::shared_ptr<Region> Region::reserve(int64_t bytes) {
  auto r = std::shared_ptr<Region>(new Region);
  r->bytes_ = size_t(std::max<int64_t>(bytes, 1) + kPad);
  if (r->bytes_ <= scratch_cache_limit()) {
    r->data_ = static_cast<uint8_t*>(scratch_alloc(r->bytes_));
    r->scratch_ = true;
  } else {
    void* p = ::mmap(nullptr, r->bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    EMBER_CHECK(p != MAP_FAILED, "read_csv: cannot reserve ", bytes, " bytes of memory");
    r->data_ = static_cast<uint8_t*>(p);
  }
  return r;
}

Region::~Region() {
  if (scratch_) scratch_free(data_);
  else if (data_) ::munmap(data_, bytes_);
}

Buffer Region::buffer(const std::shared_ptr<Region>& r, int64_t size) {
  std::memset(r->data_ + size, 0, std::min<size_t>(size_t(kPad), r->bytes_ - size_t(size)));
  return Buffer::wrap(r->data_, size, std::shared_ptr<const void>(r, r->data_));
}

Input::~Input() {
  if (!map_) return;
  if (map_bytes_ >= (size_t(64) << 20)) {
    // Tearing down the page tables of a large mapping is per-page work (11 ms for 300 MB)
    // that munmap does on one thread under the address space's write lock; dropping the
    // pages first (MADV_DONTNEED takes the lock for reading) lets two threads share it.
    static const size_t page = size_t(::sysconf(_SC_PAGESIZE));  // 4K, 16K or 64K (Arm)
    const size_t half = map_bytes_ / 2 / page * page;
    parallel_for(0, 2, 1, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k)
        ::madvise(static_cast<char*>(map_) + (k ? half : 0), k ? map_bytes_ - half : half, MADV_DONTNEED);
    });
  }
  ::munmap(map_, map_bytes_);
}

char* Input::allocate(int64_t n) {
  storage_.reset(new char[size_t(n + kPad)]);
  std::memset(storage_.get() + n, 0, size_t(kPad));
  storage_[size_t(n)] = '\n';
  data_ = storage_.get();
  size_ = n;
  return storage_.get();
}

bool Input::map(int fd, int64_t n) {
  const int64_t page = ::sysconf(_SC_PAGESIZE);
  const size_t bytes = size_t((n + page - 1) / page * page + page);
  void* base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) return false;
  if (n > 0 && ::mmap(base, size_t(n), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
    ::munmap(base, bytes);
    return false;
  }
  ::madvise(base, size_t(n), MADV_WILLNEED);
  map_ = base;
  map_bytes_ = bytes;
  data_ = static_cast<char*>(base);
  size_ = n;
  // Past the end of the file its last page reads as zeros (and is private), then the
  // anonymous page follows: room for the sentinel either way.
  static_cast<char*>(base)[n] = '\n';
  return true;
}

Input read_path(const std::string& path) {
  Input in;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  EMBER_CHECK(fd >= 0, "read_csv: cannot open '", path, "': ", std::strerror(errno));
  struct stat st{};
  const bool stat_ok = ::fstat(fd, &st) == 0;
  const bool regular = stat_ok && S_ISREG(st.st_mode);
  const bool mapped = regular && in.map(fd, int64_t(st.st_size));
  ::close(fd);
  EMBER_CHECK(!(stat_ok && S_ISDIR(st.st_mode)), "read_csv: '", path, "' is a directory");
  if (mapped) return in;
  std::string text;
  try {  // a pipe or a device, read to its end
    std::ifstream f(path, std::ios::binary);
    EMBER_CHECK(f.is_open(), "read_csv: cannot open '", path, "'");
    text.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    EMBER_ERROR("read_csv: reading '", path, "' failed: ", e.what());
  }
  if (!text.empty()) std::memcpy(in.allocate(int64_t(text.size())), text.data(), text.size());
  return in;
}

namespace {

// The line ends in [p, e) one byte at a time: the tail the vector loops leave.
int64_t count_line_ends_scalar(const char* p, const char* e) {
  int64_t n = 0;
  for (; p < e; ++p) n += *p == '\n' || (*p == '\r' && !(p + 1 < e && p[1] == '\n'));
  return n;
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,popcnt"))) int64_t count_line_ends_avx2(const char* p, const char* e) {
  int64_t nl = 0, cr = 0, crlf = 0;
  const __m256i kNl = _mm256_set1_epi8('\n'), kCr = _mm256_set1_epi8('\r');
  for (; e - p >= 33; p += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 1));
    const uint32_t r = uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, kCr)));
    nl += __builtin_popcount(uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, kNl))));
    cr += __builtin_popcount(r);
    crlf += __builtin_popcount(r & uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(w, kNl))));
  }
  return nl + cr - crlf + count_line_ends_scalar(p, e);
}
#endif

}  // namespace

int64_t count_line_ends(const char* p, const char* e) {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
  if (avx2) return count_line_ends_avx2(p, e);
#endif
  int64_t nl = 0, cr = 0, crlf = 0;
#ifdef __SSE2__
  const __m128i kNl = _mm_set1_epi8('\n'), kCr = _mm_set1_epi8('\r'), zero = _mm_setzero_si128();
  auto sum = [&](__m128i acc) {
    const __m128i s = _mm_sad_epu8(acc, zero);
    return int64_t(_mm_cvtsi128_si64(s)) + int64_t(_mm_cvtsi128_si64(_mm_unpackhi_epi64(s, s)));
  };
  while (e - p >= 17) {
    __m128i an = zero, ar = zero, ap = zero;
    for (int k = 0; k < 255 && e - p >= 17; ++k, p += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 1));
      const __m128i r = _mm_cmpeq_epi8(v, kCr);
      an = _mm_sub_epi8(an, _mm_cmpeq_epi8(v, kNl));
      ar = _mm_sub_epi8(ar, r);
      ap = _mm_sub_epi8(ap, _mm_and_si128(r, _mm_cmpeq_epi8(w, kNl)));
    }
    nl += sum(an);
    cr += sum(ar);
    crlf += sum(ap);
  }
#elif defined(__ARM_NEON)
  // The same counts with NEON: a lane's count stays under 256 per block of 255 vectors.
  const uint8x16_t kNl = vdupq_n_u8('\n'), kCr = vdupq_n_u8('\r');
  while (e - p >= 17) {
    uint8x16_t an = vdupq_n_u8(0), ar = an, ap = an;
    for (int k = 0; k < 255 && e - p >= 17; ++k, p += 16) {
      const uint8x16_t v = vld1q_u8(reinterpret_cast<const uint8_t*>(p));
      const uint8x16_t w = vld1q_u8(reinterpret_cast<const uint8_t*>(p + 1));
      const uint8x16_t r = vceqq_u8(v, kCr);
      an = vsubq_u8(an, vceqq_u8(v, kNl));
      ar = vsubq_u8(ar, r);
      ap = vsubq_u8(ap, vandq_u8(r, vceqq_u8(w, kNl)));
    }
    nl += vaddlvq_u8(an);
    cr += vaddlvq_u8(ar);
    crlf += vaddlvq_u8(ap);
  }
#endif
  return nl + cr - crlf + count_line_ends_scalar(p, e);
}

}  // namespace ember::frame::io::detail
