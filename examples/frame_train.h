// Training from a DataFrame, end to end: the digits CSV (gzip) read into an ember::frame
// DataFrame, a held-out split with frame operations, zero-copy batches through a shuffled,
// sharded DataPipe run by DataLoader2 with worker threads, each batch's columns turned into
// a feature tensor and labels, and an MLP trained with Adam. Shared by
// examples/frame_train.cpp (the program) and tests/frame/train_from_frame_test.cpp (CI).
#pragma once
#include <torch/torch.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "ember/data/datapipes.h"
#include "ember/data/datapipes/frame_pipes.h"
#include "ember/data/io/decompress.h"
#include "ember/frame/frame.h"
#include "ember/frame/io/csv.h"
#include "ember/frame/tensor_ops.h"

namespace ember::examples {

struct FrameTrainOptions {
  std::string path;  // digits.csv.gz: 64 pixel values (0..16) and the label per line, no header
  int64_t epochs = 10;
  int64_t workers = 2;
  int64_t batch_size = 32;
  double lr = 3e-3;
  uint64_t seed = 0;
  bool verbose = false;
};

struct FrameTrainResult {
  int64_t train_rows = 0, test_rows = 0;
  int64_t rows_last_epoch = 0;  // rows the loader delivered in the last epoch (= train_rows)
  double last_epoch_loss = 0;   // mean training loss of the last epoch
  double test_accuracy = 0;     // on the held-out rows
};

inline FrameTrainResult train_from_frame(const FrameTrainOptions& o) {
  using frame::DataFrame;
  namespace dp = data::datapipes;
  // read_csv reads plain text: decompress first (io::decompress checks the gzip CRC).
  const std::string text = data::io::decompress(data::io::file_stream(o.path))->read_all();
  std::vector<std::string> names, features;
  for (int i = 0; i < 64; ++i) names.push_back("p" + std::to_string(i));
  features = names;
  names.push_back("label");
  DataFrame df = frame::read_csv_string(text, frame::CsvReadOptions().with_header(false).with_column_names(names));

  // A fixed held-out fifth (independent of the seed), as a boolean column for where().
  const int64_t n = df.num_rows(), n_test = n / 5;
  torch::Tensor is_test = torch::zeros({n}, torch::kBool);
  is_test.index_fill_(0, torch::randperm(n, torch::Generator(20241129), torch::kLong).slice(0, 0, n_test), true);
  const DataFrame train = df.where(frame::from_tensor(is_test.logical_not()));
  const DataFrame test = df.where(frame::from_tensor(is_test));

  // Batches are slices of `train`; the tensors are made in the workers.
  auto to_xy = [features](const DataFrame& b) {
    return std::pair{frame::to_tensor(b.select(features), torch::kFloat).div_(16.0), frame::to_tensor(b["label"])};
  };
  auto pipe = dp::frame_batches(train, o.batch_size).shuffle().sharding_filter().map(to_xy);
  data::DataLoader2 loader(pipe, std::make_shared<data::MultiProcessingReadingService>(o.workers));
  loader.seed(o.seed);

  torch::manual_seed(o.seed);
  torch::nn::Sequential model(torch::nn::Linear(64, 128), torch::nn::ReLU(), torch::nn::Linear(128, 10));
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(o.lr));
  FrameTrainResult r;
  r.train_rows = train.num_rows();
  r.test_rows = test.num_rows();
  for (int64_t epoch = 1; epoch <= o.epochs; ++epoch) {
    double loss_sum = 0;
    int64_t rows = 0;
    for (auto& [x, y] : loader) {
      optimizer.zero_grad();
      torch::Tensor loss = torch::nn::functional::cross_entropy(model->forward(x), y);
      loss.backward();
      optimizer.step();
      loss_sum += loss.item<double>() * double(x.size(0));
      rows += x.size(0);
    }
    r.rows_last_epoch = rows;
    r.last_epoch_loss = loss_sum / double(std::max<int64_t>(rows, 1));
    if (o.verbose) std::printf("epoch %lld/%lld  loss %.4f\n", (long long)epoch, (long long)o.epochs, r.last_epoch_loss);
  }

  torch::NoGradGuard no_grad;
  const torch::Tensor x_test = frame::to_tensor(test.select(features), torch::kFloat).div_(16.0);
  const torch::Tensor y_test = frame::to_tensor(test["label"]);
  r.test_accuracy = model->forward(x_test).argmax(1).eq(y_test).to(torch::kDouble).mean().item<double>();
  return r;
}

}  // namespace ember::examples
