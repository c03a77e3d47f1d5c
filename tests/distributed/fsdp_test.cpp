// FullyShardedDataParallel (ember/distributed/fsdp.h, Note [FSDP flat parameters]) on forked
// ranks over Gloo (loopback). The reference is the same model trained in one process on the
// whole batch (every rank computes it locally from the same seed): for 50 AdamW steps the
// FSDP loss (averaged over the ranks' halves of the batch) follows the reference's and the
// final parameters match, for each sharding strategy, with and without mixed precision, on
// 2 and 4 ranks. The mixed-precision reference keeps fp32 master weights and computes in a
// bfloat16 copy of the model (independent of FSDP's flat parameters). Further: the unit
// layout of an auto-wrap policy, shards of 1/N, parameters freed between uses, no_sync
// accumulation, clip_grad_norm_, full and sharded state dicts (saved by 2 ranks, loaded by
// 4 and by 1), summon_full_params with write-back, and errors.
#include <torch/torch.h>

#include <filesystem>

#include "ember/autograd/checkpoint.h"
#include "ember/core/allocator.h"
#include "ember/distributed/fsdp.h"
#include "ember/serialize/safetensors.h"
#include "store_test_util.h"
#include "test_util.h"

namespace ember::test {
namespace fsdp_test {  // named: the tests build as one unity file

namespace dist = ember::distributed;
namespace fsdp = ember::distributed::fsdp;
using dist::store_testing::require;
using namespace std::chrono_literals;

constexpr int64_t kDim = 16, kBatch = 8, kBlocks = 3;

struct BlockImpl : torch::nn::Module {
  torch::nn::LayerNorm ln{nullptr};
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  BlockImpl() {
    ln = register_module("ln", torch::nn::LayerNorm(torch::nn::LayerNormOptions({kDim})));
    fc1 = register_module("fc1", torch::nn::Linear(kDim, 2 * kDim));
    fc2 = register_module("fc2", torch::nn::Linear(2 * kDim, kDim));
  }
  torch::Tensor forward(const torch::Tensor& x) { return x + fc2(torch::gelu(fc1(ln(x)))); }
};
TORCH_MODULE(Block);

struct ModelImpl : torch::nn::Module {
  torch::nn::Linear in{nullptr}, head{nullptr};
  std::vector<Block> blocks;
  ModelImpl() {
    in = register_module("in", torch::nn::Linear(5, kDim));
    for (int64_t i = 0; i < kBlocks; ++i) blocks.push_back(register_module("block" + std::to_string(i), Block()));
    head = register_module("head", torch::nn::Linear(kDim, 3));
    register_buffer("scale", torch::full({3}, 0.5));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = in(x);
    for (auto& b : blocks) h = b(h);
    return head(h) * named_buffers()["scale"].to(h.scalar_type());
  }
};
TORCH_MODULE(Model);

Model make_model() {
  torch::manual_seed(7);
  return Model();
}

struct Batch {
  Tensor x, y;
};
Batch batch(int step) {
  torch::manual_seed(1000 + uint64_t(step));
  return {torch::randn({kBatch, 5}), torch::randn({kBatch, 3})};
}

// Runs body(rank, world) in `world` forked ranks that share a default Gloo group.
void on_ranks(int world, const std::function<void(int, int)>& body) {
  uint16_t port = 0;
  ::close(dist::store_testing::bound_socket(port));
  std::vector<pid_t> kids;
  for (int rank = 0; rank < world; ++rank)
    kids.push_back(dist::store_testing::fork_child([&, rank] {
      ::setenv("LOCAL_WORLD_SIZE", "2", 1);  // HYBRID_SHARD: "nodes" of two ranks
      dist::init_process_group("gloo", "tcp://127.0.0.1:" + std::to_string(port), world, rank, 20s);
      body(rank, world);
      dist::barrier();  // rank 0 hosts the store: nobody leaves while others may still use it
      dist::destroy_process_group();
    }));
  dist::store_testing::expect_children_succeed(kids);
}

fsdp::FullyShardedDataParallelOptions options(fsdp::ShardingStrategy s, bool mixed) {
  fsdp::FullyShardedDataParallelOptions o;
  o.sharding_strategy = s;
  o.auto_wrap_policy = fsdp::ModuleWrapPolicy<BlockImpl>();
  if (mixed) o.mixed_precision = {torch::kBFloat16, torch::kBFloat16, std::nullopt};
  return o;
}

// The single-process reference; with `mixed`, fp32 master weights and a bfloat16 working copy.
struct Reference {
  Model master = make_model();
  Model work{nullptr};
  std::unique_ptr<torch::optim::AdamW> opt;
  bool mixed;
  explicit Reference(bool mixed) : mixed(mixed) {
    opt = std::make_unique<torch::optim::AdamW>(master->parameters(), torch::optim::AdamWOptions(1e-2));
    if (mixed) {
      work = make_model();
      work->to(torch::kBFloat16);
      work->named_buffers()["scale"].set_data(master->named_buffers()["scale"].clone());  // buffers stay fp32
    }
  }
  double step(const Batch& b) {
    opt->zero_grad();
    if (!mixed) {
      torch::Tensor loss = torch::mse_loss(master(b.x), b.y);
      loss.backward();
      opt->step();
      return loss.item<double>();
    }
    auto mp = master->parameters(), wp = work->parameters();
    {
      torch::NoGradGuard g;
      for (size_t i = 0; i < mp.size(); ++i) wp[i].copy_(mp[i]), wp[i].mutable_grad() = torch::Tensor();
    }
    torch::Tensor loss = torch::mse_loss(work(b.x.to(torch::kBFloat16)).to(torch::kFloat), b.y);
    loss.backward();
    for (size_t i = 0; i < mp.size(); ++i) mp[i].mutable_grad() = wp[i].grad().to(torch::kFloat);
    opt->step();
    return loss.item<double>();
  }
};

void require_error(const std::function<void()>& fn, const std::string& part) {
  try {
    fn();
  } catch (const std::exception& e) {
    require(std::string(e.what()).find(part) != std::string::npos, "error mentions '" + part + "': " + e.what());
    return;
  }
  require(false, "expected an error mentioning '" + part + "'");
}

double rank_mean(double v) {
  Tensor t = torch::tensor({v}, torch::kDouble);
  dist::all_reduce(t, dist::ReduceOp::AVG);
  return t.item<double>();
}

struct Config {
  fsdp::ShardingStrategy strategy;
  bool mixed;
  int world;
};
void PrintTo(const Config& c, std::ostream* os) {  // gtest's description of a case
  *os << "strategy " << int(c.strategy) << (c.mixed ? ", bf16" : ", fp32") << ", " << c.world << " ranks";
}
std::string config_name(const testing::TestParamInfo<Config>& info) {
  const char* s[] = {"FullShard", "ShardGradOp", "NoShard", "HybridShard"};
  return std::string(s[int(info.param.strategy)]) + (info.param.mixed ? "Bf16" : "Fp32") + "On" +
         std::to_string(info.param.world);
}

class FsdpLossCurve : public testing::TestWithParam<Config> {};

TEST_P(FsdpLossCurve, FiftyStepsFollowTheSingleProcessRun) {
  const Config c = GetParam();
  on_ranks(c.world, [c](int rank, int world) {
    Model model = make_model();
    fsdp::FullyShardedDataParallel<Model> sharded(model, options(c.strategy, c.mixed));
    require(sharded.runtime().unit_names() == std::vector<std::string>({"block0", "block1", "block2", ""}),
            "one unit per block, the root last");
    torch::optim::AdamW opt(sharded.parameters(), torch::optim::AdamWOptions(1e-2));
    Reference ref(c.mixed);
    const int64_t local = kBatch / world;
    const double tol = c.mixed ? 3e-2 : 2e-4;
    for (int step = 0; step < 50; ++step) {
      const Batch b = batch(step);
      const double expected = ref.step(b);
      sharded.zero_grad();
      const Tensor out = sharded(b.x.narrow(0, rank * local, local));
      const Tensor loss = torch::mse_loss(out.to(torch::kFloat), b.y.narrow(0, rank * local, local));
      loss.backward();
      opt.step();
      const double got = rank_mean(loss.item<double>());
      require(std::abs(got - expected) <= tol * std::abs(expected) + 1e-6,
              "step " + std::to_string(step) + ": loss " + std::to_string(got) + ", single process " +
                  std::to_string(expected));
      if (c.strategy != fsdp::ShardingStrategy::NO_SHARD)
        require(model->blocks[1]->fc1->weight.numel() == 0, "a block's parameters are freed between steps");
    }
    // The final parameters, gathered, against the reference's.
    auto full = sharded.state_dict();
    auto expected = ref.master->named_parameters();
    for (const auto& item : expected) {
      const Tensor* got = full.find(item.key());
      require(got != nullptr, "state_dict has " + item.key());
      require(got->allclose(item.value(), c.mixed ? 5e-2 : 1e-3, c.mixed ? 5e-2 : 1e-4),
              "parameter " + item.key() + " after 50 steps");
    }
  });
}

INSTANTIATE_TEST_SUITE_P(
    Strategies, FsdpLossCurve,
    testing::Values(Config{fsdp::ShardingStrategy::FULL_SHARD, false, 2},
                    Config{fsdp::ShardingStrategy::SHARD_GRAD_OP, false, 2},
                    Config{fsdp::ShardingStrategy::NO_SHARD, false, 2},
                    Config{fsdp::ShardingStrategy::HYBRID_SHARD, false, 2},
                    Config{fsdp::ShardingStrategy::FULL_SHARD, true, 2},
                    Config{fsdp::ShardingStrategy::SHARD_GRAD_OP, true, 2},
                    Config{fsdp::ShardingStrategy::NO_SHARD, true, 2},
                    Config{fsdp::ShardingStrategy::HYBRID_SHARD, true, 2},
                    Config{fsdp::ShardingStrategy::FULL_SHARD, false, 4},
                    Config{fsdp::ShardingStrategy::SHARD_GRAD_OP, true, 4},
                    Config{fsdp::ShardingStrategy::NO_SHARD, false, 4},
                    Config{fsdp::ShardingStrategy::HYBRID_SHARD, false, 4},
                    Config{fsdp::ShardingStrategy::HYBRID_SHARD, true, 4}),
    config_name);

TEST(FullyShardedDataParallel, ShardsAreOneNthAndUnitsAreFreedAfterUse) {
  on_ranks(2, [](int rank, int) {
    Model model = make_model();
    int64_t total = 0;
    for (const Tensor& p : model->parameters()) total += p.numel();
    fsdp::FullyShardedDataParallelOptions o = options(fsdp::ShardingStrategy::FULL_SHARD, false);
    o.backward_prefetch = fsdp::BackwardPrefetch::NONE;
    fsdp::FullyShardedDataParallel<Model> sharded(model, o);
    int64_t local = 0;
    for (const Tensor& p : sharded.parameters()) local += p.numel(), require(p.is_leaf() && p.requires_grad(), "leaf");
    require(local * 2 >= total && local * 2 <= total + 2 * 4, "each rank holds half (plus padding)");
    // During a block's forward only the root and that block are gathered.
    size_t most = 0;
    for (auto& b : model->blocks)
      b->register_forward_pre_hook([&](torch::nn::Module&) {  // runs after FSDP's, which gathers
        most = std::max(most, sharded.runtime().unsharded_units());
      });
    torch::mse_loss(sharded(torch::randn({4, 5})), torch::randn({4, 3})).backward();
    require(most == 2, "the root and one block gathered at a time, got " + std::to_string(most));
    require(sharded.runtime().unsharded_units() == 0, "everything freed after backward");
    for (const Tensor& p : sharded.parameters()) require(p.grad().defined() && p.grad().sizes() == p.sizes(), "shard grads");
    (void)rank;
  });
}

// Prefetching changes when gathers start, not what is computed: every combination gives the
// same gradients, bit for bit (the same collectives sum the same bytes).
TEST(FullyShardedDataParallel, PrefetchModesGiveIdenticalGradients) {
  on_ranks(2, [](int rank, int) {
    std::vector<std::vector<Tensor>> grads;
    for (auto bp : {fsdp::BackwardPrefetch::NONE, fsdp::BackwardPrefetch::BACKWARD_PRE,
                    fsdp::BackwardPrefetch::BACKWARD_POST}) {
      for (bool forward_prefetch : {false, true}) {
        for (bool limit : {true, false}) {
          Model model = make_model();
          fsdp::FullyShardedDataParallelOptions o = options(fsdp::ShardingStrategy::FULL_SHARD, false);
          o.backward_prefetch = bp, o.forward_prefetch = forward_prefetch, o.limit_all_gathers = limit;
          o.cpu_offload.offload_params = forward_prefetch;  // on a CPU-only run the shards stay where they are
          fsdp::FullyShardedDataParallel<Model> sharded(model, o);
          torch::optim::SGD opt(sharded.parameters(), 0.05);
          std::vector<Tensor> g;
          for (int step = 0; step < 3; ++step) {  // later steps use the recorded order
            const Batch b = batch(step);
            sharded.zero_grad();
            torch::mse_loss(sharded(b.x.narrow(0, rank * 4, 4)), b.y.narrow(0, rank * 4, 4)).backward();
            opt.step();
          }
          for (const Tensor& p : sharded.parameters()) g.push_back(p.detach().clone());
          require(sharded.runtime().unsharded_units() == 0, "nothing left gathered");
          grads.push_back(g);
        }
      }
    }
    for (size_t v = 1; v < grads.size(); ++v)
      for (size_t i = 0; i < grads[0].size(); ++i)
        require(grads[v][i].equal(grads[0][i]), "variant " + std::to_string(v) + " shard " + std::to_string(i));
  });
}

// Activation checkpointing of the units (apply_activation_checkpointing, or ember::utils::checkpoint
// around a unit's call inside the model's forward) recomputes them in backward after FSDP has
// gathered them again: the same losses and parameters as without it.
struct CheckpointedModelImpl : ModelImpl {
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = in(x);
    for (auto& b : blocks) h = ember::utils::checkpoint([&](const torch::Tensor& t) { return b(t); }, h);
    return head(h) * named_buffers()["scale"].to(h.scalar_type());
  }
};
TORCH_MODULE(CheckpointedModel);

TEST(FullyShardedDataParallel, ActivationCheckpointingGivesTheSameTraining) {
  on_ranks(2, [](int rank, int) {
    auto run = [&](int how) {
      torch::manual_seed(7);
      std::vector<double> losses;
      std::vector<Tensor> params;
      auto train = [&](auto model) {
        fsdp::FullyShardedDataParallel<decltype(model)> sharded(model, options(fsdp::ShardingStrategy::FULL_SHARD, false));
        if (how == 1)
          fsdp::apply_activation_checkpointing(
              *model, [](const torch::nn::Module& m) { return dynamic_cast<const BlockImpl*>(&m) != nullptr; });
        torch::optim::AdamW opt(sharded.parameters(), torch::optim::AdamWOptions(1e-2));
        for (int step = 0; step < 5; ++step) {
          const Batch b = batch(step);
          sharded.zero_grad();
          Tensor loss = torch::mse_loss(sharded(b.x.narrow(0, rank * 4, 4)), b.y.narrow(0, rank * 4, 4));
          loss.backward();
          opt.step();
          losses.push_back(loss.item<double>());
        }
        for (auto& item : sharded.state_dict()) params.push_back(item.value());
      };
      if (how == 2) train(CheckpointedModel());
      else train(Model());
      return std::make_pair(losses, params);
    };
    const auto plain = run(0), wrapped = run(1), functional = run(2);
    for (const auto* other : {&wrapped, &functional}) {
      for (size_t i = 0; i < plain.first.size(); ++i)
        require(std::abs(other->first[i] - plain.first[i]) <= 1e-6 * std::abs(plain.first[i]), "loss " + std::to_string(i));
      for (size_t i = 0; i < plain.second.size(); ++i)
        require(other->second[i].allclose(plain.second[i], 1e-5, 1e-6), "parameter " + std::to_string(i));
    }
  });
}

TEST(FullyShardedDataParallel, ActivationCheckpointingLeavesFrozenBlocksOnInputsWithoutGradAlone) {
  // No ranks needed: the wrapper alone. A frozen block on an input that needs no gradient runs
  // plainly (its output does not require grad); a trainable one is checkpointed (its output
  // does, and its parameters get gradients).
  torch::nn::Sequential model(torch::nn::Linear(4, 4), torch::nn::Linear(4, 4));
  fsdp::apply_activation_checkpointing(*model, [](const torch::nn::Module& m) {
    return dynamic_cast<const torch::nn::LinearImpl*>(&m) != nullptr;
  });
  auto frozen = model[0]->as<torch::nn::Linear>();
  for (auto& p : frozen->parameters()) p.set_requires_grad(false);
  const Tensor x = torch::randn({2, 4});
  const Tensor y = model->forward(x);
  EXPECT_TRUE(y.requires_grad());
  y.sum().backward();
  EXPECT_TRUE(model[1]->as<torch::nn::Linear>()->weight.grad().defined());
  EXPECT_FALSE(frozen->weight.grad().defined());
  torch::nn::Linear alone(4, 4);
  for (auto& p : alone->parameters()) p.set_requires_grad(false);
  fsdp::apply_activation_checkpointing(*torch::nn::Sequential(alone), [](const torch::nn::Module&) { return true; });
  EXPECT_FALSE(alone(x).requires_grad()) << "a frozen block on an input without grad: no graph";
}

// A frozen unit between trainable ones is gathered again for the backward that flows through
// it; a parameter used on one rank only does not hold its unit's reduction back (the other
// units' collectives stay matched); TransformerEncoder's layers are units (called with hooks).
struct BranchImpl : torch::nn::Module {
  torch::nn::Linear a{nullptr}, b{nullptr};
  BranchImpl() {
    a = register_module("a", torch::nn::Linear(kDim, kDim));
    b = register_module("b", torch::nn::Linear(kDim, kDim));
  }
  bool use_b = true;
  torch::Tensor forward(const torch::Tensor& x) { return use_b ? a(x) + b(x) : a(x); }
};
TORCH_MODULE(Branch);
struct BranchyImpl : torch::nn::Module {
  torch::nn::Linear in{nullptr}, head{nullptr};
  Branch mid{nullptr};
  Block frozen{nullptr};
  BranchyImpl() {
    in = register_module("in", torch::nn::Linear(5, kDim));
    mid = register_module("mid", Branch());
    frozen = register_module("frozen", Block());
    head = register_module("head", torch::nn::Linear(kDim, 3));
    for (auto& p : frozen->parameters()) p.set_requires_grad(false);
  }
  torch::Tensor forward(const torch::Tensor& x) { return head(frozen(mid(in(x)))); }
};
TORCH_MODULE(Branchy);

TEST(FullyShardedDataParallel, FrozenUnitsAndParametersUnusedOnOneRank) {
  on_ranks(2, [](int rank, int) {
    torch::manual_seed(8);
    Branchy model;
    torch::manual_seed(8);
    Branchy ref;
    fsdp::FullyShardedDataParallelOptions o;
    o.auto_wrap_policy = fsdp::ModuleWrapPolicy<BranchImpl, BlockImpl>();
    fsdp::FullyShardedDataParallel<Branchy> sharded(model, o);
    require(sharded.runtime().unit_names().size() == 3, "mid, frozen, root");
    std::vector<Tensor> trainable;
    for (auto& p : ref->parameters())
      if (p.requires_grad()) trainable.push_back(p);
    torch::optim::SGD a(sharded.parameters(), 0.1), b(trainable, 0.1);
    for (int step = 0; step < 3; ++step) {
      const Batch d = batch(step);
      model->mid->use_b = rank == 0;  // b is used on rank 0 only
      a.zero_grad(), b.zero_grad();
      torch::mse_loss(sharded(d.x.narrow(0, rank * 4, 4)), d.y.narrow(0, rank * 4, 4)).backward();
      a.step();
      // The reference: each half through its own branch, averaged (what the two ranks compute).
      ref->mid->use_b = true;
      Tensor l0 = torch::mse_loss(ref(d.x.narrow(0, 0, 4)), d.y.narrow(0, 0, 4));
      ref->mid->use_b = false;
      Tensor l1 = torch::mse_loss(ref(d.x.narrow(0, 4, 4)), d.y.narrow(0, 4, 4));
      ((l0 + l1) / 2).backward();
      b.step();
    }
    auto got = sharded.state_dict();
    for (auto& item : ref->named_parameters())
      require(got[item.key()].allclose(item.value(), 1e-5, 1e-6), "parameter " + item.key());
  });
}

TEST(FullyShardedDataParallel, TransformerEncoderLayersAreUnits) {
  on_ranks(2, [](int rank, int) {
    auto make = [] {
      torch::manual_seed(9);
      return torch::nn::TransformerEncoder(
          torch::nn::TransformerEncoderOptions(torch::nn::TransformerEncoderLayerOptions(16, 2).dropout(0.0), 3));
    };
    torch::nn::TransformerEncoder model = make(), ref = make();
    fsdp::FullyShardedDataParallelOptions o;
    o.auto_wrap_policy = fsdp::ModuleWrapPolicy<torch::nn::TransformerEncoderLayerImpl>();
    fsdp::FullyShardedDataParallel<torch::nn::TransformerEncoder> sharded(model, o);
    require(sharded.runtime().unit_names().size() == 4, "three layers and the root");
    torch::manual_seed(10);
    const Tensor x = torch::randn({5, 4, 16});
    Tensor out = sharded(x.narrow(1, rank * 2, 2));
    require(out.allclose(ref(x).narrow(1, rank * 2, 2), 1e-5, 1e-6), "the same output");
    out.pow(2).mean().backward();
    require(sharded.runtime().unsharded_units() == 0, "every layer freed after backward");
  });
}

TEST(FullyShardedDataParallel, NoSyncAccumulatesLikeOneBigBatch) {
  on_ranks(2, [](int rank, int) {
    Model a = make_model(), b = make_model();
    fsdp::FullyShardedDataParallel<Model> acc(a, options(fsdp::ShardingStrategy::FULL_SHARD, false));
    fsdp::FullyShardedDataParallel<Model> once(b, options(fsdp::ShardingStrategy::FULL_SHARD, false));
    const Batch d = batch(3);
    const Tensor x = d.x.narrow(0, rank * 4, 4), y = d.y.narrow(0, rank * 4, 4);
    {
      // While gradients reach each block, the blocks already done are freed again (FULL_SHARD frees in
      // backward under no_sync too): the root and the block at hand are all that is gathered.
      size_t most = 0;
      std::vector<unsigned> ids;
      for (auto& blk : a->blocks)
        ids.push_back(blk->register_forward_hook([&](torch::nn::Module&, const std::vector<Tensor>& out) {
          out[0].register_hook([&](const Tensor&) { most = std::max(most, acc.runtime().unsharded_units()); });
        }));
      auto guard = acc.no_sync();
      (torch::mse_loss(acc(x.narrow(0, 0, 2)), y.narrow(0, 0, 2)) / 2).backward();
      for (const Tensor& p : acc.parameters()) require(!p.grad().defined(), "no reduction inside no_sync");
      require(most == 2, "units gathered at once in a no_sync backward: " + std::to_string(most));
      for (size_t i = 0; i < ids.size(); ++i) a->blocks[i]->remove_forward_hook(ids[i]);
    }
    (torch::mse_loss(acc(x.narrow(0, 2, 2)), y.narrow(0, 2, 2)) / 2).backward();
    torch::mse_loss(once(x), y).backward();
    for (size_t i = 0; i < acc.parameters().size(); ++i)
      require(acc.parameters()[i].grad().allclose(once.parameters()[i].grad(), 1e-5, 1e-6), "accumulated gradient");
  });
}

TEST(FullyShardedDataParallel, ClipGradNormUsesEveryRanksShard) {
  on_ranks(2, [](int rank, int) {
    Model model = make_model();
    fsdp::FullyShardedDataParallel<Model> sharded(model, options(fsdp::ShardingStrategy::FULL_SHARD, false));
    Model ref = make_model();
    const Batch d = batch(5);
    torch::mse_loss(ref(d.x), d.y).backward();
    const double expected = torch::nn::utils::clip_grad_norm_(ref->parameters(), 0.01);
    torch::mse_loss(sharded(d.x.narrow(0, rank * 4, 4)), d.y.narrow(0, rank * 4, 4)).backward();
    const double got = sharded.clip_grad_norm_(0.01);
    require(std::abs(got - expected) <= 1e-4 * expected, "total norm " + std::to_string(got) + " vs " +
            std::to_string(expected));
    double sq = 0;
    for (const Tensor& p : sharded.parameters()) sq += p.grad().pow(2).sum().item<double>();
    Tensor t = torch::tensor({sq}, torch::kDouble);
    dist::all_reduce(t);
    require(std::abs(std::sqrt(t.item<double>()) - 0.01) < 1e-5, "clipped to max_norm");
  });
}

std::string temp_dir(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("ember_fsdp_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  return d.string();
}

// Trains 3 steps on `world` ranks and writes a sharded and a full checkpoint.
void train_and_save(int world, const std::string& dir, fsdp::ShardingStrategy s) {
  on_ranks(world, [&](int rank, int w) {
    Model model = make_model();
    fsdp::FullyShardedDataParallel<Model> sharded(model, options(s, false));
    torch::optim::SGD opt(sharded.parameters(), 0.1);
    for (int step = 0; step < 3; ++step) {
      const Batch b = batch(step);
      sharded.zero_grad();
      torch::mse_loss(sharded(b.x.narrow(0, rank * (kBatch / w), kBatch / w)),
                      b.y.narrow(0, rank * (kBatch / w), kBatch / w)).backward();
      opt.step();
    }
    sharded.save_sharded_state_dict(dir + "/sharded");
    auto full = sharded.state_dict(/*rank0_only=*/true);
    require(rank == 0 || full.is_empty(), "rank0_only");
    if (rank == 0) {
      std::map<std::string, Tensor> m;
      for (auto& item : full) m[item.key()] = item.value();
      serialize::save_file(m, dir + "/full.safetensors");
    }
  });
}

TEST(FullyShardedDataParallel, ShardedStateDictLoadsIntoAnotherWorldSize) {
  const std::string dir = temp_dir("sharded");
  train_and_save(2, dir, fsdp::ShardingStrategy::FULL_SHARD);
  ASSERT_TRUE(std::filesystem::exists(dir + "/sharded/index.json"));
  ASSERT_TRUE(std::filesystem::exists(dir + "/sharded/shard-1.safetensors"));
  const auto full = serialize::load_file(dir + "/full.safetensors").tensors;
  ASSERT_EQ(full.count("block1.fc1.weight"), 1u);
  // The trained model differs from a fresh one (the checkpoint is not trivially the initial state).
  EXPECT_FALSE(full.at("block1.fc1.weight").allclose(make_model()->blocks[1]->fc1->weight));
  for (int world : {4, 1}) {
    for (auto strategy : {fsdp::ShardingStrategy::FULL_SHARD, fsdp::ShardingStrategy::NO_SHARD}) {
      on_ranks(world, [&](int, int) {
        Model model = make_model();
        fsdp::FullyShardedDataParallel<Model> sharded(model, options(strategy, false));
        sharded.load_sharded_state_dict(dir + "/sharded");
        auto got = sharded.state_dict();
        require(got.size() == full.size(), "every parameter and buffer");
        for (const auto& [name, t] : full) require(got.find(name) && got[name].equal(t), "loaded " + name);
        // And the full state dict loads too (into a fresh model: equal again).
        Model other = make_model();
        fsdp::FullyShardedDataParallel<Model> again(other, options(strategy, false));
        OrderedDict<std::string, Tensor> fd("Tensor");
        for (const auto& [name, t] : full) fd.insert(name, t);
        again.load_state_dict(fd);
        const Tensor x = batch(9).x;
        require(again(x).equal(sharded(x)), "same outputs after either load");
      });
    }
  }
  std::filesystem::remove_all(dir);
}

// The full optimizer state dict is the plain optimizer's (same numbering, unflattened tensors),
// and it loads into FSDP on another world size, which then steps exactly as the plain one.
TEST(FullyShardedDataParallel, OptimizerStateDictIsThePlainOptimizers) {
  const std::string dir = temp_dir("optim");
  std::filesystem::create_directories(dir);
  auto adam = [](std::vector<Tensor> p) {
    return std::make_unique<torch::optim::Adam>(p, torch::optim::AdamOptions(1e-2).weight_decay(0.01));
  };
  // The plain run: 3 steps, its state dict saved with the model; then 2 more steps.
  Model ref = make_model();
  auto ref_opt = adam(ref->parameters());
  for (int step = 0; step < 5; ++step) {
    if (step == 3) {
      torch::save(*ref_opt, dir + "/ref_optim.pt");
      torch::save(ref, dir + "/ref_model.pt");
    }
    ref_opt->zero_grad();
    const Batch b = batch(step);
    torch::mse_loss(ref(b.x), b.y).backward();
    ref_opt->step();
  }
  for (int world : {2, 4}) {
    on_ranks(world, [&](int rank, int w) {
      // FSDP's 3 steps give the plain optimizer's state.
      Model model = make_model();
      fsdp::FullyShardedDataParallel<Model> sharded(model, options(fsdp::ShardingStrategy::FULL_SHARD, false));
      auto opt = adam(sharded.parameters());
      const int64_t local = kBatch / w;
      auto train = [&](int step) {
        opt->zero_grad();
        const Batch b = batch(step);
        torch::mse_loss(sharded(b.x.narrow(0, rank * local, local)), b.y.narrow(0, rank * local, local)).backward();
        opt->step();
      };
      for (int step = 0; step < 3; ++step) train(step);
      Model plain = make_model();
      auto plain_opt = adam(plain->parameters());
      torch::load(*plain_opt, dir + "/ref_optim.pt");
      const auto expected = plain_opt->state_dict();
      const auto got = sharded.optim_state_dict(*opt);
      require(got.param_groups.size() == 1 && got.param_groups[0].params == expected.param_groups[0].params,
              "the plain optimizer's numbering");
      require(got.state.size() == expected.state.size(), "state for every parameter");
      for (const auto& [i, st] : expected.state) {
        require(got.state.at(i).step == st.step, "step of " + std::to_string(i));
        for (const auto& [name, t] : st.tensors)
          require(got.state.at(i).tensors.at(name).allclose(t, 1e-3, 1e-6), name + " of " + std::to_string(i));
      }
      // The plain optimizer's state and model loaded into a fresh FSDP: the next steps match the plain run.
      Model fresh = make_model();
      fsdp::FullyShardedDataParallel<Model> again(fresh, options(fsdp::ShardingStrategy::FULL_SHARD, false));
      Model saved;
      torch::load(saved, dir + "/ref_model.pt");
      OrderedDict<std::string, Tensor> sd("Tensor");
      for (auto& item : saved->named_parameters()) sd.insert(item.key(), item.value().detach());
      for (auto& item : saved->named_buffers()) sd.insert(item.key(), item.value());
      again.load_state_dict(sd);
      auto again_opt = adam(again.parameters());
      again.load_optim_state_dict(*again_opt, expected);
      for (int step = 3; step < 5; ++step) {
        again_opt->zero_grad();
        const Batch b = batch(step);
        torch::mse_loss(again(b.x.narrow(0, rank * local, local)), b.y.narrow(0, rank * local, local)).backward();
        again_opt->step();
      }
      auto final_params = again.state_dict();
      for (auto& item : ref->named_parameters())
        require(final_params[item.key()].allclose(item.value(), 1e-3, 1e-5), "resumed " + item.key());
    });
  }
  std::filesystem::remove_all(dir);
}

// Deferred initialization: a model built on the meta device is materialized one unit at a time
// (the construction's peak stays far below the whole model), every module initialized as its
// constructor would, and it then trains exactly like a plain model holding the same values.
struct WideImpl : torch::nn::Module {
  std::vector<torch::nn::Linear> layers;
  WideImpl() {
    for (int i = 0; i < 8; ++i) layers.push_back(register_module("l" + std::to_string(i), torch::nn::Linear(256, 256)));
  }
  torch::Tensor forward(torch::Tensor x) {
    for (auto& l : layers) x = torch::tanh(l(x));
    return x;
  }
};
TORCH_MODULE(Wide);

TEST(FullyShardedDataParallel, MetaDeviceModelIsMaterializedUnitByUnit) {
  on_ranks(2, [](int rank, int) {
    torch::set_default_device(torch::kMeta);
    Wide model;
    torch::set_default_device(torch::kCPU);
    require(model->layers[3]->weight.is_meta(), "built on meta");
    const int64_t whole = 8 * (256 * 256 + 256) * 4;
    torch::manual_seed(5);
    ember::cpu::empty_cache();
    const int64_t before = ember::cpu::allocator_stats().allocated_bytes;
    ember::cpu::reset_peak_stats();
    fsdp::FullyShardedDataParallelOptions o;
    o.auto_wrap_policy = fsdp::ModuleWrapPolicy<torch::nn::LinearImpl>();
    o.sync_module_states = true;
    fsdp::FullyShardedDataParallel<Wide> sharded(model, o);
    const int64_t peak = ember::cpu::allocator_stats().peak_allocated_bytes - before;
    const int64_t kept = ember::cpu::allocator_stats().allocated_bytes - before;
    // Never more than a few unit-sized buffers beyond the shards (the materialized unit, its
    // flattened copy, the shard being cut); the model itself would be 8 units.
    const int64_t unit = whole / 8;
    require(peak - kept <= 3 * unit, "construction peak " + std::to_string(peak) + " with " + std::to_string(kept) +
            " kept, units of " + std::to_string(unit));
    require(kept <= whole * 13 / 20, "about half the model kept per rank: " + std::to_string(kept));
    auto values = sharded.state_dict();
    const Tensor w = values["l3.weight"];
    require(w.device().is_cpu() && w.abs().max().item<double>() <= 1.0 / 16 + 1e-6 && w.std().item<double>() > 0.02,
            "Linear's kaiming-uniform initialization (bound 1/sqrt(256))");
    // A plain model holding the same values trains the same.
    Wide plain;
    {
      torch::NoGradGuard g;
      for (auto& item : plain->named_parameters()) item.value().copy_(values[item.key()]);
    }
    torch::optim::SGD a(sharded.parameters(), 0.1), b(plain->parameters(), 0.1);
    for (int step = 0; step < 3; ++step) {
      torch::manual_seed(50 + uint64_t(step));
      const Tensor x = torch::randn({4, 256});
      a.zero_grad(), b.zero_grad();
      Tensor la = sharded(x.narrow(0, rank * 2, 2)).pow(2).mean();
      la.backward();
      a.step();
      Tensor lb = plain(x).pow(2).mean();
      lb.backward();
      b.step();
      require(std::abs(rank_mean(la.item<double>()) - lb.item<double>()) < 1e-5, "same loss at step " + std::to_string(step));
    }
    // A module FSDP cannot initialize by itself is named.
    torch::set_default_device(torch::kMeta);
    Model custom;  // its root owns a buffer of its own
    torch::set_default_device(torch::kCPU);
    require_error([&] { fsdp::FullyShardedDataParallel<Model> f(custom); }, "cannot initialize");
  });
}

TEST(FullyShardedDataParallel, SummonFullParamsWritesBack) {
  on_ranks(2, [](int, int) {
    Model model = make_model();
    fsdp::FullyShardedDataParallel<Model> sharded(model, options(fsdp::ShardingStrategy::FULL_SHARD, true));
    {
      auto full = sharded.summon_full_params();
      const Tensor& w = model->blocks[0]->fc2->weight;
      require(w.sizes() == IntArrayRef({kDim, 2 * kDim}) && w.scalar_type() == torch::kFloat, "full fp32 values");
      require(w.equal(make_model()->blocks[0]->fc2->weight), "the initial values");
      torch::NoGradGuard g;
      model->blocks[0]->fc2->weight.fill_(0.25);
    }
    require(model->blocks[0]->fc2->weight.numel() == 0, "freed again");
    auto sd = sharded.state_dict();
    require((sd["block0.fc2.weight"] == 0.25).all().item<bool>(), "written back");
  });
}

TEST(FullyShardedDataParallel, ClearErrors) {
  on_ranks(2, [](int, int) {
    struct MixedImpl : torch::nn::Module {
      MixedImpl() {
        register_parameter("a", torch::ones({2}));
        register_parameter("b", torch::ones({2}, torch::kDouble));
      }
      Tensor forward(const Tensor& x) { return x; }
    };
    auto mixed = std::make_shared<MixedImpl>();
    require_error(
        [&] { fsdp::FullyShardedDataParallel<torch::nn::ModuleHolder<MixedImpl>> f(mixed); }, "must share one dtype");
    fsdp::FullyShardedDataParallelOptions o;
    o.intra_node_group = dist::new_group({0});
    require_error([&] { fsdp::FullyShardedDataParallel<Model> f(make_model(), o); },
                                                 "for HYBRID_SHARD");
    // A tensor tied across two units is refused, naming both; within one unit it is fine.
    struct HeadImpl : torch::nn::Module {
      Tensor w;
      explicit HeadImpl(const Tensor& shared) { w = register_parameter("w", shared); }
      Tensor forward(const Tensor& x) { return x.matmul(w); }
    };
    struct TiedImpl : torch::nn::Module {
      torch::nn::Linear emb{nullptr};
      std::shared_ptr<HeadImpl> head;
      TiedImpl() {
        emb = register_module("emb", torch::nn::Linear(4, 4));
        head = register_module("head", std::make_shared<HeadImpl>(emb->weight));
      }
      Tensor forward(const Tensor& x) { return head->forward(emb(x)); }
    };
    fsdp::FullyShardedDataParallelOptions tied;
    tied.auto_wrap_policy = fsdp::ModuleWrapPolicy<HeadImpl>();
    require_error([&] { fsdp::FullyShardedDataParallel<torch::nn::ModuleHolder<TiedImpl>> f(std::make_shared<TiedImpl>(), tied); },
                  "parameter emb.weight is the same tensor as head.w");
    auto one_unit = std::make_shared<TiedImpl>();
    fsdp::FullyShardedDataParallel<torch::nn::ModuleHolder<TiedImpl>> fine(one_unit);
    require(fine(torch::ones({1, 4})).sizes() == IntArrayRef({1, 4}), "a tie inside one unit works");
    Model model = make_model();
    fsdp::FullyShardedDataParallel<Model> sharded(model);
    // A view of a parameter taken while its unit was gathered and kept past the reshard: using
    // it is an error saying so, not a read of released memory.
    Tensor kept;
    model->blocks[0]->register_forward_pre_hook([&](torch::nn::Module&) {  // after FSDP's, which gathers
      kept = model->blocks[0]->fc1->weight.view({-1});
    });
    torch::mse_loss(sharded(torch::randn({4, 5})), torch::randn({4, 3})).backward();
    require(sharded.runtime().unsharded_units() == 0 && kept.numel() == 2 * kDim * kDim, "the view outlived its unit");
    require_error([&] { (void)kept.sum(); }, "data is not allocated");
    require_error([&] { (void)kept.clone(); }, "data is not allocated");
    require_error([&] { torch::NoGradGuard ng; kept.add_(1); }, "data is not allocated");
    kept = Tensor();
    auto full = sharded.summon_full_params();
    require_error([&] { sharded(torch::randn({2, 5})); }, "inside summon_full_params");
  });
}

}  // namespace fsdp_test
}  // namespace ember::test
