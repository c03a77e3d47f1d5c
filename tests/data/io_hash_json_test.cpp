// io::Hasher / hash_stream against Python's hashlib, and io::parse_json_stream on files
// written by Python's json module (values and errors with the file, line and column).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ember/data/io/hash.h"
#include "ember/data/io/json_file.h"
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

}  // namespace

TEST(IoHash, MatchesHashlib) {
  TempDir dir;
  run_python(dir, R"PY(
import hashlib, json, random, sys
d = sys.argv[1]
rng = random.Random(1)
blobs = {"empty": b"", "abc": b"abc", "big": rng.randbytes(1_000_003)}
out = {}
for name, b in blobs.items():
    open(f"{d}/{name}.bin", "wb").write(b)
    out[name] = {"sha256": hashlib.sha256(b).hexdigest(), "md5": hashlib.md5(b).hexdigest()}
json.dump(out, open(f"{d}/digests.json", "w"))
)PY");
  const json::Value want = json::parse(read_bytes(dir / "digests.json"));
  for (const char* name : {"empty", "abc", "big"}) {
    for (const char* type : {"sha256", "md5"}) {
      SCOPED_TRACE(std::string(name) + " " + type);
      const std::string expect = want.find(name)->find(type)->as_string();
      auto s = io::file_stream(dir / (std::string(name) + ".bin"));
      EXPECT_EQ(io::hash_stream(*s, type), expect);
      EXPECT_EQ(io::hash_bytes(read_bytes(dir / (std::string(name) + ".bin")), type), expect);
      // Fed in uneven pieces.
      const std::string bytes = read_bytes(dir / (std::string(name) + ".bin"));
      io::Hasher h(type);
      for (size_t i = 0, k = 1; i < bytes.size(); i += k, k = k * 3 % 1000 + 1)
        h.update(bytes.data() + i, std::min(k, bytes.size() - i));
      EXPECT_EQ(h.hexdigest(), expect);
    }
  }
  // Hand-checked values (FIPS 180-2 / RFC 1321 test vectors).
  EXPECT_EQ(io::hash_bytes("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(io::hash_bytes("abc", "md5"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_ERROR_WITH(io::Hasher("sha1"), "check_hash: unsupported hash_type 'sha1' (expected \"sha256\" or \"md5\")");
  io::Hasher h;
  h.hexdigest();
  EXPECT_ERROR_WITH(h.update("x"), "update() after hexdigest()");
}

TEST(IoJson, ParsesPythonJsonFiles) {
  TempDir dir;
  run_python(dir, R"PY(
import json, sys
d = sys.argv[1]
doc = {"name": "gr\u00fc\u00dfe \u2603 \"q\" \\ \n", "ints": [0, -1, 2**53 + 1, -2**63], "pi": 3.25,
       "nested": {"list": [True, False, None, [], {}]}, "e": 1e-300}
json.dump(doc, open(f"{d}/a.json", "w"), indent=2)
json.dump(doc, open(f"{d}/b.json", "w"), ensure_ascii=False)
open(f"{d}/bad.json", "w").write('{\n  "a": 1,\n  "b": tru\n}\n')
open(f"{d}/trailing.json", "w").write('[1, 2] [3]')
)PY");
  for (const char* f : {"a.json", "b.json"}) {
    SCOPED_TRACE(f);
    auto s = io::file_stream(dir / f);
    const json::Value v = io::parse_json_stream(*s);
    EXPECT_EQ(v.find("name")->as_string(), "gr\xc3\xbc\xc3\x9f" "e \xe2\x98\x83 \"q\" \\ \n");
    const auto& ints = v.find("ints")->as_array();
    ASSERT_EQ(ints.size(), 4u);
    EXPECT_EQ(ints[2].as_int(), (int64_t(1) << 53) + 1);
    EXPECT_EQ(ints[3].as_int(), INT64_MIN);
    EXPECT_EQ(v.find("pi")->as_double(), 3.25);
    EXPECT_EQ(v.find("e")->as_double(), 1e-300);
    const auto& list = v.find("nested")->find("list")->as_array();
    ASSERT_EQ(list.size(), 5u);
    EXPECT_TRUE(list[0].as_bool());
    EXPECT_TRUE(list[2].is_null());
    EXPECT_TRUE(list[4].is_object());
  }
  auto bad = io::file_stream(dir / "bad.json");
  EXPECT_ERROR_WITH(io::parse_json_stream(*bad), "parse_json_files: '" + (dir / "bad.json") + "': invalid JSON at byte ");
  auto bad2 = io::file_stream(dir / "bad.json");
  EXPECT_ERROR_WITH(io::parse_json_stream(*bad2), "(line 3, column 8)");
  auto trailing = io::file_stream(dir / "trailing.json");
  EXPECT_ERROR_WITH(io::parse_json_stream(*trailing), "(line 1, column 8)");
  EXPECT_ERROR_WITH(io::file_stream(dir / "missing.json"), "file_stream: cannot open");
}
