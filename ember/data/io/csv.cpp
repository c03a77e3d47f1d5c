// parse_csv's reader: read_csv's tokenizer (ember/frame/io/csv_tokenizer.h) in CPython's
// end-of-data mode, over a buffer of the stream. A record that reaches the end of the buffer
// (or fails there because the text ends) is tokenized again once more text is in, so the rows
// are csv.reader's whatever the stream's read sizes. Lines are counted only in records that
// can hold a line end inside (quoted or escaped fields).
#include "ember/data/io/csv.h"

#include <algorithm>
#include <cstring>

#include "ember/core/error.h"
#include "ember/frame/io/csv_tokenizer.h"

namespace ember::data::io {

namespace {
constexpr size_t kCsvChunkBytes = 256 << 10;
constexpr size_t kPad = 1 + 16;  // the sentinel '\n', then bytes the tokenizer's 16-byte loads may read

namespace csv = frame::io::detail;

}  // namespace

struct CsvReader::Impl {
  csv::Dialect dialect;
  csv::Tokenizer tokenizer;
  explicit Impl(const CsvOptions& o)
      : dialect(o.delimiter, o.quotechar, o.escapechar, o.doublequote, o.skipinitialspace, o.strict,
                csv::DataEnd::kPython),
        tokenizer(dialect, nullptr, nullptr) {}
};

CsvReader::CsvReader(StreamPtr stream, CsvOptions options) : stream_(std::move(stream)), opt_(options) {
  EMBER_CHECK(stream_, "parse_csv: null stream");
  auto is_nl = [](char c) { return c == '\n' || c == '\r'; };
  EMBER_CHECK(!is_nl(opt_.delimiter) && opt_.delimiter != '\0', "parse_csv: '", stream_->name(),
              "': the delimiter must be a character other than a line end or NUL");
  EMBER_CHECK(!is_nl(opt_.quotechar) && !is_nl(opt_.escapechar), "parse_csv: '", stream_->name(),
              "': quotechar and escapechar cannot be line ends");
  EMBER_CHECK(opt_.quotechar != opt_.delimiter && opt_.escapechar != opt_.delimiter &&
                  (opt_.quotechar == '\0' || opt_.quotechar != opt_.escapechar),
              "parse_csv: '", stream_->name(), "': delimiter ", csv::show_char(opt_.delimiter),
              ", quotechar and escapechar must differ");
  impl_ = std::make_unique<Impl>(opt_);
  cap_ = kCsvChunkBytes;
  buf_.reset(new char[cap_ + kPad]());
  buf_[0] = '\n';
}

CsvReader::~CsvReader() = default;

const std::string& CsvReader::name() const { return stream_->name(); }

void CsvReader::fail_at(const char* at, const std::string& what) const {
  EMBER_ERROR("parse_csv: '", stream_->name(), "' line ", line_ + line_ends(buf_.get() + pos_, at), ": ", what);
}

// Keeps the unread bytes, moved to the front, and reads until `want` more bytes are in (or the
// stream ends); grows the buffer when they do not fit. False when nothing more came. Pointers
// into the buffer are stale afterwards.
bool CsvReader::fill(size_t want) {
  if (eof_) return false;
  if (pos_ > 0) {
    std::memmove(buf_.get(), buf_.get() + pos_, len_ - pos_);
    len_ -= pos_;
    pos_ = 0;
  }
  if (cap_ - len_ < want) {
    cap_ = std::max(cap_ * 2, len_ + want);
    std::unique_ptr<char[]> bigger(new char[cap_ + kPad]());
    std::memcpy(bigger.get(), buf_.get(), len_);
    buf_ = std::move(bigger);
  }
  const size_t before = len_;
  while (len_ - before < want) {
    const size_t n = stream_->read(buf_.get() + len_, cap_ - len_);
    if (n == 0) {
      eof_ = true;
      break;
    }
    len_ += n;
  }
  buf_[len_] = '\n';  // the sentinel: ends the tokenizer's scans without a bounds check per byte
  return len_ > before;
}

// Physical lines ending in [begin, end): "\n", "\r\n" and a lone "\r" each end one.
int64_t CsvReader::line_ends(const char* begin, const char* end) const {
  int64_t n = 0;
  for (const char* p = begin; (p = static_cast<const char*>(std::memchr(p, '\n', end - p))); ++p) ++n;
  for (const char* p = begin; (p = static_cast<const char*>(std::memchr(p, '\r', end - p))); ++p)
    n += !(p + 1 < end && p[1] == '\n');
  return n;
}

void CsvReader::skip_lines() {
  for (size_t skipped = 0; skipped < opt_.skip_lines;) {
    if (pos_ == len_ && !fill(1)) return;
    const char* p = buf_.get() + pos_;
    const char* end = buf_.get() + len_;
    while (*p != '\n' && *p != '\r') ++p;  // stops at the sentinel at the latest
    if (p == end) {
      pos_ = len_;
      continue;
    }
    if (*p == '\r' && p + 1 == end && !eof_) {  // "\r\n" may straddle the buffer's end
      pos_ = p - buf_.get();
      fill(1);
      continue;  // scans again from the '\r' (fill moved it)
    }
    pos_ = (p - buf_.get()) + 1 + (*p == '\r' && p + 1 < end && p[1] == '\n');
    ++line_;
    ++skipped;
  }
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
  csv::Tokenizer& tok = impl_->tokenizer;
  for (;;) {
    if (pos_ == len_ && !fill(1)) {
      finished_ = true;
      row.clear();
      return false;
    }
    const char* begin = buf_.get() + pos_;
    const char* end = buf_.get() + len_;
    if (*begin == '\n' || *begin == '\r') {  // a blank line: csv.reader's []
      if (*begin == '\r' && begin + 1 == end && !eof_) {  // is it "\r\n"?
        fill(1);
        continue;
      }
      pos_ += 1 + (*begin == '\r' && begin + 1 < end && begin[1] == '\n');
      row_start_line_ = row_line_ = line_++;
      row.clear();
      return true;
    }
    tok.reset(begin, end);
    size_t nf = 0;
    const char* after = nullptr;
    try {
      after = tok.record(begin, &nf);
    } catch (const csv::ParseFailure& f) {
      if (!f.at_end || eof_) fail_at(begin + f.pos, f.message);
      fill(len_ - pos_);  // at least doubles what is in: each record is tokenized O(1) times on average
      continue;
    }
    // The record reaches the end of the buffer: more text may extend it (or complete a "\r\n").
    if (after == end && !eof_) {
      fill(len_ - pos_);
      continue;
    }
    const std::vector<csv::Span>& spans = tok.spans();
    bool multiline = false;
    if (row.size() < nf) row.resize(nf);
    for (size_t i = 0; i < nf; ++i) {
      row[i].assign(spans[i].p, spans[i].n);
      multiline |= spans[i].quoted || spans[i].in_scratch;
    }
    row.resize(nf);
    const bool ends_line = after > begin && (after[-1] == '\n' || after[-1] == '\r');
    const int64_t ends = multiline ? line_ends(begin, after) : int64_t(ends_line);
    row_start_line_ = line_;
    line_ += ends;
    row_line_ = ends_line ? line_ - 1 : line_;
    pos_ = after - buf_.get();
    return true;
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
