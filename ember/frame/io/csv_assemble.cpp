// The CSV reader's assembly (csv_reader.h): each column's type and the places of its chunks'
// rows and string bytes, the strings checked and gathered, and each column's chunks made one
// array.
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/frame/io/concat.h"
#include "ember/frame/io/csv_reader.h"

namespace ember::frame::io::detail {

// Each column's type and where each chunk's rows and string bytes go.
std::vector<Reader::Assembly> Reader::plan_assembly(const std::vector<KindInfo>& kinds, int64_t total_rows) {
  const size_t ncols = specs_.size();
  std::vector<Assembly> asm_(ncols);
  bool exact = true;
  {
    int64_t at = 0;
    for (const Chunk& c : chunks_) {
      exact &= c.first_row == at;
      at += c.rows;
    }
  }
  for (size_t i = 0; i < ncols; ++i) {
    Assembly& a = asm_[i];
    int64_t row = 0, bytes = 0;
    for (const Chunk& c : chunks_) {
      a.row.push_back(row);
      a.base.push_back(bytes);
      a.nulls += c.columns[i].nulls();
      row += c.rows;
      bytes += c.columns[i].data_bytes();
    }
    if (kinds[i].kind == Kind::Null)
      for (Chunk& c : chunks_) c.columns[i].widen({Kind::String});
    a.type = column_type(i, kinds[i], a.nulls, bytes, total_rows);
    if (a.type.is_binary_like()) {
      EMBER_CHECK(a.type.has_large_offsets() || bytes <= INT32_MAX, "read_csv: '", name_, "': column '", specs_[i].name,
                  "' holds ", bytes, " bytes of strings, more than 32-bit offsets address; read it as large_string");
      if (a.type.has_large_offsets() && !specs_[i].large_offsets) a.wide.resize((total_rows + 1) * 8);
      a.gathered = exact;  // in place: chunks may go in parallel (below)
      a.bytes = OutBuffer(bytes);
      a.total_bytes = bytes;
    }
  }
  return asm_;
}

// In parallel over (column, chunk): invalid UTF-8 (reported at its first row), the string
// bytes, and the string ends when the rows' bounds were exact.
void Reader::gather_strings(std::vector<Assembly>& asm_) {
  const size_t ncols = specs_.size();
  std::vector<std::pair<size_t, size_t>> tasks;
  for (size_t i = 0; i < ncols; ++i)
    if (asm_[i].type.is_binary_like())
      for (size_t k = 0; k < chunks_.size(); ++k) tasks.emplace_back(i, k);
  std::vector<int64_t> bad(tasks.size(), -1);
  run(tasks.size(), [&](size_t t) {
    const auto [i, k] = tasks[t];
    if (asm_[i].type.is_string()) bad[t] = chunks_[k].columns[i].invalid_utf8_row();
    if (bad[t] >= 0) return;
    gather_bytes(i, k, asm_[i]);
    if (asm_[i].gathered) gather_ends(i, k, asm_[i]);
  });
  for (size_t t = 0; t < tasks.size(); ++t)
    if (bad[t] >= 0) {
      const auto [i, k] = tasks[t];
      EMBER_ERROR("read_csv: '", name_, "' row ", asm_[i].row[k] + bad[t], ", column '", specs_[i].name,
                  "': the value is not valid UTF-8 (read the column as binary with dtypes)");
    }
}

// The columns, assembled in parallel; the first column's error, if any, is raised once all are done.
DataFrame Reader::assemble_columns(std::vector<Assembly>& asm_, int64_t total_rows) {
  const size_t ncols = specs_.size();
  std::vector<std::pair<std::string, Column>> cols(ncols);
  std::vector<std::string> errors(ncols);
  run(ncols, [&](size_t i) {
    try {
      cols[i] = {specs_[i].name, assemble(i, asm_[i], total_rows)};
    } catch (const std::exception& e) {
      errors[i] = e.what();
    }
  });
  for (const std::string& e : errors)
    if (!e.empty()) throw Error(e);
  return DataFrame(std::move(cols));
}

// The type a column gets from its kind (or the given type), its nulls and string bytes.
DType Reader::column_type(size_t i, const KindInfo& k, int64_t nulls, int64_t bytes, int64_t total_rows) const {
  const ColumnSpec& spec = specs_[i];
  if (spec.dictionary) return DType(TypeId::String, spec.forced->nullable());
  if (spec.forced) return *spec.forced;
  switch (k.kind) {
    case Kind::Int64: return DType(TypeId::Int64, nulls > 0);
    case Kind::UInt64: return DType(TypeId::UInt64, nulls > 0);
    case Kind::Float64: return DType(TypeId::Float64, nulls > 0);
    case Kind::Bool: return DType(TypeId::Bool, nulls > 0);
    case Kind::Date32: return DType(TypeId::Date32, nulls > 0);
    case Kind::Timestamp: return dtypes::Timestamp(TimeUnit(k.unit), k.utc ? "UTC" : "", nulls > 0);
    case Kind::Null: return DType(TypeId::String, total_rows > 0);
    default: return DType(bytes > INT32_MAX ? TypeId::LargeString : TypeId::String, nulls > 0);
  }
}

// Chunk k's string ends in column i, rebased to where its bytes go and moved to its rows (in
// place when the rows' bounds were exact).
void Reader::gather_ends(size_t i, size_t k, Assembly& a) {
  Chunk& c = chunks_[k];
  ColumnChunk& col = c.columns[i];
  const bool chunk_large = specs_[i].large_offsets;
  const uint8_t* src = col.slots().ends;
  uint8_t* ends = regions_[i].ends->data();
  const int64_t at = a.row[k], base = a.base[k];
  for (int64_t r = 0; r < c.rows; ++r) {
    if (chunk_large) {
      int64_t e;
      std::memcpy(&e, src + 8 * r, 8);
      e += base;
      std::memcpy(ends + 8 * (at + 1 + r), &e, 8);
    } else {
      int32_t e;
      std::memcpy(&e, src + 4 * r, 4);
      if (a.wide.size() > 0) {
        reinterpret_cast<int64_t*>(a.wide.data())[at + 1 + r] = int64_t(e) + base;
      } else {
        e += int32_t(base);
        std::memcpy(ends + 4 * (at + 1 + r), &e, 4);
      }
    }
  }
}

// Chunk k's string bytes in column i, copied to their place in the column's buffer of them
// (of their exact size: the column's byte region, sized for the whole text, goes back to the
// scratch cache with the reader).
void Reader::gather_bytes(size_t i, size_t k, Assembly& a) {
  const ColumnChunk& col = chunks_[k].columns[i];
  if (col.data_bytes() > 0) std::memcpy(a.bytes.data() + a.base[k], col.data(), size_t(col.data_bytes()));
}

// The column's chunks as one array: rows moved together, bitmaps joined, and the strings
// (gathered already when `a.gathered`).
Column Reader::assemble(size_t i, Assembly& a, int64_t total_rows) {
  const ColumnSpec& spec = specs_[i];
  const DType& type = a.type;
  Buffer validity;
  if (a.nulls > 0) {
    BufferBuilder v;
    v.resize(bits::bytes_for(total_rows));
    for (size_t k = 0; k < chunks_.size(); ++k) {
      ColumnChunk& col = chunks_[k].columns[i];
      Buffer b = col.take_validity();
      if (b.defined()) copy_bits(b.data(), 0, col.length(), v.data(), a.row[k]);
      else set_bits(v.data(), a.row[k], col.length());
    }
    validity = v.finish();
  }
  std::vector<Buffer> buffers{validity};
  if (type.id() == TypeId::Bool) {
    BufferBuilder b;
    b.resize(bits::bytes_for(total_rows));
    for (size_t k = 0; k < chunks_.size(); ++k) {
      ColumnChunk& col = chunks_[k].columns[i];
      Buffer bits = col.take_bits();
      copy_bits(bits.data(), 0, col.length(), b.data(), a.row[k]);
    }
    buffers.push_back(b.finish());
  } else if (type.is_fixed_width()) {
    // Rows move down to close the gaps that loose bounds left (none when every line end
    // ended a record); destinations never pass their sources, so in order is safe.
    const int64_t w = type.byte_width();
    uint8_t* base = regions_[i].values->data();
    for (size_t k = 0; k < chunks_.size(); ++k) {
      const uint8_t* src = chunks_[k].columns[i].slots().values;
      const int64_t rows = chunks_[k].rows;
      if (src != base + a.row[k] * w && rows > 0) std::memmove(base + a.row[k] * w, src, size_t(rows * w));
    }
    buffers.push_back(Region::buffer(regions_[i].values, total_rows * w));
  } else {
    if (!a.gathered)
      for (size_t k = 0; k < chunks_.size(); ++k) gather_ends(i, k, a);
    if (a.wide.size() > 0) {
      buffers.push_back(a.wide.finish());
    } else {
      const int64_t w = spec.large_offsets ? 8 : 4;
      std::memset(regions_[i].ends->data(), 0, size_t(w));
      buffers.push_back(Region::buffer(regions_[i].ends, (total_rows + 1) * w));
    }
    buffers.push_back(a.bytes.finish(a.total_bytes));
  }
  Column column = Column::from_data_unchecked(ArrayData::make(type, total_rows, std::move(buffers), {}, a.nulls, 0));
  if (spec.dictionary) {
    // dictionary_encode's layout, with the nullable flags the caller gave.
    const Column encoded = column.dictionary_encode();
    auto dict = std::make_shared<ArrayData>(*encoded.data()->dictionary);
    dict->type = spec.forced->value_type();
    column = Column(ArrayData::make(*spec.forced, encoded.size(), encoded.data()->buffers, {}, encoded.null_count(),
                                    encoded.offset(), std::move(dict)));
  }
  return column;
}

}  // namespace ember::frame::io::detail
