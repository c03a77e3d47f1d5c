#include "ember/frame/io/concat.h"

#include <cstring>
#include <limits>

#include "ember/core/error.h"
#include "ember/frame/detail/physical.h"

namespace ember::frame::io::detail {

void copy_bits(const uint8_t* src, int64_t src_offset, int64_t n, uint8_t* dst, int64_t dst_offset) {
  if (n <= 0) return;  // an empty column's buffers may be null (memcpy must not see them)
  int64_t i = 0;
  for (; i < n && ((dst_offset + i) & 7); ++i) bits::set_to(dst, dst_offset + i, bits::get(src, src_offset + i));
  if ((src_offset + i) % 8 == 0) {
    const int64_t whole = (n - i) / 8;
    if (whole > 0) std::memcpy(dst + (dst_offset + i) / 8, src + (src_offset + i) / 8, size_t(whole));
    i += whole * 8;
  } else {
    // Each destination byte takes bits p..p+7 of the source, which span two source bytes;
    // both are inside the range being copied.
    const int shift = int((src_offset + i) & 7);
    for (; i + 8 <= n; i += 8) {
      const uint8_t* s = src + ((src_offset + i) >> 3);
      dst[(dst_offset + i) >> 3] = uint8_t((s[0] >> shift) | (s[1] << (8 - shift)));
    }
  }
  for (; i < n; ++i) bits::set_to(dst, dst_offset + i, bits::get(src, src_offset + i));
}

void set_bits(uint8_t* dst, int64_t offset, int64_t n) {
  int64_t i = 0;
  for (; i < n && ((offset + i) & 7); ++i) bits::set(dst, offset + i);
  const int64_t whole = (n - i) / 8;
  if (whole > 0) std::memset(dst + (offset + i) / 8, 0xFF, size_t(whole));
  i += whole * 8;
  for (; i < n; ++i) bits::set(dst, offset + i);
}

namespace {

template <class O>
Buffer concat_offsets(const std::vector<ArrayDataPtr>& parts, int64_t total, std::vector<std::pair<int64_t, int64_t>>& ranges,
                      const DType& type) {
  BufferBuilder out;
  out.resize((total + 1) * int64_t(sizeof(O)));
  O* dst = reinterpret_cast<O*>(out.data());
  int64_t base = 0, at = 0;
  dst[0] = 0;
  ranges.clear();
  for (const auto& p : parts) {
    const O* src = p->buffers[1].defined() ? p->buffers[1].data_as<O>() + p->offset : nullptr;
    const int64_t first = (src && p->length > 0) ? int64_t(src[0]) : 0;
    const int64_t last = (src && p->length > 0) ? int64_t(src[p->length]) : 0;
    for (int64_t i = 1; i <= p->length; ++i) dst[at + i] = O(base + (int64_t(src[i]) - first));
    ranges.emplace_back(first, last);
    at += p->length;
    base += last - first;
    EMBER_CHECK(base <= int64_t(std::numeric_limits<O>::max()), "concat: the concatenated ", type.to_string(),
                " column needs ", base, " ", type.is_binary_like() ? "bytes" : "child elements",
                ", beyond its 32-bit offsets (use the large_ variant)");
  }
  return out.finish();
}

template <class I>
Buffer shifted_indices(const std::vector<ArrayDataPtr>& parts, const std::vector<int64_t>& shifts, int64_t total,
                       const DType& type) {
  BufferBuilder out;
  out.resize(total * int64_t(sizeof(I)));
  I* dst = reinterpret_cast<I*>(out.data());
  int64_t at = 0;
  for (size_t k = 0; k < parts.size(); ++k) {
    const ArrayData& p = *parts[k];
    const I* src = p.buffers[1].data_as<I>() + p.offset;
    const int64_t shift = shifts[k];
    for (int64_t i = 0; i < p.length; ++i) {
      if (!p.is_valid(i)) {
        dst[at + i] = 0;
        continue;
      }
      const int64_t v = int64_t(src[i]) + shift;
      EMBER_CHECK(uint64_t(v) <= uint64_t(std::numeric_limits<I>::max()), "concat: the dictionaries of ",
                  type.to_string(), " columns differ, and the combined dictionary's indices (", v,
                  ") overflow the index type; read the batches one by one instead");
      dst[at + i] = I(v);
    }
    at += p.length;
  }
  return out.finish();
}

}  // namespace

ArrayDataPtr empty_array(const DType& type) {
  std::vector<Buffer> buffers{Buffer()};
  std::vector<ArrayDataPtr> children;
  ArrayDataPtr dictionary;
  if (type.is_fixed_width()) {
    buffers.push_back(Buffer::zeros(0));
  } else if (type.is_binary_like() || type.is_list_like()) {
    buffers.push_back(Buffer::zeros(type.has_large_offsets() ? 8 : 4));
    if (type.is_binary_like()) buffers.push_back(Buffer::zeros(0));
    else children.push_back(empty_array(child_type(type, 0)));
  } else if (type.id() == TypeId::Struct) {
    for (const Field& f : type.fields()) children.push_back(empty_array(f.dtype));
  } else if (type.id() == TypeId::Dictionary) {
    buffers.push_back(Buffer::zeros(0));
    dictionary = empty_array(type.value_type());
  }
  return ArrayData::make(type, 0, std::move(buffers), std::move(children), 0, 0, std::move(dictionary));
}

ArrayDataPtr concat_arrays(const std::vector<ArrayDataPtr>& parts, const DType& type) {
  EMBER_CHECK(!parts.empty(), "concat: no arrays");
  if (parts.size() == 1 && parts[0]->type == type) return parts[0];
  int64_t total = 0, nulls = 0;
  for (const auto& p : parts) {
    EMBER_CHECK(p->type.equals(type, false), "concat: an array of type ", p->type.to_string(), " among arrays of type ",
                type.to_string());
    total += p->length;
    nulls += p->null_count();
  }
  EMBER_CHECK(nulls == 0 || type.nullable(), "concat: ", nulls, " nulls for the non-nullable type ", type.to_string());
  Buffer validity;
  if (nulls > 0) {
    BufferBuilder v;
    v.resize(bits::bytes_for(total));
    int64_t at = 0;
    for (const auto& p : parts) {
      if (const uint8_t* src = p->validity()) copy_bits(src, p->offset, p->length, v.data(), at);
      else set_bits(v.data(), at, p->length);
      at += p->length;
    }
    validity = v.finish();
  }

  std::vector<Buffer> buffers{validity};
  std::vector<ArrayDataPtr> children;
  ArrayDataPtr dictionary;
  const TypeId id = type.id();
  if (id == TypeId::Bool) {
    BufferBuilder b;
    b.resize(bits::bytes_for(total));
    int64_t at = 0;
    for (const auto& p : parts) {
      copy_bits(p->buffers[1].data(), p->offset, p->length, b.data(), at);
      at += p->length;
    }
    buffers.push_back(b.finish());
  } else if (type.is_fixed_width()) {
    const int64_t w = type.byte_width();
    BufferBuilder b;
    b.reserve(total * w);
    for (const auto& p : parts)
      if (p->length > 0) b.append(p->buffers[1].data() + p->offset * w, p->length * w);
    buffers.push_back(b.finish());
  } else if (type.is_binary_like() || type.is_list_like()) {
    std::vector<std::pair<int64_t, int64_t>> ranges;
    buffers.push_back(type.has_large_offsets() ? concat_offsets<int64_t>(parts, total, ranges, type)
                                               : concat_offsets<int32_t>(parts, total, ranges, type));
    if (type.is_binary_like()) {
      BufferBuilder b;
      for (size_t k = 0; k < parts.size(); ++k)
        if (ranges[k].second > ranges[k].first)
          b.append(parts[k]->buffers[2].data() + ranges[k].first, ranges[k].second - ranges[k].first);
      buffers.push_back(b.finish());
    } else {
      std::vector<ArrayDataPtr> kids;
      for (size_t k = 0; k < parts.size(); ++k)
        kids.push_back(parts[k]->children[0]->slice(ranges[k].first, ranges[k].second - ranges[k].first));
      children.push_back(concat_arrays(kids, child_type(type, 0)));
    }
  } else if (id == TypeId::Struct) {
    for (size_t c = 0; c < type.fields().size(); ++c) {
      std::vector<ArrayDataPtr> kids;
      for (const auto& p : parts) kids.push_back(p->children[c]->slice(p->offset, p->length));
      children.push_back(concat_arrays(kids, type.fields()[c].dtype));
    }
  } else if (id == TypeId::Dictionary) {
    // Dictionaries that are all prefixes of the longest one (as deltas make them) count as
    // that one dictionary.
    ArrayDataPtr longest = parts[0]->dictionary;
    for (const auto& p : parts)
      if (p->dictionary->length > longest->length) longest = p->dictionary;
    bool shared = true;
    for (const auto& p : parts) {
      const ArrayData& d = *p->dictionary;
      if (p->dictionary == longest) continue;
      for (int64_t i = 0; shared && i < d.length; ++i)
        shared = frame::detail::elements_equal(d, i, *longest, i);
      if (!shared) break;
    }
    const DType& it = type.index_type();
    if (shared) {
      const int64_t w = it.byte_width();
      BufferBuilder b;
      b.reserve(total * w);
      for (const auto& p : parts)
        if (p->length > 0) b.append(p->buffers[1].data() + p->offset * w, p->length * w);
      buffers.push_back(b.finish());
      dictionary = longest;
    } else {
      std::vector<ArrayDataPtr> dicts;
      std::vector<int64_t> shifts;
      int64_t n = 0;
      for (const auto& p : parts) {
        dicts.push_back(p->dictionary);
        shifts.push_back(n);
        n += p->dictionary->length;
      }
      dictionary = concat_arrays(dicts, type.value_type());
      buffers.push_back(frame::detail::visit_numeric(it.id(), [&](auto tag) {
        using I = decltype(tag);
        if constexpr (std::is_integral_v<I>) return shifted_indices<I>(parts, shifts, total, type);
        else return Buffer();
      }));
    }
  } else {
    EMBER_ERROR("concat: unsupported type ", type.to_string());
  }
  return ArrayData::make(type, total, std::move(buffers), std::move(children), nulls, 0, std::move(dictionary));
}

}  // namespace ember::frame::io::detail
