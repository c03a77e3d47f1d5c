// The digits data of the examples: the UCI 8x8 digits, a fixed held-out fifth, a report.
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

namespace digits {

// The UCI 8x8 digits (data/digits/digits.csv.gz): pixels scaled to [0, 1] as [N, 1, 8, 8], labels.
struct Data {
  torch::Tensor x, y;
};
inline Data load(const std::string& path) {
  const std::string text = ember::data::io::decompress(ember::data::io::file_stream(path))->read_all();
  std::vector<std::string> names;
  for (int i = 0; i < 64; ++i) names.push_back("p" + std::to_string(i));
  std::vector<std::string> pixels = names;
  names.push_back("label");
  auto df = ember::frame::read_csv_string(text, ember::frame::CsvReadOptions().with_header(false).with_column_names(names));
  return {ember::frame::to_tensor(df.select(pixels), torch::kFloat).div_(16.0).view({-1, 1, 8, 8}),
          ember::frame::to_tensor(df["label"]).to(torch::kLong)};
}

// A fixed held-out fifth (the same permutation in every example).
struct Split {
  torch::Tensor train_x, train_y, test_x, test_y;
};
inline Split split(const Data& d) {
  const int64_t n = d.y.size(0), n_test = n / 5;
  const torch::Tensor perm = torch::randperm(n, torch::Generator(20241129), torch::kLong);
  const torch::Tensor test = perm.slice(0, 0, n_test), train = perm.slice(0, n_test);
  return {d.x.index({train}), d.y.index({train}), d.x.index({test}).contiguous(), d.y.index({test})};
}

// Accuracy and a checksum of the predicted classes (equal checksums: the same predictions).
inline void report(const char* what, const torch::Tensor& logits, const torch::Tensor& labels) {
  const torch::Tensor pred = logits.argmax(1);
  const double acc = pred.eq(labels).to(torch::kDouble).mean().item<double>();
  const torch::Tensor weights = torch::arange(1, pred.size(0) + 1, torch::kLong);
  const int64_t checksum = (pred * weights).sum().item<int64_t>();
  std::printf("%s: held-out accuracy %.4f, prediction checksum %lld\n", what, acc, (long long)checksum);
}

}  // namespace digits
