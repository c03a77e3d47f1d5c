// oneDNN matmul for Float and BFloat16 GEMMs (blas.h), with an LRU cache of primitives
// keyed by shape, transposes, leading dimensions, batch strides, dtype, alpha/beta and
// thread count: creating a primitive costs ~200 us, executing a cached one ~1 us.
#include <cstdlib>
#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "ember/core/parallel.h"
#include "ember/ops/blas.h"
#include "ember/ops/dnnl_common.h"

namespace ember::blas {

namespace {

struct DnnlKey {
  int64_t m, n, k, batch, lda, ldb, ldc, sa, sb, sc;
  double alpha, beta;
  int nthreads;
  ScalarType dtype;
  BlasTrans ta, tb;
  bool operator==(const DnnlKey& o) const { return std::memcmp(this, &o, sizeof(DnnlKey)) == 0; }
};
struct DnnlKeyHash {
  size_t operator()(const DnnlKey& k) const {
    uint64_t h = 0;
    auto mix = [&h](uint64_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
    for (int64_t v : {k.m, k.n, k.k, k.batch, k.lda, k.ldb, k.ldc, k.sa, k.sb, k.sc}) mix(uint64_t(v));
    uint64_t ab[2];
    std::memcpy(ab, &k.alpha, 8);
    std::memcpy(ab + 1, &k.beta, 8);
    mix(ab[0]), mix(ab[1]);
    mix(uint64_t(k.nthreads) << 24 | uint64_t(k.dtype) << 16 | uint64_t(k.ta) << 8 | uint64_t(k.tb));
    return size_t(h);
  }
};

struct DnnlEntry {
  dnnl::matmul prim;
  dnnl::memory::desc a_md, b_md, c_md;
  size_t scratch_bytes = 0;
  bool usable = true;  // false when oneDNN only offers its reference implementation
};

constexpr size_t kCacheCapacity = 128;

struct DnnlCache {
  std::mutex mu;
  std::list<std::pair<DnnlKey, std::shared_ptr<DnnlEntry>>> lru;  // most recent first
  std::unordered_map<DnnlKey, decltype(lru)::iterator, DnnlKeyHash> map;
};
DnnlCache& cache() {
  static DnnlCache* c = new DnnlCache();  // leaked: primitives may be used during exit
  return *c;
}

using dnnl_common::dnnl_type;
using dnnl_common::engine;

// op(X) as an (rows x cols) matrix, batched over `batch` (1 when broadcast).
dnnl::memory::desc matrix_md(ScalarType dt, int64_t batch_dims, int64_t batch, int64_t batch_stride, int64_t rows,
                             int64_t cols, BlasTrans t, int64_t ld) {
  using dims = dnnl::memory::dims;
  const int64_t rs = t == BlasTrans::N ? ld : 1, cs = t == BlasTrans::N ? 1 : ld;
  if (batch_dims == 0) return dnnl::memory::desc(dims{rows, cols}, dnnl_type(dt), dims{rs, cs});
  const int64_t bs = batch == 1 ? rows * cols : batch_stride;
  return dnnl::memory::desc(dims{batch, rows, cols}, dnnl_type(dt), dims{bs, rs, cs});
}

std::shared_ptr<DnnlEntry> create_entry(const DnnlKey& key) {
  auto e = std::make_shared<DnnlEntry>();
  const int64_t bd = key.batch > 1 ? 1 : 0;
  const int64_t ba = key.sa == 0 ? 1 : key.batch, bb = key.sb == 0 ? 1 : key.batch;
  e->a_md = matrix_md(key.dtype, bd, ba, key.sa, key.m, key.k, key.ta, key.lda);
  e->b_md = matrix_md(key.dtype, bd, bb, key.sb, key.k, key.n, key.tb, key.ldb);
  e->c_md = matrix_md(key.dtype, bd, key.batch, key.sc, key.m, key.n, BlasTrans::N, key.ldc);
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (key.alpha != 1.0) attr.set_output_scales(0, {float(key.alpha)});
  if (key.beta != 0.0) {
    dnnl::post_ops po;
    po.append_sum(float(key.beta));
    attr.set_post_ops(po);
  }
  try {
    auto pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(e->a_md, e->b_md, e->c_md), attr, engine());
    const char* impl = pd.impl_info_str();
    e->usable = !(key.dtype == kFloat && std::strncmp(impl, "ref", 3) == 0);
    e->scratch_bytes = pd.scratchpad_desc().get_size();
    e->prim = dnnl::matmul(pd);
  } catch (const dnnl::error&) {
    e->usable = false;
  }
  return e;
}

std::shared_ptr<DnnlEntry> lookup(const DnnlKey& key) {
  DnnlCache& c = cache();
  {
    std::lock_guard<std::mutex> g(c.mu);
    auto it = c.map.find(key);
    if (it != c.map.end()) {
      c.lru.splice(c.lru.begin(), c.lru, it->second);
      return it->second->second;
    }
  }
  std::shared_ptr<DnnlEntry> e = create_entry(key);  // outside the lock: slow
  std::lock_guard<std::mutex> g(c.mu);
  auto it = c.map.find(key);
  if (it != c.map.end()) return it->second->second;  // another thread created it meanwhile
  c.lru.emplace_front(key, e);
  c.map.emplace(key, c.lru.begin());
  if (c.lru.size() > kCacheCapacity) {
    c.map.erase(c.lru.back().first);
    c.lru.pop_back();
  }
  return e;
}

// The memory objects a primitive runs on, created once per thread and primitive: a call
// only swaps their data pointers (creating them costs ~0.5 us a call).
struct BoundArgs {
  std::shared_ptr<DnnlEntry> entry;  // keeps the primitive (and its descriptors) alive
  dnnl::memory a, b, c, scratch;
  std::unordered_map<int, dnnl::memory> args;
};
constexpr size_t kBoundPerThread = 8;

// Per-thread bound arguments of the most recently used primitives.
struct ThreadState {
  std::vector<BoundArgs> bound;  // most recently used last
  BoundArgs& bind(const std::shared_ptr<DnnlEntry>& e) {
    for (size_t i = bound.size(); i-- > 0;)
      if (bound[i].entry == e) {
        if (i + 1 != bound.size()) std::swap(bound[i], bound.back());
        return bound.back();
      }
    if (bound.size() >= kBoundPerThread) bound.erase(bound.begin());
    BoundArgs b;
    b.entry = e;
    dnnl::engine& eng = engine();
    b.a = dnnl::memory(e->a_md, eng, DNNL_MEMORY_NONE);
    b.b = dnnl::memory(e->b_md, eng, DNNL_MEMORY_NONE);
    b.c = dnnl::memory(e->c_md, eng, DNNL_MEMORY_NONE);
    b.args = {{DNNL_ARG_SRC, b.a}, {DNNL_ARG_WEIGHTS, b.b}, {DNNL_ARG_DST, b.c}};
    if (e->scratch_bytes > 0) {
      dnnl::memory::desc sd(dnnl::memory::dims{int64_t(e->scratch_bytes)}, dnnl::memory::data_type::u8,
                            dnnl::memory::dims{1});
      b.scratch = dnnl::memory(sd, eng, DNNL_MEMORY_NONE);
      b.args.emplace(DNNL_ARG_SCRATCHPAD, b.scratch);
    }
    bound.push_back(std::move(b));
    return bound.back();
  }
};

}  // namespace

// Note [oneDNN thread count]
// Measured on the dev machine (CPU time, one thread): oneDNN's brgemm and OpenBLAS's sgemm
// run at the same ~105-110 GFLOP/s per core from n = 48 up (AVX-512 on this core issues
// at AVX2 width), and OpenBLAS's call is cheaper below. The gain of oneDNN is its
// two-thread scaling (2x OpenBLAS's at n = 256). Small problems run single-threaded, as
// OpenBLAS itself does below 64^3 multiply-adds: a parallel region costs more than it saves,
// and far more when the machine is oversubscribed.
constexpr double kDnnlMinMacs = 56.0 * 56 * 56;
constexpr double kParallelMacs = 64.0 * 64 * 64;

bool prefer_dnnl_f32(const GemmArgs& g) {
  // Vector shapes are memory-bound: OpenBLAS's gemv/dot.
  if (g.m == 1 || g.n == 1) return false;
  return double(g.m) * g.n * g.k * g.batch >= kDnnlMinMacs;
}

bool dnnl_gemm(const GemmArgs& g) {
  if (g.dtype != kFloat && g.dtype != kBFloat16) return false;
  if (g.ta == BlasTrans::C || g.tb == BlasTrans::C) return false;
  if (g.batch > 1 && g.stride_a == 0 && g.stride_b == 0) return false;  // dst batch would be 1
  const bool nested = in_parallel_region();
  const double macs = double(g.m) * g.n * g.k * g.batch;
  const int nt = nested || macs <= kParallelMacs ? 1 : get_num_threads();
  // oneDNN reads the calling thread's OpenMP thread count when it creates and runs a
  // primitive (Note [oneDNN thread count]); set it for this call, restore it after.
  dnnl_common::OmpThreads omp_threads(nt, nested);
  DnnlKey key{};  // zero padding bytes: the key is hashed and compared bytewise
  key.m = g.m, key.n = g.n, key.k = g.k, key.batch = g.batch;
  key.lda = g.lda, key.ldb = g.ldb, key.ldc = g.ldc;
  key.sa = g.batch > 1 ? g.stride_a : 0, key.sb = g.batch > 1 ? g.stride_b : 0;
  key.sc = g.batch > 1 ? g.stride_c : 0;
  key.alpha = g.alpha.toDouble(), key.beta = g.beta.toDouble();
  key.nthreads = nt, key.dtype = g.dtype, key.ta = g.ta, key.tb = g.tb;
  std::shared_ptr<DnnlEntry> e = lookup(key);
  if (!e->usable) return false;
  static thread_local ThreadState ts;
  BoundArgs& b = ts.bind(e);
  b.a.set_data_handle(const_cast<void*>(g.a));
  b.b.set_data_handle(const_cast<void*>(g.b));
  b.c.set_data_handle(g.c);
  if (e->scratch_bytes > 0) b.scratch.set_data_handle(dnnl_common::scratchpad(e->scratch_bytes));
  e->prim.execute(dnnl_common::stream(), b.args);
  dnnl_common::stream().wait();
  return true;
}

int64_t dnnl_cache_size() {
  DnnlCache& c = cache();
  std::lock_guard<std::mutex> g(c.mu);
  return int64_t(c.lru.size());
}

void dnnl_cache_clear() {
  DnnlCache& c = cache();
  std::lock_guard<std::mutex> g(c.mu);
  c.map.clear();
  c.lru.clear();
}

}  // namespace ember::blas

namespace ember::dnnl_common {

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

bool bf16_supported() {
  static const bool supported = [] {
    try {
      using tag = dnnl::memory::format_tag;
      const dnnl::memory::desc md({1, 1, 1, 1}, dnnl::memory::data_type::bf16, tag::nchw);
      dnnl::convolution_forward::primitive_desc conv(
          dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct, md,
                                          md, md, {1, 1}, {0, 0}, {0, 0}),
          engine());
      dnnl::pooling_v2_forward::primitive_desc pool(
          dnnl::pooling_v2_forward::desc(dnnl::prop_kind::forward_training, dnnl::algorithm::pooling_max, md, md,
                                         {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}),
          engine());
      return true;
    } catch (const dnnl::error&) {
      return false;
    }
  }();
  return supported;
}

dnnl::stream& stream() {
  static thread_local dnnl::stream s(engine());
  return s;
}

dnnl::memory::format_tag plain_tag(int64_t rank, bool channels_last) {
  using tag = dnnl::memory::format_tag;
  switch (rank) {
    case 3: return channels_last ? tag::nwc : tag::ncw;
    case 4: return channels_last ? tag::nhwc : tag::nchw;
    default: return channels_last ? tag::ndhwc : tag::ncdhw;
  }
}

dnnl::primitive_attr scratchpad_attr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

void execute(const dnnl::primitive& p, const dnnl::primitive_desc_base& pd, std::unordered_map<int, dnnl::memory> args) {
  const dnnl::memory::desc sd = pd.scratchpad_desc();
  if (sd.get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(sd, engine(), scratchpad(sd.get_size())));
  p.execute(stream(), args);
}

void* scratchpad(size_t bytes) {
  struct Buffer {
    void* data = nullptr;
    size_t size = 0;
    ~Buffer() { std::free(data); }
  };
  static thread_local Buffer b;
  if (bytes > b.size) {
    std::free(b.data);
    b.data = nullptr, b.size = 0;
    const size_t rounded = (bytes + 4095) / 4096 * 4096;
    b.data = std::aligned_alloc(64, rounded);
    EMBER_CHECK(b.data != nullptr, "oneDNN: out of memory allocating ", rounded, " bytes of scratchpad");
    b.size = rounded;
  }
  return b.data;
}

}  // namespace ember::dnnl_common
