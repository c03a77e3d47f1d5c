// The digits data of the jit_digits examples: the UCI 8x8 digits, a fixed held-out fifth.
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "ember/data/io/decompress.h"
#include "ember/frame/frame.h"
#include "ember/frame/io/csv.h"
#include "ember/frame/tensor_ops.h"

namespace jit_digits {

struct Split {
  torch::Tensor train_x, train_y, test_x, test_y;
};

inline Split load(const std::string& path) {
  const std::string text = ember::data::io::decompress(ember::data::io::file_stream(path))->read_all();
  std::vector<std::string> names;
  for (int i = 0; i < 64; ++i) names.push_back("p" + std::to_string(i));
  std::vector<std::string> pixels = names;
  names.push_back("label");
  auto df = ember::frame::read_csv_string(text, ember::frame::CsvReadOptions().with_header(false).with_column_names(names));
  const torch::Tensor x = ember::frame::to_tensor(df.select(pixels), torch::kFloat).div_(16.0).view({-1, 1, 8, 8});
  const torch::Tensor y = ember::frame::to_tensor(df["label"]).to(torch::kLong);
  const int64_t n = y.size(0), n_test = n / 5;
  const torch::Tensor perm = torch::randperm(n, torch::Generator(20241129), torch::kLong);
  const torch::Tensor test = perm.slice(0, 0, n_test), train = perm.slice(0, n_test);
  return {x.index({train}), y.index({train}), x.index({test}).contiguous(), y.index({test})};
}

// Accuracy and a checksum of the predicted classes (equal checksums: the same predictions).
inline void report(const char* what, const torch::Tensor& logits, const torch::Tensor& labels) {
  const torch::Tensor pred = logits.argmax(1);
  const double acc = pred.eq(labels).to(torch::kDouble).mean().item<double>();
  const torch::Tensor weights = torch::arange(1, pred.size(0) + 1, torch::kLong);
  const int64_t checksum = (pred * weights).sum().item<int64_t>();
  std::printf("%s: held-out accuracy %.4f, prediction checksum %lld\n", what, acc, (long long)checksum);
}

}  // namespace jit_digits
