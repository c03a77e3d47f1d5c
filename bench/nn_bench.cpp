// nn benchmark cases, written against the LibTorch API so the same source builds against
// ember (through compat/torch/torch.h) and against LibTorch (bench/compare.sh with
// BENCH=nn_bench). Prints "<name>\t<seconds per iteration>\t<work>\t<unit>" per case.
//   max/avg pooling 3x3 stride 2 on 8x64x112x112: forward, and forward + backward, in both
//     layouts (and bfloat16 channels-last max)
//   conv2d 64->64 3x3 on 8x64x56x56: forward, and forward + backward, in both layouts
//   interpolate bilinear 2x on 8x64x56x56 (align_corners false): forward, and forward +
//     backward, in both layouts
//   ResNet-18 (random weights, eval) inference, batch 8, 224x224: float32 contiguous and
//     channels-last, bfloat16 channels-last
//   training steps (forward, backward, SGD step): MLP 784-512-512-10 batch 128, a small
//     CNN on 1x28x28 images batch 64, a TransformerEncoderLayer (d_model 256, 4 heads,
//     feed-forward 1024, sequence 128, batch 16)
// Usage: nn_bench [threads] [filter-substring]
#include <torch/torch.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench_util.h"

namespace {

namespace nn = torch::nn;

// The parameters of `m` in `format` (4-D ones), as PyTorch's model.to(memory_format=...).
void to_format(nn::Module& m, torch::MemoryFormat format) {
  torch::NoGradGuard ng;
  for (auto& p : m.parameters())
    if (p.dim() == 4) p.set_data(p.contiguous(format));
}

struct BasicBlockImpl : nn::Module {
  BasicBlockImpl(int64_t in, int64_t out, int64_t stride) {
    conv1 = register_module("conv1", nn::Conv2d(nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false)));
    bn1 = register_module("bn1", nn::BatchNorm2d(out));
    conv2 = register_module("conv2", nn::Conv2d(nn::Conv2dOptions(out, out, 3).padding(1).bias(false)));
    bn2 = register_module("bn2", nn::BatchNorm2d(out));
    if (stride != 1 || in != out) {
      down_conv = register_module("down_conv", nn::Conv2d(nn::Conv2dOptions(in, out, 1).stride(stride).bias(false)));
      down_bn = register_module("down_bn", nn::BatchNorm2d(out));
    }
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto y = torch::relu(bn1(conv1(x)));
    y = bn2(conv2(y));
    auto identity = down_conv ? down_bn(down_conv(x)) : x;
    return torch::relu(y + identity);
  }
  nn::Conv2d conv1{nullptr}, conv2{nullptr}, down_conv{nullptr};
  nn::BatchNorm2d bn1{nullptr}, bn2{nullptr}, down_bn{nullptr};
};
TORCH_MODULE(BasicBlock);

struct ResNet18Impl : nn::Module {
  ResNet18Impl() {
    stem = register_module("conv1", nn::Conv2d(nn::Conv2dOptions(3, 64, 7).stride(2).padding(3).bias(false)));
    bn = register_module("bn1", nn::BatchNorm2d(64));
    pool = register_module("maxpool", nn::MaxPool2d(nn::MaxPool2dOptions(3).stride(2).padding(1)));
    const int64_t widths[] = {64, 128, 256, 512};
    int64_t in = 64;
    for (int s = 0; s < 4; ++s)
      for (int b = 0; b < 2; ++b) {
        blocks.push_back(register_module("layer" + std::to_string(s + 1) + "_" + std::to_string(b),
                                         BasicBlock(in, widths[s], s > 0 && b == 0 ? 2 : 1)));
        in = widths[s];
      }
    fc = register_module("fc", nn::Linear(512, 1000));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = pool(torch::relu(bn(stem(x))));
    for (auto& b : blocks) x = b->forward(x);
    return fc(x.mean({2, 3}));
  }
  nn::Conv2d stem{nullptr};
  nn::BatchNorm2d bn{nullptr};
  nn::MaxPool2d pool{nullptr};
  std::vector<BasicBlock> blocks;
  nn::Linear fc{nullptr};
};
TORCH_MODULE(ResNet18);

using bench::Case;

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  const std::string filter = argc > 2 ? argv[2] : "";
  torch::set_num_threads(threads);
  torch::manual_seed(0);
  std::vector<Case> cases;
  const auto CL = torch::MemoryFormat::ChannelsLast;
  // Cases are built only when the filter selects a name with this prefix (models are big).
  auto want = [&](const std::string& prefix) {
    return filter.empty() || prefix.find(filter) != std::string::npos || filter.find(prefix) != std::string::npos;
  };

  // pooling 3x3 stride 2 pad 1 on 8x64x112x112 (ResNet's stem pool): forward, and forward +
  // input gradient, in both layouts; float32 max and avg, bfloat16 max channels-last
  for (int variant = 0; variant < 5; ++variant) {
    if (!want("pool")) break;
    const bool last = variant % 2 == 1, avg = variant >= 2 && variant < 4, bf16 = variant == 4;
    auto x = torch::randn({8, 64, 112, 112});
    if (bf16) x = x.to(torch::kBFloat16);
    if (last || bf16) x = x.contiguous(CL);
    std::function<torch::Tensor(const torch::Tensor&)> pool = [avg](const torch::Tensor& t) {
      return avg ? torch::avg_pool2d(t, {3, 3}, {2, 2}, {1, 1}) : torch::max_pool2d(t, {3, 3}, {2, 2}, {1, 1});
    };
    const std::string tag = std::string(avg ? "avg_pool2d" : "max_pool2d") + (bf16 ? " bf16" : "") + " 3x3s2" +
                            (last || bf16 ? " channels-last" : " contiguous");
    const double bytes = double(x.numel() + x.numel() / 4) * double(x.element_size());
    cases.push_back({tag + " fwd", bytes, "B", [pool, x] {
                       torch::NoGradGuard ng;
                       (void)pool(x);
                     }});
    auto xg = x.clone().requires_grad_();
    auto gy = torch::randn_like(pool(x));
    cases.push_back({tag + " fwd+bwd", 2 * bytes, "B", [pool, xg, gy] {
                       (void)torch::autograd::grad({pool(xg)}, {xg}, {gy});
                     }});
  }

  // conv2d 64->64 3x3, 8x64x56x56
  const double conv_flops = 2.0 * 8 * 64 * 56 * 56 * 64 * 9;
  for (bool last : {false, true}) {
    if (!want("conv2d")) break;
    auto conv = std::make_shared<nn::Conv2dImpl>(nn::Conv2dOptions(64, 64, 3).padding(1));
    auto x = torch::randn({8, 64, 56, 56});
    if (last) {
      x = x.contiguous(CL);
      to_format(*conv, CL);
    }
    const std::string tag = last ? " channels-last" : " contiguous";
    cases.push_back({"conv2d 64x3x3 fwd" + tag, conv_flops, "FLOP", [conv, x] {
                       torch::NoGradGuard ng;
                       (void)conv->forward(x);
                     }});
    auto xg = x.clone().requires_grad_();
    cases.push_back({"conv2d 64x3x3 fwd+bwd" + tag, 3 * conv_flops, "FLOP", [conv, xg] {
                       conv->zero_grad();
                       conv->forward(xg).sum().backward();
                     }});
  }

  // interpolate bilinear 2x, 8x64x56x56 -> 112x112 (work: bytes read + written)
  for (bool last : {false, true}) {
    if (!want("interpolate")) break;
    auto x = torch::randn({8, 64, 56, 56});
    if (last) x = x.contiguous(CL);
    const auto opts = torch::nn::functional::InterpolateFuncOptions()
                          .scale_factor(std::vector<double>{2, 2})
                          .mode(torch::kBilinear)
                          .align_corners(false);
    const double bytes = 4.0 * 8 * 64 * 56 * 56 * 5;
    const std::string tag = last ? " channels-last" : " contiguous";
    cases.push_back({"interpolate bilinear 2x fwd" + tag, bytes, "B", [x, opts] {
                       torch::NoGradGuard ng;
                       (void)torch::nn::functional::interpolate(x, opts);
                     }});
    auto xg = x.clone().requires_grad_();
    cases.push_back({"interpolate bilinear 2x fwd+bwd" + tag, 3 * bytes, "B", [xg, opts]() mutable {
                       xg.mutable_grad() = torch::Tensor();
                       torch::nn::functional::interpolate(xg, opts).sum().backward();
                     }});
  }

  // ResNet-18 inference
  const double resnet_flops = 2 * 1.82e9 * 8;
  for (int variant = 0; variant < 3; ++variant) {
    if (!want("resnet18")) break;
    ResNet18 model;
    model->eval();
    auto x = torch::randn({8, 3, 224, 224});
    std::string name = "resnet18 b8 f32 contiguous";
    if (variant >= 1) {
      to_format(*model, CL);
      x = x.contiguous(CL);
      name = "resnet18 b8 f32 channels-last";
    }
    if (variant == 2) {
      model->to(torch::kBFloat16);
      x = x.to(torch::kBFloat16);
      name = "resnet18 b8 bf16 channels-last";
    }
    cases.push_back({name, resnet_flops, "FLOP", [model, x]() mutable {
                       torch::NoGradGuard ng;
                       (void)model->forward(x);
                     }});
  }

  // Training steps
  if (want("train step mlp")) {
    auto mlp = nn::Sequential(nn::Linear(784, 512), nn::ReLU(), nn::Linear(512, 512), nn::ReLU(), nn::Linear(512, 10));
    auto opt = std::make_shared<torch::optim::SGD>(mlp->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
    auto x = torch::randn({128, 784});
    auto y = torch::randint(0, 10, {128});
    cases.push_back({"train step mlp 784-512-512-10 b128", 6.0 * 128 * (784 * 512 + 512 * 512 + 512 * 10), "FLOP",
                     [mlp, opt, x, y]() mutable {
                       opt->zero_grad();
                       torch::nn::functional::cross_entropy(mlp->forward(x), y).backward();
                       opt->step();
                     }});
  }
  if (want("train step cnn")) {
    auto cnn = nn::Sequential(nn::Conv2d(nn::Conv2dOptions(1, 32, 3).padding(1)), nn::ReLU(), nn::MaxPool2d(2),
                              nn::Conv2d(nn::Conv2dOptions(32, 64, 3).padding(1)), nn::ReLU(), nn::MaxPool2d(2),
                              nn::Flatten(), nn::Linear(64 * 7 * 7, 128), nn::ReLU(), nn::Linear(128, 10));
    auto opt = std::make_shared<torch::optim::SGD>(cnn->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
    auto x = torch::randn({64, 1, 28, 28});
    auto y = torch::randint(0, 10, {64});
    const double flops = 6.0 * 64 * (28 * 28 * 32 * 9 + 14 * 14 * 64 * 32 * 9 + 64 * 49 * 128 + 1280);
    cases.push_back({"train step cnn mnist b64", flops, "FLOP", [cnn, opt, x, y]() mutable {
                       opt->zero_grad();
                       torch::nn::functional::cross_entropy(cnn->forward(x), y).backward();
                       opt->step();
                     }});
  }

  if (want("train step transformer")) {
    // d_model 256, 4 heads, feed-forward 1024, sequence 128, batch 16 (sequence-first input)
    auto layer = nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(256, 4).dim_feedforward(1024).dropout(0.1));
    auto opt = std::make_shared<torch::optim::SGD>(layer->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
    auto x = torch::randn({128, 16, 256});
    const double tokens = 128.0 * 16;
    const double flops = 3 * 2 * tokens * (4 * 256 * 256 + 2 * 256 * 1024) + 3 * 2 * 2 * 16 * 128.0 * 128 * 256;
    cases.push_back({"train step transformer-encoder d256 b16 s128", flops, "FLOP", [layer, opt, x]() mutable {
                       opt->zero_grad();
                       layer->forward(x).square().mean().backward();
                       opt->step();
                     }});
  }

  bench::run_cases(cases, filter, 0.05);
  return 0;
}
