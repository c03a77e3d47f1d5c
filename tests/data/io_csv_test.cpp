// io::CsvReader / CsvDictReader against Python's csv module: files written by csv.writer in
// several dialects, and hand-made edge cases (quotes, escapes, every line-end style, blank
// lines, text after a closing quote), read by csv.reader / csv.DictReader in the same run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "ember/core/json.h"
#include "ember/data/io/csv.h"
#include "python_scripts.h"
#include "temp_files.h"
#include "test_util.h"

namespace io = ember::data::io;
namespace json = ember::json;
namespace fs = std::filesystem;

namespace {

using ember::test::read_bytes;
using ember::test::run_python;
using ember::test::TempDir;
using ember::test::write_bytes;

// A stream that hands out at most `chunk` bytes per read: exercises every buffer boundary.
class ChunkedStream final : public io::InputStream {
 public:
  ChunkedStream(std::string data, size_t chunk) : data_(std::move(data)), chunk_(chunk) {}
  const std::string& name() const override { return name_; }

 protected:
  size_t read_some(char* buf, size_t n) override {
    const size_t k = std::min({n, chunk_, data_.size() - pos_});
    std::memcpy(buf, data_.data() + pos_, k);
    pos_ += k;
    return k;
  }

 private:
  std::string data_, name_ = "chunked.csv";
  size_t chunk_, pos_ = 0;
};

using Rows = std::vector<std::vector<std::string>>;

Rows read_all_rows(io::StreamPtr s, const io::CsvOptions& opt) {
  io::CsvReader r(std::move(s), opt);
  Rows rows;
  std::vector<std::string> row;
  while (r.next(row)) rows.push_back(row);
  return rows;
}

Rows rows_from_json(const json::Value& v) {
  Rows rows;
  for (const auto& r : v.as_array()) {
    rows.emplace_back();
    for (const auto& f : r.as_array()) rows.back().push_back(f.as_string());
  }
  return rows;
}

io::CsvOptions options_from_json(const json::Value& p) {
  io::CsvOptions o;
  if (auto* v = p.find("delimiter")) o.delimiter = v->as_string()[0];
  if (auto* v = p.find("quotechar")) o.quotechar = v->is_null() ? '\0' : v->as_string()[0];
  if (auto* v = p.find("escapechar")) o.escapechar = v->is_null() ? '\0' : v->as_string()[0];
  if (auto* v = p.find("doublequote")) o.doublequote = v->as_bool();
  if (auto* v = p.find("skipinitialspace")) o.skipinitialspace = v->as_bool();
  if (auto* v = p.find("strict")) o.strict = v->as_bool();
  if (auto* v = p.find("skip_lines")) o.skip_lines = size_t(v->as_int());
  return o;
}

// Reads every case of `spec` (a JSON list of {path, params}) with Python's csv.reader (or
// DictReader when "dict" is set) and writes {rows} or {error} per case to `out`.
const char* kPythonReader = R"PY(
import csv, json, sys
spec = json.load(open(sys.argv[1], encoding="utf-8"))
out = []
for case in spec:
    p = dict(case["params"])
    skip = p.pop("skip_lines", 0)
    if p.get("quotechar", '"') is None:
        p["quoting"] = csv.QUOTE_NONE
    try:
        with open(case["path"], newline="", encoding="utf-8") as f:
            for _ in range(skip):
                f.readline()
            if case.get("dict"):
                r = csv.DictReader(f, **p)
                rows = [[list(d.keys()), list(d.values())] for d in r]
            else:
                rows = list(csv.reader(f, **p))
        out.append({"rows": rows})
    except csv.Error as e:
        out.append({"error": str(e)})
json.dump(out, open(sys.argv[2], "w", encoding="utf-8"), ensure_ascii=False)
)PY";

}  // namespace

// Files written by csv.writer in several dialects with hostile field contents.
TEST(IoCsv, MatchesPythonOnWriterOutput) {
  TempDir dir;
  const char* gen = R"PY(
import csv, json, random, sys
d = sys.argv[1]
rng = random.Random(7)
alphabet = ['a', 'b', 'Z', '0', '9', ' ', ',', ';', '\t', '"', "'", '\n', '\r\n', '\r', '\\', '|', 'é', '€', '']
def field():
    k = rng.choice([0, 1, 2, 3, 8, 30])
    return ''.join(rng.choice(alphabet) for _ in range(k))
dialects = [
    ("excel", dict(), dict()),
    ("lf", dict(lineterminator='\n'), dict()),
    ("all", dict(quoting=csv.QUOTE_ALL), dict()),
    ("semi", dict(delimiter=';', quotechar="'"), dict(delimiter=';', quotechar="'")),
    ("tab", dict(delimiter='\t', lineterminator='\n'), dict(delimiter='\t')),
    ("escape", dict(escapechar='\\', doublequote=False), dict(escapechar='\\', doublequote=False)),
    ("none", dict(quoting=csv.QUOTE_NONE, escapechar='\\', lineterminator='\n'), dict(quotechar=None, escapechar='\\')),
]
spec = []
for name, wkw, rkw in dialects:
    path = f"{d}/{name}.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, **wkw)
        for i in range(300):
            row = [field() for _ in range(rng.choice([1, 2, 5]))]
            if row == ['']:
                row = ['x']  # QUOTE_NONE cannot write a lone empty field
            w.writerow(row)
    spec.append({"path": path, "params": rkw})
json.dump(spec, open(f"{d}/spec.json", "w", encoding="utf-8"), ensure_ascii=False)
)PY";
  run_python(dir, gen, dir.path.string());
  run_python(dir, kPythonReader, (dir / "spec.json") + " " + (dir / "expected.json"));
  const json::Value spec = json::parse(read_bytes(dir / "spec.json"));
  const json::Value expected = json::parse(read_bytes(dir / "expected.json"));
  ASSERT_EQ(spec.as_array().size(), 7u);
  for (size_t i = 0; i < spec.as_array().size(); ++i) {
    const auto& c = spec.as_array()[i];
    const std::string path = c.find("path")->as_string();
    SCOPED_TRACE(path);
    const io::CsvOptions opt = options_from_json(*c.find("params"));
    ASSERT_TRUE(expected.as_array()[i].find("rows")) << json::dump(expected.as_array()[i]);
    const Rows want = rows_from_json(*expected.as_array()[i].find("rows"));
    EXPECT_GE(want.size(), 300u);
    EXPECT_EQ(read_all_rows(io::file_stream(path), opt), want);
    // The same bytes handed out 1, 7 and 4096 bytes at a time.
    for (size_t chunk : {1, 7, 4096})
      EXPECT_EQ(read_all_rows(std::make_shared<ChunkedStream>(read_bytes(path), chunk), opt), want) << chunk;
  }
}

// Hand-made inputs, including ones Python accepts only in its lenient (non-strict) mode.
TEST(IoCsv, MatchesPythonOnEdgeCases) {
  struct Case {
    std::string bytes;
    std::string params;  // JSON
  };
  const std::vector<Case> cases = {
      {"a,b,c\n1,2,3\n", "{}"},
      {"a,b\r\n1,2\r\n", "{}"},
      {"a,b\r1,2\r", "{}"},                       // old Mac line ends
      {"a,b\n\n\n1,2\n", "{}"},                   // blank lines are empty rows
      {"a,b\r\n\r\n1,2", "{}"},                   // no line end at the end
      {"a,\n,b\n,\n", "{}"},                      // empty fields
      {"\"a,b\",\"c\"\"d\",\"\"\n", "{}"},        // quoted delimiter, doubled quote, empty quoted
      {"\"x\ny\",\"p\r\nq\",\"r\rs\"\n", "{}"},   // line ends inside quotes
      {"a\"b,c\"\n", "{}"},                       // quotes inside an unquoted field are data
      {"\"ab\"cd,e\n", "{}"},                     // lenient: text after a closing quote
      {"\"ab\"cd,e\n", R"({"strict": true})"},    // strict: an error
      {" a, \"b\",  c\n", R"({"skipinitialspace": true})"},
      {" a, \"b\"\n", "{}"},
      {"a\\,b,c\\\nd\n", R"({"escapechar": "\\"})"},          // escaped delimiter and newline
      {"\"a\\\"b\",c\n", R"({"escapechar": "\\", "doublequote": false})"},
      {"a\\\r\nb\n", R"({"escapechar": "\\"})"},                // escaped \r of a \r\n
      {"a\\", R"({"escapechar": "\\"})"},                       // escape at the very end
      {"'a;b';c\n", R"({"delimiter": ";", "quotechar": "'"})"},
      {"\"a\",b\n", R"({"quotechar": null})"},                  // QUOTE_NONE keeps quotes
      {"x\ty\tz\n", R"({"delimiter": "\t"})"},
      {"\"a\"\"\"\n", "{}"},                                  // "" then the closing quote
      {"\"a\"\n\"b\"", "{}"},
      {"h1,h2\nskip me\n1,2\n", R"({"skip_lines": 1})"},
      {"one\r\ntwo\r\nthree,3\r\n", R"({"skip_lines": 2})"},
      {"\xc3\xa9,\xe2\x82\xac\n", "{}"},
  };
  TempDir dir;
  json::Array spec;
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string path = dir / ("case" + std::to_string(i) + ".csv");
    write_bytes(path, cases[i].bytes);
    spec.push_back(json::Object{{"path", path}, {"params", json::parse(cases[i].params)}});
  }
  write_bytes(dir / "spec.json", json::dump(json::Value(spec)));
  run_python(dir, kPythonReader, (dir / "spec.json") + " " + (dir / "expected.json"));
  const json::Value expected = json::parse(read_bytes(dir / "expected.json"));
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i) + ": " + json::dump(json::Value(cases[i].bytes)));
    const io::CsvOptions opt = options_from_json(json::parse(cases[i].params));
    const json::Value& e = expected.as_array()[i];
    for (size_t chunk : {size_t(1), size_t(1) << 20}) {
      auto stream = std::make_shared<ChunkedStream>(cases[i].bytes, chunk);
      if (e.find("error")) {
        EXPECT_ERROR_WITH(read_all_rows(stream, opt), "parse_csv: 'chunked.csv' line 1");
      } else {
        EXPECT_EQ(read_all_rows(stream, opt), rows_from_json(*e.find("rows")));
      }
    }
  }
}

TEST(IoCsv, DictReaderMatchesPython) {
  TempDir dir;
  const std::string path = dir / "d.csv";
  write_bytes(path, "name,value,note\nx,1,\"a,b\"\n\ny,2,\"multi\nline\"\r\nz,3,\n");
  write_bytes(dir / "spec.json", json::dump(json::Value(json::Array{
                                     json::Object{{"path", path}, {"params", json::Object{}}, {"dict", true}}})));
  run_python(dir, kPythonReader, (dir / "spec.json") + " " + (dir / "expected.json"));
  const json::Value rows = *json::parse(read_bytes(dir / "expected.json")).as_array()[0].find("rows");
  io::CsvDictReader r(io::file_stream(path));
  EXPECT_EQ(r.fieldnames(), (std::vector<std::string>{"name", "value", "note"}));
  io::CsvDictRow row;
  size_t n = 0;
  while (r.next(row)) {
    ASSERT_LT(n, rows.as_array().size());
    const auto& want = rows.as_array()[n++].as_array();
    std::vector<std::string> keys, values;
    for (auto [k, v] : row) {
      keys.push_back(k);
      values.push_back(v);
    }
    EXPECT_EQ(keys, rows_from_json(json::Array{want[0]})[0]);
    EXPECT_EQ(values, rows_from_json(json::Array{want[1]})[0]);
  }
  EXPECT_EQ(n, 3u);
  EXPECT_EQ(n, rows.as_array().size());
}

TEST(IoCsv, DictRowLookup) {
  io::CsvDictReader r(io::memory_stream("a,b\n1,2\n", "m.csv"));
  io::CsvDictRow row;
  ASSERT_TRUE(r.next(row));
  EXPECT_EQ(row["a"], "1");
  EXPECT_EQ(row.at("b"), "2");
  EXPECT_TRUE(row.contains("a"));
  EXPECT_EQ(row.find("c"), nullptr);
  EXPECT_ERROR_WITH(row.at("c"), "no column 'c' (columns: 'a', 'b')");
  EXPECT_FALSE(r.next(row));
  // Blank lines before the header are skipped (Python would take [] as the header).
  io::CsvDictReader late(io::memory_stream("\n\r\na,b\n1,2\n", "l.csv"));
  EXPECT_EQ(late.fieldnames(), (std::vector<std::string>{"a", "b"}));
  ASSERT_TRUE(late.next(row));
  EXPECT_EQ(row["b"], "2");
  // No rows at all: no header, no rows.
  io::CsvDictReader empty(io::memory_stream("\n\n", "e.csv"));
  EXPECT_TRUE(empty.fieldnames().empty());
  EXPECT_FALSE(empty.next(row));
}

TEST(IoCsv, ErrorsNameStreamAndLine) {
  // A quote left open at the end of the data (Python returns the truncated field when not
  // strict; ember always refuses).
  EXPECT_ERROR_WITH(read_all_rows(io::memory_stream("a,b\n1,\"2\n3,4\n", "open.csv"), {}),
                    "parse_csv: 'open.csv' line 2: a quoted field is not closed before the end of the data "
                    "(the quote opened on this line)");
  EXPECT_ERROR_WITH(read_all_rows(io::memory_stream("a\n\"b", "o2.csv"), {}), "'o2.csv' line 2");
  // Strict mode: garbage after a closing quote, on the line where it is.
  EXPECT_ERROR_WITH(read_all_rows(io::memory_stream("a,b\n\"x\ny\"z,1\n", "s.csv"), io::CsvOptions().with_strict(true)),
                    "parse_csv: 's.csv' line 3: 'z' after the closing quote of a quoted field (strict mode "
                    "expects ',' or a line end)");
  // Strict mode: an escape character at the very end.
  EXPECT_ERROR_WITH(
      read_all_rows(io::memory_stream("a\\", "e.csv"), io::CsvOptions().with_escapechar('\\').with_strict(true)),
      "'e.csv' line 1: unexpected end of data");
  // Dict mode: ragged rows and a repeated column name.
  auto dict_rows = [](const std::string& text) {
    io::CsvDictReader r(io::memory_stream(text, "d.csv"));
    io::CsvDictRow row;
    while (r.next(row)) {
    }
  };
  EXPECT_ERROR_WITH(dict_rows("a,b,c\n1,2,3\n\n4,5\n"), "parse_csv_as_dict: 'd.csv' line 4: the row has 2 fields but the header has 3");
  EXPECT_ERROR_WITH(dict_rows("a,b\n1,2,3\n"), "line 2: the row has 3 fields but the header has 2");
  EXPECT_ERROR_WITH(dict_rows("a,b,a\n1,2,3\n"), "line 1: the header names column 'a' twice (columns 1 and 3)");
  // Bad dialects.
  EXPECT_ERROR_WITH(io::CsvReader(io::memory_stream("", "x"), io::CsvOptions().with_delimiter('\n')), "delimiter");
  EXPECT_ERROR_WITH(io::CsvReader(io::memory_stream("", "x"), io::CsvOptions().with_quotechar(',')), "must differ");
}

TEST(IoCsv, ReusesTheRowAndReportsLines) {
  io::CsvReader r(io::memory_stream("a,b,c\n1\n\"x\ny\",2\n", "m.csv"));
  std::vector<std::string> row;
  ASSERT_TRUE(r.next(row));
  EXPECT_EQ(row, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(r.line(), 1);
  ASSERT_TRUE(r.next(row));
  EXPECT_EQ(row, (std::vector<std::string>{"1"}));
  ASSERT_TRUE(r.next(row));
  EXPECT_EQ(row, (std::vector<std::string>{"x\ny", "2"}));
  EXPECT_EQ(r.row_start_line(), 3);
  EXPECT_EQ(r.line(), 4);
  EXPECT_FALSE(r.next(row));
  EXPECT_TRUE(row.empty());
  EXPECT_FALSE(r.next(row));
}

// Random texts in random dialects against CPython's csv.reader: the same rows, or an error
// from both. The one difference allowed is ember's on purpose: a quoted field still open at
// the end of the data is an error (Python returns it truncated when not strict).
TEST(IoCsv, RandomTextsMatchPython) {
  std::mt19937 rng(11);
  const char alphabet[] = {'a', 'b', ',', ';', '"', '\'', '\n', '\r', '\\', ' '};
  TempDir dir;
  json::Array spec;
  std::vector<std::string> texts;
  for (int i = 0; i < 1500; ++i) {
    std::string s(rng() % 24, ' ');
    for (char& c : s) c = alphabet[rng() % sizeof alphabet];
    json::Object params;
    if (rng() % 4 == 0) params.emplace_back("delimiter", ";");
    if (rng() % 5 == 0) params.emplace_back("quotechar", json::Value(rng() % 2 ? json::Value("'") : json::Value()));
    if (rng() % 2) params.emplace_back("escapechar", "\\");
    if (rng() % 3 == 0) params.emplace_back("doublequote", false);
    if (rng() % 3 == 0) params.emplace_back("skipinitialspace", true);
    if (rng() % 2) params.emplace_back("strict", true);
    if (rng() % 6 == 0) params.emplace_back("skip_lines", int64_t(1));
    const std::string path = dir / ("r" + std::to_string(i) + ".csv");
    write_bytes(path, s);
    texts.push_back(s);
    spec.push_back(json::Object{{"path", path}, {"params", json::Value(params)}});
  }
  write_bytes(dir / "spec.json", json::dump(json::Value(spec)));
  run_python(dir, kPythonReader, (dir / "spec.json") + " " + (dir / "expected.json"));
  const json::Value expected = json::parse(read_bytes(dir / "expected.json"));
  int compared = 0, open_quote = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i) + ": " + json::dump(json::Value(texts[i])) + " " +
                 json::dump(*spec[i].find("params")));
    const io::CsvOptions opt = options_from_json(*spec[i].find("params"));
    const json::Value& e = expected.as_array()[i];
    for (size_t chunk : {size_t(1), size_t(3), size_t(1) << 20}) {
      std::string error;
      Rows got;
      try {
        got = read_all_rows(std::make_shared<ChunkedStream>(texts[i], chunk), opt);
      } catch (const ember::Error& err) {
        error = err.what();
      }
      if (e.find("error")) {
        EXPECT_NE(error, "") << "Python: " << e.find("error")->as_string();
      } else if (!error.empty()) {
        const bool deliberate = error.find("a quoted field is not closed") != std::string::npos ||
                                error.find("escape character inside a quoted field") != std::string::npos;
        EXPECT_TRUE(deliberate) << error;
        open_quote += deliberate && chunk == 1;
      } else {
        EXPECT_EQ(got, rows_from_json(*e.find("rows")));
        compared += chunk == 1;
      }
    }
  }
  EXPECT_GT(compared, 800);  // most cases parse; the test compares rows, not only errors
  EXPECT_GT(open_quote, 10);
}

// Random bytes over a small alphabet: never a crash; either rows or a clean error.
TEST(IoCsv, RandomBytesGiveRowsOrCleanErrors) {
  std::mt19937 rng(3);
  const char alphabet[] = {'a', ',', '"', '\n', '\r', '\\', ' ', ';'};
  for (int i = 0; i < 2000; ++i) {
    std::string s(rng() % 40, ' ');
    for (char& c : s) c = alphabet[rng() % sizeof alphabet];
    io::CsvOptions opt;
    opt.strict = rng() % 2;
    if (rng() % 2) opt.escapechar = '\\';
    try {
      const Rows a = read_all_rows(io::memory_stream(s, "r.csv"), opt);
      EXPECT_EQ(read_all_rows(std::make_shared<ChunkedStream>(s, 1), opt), a);
    } catch (const ember::Error& e) {
      EXPECT_NE(std::string(e.what()).find("parse_csv: 'r.csv' line "), std::string::npos) << e.what();
    }
  }
}
