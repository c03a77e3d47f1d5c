// GPU benchmarks of issue 16's figures, in LibTorch's C++ API (ember built with CUDA; the same
// cases in PyTorch are bench/cuda_bench.py): scripts/gpu-check.sh runs both on the GPU
// machine and prints PyTorch time / ember time per case. Each timed call ends with a device
// synchronize, so the time is the GPU's, not the launch's.
// Output: "<case>\t<seconds>\t<work>\t<unit>" per line (bench/bench_util.h). Arguments filter
// the cases by name; `cuda_bench CPU` runs the CPU baseline alone, on any machine.
#include <torch/torch.h>

#include <cstdio>
#include <string>

#include "bench/bench_util.h"

namespace {

// torchvision's ResNet-18 (BasicBlock, [2, 2, 2, 2]), written out: LibTorch has no model zoo.
struct BasicBlockImpl : torch::nn::Module {
  torch::nn::Conv2d c1{nullptr}, c2{nullptr};
  torch::nn::BatchNorm2d b1{nullptr}, b2{nullptr};
  torch::nn::Sequential down{nullptr};
  BasicBlockImpl(int64_t in, int64_t out, int64_t stride) {
    namespace nn = torch::nn;
    c1 = register_module("c1", nn::Conv2d(nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false)));
    b1 = register_module("b1", nn::BatchNorm2d(out));
    c2 = register_module("c2", nn::Conv2d(nn::Conv2dOptions(out, out, 3).padding(1).bias(false)));
    b2 = register_module("b2", nn::BatchNorm2d(out));
    if (stride != 1 || in != out)
      down = register_module("down", nn::Sequential(nn::Conv2d(nn::Conv2dOptions(in, out, 1).stride(stride).bias(false)),
                                                    nn::BatchNorm2d(out)));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor y = b2(c2(torch::relu(b1(c1(x)))));
    return torch::relu(y + (down ? down->forward(x) : x));
  }
};
TORCH_MODULE(BasicBlock);

struct ResNet18Impl : torch::nn::Module {
  torch::nn::Conv2d stem{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
  torch::nn::Sequential layers{nullptr};
  torch::nn::Linear fc{nullptr};
  ResNet18Impl() {
    namespace nn = torch::nn;
    stem = register_module("stem", nn::Conv2d(nn::Conv2dOptions(3, 64, 7).stride(2).padding(3).bias(false)));
    bn = register_module("bn", nn::BatchNorm2d(64));
    nn::Sequential seq;
    int64_t in = 64;
    for (int64_t out : {64, 128, 256, 512}) {
      seq->push_back(BasicBlock(in, out, out == 64 ? 1 : 2));
      seq->push_back(BasicBlock(out, out, 1));
      in = out;
    }
    layers = register_module("layers", seq);
    fc = register_module("fc", nn::Linear(512, 1000));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor y = torch::max_pool2d(torch::relu(bn(stem(x))), 3, 2, 1);
    y = torch::adaptive_avg_pool2d(layers->forward(y), {1, 1}).flatten(1);
    return fc(y);
  }
};
TORCH_MODULE(ResNet18);

// One SGD training step of ResNet-18 on `batch` 224x224 images, bf16 autocast, channels-last.
std::function<void()> resnet_step(torch::Device device, int64_t batch) {
  auto model = std::make_shared<ResNet18>();
  (*model)->to(device);
  {
    torch::NoGradGuard no_grad;  // LibTorch's Module::to takes no memory format: convert the 4-d weights
    for (torch::Tensor& p : (*model)->parameters())
      if (p.dim() == 4) p.set_data(p.contiguous(torch::MemoryFormat::ChannelsLast));
  }
  auto opt = std::make_shared<torch::optim::SGD>((*model)->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
  torch::Tensor x = torch::randn({batch, 3, 224, 224}).to(device).contiguous(torch::MemoryFormat::ChannelsLast);
  torch::Tensor y = torch::randint(0, 1000, {batch}).to(device);
  return [=] {
    opt->zero_grad();
    torch::Tensor loss;
    if (device.is_cuda()) {
      at::autocast::set_enabled(true);
      at::autocast::set_autocast_gpu_dtype(torch::kBFloat16);
    } else {
      at::autocast::set_cpu_enabled(true);
    }
    loss = torch::nn::functional::cross_entropy((*model)(x), y);
    at::autocast::set_enabled(false);
    at::autocast::set_cpu_enabled(false);
    at::autocast::clear_cache();
    loss.backward();
    opt->step();
    if (device.is_cuda()) torch::cuda::synchronize();
  };
}

// One Adam training step of a 6-layer TransformerEncoder (d 1024, 16 heads, ff 4096), sequence
// 512, batch 32, bf16 autocast.
std::function<void()> transformer_step() {
  namespace nn = torch::nn;
  auto enc = std::make_shared<nn::TransformerEncoder>(
      nn::TransformerEncoderOptions(nn::TransformerEncoderLayerOptions(1024, 16).dim_feedforward(4096), 6));
  (*enc)->to(torch::kCUDA);
  auto opt = std::make_shared<torch::optim::Adam>((*enc)->parameters(), torch::optim::AdamOptions(1e-4));
  torch::Tensor x = torch::randn({512, 32, 1024}).to(torch::kCUDA);
  return [=] {
    opt->zero_grad();
    at::autocast::set_enabled(true);
    at::autocast::set_autocast_gpu_dtype(torch::kBFloat16);
    torch::Tensor loss = (*enc)(x).to(torch::kFloat).pow(2).mean();
    at::autocast::set_enabled(false);
    at::autocast::clear_cache();
    loss.backward();
    opt->step();
    torch::cuda::synchronize();
  };
}

}  // namespace

int main(int argc, char** argv) {
  // Arguments: name filters; a case runs when its name contains one of them (none: every case).
  std::vector<std::string> filters(argv + 1, argv + argc);
  const std::string filter = filters.empty() ? "" : filters[0];
  auto wanted = [&](const std::string& name) {
    if (filters.empty()) return true;
    for (const std::string& f : filters)
      if (name.find(f) != std::string::npos) return true;
    return false;
  };
  if (!torch::cuda::is_available()) {
    if (filter == "CPU") {  // the CPU baseline alone runs anywhere
      auto step = resnet_step(torch::kCPU, 16);
      step();
      const auto t0 = bench::Clock::now();
      step();
      const double sec = std::chrono::duration<double>(bench::Clock::now() - t0).count();
      std::printf("resnet18 train step CPU b16 bf16 cl\t%.6e\t%.6e\timg\n", sec, 16.0);
      return 0;
    }
    std::fprintf(stderr, "cuda_bench: no CUDA GPU\n");
    return 1;
  }
  const auto f32 = torch::TensorOptions().dtype(torch::kFloat).device(torch::kCUDA);
  const auto bf16 = torch::TensorOptions().dtype(torch::kBFloat16).device(torch::kCUDA);
  const int64_t n = int64_t(256) << 20;
  torch::Tensor a = torch::rand({n}, torch::kFloat).to(torch::kCUDA), b = torch::rand({n}, torch::kFloat).to(torch::kCUDA);
  torch::Tensor c = torch::empty({n}, f32);
  torch::Tensor ah = a.to(torch::kBFloat16), bh = b.to(torch::kBFloat16);
  torch::Tensor x1 = torch::zeros({1}, f32);
  torch::Tensor m1 = torch::randn({8192, 8192}).to(torch::kCUDA, torch::kBFloat16);
  torch::Tensor m2 = torch::randn({8192, 8192}).to(torch::kCUDA, torch::kBFloat16);
  // Models are built only when their case runs (filter), as they take memory and time.
  auto lazily = [](std::function<std::function<void()>()> make) {
    auto fn = std::make_shared<std::function<void()>>();
    return [fn, make] {
      if (!*fn) *fn = make();
      (*fn)();
    };
  };
  std::vector<bench::Case> cases = {
      // 3 x 1 GiB moved: read a and b, write c.
      {"add 256M f32 (out=)", 3.0 * 4 * n, "B", [&] { torch::add_out(c, a, b); torch::cuda::synchronize(); }},
      {"add 256M f32", 3.0 * 4 * n, "B", [&] { torch::Tensor r = a + b; torch::cuda::synchronize(); }},
      {"add 256M bf16", 3.0 * 2 * n, "B", [&] { torch::Tensor r = ah + bh; torch::cuda::synchronize(); }},
      {"add 256M f32 broadcast row", 2.0 * 4 * n, "B",
       [&] { torch::Tensor r = a.view({n / 1024, 1024}) + b.slice(0, 0, 1024); torch::cuda::synchronize(); }},
      {"copy 256M f32 transposed", 2.0 * 4 * n, "B",
       [&] { c.view({n / 4096, 4096}).copy_(a.view({4096, n / 4096}).t()); torch::cuda::synchronize(); }},
      {"bf16 matmul 8192^3", 2.0 * 8192.0 * 8192.0 * 8192.0, "FLOP",
       [&] { torch::mm(m1, m2); torch::cuda::synchronize(); }},
      // Per-op overhead: a chain of 1,000 one-element adds, one synchronize (time per op).
      {"1000 one-element adds (per op)", 1, "op", [&] {
         torch::Tensor y = x1;
         for (int i = 0; i < 1000; ++i) y = y + 1;
         torch::cuda::synchronize();
       }},
      // Training steps: work = images or sequences per step (rate = items per second).
      {"resnet18 train step b256 bf16 cl", 256, "img", lazily([] { return resnet_step(torch::kCUDA, 256); })},
      {"resnet18 train step CPU b16 bf16 cl", 16, "img", lazily([] { return resnet_step(torch::kCPU, 16); })},
      {"transformer enc train step b32 s512", 32, "seq", lazily([] { return transformer_step(); })},
  };
  // The last case's time is for 1,000 ops: report per op.
  for (const bench::Case& k : cases) {
    if (!wanted(k.name)) continue;
    // A CPU training step takes seconds: one warm-up and three timed steps.
    double s = k.name.find("CPU") != std::string::npos ? [&] {
      k.fn();
      std::vector<double> t;
      for (int i = 0; i < 3; ++i) {
        const auto t0 = bench::Clock::now();
        k.fn();
        t.push_back(std::chrono::duration<double>(bench::Clock::now() - t0).count());
      }
      std::sort(t.begin(), t.end());
      return t[1];
    }() : bench::time_per_iter(k.fn, 0.05);
    if (k.name.rfind("1000 ", 0) == 0) s /= 1000;
    std::printf("%s\t%.6e\t%.6e\t%s\n", k.name.c_str(), s, k.work, k.unit);
    std::fflush(stdout);
  }
  (void)bf16;
  return 0;
}
