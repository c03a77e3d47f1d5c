// The .str() accessor: lengths, slices, splits, strips, case mapping, literal searches,
// concatenation and character classes (regular expressions are in regex.cpp).
#include "ember/frame/compute/strings.h"

#include <cstring>
#include <limits>

#include "ember/core/utf8.h"
#include "ember/frame/compute/compute.h"
#include "ember/frame/compute/string_util.h"
#include "ember/frame/compute/unicode.h"

namespace ember::frame {

using namespace compute_detail;

Column StringListOutput::finish(const char* op, bool nullable, bool large_items) {
  const int64_t n = int64_t(offsets_.size()) - 1;
  const int64_t items = int64_t(item_ends_.size());
  EMBER_CHECK(items <= std::numeric_limits<int32_t>::max(), op, ": the result has ", items,
              " items, more than a list's int32 offsets address");
  const bool large = large_items || int64_t(bytes_.size()) > std::numeric_limits<int32_t>::max();
  MutableBuffer data = allocate(int64_t(bytes_.size()));
  if (!bytes_.empty()) std::memcpy(data.data, bytes_.data(), bytes_.size());
  MutableBuffer item_off = allocate((items + 1) * (large ? 8 : 4));
  for (int64_t k = 0; k <= items; ++k) {
    const int64_t v = k == 0 ? 0 : item_ends_[size_t(k - 1)];
    if (large) item_off.as<int64_t>()[k] = v;
    else item_off.as<int32_t>()[k] = int32_t(v);
  }
  const DType item_type = large ? dtypes::large_string : dtypes::string;
  ArrayDataPtr child =
      ArrayData::make(item_type, items, {Buffer(), item_off.buffer, data.buffer}, {}, 0);
  MutableBuffer list_off = allocate((n + 1) * 4);
  for (int64_t i = 0; i <= n; ++i) list_off.as<int32_t>()[i] = int32_t(offsets_[size_t(i)]);
  Validity v;
  if (nulls_ > 0) {
    MutableBuffer bm = allocate_zeroed(bits::bytes_for(n));
    for (int64_t i = 0; i < n; ++i)
      if (valid_[size_t(i)]) bits::set(bm.data, i);
    v.buffer = bm.buffer;
    v.null_count = nulls_;
  }
  return Column::from_data_unchecked(ArrayData::make(dtypes::List(item_type, nullable || nulls_ > 0), n,
                                                     {v.buffer, list_off.buffer}, {std::move(child)}, nulls_));
}

namespace {

const ArrayData& data_of(const Column& c) { return *c.data(); }

// Byte offsets of the code point boundaries of s (size + 1 entries, the last is s.size()).
void boundaries(std::string_view s, std::vector<int64_t>& b) {
  b.clear();
  for (size_t i = 0; i < s.size(); i += size_t(unicode::sequence_length(uint8_t(s[i])))) b.push_back(int64_t(i));
  b.push_back(int64_t(s.size()));
}

bool is_ascii(std::string_view s) {
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    if (w & 0x8080808080808080ULL) return false;
  }
  for (; i < s.size(); ++i)
    if (uint8_t(s[i]) & 0x80) return false;
  return true;
}

// Python's PySlice_AdjustIndices: the start, the number of items, for a sequence of length n.
void adjust_slice(std::optional<int64_t> start0, std::optional<int64_t> stop0, int64_t step, int64_t n, int64_t& start,
                  int64_t& count) {
  if (step > 0) {
    start = start0.value_or(0);
    int64_t stop = stop0.value_or(n);
    if (start < 0) start = std::max<int64_t>(0, start + n);
    if (start > n) start = n;
    if (stop < 0) stop = std::max<int64_t>(0, stop + n);
    if (stop > n) stop = n;
    count = stop > start ? (stop - start + step - 1) / step : 0;
  } else {
    start = start0.value_or(n - 1);
    int64_t stop = stop0.value_or(-1);
    if (start0) {
      if (start < 0) start = std::max<int64_t>(-1, start + n);
      if (start >= n) start = n - 1;
    }
    if (stop0) {
      if (stop < 0) stop = std::max<int64_t>(-1, stop + n);
      if (stop >= n) stop = n - 1;
    }
    count = stop < start ? (start - stop - step - 1) / (-step) : 0;
  }
}

// The set of code points of `chars`, or whitespace when empty.
struct CharSet {
  std::vector<uint32_t> cps;
  bool whitespace = false;
  explicit CharSet(std::string_view chars) {
    whitespace = chars.empty();
    for (size_t i = 0; i < chars.size();) cps.push_back(unicode::decode(chars, i));
  }
  bool contains(uint32_t cp) const {
    if (whitespace) return unicode::has(cp, unicode::kSpace);
    for (uint32_t c : cps)
      if (c == cp) return true;
    return false;
  }
};

std::string_view strip_view(std::string_view s, const CharSet& set, bool left, bool right) {
  size_t b = 0, e = s.size();
  if (left) {
    while (b < e) {
      size_t i = b;
      const uint32_t cp = unicode::decode(s, i);
      if (!set.contains(cp)) break;
      b = i;
    }
  }
  if (right) {
    while (e > b) {
      size_t start = e - 1;
      while (start > b && (uint8_t(s[start]) & 0xC0) == 0x80) --start;
      size_t i = start;
      const uint32_t cp = unicode::decode(s, i);
      if (!set.contains(cp)) break;
      e = start;
    }
  }
  return s.substr(b, e - b);
}

// Lowercase (or uppercase) mapped byte for byte: the offsets and validity are shared (or
// re-based for rows that do not start at byte 0), only the bytes are new. Nearly every
// code point maps to one of the same UTF-8 length; when one does not (Kelvin sign K ->
// k, say), this gives up and returns nullopt. `ascii` says the bytes are all ASCII (a
// vectorized loop then).
std::optional<Column> same_length_case(const ArrayData& a, bool upper, bool ascii) {
  const StringAccess s = string_access(a);
  const int64_t n = a.length;
  const int64_t b = n ? s.begin(0) : 0, e = n ? s.end(n - 1) : 0;
  const bool rebase = b != 0;
  MutableBuffer data = allocate(rebase ? e - b : e);
  const uint8_t* src = a.buffers[2].data() + b;
  uint8_t* dst = data.data + (rebase ? 0 : b);
  const int64_t len = e - b;
  if (ascii) {
    parallel_for(0, len, int64_t(1) << 18, [src, dst, upper](int64_t lo, int64_t hi) {
      // Local restrict pointers: byte stores could otherwise alias the captures, which
      // keeps the compiler from vectorizing.
      const uint8_t* __restrict in = src;
      uint8_t* __restrict out = dst;
      if (upper) {
        for (int64_t i = lo; i < hi; ++i) out[i] = uint8_t(in[i] - (uint8_t(in[i] - 'a') < 26u ? 32 : 0));
      } else {
        for (int64_t i = lo; i < hi; ++i) out[i] = uint8_t(in[i] + (uint8_t(in[i] - 'A') < 26u ? 32 : 0));
      }
    });
  } else {
    const int64_t chunk = int64_t(1) << 18;
    const int64_t nchunks = (len + chunk - 1) / chunk;
    // Chunks start at code point boundaries (never inside a UTF-8 sequence).
    auto boundary = [&](int64_t x) {
      x = std::min(x, len);
      while (x < len && (src[x] & 0xC0) == 0x80) ++x;
      return x;
    };
    std::vector<uint8_t> ok(static_cast<size_t>(nchunks), 1);
    parallel_for(0, nchunks, 1, [&](int64_t cb, int64_t ce) {
      const std::string_view text(reinterpret_cast<const char*>(src), size_t(len));
      for (int64_t c = cb; c < ce; ++c) {
        const int64_t hi = boundary((c + 1) * chunk);
        for (int64_t i = boundary(c * chunk); i < hi;) {
          const uint8_t ch = src[i];
          if (ch < 0x80) {
            dst[i] = uint8_t(upper ? (uint8_t(ch - 'a') < 26u ? ch - 32 : ch) : (uint8_t(ch - 'A') < 26u ? ch + 32 : ch));
            ++i;
            continue;
          }
          size_t k = size_t(i);
          const uint32_t cp = unicode::decode(text, k);
          const uint32_t m = upper ? unicode::to_upper(cp) : unicode::to_lower(cp);
          if (ember::utf8::encoded_length(m) != int64_t(k) - i) {
            ok[size_t(c)] = 0;
            break;
          }
          ember::utf8::encode(m, dst + i);
          i = int64_t(k);
        }
      }
    });
    for (uint8_t x : ok)
      if (!x) return std::nullopt;
  }
  if (!rebase) {
    return Column::from_data_unchecked(
        ArrayData::make(a.type, n, {a.buffers[0], a.buffers[1], data.buffer}, {}, a.known_null_count(), a.offset));
  }
  const bool large = a.type.has_large_offsets();
  MutableBuffer off = allocate((n + 1) * (large ? 8 : 4));
  for (int64_t i = 0; i <= n; ++i) {
    const int64_t o = (i < n ? s.begin(i) : s.end(n - 1)) - b;
    if (large) off.as<int64_t>()[i] = o;
    else off.as<int32_t>()[i] = int32_t(o);
  }
  const Validity v = validity_of(a);
  return Column::from_data_unchecked(
      ArrayData::make(a.type, n, {v.null_count > 0 ? v.buffer : Buffer(), off.buffer, data.buffer}, {}, v.null_count));
}

// Whether bytes [b, e) are all ASCII, checked in parallel chunks.
bool range_is_ascii(const uint8_t* bytes, int64_t b, int64_t e) {
  const int64_t chunk = int64_t(1) << 20;
  const int64_t nchunks = (e - b + chunk - 1) / chunk;
  std::vector<uint8_t> ok(static_cast<size_t>(nchunks), 1);
  parallel_for(0, nchunks, 1, [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; ++c) {
      const int64_t lo = b + c * chunk, hi = std::min(e, lo + chunk);
      ok[size_t(c)] = is_ascii(std::string_view(reinterpret_cast<const char*>(bytes) + lo, size_t(hi - lo)));
    }
  });
  for (uint8_t x : ok)
    if (!x) return false;
  return true;
}

Column case_map(const ArrayData& a, bool upper) {
  const StringAccess s = string_access(a);
  const int64_t n = a.length;
  const bool ascii = n == 0 || range_is_ascii(a.buffers[2].data(), s.begin(0), s.end(n - 1));
  if (auto r = same_length_case(a, upper, ascii)) return *r;
  // Some code point changes its UTF-8 length: build row by row.
  return build_strings(upper ? "str.upper" : "str.lower", a.type, n, [&](int64_t i, std::string& out) {
    if (!a.is_valid(i)) return false;
    const std::string_view v = s.get(i);
    for (size_t k = 0; k < v.size();) {
      size_t r = k;
      while (r < v.size() && uint8_t(v[r]) < 0x80) ++r;
      if (r > k) {  // an ASCII run, mapped in place
        const size_t o = out.size();
        out.resize(o + (r - k));
        char* d = out.data() + o;
        for (size_t j = k; j < r; ++j) {
          const uint8_t c = uint8_t(v[j]);
          d[j - k] = char(upper ? (uint8_t(c - 'a') < 26u ? c - 32 : c) : (uint8_t(c - 'A') < 26u ? c + 32 : c));
        }
        k = r;
        if (k == v.size()) break;
      }
      const uint32_t cp = unicode::decode(v, k);
      ember::utf8::append(out, upper ? unicode::to_upper(cp) : unicode::to_lower(cp));
    }
    return true;
  });
}

// Python's str.split(sep, maxsplit) (sep empty: whitespace runs).
void split_row(std::string_view s, std::string_view sep, int64_t maxsplit, StringListOutput& out) {
  if (!sep.empty()) {
    size_t pos = 0;
    int64_t splits = 0;
    for (;;) {
      const size_t f = (maxsplit >= 0 && splits >= maxsplit) ? std::string_view::npos : s.find(sep, pos);
      if (f == std::string_view::npos) {
        out.add(s.substr(pos));
        return;
      }
      out.add(s.substr(pos, f - pos));
      pos = f + sep.size();
      ++splits;
    }
  }
  auto space_at = [&](size_t i, size_t* next) {
    size_t k = i;
    const uint32_t cp = unicode::decode(s, k);
    *next = k;
    return unicode::has(cp, unicode::kSpace);
  };
  size_t i = 0, next = 0;
  int64_t splits = 0;
  while (i < s.size()) {
    while (i < s.size() && space_at(i, &next)) i = next;  // skip a whitespace run
    if (i >= s.size()) return;
    if (maxsplit >= 0 && splits >= maxsplit) {
      // The rest, with trailing whitespace kept (Python's behaviour).
      out.add(s.substr(i));
      return;
    }
    size_t j = i;
    while (j < s.size() && !space_at(j, &next)) j = next;
    out.add(s.substr(i, j - i));
    ++splits;
    i = j;
  }
}

}  // namespace

StringMethods::StringMethods(const Column& c) {
  const Column d = compute_detail::decoded(c);
  EMBER_CHECK_TYPE(d.dtype().is_string(), "str: the column's dtype is ", c.dtype().to_string(),
                   "; expected string or large_string");
  c_ = d;
}

Column StringMethods::length() const {
  return string_to_int64(data_of(c_), [](std::string_view s) { return unicode::count_code_points(s); });
}

Column StringMethods::slice(std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step) const {
  EMBER_CHECK(step != 0, "str.slice: step cannot be zero");
  const ArrayData& a = data_of(c_);
  const StringAccess s = string_access(a);
  return build_strings("str.slice", a.type, a.length, [&](int64_t i, std::string& out) {
    if (!a.is_valid(i)) return false;
    const std::string_view v = s.get(i);
    thread_local std::vector<int64_t> b;
    const bool ascii = is_ascii(v);
    int64_t n;
    if (ascii) {
      n = int64_t(v.size());
    } else {
      boundaries(v, b);
      n = int64_t(b.size()) - 1;
    }
    int64_t first, count;
    adjust_slice(start, stop, step, n, first, count);
    if (count == 0) return true;
    if (step == 1) {
      const int64_t lo = ascii ? first : b[size_t(first)];
      const int64_t hi = ascii ? first + count : b[size_t(first + count)];
      out.append(v.substr(size_t(lo), size_t(hi - lo)));
      return true;
    }
    for (int64_t k = 0, cp = first; k < count; ++k, cp += step) {
      if (ascii) out += v[size_t(cp)];
      else out.append(v.substr(size_t(b[size_t(cp)]), size_t(b[size_t(cp) + 1] - b[size_t(cp)])));
    }
    return true;
  });
}

Column StringMethods::split(std::string_view sep, int64_t maxsplit) const {
  const ArrayData& a = data_of(c_);
  const StringAccess s = string_access(a);
  StringListOutput out(a.length);
  for (int64_t i = 0; i < a.length; ++i) {
    const bool valid = a.is_valid(i);
    if (valid) split_row(s.get(i), sep, maxsplit, out);
    out.end_row(valid);
  }
  return out.finish("str.split", a.type.nullable(), a.type.id() == TypeId::LargeString);
}

namespace {
Column strip_impl(const Column& c, std::string_view chars, bool left, bool right, const char* op) {
  const ArrayData& a = *c.data();
  const StringAccess s = string_access(a);
  const CharSet set(chars);
  return build_strings(op, a.type, a.length, [&](int64_t i, std::string& out) {
    if (!a.is_valid(i)) return false;
    out.append(strip_view(s.get(i), set, left, right));
    return true;
  });
}
}  // namespace

Column StringMethods::strip(std::string_view chars) const { return strip_impl(c_, chars, true, true, "str.strip"); }
Column StringMethods::lstrip(std::string_view chars) const { return strip_impl(c_, chars, true, false, "str.lstrip"); }
Column StringMethods::rstrip(std::string_view chars) const { return strip_impl(c_, chars, false, true, "str.rstrip"); }
Column StringMethods::lower() const { return case_map(data_of(c_), false); }
Column StringMethods::upper() const { return case_map(data_of(c_), true); }

Column StringMethods::startswith(std::string_view prefix) const {
  return string_predicate(data_of(c_), [prefix](std::string_view s) { return s.substr(0, prefix.size()) == prefix; });
}

Column StringMethods::endswith(std::string_view suffix) const {
  return string_predicate(data_of(c_), [suffix](std::string_view s) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
  });
}

Column StringMethods::find(std::string_view sub) const {
  return string_to_int64(data_of(c_), [sub](std::string_view s) -> int64_t {
    const size_t f = s.find(sub);
    if (f == std::string_view::npos) return -1;
    return unicode::count_code_points(s.substr(0, f));
  });
}

Column StringMethods::cat(const Column& other, std::string_view sep) const {
  const StringMethods o(other);
  check_same_length("str.cat", c_, o.c_);
  const ArrayData& a = data_of(c_);
  const ArrayData& b = data_of(o.c_);
  const StringAccess sa = string_access(a), sb = string_access(b);
  const bool large = a.type.id() == TypeId::LargeString || b.type.id() == TypeId::LargeString;
  const DType t(large ? TypeId::LargeString : TypeId::String, a.type.nullable() || b.type.nullable());
  return build_strings("str.cat", t, a.length, [&](int64_t i, std::string& out) {
    if (!a.is_valid(i) || !b.is_valid(i)) return false;
    out.append(sa.get(i));
    out.append(sep);
    out.append(sb.get(i));
    return true;
  });
}

std::string StringMethods::cat(std::string_view sep) const {
  const ArrayData& a = data_of(c_);
  const StringAccess s = string_access(a);
  std::string out;
  bool first = true;
  for (int64_t i = 0; i < a.length; ++i) {
    if (!a.is_valid(i)) continue;
    if (!first) out.append(sep);
    out.append(s.get(i));
    first = false;
  }
  return out;
}

namespace {
template <uint16_t kFlag>
bool all_have(std::string_view s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size();)
    if (!unicode::has(unicode::decode(s, i), kFlag)) return false;
  return true;
}

template <uint16_t kCase, uint16_t kBlocker>
bool cased_only(std::string_view s) {
  bool any = false;
  for (size_t i = 0; i < s.size();) {
    const uint16_t f = unicode::props(unicode::decode(s, i)).flags;
    if (f & kBlocker) return false;
    any |= (f & kCase) != 0;
  }
  return any;
}
}  // namespace

Column StringMethods::isalpha() const { return string_predicate(data_of(c_), all_have<unicode::kAlpha>); }
Column StringMethods::isnumeric() const { return string_predicate(data_of(c_), all_have<unicode::kNumeric>); }
Column StringMethods::isdigit() const { return string_predicate(data_of(c_), all_have<unicode::kDigit>); }
Column StringMethods::isdecimal() const { return string_predicate(data_of(c_), all_have<unicode::kDecimal>); }
Column StringMethods::isalnum() const { return string_predicate(data_of(c_), all_have<unicode::kAlnum>); }
Column StringMethods::isspace() const { return string_predicate(data_of(c_), all_have<unicode::kSpace>); }
Column StringMethods::islower() const {
  return string_predicate(data_of(c_), cased_only<unicode::kLower, unicode::kNotLower>);
}
Column StringMethods::isupper() const {
  return string_predicate(data_of(c_), cased_only<unicode::kUpper, unicode::kNotUpper>);
}

}  // namespace ember::frame
