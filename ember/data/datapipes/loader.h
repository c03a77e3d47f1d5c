// Loading from DataPipes: DataLoader2 with reading services (TorchData), and
// make_data_loader for DataPipes (the release's "DataPipes are backward compatible with
// DataLoader").
//
//   auto pipe = FileLister("data", "*.csv").sharding_filter().open_files().parse_csv()
//                   .map(parse).shuffle().batch(64).collate();
//   DataLoader2 loader(pipe, std::make_shared<MultiProcessingReadingService>(2));
//   for (auto& batch : loader) ...
//
// Reading services decide where the graph runs: InProcessReadingService in the caller's
// thread; MultiProcessingReadingService in worker threads, each with its own sharded copy
// of the graph; DistributedReadingService shards across the ranks of a job and ends every
// rank's epoch at the same step; SequentialReadingService combines them. Every worker and
// rank of a run sees a different shard, so each element appears exactly once per epoch; a
// graph without sharding_filter is an error with more than one worker or rank.
#pragma once
#include <memory>

#include "ember/data/dataloader.h"
#include "ember/data/dataloader_options.h"
#include "ember/data/datapipes/distributed.h"
#include "ember/data/datapipes/map.h"
#include "ember/data/datapipes/runner.h"

namespace ember::data {

class ReadingServiceInterface {
 public:
  virtual ~ReadingServiceInterface() = default;
  // Sets how the graph runs (workers, prefetching, ranks).
  virtual void configure(datapipes::RunnerOptions& options) = 0;
};

class InProcessReadingService : public ReadingServiceInterface {
 public:
  void configure(datapipes::RunnerOptions& options) override { options.num_workers = 0; }
};

// Workers, each running its own copy of the graph, as threads (the default: user functions
// must be thread-safe; they run one per worker, never concurrently on one copy) or, with
// worker_processes, as forked processes that isolate code which is not thread-safe or may
// crash (elements are sent back encoded by Wire<T>; a crashed worker is a clear error).
// Elements come in a deterministic round-robin order unless in_order is false.
class MultiProcessingReadingService : public ReadingServiceInterface {
 public:
  explicit MultiProcessingReadingService(int64_t num_workers = 0, int64_t worker_prefetch_cnt = 2,
                                         std::function<void(int64_t, int64_t)> worker_init_fn = nullptr,
                                         bool in_order = true,
                                         std::optional<std::chrono::milliseconds> timeout = std::nullopt,
                                         bool worker_processes = false)
      : num_workers_(num_workers), prefetch_(worker_prefetch_cnt), init_(std::move(worker_init_fn)),
        in_order_(in_order), timeout_(timeout), processes_(worker_processes) {
    EMBER_CHECK(num_workers >= 0, "MultiProcessingReadingService: num_workers must be >= 0, got ", num_workers);
    EMBER_CHECK(worker_prefetch_cnt >= 1, "MultiProcessingReadingService: worker_prefetch_cnt must be >= 1, got ",
                worker_prefetch_cnt);
  }
  void configure(datapipes::RunnerOptions& options) override {
    options.num_workers = num_workers_;
    options.prefetch = prefetch_;
    options.worker_init = init_;
    options.ordered = in_order_;
    options.timeout = timeout_;
    options.processes = processes_;
  }

 private:
  int64_t num_workers_, prefetch_;
  std::function<void(int64_t, int64_t)> init_;
  bool in_order_;
  std::optional<std::chrono::milliseconds> timeout_;
  bool processes_;
};

// Shards the graph across the ranks of a distributed job and keeps them in step: every
// rank uses rank 0's seed (so shuffles upstream of sharding_filter agree), and when shards
// are uneven all ranks end the epoch at the step where the first one ran out (the extra
// elements of the others are dropped, as TorchData's fullsync does), so none waits forever
// for the others in a collective. Ranks agree through a Store: by default the TCPStore of
// torchrun's environment (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE).
class DistributedReadingService : public ReadingServiceInterface {
 public:
  DistributedReadingService() : DistributedReadingService(datapipes::StoreRankSync::from_env()) {}
  DistributedReadingService(std::shared_ptr<distributed::Store> store, int64_t rank, int64_t world_size)
      : DistributedReadingService(std::make_shared<datapipes::StoreRankSync>(std::move(store), rank, world_size)) {}
  explicit DistributedReadingService(std::shared_ptr<datapipes::RankSync> sync) : sync_(std::move(sync)) {
    EMBER_CHECK(sync_, "DistributedReadingService: null rank group");
  }
  void configure(datapipes::RunnerOptions& options) override { options.sync = sync_; }
  const std::shared_ptr<datapipes::RankSync>& rank_sync() const { return sync_; }

 private:
  std::shared_ptr<datapipes::RankSync> sync_;
};

// Applies several reading services in order (e.g. distributed, then multiprocessing).
class SequentialReadingService : public ReadingServiceInterface {
 public:
  explicit SequentialReadingService(std::vector<std::shared_ptr<ReadingServiceInterface>> services)
      : services_(std::move(services)) {
    for (auto& s : services_) EMBER_CHECK(s, "SequentialReadingService: null reading service");
  }
  void configure(datapipes::RunnerOptions& options) override {
    for (auto& s : services_) s->configure(options);
  }

 private:
  std::vector<std::shared_ptr<ReadingServiceInterface>> services_;
};

template <class T>
class DataLoader2 {
 public:
  explicit DataLoader2(datapipes::IterDataPipe<T> pipe, std::shared_ptr<ReadingServiceInterface> reading_service = nullptr) {
    datapipes::RunnerOptions options;
    if (reading_service) reading_service->configure(options);
    runner_ = std::make_unique<datapipes::PipeRunner<T>>(std::move(pipe), std::move(options));
  }

  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = T*;
    using reference = T&;
    iterator() = default;
    T& operator*() {
      check();
      return *cur_;
    }
    T* operator->() { return &**this; }
    iterator& operator++() {
      check();
      cur_ = loader_->runner_->next();
      return *this;
    }
    void operator++(int) { ++*this; }
    friend bool operator==(const iterator& a, const iterator& b) { return !a.cur_ && !b.cur_; }

   private:
    friend class DataLoader2;
    void check() const {
      EMBER_CHECK(cur_, "DataLoader2: dereferencing an iterator at the end");
      EMBER_CHECK(loader_->generation_ == generation_,
                  "DataLoader2: this iterator was invalidated by a newer begin() (which starts a new epoch) or by "
                  "shutdown()");
    }
    DataLoader2* loader_ = nullptr;
    uint64_t generation_ = 0;
    std::optional<T> cur_;
  };

  // Starts the next epoch, or resumes the state given to load_state_dict.
  iterator begin() {
    if (resume_) {
      runner_->resume(*resume_);
      epoch_ = resume_->find("epoch")->as_int("epoch");
      resume_.reset();
    } else {
      ++epoch_;
      runner_->start(epoch_, seed_ ? datapipes::mix_seed(*seed_, uint64_t(epoch_)) : datapipes::draw_seed());
    }
    iterator it;
    it.loader_ = this;
    it.generation_ = ++generation_;
    it.cur_ = runner_->next();
    return it;
  }
  iterator end() { return iterator(); }

  // Fixes the seeds of every later epoch (epoch e uses a mix of `seed` and e); without it,
  // each epoch draws its seed from ember's default generator.
  void seed(uint64_t seed) { seed_ = seed; }
  // Stops the workers; the next begin() starts them again. Iterators of the stopped epoch
  // become invalid (a clear error, never a wait for workers that are gone).
  void shutdown() {
    runner_->shutdown();
    ++generation_;
  }
  // The position in the current epoch: loading it makes the next begin() continue after the
  // last element taken, with the same remaining elements in the same order.
  json::Value state_dict() const {
    if (resume_) return *resume_;
    EMBER_CHECK(epoch_ >= 0, "DataLoader2::state_dict: no epoch has started");
    return runner_->state();
  }
  void load_state_dict(const json::Value& state) {
    EMBER_CHECK(state.is_object() && state.find("epoch") && state.find("epoch")->is_int(),
                "DataLoader2::load_state_dict: not a DataLoader2 state: ", json::dump(state));
    resume_ = state;
  }

 private:
  std::unique_ptr<datapipes::PipeRunner<T>> runner_;
  int64_t epoch_ = -1;
  uint64_t generation_ = 0;
  std::optional<uint64_t> seed_;
  std::optional<json::Value> resume_;
};

template <class T>
DataLoader2(datapipes::IterDataPipe<T>, std::shared_ptr<ReadingServiceInterface> = nullptr) -> DataLoader2<T>;

// make_data_loader over an IterDataPipe: batches of `batch_size` elements (std::vector<T>,
// like LibTorch's loaders without a Stack transform), built in each worker from its shard
// (PyTorch's rule for iterable datasets: a worker's last batch may be short unless
// drop_last). workers, max_jobs (prefetched batches, split over the workers), timeout and
// enforce_ordering apply as for datasets. In a distributed job, pass the rank group (e.g.
// datapipes::StoreRankSync::from_env()) to shard across ranks as well, as PyTorch's
// DataLoader does once a process group is initialized.
template <class T>
std::unique_ptr<DataLoader2<std::vector<T>>> make_data_loader(datapipes::IterDataPipe<T> pipe,
                                                             DataLoaderOptions options = {},
                                                             std::shared_ptr<datapipes::RankSync> ranks = nullptr) {
  FullDataLoaderOptions o(options);
  EMBER_CHECK(o.batch_size > 0, "make_data_loader: batch_size must be positive, got 0");
  int64_t workers = int64_t(o.workers);
  int64_t prefetch = workers ? std::max<int64_t>(1, int64_t(o.max_jobs) / workers) : 1;
  std::shared_ptr<ReadingServiceInterface> rs =
      std::make_shared<MultiProcessingReadingService>(workers, prefetch, nullptr, o.enforce_ordering, o.timeout);
  if (ranks)
    rs = std::make_shared<SequentialReadingService>(std::vector<std::shared_ptr<ReadingServiceInterface>>{
        std::make_shared<DistributedReadingService>(std::move(ranks)), rs});
  return std::make_unique<DataLoader2<std::vector<T>>>(pipe.batch(int64_t(o.batch_size), o.drop_last), rs);
}

namespace datapipes {
// A map-style pipe seen as a LibTorch dataset (samplers choose the indices).
template <class T>
class MapPipeDataset : public datasets::Dataset<MapPipeDataset<T>, T> {
 public:
  explicit MapPipeDataset(MapDataPipe<T> pipe) : pipe_(std::move(pipe)) {}
  T get(size_t index) override { return pipe_.get(int64_t(index)); }
  std::optional<size_t> size() const override { return size_t(pipe_.size()); }

 private:
  MapDataPipe<T> pipe_;
};
}  // namespace datapipes

// make_data_loader over a MapDataPipe: LibTorch's loader with a sampler over its indices
// (RandomSampler by default), batches of std::vector<T>.
template <class Sampler = samplers::RandomSampler, class T>
auto make_data_loader(datapipes::MapDataPipe<T, int64_t> pipe, DataLoaderOptions options = {}) {
  return make_data_loader<Sampler>(datapipes::MapPipeDataset<T>(std::move(pipe)), options);
}
template <class Sampler, class T>
auto make_data_loader(datapipes::MapDataPipe<T, int64_t> pipe, Sampler sampler, DataLoaderOptions options) {
  return make_data_loader(datapipes::MapPipeDataset<T>(std::move(pipe)), std::move(sampler), options);
}

}  // namespace ember::data
