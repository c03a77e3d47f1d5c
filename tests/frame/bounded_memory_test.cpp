// Arrow IPC streams and files that claim far more than they hold (metadata and body lengths,
// footer blocks) are refused fast, in a child whose peak memory stays under 100 MB.
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "bounded_memory.h"
#include "ember/frame/frame.h"
#include "ember/frame/io/ipc.h"
#include "temp_files.h"
#include "test_util.h"

namespace ember::frame {
namespace {

std::string le32(uint32_t v) { return {char(v), char(v >> 8), char(v >> 16), char(v >> 24)}; }

TEST(BoundedMemory, IpcStreamsClaimingLargeMessages) {
  // A continuation marker and a claim of 256 MB of metadata, then nothing.
  for (uint32_t claim : {uint32_t(1) << 28, (uint32_t(1) << 28) - 1, uint32_t(0x7fffffff)}) {
    std::istringstream in(le32(0xffffffff) + le32(claim));
    EXPECT_REFUSED_WITHIN_BOUNDS(read_ipc_stream(in), "byte");
  }
  // A real stream cut inside its record batch's body.
  const DataFrame df = DataFrame({{"x", column(std::vector<int64_t>(100000, 7))}});
  std::ostringstream out;
  write_ipc_stream(df, out);
  const std::string bytes = out.str();
  std::istringstream cut(bytes.substr(0, bytes.size() / 2));
  EXPECT_REFUSED_WITHIN_BOUNDS(read_ipc_stream(cut), "truncated");
}

TEST(BoundedMemory, FeatherFilesWithAFooterClaimingMore) {
  ember::test::TempDir dir("ember-bounded");
  const DataFrame df = DataFrame({{"x", column(std::vector<int64_t>(1000, 7))}});
  write_feather(df, dir / "a.feather");
  std::string bytes = ember::test::read_bytes(dir / "a.feather");
  // The footer length (4 bytes before the closing "ARROW1") claims the whole address space.
  std::string claim = bytes;
  claim.replace(claim.size() - 10, 4, le32(0x7ffffff0));
  ember::test::write_bytes(dir / "claim.feather", claim);
  EXPECT_REFUSED_WITHIN_BOUNDS(read_feather(dir / "claim.feather"), "claim.feather");
}

}  // namespace
}  // namespace ember::frame
