// The Eisel-Lemire step of parse_decimal; see Note [Parsing floats] in parse_float.h.
#include "ember/frame/io/parse_float.h"

namespace ember::frame::io::detail {

namespace {

constexpr int kMinQ = -342;
// 5^q for q in [-342, 308], normalized to 128 bits (upper bounds for q < 0).
constexpr uint64_t kPow5[][2] = {
#include "ember/frame/io/pow5_table.inc"
};
static_assert(sizeof(kPow5) / sizeof(kPow5[0]) == 308 - kMinQ + 1);

}  // namespace

bool eisel_lemire(uint64_t w, int q, double* out) {
  // Normalize w, then take the top 64 bits of w * 5^q's 128-bit approximation. Its low 9
  // bits below the 54 that matter (the 53 of the mantissa and one to round with) decide
  // whether truncating the table's second word could change the result.
  const int lz = __builtin_clzll(w);
  w <<= lz;
  const uint64_t* t = kPow5[q - kMinQ];
  const unsigned __int128 first = static_cast<unsigned __int128>(w) * t[0];
  uint64_t hi = uint64_t(first >> 64), lo = uint64_t(first);
  if ((hi & 0x1FF) == 0x1FF) {
    const uint64_t second = uint64_t((static_cast<unsigned __int128>(w) * t[1]) >> 64);
    lo += second;
    hi += lo < second;
    if (lo == ~uint64_t(0)) return false;  // still in doubt
  }
  const int upper = int(hi >> 63);
  uint64_t m = hi >> (upper + 9);
  // The binary exponent: floor(q * log2(10)) + 63 for the product, + the bias.
  int64_t e2 = ((217706 * int64_t(q)) >> 16) + 63 + upper - lz + 1023;
  if (e2 <= 0) return false;  // subnormal (or zero)
  // Exactly halfway between two doubles (possible only for small |q|): ties go to even,
  // which from_chars settles.
  if (lo <= 1 && q >= -4 && q <= 23 && (m & 3) == 1 && (m << (upper + 9)) == hi) return false;
  m += m & 1;  // round half up (halfway cases left above)
  m >>= 1;
  if (m >= (uint64_t(2) << 52)) {  // rounding carried into a new bit
    m = uint64_t(1) << 52;
    ++e2;
  }
  if (e2 >= 0x7FF) return false;  // overflows to infinity
  const uint64_t bits = (m & ~(uint64_t(1) << 52)) | (uint64_t(e2) << 52);
  std::memcpy(out, &bits, 8);
  return true;
}

}  // namespace ember::frame::io::detail
