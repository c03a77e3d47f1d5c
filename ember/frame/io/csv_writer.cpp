// write_csv: rows formatted in parallel blocks (each block into its own string), written in
// order. Values are formatted as Python and pandas write them (see csv.h).
#include <algorithm>
#include <charconv>
#include <fstream>
#include <ostream>
#include <sstream>

#include "ember/core/error.h"
#include "ember/core/parallel.h"
#include "ember/frame/detail/format.h"
#include "ember/frame/detail/physical.h"
#include "ember/frame/io/csv.h"

namespace ember::frame {

namespace {

constexpr int64_t kBlockRows = 16384;

// How one column's elements are written.
class ColumnWriter {
 public:
  ColumnWriter(const Column& c, const std::string& name) : col_(c), a_(*c.data()) {
    const DType& t = a_.type;
    value_type_ = t.id() == TypeId::Dictionary ? t.value_type() : t;
    EMBER_CHECK(!value_type_.is_nested(), "write_csv: column '", name, "' has type ", t.to_string(),
                ", which a CSV field cannot hold");
    numeric_ = value_type_.is_numeric() || value_type_.id() == TypeId::Bool;
  }
  bool numeric() const { return numeric_; }
  bool is_text() const { return value_type_.is_binary_like(); }
  bool is_null(int64_t i) const { return !a_.is_valid(i); }

  // Element i (not null) appended to `out`.
  void format(std::string& out, int64_t i) const {
    const ArrayData* a = &a_;
    int64_t j = i;
    if (a_.type.id() == TypeId::Dictionary) {
      j = detail::dict_index(a_, i);
      a = a_.dictionary.get();
    }
    format_value(out, *a, j);
  }

 private:
  void format_value(std::string& out, const ArrayData& a, int64_t i) const {
    const int64_t slot = a.offset + i;
    char buf[32];
    switch (a.type.id()) {
      case TypeId::Bool: out += bits::get(a.buffers[1].data(), slot) ? "True" : "False"; return;
      case TypeId::Float32: detail::format_float(out, a.buffers[1].data_as<float>()[slot]); return;
      case TypeId::Float64: detail::format_double(out, a.buffers[1].data_as<double>()[slot]); return;
      case TypeId::String:
      case TypeId::LargeString:
      case TypeId::Binary:
      case TypeId::LargeBinary: out += detail::binary_at(a, i); return;
      case TypeId::Date32: detail::format_date(out, a.buffers[1].data_as<int32_t>()[slot]); return;
      case TypeId::Timestamp: {
        format_timestamp(out, a.buffers[1].data_as<int64_t>()[slot], a.type.unit());
        if (!a.type.timezone().empty()) out += 'Z';  // the values are UTC instants
        return;
      }
      default:
        detail::visit_numeric(a.type.id(), [&](auto tag) {
          using T = decltype(tag);
          if constexpr (std::is_integral_v<T>) {
            const auto r = std::to_chars(buf, buf + sizeof(buf), a.buffers[1].data_as<T>()[slot]);
            out.append(buf, r.ptr);
          }
        });
    }
  }

  // "YYYY-MM-DD HH:MM:SS" and every digit of the unit's fraction, so that the unit reads back.
  static void format_timestamp(std::string& out, int64_t count, TimeUnit unit) {
    static const int64_t per[] = {1, 1000, 1000000, 1000000000};
    const int u = int(unit);
    const int64_t p = per[u];
    int64_t secs = count / p, frac = count % p;
    if (frac < 0) frac += p, secs -= 1;
    detail::format_timestamp(out, secs, TimeUnit::Second);
    if (u > 0) {
      char buf[16];
      std::snprintf(buf, sizeof(buf), ".%0*lld", 3 * u, static_cast<long long>(frac));
      out += buf;
    }
  }

  Column col_;
  const ArrayData& a_;
  DType value_type_{TypeId::Bool};
  bool numeric_ = false;
};

class Writer {
 public:
  Writer(const DataFrame& df, const CsvWriteOptions& o) : df_(df), o_(o) {
    EMBER_CHECK(o.delimiter != '\0' && o.delimiter != '\n' && o.delimiter != '\r',
                "write_csv: the delimiter must be a character other than a line end or NUL");
    EMBER_CHECK(o.quotechar != '\0' || o.quoting == CsvWriteOptions::Quoting::None,
                "write_csv: quoting needs a quotechar (or Quoting::None)");
    special_[(unsigned char)o.delimiter] = special_[(unsigned char)'\n'] = special_[(unsigned char)'\r'] = true;
    if (o.quotechar) special_[(unsigned char)o.quotechar] = true;
    if (o.escapechar) special_[(unsigned char)o.escapechar] = true;
    for (int64_t c = 0; c < df.num_columns(); ++c) cols_.emplace_back(df.column(c), df.columns()[size_t(c)]);
    for (const std::string& s : default_csv_null_values()) null_like_.push_back(s);
  }

  void run(std::ostream& out) {
    if (o_.header) {
      std::string line;
      for (size_t c = 0; c < df_.columns().size(); ++c) {
        if (c) line += o_.delimiter;
        field(line, df_.columns()[c], false, true);
      }
      line += o_.line_terminator;
      write(out, line);
    }
    const int64_t rows = df_.num_rows();
    const int64_t nblocks = (rows + kBlockRows - 1) / kBlockRows;
    const int64_t group = std::max<int64_t>(1, 4 * int64_t(get_num_threads()));
    std::vector<std::string> texts;
    for (int64_t g = 0; g < nblocks; g += group) {
      const int64_t n = std::min(group, nblocks - g);
      texts.assign(size_t(n), std::string());
      parallel_for(0, n, 1, [&](int64_t b, int64_t e) {
        for (int64_t k = b; k < e; ++k) block(texts[size_t(k)], (g + k) * kBlockRows, std::min(rows, (g + k + 1) * kBlockRows));
      });
      for (const std::string& t : texts) write(out, t);
    }
  }

 private:
  static void write(std::ostream& out, const std::string& s) {
    out.write(s.data(), std::streamsize(s.size()));
    EMBER_CHECK(out.good(), "write_csv: writing failed");
  }

  void block(std::string& out, int64_t begin, int64_t end) const {
    std::string value;
    const bool single = cols_.size() == 1;
    for (int64_t i = begin; i < end; ++i) {
      for (size_t c = 0; c < cols_.size(); ++c) {
        if (c) out += o_.delimiter;
        const ColumnWriter& w = cols_[c];
        if (w.is_null(i)) {
          // A lone empty field would be a blank line, which readers skip: quote it.
          const bool quote = o_.quoting == CsvWriteOptions::Quoting::All || (single && o_.null_value.empty());
          if (quote && o_.quotechar) {
            out += o_.quotechar;
            out += o_.null_value;
            out += o_.quotechar;
          } else {
            out += o_.null_value;
          }
          continue;
        }
        value.clear();
        w.format(value, i);
        field(out, value, w.numeric(), w.is_text());
      }
      out += o_.line_terminator;
    }
  }

  // Appends `v`, quoted or escaped as the options say.
  void field(std::string& out, std::string_view v, bool numeric, bool text) const {
    using Q = CsvWriteOptions::Quoting;
    bool special = false;
    for (unsigned char ch : v)
      if (special_[ch]) {
        special = true;
        break;
      }
    bool quote = false;
    switch (o_.quoting) {
      case Q::All: quote = true; break;
      case Q::NonNumeric: quote = !numeric; break;
      case Q::Minimal:
        quote = special || (text && (v.empty() || std::find(null_like_.begin(), null_like_.end(), v) != null_like_.end()));
        break;
      case Q::None: quote = false; break;
    }
    if (quote) {
      out += o_.quotechar;
      for (char ch : v) {
        if (ch == o_.quotechar) out += ch;  // doubled
        out += ch;
      }
      out += o_.quotechar;
      return;
    }
    if (!special) {
      out += v;
      return;
    }
    EMBER_CHECK(o_.escapechar != '\0', "write_csv: the value '", v,
                "' holds a delimiter, quote or line break; Quoting::None needs an escapechar to write it");
    for (char ch : v) {
      if (special_[(unsigned char)ch]) out += o_.escapechar;
      out += ch;
    }
  }

  const DataFrame& df_;
  const CsvWriteOptions& o_;
  std::vector<ColumnWriter> cols_;
  bool special_[256] = {};
  std::vector<std::string_view> null_like_;
};

}  // namespace

void write_csv(const DataFrame& df, std::ostream& out, const CsvWriteOptions& options) {
  Writer(df, options).run(out);
  out.flush();
  EMBER_CHECK(out.good(), "write_csv: flushing failed");
}

void write_csv(const DataFrame& df, const std::string& path, const CsvWriteOptions& options) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  EMBER_CHECK(f.is_open(), "write_csv: cannot open '", path, "' for writing");
  try {
    write_csv(df, f, options);
  } catch (const Error& e) {
    EMBER_ERROR(e.what(), " ('", path, "')");
  }
  f.close();
  EMBER_CHECK(!f.fail(), "write_csv: closing '", path, "' failed");
}

std::string to_csv(const DataFrame& df, const CsvWriteOptions& options) {
  std::ostringstream out;
  write_csv(df, out, options);
  return out.str();
}

void DataFrame::to_csv(const std::string& path) const { write_csv(*this, path); }
void DataFrame::to_csv(const std::string& path, const CsvWriteOptions& options) const { write_csv(*this, path, options); }

}  // namespace ember::frame
