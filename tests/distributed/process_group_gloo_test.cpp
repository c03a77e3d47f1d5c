// ProcessGroupGloo (ember/distributed/process_group.h): collectives between ranks that meet
// through a store, as threads of this process (a HashStore) and as forked processes on
// loopback (a TCPStore): allreduce with every ReduceOp and dtype (bfloat16 through float),
// broadcast from each root, allgather, barrier, asynchronous Work handles, the errors for bad
// arguments, and a rank that dies mid-collective making the others fail within the timeout.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <thread>

#include "ember/distributed/process_group.h"
#include "store_test_util.h"
#include "test_util.h"

namespace ember::test {
namespace pg_gloo {  // named: the tests build as one unity file

using namespace ember::distributed;
using namespace std::chrono_literals;

// Runs body(rank, group) on `world` threads whose groups meet in one HashStore.
void on_threads(int world, const std::function<void(int, ProcessGroupGloo&)>& body,
                std::chrono::milliseconds timeout = 20s) {
  auto store = std::make_shared<HashStore>();
  std::vector<std::thread> threads;
  std::vector<std::string> errors(static_cast<size_t>(world));
  for (int r = 0; r < world; ++r)
    threads.emplace_back([&, r] {
      try {
        ProcessGroupGloo::Options o;
        o.timeout = timeout;
        ProcessGroupGloo pg(store, r, world, o);
        body(r, pg);
        // No rank leaves (closing its connections) while another still finishes connecting.
        pg.barrier()->wait();
      } catch (const std::exception& e) {
        errors[size_t(r)] = e.what();
      }
    });
  for (auto& t : threads) t.join();
  for (int r = 0; r < world; ++r) EXPECT_EQ(errors[size_t(r)], "") << "rank " << r;
}

TEST(ProcessGroupGloo, AllreduceEveryOpAndDtype) {
  for (int world : {2, 3}) {
    on_threads(world, [world](int rank, ProcessGroupGloo& pg) {
      EXPECT_EQ(pg.getRank(), rank);
      EXPECT_EQ(pg.getSize(), world);
      EXPECT_EQ(pg.getBackendName(), "gloo");
      for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16, kChar, kByte, kInt, kLong}) {
        SCOPED_TRACE(toString(dt));
        // Rank r holds [r + 1, 2 (r + 1), 3 (r + 1), 4].
        auto base = [&] { return tensor({1.0, 2.0, 3.0, 0.0}).mul(rank + 1).add(tensor({0.0, 0.0, 0.0, 4.0})).to(dt); };
        const double n = world;
        const double sum1 = n * (n + 1) / 2;
        struct Expect {
          ReduceOp op;
          std::vector<double> v;
        };
        double prod1 = 1;
        for (int r = 1; r <= world; ++r) prod1 *= r;
        std::vector<Expect> cases = {{ReduceOp::SUM, {sum1, 2 * sum1, 3 * sum1, 4 * n}},
                                     {ReduceOp::MAX, {n, 2 * n, 3 * n, 4}},
                                     {ReduceOp::MIN, {1, 2, 3, 4}},
                                     {ReduceOp::PRODUCT, {prod1, prod1 * (1 << world), prod1 * std::pow(3, world),
                                                          std::pow(4, world)}}};
        if (isFloatingType(dt)) cases.push_back({ReduceOp::AVG, {sum1 / n, 2 * sum1 / n, 3 * sum1 / n, 4}});
        for (const Expect& e : cases) {
          if ((dt == kChar || dt == kByte || dt == kHalf || dt == kBFloat16) && e.op == ReduceOp::PRODUCT && world > 2)
            continue;  // 3^3 * ... stays small, but keep 8-bit products in range
          Tensor t = base();
          std::vector<Tensor> ts{t};
          AllreduceOptions o;
          o.reduceOp = e.op;
          auto work = pg.allreduce(ts, o);
          EXPECT_TRUE(work->wait());
          EXPECT_TRUE(work->isSuccess());
          EXPECT_TENSOR_CLOSE(t.to(kDouble), tensor(e.v).to(kDouble), 1e-2, 0) << to_string(e.op);
          EXPECT_TRUE(work->result()[0].is_same(t));
        }
      }
    });
  }
}

TEST(ProcessGroupGloo, BroadcastAllgatherBarrierAndAsyncOrder) {
  on_threads(3, [](int rank, ProcessGroupGloo& pg) {
    for (int root = 0; root < 3; ++root) {
      Tensor t = full({2, 3}, double(rank * 10), TensorOptions().dtype(kDouble));
      std::vector<Tensor> ts{t};
      BroadcastOptions o;
      o.rootRank = root;
      pg.broadcast(ts, o)->wait();
      EXPECT_TENSOR_EQ(t, full({2, 3}, double(root * 10), TensorOptions().dtype(kDouble)));
    }
    Tensor b = tensor({rank == 1, false, true});
    std::vector<Tensor> bs{b};
    BroadcastOptions o1;
    o1.rootRank = 1;
    pg.broadcast(bs, o1)->wait();
    EXPECT_TENSOR_EQ(b, tensor({true, false, true}));
    // allgather of bfloat16 rows.
    Tensor in = full({4}, double(rank + 1), TensorOptions().dtype(kBFloat16));
    std::vector<Tensor> ins{in};
    std::vector<std::vector<Tensor>> outs(1);
    for (int r = 0; r < 3; ++r) outs[0].push_back(empty({4}, TensorOptions().dtype(kBFloat16)));
    pg.allgather(outs, ins)->wait();
    for (int r = 0; r < 3; ++r) EXPECT_TENSOR_EQ(outs[0][size_t(r)], full({4}, double(r + 1), TensorOptions().dtype(kBFloat16)));
    // Several collectives in flight: they run in issue order.
    std::vector<Tensor> a{ones({1000})}, c{ones({7}, TensorOptions().dtype(kLong))};
    auto w1 = pg.allreduce(a), w2 = pg.barrier(), w3 = pg.allreduce(c);
    w3->wait(), w2->wait(), w1->wait();
    EXPECT_TENSOR_EQ(a[0], full({1000}, 3.0));
    EXPECT_TENSOR_EQ(c[0], full({7}, 3, TensorOptions().dtype(kLong)));
  });
}

TEST(ProcessGroupGloo, ReduceGatherScatterReduceScatterAlltoallAndPointToPoint) {
  on_threads(3, [](int rank, ProcessGroupGloo& pg) {
    const auto dopt = TensorOptions().dtype(kDouble);
    // reduce to rank 2: only the root changes.
    Tensor t = full({3}, double(rank + 1), dopt);
    std::vector<Tensor> ts{t};
    ReduceOptions ro;
    ro.rootRank = 2;
    ro.reduceOp = ReduceOp::MAX;
    pg.reduce(ts, ro)->wait();
    EXPECT_TENSOR_EQ(t, full({3}, rank == 2 ? 3.0 : double(rank + 1), dopt));
    // gather to rank 1.
    std::vector<Tensor> in{full({2, 2}, double(rank), dopt)};
    std::vector<std::vector<Tensor>> gathered(1);
    if (rank == 1)
      for (int r = 0; r < 3; ++r) gathered[0].push_back(empty({2, 2}, dopt));
    GatherOptions go;
    go.rootRank = 1;
    pg.gather(gathered, in, go)->wait();
    if (rank == 1)
      for (int r = 0; r < 3; ++r) EXPECT_TENSOR_EQ(gathered[0][size_t(r)], full({2, 2}, double(r), dopt));
    // scatter from rank 0.
    std::vector<Tensor> out{empty({4}, TensorOptions().dtype(kLong))};
    std::vector<std::vector<Tensor>> pieces(1);
    if (rank == 0)
      for (int r = 0; r < 3; ++r) pieces[0].push_back(full({4}, 100 + r, TensorOptions().dtype(kLong)));
    pg.scatter(out, pieces)->wait();
    EXPECT_TENSOR_EQ(out[0], full({4}, 100 + rank, TensorOptions().dtype(kLong)));
    // reduce_scatter: rank r gets sum over ranks of their inputs[r] = sum_s (10 s + r).
    std::vector<Tensor> rs_out{empty({2}, dopt)};
    std::vector<std::vector<Tensor>> rs_in(1);
    for (int r = 0; r < 3; ++r) rs_in[0].push_back(full({2}, double(10 * rank + r), dopt));
    pg.reduce_scatter(rs_out, rs_in)->wait();
    EXPECT_TENSOR_EQ(rs_out[0], full({2}, double(30 + 3 * rank), dopt));
    // The flat forms, with bfloat16 and AVG.
    Tensor flat_in = full({2}, double(rank), TensorOptions().dtype(kBFloat16)), flat_out = empty({6}, TensorOptions().dtype(kBFloat16));
    pg._allgather_base(flat_out, flat_in)->wait();
    EXPECT_TENSOR_EQ(flat_out, tensor({0.0, 0.0, 1.0, 1.0, 2.0, 2.0}).to(kBFloat16));
    Tensor big = arange(6, dopt).add(rank), mine = empty({2}, dopt);
    ReduceScatterOptions avg;
    avg.reduceOp = ReduceOp::AVG;
    pg._reduce_scatter_base(mine, big, avg)->wait();
    EXPECT_TENSOR_CLOSE(mine, arange(2 * rank, 2 * rank + 2, dopt).add(1.0), 1e-12, 1e-12);
    // alltoall with different sizes per pair: rank r sends (r + 1) * (j + 1) elements to j.
    std::vector<Tensor> a_in, a_out;
    for (int j = 0; j < 3; ++j) {
      a_in.push_back(full({(rank + 1) * (j + 1)}, double(10 * rank + j), dopt));
      a_out.push_back(empty({(j + 1) * (rank + 1)}, dopt));
    }
    pg.alltoall(a_out, a_in)->wait();
    for (int j = 0; j < 3; ++j) EXPECT_TENSOR_EQ(a_out[size_t(j)], full({(j + 1) * (rank + 1)}, double(10 * j + rank), dopt));
    // send / recv around the ring, posted before waiting (no deadlock).
    std::vector<Tensor> mine_t{full({5}, double(rank), dopt)}, theirs{empty({5}, dopt)};
    auto s = pg.send(mine_t, (rank + 1) % 3, 7);
    auto r = pg.recv(theirs, (rank + 2) % 3, 7);
    r->wait(), s->wait();
    EXPECT_TRUE(r->isSuccess());
    EXPECT_TENSOR_EQ(theirs[0], full({5}, double((rank + 2) % 3), dopt));
  });
}

// The worker thread writes the callers' tensors below autograd: leaves that require grad (a
// model's parameters, as DDP's broadcast or a user's all_reduce of them) are fine.
TEST(ProcessGroupGloo, TensorsThatRequireGrad) {
  on_threads(2, [](int rank, ProcessGroupGloo& pg) {
    for (ScalarType dt : {kFloat, kBFloat16}) {
      Tensor p = full({3}, double(rank), TensorOptions().dtype(dt)).requires_grad_();
      std::vector<Tensor> ts{p};
      AllreduceOptions avg;
      avg.reduceOp = ReduceOp::AVG;
      pg.allreduce(ts, avg)->wait();
      EXPECT_TENSOR_EQ(p.detach(), full({3}, 0.5, TensorOptions().dtype(dt)));
      EXPECT_TRUE(p.requires_grad() && p.is_leaf());
    }
  });
}

TEST(ProcessGroupGloo, BadArgumentsAreClearErrors) {
  on_threads(2, [](int, ProcessGroupGloo& pg) {
    std::vector<Tensor> none;
    EXPECT_ERROR_WITH(pg.allreduce(none), "expected one tensor");
    std::vector<Tensor> strided{ones({4, 4}).t()};
    EXPECT_ERROR_WITH(pg.allreduce(strided), "expected a contiguous tensor");
    std::vector<Tensor> ints{ones({3}, TensorOptions().dtype(kInt))};
    AllreduceOptions avg;
    avg.reduceOp = ReduceOp::AVG;
    EXPECT_ERROR_WITH(pg.allreduce(ints, avg), "AVG needs a floating tensor");
    std::vector<Tensor> cplx{ones({3}, TensorOptions().dtype(kComplexFloat))};
    std::vector<Tensor> one{ones({3})};
    BroadcastOptions bad_root;
    bad_root.rootRank = 5;
    EXPECT_ERROR_WITH(pg.broadcast(one, bad_root), "root rank 5 is not in [0, 2)");
    std::vector<std::vector<Tensor>> outs(1, std::vector<Tensor>{ones({3})});
    EXPECT_ERROR_WITH(pg.allgather(outs, one), "expected 2 output tensors");
    // An unsupported dtype fails the Work, naming it (the error comes from the worker).
    EXPECT_ERROR_WITH(pg.allreduce(cplx)->wait(), "unsupported dtype ComplexFloat");
  });
  auto store = std::make_shared<HashStore>();
  EXPECT_ERROR_WITH(ProcessGroupGloo(store, 2, 2), "rank 2 is not in [0, 2)");
}

// A rank that dies mid-collective: the survivors' Work fails within the timeout, naming the
// collective, instead of hanging. Real processes on loopback, meeting in a TCPStore.
// Note [SIGPIPE and Gloo]: a process with a Gloo group ignores SIGPIPE (Gloo writes with
// writev), so a peer that died is an error of the collective, not a signal that ends this rank.
TEST(ProcessGroupGloo, IgnoresSigpipeSoADeadPeerIsAnErrorNotASignal) {
  const pid_t kid = store_testing::fork_child([] {
    ::signal(SIGPIPE, SIG_DFL);
    ProcessGroupGloo pg(std::make_shared<HashStore>(), 0, 1);
    struct sigaction now {};
    ::sigaction(SIGPIPE, nullptr, &now);
    store_testing::require(now.sa_handler == SIG_IGN, "SIGPIPE is ignored once a Gloo group exists");
    int fds[2];
    store_testing::require(::pipe(fds) == 0, "pipe");
    ::close(fds[0]);
    store_testing::require(::write(fds[1], "x", 1) == -1 && errno == EPIPE, "a write to a closed pipe fails with EPIPE");
  });
  store_testing::expect_children_succeed({kid});
}

TEST(ProcessGroupGloo, ADeadRankFailsTheOthersWithinTheTimeout) {
  uint16_t port = 0;
  const int listen_fd = store_testing::bound_socket(port);
  std::vector<pid_t> kids;
  for (int rank = 1; rank < 3; ++rank)
    kids.push_back(store_testing::fork_child([&, rank] {
      auto store = std::make_shared<TCPStore>("127.0.0.1", port, 3, false, std::chrono::milliseconds(10s));
      ProcessGroupGloo::Options o;
      o.timeout = 3s;
      ProcessGroupGloo pg(store, rank, 3, o);
      std::vector<Tensor> t{ones({8})};
      pg.allreduce(t)->wait();  // all three ranks take part
      store_testing::require(t[0].sum().item<double>() == 24.0, "first allreduce");
      if (rank == 2) std::_Exit(0);  // dies before the second collective
      std::vector<Tensor> u{ones({8})};
      bool failed = false;
      const auto t0 = std::chrono::steady_clock::now();
      try {
        pg.allreduce(u)->wait();
      } catch (const Error& e) {
        failed = std::string(e.what()).find("allreduce failed on rank") != std::string::npos;
      }
      const auto took = std::chrono::steady_clock::now() - t0;
      store_testing::require(failed, "the second allreduce must fail, naming itself");
      // Within the 3 s timeout, with room for a loaded machine (the tests run two at a time).
      store_testing::require(took < 9s, "and within the timeout, took " +
                                            std::to_string(std::chrono::duration<double>(took).count()) + " s");
      std::vector<Tensor> v{ones({8})};
      try {
        pg.allreduce(v)->wait();
      } catch (const Error&) {
      }
    }));
  TCPStoreOptions so;
  so.port = port, so.is_server = true, so.num_workers = 3, so.master_listen_fd = listen_fd, so.timeout = 10s;
  auto store = std::make_shared<TCPStore>("127.0.0.1", so);
  ProcessGroupGloo::Options o;
  o.timeout = 3s;
  ProcessGroupGloo pg(store, 0, 3, o);
  std::vector<Tensor> t{ones({8})};
  pg.allreduce(t)->wait();
  EXPECT_EQ(t[0].sum().item<double>(), 24.0);
  std::vector<Tensor> u{ones({8})};
  // Rank 2 (a zombie child of this process until reaped) is named (Note [Naming the missing rank]).
  EXPECT_ERROR_WITH(pg.allreduce(u)->wait(), "allreduce failed on rank 0 of 3");
  std::vector<Tensor> v{ones({8})};
  EXPECT_ERROR_WITH(pg.allreduce(v)->wait(), "ranks no longer running: 2 (pid " + std::to_string(kids[1]) + ")");
  store_testing::expect_children_succeed(kids);
}

}  // namespace pg_gloo
}  // namespace ember::test
