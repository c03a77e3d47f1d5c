// datasets::MNIST: IDX files written by Python's struct module (an independent writer) are
// read back pixel for pixel; hand-made bad files (missing, wrong magic, truncated, extra
// bytes, counts that differ) raise errors naming the file.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "test_util.h"

namespace {

namespace fs = std::filesystem;
using torch::data::datasets::MNIST;

// Pixel (r, c) of image i and label i, as the Python writer below computes them.
int pixel(int64_t i, int64_t r, int64_t c) { return int((i * 7 + r * 3 + c * 5) % 256); }
int label(int64_t i) { return int((i * 3) % 10); }

class MnistFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ember-mnist-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes images/labels with Python (struct.pack big-endian header, then the bytes).
  void write_with_python(const std::string& prefix, int n, int rows, int cols) {
    const std::string script =
        "import struct,sys\n"
        "d,p,n,r,c=sys.argv[1],sys.argv[2],int(sys.argv[3]),int(sys.argv[4]),int(sys.argv[5])\n"
        "img=bytes((i*7+y*3+x*5)%256 for i in range(n) for y in range(r) for x in range(c))\n"
        "open(f'{d}/{p}-images-idx3-ubyte','wb').write(struct.pack('>IIII',0x803,n,r,c)+img)\n"
        "open(f'{d}/{p}-labels-idx1-ubyte','wb').write(struct.pack('>II',0x801,n)+bytes((i*3)%10 for i in range(n)))\n";
    const fs::path py = dir_ / "write_idx.py";
    std::ofstream(py) << script;
    const std::string cmd = "python3 " + py.string() + " " + dir_.string() + " " + prefix + " " + std::to_string(n) +
                            " " + std::to_string(rows) + " " + std::to_string(cols);
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  void write_bytes(const std::string& name, const std::string& bytes) {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
  }
  static std::string be32(uint32_t v) {
    return std::string{char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
  }
  std::string root() const { return dir_.string(); }

  fs::path dir_;
};

TEST_F(MnistFiles, ReadsTrainAndTestFiles) {
  write_with_python("train", 50, 28, 28);
  write_with_python("t10k", 20, 28, 28);
  MNIST train(root());
  ASSERT_EQ(train.size().value(), 50u);
  EXPECT_TRUE(train.is_train());
  EXPECT_EQ(train.images().sizes(), torch::IntArrayRef({50, 1, 28, 28}));
  EXPECT_EQ(train.images().dtype(), torch::kFloat);
  EXPECT_EQ(train.targets().sizes(), torch::IntArrayRef({50}));
  EXPECT_EQ(train.targets().dtype(), torch::kLong);
  for (int64_t i : {0, 1, 17, 49}) {
    auto e = train.get(size_t(i));
    ASSERT_EQ(e.data.sizes(), torch::IntArrayRef({1, 28, 28}));
    EXPECT_EQ(e.target.dim(), 0);
    EXPECT_EQ(e.target.item<int64_t>(), label(i));
    for (int64_t r : {0, 5, 27})
      for (int64_t c : {0, 13, 27}) EXPECT_FLOAT_EQ(e.data[0][r][c].item<float>(), float(pixel(i, r, c)) / 255.f);
  }
  EXPECT_FLOAT_EQ(train.images().max().item<float>(), 1.0f);  // pixel 255 occurs
  EXPECT_GE(train.images().min().item<float>(), 0.0f);
  EXPECT_ERROR_WITH(train.get(50), "index 50 is out of range for a dataset of 50 examples");

  MNIST test(root() + "/", MNIST::Mode::kTest);
  EXPECT_EQ(test.size().value(), 20u);
  EXPECT_FALSE(test.is_train());
  EXPECT_EQ(test.get(19).target.item<int64_t>(), label(19));
}

TEST_F(MnistFiles, ImagesOfOtherSizesKeepRowsAndColumns) {
  write_with_python("train", 3, 5, 4);
  MNIST d(root());
  EXPECT_EQ(d.images().sizes(), torch::IntArrayRef({3, 1, 5, 4}));
  EXPECT_FLOAT_EQ(d.get(2).data[0][4][3].item<float>(), float(pixel(2, 4, 3)) / 255.f);
}

TEST_F(MnistFiles, MissingFilesNameThePath) {
  EXPECT_ERROR_WITH((void)MNIST(root()), "cannot open '" + root() + "/train-images-idx3-ubyte'");
  write_with_python("train", 2, 28, 28);
  fs::remove(dir_ / "train-labels-idx1-ubyte");
  EXPECT_ERROR_WITH((void)MNIST(root()), "train-labels-idx1-ubyte");
  EXPECT_ERROR_WITH((void)MNIST(root(), MNIST::Mode::kTest), "t10k-images-idx3-ubyte");
}

TEST_F(MnistFiles, BadMagicNumbers) {
  // Labels' magic in the images file, and images' magic in the labels file.
  write_bytes("train-images-idx3-ubyte", be32(0x801) + be32(1) + be32(1) + be32(1) + std::string(1, '\0'));
  write_bytes("train-labels-idx1-ubyte", be32(0x801) + be32(1) + std::string(1, '\0'));
  EXPECT_ERROR_WITH((void)MNIST(root()), "has magic number 0x00000801, expected 0x00000803");
  write_bytes("train-images-idx3-ubyte", be32(0x803) + be32(1) + be32(1) + be32(1) + std::string(1, '\0'));
  write_bytes("train-labels-idx1-ubyte", be32(0x803) + be32(1) + std::string(1, '\0'));
  EXPECT_ERROR_WITH((void)MNIST(root()), "train-labels-idx1-ubyte' has magic number 0x00000803, expected 0x00000801");
  // Little-endian magic (a file written with the wrong byte order).
  write_bytes("train-images-idx3-ubyte", std::string("\x03\x08\0\0", 4) + be32(1) + be32(1) + be32(1) + "x");
  EXPECT_ERROR_WITH((void)MNIST(root()), "has magic number 0x03080000");
}

TEST_F(MnistFiles, TruncatedFiles) {
  write_bytes("train-labels-idx1-ubyte", be32(0x801) + be32(2) + std::string(2, '\1'));
  // Shorter than the header.
  write_bytes("train-images-idx3-ubyte", be32(0x803) + be32(2));
  EXPECT_ERROR_WITH((void)MNIST(root()), "is truncated: it has 8 bytes, fewer than the 16-byte IDX header");
  // The header announces 2 images of 28x28 (1568 bytes) but 1000 follow.
  write_bytes("train-images-idx3-ubyte", be32(0x803) + be32(2) + be32(28) + be32(28) + std::string(1000, '\7'));
  EXPECT_ERROR_WITH((void)MNIST(root()), "announces 2 images of 28x28 pixels (1568 bytes after the 16-byte header) but only "
                                   "1000 bytes follow");
  // A header announcing 2^32-1 images of 2^32-1 x 2^32-1 does not overflow the size check.
  write_bytes("train-images-idx3-ubyte", be32(0x803) + be32(0xFFFFFFFF) + be32(0xFFFFFFFF) + be32(0xFFFFFFFF) + "x");
  EXPECT_ERROR_WITH((void)MNIST(root()), "is truncated");
  // Labels cut short.
  write_bytes("train-images-idx3-ubyte", be32(0x803) + be32(2) + be32(1) + be32(1) + std::string(2, '\7'));
  write_bytes("train-labels-idx1-ubyte", be32(0x801) + be32(2) + std::string(1, '\1'));
  EXPECT_ERROR_WITH((void)MNIST(root()), "train-labels-idx1-ubyte' is truncated: its header announces 2 labels");
  // Extra bytes past the data are as suspicious as missing ones.
  write_bytes("train-labels-idx1-ubyte", be32(0x801) + be32(2) + std::string(5, '\1'));
  EXPECT_ERROR_WITH((void)MNIST(root()), "has 3 bytes past the 2 labels its header announces");
  // Zero-sized images.
  write_bytes("train-images-idx3-ubyte", be32(0x803) + be32(2) + be32(0) + be32(28));
  EXPECT_ERROR_WITH((void)MNIST(root()), "images of 0x28 pixels");
}

TEST_F(MnistFiles, CountsThatDiffer) {
  write_bytes("train-images-idx3-ubyte", be32(0x803) + be32(3) + be32(2) + be32(2) + std::string(12, '\7'));
  write_bytes("train-labels-idx1-ubyte", be32(0x801) + be32(2) + std::string(2, '\1'));
  EXPECT_ERROR_WITH((void)MNIST(root()), "holds 3 images but '" + root() + "/train-labels-idx1-ubyte' holds 2 labels");
}

TEST_F(MnistFiles, FeedsTheExamplesPipeline) {
  write_with_python("train", 10, 28, 28);
  auto d = MNIST(root())
               .map(torch::data::transforms::Normalize<>(0.5, 0.5))
               .map(torch::data::transforms::Stack<>());
  std::vector<size_t> idx{3, 4};
  auto b = d.get_batch(idx);
  EXPECT_EQ(b.data.sizes(), torch::IntArrayRef({2, 1, 28, 28}));
  EXPECT_FLOAT_EQ(b.data[1][0][2][1].item<float>(), (float(pixel(4, 2, 1)) / 255.f - 0.5f) / 0.5f);
  EXPECT_TENSOR_EQ(b.target, torch::tensor({label(3), label(4)}).to(torch::kLong));
}

}  // namespace
