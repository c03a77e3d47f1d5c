// DataLoader throughput: a map-style dataset of N samples (3x32x32 float + an int64 label)
// over one preallocated tensor, batches of 64 collated with Stack, one full epoch per
// timing, with 0 and 2 worker threads and a sequential or random sampler. Prints
// "case<TAB>samples/s" lines (the best of the epochs). Built by bench/data_loader_bench.sh
// against ember (and, when LibTorch is installed, against LibTorch from the same source).
// Usage: data_loader_bench [samples=100000] [epochs=3]
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

// PyTorch's TensorDataset(x, y): example i is (x[i], y[i]), views without copies.
struct PairDataset : torch::data::datasets::Dataset<PairDataset> {
  PairDataset(torch::Tensor x, torch::Tensor y) : x(std::move(x)), y(std::move(y)) {}
  torch::data::Example<> get(size_t i) override { return {x[int64_t(i)], y[int64_t(i)]}; }
  torch::optional<size_t> size() const override { return size_t(x.size(0)); }
  torch::Tensor x, y;
};

template <typename Sampler>
double samples_per_second(const PairDataset& dataset, size_t workers, int epochs) {
  const int64_t n = dataset.x.size(0);
  auto loader = torch::data::make_data_loader<Sampler>(
      PairDataset(dataset).map(torch::data::transforms::Stack<>()),
      torch::data::DataLoaderOptions().batch_size(64).workers(workers));
  double best = 0;
  for (int e = 0; e < epochs; ++e) {
    const auto t0 = std::chrono::steady_clock::now();
    int64_t seen = 0;
    for (auto& batch : *loader) seen += batch.data.size(0);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (seen != n) {
      std::fprintf(stderr, "epoch saw %lld samples, expected %lld\n", (long long)seen, (long long)n);
      std::exit(1);
    }
    best = std::max(best, double(n) / s);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 100000;
  const int epochs = argc > 2 ? std::atoi(argv[2]) : 3;
  torch::manual_seed(0);
  PairDataset dataset(torch::rand({n, 3, 32, 32}), torch::randint(0, 10, {n}, torch::kLong));
  for (size_t workers : {0, 2}) {
    std::printf("sequential, %zu workers\t%.0f\n", workers,
                samples_per_second<torch::data::samplers::SequentialSampler>(dataset, workers, epochs));
    std::printf("random, %zu workers\t%.0f\n", workers,
                samples_per_second<torch::data::samplers::RandomSampler>(dataset, workers, epochs));
    std::fflush(stdout);
  }
}
