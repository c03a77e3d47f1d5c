// Issue 17's memory figure: peak tensor memory per rank of a ~190M-parameter transformer
// (embedding, 14 encoder layers of d 1024 / ff 4096, head) trained with AdamW, under FSDP
// FULL_SHARD (one unit per encoder layer and one for the embedding) and under DDP, against
// (16 bytes x parameters / N) + activations. Activations: the tensors one forward keeps for
// backward, measured on the same per-rank batch in the same process (a local model, before
// the distributed run). Three peaks over the training steps (after wrapping): the bytes the
// tensors asked for (the CPU allocator's requested_bytes, as PyTorch's max_memory_allocated,
// whose CUDA blocks round to 512 bytes only), the allocator's blocks (rounded to its size
// classes: up to 1/16 more for blocks of 1 MiB or more), and the resident set's high-water mark
// above the process before the model (VmHWM, reset by /proc/self/clear_refs; pages never
// touched, such as rounding tails, are not resident).
// Run by bench/fsdp_bench.sh through `ember run`.
//   fsdp_bench fsdp|fsdp-fine|ddp [steps]
#include <torch/torch.h>

#include <cstdio>
#include <cstring>

#include "ember/core/allocator.h"
#include "ember/distributed/ddp.h"
#include "ember/distributed/fsdp.h"

namespace dist = ember::distributed;
namespace fsdp = ember::distributed::fsdp;

constexpr int64_t kVocab = 8192, kDim = 1024, kHeads = 16, kFf = 4096, kLayers = 14, kSeq = 128, kBatch = 1;

struct LmImpl : torch::nn::Module {
  torch::nn::Embedding emb{nullptr};
  std::vector<torch::nn::TransformerEncoderLayer> layers;
  torch::nn::Linear head{nullptr};
  LmImpl() {
    emb = register_module("emb", torch::nn::Embedding(kVocab, kDim));
    for (int64_t i = 0; i < kLayers; ++i)
      layers.push_back(register_module(
          "layer" + std::to_string(i),
          torch::nn::TransformerEncoderLayer(torch::nn::TransformerEncoderLayerOptions(kDim, kHeads)
                                                 .dim_feedforward(kFf)
                                                 .dropout(0.0))));
    head = register_module("head", torch::nn::Linear(kDim, kVocab));
  }
  torch::Tensor forward(const torch::Tensor& tokens) {
    torch::Tensor h = emb(tokens);  // [seq, batch, dim]
    for (auto& l : layers) h = l(h);
    return head(h);
  }
};
TORCH_MODULE(Lm);

// Live tensor bytes (as requested, before the size classes' rounding).
int64_t allocated() { return ember::cpu::allocator_stats().requested_bytes; }

// A field of /proc/self/status in bytes (VmRSS, VmHWM).
int64_t proc_status(const char* field) {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  char line[256];
  int64_t kb = -1;
  const size_t n = std::strlen(field);
  while (f && std::fgets(line, sizeof line, f))
    if (std::strncmp(line, field, n) == 0 && line[n] == ':') kb = std::atoll(line + n + 1);
  if (f) std::fclose(f);
  return kb * 1024;
}
// Resets VmHWM to the current resident size (Linux's clear_refs 5).
void reset_peak_rss() {
  if (std::FILE* f = std::fopen("/proc/self/clear_refs", "w")) std::fputs("5", f), std::fclose(f);
}

torch::Tensor loss_of(const torch::Tensor& logits, const torch::Tensor& targets) {
  return torch::nn::functional::cross_entropy(logits.reshape({-1, kVocab}), targets.reshape({-1}));
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "fsdp";
  const int steps = argc > 2 ? std::atoi(argv[2]) : 3;
  torch::manual_seed(0);
  const torch::Tensor tokens = torch::randint(kVocab, {kSeq, kBatch});
  const torch::Tensor targets = torch::randint(kVocab, {kSeq, kBatch});

  // Activations: what one forward keeps alive for backward (a local model, same batch).
  int64_t params = 0, activations = 0;
  {
    Lm local;
    for (const auto& p : local->parameters()) params += p.numel();
    const int64_t before = allocated();
    torch::Tensor loss = loss_of(local(tokens), targets);
    activations = allocated() - before;
  }
  ember::cpu::empty_cache();

  dist::init_process_group("gloo");
  const int rank = dist::get_rank(), world = dist::get_world_size();
  const int64_t rss_base = proc_status("VmRSS");  // the process without any model
  torch::manual_seed(1);
  Lm model;
  const int64_t base = allocated();  // the model itself, before any wrapper
  std::unique_ptr<fsdp::FullyShardedDataParallel<Lm>> sharded;
  std::unique_ptr<torch::nn::parallel::DistributedDataParallel<Lm>> replicated;
  std::unique_ptr<torch::optim::AdamW> opt;
  if (mode == "fsdp" || mode == "fsdp-fine") {
    fsdp::FullyShardedDataParallelOptions o;
    // fsdp: a unit per encoder layer (12.6M parameters) and the embedding; the head in the root.
    // fsdp-fine: units of at least 3M parameters (attention, each feed-forward linear, embedding, head).
    o.auto_wrap_policy = mode == "fsdp"
        ? fsdp::ModuleWrapPolicy<torch::nn::TransformerEncoderLayerImpl, torch::nn::EmbeddingImpl>()
        : fsdp::size_based_auto_wrap_policy(3000000);
    sharded = std::make_unique<fsdp::FullyShardedDataParallel<Lm>>(model, o);
    opt = std::make_unique<torch::optim::AdamW>(sharded->parameters(), torch::optim::AdamWOptions(1e-4));
  } else {
    replicated = std::make_unique<torch::nn::parallel::DistributedDataParallel<Lm>>(model);
    opt = std::make_unique<torch::optim::AdamW>(model->parameters(), torch::optim::AdamWOptions(1e-4));
  }
  ember::cpu::empty_cache();
  ember::cpu::reset_peak_stats();
  reset_peak_rss();
  const int64_t held = allocated();  // what stays between steps before the optimizer's state
  double seconds = 0;
  for (int s = 0; s < steps; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    opt->zero_grad();
    const bool trace = std::getenv("FSDP_BENCH_TRACE") && rank == 0 && s == steps - 1;
    auto mark = [&](const char* what) {
      if (trace)
        std::printf("  %-9s allocated %.3f GiB, peak %.3f GiB\n", what, allocated() / 1073741824.0,
                    ember::cpu::allocator_stats().peak_requested_bytes / 1073741824.0);
    };
    if (trace) ember::cpu::reset_peak_stats();
    mark("start");
    torch::Tensor logits = sharded ? (*sharded)(tokens) : (*replicated)(tokens);
    mark("forward");
    loss_of(logits, targets).backward();
    logits = torch::Tensor();
    mark("backward");
    opt->step();
    mark("step");
    if (s > 0) seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  // The peak over the run, less what the model held before the wrapper (freed by FSDP; kept by DDP).
  torch::Tensor peak = torch::tensor({double(ember::cpu::allocator_stats().peak_allocated_bytes),
                                      double(proc_status("VmHWM") - rss_base),
                                      double(ember::cpu::allocator_stats().peak_requested_bytes)},
                                     torch::kDouble);
  dist::all_reduce(peak, dist::ReduceOp::MAX);
  if (rank == 0) {
    const double gib = 1024.0 * 1024 * 1024;
    const double bound = 16.0 * double(params) / world + double(activations);
    std::printf("%s on %d ranks: %.1fM parameters, activations %.3f GiB, model before wrapping %.3f GiB, "
                "held after wrapping %.3f GiB\n",
                mode.c_str(), world, params / 1e6, activations / gib, base / gib, held / gib);
    const double tensors = peak[0].item<double>(), resident = peak[1].item<double>(), requested = peak[2].item<double>();
    std::printf("%s: peak per rank: tensors %.3f GiB (ratio %.3f), allocator blocks %.3f GiB (ratio %.3f), resident "
                "%.3f GiB (ratio %.3f) against 16 B x P / N + activations = %.3f GiB; %.2f s/step\n",
                mode.c_str(), requested / gib, requested / bound, tensors / gib, tensors / bound, resident / gib,
                resident / bound, bound / gib, steps > 1 ? seconds / (steps - 1) : 0.0);
  }
  sharded.reset();
  replicated.reset();
  dist::destroy_process_group();
  return 0;
}
