// DataPipes: typed, composable iterator graphs with TorchData's functional names.
//
// An `IterDataPipe<T>` is a cheap handle (a shared pointer) to an `IterNode<T>`, one node of
// a graph whose edges point upstream: `FileLister(root).open_files().parse_csv().shuffle()
// .batch(64)` is five nodes, each holding the one before it. Nodes are pulled: `next()`
// returns the next element or nullopt at the end of the epoch.
//
// Epochs, iterators and invalidation. `begin()` on a pipe starts a new epoch of the whole
// graph below it: every node is stopped (background threads joined), then reset, then
// stamped with a fresh token. A node only pulls from a child carrying its own token, so
// when a second `begin()` (on this pipe, or on another pipe sharing part of the graph)
// restarts a node, the older iterator fails with a clear error on its next step instead
// of silently reading a shared, restarted stream (TorchData's "iterator invalidated" rule).
//
// Checkpoints by replay. A graph's state is the seed every random node used for the
// current epoch plus the number of elements the root has yielded. Loading a state makes the
// next `begin()` restart the epoch with the same seeds and skip that many elements, so the
// remaining elements come out exactly as they would have (for any graph whose user
// functions are deterministic). No element type needs to be serializable.
//
// Workers. Reading services (and make_data_loader) give each worker its own deep copy of
// the graph (`clone_graph`), then shard it (`apply_sharding` on every `sharding_filter`)
// and seed it (`seed_graph`: random nodes upstream of a sharding_filter get the same seed in
// every worker and rank, so all shards agree on the order before splitting; nodes
// downstream get a seed per worker).
//
// Writing a node: derive from `IterNodeImpl<Self, T>` (copyable, so `clone` works), hold
// children as `std::shared_ptr<IterNode<U>>`, list them in `children()`, rebind them in
// `rebind(CloneContext&)`, pull from them with `pull(*child)`, and put per-epoch state in
// `reset()`. Random nodes pass `true` to the NodeBase constructor (IterNodeImpl forwards
// constructor arguments) and take their generator's seed from `begin_epoch_seed()` in reset().
// Functional forms are member functions of IterDataPipe<T> (iter/functional.h defines them); pipes of
// other modules (files, S3, frame) add their functional names as member functions declared
// in the block marked "module pipes" below and defined in their own .cpp (they are
// constrained to the element type they accept).
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/json.h"

namespace ember::data::io {
class InputStream;
struct CsvOptions;
class CsvDictRow;
}  // namespace ember::data::io
namespace ember::data::s3 {
struct S3Options;
}
// ---- frame pipes (frame_pipes.h) ----
namespace ember::frame {
class DataFrame;
class DType;
class Value;
}  // namespace ember::frame
// ---- end frame pipes ----

namespace ember::data::datapipes {

class NodeBase;
template <class T> class IterNode;
template <class T> class IterDataPipe;
template <class T, class K> class MapNode;
template <class T, class K = int64_t> class MapDataPipe;

// Deep copies of a graph keep shared nodes shared (a fork's outputs, zip(a, a)).
class CloneContext {
 public:
  template <class N>
  std::shared_ptr<N> clone(const std::shared_ptr<N>& node);

 private:
  std::unordered_map<const NodeBase*, std::shared_ptr<NodeBase>> done_;
};

class NodeBase {
 public:
  virtual ~NodeBase() = default;
  // TorchData's class name ("Mapper", "Shuffler"): in errors and state checks.
  virtual const char* name() const = 0;
  // The nodes this one pulls from.
  virtual std::vector<NodeBase*> children() const { return {}; }
  // Forget the current epoch's progress (own state only; the graph walk reaches children).
  virtual void reset() {}
  // Stop background work (prefetch threads): called on every node before any reset.
  virtual void stop() {}
  // Whether several nodes of one graph may read this one. An iterable node is a single
  // stream: two readers would each get part of it, so the graph walk rejects that (use
  // fork()). Fork/demux buffers and map-style nodes (random access) are shareable.
  virtual bool shareable() const { return false; }
  // A deep copy of this node whose children are `ctx` copies of its children.
  virtual std::shared_ptr<NodeBase> clone(CloneContext& ctx) const = 0;

  // sharding_filter nodes keep element i when i % num_instances == instance_id.
  virtual bool is_sharding_filter() const { return false; }
  virtual void apply_sharding(int64_t num_instances, int64_t instance_id) {}

  // Random nodes (shuffle, in_batch_shuffle, ...): the seed for the next epoch, set by a
  // reading service; without one, the epoch draws a seed from ember's default generator
  // (so manual_seed makes runs repeat). `epoch_seed` is the seed the current epoch began
  // with (restarts inside an epoch, as under cycle(), derive theirs from it).
  bool is_random() const { return random_; }
  void set_seed(uint64_t seed) { next_seed_ = seed; }
  std::optional<uint64_t> epoch_seed() const { return epoch_seed_; }

  uint64_t token() const { return token_; }

 protected:
  explicit NodeBase(bool random = false) : random_(random) {}
  NodeBase(const NodeBase&) = default;
  // Random nodes call this from reset(): the seed for the epoch (or the restart) beginning.
  uint64_t begin_epoch_seed();
  [[noreturn]] void invalidated(const NodeBase& child) const;
  template <class U>
  std::optional<U> pull(IterNode<U>& child) {
    if (child.token() != token_) invalidated(child);
    return child.next();
  }

 private:
  template <class T> friend class IterDataPipe;
  friend void start_epoch(NodeBase& root);
  friend void restart_subgraph(NodeBase& node);
  uint64_t token_ = 0;
  bool random_ = false;
  bool restarting_ = false;
  uint64_t restarts_ = 0;
  uint64_t seed_ = 0;
  std::optional<uint64_t> next_seed_, epoch_seed_;
};

template <class T>
class IterNode : public NodeBase {
 public:
  using NodeBase::NodeBase;
  using value_type = T;
  // The next element of this epoch, or nullopt at its end.
  virtual std::optional<T> next() = 0;
};

template <class T, class K>
class MapNode : public NodeBase {
 public:
  using NodeBase::NodeBase;
  using value_type = T;
  using key_type = K;
  virtual T get(const K& key) = 0;
  virtual int64_t size() const = 0;
  // Keys in iteration order (0..size-1 for index-keyed pipes).
  virtual std::vector<K> keys() const;
  bool shareable() const override { return true; }
};

template <class N>
std::shared_ptr<N> CloneContext::clone(const std::shared_ptr<N>& node) {
  if (!node) return nullptr;
  auto it = done_.find(node.get());
  if (it != done_.end()) return std::static_pointer_cast<N>(it->second);
  auto copy = node->clone(*this);
  done_.emplace(node.get(), copy);
  return std::static_pointer_cast<N>(copy);
}

// CRTP helper: copy-constructs Self and rebinds its children.
template <class Self, class Base>
class NodeImpl : public Base {
 public:
  using Base::Base;
  std::shared_ptr<NodeBase> clone(CloneContext& ctx) const override {
    auto copy = std::make_shared<Self>(static_cast<const Self&>(*this));
    copy->rebind(ctx);
    return copy;
  }
  void rebind(CloneContext&) {}
};
template <class Self, class T>
using IterNodeImpl = NodeImpl<Self, IterNode<T>>;

// ---- graph walks ------------------------------------------------------------------------

// Every node reachable from `root`, each once, parents before children (DFS pre-order).
std::vector<NodeBase*> traverse(const NodeBase& root);
// Stops, resets and stamps every node of the graph for a new epoch.
void start_epoch(NodeBase& root);
// Restarts the subgraph under `node` within the current epoch (cycle, in_memory_cache).
void restart_subgraph(NodeBase& node);
// A deep copy of the graph (for a worker).
template <class N>
std::shared_ptr<N> clone_graph(const std::shared_ptr<N>& root) {
  CloneContext ctx;
  return ctx.clone(root);
}
// Applies sharding to every sharding_filter; returns how many there were.
int64_t apply_sharding(NodeBase& root, int64_t num_instances, int64_t instance_id);
// Seeds every random node: the same seed for nodes upstream of a sharding_filter,
// one per `instance_id` for the others (see the top of this file).
void seed_graph(NodeBase& root, uint64_t base_seed, int64_t instance_id);
// A 64-bit mix of the arguments (splitmix64 steps): independent seeds from one base.
uint64_t mix_seed(uint64_t a, uint64_t b, uint64_t c = 0);
// A seed drawn from ember's default generator.
uint64_t draw_seed();
// The current epoch's seeds of the random nodes, in traverse order ({"name", "seed"}).
json::Value graph_seeds(const NodeBase& root);
// Sets each random node's next-epoch seed from graph_seeds output (checked against names).
void load_graph_seeds(NodeBase& root, const json::Value& seeds);

// ---- the handle -----------------------------------------------------------------------

// Note [Constrained module pipes]: the module pipes below (open_files, parse_csv, ...) are
// members constrained to one element type and defined in their module as explicit
// specializations (template <> ... IterDataPipe<std::string>::open_files). GCC matches those
// to the constrained declaration; clang (the fuzz build, fuzz/) finds no matching declaration
// unless the declaration is unconstrained, so there a call on the wrong element type is a
// link error instead of a compile error (and check_hash(dict) of a stream pipe is ambiguous).
#if defined(__clang__)
#define EMBER_PIPE_REQUIRES(...)
#else
#define EMBER_PIPE_REQUIRES(...) requires(__VA_ARGS__)
#endif

template <class T> struct Collated;  // collate.h

template <class T>
class IterDataPipe {
  // Elements the root yielded this epoch (shared by copies of the handle), and a state
  // waiting to be resumed by the next begin().
  struct Counter {
    int64_t n = 0;
    std::optional<json::Value> resume;
  };

 public:
  using element_type = T;
  IterDataPipe() = default;
  explicit IterDataPipe(std::shared_ptr<IterNode<T>> node) : node_(std::move(node)) {
    EMBER_CHECK(node_, "IterDataPipe: null node");
  }
  template <class N, std::enable_if_t<std::is_base_of_v<IterNode<T>, N>, int> = 0>
  IterDataPipe(std::shared_ptr<N> node) : IterDataPipe(std::shared_ptr<IterNode<T>>(std::move(node))) {}  // NOLINT

  const std::shared_ptr<IterNode<T>>& node() const { return node_; }
  bool defined() const { return node_ != nullptr; }

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
      cur_ = node_->next();
      if (cur_) ++counter_->n;
      return *this;
    }
    void operator++(int) { ++*this; }
    friend bool operator==(const iterator& a, const iterator& b) { return !a.cur_ && !b.cur_; }

   private:
    friend class IterDataPipe;
    void check() const {
      EMBER_CHECK(cur_, "IterDataPipe: dereferencing an iterator at the end");
      EMBER_CHECK(node_->token() == token_, "IterDataPipe (", node_->name(),
                  "): this iterator was invalidated because a newer iterator was created from the "
                  "same pipe (begin() starts a new epoch)");
    }
    std::shared_ptr<IterNode<T>> node_;
    std::shared_ptr<Counter> counter_;
    uint64_t token_ = 0;
    std::optional<T> cur_;
  };

  // Starts a new epoch (or resumes a loaded state) and returns its first position.
  iterator begin() const;
  iterator end() const { return iterator(); }

  // Checkpoint of the current epoch's position: {"seeds": [...], "yielded": n}.
  json::Value state() const;
  // The next begin() resumes from `state` (same seeds, skipping what was yielded).
  void load_state(const json::Value& state);

  // ---- functional forms (iter/functional.h) ----
  template <class F> auto map(F fn) const;
  template <class F> IterDataPipe<T> filter(F fn) const;
  template <class F> auto flatmap(F fn) const;
  IterDataPipe<std::vector<T>> batch(int64_t batch_size, bool drop_last = false) const;
  auto unbatch() const;
  auto collate() const;
  template <class F> auto collate(F fn) const;
  IterDataPipe<T> shuffle(int64_t buffer_size = 10000) const;
  IterDataPipe<T> sharding_filter() const;
  template <class... U> IterDataPipe<std::tuple<T, U...>> zip(const IterDataPipe<U>&... others) const;
  template <class... U>
  IterDataPipe<std::tuple<std::optional<T>, std::optional<U>...>> zip_longest(const IterDataPipe<U>&... others) const;
  template <class... P> IterDataPipe<T> concat(const P&... others) const;
  std::vector<IterDataPipe<T>> fork(int64_t num_instances, int64_t buffer_size = 1000, bool deep_copy = false) const;
  template <class F>
  std::vector<IterDataPipe<T>> demux(int64_t num_instances, F classifier_fn, bool drop_none = false,
                                     int64_t buffer_size = 1000) const;
  template <class... P> IterDataPipe<T> mux(const P&... others) const;
  template <class... P> IterDataPipe<T> mux_longest(const P&... others) const;
  IterDataPipe<T> cycle(std::optional<int64_t> count = std::nullopt) const;
  IterDataPipe<T> repeat(int64_t times) const;
  IterDataPipe<T> header(int64_t limit = 10) const;
  IterDataPipe<std::pair<int64_t, T>> enumerate(int64_t starting_index = 0) const;
  IterDataPipe<T> add_index(std::string index_name = "index") const;
  IterDataPipe<T> in_batch_shuffle() const;
  // TorchData's pin_memory(): each element's CPU tensors copied into pinned host memory
  // (ember/data/detail/pin.h); without a CUDA device one warning and the pipe unchanged.
  IterDataPipe<T> pin_memory() const;
  template <class SortKey = std::nullptr_t>
  IterDataPipe<std::vector<T>> bucketbatch(int64_t batch_size, bool drop_last = false, int64_t batch_num = 100,
                              int64_t bucket_num = 1, SortKey sort_key = nullptr,
                              bool use_in_batch_shuffle = true) const;
  template <class LenFn>
  IterDataPipe<std::vector<T>> max_token_bucketize(int64_t max_token_count, LenFn len_fn, int64_t min_len = 0,
                                                   std::optional<int64_t> max_len = std::nullopt,
                                                   int64_t buffer_size = 1000) const;
  template <class KeyFn>
  IterDataPipe<std::vector<T>> groupby(KeyFn group_key_fn, int64_t buffer_size = 10000,
                                       std::optional<int64_t> group_size = std::nullopt,
                                       std::optional<int64_t> guaranteed_group_size = std::nullopt,
                                       bool drop_remaining = false) const;
  IterDataPipe<T> prefetch(int64_t buffer_size = 10) const;
  template <class F> auto threadpool_map(F fn, int64_t max_workers = 2, int64_t scheduled_tasks = 128) const;
  IterDataPipe<T> in_memory_cache(std::optional<int64_t> size = std::nullopt) const;
  std::vector<IterDataPipe<T>> random_split(std::vector<double> weights, uint64_t seed,
                                            std::optional<int64_t> total_length = std::nullopt) const;
  IterDataPipe<T> slice(int64_t start, std::optional<int64_t> stop = std::nullopt, int64_t step = 1) const;
  auto flatten() const;
  template <class KVFn> auto to_map_datapipe(KVFn key_value_fn) const;

  // ---- module pipes: declared here, defined where the module lives ----
  // (Each is constrained to its element type with EMBER_PIPE_REQUIRES, see its Note.)
  // files.h / files.cpp: the functional forms of the file pipes (see files.h for each).
  using Stream_ = std::pair<std::string, std::shared_ptr<io::InputStream>>;
  using FilepathFn_ = std::function<std::string(const std::string&)>;
  static constexpr bool kPaths_ = std::is_same_v<T, std::string>;
  static constexpr bool kStreams_ = std::is_same_v<T, Stream_>;
  static constexpr bool kBytes_ = std::is_same_v<T, std::pair<std::string, std::string>>;
  IterDataPipe<Stream_> open_files(std::string mode = "b") const EMBER_PIPE_REQUIRES(kPaths_);
  IterDataPipe<std::string> on_disk_cache(FilepathFn_ filepath_fn = nullptr,
                                          std::map<std::string, std::string> hash_dict = {},
                                          std::string hash_type = "sha256") const EMBER_PIPE_REQUIRES(kPaths_);
  IterDataPipe<std::pair<std::string, std::string>> readlines(bool strip_newline = true, int64_t skip_lines = 0) const
    EMBER_PIPE_REQUIRES(kStreams_);
  IterDataPipe<std::vector<std::string>> parse_csv(const io::CsvOptions& options) const EMBER_PIPE_REQUIRES(kStreams_);
  IterDataPipe<std::vector<std::string>> parse_csv() const EMBER_PIPE_REQUIRES(kStreams_);
  IterDataPipe<io::CsvDictRow> parse_csv_as_dict(const io::CsvOptions& options) const EMBER_PIPE_REQUIRES(kStreams_);
  IterDataPipe<io::CsvDictRow> parse_csv_as_dict() const EMBER_PIPE_REQUIRES(kStreams_);
  IterDataPipe<std::pair<std::string, json::Value>> parse_json_files() const EMBER_PIPE_REQUIRES(kStreams_);
  IterDataPipe<Stream_> load_from_tar() const EMBER_PIPE_REQUIRES(kStreams_);
  IterDataPipe<Stream_> load_from_zip() const EMBER_PIPE_REQUIRES(kStreams_);
  IterDataPipe<Stream_> decompress(std::string file_type = "") const EMBER_PIPE_REQUIRES(kStreams_);
  IterDataPipe<Stream_> check_hash(std::map<std::string, std::string> hash_dict, std::string hash_type = "sha256",
                                   bool rewind = true) const EMBER_PIPE_REQUIRES(kStreams_);
  IterDataPipe<T> check_hash(std::map<std::string, std::string> hash_dict, std::string hash_type = "sha256") const
    EMBER_PIPE_REQUIRES(kBytes_);
  IterDataPipe<std::string> save_to_disk(FilepathFn_ filepath_fn = nullptr) const EMBER_PIPE_REQUIRES(kStreams_ || kBytes_);
  IterDataPipe<std::string> end_caching(FilepathFn_ filepath_fn = nullptr) const EMBER_PIPE_REQUIRES(kStreams_ || kBytes_);
  // s3.h / s3.cpp: "s3://bucket/prefix" URLs -> object URLs -> (url, stream).
  IterDataPipe<std::string> list_files_by_s3(const s3::S3Options& options, std::vector<std::string> masks = {}) const
    EMBER_PIPE_REQUIRES(kPaths_);
  IterDataPipe<std::string> list_files_by_s3() const EMBER_PIPE_REQUIRES(kPaths_);
  IterDataPipe<Stream_> load_files_by_s3(const s3::S3Options& options) const EMBER_PIPE_REQUIRES(kPaths_);
  IterDataPipe<Stream_> load_files_by_s3() const EMBER_PIPE_REQUIRES(kPaths_);
  // ---- frame pipes (frame_pipes.h / frame_pipes.cpp): rows -> DataFrames ----
  // TorchData's .dataframe(): frames of `rows_per_frame` rows (the last may be shorter) from
  // rows of frame::Values, typed by a struct dtype or, given column names, inferred per frame.
  static constexpr bool kFrameRows_ = std::is_same_v<T, std::vector<frame::Value>>;
  IterDataPipe<frame::DataFrame> dataframe(int64_t rows_per_frame, const frame::DType& dtype) const
    EMBER_PIPE_REQUIRES(kFrameRows_);
  IterDataPipe<frame::DataFrame> dataframe(int64_t rows_per_frame, std::vector<std::string> columns) const
    EMBER_PIPE_REQUIRES(kFrameRows_);
  // ---- end frame pipes ----

 private:
  template <class U> friend class IterDataPipe;
  std::shared_ptr<IterNode<T>> node_;
  std::shared_ptr<Counter> yielded_ = std::make_shared<Counter>();
};

template <class T>
typename IterDataPipe<T>::iterator IterDataPipe<T>::begin() const {
  EMBER_CHECK(node_, "IterDataPipe: iterating an empty pipe handle");
  int64_t skip = 0;
  if (yielded_->resume) {
    load_graph_seeds(*node_, *yielded_->resume->find("seeds"));
    skip = yielded_->resume->find("yielded")->as_int("yielded");
    yielded_->resume.reset();
  }
  start_epoch(*node_);
  yielded_->n = 0;
  iterator it;
  it.node_ = node_;
  it.counter_ = yielded_;
  it.token_ = node_->token();
  for (int64_t i = 0; i < skip; ++i) {
    EMBER_CHECK(node_->next(), "IterDataPipe::load_state: the pipe ended after ", i, " elements while resuming ",
                "a state that had yielded ", skip, " (is the source or a user function non-deterministic?)");
  }
  yielded_->n = skip;
  it.cur_ = node_->next();
  if (it.cur_) ++yielded_->n;
  return it;
}

template <class T>
json::Value IterDataPipe<T>::state() const {
  EMBER_CHECK(node_, "IterDataPipe::state: empty pipe handle");
  if (yielded_->resume) return *yielded_->resume;
  // The element under the iterator counts as consumed: resuming continues after it.
  return json::Object{{"seeds", graph_seeds(*node_)}, {"yielded", yielded_->n}};
}

template <class T>
void IterDataPipe<T>::load_state(const json::Value& state) {
  EMBER_CHECK(node_, "IterDataPipe::load_state: empty pipe handle");
  EMBER_CHECK(state.is_object() && state.find("seeds") && state.find("yielded") &&
                  state.find("yielded")->is_int() && state.find("yielded")->as_int() >= 0,
              "IterDataPipe::load_state: expected an object with 'seeds' and a non-negative 'yielded' (from "
              "IterDataPipe::state()), got ", json::dump(state));
  yielded_->resume = state;
}

template <class T, class K>
std::vector<K> MapNode<T, K>::keys() const {
  if constexpr (std::is_integral_v<K>) {
    std::vector<K> k(static_cast<size_t>(size()));
    for (size_t i = 0; i < k.size(); ++i) k[i] = K(i);
    return k;
  } else {
    EMBER_CHECK(false, "MapDataPipe (", name(), "): keys() must be provided for non-integer keys");
    return {};
  }
}

}  // namespace ember::data::datapipes
