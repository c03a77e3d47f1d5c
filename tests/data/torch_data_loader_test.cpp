// torch::data DataLoader: batches and epochs with 0 and more worker threads, ordering,
// drop_last, errors thrown in workers, timeouts, destruction mid-epoch, stateful and
// stream datasets. Thread timing is made adversarial (later batches finish first) but
// nothing here measures time: the checks are on which batches come, in which order.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <numeric>
#include <set>
#include <thread>

#include "test_util.h"

namespace {

using namespace torch::data;
using namespace std::chrono_literals;

// Example i: data [i] (float), target i. Batches whose first index is small sleep longest,
// so with several workers later batches are ready first.
struct Slow : datasets::Dataset<Slow> {
  explicit Slow(size_t n, bool sleepy = false) : n(n), sleepy(sleepy) {}
  Example<> get(size_t i) override {
    return {torch::full({1}, double(i)), torch::tensor(int64_t(i))};
  }
  std::vector<Example<>> get_batch(torch::ArrayRef<size_t> indices) override {
    if (sleepy && !indices.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(indices[0] < 8 ? 20 : 0));
    return Dataset::get_batch(indices);
  }
  std::optional<size_t> size() const override { return n; }
  size_t n;
  bool sleepy;
};

std::vector<int64_t> targets_of(const Example<>& b) {
  auto t = b.target.contiguous();
  return std::vector<int64_t>(t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + t.numel());
}

template <typename Loader>
std::vector<std::vector<int64_t>> epoch(Loader& loader) {
  std::vector<std::vector<int64_t>> out;
  for (auto& batch : loader) out.push_back(targets_of(batch));
  return out;
}

const std::vector<std::vector<int64_t>> kTenByThree{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9}};

TEST(TorchDataLoader, MainThreadBatchesInSamplerOrder) {
  auto loader = make_data_loader<samplers::SequentialSampler>(Slow(10).map(transforms::Stack<>()), 3);
  EXPECT_EQ(epoch(*loader), kTenByThree);
  EXPECT_EQ(epoch(*loader), kTenByThree);  // a second begin() starts a new epoch
  EXPECT_EQ(loader->options().batch_size, 3u);
  EXPECT_EQ(loader->options().workers, 0u);
}

TEST(TorchDataLoader, VectorBatchesWithoutStack) {
  auto loader = make_data_loader<samplers::SequentialSampler>(Slow(5), DataLoaderOptions(2).workers(1));
  std::vector<size_t> sizes;
  for (std::vector<Example<>>& batch : *loader) {
    sizes.push_back(batch.size());
    EXPECT_EQ(batch[0].data.sizes(), torch::IntArrayRef({1}));
  }
  EXPECT_EQ(sizes, (std::vector<size_t>{2, 2, 1}));
}

// pin_memory (PyTorch's DataLoader option): batches in pinned memory where there is a CUDA
// device; elsewhere one warning and ordinary batches.
struct PinWarnings : c10::WarningHandler {
  std::vector<std::string> messages;
  void process(const c10::SourceLocation&, const std::string& msg, const bool) override { messages.push_back(msg); }
};

TEST(TorchDataLoader, PinMemory) {
  EXPECT_FALSE(DataLoaderOptions(2).pin_memory());
  PinWarnings handler;
  c10::Warning::WarningHandlerGuard guard(&handler);
  c10::Warning::set_warnAlways(true);
  for (size_t workers : {size_t(0), size_t(2)}) {
    auto stacked = make_data_loader<samplers::SequentialSampler>(
        Slow(6).map(transforms::Stack<>()), DataLoaderOptions(2).workers(workers).pin_memory(true));
    auto vectors = make_data_loader<samplers::SequentialSampler>(Slow(3),
                                                                 DataLoaderOptions(2).workers(workers).pin_memory(true));
    EXPECT_TRUE(stacked->options().pin_memory);
    const bool pinned = torch::cuda::is_available();
    int batches = 0;
    for (Example<>& batch : *stacked) {
      EXPECT_EQ(batch.data.is_pinned(), pinned);
      EXPECT_EQ(batch.target.is_pinned(), pinned);
      EXPECT_TRUE(batch.data.is_cpu());
      ++batches;
    }
    EXPECT_EQ(batches, 3);
    for (std::vector<Example<>>& batch : *vectors)
      for (Example<>& e : batch) EXPECT_EQ(e.data.is_pinned(), pinned);
  }
  c10::Warning::set_warnAlways(false);
  if (!torch::cuda::is_available()) {
    ASSERT_FALSE(handler.messages.empty());
    EXPECT_NE(handler.messages[0].find("'pin_memory' argument is set as true but no accelerator is found"),
              std::string::npos)
        << handler.messages[0];
  }
}

TEST(TorchDataLoader, DropLast) {
  auto loader = make_data_loader<samplers::SequentialSampler>(Slow(10).map(transforms::Stack<>()),
                                                              DataLoaderOptions(3).drop_last(true));
  EXPECT_EQ(epoch(*loader), (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}}));
  auto workers = make_data_loader<samplers::SequentialSampler>(Slow(9).map(transforms::Stack<>()),
                                                               DataLoaderOptions(3).drop_last(true).workers(2));
  EXPECT_EQ(epoch(*workers).size(), 3u);  // no short batch to drop
}

TEST(TorchDataLoader, WorkersKeepSamplerOrder) {
  // Batches 0..2 (first index < 8) sleep, so workers finish batch 3 before them.
  auto loader = make_data_loader<samplers::SequentialSampler>(Slow(10, true).map(transforms::Stack<>()),
                                                              DataLoaderOptions(3).workers(3).max_jobs(4));
  EXPECT_EQ(loader->options().max_jobs, 4u);
  for (int e = 0; e < 3; ++e) EXPECT_EQ(epoch(*loader), kTenByThree) << "epoch " << e;
}

TEST(TorchDataLoader, UnorderedWorkersDeliverEveryBatchOnce) {
  auto loader = make_data_loader<samplers::SequentialSampler>(
      Slow(40, true).map(transforms::Stack<>()), DataLoaderOptions(4).workers(2).enforce_ordering(false));
  EXPECT_EQ(loader->options().max_jobs, 4u);  // 2 * workers
  std::multiset<int64_t> seen;
  for (auto& b : epoch(*loader)) seen.insert(b.begin(), b.end());
  std::multiset<int64_t> all;
  for (int64_t i = 0; i < 40; ++i) all.insert(i);
  EXPECT_EQ(seen, all);
}

TEST(TorchDataLoader, RandomSamplerByDefaultCoversTheDataset) {
  torch::manual_seed(3);
  auto loader = make_data_loader(Slow(50).map(transforms::Stack<>()), DataLoaderOptions(8).workers(2));
  std::vector<int64_t> order;
  for (auto& b : epoch(*loader)) order.insert(order.end(), b.begin(), b.end());
  std::vector<int64_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> iota(50);
  std::iota(iota.begin(), iota.end(), 0);
  EXPECT_EQ(sorted, iota);
  EXPECT_NE(order, iota);
  // Reproducible: the same seed, the same order (the sampler draws in the main thread).
  torch::manual_seed(3);
  auto again = make_data_loader(Slow(50).map(transforms::Stack<>()), DataLoaderOptions(8).workers(2));
  std::vector<int64_t> order2;
  for (auto& b : epoch(*again)) order2.insert(order2.end(), b.begin(), b.end());
  EXPECT_EQ(order2, order);
}

// Throws for index `bad`.
struct Faulty : datasets::Dataset<Faulty> {
  Example<> get(size_t i) override {
    if (i == 4) throw std::runtime_error("cannot decode example 4");
    return {torch::zeros({1}), torch::tensor(int64_t(i))};
  }
  std::optional<size_t> size() const override { return 9; }
};

TEST(TorchDataLoader, WorkerExceptionKeepsTheOriginalMessage) {
  for (size_t workers : {0, 2}) {
    auto loader = make_data_loader<samplers::SequentialSampler>(Faulty().map(transforms::Stack<>()),
                                                                DataLoaderOptions(3).workers(workers));
    auto it = loader->begin();
    EXPECT_EQ(targets_of(*it), (std::vector<int64_t>{0, 1, 2}));
    try {
      ++it;  // batch {3, 4, 5}
      ADD_FAILURE() << "expected an exception from batch 1";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("cannot decode example 4"), std::string::npos) << e.what();
      if (workers > 0) {
        auto* w = dynamic_cast<const WorkerException*>(&e);
        ASSERT_NE(w, nullptr);
        EXPECT_NE(w->message.find("Caught exception in DataLoader worker thread"), std::string::npos);
        EXPECT_THROW(std::rethrow_exception(w->original_exception), std::runtime_error);
      }
    }
    // The epoch goes on past the failed batch.
    ++it;
    EXPECT_EQ(targets_of(*it), (std::vector<int64_t>{6, 7, 8}));
    ++it;
    EXPECT_TRUE(it == loader->end());
  }
}

TEST(TorchDataLoader, ExceptionReachesTheFirstDereference) {
  // The first batch fails: begin()'s iterator fetches lazily, so *it throws.
  auto loader = make_data_loader<samplers::SequentialSampler>(Faulty().map(transforms::Stack<>()),
                                                              DataLoaderOptions(5).workers(1));
  auto it = loader->begin();
  EXPECT_ERROR_WITH(*it, "cannot decode example 4");
}

// get_batch blocks until the test opens the gate.
struct Gate {
  std::mutex m;
  std::condition_variable cv;
  bool open = false;
  std::atomic<int> waiting{0};
  void wait() {
    std::unique_lock<std::mutex> lock(m);
    ++waiting;
    cv.wait(lock, [this] { return open; });
  }
  void release() {
    {
      std::lock_guard<std::mutex> lock(m);
      open = true;
    }
    cv.notify_all();
  }
};
struct Gated : datasets::Dataset<Gated> {
  explicit Gated(std::shared_ptr<Gate> g) : gate(std::move(g)) {}
  Example<> get(size_t i) override {
    gate->wait();
    return {torch::zeros({1}), torch::tensor(int64_t(i))};
  }
  std::optional<size_t> size() const override { return 6; }
  std::shared_ptr<Gate> gate;
};

TEST(TorchDataLoader, TimeoutRaisesInsteadOfHanging) {
  auto gate = std::make_shared<Gate>();
  auto loader = make_data_loader<samplers::SequentialSampler>(
      Gated(gate).map(transforms::Stack<>()), DataLoaderOptions(2).workers(2).timeout(std::chrono::milliseconds(30)));
  auto it = loader->begin();
  EXPECT_ERROR_WITH(*it, "timed out after 30 ms waiting for batch 0");
  // Once the data comes, the same iterator goes on.
  gate->release();
  EXPECT_EQ(targets_of(*it), (std::vector<int64_t>{0, 1}));
  std::vector<std::vector<int64_t>> rest;
  for (++it; it != loader->end(); ++it) rest.push_back(targets_of(*it));
  EXPECT_EQ(rest, (std::vector<std::vector<int64_t>>{{2, 3}, {4, 5}}));
}

TEST(TorchDataLoader, DestroyingMidEpochDoesNotHang) {
  {
    // Idle workers blocked on the job queue, never used.
    auto loader = make_data_loader(Slow(10).map(transforms::Stack<>()), DataLoaderOptions(2).workers(3));
  }
  {
    // One batch taken, max_jobs more queued or running.
    auto loader = make_data_loader(Slow(1000, true).map(transforms::Stack<>()), DataLoaderOptions(2).workers(2));
    auto it = loader->begin();
    EXPECT_EQ(targets_of(*it).size(), 2u);
  }
  {
    // Workers blocked inside get_batch when destruction starts: it waits only for those
    // calls, which a helper thread lets finish.
    auto gate = std::make_shared<Gate>();
    auto loader = make_data_loader<samplers::SequentialSampler>(Gated(gate).map(transforms::Stack<>()),
                                                                DataLoaderOptions(1).workers(2));
    auto it = loader->begin();
    while (gate->waiting.load() < 2) std::this_thread::yield();
    std::thread opener([gate] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      gate->release();
    });
    loader.reset();
    opener.join();
  }
  SUCCEED();
}

TEST(TorchDataLoader, BeginMidEpochStartsOver) {
  for (size_t workers : {0, 2}) {
    auto loader = make_data_loader<samplers::SequentialSampler>(Slow(10, true).map(transforms::Stack<>()),
                                                                DataLoaderOptions(3).workers(workers));
    auto it = loader->begin();
    EXPECT_EQ(targets_of(*it), (std::vector<int64_t>{0, 1, 2}));
    ++it;
    EXPECT_EQ(targets_of(*it), (std::vector<int64_t>{3, 4, 5}));
    EXPECT_EQ(epoch(*loader), kTenByThree) << workers << " workers";
  }
}

TEST(TorchDataLoader, IteratorMisuseIsAnError) {
  auto loader = make_data_loader<samplers::SequentialSampler>(Slow(2).map(transforms::Stack<>()), 2);
  auto it = loader->begin();
  ++it;
  EXPECT_TRUE(it == loader->end());
  EXPECT_ERROR_WITH(*it, "past the end");
  EXPECT_ERROR_WITH(++it, "past the end");
  auto end = loader->end();
  EXPECT_ERROR_WITH(*end, "end() iterator");
  // Copies share one position; two distinct live iterators are not equal.
  auto a = loader->begin();
  auto b = a;
  EXPECT_TRUE(a == b);
  EXPECT_FALSE(a == loader->begin());
}

TEST(TorchDataLoader, BadOptions) {
  EXPECT_ERROR_WITH(make_data_loader(Slow(4), DataLoaderOptions(0)), "batch_size must be positive, got 0");
  EXPECT_ERROR_WITH(make_data_loader(Slow(4), DataLoaderOptions(2).workers(2).max_jobs(0)),
                    "max_jobs must be positive");
  auto loader = make_data_loader(Slow(4), DataLoaderOptions(2).workers(1));
  loader->join();
  loader->join();  // twice is fine
  EXPECT_ERROR_WITH(loader->begin(), "begin() after join()");
}

// Not copyable: fine without workers, a clear error with them.
struct MoveOnly : datasets::Dataset<MoveOnly> {
  MoveOnly() = default;
  MoveOnly(MoveOnly&&) = default;
  MoveOnly(const MoveOnly&) = delete;
  Example<> get(size_t i) override { return {torch::zeros({1}), torch::tensor(int64_t(i))}; }
  std::optional<size_t> size() const override { return 3; }
  std::unique_ptr<int> owned = std::make_unique<int>(1);
};

TEST(TorchDataLoader, MoveOnlyDatasets) {
  auto loader = make_data_loader<samplers::SequentialSampler>(MoveOnly(), 2);
  std::vector<size_t> sizes;
  for (auto& b : *loader) sizes.push_back(b.size());
  EXPECT_EQ(sizes, (std::vector<size_t>{2, 1}));
  EXPECT_ERROR_WITH(make_data_loader(MoveOnly(), DataLoaderOptions(2).workers(2)), "cannot be copied");
}

// A counter that yields batch_size examples until `limit` (a StatefulDataset).
struct Counter : datasets::StatefulDataset<Counter, std::vector<int64_t>, size_t> {
  explicit Counter(int64_t limit) : limit(limit) {}
  std::optional<std::vector<int64_t>> get_batch(size_t n) override {
    std::lock_guard<std::mutex> lock(*m);
    if (next >= limit) return std::nullopt;
    std::vector<int64_t> b;
    for (size_t i = 0; i < n && next < limit; ++i) b.push_back(next++);
    return b;
  }
  std::optional<size_t> size() const override { return std::nullopt; }
  void reset() override {
    next = 0;
    ++resets;
  }
  void save(torch::serialize::OutputArchive& archive) const override {
    archive.write("next", torch::tensor(next));
  }
  void load(torch::serialize::InputArchive& archive) override {
    torch::Tensor t;
    archive.read("next", t);
    next = t.item<int64_t>();
  }
  int64_t limit, next = 0;
  int resets = 0;
  std::shared_ptr<std::mutex> m = std::make_shared<std::mutex>();
};

TEST(TorchDataLoader, StatefulDatasetUntilExhausted) {
  static_assert(Counter::is_stateful);
  for (size_t workers : {0, 3}) {
    auto loader = make_data_loader(Counter(10), DataLoaderOptions(4).workers(workers));
    for (int e = 0; e < 2; ++e) {
      std::vector<int64_t> all;
      for (std::vector<int64_t>& b : *loader) {
        EXPECT_LE(b.size(), 4u);
        all.insert(all.end(), b.begin(), b.end());
      }
      std::sort(all.begin(), all.end());
      std::vector<int64_t> iota(10);
      std::iota(iota.begin(), iota.end(), 0);
      EXPECT_EQ(all, iota) << workers << " workers, epoch " << e;
    }
  }
  // A mapped stateful dataset stays stateful.
  auto mapped = Counter(5).map(transforms::BatchLambda<std::vector<int64_t>, int64_t>([](std::vector<int64_t> b) {
    return int64_t(b.size());
  }));
  static_assert(decltype(mapped)::is_stateful);
  auto loader = make_data_loader(std::move(mapped), DataLoaderOptions(2));
  std::vector<int64_t> sizes;
  for (int64_t s : *loader) sizes.push_back(s);
  EXPECT_EQ(sizes, (std::vector<int64_t>{2, 2, 1}));
}

// A stream: get_batch(n) returns n examples continuing a counter.
struct Stream : datasets::StreamDataset<Stream, std::vector<int64_t>> {
  std::vector<int64_t> get_batch(size_t n) override {
    std::vector<int64_t> b(n);
    std::iota(b.begin(), b.end(), next);
    next += int64_t(n);
    return b;
  }
  std::optional<size_t> size() const override { return std::nullopt; }
  int64_t next = 0;
};

TEST(TorchDataLoader, StreamDatasetWithStreamSampler) {
  auto loader = make_data_loader(Stream(), samplers::StreamSampler(/*epoch_size=*/7), DataLoaderOptions(3));
  std::vector<size_t> sizes;
  for (auto& b : *loader) sizes.push_back(b.size());
  EXPECT_EQ(sizes, (std::vector<size_t>{3, 3, 1}));
}

struct Unsized : Slow {
  Unsized() : Slow(4) {}
  std::optional<size_t> size() const override { return std::nullopt; }
};

TEST(TorchDataLoader, DefaultSamplerNeedsASize) {
  EXPECT_ERROR_WITH(make_data_loader(Unsized(), DataLoaderOptions(3)), "expected the dataset to have a size");
}

TEST(TorchDataLoader, TensorDatasetThroughTheLoader) {
  auto data = torch::arange(20, torch::kFloat).view({10, 2});
  auto loader = make_data_loader<samplers::SequentialSampler>(
      datasets::TensorDataset(data).map(transforms::Stack<TensorExample>()), DataLoaderOptions(4).workers(2));
  std::vector<torch::Tensor> parts;
  for (TensorExample& b : *loader) parts.push_back(b.data);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_TENSOR_EQ(torch::cat(parts), data);
}

// make_data_loader only takes datasets: other types are left to other overloads.
template <typename T>
concept Loadable = requires(T t) { make_data_loader(std::move(t), DataLoaderOptions()); };
static_assert(Loadable<Slow>);
static_assert(!Loadable<int>);
static_assert(!Loadable<std::vector<int>>);
static_assert(!Loadable<samplers::SequentialSampler>);
static_assert(!Loadable<Stream>);  // its requests are sizes, not a RandomSampler's indices

}  // namespace
