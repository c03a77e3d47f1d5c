// Every header path LibTorch 1.13 installs for C++ programs (compat/libtorch-headers.txt)
// resolves against ember: all_headers_included.cpp, generated from the list, includes each one
// (a missing path fails the build); this test checks that it included the whole list and that
// each path is a file ember provides, hand-written in compat/ or generated.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

int ember_compat_headers_included();

namespace {

std::vector<std::string> listed_paths() {
  std::ifstream in(EMBER_COMPAT_HEADER_LIST);
  std::vector<std::string> paths;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') paths.push_back(line);
  return paths;
}

}  // namespace

TEST(LibTorchHeaders, EveryPathOfTheListIsIncludedAndProvided) {
  auto paths = listed_paths();
  // The list covers the frontend (torch/...), c10 and ATen; 1.13 has 7,211 such paths.
  ASSERT_GT(paths.size(), 7000u) << "cannot read " << EMBER_COMPAT_HEADER_LIST;
  EXPECT_EQ(ember_compat_headers_included(), int(paths.size()));
  std::vector<std::filesystem::path> dirs;
  std::stringstream ss(EMBER_COMPAT_DIRS);
  for (std::string d; std::getline(ss, d, ':');) dirs.emplace_back(d);
  int missing = 0;
  for (const auto& p : paths) {
    bool found = false;
    for (const auto& d : dirs) found = found || std::filesystem::is_regular_file(d / p);
    if (!found && ++missing <= 10) ADD_FAILURE() << "no compat header for <" << p << ">";
  }
  EXPECT_EQ(missing, 0);
  for (const char* p : {"torch/script.h", "torch/nn/cloneable.h", "torch/nn/pimpl.h",
                        "torch/nn/modules/linear.h", "torch/nn/options/activation.h",
                        "torch/nn/functional/activation.h", "torch/optim/sgd.h",
                        "torch/special.h", "torch/expanding_array.h", "torch/detail/static.h",
                        "c10/util/Exception.h", "c10/util/Optional.h", "c10/util/ArrayRef.h",
                        "c10/util/tempfile.h", "ATen/ATen.h"})
    EXPECT_NE(std::find(paths.begin(), paths.end(), p), paths.end()) << p;
}
