// io::fnmatch and io::list_files against Python's fnmatch and os.walk (TorchData's FileLister
// algorithm run in Python on the same tree), and io::write_file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ember/core/json.h"
#include "ember/data/io/files.h"
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

std::vector<std::string> strings(const json::Value& v) {
  std::vector<std::string> out;
  for (const auto& s : v.as_array()) out.push_back(s.as_string());
  return out;
}

}  // namespace

TEST(IoFiles, FnmatchMatchesPython) {
  const std::vector<std::string> patterns = {
      "*", "*.csv", "a*b*c", "?", "??.txt", "[abc]*", "[!abc]*", "[a-c]x", "[z-a]", "[!z-a]", "[]]", "[!]]x",
      "[a-]", "[", "a[", "a[b", "\\*", "*.[ct]sv", "**a", "*a*", ".*", "[[]", "x[-a]", "", "*\\", "a?c*d?"};
  const std::vector<std::string> names = {
      "", "a", "b", "abc", "axbxc", "x.csv", "x.tsv", ".csv", "ab.txt", "]", "]x", "a-", "-", "[", "a[", "a[b",
      "*", "\\*", "ax", "cx", "dx", "zz", "aac", "abcd", "aXcYdZ", "x-", "xa", "a/b.csv", "\\", "a\\", "ab"};
  TempDir dir;
  json::Array pj, nj;
  for (const auto& p : patterns) pj.emplace_back(p);
  for (const auto& n : names) nj.emplace_back(n);
  write_bytes(dir / "in.json", json::dump(json::Object{{"patterns", pj}, {"names", nj}}));
  run_python(dir, R"PY(
import fnmatch, json, sys
d = json.load(open(sys.argv[1]))
json.dump([[fnmatch.fnmatchcase(n, p) for n in d["names"]] for p in d["patterns"]], open(sys.argv[2], "w"))
)PY",
             (dir / "in.json") + " " + (dir / "out.json"));
  const json::Value want = json::parse(read_bytes(dir / "out.json"));
  for (size_t i = 0; i < patterns.size(); ++i)
    for (size_t j = 0; j < names.size(); ++j)
      EXPECT_EQ(io::fnmatch(names[j], patterns[i]), want.as_array()[i].as_array()[j].as_bool())
          << "pattern '" << patterns[i] << "' name '" << names[j] << "'";
}

TEST(IoFiles, ListFilesMatchesTorchDataOrder) {
  TempDir dir;
  const std::string root = dir / "root";
  for (const char* f : {"b.csv", "a.csv", "A.csv", "c.txt", ".hidden.csv", "sub/z.csv", "sub/a.txt", "sub/deep/x.csv",
                        "sub2/y.csv", "sub2/y.CSV", "a_dir/k.csv", "[x].csv", "b.csv.gz"})
    write_bytes(root + "/" + f, f);
  fs::create_directories(root + "/empty");
  fs::create_symlink(root + "/sub", root + "/link_to_sub");          // not entered
  fs::create_symlink(root + "/a.csv", root + "/link_to_a.csv");      // listed as a file
  fs::create_symlink(root + "/missing", root + "/broken.csv");       // listed as a file (os.walk)
  // TorchData's get_file_pathnames_from_root, run by Python on the same tree.
  run_python(dir, R"PY(
import fnmatch, json, os, sys
def listing(root, masks, recursive):
    out = []
    if os.path.isfile(root):
        if not masks or any(fnmatch.fnmatch(os.path.basename(root), m) for m in masks):
            out.append(root)
        return out
    for path, dirs, files in os.walk(root):
        files.sort()
        out += [os.path.join(path, f) for f in files if not masks or any(fnmatch.fnmatch(f, m) for m in masks)]
        if not recursive:
            break
        dirs.sort()
    return out
root = sys.argv[1]
cases = [([], False), ([], True), (["*.csv"], False), (["*.csv"], True), (["*.txt", "*.CSV"], True),
         (["[[]x]*"], False), (["?.csv"], True)]
json.dump([listing(root, m, r) for m, r in cases] + [listing(root + "/", ["*.csv"], True),
          listing(root + "/a.csv", ["*.csv"], False), listing(root + "/a.csv", ["*.txt"], False)],
          open(sys.argv[2], "w"))
)PY",
             root + " " + (dir / "out.json"));
  const json::Value want = json::parse(read_bytes(dir / "out.json"));
  const std::vector<std::pair<std::vector<std::string>, bool>> cases = {
      {{}, false}, {{}, true}, {{"*.csv"}, false}, {{"*.csv"}, true}, {{"*.txt", "*.CSV"}, true},
      {{"[[]x]*"}, false}, {{"?.csv"}, true}};
  for (size_t i = 0; i < cases.size(); ++i)
    EXPECT_EQ(io::list_files(root, cases[i].first, cases[i].second), strings(want.as_array()[i])) << i;
  // The reference itself is what we expect of it: hidden files, symlinked files (even
  // broken ones) listed; the symlinked directory not entered.
  const auto all = strings(want.as_array()[1]);
  EXPECT_EQ(all.size(), 15u);
  EXPECT_EQ(all.front(), root + "/.hidden.csv");
  EXPECT_EQ(all.back(), root + "/sub2/y.csv");
  EXPECT_EQ(std::count(all.begin(), all.end(), root + "/broken.csv"), 1);
  EXPECT_EQ(io::list_files(root + "/", {"*.csv"}, true), strings(want.as_array()[7]));
  EXPECT_EQ(io::list_files(root + "/a.csv", {"*.csv"}), strings(want.as_array()[8]));
  EXPECT_EQ(io::list_files(root + "/a.csv", {"*.txt"}), strings(want.as_array()[9]));
  EXPECT_TRUE(strings(want.as_array()[9]).empty());
  // Several roots: each listed in turn.
  const auto both = io::list_files(std::vector<std::string>{root + "/sub2", root + "/sub"}, {"*.csv"}, false);
  EXPECT_EQ(both, (std::vector<std::string>{root + "/sub2/y.csv", root + "/sub/z.csv"}));
  // abspath: relative roots become absolute.
  const fs::path old = fs::current_path();
  fs::current_path(dir.path);
  const auto abs = io::list_files("root/sub", {"*.csv"}, false, true);
  fs::current_path(old);
  EXPECT_EQ(abs, (std::vector<std::string>{root + "/sub/z.csv"}));
}

TEST(IoFiles, MissingRootIsAnError) {
  TempDir dir;
  EXPECT_ERROR_WITH(io::list_files(dir / "nope"), "list_files: root '" + (dir / "nope") + "' does not exist");
  EXPECT_ERROR_WITH(io::list_files(std::vector<std::string>{dir.path.string(), dir / "gone"}), "'" + (dir / "gone") + "' does not exist");
  EXPECT_ERROR_WITH(io::list_files(""), "empty root");
}

TEST(IoFiles, WriteFileIsAtomicAndCreatesDirectories) {
  TempDir dir;
  const std::string path = dir / "a/b/c.bin";
  std::string bytes(100000, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = char(i * 7);
  io::write_file(path, bytes);
  EXPECT_EQ(read_bytes(path), bytes);
  io::write_file(path, "short");
  EXPECT_EQ(read_bytes(path), "short");
  // Only the file itself is left: no temporary files beside it.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir / "a/b"), fs::directory_iterator()), 1);
  // A parent that is a file cannot become a directory.
  EXPECT_ERROR_WITH(io::write_file(dir / "a/b/c.bin/x", "y"), "save_to_disk: cannot create directory");
}
