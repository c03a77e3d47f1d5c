// The reader is the state machine of CPython's Modules/_csv.c (parse_process_char), fed one
// physical line at a time followed by an end-of-line event, exactly as csv.reader sees a
// file opened with newline='' (lines end at "\n", "\r\n" or "\r"). Runs of ordinary bytes
// inside a field skip the state machine and are appended in one copy.
#include "ember/data/io/csv.h"

#include <cstring>

#include "ember/core/error.h"

namespace ember::data::io {

namespace {
constexpr size_t kChunkBytes = 256 << 10;

std::string show_char(int c) {
  if (c == '\n') return "'\\n'";
  if (c == '\r') return "'\\r'";
  if (c >= 0x20 && c < 0x7f) return std::string("'") + char(c) + "'";
  static const char* hex = "0123456789abcdef";
  return std::string("byte 0x") + hex[(c >> 4) & 15] + hex[c & 15];
}
}  // namespace

CsvReader::CsvReader(StreamPtr stream, CsvOptions options) : stream_(std::move(stream)), opt_(options) {
  EMBER_CHECK(stream_, "parse_csv: null stream");
  auto is_nl = [](char c) { return c == '\n' || c == '\r'; };
  EMBER_CHECK(!is_nl(opt_.delimiter) && opt_.delimiter != '\0', "parse_csv: '", stream_->name(),
              "': the delimiter must be a character other than a line end or NUL");
  EMBER_CHECK(!is_nl(opt_.quotechar) && !is_nl(opt_.escapechar), "parse_csv: '", stream_->name(),
              "': quotechar and escapechar cannot be line ends");
  EMBER_CHECK(opt_.quotechar != opt_.delimiter && opt_.escapechar != opt_.delimiter &&
                  (opt_.quotechar == '\0' || opt_.quotechar != opt_.escapechar),
              "parse_csv: '", stream_->name(), "': delimiter ", show_char((unsigned char)opt_.delimiter),
              ", quotechar and escapechar must differ");
  std::memset(special_field_, 0, sizeof special_field_);
  std::memset(special_quoted_, 0, sizeof special_quoted_);
  special_field_[(unsigned char)opt_.delimiter] = true;
  special_field_['\n'] = special_field_['\r'] = true;
  special_quoted_['\n'] = special_quoted_['\r'] = true;  // counted as lines
  if (opt_.escapechar) special_field_[(unsigned char)opt_.escapechar] = special_quoted_[(unsigned char)opt_.escapechar] = true;
  if (opt_.quotechar) special_quoted_[(unsigned char)opt_.quotechar] = true;
  // What a field cannot start with on the fast path.
  std::memcpy(special_start_, special_field_, sizeof special_start_);
  if (opt_.quotechar) special_start_[(unsigned char)opt_.quotechar] = true;
  if (opt_.skipinitialspace) special_start_[(unsigned char)' '] = true;
  cap_ = kChunkBytes;
  buf_.reset(new char[cap_ + 1]);
  buf_[0] = '\n';
}

CsvReader::~CsvReader() = default;

const std::string& CsvReader::name() const { return stream_->name(); }

void CsvReader::fail(const std::string& what) const {
  EMBER_ERROR("parse_csv: '", stream_->name(), "' line ", line_, ": ", what);
}

bool CsvReader::refill() {
  if (eof_) return false;
  pos_ = 0;
  len_ = stream_->read(buf_.get(), cap_);
  buf_[len_] = '\n';  // sentinel: ends the bulk scans without a bounds check per byte
  if (len_ == 0) eof_ = true;
  return len_ > 0;
}

void CsvReader::skip_lines() {
  size_t skipped = 0;
  bool cr = false;
  while (skipped < opt_.skip_lines) {
    if (pos_ == len_ && !refill()) {
      if (cr) ++skipped;
      break;
    }
    if (cr) {
      cr = false;
      ++skipped;
      if (buf_[pos_] == '\n') ++pos_;
      continue;
    }
    const char* begin = buf_.get() + pos_;
    const char* end = buf_.get() + len_;
    const char* p = begin;
    while (*p != '\n' && *p != '\r') ++p;  // stops at the sentinel at the latest
    if (p >= end) {
      pos_ = len_;
      continue;
    }
    pos_ += (p - begin) + 1;
    if (*p == '\n') ++skipped;
    else cr = true;
  }
  line_ += int64_t(skipped);
}

inline __attribute__((always_inline)) void CsvReader::save_field() {
  ++nfields_;
  if (row_->size() <= nfields_) row_->emplace_back();
  cur_ = &(*row_)[nfields_];
  cur_->clear();
  field_nonempty_ = false;
}

void CsvReader::step(int c) {
  const int quote = opt_.quotechar ? (unsigned char)opt_.quotechar : -2;
  const int esc = opt_.escapechar ? (unsigned char)opt_.escapechar : -2;
  const int delim = (unsigned char)opt_.delimiter;
  auto add = [&](int ch) {
    cur_->push_back(char(ch));
    field_nonempty_ = true;
  };
  switch (state_) {
    case kStartRecord:
      if (c == kEol) return;
      if (c == '\n' || c == '\r') {
        state_ = kEatCrnl;
        return;
      }
      state_ = kStartField;
      [[fallthrough]];
    case kStartField:
      if (c == '\n' || c == '\r' || c == kEol) {
        save_field();
        state_ = c == kEol ? kStartRecord : kEatCrnl;
      } else if (c == quote) {
        state_ = kInQuotedField;
        quote_line_ = line_;
      } else if (c == esc) {
        state_ = kEscapedChar;
      } else if (c == ' ' && opt_.skipinitialspace) {
      } else if (c == delim) {
        save_field();
      } else {
        add(c);
        state_ = kInField;
      }
      return;
    case kEscapedChar:
      if (c == '\n' || c == '\r') {
        add(c);
        state_ = kAfterEscapedCrnl;
        return;
      }
      add(c == kEol ? '\n' : c);
      state_ = kInField;
      return;
    case kAfterEscapedCrnl:
      if (c == kEol) return;
      [[fallthrough]];
    case kInField:
      if (c == '\n' || c == '\r' || c == kEol) {
        save_field();
        state_ = c == kEol ? kStartRecord : kEatCrnl;
      } else if (c == esc) {
        state_ = kEscapedChar;
      } else if (c == delim) {
        save_field();
        state_ = kStartField;
      } else {
        add(c);
        state_ = kInField;
      }
      return;
    case kInQuotedField:
      if (c == kEol) {
      } else if (c == esc) {
        state_ = kEscapeInQuotedField;
      } else if (c == quote) {
        state_ = opt_.doublequote ? kQuoteInQuotedField : kInField;
      } else {
        add(c);
      }
      return;
    case kEscapeInQuotedField:
      add(c == kEol ? '\n' : c);
      state_ = kInQuotedField;
      return;
    case kQuoteInQuotedField:
      if (c == quote) {  // "" inside quotes is one "
        add(c);
        state_ = kInQuotedField;
      } else if (c == delim) {
        save_field();
        state_ = kStartField;
      } else if (c == '\n' || c == '\r' || c == kEol) {
        save_field();
        state_ = c == kEol ? kStartRecord : kEatCrnl;
      } else if (!opt_.strict) {
        add(c);
        state_ = kInField;
      } else {
        fail(show_char(c) + " after the closing quote of a quoted field (strict mode expects " +
             show_char(delim) + " or a line end)");
      }
      return;
    case kEatCrnl:
      if (c == '\n' || c == '\r') return;
      if (c == kEol) {
        state_ = kStartRecord;
        return;
      }
      // Unreachable with our line splitting (a '\r' always ends the line); kept for safety.
      fail("new-line character seen in unquoted field");
  }
}

bool CsvReader::end_line(std::vector<std::string>& row) {
  step(kEol);
  ++line_;
  if (state_ != kStartRecord) return false;
  row.resize(nfields_);
  row_line_ = line_ - 1;
  return true;
}

bool CsvReader::end_data(std::vector<std::string>& row) {
  // The last line has no line end: Python still sends it an end-of-line event.
  if (cr_pending_ || pos_line_has_chars_) {
    cr_pending_ = false;
    pos_line_has_chars_ = false;
    if (end_line(row)) return true;
  }
  finished_ = true;
  if (state_ == kStartRecord) {
    row.clear();
    return false;
  }
  if (state_ == kInQuotedField || state_ == kEscapeInQuotedField)
    EMBER_ERROR("parse_csv: '", stream_->name(), "' line ", line_ - 1,
                ": unexpected end of data inside a quoted field (the quote opened on line ", quote_line_,
                " is never closed)");
  if (!field_nonempty_) {  // Python drops a partial record here
    row.clear();
    return false;
  }
  if (opt_.strict) EMBER_ERROR("parse_csv: '", stream_->name(), "' line ", line_ - 1, ": unexpected end of data");
  save_field();
  row.resize(nfields_);
  row_line_ = line_ - 1;
  return true;
}

bool CsvReader::next(std::vector<std::string>& row) {
  if (finished_) {
    row.clear();
    return false;
  }
  if (!started_) {
    started_ = true;
    skip_lines();
  }
  row_ = &row;
  nfields_ = 0;
  if (row.empty()) row.emplace_back();
  cur_ = &row[0];
  cur_->clear();
  field_nonempty_ = false;
  row_start_line_ = line_;
  for (;;) {
    if (pos_ == len_) {
      if (!refill()) return end_data(row);
      continue;
    }
    if (cr_pending_) {
      cr_pending_ = false;
      if (buf_[pos_] == '\n') {
        ++pos_;
        step('\n');
      }
      pos_line_has_chars_ = false;
      if (end_line(row)) return true;
      continue;
    }
    // Fast path for unquoted fields, the bulk of most files: the field's bytes are copied
    // in one run, and a delimiter or '\n' after them is handled here. Everything else
    // (quotes, escapes, '\r', empty fields) takes the state machine below.
    if (state_ == kInField || ((state_ == kStartField || state_ == kStartRecord) &&
                               !special_start_[(unsigned char)buf_[pos_]])) {
      const char* begin = buf_.get() + pos_;
      const char* p = begin;
      if (state_ != kInField) {
        state_ = kInField;
        ++p;  // a start character that is not special is the field's first byte
      }
      while (!special_field_[(unsigned char)*p]) ++p;  // the sentinel '\n' is special
      const size_t n = std::min<size_t>(p - begin, len_ - pos_);
      if (n) {
        cur_->append(begin, n);
        field_nonempty_ = true;
        pos_line_has_chars_ = true;
        pos_ += n;
      }
      if (pos_ == len_) continue;
      const char c = buf_[pos_];
      if (c == opt_.delimiter) {
        ++pos_;
        save_field();
        state_ = kStartField;
        continue;
      }
      if (c == '\n') {  // IN_FIELD, '\n' and the end-of-line event at once
        ++pos_;
        save_field();
        state_ = kStartRecord;
        pos_line_has_chars_ = false;
        ++line_;
        row.resize(nfields_);
        row_line_ = line_ - 1;
        return true;
      }
    } else if (state_ == kInQuotedField) {
      const char* begin = buf_.get() + pos_;
      const char* p = begin;
      while (!special_quoted_[(unsigned char)*p]) ++p;
      if (p != begin) {
        const size_t n = std::min<size_t>(p - begin, len_ - pos_);
        cur_->append(begin, n);
        field_nonempty_ = true;
        pos_line_has_chars_ = true;
        pos_ += n;
        continue;
      }
    }
    const unsigned char c = buf_[pos_++];
    pos_line_has_chars_ = true;
    step(c);
    if (c == '\n') {
      pos_line_has_chars_ = false;
      if (end_line(row)) return true;
    } else if (c == '\r') {
      cr_pending_ = true;
    }
  }
}

// ---- dict rows ---------------------------------------------------------------------

CsvDictRow::CsvDictRow(std::shared_ptr<const CsvHeader> header, std::vector<std::string> values)
    : header_(std::move(header)), values_(std::move(values)) {
  EMBER_CHECK(header_ && header_->names.size() == values_.size(), "CsvDictRow: ", values_.size(),
              " values for ", header_ ? header_->names.size() : 0, " columns");
}

const std::vector<std::string>& CsvDictRow::keys() const {
  static const std::vector<std::string> none;
  return header_ ? header_->names : none;
}

const std::string* CsvDictRow::find(std::string_view key) const {
  if (!header_) return nullptr;
  auto it = header_->index.find(key);
  return it == header_->index.end() ? nullptr : &values_[it->second];
}

const std::string& CsvDictRow::at(std::string_view key) const {
  if (const std::string* v = find(key)) return *v;
  std::string cols;
  for (const auto& k : keys()) cols += (cols.empty() ? "'" : ", '") + k + "'";
  EMBER_ERROR("CsvDictRow: no column '", key, "' (columns: ", cols.empty() ? "none" : cols, ")");
}

CsvDictReader::CsvDictReader(StreamPtr stream, CsvOptions options) : reader_(std::move(stream), options) {}

bool CsvDictReader::read_header() {
  header_read_ = true;
  while (reader_.next(scratch_))
    if (!scratch_.empty()) {
      auto h = std::make_shared<CsvHeader>();
      for (size_t i = 0; i < scratch_.size(); ++i) {
        auto [it, fresh] = h->index.emplace(scratch_[i], i);
        EMBER_CHECK(fresh, "parse_csv_as_dict: '", reader_.name(), "' line ", reader_.line(),
                    ": the header names column '", scratch_[i], "' twice (columns ", it->second + 1, " and ",
                    i + 1, ")");
      }
      h->names = scratch_;
      header_ = std::move(h);
      return true;
    }
  header_ = std::make_shared<CsvHeader>();
  return false;
}

const std::vector<std::string>& CsvDictReader::fieldnames() {
  if (!header_read_) read_header();
  return header_->names;
}

bool CsvDictReader::next(CsvDictRow& row) {
  if (!header_read_ && !read_header()) return false;
  if (header_->names.empty()) return false;
  std::vector<std::string>& values = row.values();
  do {
    if (!reader_.next(values)) return false;
  } while (values.empty());
  EMBER_CHECK(values.size() == header_->names.size(), "parse_csv_as_dict: '", reader_.name(), "' line ",
              reader_.row_start_line(), ": the row has ", values.size(), " fields but the header has ",
              header_->names.size());
  row = CsvDictRow(header_, std::move(values));
  return true;
}

}  // namespace ember::data::io
