// Data files that claim far more than they hold (IDX headers, tar and zip member sizes) are
// refused or read as what they store, in a child whose peak memory stays under 100 MB.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "bounded_memory.h"
#include "ember/data/datasets/mnist.h"
#include "ember/data/io/archive.h"
#include "python_scripts.h"
#include "temp_files.h"
#include "test_util.h"

namespace io = ember::data::io;

namespace {

using ember::test::read_bytes;
using ember::test::run;
using ember::test::TempDir;
using ember::test::write_bytes;

std::string be32(uint32_t v) { return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)}; }

TEST(BoundedMemory, IdxHeadersClaimingBillionsOfImages) {
  TempDir dir("ember-bounded");
  write_bytes(dir / "images", be32(0x803) + be32(0x7fffffff) + be32(28) + be32(28) + std::string(64, '\0'));
  EXPECT_REFUSED_WITHIN_BOUNDS(ember::data::datasets::detail::read_idx_images(dir / "images"), "is truncated");
  write_bytes(dir / "labels", be32(0x801) + be32(0xffffffff) + std::string(8, '\0'));
  EXPECT_REFUSED_WITHIN_BOUNDS(ember::data::datasets::detail::read_idx_labels(dir / "labels"), "labels");
}

// Reads every member of an archive to its end.
size_t read_members(const std::string& path, io::ArchiveType type) {
  io::ArchiveReader r(io::file_stream(path), type);
  size_t bytes = 0;
  while (auto m = r.next()) bytes += m->second->read_all().size();
  return bytes;
}

TEST(BoundedMemory, ArchiveMembersClaimingGigabytes) {
  TempDir dir("ember-bounded");
  write_bytes(dir / "gen.py", R"PY(
import io, struct, sys, tarfile, zipfile
d = sys.argv[1]
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as t:
    ti = tarfile.TarInfo("a.txt"); ti.size = 19; t.addfile(ti, io.BytesIO(b"hello world 123456\n"))
b = bytearray(buf.getvalue())
b[483:495] = b"77777777777\0"                       # GNU realsize: 8 GiB
b[148:156] = b"        "
b[148:156] = ("%06o\0 " % sum(b[0:512])).encode()
open(d + "/realsize.tar", "wb").write(bytes(b))
# A deflated zip member whose headers claim 4 GB uncompressed (local header offset 22,
# central directory offset 24 from the signature).
with zipfile.ZipFile(d + "/claim.zip", "w", compression=zipfile.ZIP_DEFLATED) as z:
    z.writestr("a.txt", b"x" * 1000)
z = bytearray(open(d + "/claim.zip", "rb").read())
z[22:26] = struct.pack("<I", 0xfffffff0)
c = z.find(b"PK\x01\x02")
z[c + 24:c + 28] = struct.pack("<I", 0xfffffff0)
open(d + "/claim.zip", "wb").write(bytes(z))
)PY");
  run("python3 " + (dir / "gen.py") + " " + dir.path.string());
  // The tar member is its 19 stored bytes.
  const ember::test::BoundedRun tar = ember::test::run_bounded([&] {
    EMBER_CHECK(read_members(dir / "realsize.tar", io::ArchiveType::kTar) == 19, "realsize.tar: wrong size");
  });
  EXPECT_EQ(tar.outcome, ember::test::BoundedRun::kReturned) << tar.what;
  EXPECT_LT(tar.peak_mb, 100.0);
  EXPECT_LT(tar.seconds, 10.0);
  // The zip member inflates to its 1000 bytes and then fails its size check or returns them.
  const ember::test::BoundedRun zip = ember::test::run_bounded([&] {
    EMBER_CHECK(read_members(dir / "claim.zip", io::ArchiveType::kZip) <= 1000, "claim.zip: more than stored");
  });
  EXPECT_TRUE(zip.outcome == ember::test::BoundedRun::kReturned || zip.outcome == ember::test::BoundedRun::kEmberError)
      << zip.what;
  EXPECT_LT(zip.peak_mb, 100.0);
  EXPECT_LT(zip.seconds, 10.0);
}

}  // namespace
