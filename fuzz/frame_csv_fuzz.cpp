// Fuzzes ember::frame::read_csv_string (ember/frame/io/csv.h) with inferred and given dtypes
// (booleans, integers, floats, strings, binaries, dates, timestamps, dictionaries, and a
// nested type it must refuse). Input: an 8-byte options prefix (see kPrefix below), then the
// CSV text. With bit 7 of byte 0 the text is also repeated past 64 KiB and read in two chunks
// on two threads, which must give what one chunk gives.
#include <optional>
#include <string>

#include "ember/frame/frame.h"
#include "fuzz_util.h"

namespace {

using namespace ember;
using namespace ember::frame;
namespace dt = dtypes;

// Prefix byte 0: bit 0 header, 1 skipinitialspace, 2 strict, 3 doublequote off, 4 infer_dates
// off, 5 quoted_nulls off, 6 escapechar '\\', 7 the chunked comparison. Byte 1: bits 0-1 the
// delimiter, 2-3 the quote character, 4-5 the null values, 6 skip one row, 7 column names given.
// Bytes 2-7: the dtype of columns 0-5 (low 5 bits: 0 inferred, else kDTypes[i-1]; bit 7 nullable).
constexpr size_t kPrefix = 8;

std::optional<DType> dtype_for(uint8_t b) {
  const bool n = b & 0x80;
  switch (b & 31) {
    case 1: return dt::Boolean(n);
    case 2: return dt::Int8(n);
    case 3: return dt::Int16(n);
    case 4: return dt::Int32(n);
    case 5: return dt::Int64(n);
    case 6: return dt::UInt8(n);
    case 7: return dt::UInt16(n);
    case 8: return dt::UInt32(n);
    case 9: return dt::UInt64(n);
    case 10: return dt::Float32(n);
    case 11: return dt::Float64(n);
    case 12: return dt::String(n);
    case 13: return dt::LargeString(n);
    case 14: return dt::Binary(n);
    case 15: return dt::LargeBinary(n);
    case 16: return dt::Date32(n);
    case 17: return dt::Timestamp(TimeUnit::Micro, "", n);
    case 18: return dt::Timestamp(TimeUnit::Nano, "UTC", n);
    case 19: return dt::Timestamp(TimeUnit::Second, "", n);
    case 20: return dt::Timestamp(TimeUnit::Milli, "Europe/Paris", n);
    case 21: return dt::Dictionary(dt::int32, dt::string, n);
    case 22: return dt::List(dt::int64, n);  // unsupported: an error
    default: return std::nullopt;
  }
}

// The first record's fields, split naively (the names the dtypes refer to).
std::vector<std::string> header_names(std::string_view text, const CsvReadOptions& o) {
  std::string_view line = text;
  for (int64_t skip = o.skip_rows; skip > 0; --skip) {
    const size_t nl = line.find('\n');
    line = nl == std::string_view::npos ? std::string_view() : line.substr(nl + 1);
  }
  line = line.substr(0, std::min(line.find('\n'), line.find('\r')));
  std::vector<std::string> names(1);
  for (char c : line) {
    if (c == o.delimiter) names.emplace_back();
    else if (c != o.quotechar || c == '\0') names.back() += c;
  }
  return names;
}

CsvReadOptions options_for(const uint8_t* p, std::string_view text) {
  CsvReadOptions o;
  o.header = p[0] & 1;
  o.skipinitialspace = p[0] & 2;
  o.strict = p[0] & 4;
  o.doublequote = !(p[0] & 8);
  o.infer_dates = !(p[0] & 16);
  o.quoted_nulls = !(p[0] & 32);
  if (p[0] & 64) o.escapechar = '\\';
  o.delimiter = ",;\t|"[p[1] & 3];
  o.quotechar = "\"'\0\""[(p[1] >> 2) & 3];
  switch ((p[1] >> 4) & 3) {
    case 1: o.null_values = {}; break;
    case 2: o.null_values = {"NA"}; break;
    case 3: o.null_values = {"", "null", "-"}; break;
    default: break;
  }
  o.skip_rows = (p[1] & 64) ? 1 : 0;
  std::vector<std::string> names = header_names(text, o);
  if (p[1] & 128) {
    for (size_t i = 0; i < names.size(); ++i) names[i] = "c" + std::to_string(i);
    o.column_names = names;
  } else if (!o.header) {
    for (size_t i = 0; i < names.size(); ++i) names[i] = std::to_string(i);
  }
  for (size_t i = 0; i < 6 && i < names.size(); ++i) {
    if (std::optional<DType> t = dtype_for(p[2 + i])) o.dtypes.insert_or_assign(names[i], *t);
  }
  o.num_threads = 1;
  o.chunk_bytes = int64_t(1) << 40;  // one chunk
  return o;
}

// Reads every value, as a user would.
std::string touch(const DataFrame& df) {
  for (int64_t c = 0; c < df.num_columns(); ++c) (void)df.column(c).to_values();
  (void)df.to_string();
  return to_csv(df);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::setup();
  if (size < kPrefix) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + kPrefix, size - kPrefix);
  CsvReadOptions o = options_for(data, text);
  EMBER_FUZZ_TRY(touch(read_csv_string(text, o)));

  if ((data[0] & 128) && !text.empty() && text.size() < 4096) {
    // Copies of the text (the header among them, which is just another row) past one 64 KiB
    // chunk, parsed as two chunks on two threads, against the same text in one chunk.
    std::string big(text);
    if (big.back() != '\n') big += '\n';
    const std::string body = big;
    while (big.size() < (size_t(72) << 10)) big += body;  // two chunks, one cut
    std::string one, many;
    bool one_ok = true, many_ok = true;
    try {
      one = touch(read_csv_string(big, o));
    } catch (const Error&) {
      one_ok = false;
    }
    o.num_threads = 2;
    o.chunk_bytes = 64 << 10;
    try {
      many = touch(read_csv_string(big, o));
    } catch (const Error&) {
      many_ok = false;
    }
    if (one_ok != many_ok) fuzz::fail(one_ok ? "read_csv: chunked read failed, single read succeeded"
                                             : "read_csv: chunked read succeeded, single read failed");
    if (one != many) fuzz::fail("read_csv: chunked read differs from the single read");
  }
  return 0;
}
