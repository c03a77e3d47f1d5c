// FileStore: forked processes sharing the file, the last user removing it, bad files, sharing with PyTorch.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "ember/distributed/store.h"
#include "store_test_util.h"
#include "test_util.h"

namespace ember::distributed {
namespace {

namespace fs = std::filesystem;
using store_testing::expect_children_succeed;
using store_testing::fork_child;
using store_testing::kTestTimeout;
using store_testing::rendezvous;
using store_testing::TempDir;

// ---- FileStore -------------------------------------------------------------------------

TEST(FileStore, ForkedProcessesShareTheFile) {
  constexpr int kWorld = 4;
  TempDir dir("ember-store");
  std::string path = dir / "rendezvous";
  std::vector<pid_t> kids;
  for (int r = 1; r < kWorld; ++r)
    kids.push_back(fork_child([&, r] {
      FileStore s(path, kWorld);
      s.set_timeout(kTestTimeout);
      rendezvous(s, r, kWorld);
    }));
  {
    FileStore s(path, kWorld);
    s.set_timeout(kTestTimeout);
    rendezvous(s, 0, kWorld);
    EXPECT_EQ(s.add("counter", 0), 50 * kWorld);
    expect_children_succeed(kids);  // their stores are gone; ours is the last
    EXPECT_TRUE(fs::exists(path));
  }
  EXPECT_FALSE(fs::exists(path)) << "the last of world_size users removes the file";
}

TEST(FileStore, LastUserRemovesTheFile) {
  TempDir dir("ember-store");
  std::string path = dir / "f";
  auto a = std::make_unique<FileStore>(path, 2);
  auto b = std::make_unique<FileStore>(path, 2);
  a->set("k", "v");
  a.reset();
  EXPECT_TRUE(fs::exists(path));
  EXPECT_EQ(b->get_to_str("k"), "v");
  b.reset();
  EXPECT_FALSE(fs::exists(path));
  { FileStore keep(path, -1); }  // no fixed group size: the file stays
  EXPECT_TRUE(fs::exists(path));
}

TEST(FileStore, BadFilesAndPaths) {
  TempDir dir("ember-store");
  EXPECT_ERROR_WITH(FileStore(dir / "no-such-dir/f"), "cannot open");
  EXPECT_ERROR_WITH(FileStore(""), "path is empty");
  EXPECT_ERROR_WITH(FileStore(dir / "g", -2), "world_size must be >= 0");
  {
    std::ofstream(dir / "corrupt", std::ios::binary) << std::string("\x03\x00\x00\x00/ab\xff\xff\x00\x00", 11);
    EXPECT_ERROR_WITH(FileStore(dir / "corrupt"), "is corrupt at offset 7: a field of 65535 bytes runs past the end");
  }
  {
    std::ofstream(dir / "short", std::ios::binary) << std::string("\x02\x00", 2);
    EXPECT_ERROR_WITH(FileStore(dir / "short"), "is corrupt at offset 0");
  }
}

TEST(FileStore, SharedWithPyTorchFileStore) {
  TempDir dir("ember-store");
  std::string path = dir / "shared";
  FileStore s(path, -1);
  s.set_timeout(kTestTimeout);
  s.set("from_ember", std::string("ember\0bytes", 11));
  s.add("counter", 2);
  std::string script = dir / "peer.py";
  std::ofstream(script) << "import sys, datetime\n"
                           "from torch.distributed import FileStore\n"
                           "s = FileStore(sys.argv[1], -1)\n"
                           "s.set_timeout(datetime.timedelta(seconds=10))\n"
                           "assert s.get('from_ember') == b'ember\\x00bytes', s.get('from_ember')\n"
                           "assert s.add('counter', 5) == 7\n"
                           "s.set('from_python', b'py\\xff\\x00')\n"
                           "assert s.compare_set('cas', '', 'first') == b'first'\n"
                           "assert s.delete_key('counter')\n"
                           "s.set('counter', '100')\n";
  std::string cmd = "/usr/bin/python3 " + script + " " + path + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[256];
  while (size_t n = std::fread(buf, 1, sizeof(buf), p)) out.append(buf, n);
  int rc = ::pclose(p);
  if (rc != 0 && out.find("No module named 'torch'") != std::string::npos)
    GTEST_SKIP() << "/usr/bin/python3 has no torch: " << out;
  ASSERT_EQ(rc, 0) << out;
  EXPECT_EQ(s.get_to_str("from_python"), std::string("py\xff\0", 4));
  EXPECT_EQ(s.get_to_str("cas"), "first");
  EXPECT_EQ(s.add("counter", 1), 101);
  EXPECT_EQ(s.num_keys(), 4);  // from_ember, counter, from_python, cas
}

}  // namespace
}  // namespace ember::distributed
