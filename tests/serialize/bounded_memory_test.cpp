// Checkpoints that claim terabytes (tensor shapes and byte ranges, header lengths, tensor-list
// sizes) are refused fast, in a child whose peak memory stays under 100 MB (bounded_memory.h).
#include <cstdint>
#include <string>

#include "bounded_memory.h"
#include "temp_files.h"
#include "test_util.h"

namespace ember {
namespace {

using test::TempDir;
using test::write_bytes;

// A safetensors file: 8-byte little-endian header length, then the header (and `data`).
std::string safetensors_bytes(const std::string& header, const std::string& data = "", uint64_t claimed = 0) {
  std::string out(8, '\0');
  const uint64_t n = claimed ? claimed : header.size();
  for (int i = 0; i < 8; ++i) out[size_t(i)] = char((n >> (8 * i)) & 0xff);
  return out + header + data;
}

TEST(BoundedMemory, CheckpointsClaimingTerabytes) {
  TempDir dir("ember-bounded");
  // A 4 TiB float tensor described in a 100-byte file.
  write_bytes(dir / "huge.safetensors",
              safetensors_bytes(R"({"w":{"dtype":"F32","shape":[1048576,1048576],"data_offsets":[0,4398046511104]}})"));
  EXPECT_REFUSED_WITHIN_BOUNDS(serialize::load_file(dir / "huge.safetensors"), "outside the data section");
  Tensor t;
  EXPECT_REFUSED_WITHIN_BOUNDS(load(t, dir / "huge.safetensors"), "huge.safetensors");
  nn::Linear m(4, 4);
  write_bytes(dir / "module.safetensors",
              safetensors_bytes(R"({"weight":{"dtype":"F32","shape":[1048576,1048576],"data_offsets":[0,4398046511104]},)"
                                R"("bias":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})",
                                std::string(16, '\0')));
  EXPECT_REFUSED_WITHIN_BOUNDS(load(m, dir / "module.safetensors"), "tensor 'weight'");
  // A header length of 1 TiB.
  write_bytes(dir / "header.safetensors", safetensors_bytes("{}", "", uint64_t(1) << 40));
  EXPECT_REFUSED_WITHIN_BOUNDS(serialize::load_file(dir / "header.safetensors"), "header length");
  // A tensor list of 2^62 and of 150,000,000 tensors, each in a file of a few hundred bytes.
  for (int64_t claim : {int64_t(1) << 62, int64_t(150'000'000)}) {
    serialize::OutputArchive out;
    out.write("0", ones({2}));
    out.write("size", IValue(claim));
    out.save_to(dir / "list.safetensors");
    std::vector<Tensor> list;
    EXPECT_REFUSED_WITHIN_BOUNDS(load(list, dir / "list.safetensors"), "the tensor list's 'size'");
  }
}

// The harness itself: a read that does allocate what a claim says is caught.
TEST(BoundedMemory, TheHarnessSeesAnAllocation) {
  const test::BoundedRun r = test::run_bounded([] {
    Tensor big = zeros({int64_t(300) << 18});  // 300 MB, touched
    EMBER_CHECK(big.sum().item<float>() == 0, "unreachable");
    EMBER_ERROR("refused late");
  });
  EXPECT_EQ(r.outcome, test::BoundedRun::kEmberError);
  EXPECT_GT(r.peak_mb, 250.0);
}

}  // namespace
}  // namespace ember
