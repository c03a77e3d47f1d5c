// Printing of columns and frames in TorchArrow's layout (pandas-like aligned tables).
#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "ember/frame/column.h"
#include "ember/frame/dataframe.h"
#include "ember/frame/detail/format.h"
#include "ember/frame/detail/physical.h"

namespace ember::frame {

namespace {

constexpr size_t kMaxCellChars = 60;  // longer cells end in "..."

void format_cell(std::string& out, const ArrayData& a, int64_t i) {
  if (!a.is_valid(i)) {
    out += "None";
    return;
  }
  const int64_t slot = a.offset + i;
  switch (a.type.id()) {
    case TypeId::Bool: out += bits::get(a.buffers[1].data(), slot) ? "True" : "False"; return;
    case TypeId::Float32: detail::format_float(out, a.buffers[1].data_as<float>()[slot]); return;
    case TypeId::Float64: detail::format_double(out, a.buffers[1].data_as<double>()[slot]); return;
    case TypeId::String:
    case TypeId::LargeString: detail::format_quoted(out, detail::binary_at(a, i)); return;
    case TypeId::Binary:
    case TypeId::LargeBinary: detail::format_bytes(out, detail::binary_at(a, i)); return;
    case TypeId::Date32: detail::format_date(out, a.buffers[1].data_as<int32_t>()[slot]); return;
    case TypeId::Timestamp:
      detail::format_timestamp(out, a.buffers[1].data_as<int64_t>()[slot], a.type.unit());
      return;
    case TypeId::List:
    case TypeId::LargeList: {
      auto [b, e] = detail::list_range(a, i);
      out += '[';
      for (int64_t k = b; k < e && out.size() < 4 * kMaxCellChars; ++k) {
        if (k > b) out += ", ";
        format_cell(out, *a.children[0], k);
      }
      out += ']';
      return;
    }
    case TypeId::Map: {
      auto [b, e] = detail::list_range(a, i);
      const ArrayData& entries = *a.children[0];
      out += '{';
      for (int64_t k = b; k < e && out.size() < 4 * kMaxCellChars; ++k) {
        if (k > b) out += ", ";
        format_cell(out, *entries.children[0], entries.offset + k);
        out += ": ";
        format_cell(out, *entries.children[1], entries.offset + k);
      }
      out += '}';
      return;
    }
    case TypeId::Struct: {
      out += '(';
      for (size_t k = 0; k < a.children.size(); ++k) {
        if (k > 0) out += ", ";
        format_cell(out, *a.children[k], slot);
      }
      if (a.children.size() == 1) out += ',';
      out += ')';
      return;
    }
    case TypeId::Dictionary: format_cell(out, *a.dictionary, detail::dict_index(a, i)); return;
    default:
      detail::visit_numeric(a.type.id(), [&](auto tag) {
        using T = decltype(tag);
        out += std::to_string(a.buffers[1].data_as<T>()[slot]);
      });
  }
}

std::string cell(const ArrayData& a, int64_t i) {
  std::string s;
  format_cell(s, a, i);
  if (s.size() > kMaxCellChars) s = s.substr(0, kMaxCellChars - 3) + "...";
  return s;
}

bool right_aligned(const DType& t) {
  const DType& v = t.id() == TypeId::Dictionary ? t.value_type() : t;
  return v.is_numeric();
}

// The rows to show: all, or the first and last `max_rows / 2` with -1 marking the gap.
std::vector<int64_t> shown_rows(int64_t n, int64_t max_rows) {
  std::vector<int64_t> rows;
  if (n <= max_rows || max_rows < 2) {
    for (int64_t i = 0; i < n; ++i) rows.push_back(i);
    return rows;
  }
  const int64_t half = max_rows / 2;
  for (int64_t i = 0; i < half; ++i) rows.push_back(i);
  rows.push_back(-1);
  for (int64_t i = n - half; i < n; ++i) rows.push_back(i);
  return rows;
}

void pad(std::string& out, const std::string& s, size_t width, bool right) {
  // Widths count code points, so that UTF-8 text lines up.
  size_t cps = 0;
  for (unsigned char c : s) cps += (c & 0xC0) != 0x80;
  const std::string fill(width > cps ? width - cps : 0, ' ');
  if (right) out += fill + s;
  else out += s + fill;
}

size_t display_width(const std::string& s) {
  size_t cps = 0;
  for (unsigned char c : s) cps += (c & 0xC0) != 0x80;
  return cps;
}

// Renders the table: one header (when given) and rows of cells, two spaces between columns.
std::string render(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                   const std::vector<bool>& right) {
  const size_t ncol = right.size();
  std::vector<size_t> width(ncol, 0);
  for (size_t c = 0; c < ncol; ++c) {
    if (!header.empty()) width[c] = display_width(header[c]);
    for (const auto& r : rows) width[c] = std::max(width[c], display_width(r[c]));
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (size_t c = 0; c < ncol; ++c) {
      if (c > 0) l += "  ";
      pad(l, cells[c], width[c], right[c]);
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  if (!header.empty()) {
    line(header);
    std::vector<std::string> dashes;
    for (size_t c = 0; c < ncol; ++c) dashes.push_back(std::string(width[c], '-'));
    line(dashes);
  }
  for (const auto& r : rows) line(r);
  return out;
}

}  // namespace

std::string Column::to_string(int64_t max_rows) const {
  const ArrayData& a = *data();
  std::vector<std::vector<std::string>> rows;
  for (int64_t i : shown_rows(a.length, max_rows)) {
    if (i < 0) rows.push_back({"...", "..."});
    else rows.push_back({std::to_string(i), cell(a, i)});
  }
  std::string out = render({}, rows, {true, right_aligned(a.type)});
  out += "dtype: " + a.type.to_string() + ", length: " + std::to_string(a.length) +
         ", null_count: " + std::to_string(a.null_count());
  return out;
}

std::string DataFrame::to_string(const PrintOptions& options) const {
  std::vector<std::string> header{"index"};
  std::vector<bool> right{true};
  for (size_t c = 0; c < columns_.size(); ++c) {
    header.push_back(names_[c]);
    right.push_back(right_aligned(columns_[c].dtype()));
  }
  std::vector<std::vector<std::string>> rows;
  for (int64_t i : shown_rows(num_rows_, options.max_rows)) {
    std::vector<std::string> r;
    if (i < 0) {
      r.assign(header.size(), "...");
    } else {
      r.push_back(std::to_string(i));
      for (const Column& col : columns_) r.push_back(cell(*col.data(), i));
    }
    rows.push_back(std::move(r));
  }
  std::string out = render(header, rows, right);
  out += "dtype: " + dtype().to_string() + ", count: " + std::to_string(num_rows_) + ", null_count: 0";
  return out;
}

std::ostream& operator<<(std::ostream& os, const DataFrame& df) { return os << df.to_string(); }

}  // namespace ember::frame
