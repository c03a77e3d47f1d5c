// torch.distributed's module-level API (distributed.h).
#include "ember/distributed/distributed.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "ember/core/error.h"
#include "ember/distributed/process_group_nccl.h"
#include "ember/ops/functions.h"

namespace ember::distributed {

namespace {

struct GroupInfo {
  std::vector<int> ranks;  // global ranks, in group-rank order
  std::string backend;
};

// The process's distributed state: the world's store, the default group, the groups made.
struct State {
  std::mutex mutex;
  std::shared_ptr<Store> store;
  Group world;
  std::map<const ProcessGroup*, GroupInfo> groups;
  int world_rank = -1, world_size = 0;
  int64_t next_group = 0;
  std::string generation;  // "_w<size>_<n>": the store's n-th world of that size
  std::chrono::milliseconds timeout{0};
};
State& state() {
  static State s;
  return s;
}

std::shared_ptr<ProcessGroup> make_engine(const std::string& backend, std::shared_ptr<Store> store, int rank,
                                          int size, std::chrono::milliseconds timeout) {
  std::string b = backend;
  std::transform(b.begin(), b.end(), b.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (b == "gloo") {
    ProcessGroupGloo::Options o;
    o.timeout = timeout;
    // Where the ranks listen: GLOO_SOCKET_IFNAME's interface (as PyTorch), else loopback when
    // the master is local, else this machine's host name (ranks on several machines).
    const char* ifname = std::getenv("GLOO_SOCKET_IFNAME");
    const char* master = std::getenv("MASTER_ADDR");
    const std::string m = master ? master : "127.0.0.1";
    if (ifname && *ifname) o.iface = ifname;
    else if (m != "localhost" && m.rfind("127.", 0) != 0 && m != "::1") o.hostname.clear();
    return std::make_shared<ProcessGroupGloo>(std::move(store), rank, size, o);
  }
  if (b == "nccl") {
    ProcessGroupNCCL::Options o;
    o.timeout = timeout;
    return std::make_shared<ProcessGroupNCCL>(std::move(store), rank, size, o);
  }
  EMBER_CHECK(b != "mpi", "init_process_group: the 'mpi' backend is not available in ember (use 'gloo' or 'nccl')");
  EMBER_CHECK(false, "init_process_group: unknown backend '", backend, "' (expected 'gloo' or 'nccl')");
}

// Note [Collective fingerprints]
// With TORCH_DISTRIBUTED_DEBUG=DETAIL (PyTorch's switch and its ProcessGroupWrapper), every
// collective of a group made by init_process_group / new_group is preceded by an exchange of
// its fingerprint (the op, its tensors' dtypes, shapes and devices, the reduce op and root)
// over a Gloo group of its own; ranks that disagree all raise an error naming each rank's
// call, instead of meeting in a mismatched collective. (Gloo itself ends the process from its
// I/O thread when the sizes differ: "enforce fail at gloo/transport/tcp/pair.cc ...
// op.preamble.length <= op.nbytes", as in PyTorch without the switch.) Point-to-point calls
// are not checked. One small all-gather per collective: a debugging aid, not for speed.
class ProcessGroupWrapper : public ProcessGroup {
 public:
  ProcessGroupWrapper(std::shared_ptr<ProcessGroup> inner, std::shared_ptr<ProcessGroup> helper)
      : ProcessGroup(inner->getRank(), inner->getSize()), inner_(std::move(inner)), helper_(std::move(helper)) {}
  const std::string getBackendName() const override { return inner_->getBackendName(); }

  std::shared_ptr<Work> allreduce(std::vector<Tensor>& t, const AllreduceOptions& o) override {
    check("allreduce", t, ::ember::detail::str_cat(" op=", to_string(o.reduceOp)));
    return inner_->allreduce(t, o);
  }
  std::shared_ptr<Work> broadcast(std::vector<Tensor>& t, const BroadcastOptions& o) override {
    check("broadcast", t, ::ember::detail::str_cat(" root=", o.rootRank));
    return inner_->broadcast(t, o);
  }
  std::shared_ptr<Work> allgather(std::vector<std::vector<Tensor>>& out, std::vector<Tensor>& in,
                                  const AllgatherOptions& o) override {
    check("allgather", in, "");
    return inner_->allgather(out, in, o);
  }
  std::shared_ptr<Work> barrier(const BarrierOptions& o) override {
    check("barrier", {}, "");
    return inner_->barrier(o);
  }
  std::shared_ptr<Work> reduce(std::vector<Tensor>& t, const ReduceOptions& o) override {
    check("reduce", t, ::ember::detail::str_cat(" op=", to_string(o.reduceOp), " root=", o.rootRank));
    return inner_->reduce(t, o);
  }
  std::shared_ptr<Work> gather(std::vector<std::vector<Tensor>>& out, std::vector<Tensor>& in,
                               const GatherOptions& o) override {
    check("gather", in, ::ember::detail::str_cat(" root=", o.rootRank));
    return inner_->gather(out, in, o);
  }
  std::shared_ptr<Work> scatter(std::vector<Tensor>& out, std::vector<std::vector<Tensor>>& in,
                                const ScatterOptions& o) override {
    check("scatter", out, ::ember::detail::str_cat(" root=", o.rootRank));
    return inner_->scatter(out, in, o);
  }
  std::shared_ptr<Work> reduce_scatter(std::vector<Tensor>& out, std::vector<std::vector<Tensor>>& in,
                                       const ReduceScatterOptions& o) override {
    check("reduce_scatter", out, ::ember::detail::str_cat(" op=", to_string(o.reduceOp)));
    return inner_->reduce_scatter(out, in, o);
  }
  std::shared_ptr<Work> _allgather_base(Tensor& out, Tensor& in, const AllgatherOptions& o) override {
    check("_allgather_base", {in, out}, "");
    return inner_->_allgather_base(out, in, o);
  }
  std::shared_ptr<Work> _reduce_scatter_base(Tensor& out, Tensor& in, const ReduceScatterOptions& o) override {
    check("_reduce_scatter_base", {in, out}, ::ember::detail::str_cat(" op=", to_string(o.reduceOp)));
    return inner_->_reduce_scatter_base(out, in, o);
  }
  std::shared_ptr<Work> alltoall(std::vector<Tensor>& out, std::vector<Tensor>& in, const AllToAllOptions& o) override {
    // Each rank's pieces may differ in shape; the op, count and dtype must agree.
    const std::string dtype = in.empty() || !in[0].defined() ? "?" : ::ember::detail::str_cat(in[0].scalar_type());
    check("alltoall", {}, ::ember::detail::str_cat(" pieces=", in.size(), " ", dtype));
    return inner_->alltoall(out, in, o);
  }
  std::shared_ptr<Work> send(std::vector<Tensor>& t, int dst, int tag) override { return inner_->send(t, dst, tag); }
  std::shared_ptr<Work> recv(std::vector<Tensor>& t, int src, int tag) override { return inner_->recv(t, src, tag); }

 private:
  // Each rank sends its fingerprint's first kText bytes (what the error shows) and a 64-bit
  // FNV-1a digest of the whole of it (so a difference past kText is caught too).
  static constexpr int64_t kText = 200, kSent = kText + 8;

  void check(const char* op, const std::vector<Tensor>& tensors, const std::string& extra) {
    std::string mine = ::ember::detail::str_cat("#", ++calls_, " ", op, extra);
    for (const Tensor& t : tensors)
      mine += t.defined() ? ::ember::detail::str_cat(" ", t.scalar_type(), t.sizes(), "@", t.device().type())
                          : std::string(" undefined");
    uint64_t digest = 1469598103934665603ull;
    for (unsigned char c : mine) digest = (digest ^ c) * 1099511628211ull;
    if (int64_t(mine.size()) > kText) mine.resize(size_t(kText - 3)), mine += "...";
    Tensor bytes = zeros({kSent}, TensorOptions().dtype(kByte));
    std::memcpy(bytes.data_ptr(), mine.data(), mine.size());
    std::memcpy(static_cast<char*>(bytes.data_ptr()) + kText, &digest, sizeof digest);
    Tensor all = empty({kSent * getSize()}, TensorOptions().dtype(kByte));
    helper_->_allgather_base(all, bytes)->wait();
    std::string report;
    bool differ = false;
    const char* mine_sent = static_cast<const char*>(bytes.data_ptr());
    for (int r = 0; r < getSize(); ++r) {
      const char* p = reinterpret_cast<const char*>(all.data_ptr<uint8_t>()) + r * kSent;
      differ = differ || std::memcmp(p, mine_sent, size_t(kSent)) != 0;
      report += ::ember::detail::str_cat("\n  rank ", r, ": ", std::string(p, strnlen(p, size_t(kText))));
    }
    EMBER_CHECK(!differ, "Detected mismatch between collectives on ranks (TORCH_DISTRIBUTED_DEBUG=DETAIL): rank ",
                getRank(), " is running ", op, " but the ranks called:", report);
  }

  std::shared_ptr<ProcessGroup> inner_, helper_;
  std::atomic<int64_t> calls_{0};
};

bool debug_detail() {
  const char* v = std::getenv("TORCH_DISTRIBUTED_DEBUG");
  return v && std::string(v) == "DETAIL";
}

// The group's engine, wrapped for fingerprint checks under TORCH_DISTRIBUTED_DEBUG=DETAIL (the
// helper group meets under a prefix of its own in the same store).
std::shared_ptr<ProcessGroup> make_backend(const std::string& backend, const std::shared_ptr<Store>& store, int rank,
                                           int size, std::chrono::milliseconds timeout) {
  std::shared_ptr<ProcessGroup> engine = make_engine(backend, store, rank, size, timeout);
  if (!debug_detail() || size == 1) return engine;
  return std::make_shared<ProcessGroupWrapper>(
      engine, make_engine("gloo", std::make_shared<PrefixStore>("fingerprints", store), rank, size, timeout));
}

// What new_group hands a rank outside the group (PyTorch's GroupMember.NON_GROUP_MEMBER):
// collectives on it do nothing, get_rank says -1.
class NonGroupMember : public ProcessGroup {
 public:
  NonGroupMember() : ProcessGroup(0, 1) {}
  const std::string getBackendName() const override { return "non-group-member"; }
  std::shared_ptr<Work> allreduce(std::vector<Tensor>&, const AllreduceOptions&) override { return done(); }
  std::shared_ptr<Work> broadcast(std::vector<Tensor>&, const BroadcastOptions&) override { return done(); }
  std::shared_ptr<Work> allgather(std::vector<std::vector<Tensor>>&, std::vector<Tensor>&,
                                  const AllgatherOptions&) override {
    return done();
  }
  std::shared_ptr<Work> barrier(const BarrierOptions&) override { return done(); }
  static std::shared_ptr<Work> done() {
    auto w = std::make_shared<Work>("(not a member of the group)");
    w->finish();
    return w;
  }
};

const Group& non_member_group() {
  static const Group g = std::make_shared<NonGroupMember>();
  return g;
}

// The group a call refers to (the default one for nullptr), checked to exist.
Group resolve(const Group& group, const char* op) {
  if (group) return group;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  EMBER_CHECK(s.world != nullptr, op, ": Default process group has not been initialized, please make sure to call "
              "init_process_group.");
  return s.world;
}

GroupInfo info_of(const Group& g) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.groups.find(g.get());
  EMBER_CHECK(it != s.groups.end(), "torch.distributed: the group was destroyed or not made by new_group");
  return it->second;
}

// The group rank of global rank `global` in g.
int group_rank_of(const Group& g, int global, const char* op) {
  const GroupInfo info = info_of(g);
  auto it = std::find(info.ranks.begin(), info.ranks.end(), global);
  EMBER_CHECK(it != info.ranks.end(), op, ": global rank ", global, " is not part of the group");
  return int(it - info.ranks.begin());
}

std::shared_ptr<Work> finish(std::shared_ptr<Work> w, bool async_op) {
  if (!async_op) w->wait();
  return w;
}

int env_int(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : -1;
}

}  // namespace

void init_process_group(const std::string& backend, const std::string& init_method, int world_size, int rank,
                        std::chrono::milliseconds timeout, std::shared_ptr<Store> store) {
  State& s = state();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    EMBER_CHECK(s.world == nullptr, "init_process_group: trying to initialize the default process group twice!");
  }
  if (!store) {
    if (init_method.rfind("env://", 0) == 0) {
      // The variables, with world_size / rank given here taking precedence (as PyTorch); the
      // environment is left as it is (child processes see what this one was started with).
      const RendezvousEnv env = rendezvous_env(world_size, rank);
      rank = env.rank, world_size = env.world_size;
      store = std::make_shared<TCPStore>(env.master_addr, env.master_port, env.world_size, env.rank == 0, timeout,
                                         /*wait_for_workers=*/true);
    } else if (init_method.rfind("tcp://", 0) == 0) {
      EMBER_CHECK(rank >= 0 && world_size > 0, "init_process_group: tcp:// needs world_size and rank");
      const std::string hostport = init_method.substr(6);
      const size_t colon = hostport.rfind(':');
      EMBER_CHECK(colon != std::string::npos, "init_process_group: expected tcp://host:port, got '", init_method, "'");
      const int port = std::atoi(hostport.c_str() + colon + 1);
      EMBER_CHECK(port > 0 && port < 65536, "init_process_group: bad port in '", init_method, "'");
      store = std::make_shared<TCPStore>(hostport.substr(0, colon), uint16_t(port), world_size, rank == 0, timeout);
    } else if (init_method.rfind("file://", 0) == 0) {
      EMBER_CHECK(rank >= 0 && world_size > 0, "init_process_group: file:// needs world_size and rank");
      store = std::make_shared<FileStore>(init_method.substr(7), world_size);
    } else {
      EMBER_CHECK(false, "init_process_group: unknown init_method '", init_method,
                  "' (expected env://, tcp://host:port or file:///path)");
    }
  } else {
    EMBER_CHECK(rank >= 0 && world_size > 0, "init_process_group: a store needs world_size and rank");
  }
  EMBER_CHECK(world_size > 0 && rank >= 0 && rank < world_size, "init_process_group: rank ", rank,
              " is not in [0, ", world_size, ")");
  store->set_timeout(timeout);  // as PyTorch: the store's waits end with the group's timeout
  // A store kept across destroy_process_group and a new init (a user's TCPStore, a FileStore's
  // file) still holds the last world's keys (Gloo's addresses): each world on a store gets
  // prefixes of its own, numbered by how many worlds the store has seen.
  // Counted per world size (a world of 3 after one of 2 must not land in the middle of the
  // count), the size in the prefix too.
  const int64_t joined = store->add("ember_pg_worlds_joined/" + std::to_string(world_size), 1);
  const int64_t world_index = (joined - 1) / world_size;
  const std::string generation = "_w" + std::to_string(world_size) + "_" + std::to_string(world_index);
  Group pg = make_backend(backend, std::make_shared<PrefixStore>("default_pg" + generation, store), rank, world_size,
                          timeout);
  // Every rank has joined before any returns (PyTorch's barrier at the end of init): otherwise
  // rank 0, which hosts the TCP store, could finish a job without collectives and take the store
  // away from ranks still setting up.
  if (world_size > 1) pg->barrier()->wait();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.store = std::move(store);
  s.world = pg;
  s.world_rank = rank, s.world_size = world_size, s.timeout = timeout, s.next_group = 0;
  s.generation = generation;
  std::vector<int> all(static_cast<size_t>(world_size));
  for (int r = 0; r < world_size; ++r) all[size_t(r)] = r;
  s.groups[pg.get()] = GroupInfo{all, pg->getBackendName()};
}

bool is_initialized() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.world != nullptr;
}

void destroy_process_group(const Group& group) {
  State& s = state();
  Group doomed;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (group && group != s.world) {
      s.groups.erase(group.get());
      return;
    }
    EMBER_CHECK(s.world != nullptr, "destroy_process_group: Default process group has not been initialized");
    doomed = std::move(s.world);
    s.groups.clear();
    s.store.reset();
    s.world_rank = -1, s.world_size = 0;
  }
}

Group new_group(std::vector<int> ranks, std::chrono::milliseconds timeout, const std::string& backend) {
  State& s = state();
  std::shared_ptr<Store> store;
  int me = -1, world = 0;
  int64_t id = 0;
  std::string be = backend, generation;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    EMBER_CHECK(s.world != nullptr, "new_group: Default process group has not been initialized");
    store = s.store, me = s.world_rank, world = s.world_size, id = s.next_group++, generation = s.generation;
    if (be.empty()) be = s.world->getBackendName();
  }
  if (ranks.empty())
    for (int r = 0; r < world; ++r) ranks.push_back(r);
  std::sort(ranks.begin(), ranks.end());
  EMBER_CHECK(std::adjacent_find(ranks.begin(), ranks.end()) == ranks.end(), "new_group: ranks must be distinct");
  for (int r : ranks)
    EMBER_CHECK(r >= 0 && r < world, "new_group: rank ", r, " is not in the world [0, ", world, ")");
  auto it = std::find(ranks.begin(), ranks.end(), me);
  if (it == ranks.end()) return non_member_group();  // GroupMember.NON_GROUP_MEMBER
  Group pg = make_backend(be, std::make_shared<PrefixStore>("group" + generation + "_" + std::to_string(id), store),
                          int(it - ranks.begin()), int(ranks.size()), timeout);
  std::lock_guard<std::mutex> lock(s.mutex);
  s.groups[pg.get()] = GroupInfo{ranks, pg->getBackendName()};
  return pg;
}

Group non_group_member() { return non_member_group(); }
bool is_non_group_member(const Group& group) { return group && group == non_member_group(); }

int get_rank(const Group& group) {
  if (is_non_group_member(group)) return -1;
  if (!group) {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    EMBER_CHECK(s.world != nullptr, "get_rank: Default process group has not been initialized");
    return s.world_rank;
  }
  return group->getRank();
}
int get_world_size(const Group& group) {
  return is_non_group_member(group) ? -1 : resolve(group, "get_world_size")->getSize();
}
std::string get_backend(const Group& group) { return resolve(group, "get_backend")->getBackendName(); }
int get_global_rank(const Group& group, int group_rank) {
  const GroupInfo info = info_of(resolve(group, "get_global_rank"));
  EMBER_CHECK(group_rank >= 0 && group_rank < int(info.ranks.size()), "get_global_rank: group rank ", group_rank,
              " is not in [0, ", info.ranks.size(), ")");
  return info.ranks[size_t(group_rank)];
}

std::shared_ptr<Work> all_reduce(Tensor& tensor, ReduceOp op, const Group& group, bool async_op) {
  if (is_non_group_member(group)) return NonGroupMember::done();
  const Group g = resolve(group, "all_reduce");
  std::vector<Tensor> ts{tensor};
  AllreduceOptions o;
  o.reduceOp = op;
  return finish(g->allreduce(ts, o), async_op);
}

std::shared_ptr<Work> broadcast(Tensor& tensor, int src, const Group& group, bool async_op) {
  if (is_non_group_member(group)) return NonGroupMember::done();
  const Group g = resolve(group, "broadcast");
  std::vector<Tensor> ts{tensor};
  BroadcastOptions o;
  o.rootRank = group_rank_of(g, src, "broadcast");
  return finish(g->broadcast(ts, o), async_op);
}

std::shared_ptr<Work> reduce(Tensor& tensor, int dst, ReduceOp op, const Group& group, bool async_op) {
  if (is_non_group_member(group)) return NonGroupMember::done();
  const Group g = resolve(group, "reduce");
  std::vector<Tensor> ts{tensor};
  ReduceOptions o;
  o.rootRank = group_rank_of(g, dst, "reduce");
  o.reduceOp = op;
  return finish(g->reduce(ts, o), async_op);
}

std::shared_ptr<Work> all_gather(std::vector<Tensor>& tensor_list, const Tensor& tensor, const Group& group,
                                 bool async_op) {
  if (is_non_group_member(group)) return NonGroupMember::done();
  const Group g = resolve(group, "all_gather");
  std::vector<std::vector<Tensor>> outs{tensor_list};
  std::vector<Tensor> ins{tensor};
  return finish(g->allgather(outs, ins), async_op);
}

std::shared_ptr<Work> all_gather_into_tensor(Tensor& output, const Tensor& input, const Group& group, bool async_op) {
  if (is_non_group_member(group)) return NonGroupMember::done();
  const Group g = resolve(group, "all_gather_into_tensor");
  Tensor in = input;
  return finish(g->_allgather_base(output, in), async_op);
}

std::shared_ptr<Work> gather(const Tensor& tensor, std::vector<Tensor>& gather_list, int dst, const Group& group,
                             bool async_op) {
  if (is_non_group_member(group)) return NonGroupMember::done();
  const Group g = resolve(group, "gather");
  GatherOptions o;
  o.rootRank = group_rank_of(g, dst, "gather");
  std::vector<std::vector<Tensor>> outs;
  if (g->getRank() == o.rootRank) outs.push_back(gather_list);
  else EMBER_CHECK(gather_list.empty(), "gather: Argument ``gather_list`` must NOT be specified on non-destination ranks.");
  std::vector<Tensor> ins{tensor};
  return finish(g->gather(outs, ins, o), async_op);
}

std::shared_ptr<Work> scatter(Tensor& tensor, std::vector<Tensor>& scatter_list, int src, const Group& group,
                              bool async_op) {
  if (is_non_group_member(group)) return NonGroupMember::done();
  const Group g = resolve(group, "scatter");
  ScatterOptions o;
  o.rootRank = group_rank_of(g, src, "scatter");
  std::vector<std::vector<Tensor>> ins;
  if (g->getRank() == o.rootRank) ins.push_back(scatter_list);
  else EMBER_CHECK(scatter_list.empty(), "scatter: Argument ``scatter_list`` must NOT be specified on non-source ranks.");
  std::vector<Tensor> outs{tensor};
  return finish(g->scatter(outs, ins, o), async_op);
}

std::shared_ptr<Work> reduce_scatter(Tensor& output, std::vector<Tensor>& input_list, ReduceOp op, const Group& group,
                                     bool async_op) {
  if (is_non_group_member(group)) return NonGroupMember::done();
  const Group g = resolve(group, "reduce_scatter");
  std::vector<Tensor> outs{output};
  std::vector<std::vector<Tensor>> ins{input_list};
  ReduceScatterOptions o;
  o.reduceOp = op;
  return finish(g->reduce_scatter(outs, ins, o), async_op);
}

std::shared_ptr<Work> reduce_scatter_tensor(Tensor& output, const Tensor& input, ReduceOp op, const Group& group,
                                            bool async_op) {
  if (is_non_group_member(group)) return NonGroupMember::done();
  const Group g = resolve(group, "reduce_scatter_tensor");
  Tensor in = input;
  ReduceScatterOptions o;
  o.reduceOp = op;
  return finish(g->_reduce_scatter_base(output, in, o), async_op);
}

std::shared_ptr<Work> all_to_all(std::vector<Tensor>& output_tensor_list, std::vector<Tensor>& input_tensor_list,
                                 const Group& group, bool async_op) {
  if (is_non_group_member(group)) return NonGroupMember::done();
  const Group g = resolve(group, "all_to_all");
  return finish(g->alltoall(output_tensor_list, input_tensor_list), async_op);
}

std::shared_ptr<Work> barrier(const Group& group, bool async_op) {
  if (is_non_group_member(group)) return NonGroupMember::done();
  return finish(resolve(group, "barrier")->barrier(), async_op);
}

std::shared_ptr<Work> isend(const Tensor& tensor, int dst, const Group& group, int tag) {
  if (is_non_group_member(group)) return NonGroupMember::done();
  const Group g = resolve(group, "isend");
  std::vector<Tensor> ts{tensor};
  return g->send(ts, group_rank_of(g, dst, "isend"), tag);
}
std::shared_ptr<Work> irecv(Tensor& tensor, int src, const Group& group, int tag) {
  if (is_non_group_member(group)) return NonGroupMember::done();
  const Group g = resolve(group, "irecv");
  std::vector<Tensor> ts{tensor};
  return g->recv(ts, group_rank_of(g, src, "irecv"), tag);
}
void send(const Tensor& tensor, int dst, const Group& group, int tag) { isend(tensor, dst, group, tag)->wait(); }
void recv(Tensor& tensor, int src, const Group& group, int tag) { irecv(tensor, src, group, tag)->wait(); }

}  // namespace ember::distributed
