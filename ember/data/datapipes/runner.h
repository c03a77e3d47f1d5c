// Runs an IterDataPipe graph for a loader: in the calling thread, or in worker threads that
// each own a sharded, seeded copy of the graph. Shared by make_data_loader (for pipes) and
// DataLoader2's reading services.
//
// Determinism: with `ordered`, elements come round-robin from the workers (worker 0's
// first, worker 1's first, ..., skipping workers that ended), so results never depend on
// thread timing. Checkpoints record the epoch's base seed, how many elements were taken
// from each worker and whose turn is next; resuming rebuilds the workers' graphs with the
// same seeds and fast-forwards each past what was taken.
#pragma once
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <typeinfo>

#include "ember/data/datapipes/datapipe.h"
#include "ember/data/datapipes/wire.h"

namespace ember::data::datapipes {

// Agreement between ranks of a distributed job (DistributedReadingService provides one).
class RankSync {
 public:
  virtual ~RankSync() = default;
  virtual int64_t rank() const = 0;
  virtual int64_t world_size() const = 0;
  // Rank 0's value for this epoch, on every rank.
  virtual uint64_t broadcast_seed(int64_t epoch, uint64_t seed) = 0;
  // Whether every rank has an element for step `step` of `epoch` (all ranks call it once
  // per step, in order): ranks stop together when the first of them runs out.
  virtual bool all_have(int64_t epoch, int64_t step, bool mine) = 0;
};

struct RunnerOptions {
  int64_t num_workers = 0;    // 0: run in the calling thread
  int64_t prefetch = 2;       // elements each worker may hold ready
  bool ordered = true;
  std::optional<std::chrono::milliseconds> timeout;
  std::function<void(int64_t worker_id, int64_t num_workers)> worker_init;
  std::shared_ptr<RankSync> sync;  // distributed: shard across ranks, end epochs together
  // Run each worker's graph in a forked process instead of a thread: user code that is not
  // thread-safe, or may crash, cannot take the loader down (a crash is a clear error).
  // Elements travel through a pipe, encoded by Wire<T> (wire.h).
  bool processes = false;
};

namespace detail {
[[noreturn]] void rethrow_worker(int64_t worker, std::exception_ptr error);
[[noreturn]] void worker_timeout(int64_t worker, std::chrono::milliseconds timeout);
void check_sharded(int64_t found, int64_t instances, const char* root);
uint64_t parse_seed(const json::Value& v);

// Worker processes: fork one running `body(fd)` (it writes frames to fd, then the child
// exits without running any destructor of the parent's objects).
struct ChildProcess {
  int pid = -1;
  int fd = -1;
};
ChildProcess spawn_worker(const std::function<void(int fd)>& body);
// Frames: kind ('I' item, 'E' end, 'X' error message) + length + bytes.
void write_frame(int fd, char kind, const std::string& bytes);
bool read_frame(int fd, char& kind, std::string& bytes);  // false at end of file
// Waits for the child and describes how it ended ("was killed by signal 11 (...)").
std::string reap_worker(int pid);
void kill_worker(int pid);
void close_fd(int fd);
[[noreturn]] void no_wire(const char* type);
}  // namespace detail

template <class T>
class PipeRunner {
 public:
  PipeRunner(IterDataPipe<T> pipe, RunnerOptions opts) : pipe_(std::move(pipe)), opts_(std::move(opts)) {
    EMBER_CHECK(pipe_.defined(), "DataLoader: empty pipe");
    EMBER_CHECK(opts_.num_workers >= 0, "DataLoader: num_workers must be >= 0, got ", opts_.num_workers);
    EMBER_CHECK(opts_.prefetch >= 1, "DataLoader: prefetch count must be >= 1, got ", opts_.prefetch);
    if constexpr (!wire_supported<T>) {
      if (opts_.processes && opts_.num_workers > 0) detail::no_wire(typeid(T).name());
    }
  }
  PipeRunner(const PipeRunner&) = delete;
  PipeRunner& operator=(const PipeRunner&) = delete;
  ~PipeRunner() { shutdown(); }

  const RunnerOptions& options() const { return opts_; }

  // Starts epoch `epoch` with `seed` (on rank 0; other ranks take rank 0's). `skip` and
  // `turn` resume a checkpoint.
  void start(int64_t epoch, uint64_t seed, std::vector<int64_t> skip = {}, int64_t turn = 0, int64_t step = 0) {
    shutdown();
    epoch_ = epoch;
    if (opts_.sync) seed = opts_.sync->broadcast_seed(epoch, seed);
    seed_ = seed;
    int64_t w = std::max<int64_t>(1, opts_.num_workers);
    int64_t rank = opts_.sync ? opts_.sync->rank() : 0, world = opts_.sync ? opts_.sync->world_size() : 1;
    // Each worker's copy of the graph is made once and kept across epochs (so that, e.g.,
    // in_memory_cache fills once per worker); every epoch reseeds it.
    if (int64_t(graphs_.size()) != w) {
      graphs_.clear();
      for (int64_t i = 0; i < w; ++i) {
        auto g = clone_graph(pipe_.node());
        int64_t instances = world * w, instance = rank * w + i;
        if (instances > 1) detail::check_sharded(apply_sharding(*g, instances, instance), instances, g->name());
        graphs_.push_back(std::move(g));
      }
    }
    for (int64_t i = 0; i < w; ++i) seed_graph(*graphs_[size_t(i)], seed, rank * w + i);
    skip.resize(size_t(w), 0);
    taken_ = skip;
    turn_ = turn % w;
    step_ = step;
    live_.assign(size_t(w), true);
    queues_.assign(size_t(w), {});
    pids_.assign(size_t(w), -1);
    ended_ = false;
    stop_ = false;
    if (opts_.num_workers == 0) {
      if (opts_.worker_init) opts_.worker_init(0, 1);
      start_epoch(*graphs_[0]);
      fast_forward(*graphs_[0], skip[0]);
    } else {
      // Worker processes are all forked here, on this thread, before any thread of this loader
      // runs: a fork while another thread holds a lock of an allocator leaves the child a lock
      // nobody releases. (glibc's malloc and ember's allocators take theirs around fork; the
      // runtime of GCC 12's AddressSanitizer does not, and forked workers hung under it when
      // each reader thread forked its own worker while the others were decoding.)
      std::vector<detail::ChildProcess> children(static_cast<size_t>(w));
      std::vector<std::exception_ptr> fork_errors(static_cast<size_t>(w));
      if constexpr (wire_supported<T>) {
        if (opts_.processes)
          for (int64_t i = 0; i < w; ++i) {
            try {
              children[size_t(i)] = fork_worker(i, skip[size_t(i)]);
              pids_[size_t(i)] = children[size_t(i)].pid;
            } catch (...) {  // fork/pipe failed: that worker's reader reports it
              fork_errors[size_t(i)] = std::current_exception();
            }
          }
      }
      for (int64_t i = 0; i < w; ++i)
        threads_.emplace_back([this, i, n = skip[size_t(i)], child = children[size_t(i)], err = fork_errors[size_t(i)]] {
          work(i, n, child, err);
        });
    }
    started_ = true;
  }

  // The next element of the epoch, or nullopt at its end.
  std::optional<T> next() {
    EMBER_CHECK(started_, "DataLoader: next() before the epoch started");
    if (ended_) return std::nullopt;
    std::optional<T> x = opts_.num_workers == 0 ? in_process() : from_workers();
    if (opts_.sync && !opts_.sync->all_have(epoch_, step_, x.has_value())) x.reset();
    ++step_;
    if (!x) {
      ended_ = true;
      shutdown();
    }
    return x;
  }

  // {"epoch", "seed", "taken" per worker, "turn", "step", "ended"}: see the top of the file.
  json::Value state() const {
    json::Array taken;
    for (int64_t t : taken_) taken.push_back(t);
    return json::Object{{"epoch", epoch_},       {"seed", std::to_string(seed_)}, {"taken", std::move(taken)},
                        {"turn", int64_t(turn_)}, {"step", step_},                 {"ended", ended_}};
  }
  // Restarts from a state() of a runner over the same graph and options.
  void resume(const json::Value& s) {
    EMBER_CHECK(s.is_object() && s.find("taken") && s.find("seed") && s.find("turn") && s.find("epoch"),
                "DataLoader::load_state_dict: not a loader state: ", json::dump(s));
    std::vector<int64_t> skip;
    for (const auto& t : s.find("taken")->as_array("taken")) {
      skip.push_back(t.as_int("taken"));
      EMBER_CHECK(skip.back() >= 0, "DataLoader::load_state_dict: negative 'taken' in ", json::dump(s));
    }
    EMBER_CHECK(s.find("turn")->as_int("turn") >= 0, "DataLoader::load_state_dict: negative 'turn' in ",
                json::dump(s));
    int64_t w = std::max<int64_t>(1, opts_.num_workers);
    EMBER_CHECK(int64_t(skip.size()) == w, "DataLoader::load_state_dict: the state has ", skip.size(),
                " workers, this loader ", w, " (resume with the same number of workers)");
    const json::Value* step = s.find("step");
    start(s.find("epoch")->as_int("epoch"), detail::parse_seed(*s.find("seed")), skip, s.find("turn")->as_int("turn"),
          step ? step->as_int("step") : 0);
    if (const json::Value* e = s.find("ended"); e && e->as_bool("ended")) {
      ended_ = true;
      shutdown();
    }
  }

  // Stops the workers (each finishes the element it is producing) and joins them.
  void shutdown() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
      for (int pid : pids_)
        if (pid > 0) detail::kill_worker(pid);
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

 private:
  struct Slot {
    std::optional<T> value;
    std::exception_ptr error;  // set with no value: the worker failed
  };

  static void fast_forward(IterNode<T>& g, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      EMBER_CHECK(g.next(), "DataLoader: resuming needs ", n, " elements from a worker's pipe but it ended after ",
                  i, " (is the source or a user function non-deterministic?)");
  }

  std::optional<T> in_process() {
    auto x = graphs_[0]->next();
    if (x) ++taken_[0];
    return x;
  }

  // Worker i's thread: runs the worker's graph, or (worker processes) reads the child forked
  // for it by start(), or reports why that fork failed.
  void work(int64_t i, int64_t skip, detail::ChildProcess child, std::exception_ptr fork_error) {
    if constexpr (wire_supported<T>) {
      if (opts_.processes) {
        try {
          if (fork_error) std::rethrow_exception(fork_error);
          process_read(i, child);
        } catch (...) {  // the caller gets the error, not std::terminate
          std::lock_guard<std::mutex> lock(m_);
          queues_[size_t(i)].push_back(Slot{std::nullopt, std::current_exception()});
        }
        cv_.notify_all();
        return;
      }
    }
    auto& g = *graphs_[size_t(i)];
    try {
      if (opts_.worker_init) opts_.worker_init(i, opts_.num_workers);
      start_epoch(g);
      fast_forward(g, skip);
      for (;;) {
        auto x = g.next();
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return stop_ || int64_t(queues_[size_t(i)].size()) < opts_.prefetch; });
        if (stop_) return;
        queues_[size_t(i)].push_back(Slot{std::move(x), nullptr});
        bool done = !queues_[size_t(i)].back().value;
        lock.unlock();
        cv_.notify_all();
        if (done) break;
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(m_);
      queues_[size_t(i)].push_back(Slot{std::nullopt, std::current_exception()});
      cv_.notify_all();
    }
    cv_.notify_all();
  }

  // Forks worker i's process: it runs the graph and sends its elements through a pipe.
  detail::ChildProcess fork_worker(int64_t i, int64_t skip) {
    auto& g = *graphs_[size_t(i)];
    auto init = opts_.worker_init;
    int64_t n = opts_.num_workers;
    return detail::spawn_worker([&g, init, i, n, skip](int fd) {
      try {
        if (init) init(i, n);
        start_epoch(g);
        fast_forward(g, skip);
        std::string buf;
        while (auto x = g.next()) {
          buf.clear();
          Wire<T>::encode(*x, buf);
          detail::write_frame(fd, 'I', buf);
        }
        detail::write_frame(fd, 'E', {});
      } catch (const std::exception& e) {
        detail::write_frame(fd, 'X', e.what());
      }
    });
  }

  // Reads worker i's process through its pipe into the same queue a thread would fill.
  void process_read(int64_t i, detail::ChildProcess child) {
    std::string buf;
    for (;;) {
      Slot slot;
      char kind = 0;
      bool last = true;
      try {
        if (!detail::read_frame(child.fd, kind, buf)) {
          int pid;
          {
            std::lock_guard<std::mutex> lock(m_);
            pid = pids_[size_t(i)];
            pids_[size_t(i)] = -1;
            if (stop_) {
              detail::close_fd(child.fd);
              if (pid > 0) detail::reap_worker(pid);
              return;
            }
          }
          EMBER_CHECK(false, "worker process ", i, " ended without finishing its epoch: it ", detail::reap_worker(pid));
        }
        if (kind == 'I') {
          WireReader r(buf.data(), buf.data() + buf.size());
          slot.value = Wire<T>::decode(r);
          EMBER_CHECK(r.done(), "worker process ", i, ": an element had trailing bytes");
          last = false;
        } else if (kind == 'X') {
          EMBER_CHECK(false, buf);
        }
      } catch (...) {
        slot.error = std::current_exception();
      }
      std::unique_lock<std::mutex> lock(m_);
      cv_.wait(lock, [&] { return stop_ || int64_t(queues_[size_t(i)].size()) < opts_.prefetch; });
      if (stop_) break;
      queues_[size_t(i)].push_back(std::move(slot));
      lock.unlock();
      cv_.notify_all();
      if (last) break;
    }
    detail::close_fd(child.fd);
    int pid;
    {
      std::lock_guard<std::mutex> lock(m_);
      pid = pids_[size_t(i)];
      pids_[size_t(i)] = -1;
    }
    if (pid > 0) {
      detail::kill_worker(pid);
      detail::reap_worker(pid);
    }
  }

  std::optional<T> from_workers() {
    const int64_t w = opts_.num_workers;
    std::unique_lock<std::mutex> lock(m_);
    for (;;) {
      int64_t alive = 0;
      for (bool l : live_) alive += l;
      if (alive == 0) return std::nullopt;
      // Whose element is next: in order, the worker whose turn it is; otherwise any ready one.
      int64_t pick = -1;
      if (opts_.ordered) {
        while (!live_[size_t(turn_)]) turn_ = (turn_ + 1) % w;
        pick = turn_;
        if (!wait_for(lock, [&] { return !queues_[size_t(pick)].empty(); })) detail::worker_timeout(pick, *opts_.timeout);
      } else {
        auto ready = [&] {
          for (int64_t k = 0; k < w; ++k) {
            int64_t c = (turn_ + k) % w;
            if (live_[size_t(c)] && !queues_[size_t(c)].empty()) return pick = c, true;
          }
          return false;
        };
        if (!wait_for(lock, ready)) detail::worker_timeout(-1, *opts_.timeout);
      }
      Slot slot = std::move(queues_[size_t(pick)].front());
      queues_[size_t(pick)].pop_front();
      lock.unlock();
      cv_.notify_all();
      if (slot.error) {
        ended_ = true;
        shutdown();
        detail::rethrow_worker(pick, slot.error);
      }
      lock.lock();
      if (!slot.value) {
        live_[size_t(pick)] = false;
        continue;
      }
      ++taken_[size_t(pick)];
      turn_ = (pick + 1) % w;
      return std::move(slot.value);
    }
  }

  template <class Pred>
  bool wait_for(std::unique_lock<std::mutex>& lock, Pred pred) {
    if (!opts_.timeout) {
      cv_.wait(lock, pred);
      return true;
    }
    return cv_.wait_for(lock, *opts_.timeout, pred);
  }

  IterDataPipe<T> pipe_;
  RunnerOptions opts_;
  std::vector<std::shared_ptr<IterNode<T>>> graphs_;
  std::vector<std::thread> threads_;
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<std::deque<Slot>> queues_;
  std::vector<int> pids_;  // worker processes still running
  std::vector<bool> live_;
  std::vector<int64_t> taken_;
  int64_t turn_ = 0, epoch_ = 0, step_ = 0;
  uint64_t seed_ = 0;
  bool stop_ = false, ended_ = false, started_ = false;
};

}  // namespace ember::data::datapipes
