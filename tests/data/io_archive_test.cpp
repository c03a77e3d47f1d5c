// io::ArchiveReader against Python's tarfile and zipfile: the same regular-file members with
// the same bytes, in every compression; member-stream lifetime; corrupt, truncated and
// mutated archives give ember::Errors naming the archive (never a crash).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "ember/core/json.h"
#include "ember/data/io/archive.h"
#include "ember/data/io/hash.h"
#include "python_scripts.h"
#include "temp_files.h"
#include "test_util.h"

namespace io = ember::data::io;
namespace json = ember::json;
namespace fs = std::filesystem;

namespace {

using ember::test::read_bytes;
using ember::test::run;
using ember::test::TempDir;
using ember::test::write_bytes;

// Archives of one tree in every flavour, and expected.json: per archive, the regular-file
// members Python lists (tarinfo.isfile() / not zipinfo.is_dir()) with their sha256.
void make_archives(const TempDir& dir) {
  write_bytes(dir / "gen.py", R"PY(
import hashlib, io, json, os, random, sys, tarfile, zipfile
d = sys.argv[1]
rng = random.Random(9)
files = {
    "dir/a.txt": b"alpha\n" * 100,
    "dir/sub/b.csv": b"x,y\n1,2\n",
    "empty.txt": b"",
    "big.bin": rng.randbytes(600_000),
    "\u00fcn\u00ef/c\u00f6de.txt": "gr\u00fc\u00dfe\n".encode(),
    "deep/" + "n" * 120 + "/long_name_" + "x" * 60 + ".txt": b"long path\n",
}
def build_tar(mode, fmt):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode, format=fmt) as t:
        for name in ["dir", "dir/sub"]:
            ti = tarfile.TarInfo(name); ti.type = tarfile.DIRTYPE; ti.mode = 0o755; t.addfile(ti)
        for name, data in files.items():
            ti = tarfile.TarInfo(name); ti.size = len(data); t.addfile(ti, io.BytesIO(data))
        ti = tarfile.TarInfo("link"); ti.type = tarfile.SYMTYPE; ti.linkname = "dir/a.txt"; t.addfile(ti)
        ti = tarfile.TarInfo("hard"); ti.type = tarfile.LNKTYPE; ti.linkname = "dir/a.txt"; t.addfile(ti)
    return buf.getvalue()
out = {}
def listing_tar(path):
    with tarfile.open(path, "r:*") as t:
        return [[m.name, hashlib.sha256(t.extractfile(m).read()).hexdigest()] for m in t if m.isfile()]
for name, mode, fmt in [("pax.tar", "w", tarfile.PAX_FORMAT), ("gnu.tar", "w", tarfile.GNU_FORMAT),
                        ("a.tar.gz", "w:gz", tarfile.PAX_FORMAT), ("a.tar.bz2", "w:bz2", tarfile.PAX_FORMAT),
                        ("a.tar.xz", "w:xz", tarfile.PAX_FORMAT)]:
    open(os.path.join(d, name), "wb").write(build_tar(mode, fmt))
    out[name] = listing_tar(os.path.join(d, name))
out["a.tar.zst"] = out["pax.tar"]
methods = [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA]
with zipfile.ZipFile(os.path.join(d, "a.zip"), "w") as z:
    z.writestr(zipfile.ZipInfo("dir/"), b"")
    for i, (name, data) in enumerate(files.items()):
        z.writestr(name, data, compress_type=methods[i % len(methods)])
with zipfile.ZipFile(os.path.join(d, "a.zip")) as z:
    out["a.zip"] = [[i.filename, hashlib.sha256(z.read(i)).hexdigest()] for i in z.infolist() if not i.is_dir()]
json.dump(out, open(os.path.join(d, "expected.json"), "w"), ensure_ascii=False)
)PY");
  run("python3 " + (dir / "gen.py") + " " + dir.path.string());
  run("zstd -q -f " + (dir / "pax.tar") + " -o " + (dir / "a.tar.zst"));
}

using Listing = std::vector<std::pair<std::string, std::string>>;

Listing listing(io::StreamPtr archive, io::ArchiveType type) {
  io::ArchiveReader r(std::move(archive), type);
  Listing out;
  while (auto m = r.next()) out.emplace_back(m->first, io::hash_stream(*m->second));
  return out;
}

Listing expected_listing(const json::Value& all, const std::string& archive, const std::string& prefix) {
  Listing out;
  for (const auto& e : all.find(archive)->as_array())
    out.emplace_back(prefix + "/" + e.as_array()[0].as_string(), e.as_array()[1].as_string());
  return out;
}

// The members and their bytes, or "ERROR: ..." as the last entry when reading failed.
Listing try_listing(const std::string& bytes, io::ArchiveType type) {
  Listing out;
  try {
    io::ArchiveReader r(io::memory_stream(bytes, "fuzz"), type);
    while (auto m = r.next()) out.emplace_back(m->first, m->second->read_all());
  } catch (const ember::Error& e) {
    EXPECT_NE(std::string(e.what()).find("'fuzz"), std::string::npos) << e.what();
    out.emplace_back("ERROR", e.what());
  }
  return out;
}

}  // namespace

// The archives are made once for the suite (Python's xz and bzip2 take a moment).
class IoArchive : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    make_archives(*dir_);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static TempDir* dir_;
};
TempDir* IoArchive::dir_ = nullptr;

TEST_F(IoArchive, MatchesPythonTarfileAndZipfile) {
  const TempDir& dir = *dir_;
  const json::Value expected = json::parse(read_bytes(dir / "expected.json"));
  for (const char* name : {"pax.tar", "gnu.tar", "a.tar.gz", "a.tar.bz2", "a.tar.xz", "a.tar.zst", "a.zip"}) {
    SCOPED_TRACE(name);
    const std::string path = dir / name;
    const auto type = std::string(name) == "a.zip" ? io::ArchiveType::kZip : io::ArchiveType::kTar;
    const Listing want = expected_listing(expected, name, path);
    EXPECT_EQ(want.size(), 6u);  // directories, the symlink and the hard link are not files
    EXPECT_EQ(listing(io::file_stream(path), type), want);
  }
}

TEST_F(IoArchive, MemberStreamsEndAtTheNextMember) {
  const TempDir& dir = *dir_;
  for (const char* name : {"pax.tar", "a.zip"}) {
    SCOPED_TRACE(name);
    const auto type = std::string(name) == "a.zip" ? io::ArchiveType::kZip : io::ArchiveType::kTar;
    auto r = std::make_unique<io::ArchiveReader>(io::file_stream(dir / name), type);
    auto first = r->next();
    ASSERT_TRUE(first);
    EXPECT_EQ(first->first, (dir / name) + "/dir/a.txt");
    char buf[6];
    ASSERT_EQ(first->second->read(buf, 6), 6u);  // a partial read, then move on
    EXPECT_EQ(std::string(buf, 6), "alpha\n");
    auto second = r->next();
    ASSERT_TRUE(second);
    EXPECT_EQ(second->first, (dir / name) + "/dir/sub/b.csv");
    EXPECT_ERROR_WITH(first->second->read(buf, 6),
                      "member 'dir/a.txt' of '" + (dir / name) +
                          "' was read after the archive moved on to another member");
    EXPECT_EQ(second->second->read_all(), "x,y\n1,2\n");
    EXPECT_EQ(second->second->read_all(), "");
    r.reset();  // the reader is gone: its member streams refuse to read
    EXPECT_ERROR_WITH(second->second->read(buf, 1), "was read after the archive moved on");
  }
}

TEST_F(IoArchive, CorruptArchivesNameTheArchive) {
  const TempDir& dir = *dir_;
  const std::string tar = read_bytes(dir / "pax.tar");
  // Cut inside big.bin's data.
  EXPECT_ERROR_WITH(listing(io::memory_stream(tar.substr(0, tar.size() / 2), "cut.tar"), io::ArchiveType::kTar),
                    "load_from_tar: 'cut.tar': cannot read member 'big.bin'");
  EXPECT_ERROR_WITH(listing(io::memory_stream("this is not a tar archive, just some text", "t.tar"),
                            io::ArchiveType::kTar),
                    "load_from_tar: 't.tar': not a readable tar archive");
  EXPECT_ERROR_WITH(listing(io::memory_stream("", "empty.tar"), io::ArchiveType::kTar), "'empty.tar'");
  const std::string zip = read_bytes(dir / "a.zip");
  EXPECT_ERROR_WITH(listing(io::memory_stream(zip.substr(0, zip.size() / 3), "cut.zip"), io::ArchiveType::kZip),
                    "load_from_zip: 'cut.zip'");
  EXPECT_ERROR_WITH(listing(io::memory_stream(tar, "tar-as.zip"), io::ArchiveType::kZip),
                    "load_from_zip: 'tar-as.zip': not a readable zip archive");
  // A flipped byte inside a deflated member: the zip CRC-32 catches it.
  std::string bad = read_bytes(dir / "a.zip");
  const size_t member = bad.find("dir/sub/b.csv");  // the local header's name; the data follows
  ASSERT_NE(member, std::string::npos);
  bad[member + 14] ^= 0x20;
  EXPECT_ERROR_WITH(listing(io::memory_stream(bad, "bad.zip"), io::ArchiveType::kZip),
                    "load_from_zip: 'bad.zip': cannot read member 'dir/sub/b.csv'");
  const std::string gz = read_bytes(dir / "a.tar.gz");
  std::string bad_gz = gz;
  bad_gz[gz.size() / 2] ^= 0x55;
  EXPECT_ERROR_WITH(listing(io::memory_stream(bad_gz, "bad.tar.gz"), io::ArchiveType::kTar), "gzip data");
  EXPECT_ERROR_WITH(listing(io::file_stream(dir / "missing.tar"), io::ArchiveType::kTar), "file_stream: cannot open");
}

// Truncations and mutations of a tar, a tar.gz and a zip: the only outcomes are members or a
// clean ember::Error. A truncated tar.gz must fail; a mutated one fails or reads back exactly.
TEST(IoArchiveFuzz, TruncatedAndMutated) {
  TempDir dir;
  write_bytes(dir / "gen.py", R"PY(
import io, sys, tarfile, zipfile, gzip
d = sys.argv[1]
files = {"a.txt": b"alpha\n" * 40, "b/c.csv": b"1,2\n3,4\n", "e": b""}
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as t:
    for n, b in files.items():
        ti = tarfile.TarInfo(n); ti.size = len(b); t.addfile(ti, io.BytesIO(b))
open(d + "/s.tar", "wb").write(buf.getvalue())
open(d + "/s.tar.gz", "wb").write(gzip.compress(buf.getvalue(), mtime=0))
with zipfile.ZipFile(d + "/s.zip", "w", compression=zipfile.ZIP_DEFLATED) as z:
    for n, b in files.items():
        z.writestr(n, b)
)PY");
  run("python3 " + (dir / "gen.py") + " " + dir.path.string());
  std::mt19937 rng(17);
  for (const char* name : {"s.tar", "s.tar.gz", "s.zip"}) {
    SCOPED_TRACE(name);
    const std::string bytes = read_bytes(dir / name);
    const auto type = std::string(name) == "s.zip" ? io::ArchiveType::kZip : io::ArchiveType::kTar;
    const Listing good = try_listing(bytes, type);
    ASSERT_EQ(good.size(), 3u);
    ASSERT_EQ(good[0].first, "fuzz/a.txt");
    const bool gz = std::string(name) == "s.tar.gz";
    int errors = 0;
    for (int k = 0; k < 300; ++k) {
      const size_t cut = 1 + rng() % (bytes.size() - 1);
      const Listing got = try_listing(bytes.substr(0, cut), type);
      errors += !got.empty() && got.back().first == "ERROR";
      if (gz) EXPECT_EQ(got.back().first, "ERROR") << "a tar.gz cut at " << cut << " read without an error";
      std::string m = bytes;
      const size_t at = rng() % m.size();
      m[at] = char(m[at] ^ (1 + rng() % 255));
      const Listing mut = try_listing(m, type);
      errors += !mut.empty() && mut.back().first == "ERROR";
      if (gz && !(mut.empty() || mut.back().first == "ERROR"))
        EXPECT_EQ(mut, good) << "byte " << at << " mutated, read back different members without an error";
    }
    EXPECT_GT(errors, 100);
  }
}

// Note [Member sizes]: a regular member whose GNU header "realsize" field (offset 483) claims
// 8 GiB but stores 19 bytes is those 19 bytes (as GNU tar lists it), not an endless stream of
// zeros; the next member still reads.
TEST(IoArchiveSizes, RealsizeClaimsAreNotContent) {
  TempDir dir;
  write_bytes(dir / "gen.py", R"PY(
import io, sys, tarfile
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as t:
    for name, data in [("a.txt", b"hello world 123456\n"), ("b.txt", b"xyz")]:
        ti = tarfile.TarInfo(name); ti.size = len(data); t.addfile(ti, io.BytesIO(data))
b = bytearray(buf.getvalue())
b[483:495] = b"77777777777\0"          # GNU realsize: 8 GiB - 1
b[148:156] = b"        "
b[148:156] = ("%06o\0 " % sum(b[0:512])).encode()
open(sys.argv[1], "wb").write(bytes(b))
)PY");
  run("python3 " + (dir / "gen.py") + " " + (dir / "realsize.tar"));
  ASSERT_LT(fs::file_size(dir / "realsize.tar"), 16384u);
  io::ArchiveReader r(io::file_stream(dir / "realsize.tar"), io::ArchiveType::kTar);
  auto a = r.next();
  ASSERT_TRUE(a);
  EXPECT_EQ(a->second->read_all(), "hello world 123456\n");
  auto b = r.next();
  ASSERT_TRUE(b);
  EXPECT_EQ(b->second->read_all(), "xyz");
  EXPECT_FALSE(r.next());
}

// A genuinely sparse member (GNU tar -S of a file with holes) reads back byte for byte, its
// holes filled with zeros.
TEST(IoArchiveSizes, SparseMembersReadBackWithTheirHoles) {
  TempDir dir;
  {
    std::ofstream f(dir / "sparse.bin", std::ios::binary);
    f << "head";
    f.seekp(300000);
    f << "middle";
    f.seekp(900000);
    f << "tail";
  }
  run("cd " + dir.path.string() + " && tar -S -cf sparse.tar sparse.bin");
  io::ArchiveReader r(io::file_stream(dir / "sparse.tar"), io::ArchiveType::kTar);
  auto m = r.next();
  ASSERT_TRUE(m);
  EXPECT_EQ(m->second->read_all(), read_bytes(dir / "sparse.bin"));
  EXPECT_FALSE(r.next());
}
