// File DataPipes (ember/data/datapipes/files.h) on trees, archives and compressed files
// written by Python in the same run, checked against what Python's csv / json / tarfile /
// gzip read from them; graph behaviour (epochs, clones, sharded workers, checkpoints); and
// the on-disk cache.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "datapipes_test_util.h"
#include "ember/data/datapipes.h"
#include "ember/data/datapipes/files.h"
#include "ember/data/io/hash.h"
#include "python_scripts.h"
#include "temp_files.h"
#include "test_util.h"

using namespace ember;
using namespace ember::data;
using namespace ember::data::datapipes;
namespace io = ember::data::io;
namespace fs = std::filesystem;

namespace {

using ember::test::collect;
using ember::test::read_bytes;
using ember::test::run_python;
using ember::test::TempDir;
using ember::test::write_bytes;

using Row = std::vector<std::string>;

std::vector<Row> rows_of(const json::Value& v) {
  std::vector<Row> out;
  for (const auto& r : v.as_array()) {
    out.emplace_back();
    for (const auto& f : r.as_array()) out.back().push_back(f.as_string());
  }
  return out;
}

// A tree of CSV files (tricky quoting, a header each), JSON and text files, compressed
// copies and archives, and expected.json with what Python reads from each.
const char* kTree = R"PY(
import bz2, csv, gzip, io, json, lzma, os, random, sys, tarfile, zipfile
d = sys.argv[1]
rng = random.Random(3)
exp = {"csv": {}, "dict": {}, "lines": {}, "json": {}}
def field():
    return "".join(rng.choice(["a", "b", ",", '"', "\n", " ", "7", "\u00e9"]) for _ in range(rng.randrange(6)))
os.makedirs(f"{d}/tree/sub", exist_ok=True)
for name in ["tree/b.csv", "tree/a.csv", "tree/sub/c.csv"]:
    path = f"{d}/{name}"
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "text", "value"])
        for i in range(rng.randrange(20, 60)):
            w.writerow([i, field(), rng.random()])
    with open(path, newline="", encoding="utf-8") as f:
        exp["csv"][path] = list(csv.reader(f))
    with open(path, newline="", encoding="utf-8") as f:
        exp["dict"][path] = [list(r.values()) for r in csv.DictReader(f)]
open(f"{d}/tree/notes.txt", "wb").write(b"first\r\nsecond\n\rthird\n\nlast without newline")
exp["lines"][f"{d}/tree/notes.txt"] = [l.strip(b"\r\n").decode() for l in open(f"{d}/tree/notes.txt", "rb")]
exp["raw_lines"] = [l.decode() for l in open(f"{d}/tree/notes.txt", "rb")]
for i, doc in enumerate([{"a": 1, "b": [True, None]}, [1.5, "x\u00e9"], "just a string"]):
    json.dump(doc, open(f"{d}/tree/j{i}.json", "w"))
open(f"{d}/bad.json", "w").write('{"a": [1, 2,, 3]}')
# Compressed copies of a.csv and the notes.
raw = open(f"{d}/tree/a.csv", "rb").read()
os.makedirs(f"{d}/z", exist_ok=True)
open(f"{d}/z/a.csv.gz", "wb").write(gzip.compress(raw))
open(f"{d}/z/a.csv.bz2", "wb").write(bz2.compress(raw))
open(f"{d}/z/a.csv.xz", "wb").write(lzma.compress(raw))
# Archives of the CSV files.
with tarfile.open(f"{d}/csvs.tar.gz", "w:gz") as t:
    for n in ["a.csv", "b.csv", "sub/c.csv"]:
        t.add(f"{d}/tree/{n}", arcname=n)
with zipfile.ZipFile(f"{d}/csvs.zip", "w", compression=zipfile.ZIP_DEFLATED) as z:
    for n in ["a.csv", "b.csv", "sub/c.csv"]:
        z.write(f"{d}/tree/{n}", arcname=n)
json.dump(exp, open(f"{d}/expected.json", "w"), ensure_ascii=False)
)PY";

class FilePipes : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    run_python(*dir_, kTree);
    expected_ = new json::Value(json::parse(read_bytes(*dir_ / "expected.json")));
  }
  static void TearDownTestSuite() {
    delete dir_;
    delete expected_;
  }
  static std::string path(const std::string& name) { return *dir_ / name; }
  static std::vector<Row> csv_rows(const std::string& name) {
    return rows_of(*expected_->find("csv")->find(path(name)));
  }
  static TempDir* dir_;
  static json::Value* expected_;
};
TempDir* FilePipes::dir_ = nullptr;
json::Value* FilePipes::expected_ = nullptr;

}  // namespace

TEST_F(FilePipes, ListOpenParseCsv) {
  auto files = FileLister(path("tree"), "*.csv", /*recursive=*/true);
  EXPECT_EQ(collect(files), (std::vector<std::string>{path("tree/a.csv"), path("tree/b.csv"), path("tree/sub/c.csv")}));
  auto rows = parse_csv(files.open_files());
  std::vector<Row> want;
  for (const char* f : {"tree/a.csv", "tree/b.csv", "tree/sub/c.csv"}) {
    auto r = csv_rows(f);
    want.insert(want.end(), r.begin(), r.end());
  }
  ASSERT_GT(want.size(), 60u);
  EXPECT_EQ(collect(rows), want);
  EXPECT_EQ(collect(rows), want);  // a second epoch reads the files again
  // skip_lines drops each file's header.
  auto body = parse_csv(FileOpener(FileLister(path("tree"), {"a.csv", "b.csv"})), io::CsvOptions().with_skip_lines(1));
  auto a = csv_rows("tree/a.csv"), b = csv_rows("tree/b.csv");
  std::vector<Row> want_body(a.begin() + 1, a.end());
  want_body.insert(want_body.end(), b.begin() + 1, b.end());
  EXPECT_EQ(collect(body), want_body);
}

TEST_F(FilePipes, ListerRootsFromAPipeAndNewFilesBetweenEpochs) {
  TempDir scratch;
  write_bytes(scratch / "x/1.txt", "1");
  write_bytes(scratch / "y/2.txt", "2");
  auto lister = FileLister(IterableWrapper(std::vector<std::string>{scratch / "y", scratch / "x"}), "*.txt");
  EXPECT_EQ(collect(lister), (std::vector<std::string>{scratch / "y/2.txt", scratch / "x/1.txt"}));
  write_bytes(scratch / "x/0.txt", "0");
  EXPECT_EQ(collect(lister), (std::vector<std::string>{scratch / "y/2.txt", scratch / "x/0.txt", scratch / "x/1.txt"}));
  EXPECT_ERROR_WITH(collect(FileLister(scratch / "nope")), "list_files: root '" + (scratch / "nope") + "' does not exist");
  EXPECT_ERROR_WITH(collect(FileOpener(IterableWrapper(std::vector<std::string>{scratch / "gone.csv"}))),
                    "file_stream: cannot open '" + (scratch / "gone.csv") + "'");
  EXPECT_ERROR_WITH(FileOpener(lister, "w"), "FileOpener: mode must be");
}

TEST_F(FilePipes, Readlines) {
  auto src = FileLister(path("tree"), "notes.txt").open_files();
  std::vector<std::string> lines;
  for (auto& [p, line] : collect(readlines(src))) {
    EXPECT_EQ(p, path("tree/notes.txt"));
    lines.push_back(line);
  }
  std::vector<std::string> want;
  for (const auto& l : expected_->find("lines")->find(path("tree/notes.txt"))->as_array()) want.push_back(l.as_string());
  EXPECT_EQ(lines, want);
  std::vector<std::string> raw, want_raw;
  for (auto& e : collect(readlines(src, /*strip_newline=*/false, /*skip_lines=*/1))) raw.push_back(e.second);
  for (const auto& l : expected_->find("raw_lines")->as_array()) want_raw.push_back(l.as_string());
  EXPECT_EQ(raw, std::vector<std::string>(want_raw.begin() + 1, want_raw.end()));
}

TEST_F(FilePipes, ParseCsvAsDict) {
  auto rows = collect(parse_csv_as_dict(FileLister(path("tree"), "b.csv").open_files()));
  const auto want = rows_of(*expected_->find("dict")->find(path("tree/b.csv")));
  ASSERT_EQ(rows.size(), want.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].keys(), (std::vector<std::string>{"id", "text", "value"}));
    EXPECT_EQ(rows[i].values(), want[i]);
    EXPECT_EQ(rows[i]["id"], std::to_string(i));
  }
  // collate() gives a column of values per key, like default_collate of dicts.
  auto batches = collect(parse_csv_as_dict(FileLister(path("tree"), "b.csv").open_files()).batch(4).collate());
  ASSERT_FALSE(batches.empty());
  EXPECT_EQ(batches[0].size(), 3u);
  EXPECT_EQ(batches[0].at("id"), (std::vector<std::string>{"0", "1", "2", "3"}));
  EXPECT_EQ(batches[0].at("text"), (std::vector<std::string>{want[0][1], want[1][1], want[2][1], want[3][1]}));
  TempDir scratch;
  write_bytes(scratch / "r.csv", "a,b\n1,2\n3\n");
  EXPECT_ERROR_WITH(collect(parse_csv_as_dict(FileLister(scratch.path.string()).open_files())),
                    "parse_csv_as_dict: '" + (scratch / "r.csv") + "' line 3: the row has 1 fields but the header has 2");
}

TEST_F(FilePipes, ParseJsonFiles) {
  auto docs = collect(parse_json_files(FileLister(path("tree"), "*.json").open_files()));
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_EQ(docs[0].first, path("tree/j0.json"));
  EXPECT_EQ(docs[0].second.find("a")->as_int(), 1);
  EXPECT_EQ(docs[1].second.as_array()[1].as_string(), "x\xc3\xa9");
  EXPECT_EQ(docs[2].second.as_string(), "just a string");
  EXPECT_ERROR_WITH(collect(parse_json_files(FileLister(path("bad.json")).open_files())),
                    "parse_json_files: '" + path("bad.json") + "': invalid JSON at byte 12");
}

TEST_F(FilePipes, ArchivesAndDecompress) {
  std::vector<Row> want;
  for (const char* f : {"tree/a.csv", "tree/b.csv", "tree/sub/c.csv"}) {
    auto r = csv_rows(f);
    want.insert(want.end(), r.begin(), r.end());
  }
  EXPECT_EQ(collect(parse_csv(load_from_tar(FileLister(path("csvs.tar.gz")).open_files()))), want);
  EXPECT_EQ(collect(parse_csv(load_from_zip(FileLister(path("csvs.zip")).open_files()))), want);
  auto names = collect(load_from_zip(FileLister(path("csvs.zip")).open_files()).map([](StreamElement e) { return e.first; }));
  EXPECT_EQ(names, (std::vector<std::string>{path("csvs.zip") + "/a.csv", path("csvs.zip") + "/b.csv",
                                             path("csvs.zip") + "/sub/c.csv"}));
  // Each compression, the type inferred from the extension and given explicitly.
  const auto a = csv_rows("tree/a.csv");
  auto z = FileLister(path("z")).open_files();
  std::vector<Row> three = a;
  three.insert(three.end(), a.begin(), a.end());
  three.insert(three.end(), a.begin(), a.end());
  EXPECT_EQ(collect(parse_csv(decompress(z))), three);
  EXPECT_EQ(collect(parse_csv(decompress(FileLister(path("z"), "*.gz").open_files(), "gzip"))), a);
  EXPECT_ERROR_WITH(collect(decompress(FileLister(path("tree"), "a.csv").open_files())),
                    "decompress: cannot infer the compression of '" + path("tree/a.csv") + "'");
  EXPECT_ERROR_WITH(decompress(z, "rar"), "unknown compression type 'rar'");
  // A member stream read after its pipe moved on (a shuffle buffer holds it) fails clearly.
  auto held = load_from_tar(FileLister(path("csvs.tar.gz")).open_files()).batch(3);
  EXPECT_ERROR_WITH(
      for (auto& batch : held) batch[0].second->read_all(),
      "member 'a.csv' of '" + path("csvs.tar.gz") + "' was read after the archive moved on to another member");
  // Reading members inside the pipe (map) before holding them back works.
  auto copied = load_from_tar(FileLister(path("csvs.tar.gz")).open_files())
                    .map([](StreamElement e) { return std::pair(e.first, e.second->read_all()); })
                    .batch(3);
  auto batches = collect(copied);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0][1].second, read_bytes(path("tree/b.csv")));
}

TEST_F(FilePipes, SaveToDiskAndCheckHash) {
  TempDir out;
  const std::string a = read_bytes(path("tree/a.csv")), b = read_bytes(path("tree/b.csv"));
  auto src = IterableWrapper(std::vector<std::pair<std::string, std::string>>{{"a.csv", a}, {"deep/b.csv", b}});
  auto saved = collect(save_to_disk(src, [&](const std::string& p) { return out / p; }));
  EXPECT_EQ(saved, (std::vector<std::string>{out / "a.csv", out / "deep/b.csv"}));
  EXPECT_EQ(read_bytes(out / "a.csv"), a);
  EXPECT_EQ(read_bytes(out / "deep/b.csv"), b);
  // Streams are saved too (the path kept when there is no filepath_fn).
  auto streams = collect(save_to_disk(FileLister(path("tree"), "a.csv").open_files().map([&](StreamElement e) {
    e.first = out / "copy.csv";
    return e;
  })));
  EXPECT_EQ(read_bytes(out / "copy.csv"), a);

  const std::string ha = io::hash_bytes(a), hb = io::hash_bytes(b);
  std::map<std::string, std::string> dict{{path("tree/a.csv"), ha}, {path("tree/b.csv"), hb}};
  auto files = FileLister(path("tree"), {"a.csv", "b.csv"}).open_files();
  auto checked = collect(check_hash(files, dict));
  ASSERT_EQ(checked.size(), 2u);
  EXPECT_EQ(checked[1].second->read_all(), b);  // rewound: the bytes are still there
  auto lazy = collect(check_hash(files, dict, "sha256", /*rewind=*/false));
  EXPECT_EQ(lazy[0].second->read_all(), a);
  // Mismatches name the file and both digests; with rewind=false, at the end of the read.
  std::map<std::string, std::string> wrong = dict;
  wrong[path("tree/b.csv")] = ha;
  EXPECT_ERROR_WITH(collect(check_hash(files, wrong)), "check_hash: the sha256 digest of '" + path("tree/b.csv") +
                                                           "' is " + hb + " but " + ha + " was expected");
  auto late = collect(check_hash(files, wrong, "sha256", false));
  EXPECT_EQ(late[0].second->read_all(), a);
  EXPECT_ERROR_WITH(late[1].second->read_all(), "is " + hb + " but " + ha + " was expected");
  EXPECT_ERROR_WITH(collect(check_hash(files, {{path("tree/a.csv"), ha}})),
                    "check_hash: no hash given for '" + path("tree/b.csv") + "'");
  EXPECT_ERROR_WITH(check_hash(files, dict, "sha1"), "unsupported hash_type 'sha1'");
  const std::string md5a = io::hash_bytes(a, "md5");
  auto bytes = IterableWrapper(std::vector<std::pair<std::string, std::string>>{{"x", a}});
  EXPECT_EQ(collect(check_hash(bytes, {{"x", md5a}}, "md5")).size(), 1u);
  EXPECT_ERROR_WITH(collect(check_hash(bytes, {{"x", ha}}, "md5")), "the md5 digest of 'x' is " + md5a);
}

TEST_F(FilePipes, OnDiskCacheSkipsWhatIsCached) {
  TempDir cache;
  const std::vector<std::string> urls = {"mem://one", "mem://two", "mem://three"};
  std::map<std::string, std::string> content = {
      {"mem://one", "1111"}, {"mem://two", "2222"}, {"mem://three", "3333"}};
  auto downloads = std::make_shared<int>(0);
  auto to_path = [&](const std::string& url) { return cache / ("files/" + url.substr(6)); };
  auto build = [&](std::map<std::string, std::string> hashes) {
    auto holder = on_disk_cache(IterableWrapper(urls), to_path, hashes);
    auto fetched = holder.map([content, downloads](std::string url) {
      ++*downloads;
      return std::pair<std::string, std::string>(url, content.at(url));
    });
    return end_caching(fetched);
  };
  auto pipe = build({});
  auto first = collect(pipe);
  EXPECT_EQ(first, (std::vector<std::string>{to_path(urls[0]), to_path(urls[1]), to_path(urls[2])}));
  EXPECT_EQ(*downloads, 3);
  EXPECT_EQ(read_bytes(to_path("mem://two")), "2222");
  EXPECT_EQ(collect(pipe), first);  // all cached now: nothing downloaded
  EXPECT_EQ(*downloads, 3);
  // With digests, a corrupted cached file is fetched again; the others stay cached.
  write_bytes(to_path("mem://two"), "garbage");
  std::map<std::string, std::string> hashes;
  for (const auto& u : urls) hashes[to_path(u)] = io::hash_bytes(content[u]);
  auto verified = build(hashes);
  auto again = collect(verified);
  std::sort(again.begin(), again.end());
  auto sorted_first = first;
  std::sort(sorted_first.begin(), sorted_first.end());
  EXPECT_EQ(again, sorted_first);
  EXPECT_EQ(*downloads, 4);
  EXPECT_EQ(read_bytes(to_path("mem://two")), "2222");
  // A download that does not match its digest is an error and is not cached.
  fs::remove(to_path("mem://three"));
  hashes[to_path("mem://three")] = io::hash_bytes("something else");
  EXPECT_ERROR_WITH(collect(build(hashes)), "check_hash: the sha256 digest of '" + to_path("mem://three") + "'");
  EXPECT_FALSE(fs::exists(to_path("mem://three")));
  // end_caching needs its on_disk_cache upstream.
  EXPECT_ERROR_WITH(end_caching(IterableWrapper(std::vector<std::pair<std::string, std::string>>{})),
                    "end_caching: no on_disk_cache() upstream");
}

TEST_F(FilePipes, ClonesShardsAndCheckpoints) {
  auto pipe = parse_csv(FileLister(path("tree"), "*.csv", true).sharding_filter().open_files(),
                        io::CsvOptions().with_skip_lines(1));
  std::multiset<Row> all;
  for (const char* f : {"tree/a.csv", "tree/b.csv", "tree/sub/c.csv"}) {
    auto r = csv_rows(f);
    all.insert(r.begin() + 1, r.end());
  }
  // Two sharded copies of the graph read every row exactly once between them.
  std::multiset<Row> seen;
  for (int64_t i = 0; i < 2; ++i) {
    auto copy = clone_graph(pipe.node());
    EXPECT_EQ(apply_sharding(*copy, 2, i), 1);
    for (auto& r : collect(IterDataPipe<Row>(copy))) seen.insert(r);
  }
  EXPECT_EQ(seen, all);
  // Worker threads through DataLoader2.
  DataLoader2 loader(pipe.shuffle(), std::make_shared<MultiProcessingReadingService>(2));
  std::multiset<Row> loaded;
  for (auto& r : loader) loaded.insert(r);
  EXPECT_EQ(loaded, all);
  // A checkpoint taken mid-epoch resumes with exactly the remaining rows.
  manual_seed(5);
  auto shuffled = pipe.shuffle(16);
  std::vector<Row> first, rest;
  json::Value state;
  for (auto& r : shuffled) {
    first.push_back(r);
    if (first.size() == 25) state = json::parse(json::dump(shuffled.state()));
  }
  auto resumed = parse_csv(FileLister(path("tree"), "*.csv", true).sharding_filter().open_files(),
                           io::CsvOptions().with_skip_lines(1))
                     .shuffle(16);
  resumed.load_state(state);
  rest = collect(resumed);
  EXPECT_EQ(rest, std::vector<Row>(first.begin() + 25, first.end()));
}

// The functional forms chain as in TorchData, and the graph runs in DataLoader2's workers
// (threads and processes) with every row exactly once.
TEST_F(FilePipes, FunctionalFormsChainAndRunInWorkers) {
  auto rows = FileLister(path("tree"), "*.csv", true).sharding_filter().open_files().parse_csv();
  std::vector<Row> want;
  for (const char* f : {"tree/a.csv", "tree/b.csv", "tree/sub/c.csv"}) {
    auto r = csv_rows(f);
    want.insert(want.end(), r.begin(), r.end());
  }
  EXPECT_EQ(collect(rows), want);
  std::multiset<Row> want_set(want.begin(), want.end());
  for (bool processes : {false, true}) {
    DataLoader2 loader(rows, std::make_shared<MultiProcessingReadingService>(2, 2, nullptr, true, std::nullopt, processes));
    std::multiset<Row> got;
    for (auto& r : loader) got.insert(r);
    EXPECT_EQ(got, want_set) << "processes=" << processes;
  }
  auto lines = FileLister(path("tree"), "notes.txt").open_files().readlines();
  EXPECT_EQ(collect(lines).size(), expected_->find("lines")->find(path("tree/notes.txt"))->as_array().size());
  auto dict = FileLister(path("tree"), "a.csv").open_files().parse_csv_as_dict().batch(4).collate();
  EXPECT_FALSE(collect(dict).empty());
  auto archived = FileLister(path(""), "csvs.tar.gz").open_files().load_from_tar().parse_csv();
  EXPECT_EQ(collect(archived).size(), want.size());
  auto unzipped = FileLister(path("z"), "a.csv.gz").open_files().decompress().parse_csv(io::CsvOptions().with_skip_lines(1));
  EXPECT_EQ(collect(unzipped).size(), csv_rows("tree/a.csv").size() - 1);
  auto json_docs = FileLister(path("tree"), "j*.json").open_files().parse_json_files();
  EXPECT_EQ(collect(json_docs).size(), 3u);
}
