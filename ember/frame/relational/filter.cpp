// Filtering a frame by a boolean mask (kernels.h: filter), the kernel under DataFrame::where.
//
// Columns without nulls of fixed-width types and of strings/binaries are copied straight
// from the mask's bits, in two parallel passes over row chunks for the whole frame: one
// counts each chunk's selected rows (and string bytes), one copies every column's selected
// values to the chunk's place in the output. Other columns (nullable ones, whose validity bits
// would be shared between chunks' outputs; booleans; nested types) are taken at the mask's
// positions, computed once if any column needs them.
#include <algorithm>
#include <bit>
#include <limits>

#include "ember/frame/relational/kernels.h"
#include "ember/frame/relational/util.h"

namespace ember::frame::relational {

namespace {

enum class Path : uint8_t { Fixed, Binary32, Binary64, Positions };

Path path_of(const ArrayData& a) {
  if (a.validity() != nullptr && a.null_count() > 0) return Path::Positions;
  const DType& t = a.type;
  if (t.is_fixed_width() && t.id() != TypeId::Bool) return Path::Fixed;
  if (t.is_binary_like()) return t.has_large_offsets() ? Path::Binary64 : Path::Binary32;
  return Path::Positions;
}

template <class T>
void copy_fixed(const T* src, T* out, const MaskWords& mask, int64_t b, int64_t e) {
  for (int64_t w = b; w < e; w += 64) {
    const int64_t m = std::min<int64_t>(64, e - w);
    uint64_t x = mask.word(w, m);
    if (x == ~uint64_t(0)) {
      std::memcpy(out, src + w, 64 * sizeof(T));
      out += 64;
      continue;
    }
    while (x) {
      *out++ = src[w + std::countr_zero(x)];
      x &= x - 1;
    }
  }
}

template <class O>
int64_t selected_bytes(const O* offs, const MaskWords& mask, int64_t b, int64_t e) {
  int64_t bytes = 0;
  for (int64_t w = b; w < e; w += 64) {
    uint64_t x = mask.word(w, std::min<int64_t>(64, e - w));
    while (x) {
      const int64_t i = w + std::countr_zero(x);
      bytes += int64_t(offs[i + 1]) - int64_t(offs[i]);
      x &= x - 1;
    }
  }
  return bytes;
}

template <class O>
void copy_binary(const O* offs, const uint8_t* bytes, O* out_offs, uint8_t* out_bytes, int64_t byte_base,
                 const MaskWords& mask, int64_t b, int64_t e) {
  int64_t pos = byte_base;
  for (int64_t w = b; w < e; w += 64) {
    uint64_t x = mask.word(w, std::min<int64_t>(64, e - w));
    while (x) {
      const int64_t i = w + std::countr_zero(x);
      const int64_t len = int64_t(offs[i + 1]) - int64_t(offs[i]);
      if (len > 0) std::memcpy(out_bytes + pos, bytes + offs[i], size_t(len));
      pos += len;
      *out_offs++ = O(pos);
      x &= x - 1;
    }
  }
}

}  // namespace

DataFrame filter(const DataFrame& df, const Column& mask) {
  EMBER_CHECK_TYPE(mask.defined() && mask.dtype().id() == TypeId::Bool, "where: the mask must be a boolean column, got ",
                   mask.defined() ? mask.dtype().to_string() : std::string("an undefined column"));
  EMBER_CHECK(mask.size() == df.num_rows(), "where: the mask has length ", mask.size(), " but the frame has ",
              df.num_rows(), " rows");
  const int64_t n = df.num_rows();
  const MaskWords words(*mask.data());
  const int64_t ncols = df.num_columns();
  std::vector<Path> paths;
  std::vector<size_t> binaries;  // the columns on a Binary path
  bool need_positions = false;
  for (int64_t c = 0; c < ncols; ++c) {
    paths.push_back(path_of(*df.column(c).data()));
    if (paths.back() == Path::Binary32 || paths.back() == Path::Binary64) binaries.push_back(size_t(c));
    need_positions |= paths.back() == Path::Positions;
  }
  // Pass 1: each chunk's selected rows and, per binary column, selected bytes.
  const auto bounds = chunk_bounds(n);
  const size_t k = bounds.size() - 1, nb = binaries.size();
  std::vector<int64_t> rows(k, 0), bytes(k * nb, 0);
  run_chunks(bounds, [&](int64_t c, int64_t b, int64_t e) {
    int64_t r = 0;
    for (int64_t w = b; w < e; w += 64) r += std::popcount(words.word(w, std::min<int64_t>(64, e - w)));
    rows[size_t(c)] = r;
    for (size_t j = 0; j < nb; ++j) {
      const ArrayData& a = *df.column(int64_t(binaries[j])).data();
      bytes[size_t(c) * nb + j] = paths[binaries[j]] == Path::Binary32
                                      ? selected_bytes(a.buffers[1].data_as<int32_t>() + a.offset, words, b, e)
                                      : selected_bytes(a.buffers[1].data_as<int64_t>() + a.offset, words, b, e);
    }
  });
  std::vector<int64_t> row_base(k + 1, 0), byte_base((k + 1) * nb, 0);
  for (size_t c = 0; c < k; ++c) {
    row_base[c + 1] = row_base[c] + rows[c];
    for (size_t j = 0; j < nb; ++j) byte_base[(c + 1) * nb + j] = byte_base[c * nb + j] + bytes[c * nb + j];
  }
  const int64_t m = row_base[k];
  if (m == n) return df;
  for (size_t j = 0; j < nb; ++j)
    EMBER_CHECK(paths[binaries[j]] == Path::Binary64 || byte_base[k * nb + j] <= int64_t(INT32_MAX),
                "where: column '", df.columns()[binaries[j]], "' needs more than 2 GiB of string bytes");

  // Output buffers of the fast columns.
  std::vector<OutBuffer> values(static_cast<size_t>(ncols)), data(static_cast<size_t>(ncols));
  for (int64_t c = 0; c < ncols; ++c) {
    const DType& t = df.column(c).dtype();
    switch (paths[size_t(c)]) {
      case Path::Fixed: values[size_t(c)] = OutBuffer(m * t.byte_width()); break;
      case Path::Binary32:
      case Path::Binary64: {
        const size_t j = size_t(std::find(binaries.begin(), binaries.end(), size_t(c)) - binaries.begin());
        const int ow = paths[size_t(c)] == Path::Binary32 ? 4 : 8;
        values[size_t(c)] = OutBuffer((m + 1) * ow);
        std::memset(values[size_t(c)].data(), 0, size_t(ow));  // offsets[0] = 0
        data[size_t(c)] = OutBuffer(byte_base[k * nb + j]);
        break;
      }
      case Path::Positions: break;
    }
  }
  // Pass 2: every fast column's selected values, chunk by chunk.
  run_chunks(bounds, [&](int64_t c, int64_t b, int64_t e) {
    const int64_t r0 = row_base[size_t(c)];
    size_t j = 0;
    for (int64_t col = 0; col < ncols; ++col) {
      const ArrayData& a = *df.column(col).data();
      const Path p = paths[size_t(col)];
      if (p == Path::Fixed) {
        const int w = a.type.byte_width();
        const uint8_t* src = a.buffers[1].data() + a.offset * w;
        uint8_t* out = values[size_t(col)].data() + r0 * w;
        switch (w) {
          case 1: copy_fixed(src, out, words, b, e); break;
          case 2: copy_fixed(reinterpret_cast<const uint16_t*>(src), reinterpret_cast<uint16_t*>(out), words, b, e); break;
          case 4: copy_fixed(reinterpret_cast<const uint32_t*>(src), reinterpret_cast<uint32_t*>(out), words, b, e); break;
          default: copy_fixed(reinterpret_cast<const uint64_t*>(src), reinterpret_cast<uint64_t*>(out), words, b, e);
        }
      } else if (p == Path::Binary32) {
        copy_binary(a.buffers[1].data_as<int32_t>() + a.offset, a.buffers[2].data(),
                    values[size_t(col)].as<int32_t>() + r0 + 1, data[size_t(col)].data(), byte_base[size_t(c) * nb + j],
                    words, b, e);
        ++j;
      } else if (p == Path::Binary64) {
        copy_binary(a.buffers[1].data_as<int64_t>() + a.offset, a.buffers[2].data(),
                    values[size_t(col)].as<int64_t>() + r0 + 1, data[size_t(col)].data(), byte_base[size_t(c) * nb + j],
                    words, b, e);
        ++j;
      }
    }
  });

  Vec<int32_t> pos32;
  Vec<int64_t> pos64;
  if (need_positions) {
    if (n < INT32_MAX) pos32 = mask_positions32(mask, "where");
    else pos64 = mask_positions(mask, "where");
  }
  std::vector<std::pair<std::string, Column>> out;
  for (int64_t c = 0; c < ncols; ++c) {
    const Column& col = df.column(c);
    const DType& t = col.dtype();
    Column r;
    switch (paths[size_t(c)]) {
      case Path::Fixed:
        r = Column::from_data_unchecked(
            ArrayData::make(t, m, {Buffer(), values[size_t(c)].finish(m * t.byte_width())}, {}, 0));
        break;
      case Path::Binary32:
      case Path::Binary64: {
        const int ow = paths[size_t(c)] == Path::Binary32 ? 4 : 8;
        const int64_t nbytes = ow == 4 ? int64_t(values[size_t(c)].as<int32_t>()[m]) : values[size_t(c)].as<int64_t>()[m];
        r = Column::from_data_unchecked(ArrayData::make(
            t, m, {Buffer(), values[size_t(c)].finish((m + 1) * ow), data[size_t(c)].finish(nbytes)}, {}, 0));
        break;
      }
      case Path::Positions:
        r = n < INT32_MAX ? take_trusted(col, pos32.data(), m, false) : take_trusted(col, pos64.data(), m, false);
        break;
    }
    out.emplace_back(df.columns()[size_t(c)], std::move(r));
  }
  if (out.empty()) return DataFrame();
  return DataFrame(std::move(out));
}

}  // namespace ember::frame::relational
