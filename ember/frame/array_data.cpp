#include "ember/frame/array_data.h"

#include <string>
#include <type_traits>

#include "ember/core/error.h"
#include "ember/frame/utf8.h"

namespace ember::frame {


ArrayData::ArrayData(DType t, int64_t length, std::vector<Buffer> buffers, std::vector<ArrayDataPtr> children,
                     int64_t null_count, int64_t offset, ArrayDataPtr dictionary)
    : type(std::move(t)), length(length), offset(offset), buffers(std::move(buffers)),
      children(std::move(children)), dictionary(std::move(dictionary)), null_count_(null_count) {}

ArrayData::ArrayData(const ArrayData& o)
    : type(o.type), length(o.length), offset(o.offset), buffers(o.buffers), children(o.children),
      dictionary(o.dictionary), null_count_(o.known_null_count()) {}

int64_t ArrayData::null_count() const {
  int64_t n = null_count_.load(std::memory_order_relaxed);
  if (n != kUnknownNullCount) return n;
  const uint8_t* v = validity();
  n = v == nullptr ? 0 : length - bits::count_set(v, offset, length);
  null_count_.store(n, std::memory_order_relaxed);
  return n;
}

std::shared_ptr<ArrayData> ArrayData::slice(int64_t off, int64_t len) const {
  EMBER_CHECK_INDEX(off >= 0 && len >= 0 && off <= length && len <= length - off, "slice: elements [", off, ", ",
                    off, " + ", len, ") are outside an array of length ", length);
  auto r = std::make_shared<ArrayData>(*this);
  r->offset = offset + off;
  r->length = len;
  const int64_t known = known_null_count();
  r->null_count_.store(known == 0 ? 0 : (known == length && len <= length) ? len : kUnknownNullCount,
                       std::memory_order_relaxed);
  return r;
}

size_t num_children(const DType& t) {
  switch (t.id()) {
    case TypeId::List:
    case TypeId::LargeList:
    case TypeId::Map: return 1;
    case TypeId::Struct: return t.fields().size();
    default: return 0;
  }
}

DType child_type(const DType& parent, size_t i) {
  switch (parent.id()) {
    case TypeId::List:
    case TypeId::LargeList: return parent.value_type();
    case TypeId::Map: return parent.map_entries_type();
    case TypeId::Struct: return parent.fields().at(i).dtype;
    default: EMBER_ERROR("child_type: type ", parent.to_string(), " has no children");
  }
}

namespace {

struct Validator {
  ValidateOptions opts;

  [[noreturn]] static void fail(const std::string& path, const ArrayData& a, const std::string& msg) {
    EMBER_ERROR("validate: ", path.empty() ? std::string("array") : path, " (", a.type.to_string(), ", length ",
                a.length, ", offset ", a.offset, "): ", msg);
  }

  static std::string child_path(const std::string& path, const ArrayData& a, size_t i) {
    const std::string base = path.empty() ? std::string("array") : path;
    switch (a.type.id()) {
      case TypeId::Struct: return base + "." + a.type.fields()[i].name;
      case TypeId::Map: return base + ".entries";
      default: return base + ".item";
    }
  }

  void check_buffer(const std::string& path, const ArrayData& a, size_t i, int64_t need_bytes, int align,
                    const char* what) {
    const Buffer& b = a.buffers[i];
    if (!b.defined()) {
      if (need_bytes > 0) fail(path, a, std::string("the ") + what + " buffer (buffer " + std::to_string(i) + ") is missing");
      return;
    }
    if (b.size() < need_bytes)
      fail(path, a, std::string("the ") + what + " buffer (buffer " + std::to_string(i) + ") has " +
                        std::to_string(b.size()) + " bytes but offset + length needs " + std::to_string(need_bytes));
    if (align > 1 && !b.is_aligned(align))
      fail(path, a, std::string("the ") + what + " buffer (buffer " + std::to_string(i) + ") is not aligned to " +
                        std::to_string(align) + " bytes");
  }

  // Offsets [offset, offset + length] of a binary-like or list-like array: in range, non-decreasing,
  // and ending at or before `limit` (the bytes of the data buffer, or the child's length).
  template <class O>
  void check_offsets(const std::string& path, const ArrayData& a, int64_t limit, const char* limit_what) {
    const int64_t end = a.offset + a.length;
    check_buffer(path, a, 1, a.length == 0 ? 0 : (end + 1) * int64_t(sizeof(O)), int(sizeof(O)), "offsets");
    if (a.length == 0 && (!a.buffers[1].defined() || a.buffers[1].size() < (end + 1) * int64_t(sizeof(O)))) return;
    const O* off = a.buffers[1].data_as<O>();
    const int64_t first = int64_t(off[a.offset]);
    if (first < 0) fail(path, a, "offset " + std::to_string(a.offset) + " is negative (" + std::to_string(first) + ")");
    for (int64_t i = a.offset; i < end; ++i) {
      if (off[i + 1] < off[i])
        fail(path, a, "offsets decrease at element " + std::to_string(i - a.offset) + " (" + std::to_string(int64_t(off[i])) +
                          " then " + std::to_string(int64_t(off[i + 1])) + ")");
    }
    const int64_t last = int64_t(off[end]);
    if (last > limit)
      fail(path, a, "the last offset " + std::to_string(last) + " is past the end of the " + limit_what + " (" +
                        std::to_string(limit) + ")");
  }

  template <class I>
  void check_indices(const std::string& path, const ArrayData& a, int64_t dict_length) {
    const I* idx = a.buffers[1].data_as<I>() + a.offset;
    for (int64_t i = 0; i < a.length; ++i) {
      if (!a.is_valid(i)) continue;
      const I v = idx[i];
      bool negative = false;
      if constexpr (std::is_signed_v<I>) negative = v < 0;
      if (negative || uint64_t(v) >= uint64_t(dict_length))
        fail(path, a, "dictionary index " + std::to_string(v) + " at element " + std::to_string(i) +
                          " is outside the dictionary of length " + std::to_string(dict_length));
    }
  }

  template <class O>
  void check_utf8(const std::string& path, const ArrayData& a) {
    if (a.length == 0) return;
    const O* off = a.buffers[1].data_as<O>();
    const uint8_t* data = a.buffers[2].defined() ? a.buffers[2].data() : nullptr;
    for (int64_t i = 0; i < a.length; ++i) {
      if (!a.is_valid(i)) continue;
      const int64_t b = int64_t(off[a.offset + i]), e = int64_t(off[a.offset + i + 1]);
      int64_t bad = 0;
      if (e > b && !utf8::is_valid(data + b, e - b, &bad))
        fail(path, a, "element " + std::to_string(i) + " is not valid UTF-8 (byte " + std::to_string(bad) + " of " +
                          std::to_string(e - b) + ")");
    }
  }

  void run(const std::string& path, const ArrayData& a) {
    const DType& t = a.type;
    if (a.length < 0) fail(path, a, "negative length");
    if (a.offset < 0) fail(path, a, "negative offset");
    if (a.length > kMaxArrayElements || a.offset > kMaxArrayElements - a.length)
      fail(path, a, "offset + length is beyond the supported maximum of " + std::to_string(kMaxArrayElements) + " elements");
    const int64_t end = a.offset + a.length;
    if (int64_t(a.buffers.size()) != t.num_buffers())
      fail(path, a, "has " + std::to_string(a.buffers.size()) + " buffers; the type's layout has " +
                        std::to_string(t.num_buffers()));
    if (a.children.size() != num_children(t))
      fail(path, a, "has " + std::to_string(a.children.size()) + " children; the type has " +
                        std::to_string(num_children(t)));
    for (size_t i = 0; i < a.children.size(); ++i) {
      if (!a.children[i]) fail(path, a, "child " + std::to_string(i) + " is null");
      const DType want = child_type(t, i);
      if (!(a.children[i]->type == want))
        fail(path, a, "child " + std::to_string(i) + " has type " + a.children[i]->type.to_string() +
                          "; the parent's type says " + want.to_string());
    }
    if (t.id() == TypeId::Dictionary) {
      if (!a.dictionary) fail(path, a, "the dictionary is missing");
      if (!(a.dictionary->type == t.value_type()))
        fail(path, a, "the dictionary has type " + a.dictionary->type.to_string() + "; the type says " +
                          t.value_type().to_string());
    } else if (a.dictionary) {
      fail(path, a, "has a dictionary but is not a dictionary type");
    }

    // Validity and null count.
    if (a.buffers[0].defined()) check_buffer(path, a, 0, bits::bytes_for(end), 1, "validity");
    const uint8_t* valid = a.validity();
    const int64_t actual_nulls = valid ? a.length - bits::count_set(valid, a.offset, a.length) : 0;
    const int64_t known = a.known_null_count();
    if (known != kUnknownNullCount && known != actual_nulls)
      fail(path, a, "null_count is " + std::to_string(known) + " but the validity bitmap has " +
                        std::to_string(actual_nulls) + " nulls");
    a.null_count();  // caches actual_nulls
    if (!t.nullable() && actual_nulls > 0)
      fail(path, a, "the type is not nullable but the array has " + std::to_string(actual_nulls) + " nulls");

    // The children first: the checks below trust their lengths.
    for (size_t i = 0; i < a.children.size(); ++i) run(child_path(path, a, i), *a.children[i]);
    if (a.dictionary) run((path.empty() ? std::string("array") : path) + ".dictionary", *a.dictionary);

    if (t.is_fixed_width()) {
      const int64_t need = t.id() == TypeId::Bool ? bits::bytes_for(end) : end * t.byte_width();
      check_buffer(path, a, 1, need, t.id() == TypeId::Bool ? 1 : t.byte_width(), "data");
    } else if (t.is_binary_like()) {
      const int64_t data_bytes = a.buffers[2].defined() ? a.buffers[2].size() : 0;
      if (t.has_large_offsets()) check_offsets<int64_t>(path, a, data_bytes, "data buffer");
      else check_offsets<int32_t>(path, a, data_bytes, "data buffer");
      if (opts.check_utf8 && t.is_string()) {
        if (t.has_large_offsets()) check_utf8<int64_t>(path, a);
        else check_utf8<int32_t>(path, a);
      }
    } else if (t.is_list_like()) {
      const int64_t child_len = a.children[0]->length;
      if (t.has_large_offsets()) check_offsets<int64_t>(path, a, child_len, "child array");
      else check_offsets<int32_t>(path, a, child_len, "child array");
    } else if (t.id() == TypeId::Struct) {
      for (size_t i = 0; i < a.children.size(); ++i)
        if (a.children[i]->length < end)
          fail(path, a, "field '" + t.fields()[i].name + "' has length " + std::to_string(a.children[i]->length) +
                            "; offset + length needs " + std::to_string(end));
    } else if (t.id() == TypeId::Dictionary) {
      const DType& it = t.index_type();
      check_buffer(path, a, 1, end * it.byte_width(), it.byte_width(), "indices");
      const int64_t n = a.dictionary->length;
      switch (it.id()) {
        case TypeId::Int8: check_indices<int8_t>(path, a, n); break;
        case TypeId::Int16: check_indices<int16_t>(path, a, n); break;
        case TypeId::Int32: check_indices<int32_t>(path, a, n); break;
        case TypeId::Int64: check_indices<int64_t>(path, a, n); break;
        case TypeId::UInt8: check_indices<uint8_t>(path, a, n); break;
        case TypeId::UInt16: check_indices<uint16_t>(path, a, n); break;
        case TypeId::UInt32: check_indices<uint32_t>(path, a, n); break;
        case TypeId::UInt64: check_indices<uint64_t>(path, a, n); break;
        default: fail(path, a, "the index type is not an integer type");
      }
    }
  }
};

}  // namespace

void ArrayData::validate(const ValidateOptions& options) const { Validator{options}.run("", *this); }

}  // namespace ember::frame
