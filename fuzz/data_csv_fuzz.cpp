// Fuzzes the DataPipes CSV parser (ember/data/io/csv.h: CsvReader and CsvDictReader, what
// parse_csv and parse_csv_as_dict run) over a stream that hands out the text in small pieces
// (the rows must be those read at once).
// Input: a 2-byte options prefix (dialect, skip_lines, read size), then the CSV text.
#include "ember/data/io/csv.h"
#include "fuzz_util.h"

namespace {

using namespace ember;
using namespace ember::data::io;

CsvOptions options_for(const uint8_t* p) {
  CsvOptions o;
  o.delimiter = ",;\t|"[p[0] & 3];
  o.quotechar = "\"'\0\""[(p[0] >> 2) & 3];
  if (p[0] & 16) o.escapechar = '\\';
  o.doublequote = !(p[0] & 32);
  o.skipinitialspace = p[0] & 64;
  o.strict = p[0] & 128;
  o.skip_lines = p[1] & 3;
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::setup();
  if (size < 2) return 0;
  const CsvOptions o = options_for(data);
  // Read sizes 1..64 bytes, or the whole text at once.
  const size_t piece = (data[1] >> 2) == 63 ? size : size_t((data[1] >> 2) + 1);
  const std::string text = fuzz::as_string(data + 2, size - 2);
  if (!(data[1] & 128)) {
    // Read in pieces and all at once: the same rows, or an error both times.
    auto rows_of = [&](size_t max_read, std::vector<std::vector<std::string>>& rows) {
      try {
        CsvReader reader(fuzz::choppy_stream(text, max_read), o);
        std::vector<std::string> row;
        int64_t last_line = 0;
        while (reader.next(row)) {
          if (reader.line() < last_line || reader.row_start_line() > reader.line())
            fuzz::fail("CsvReader: line numbers went backwards");
          last_line = reader.line();
          rows.push_back(row);
        }
        return true;
      } catch (const Error&) {
        return false;
      }
    };
    std::vector<std::vector<std::string>> a, b;
    const bool ok_a = rows_of(piece, a), ok_b = rows_of(text.size() + 1, b);
    if (ok_a != ok_b) fuzz::fail("CsvReader: reading in pieces and at once disagree on whether the text is valid");
    if (ok_a && a != b) fuzz::fail("CsvReader: reading in pieces gives other rows than reading at once");
  } else {
    EMBER_FUZZ_TRY({
      CsvDictReader reader(fuzz::choppy_stream(text, piece), o);
      CsvDictRow row;
      while (reader.next(row)) {
        if (row.size() != reader.fieldnames().size()) fuzz::fail("CsvDictReader: a row's size differs from the header's");
        for (size_t i = 0; i < row.size(); ++i) (void)row.at(row.keys()[i]);
      }
    });
  }
  return 0;
}
