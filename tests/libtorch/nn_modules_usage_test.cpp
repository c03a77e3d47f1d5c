// torch::nn modules as LibTorch 1.13 users write them: custom modules with registered
// parameters, buffers and submodules (TORCH_MODULE holders), the containers, module traversal,
// train/eval, cloning, dtype moves, freezing and printing. Expected strings are what LibTorch
// 1.13 prints.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "libtorch_test_util.h"

namespace nn = torch::nn;

namespace {

struct NetImpl : nn::Module {
  NetImpl(int64_t in, int64_t hidden, int64_t out)
      : fc1(register_module("fc1", nn::Linear(in, hidden))),
        bn(register_module("bn", nn::BatchNorm1d(hidden))),
        fc2(register_module("fc2", nn::Linear(hidden, out))) {
    scale = register_parameter("scale", torch::ones({1}));
    steps = register_buffer("steps", torch::zeros({1}, torch::kLong));
  }
  torch::Tensor forward(torch::Tensor x) {
    if (is_training()) steps += 1;
    return fc2(torch::relu(bn(fc1(x)))) * scale;
  }
  nn::Linear fc1;
  nn::BatchNorm1d bn;
  nn::Linear fc2;
  torch::Tensor scale, steps;
};
TORCH_MODULE(Net);

// A Cloneable module: clone() deep-copies parameters and buffers.
struct BlockImpl : nn::Cloneable<BlockImpl> {
  explicit BlockImpl(int64_t n) : n(n) { reset(); }
  void reset() override {
    lin = register_module("lin", nn::Linear(n, n));
    offset = register_buffer("offset", torch::zeros({n}));
  }
  torch::Tensor forward(const torch::Tensor& x) { return lin(x) + offset; }
  int64_t n;
  nn::Linear lin{nullptr};
  torch::Tensor offset;
};
TORCH_MODULE(Block);

std::string print(const nn::Module& m) {
  std::ostringstream os;
  m.pretty_print(os);
  return os.str();
}

template <typename M>
std::string print_holder(const M& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

using libtorch_test::dims;

}  // namespace

TEST(NnModulesUsage, CustomModuleRegistersEverything) {
  Net net(4, 8, 2);
  std::vector<std::string> names;
  for (const auto& p : net->named_parameters()) names.push_back(p.key());
  EXPECT_EQ(names, (std::vector<std::string>{"scale", "fc1.weight", "fc1.bias", "bn.weight", "bn.bias", "fc2.weight",
                                             "fc2.bias"}));
  EXPECT_EQ(net->parameters().size(), 7u);
  EXPECT_EQ(net->named_parameters(/*recurse=*/false).size(), 1u);
  std::vector<std::string> buffers;
  for (const auto& b : net->named_buffers()) buffers.push_back(b.key());
  EXPECT_EQ(buffers, (std::vector<std::string>{"steps", "bn.running_mean", "bn.running_var", "bn.num_batches_tracked"}));
  int64_t count = 0;
  for (const auto& p : net->parameters()) count += p.numel();
  EXPECT_EQ(count, 1 + 4 * 8 + 8 + 8 + 8 + 8 * 2 + 2);
  EXPECT_TRUE(net->named_parameters().contains("fc2.bias"));
  EXPECT_EQ(net->named_parameters()["fc1.weight"].sizes(), (std::vector<int64_t>{8, 4}));
  EXPECT_EQ(net->fc1->weight.data_ptr(), net->named_parameters()["fc1.weight"].data_ptr());

  auto y = net->forward(torch::randn({5, 4}));
  EXPECT_EQ(dims(y), (std::vector<int64_t>{5, 2}));
  auto y2 = net(torch::randn({5, 4}));  // the holder's operator()
  EXPECT_EQ(net->steps.item<int64_t>(), 2);
  EXPECT_EQ(net->name(), "(anonymous namespace)::NetImpl");
}

TEST(NnModulesUsage, PrettyPrinting) {
  Net net(4, 8, 2);
  EXPECT_EQ(print(*net),
            "(anonymous namespace)::NetImpl");
  std::ostringstream os;
  os << net;
  EXPECT_EQ(os.str(),
            "(anonymous namespace)::NetImpl(\n"
            "  (fc1): torch::nn::Linear(in_features=4, out_features=8, bias=true)\n"
            "  (bn): torch::nn::BatchNorm1d(8, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)\n"
            "  (fc2): torch::nn::Linear(in_features=8, out_features=2, bias=true)\n"
            ")");
  EXPECT_EQ(print_holder(nn::Conv2d(nn::Conv2dOptions(1, 8, 3).stride(2).padding(1))),
            "torch::nn::Conv2d(1, 8, kernel_size=[3, 3], stride=[2, 2], padding=[1, 1])");
  EXPECT_EQ(print_holder(nn::Conv1d(nn::Conv1dOptions(2, 4, 3).bias(false))),
            "torch::nn::Conv1d(2, 4, kernel_size=3, stride=1, bias=false)");
  EXPECT_EQ(print_holder(nn::ConvTranspose2d(nn::ConvTranspose2dOptions(4, 2, 2).stride(2))),
            "torch::nn::ConvTranspose2d(4, 2, kernel_size=[2, 2], stride=[2, 2])");
  EXPECT_EQ(print_holder(nn::LayerNorm(nn::LayerNormOptions({10}))), "torch::nn::LayerNorm([10], eps=1e-05, elementwise_affine=true)");
  EXPECT_EQ(print_holder(nn::GroupNorm(2, 8)), "torch::nn::GroupNorm(2, 8, eps=1e-05, affine=true)");
  EXPECT_EQ(print_holder(nn::Dropout(0.2)), "torch::nn::Dropout(p=0.2, inplace=false)");
  EXPECT_EQ(print_holder(nn::Embedding(10, 3)), "torch::nn::Embedding(num_embeddings=10, embedding_dim=3)");
  EXPECT_EQ(print_holder(nn::LSTM(nn::LSTMOptions(4, 8).num_layers(2).batch_first(true))),
            "torch::nn::LSTM(input_size=4, hidden_size=8, num_layers=2, bias=true, batch_first=true, dropout=0, "
            "bidirectional=false)");
  EXPECT_EQ(print_holder(nn::MaxPool2d(2)),
            "torch::nn::MaxPool2d(kernel_size=[2, 2], stride=[2, 2], padding=[0, 0], dilation=[1, 1], ceil_mode=false)");
  EXPECT_EQ(print_holder(nn::AdaptiveAvgPool2d(1)), "torch::nn::AdaptiveAvgPool2d(output_size=[1, 1])");
  EXPECT_EQ(print_holder(nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2))), "torch::nn::LeakyReLU(negative_slope=0.2)");
  EXPECT_EQ(print_holder(nn::Softmax(1)), "torch::nn::Softmax(dim=1)");
  EXPECT_EQ(print_holder(nn::Flatten()), "torch::nn::Flatten(start_dim=1, end_dim=-1)");
  EXPECT_EQ(print_holder(nn::Unflatten(nn::UnflattenOptions(1, {2, 2}))), "torch::nn::Unflatten(dim=1, unflattened_size={2, 2})");
  EXPECT_EQ(print_holder(nn::Upsample(nn::UpsampleOptions().scale_factor(std::vector<double>{2, 2}).mode(torch::kNearest))),
            "torch::nn::Upsample(scale_factor=[2, 2], mode=kNearest)");
}

TEST(NnModulesUsage, NamedSequential) {
  nn::Sequential seq({{"fc", nn::Linear(3, 4)},
                      {"act", nn::ReLU()},
                      {"drop", nn::Dropout(0.5)},
                      {"out", nn::Linear(4, 1)}});
  EXPECT_EQ(seq->size(), 4u);
  EXPECT_EQ(print_holder(seq),
            "torch::nn::Sequential(\n"
            "  (fc): torch::nn::Linear(in_features=3, out_features=4, bias=true)\n"
            "  (act): torch::nn::ReLU()\n"
            "  (drop): torch::nn::Dropout(p=0.5, inplace=false)\n"
            "  (out): torch::nn::Linear(in_features=4, out_features=1, bias=true)\n"
            ")");
  auto children = seq->named_children();
  EXPECT_EQ(children.keys(), (std::vector<std::string>{"fc", "act", "drop", "out"}));
  auto fc = children["fc"]->as<nn::Linear>();
  ASSERT_NE(fc, nullptr);
  EXPECT_EQ(fc->options.out_features(), 4);
  EXPECT_EQ(seq[0]->as<nn::LinearImpl>(), fc);
  EXPECT_EQ(seq->ptr<nn::LinearImpl>(3)->options.in_features(), 4);
  seq->eval();
  auto y = seq->forward(torch::ones({2, 3}));
  EXPECT_EQ(dims(y), (std::vector<int64_t>{2, 1}));
  EXPECT_TRUE(y[0].equal(y[1]));
  std::vector<std::string> params;
  for (auto& p : seq->named_parameters()) params.push_back(p.key());
  EXPECT_EQ(params, (std::vector<std::string>{"fc.weight", "fc.bias", "out.weight", "out.bias"}));

  nn::Sequential unnamed(nn::Linear(2, 2), nn::Functional(torch::tanh));
  std::vector<std::string> keys;
  for (auto& p : unnamed->named_parameters()) keys.push_back(p.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"0.weight", "0.bias"}));
}

TEST(NnModulesUsage, ModuleListAndModuleDict) {
  nn::ModuleList layers;
  for (int i = 0; i < 3; ++i) layers->push_back(nn::Linear(4, 4));
  layers->push_back(nn::ReLU());
  EXPECT_EQ(layers->size(), 4u);
  auto x = torch::ones({1, 4});
  for (const auto& m : *layers) {
    if (auto lin = m->as<nn::Linear>()) x = lin->forward(x);
  }
  EXPECT_EQ(dims(x), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(layers[1]->as<nn::LinearImpl>()->weight.sizes(), (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(layers->ptr<nn::LinearImpl>(2)->options.in_features(), 4);
  EXPECT_EQ(layers->parameters().size(), 6u);

  std::vector<std::pair<std::string, std::shared_ptr<nn::Module>>> entries{{"encoder", nn::Linear(8, 4).ptr()},
                                                                          {"decoder", nn::Linear(4, 8).ptr()}};
  nn::ModuleDict dict(entries);
  EXPECT_EQ(dict->size(), 2u);
  EXPECT_TRUE(dict->contains("encoder"));
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"encoder", "decoder"}));
  auto enc = dict["encoder"]->as<nn::Linear>();
  auto& dec = dict->at<nn::LinearImpl>("decoder");
  EXPECT_EQ(dims(dec.forward(enc->forward(torch::zeros({2, 8})))), (std::vector<int64_t>{2, 8}));
  dict->update({{"head", std::make_shared<nn::LinearImpl>(8, 1)}});
  EXPECT_EQ(dict->size(), 3u);
  auto popped = dict->pop("head");
  EXPECT_EQ(dict->size(), 2u);
  EXPECT_THROW(dict["missing"], c10::Error);
}

TEST(NnModulesUsage, ParameterListAndDict) {
  nn::ParameterList plist;
  plist->append(torch::randn({2, 2}, torch::requires_grad()));
  plist->append(torch::zeros({3}));
  EXPECT_EQ(plist->size(), 2u);
  EXPECT_TRUE(plist[0].requires_grad());
  EXPECT_FALSE(plist[1].requires_grad());  // append keeps the tensor's own requires_grad
  EXPECT_EQ(plist->parameters().size(), 2u);
  std::vector<std::string> keys;
  for (auto& p : plist->named_parameters()) keys.push_back(p.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"0", "1"}));

  nn::ParameterDict pdict;
  pdict->insert("alpha", torch::ones({1}, torch::requires_grad()));
  pdict->insert("beta", torch::zeros({2}));
  EXPECT_EQ(pdict->size(), 2u);
  EXPECT_TRUE(pdict->contains("beta"));
  EXPECT_EQ(pdict->keys(), (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_TRUE(pdict["alpha"].requires_grad());
  EXPECT_FALSE(pdict["beta"].requires_grad());
  EXPECT_EQ(pdict->get("beta").numel(), 2);
  auto removed = pdict->pop("alpha");
  EXPECT_EQ(removed.numel(), 1);
  EXPECT_EQ(pdict->size(), 1u);
}

TEST(NnModulesUsage, ApplyAndTraversal) {
  nn::Sequential model(nn::Conv2d(1, 4, 3), nn::ReLU(), nn::Flatten(), nn::Linear(4 * 3 * 3, 10));
  model->apply([](nn::Module& m) {
    if (auto* lin = m.as<nn::Linear>()) {
      nn::init::constant_(lin->weight, 0.5);
      nn::init::zeros_(lin->bias);
    } else if (auto* conv = m.as<nn::Conv2d>()) {
      nn::init::ones_(conv->weight);
    }
  });
  auto lin = model->ptr<nn::LinearImpl>(3);
  EXPECT_TRUE(lin->weight.eq(0.5).all().item<bool>());
  EXPECT_TRUE(model[0]->as<nn::Conv2d>()->weight.eq(1).all().item<bool>());

  std::vector<std::string> names;
  for (const auto& item : model->named_modules()) names.push_back(item.key());
  EXPECT_EQ(names, (std::vector<std::string>{"", "0", "1", "2", "3"}));
  EXPECT_EQ(model->named_modules("", /*include_self=*/false).size(), 4u);
  EXPECT_EQ(model->modules().size(), 5u);
  EXPECT_EQ(model->children().size(), 4u);
  int linear_count = 0;
  for (const auto& m : model->modules(/*include_self=*/false))
    if (m->as<nn::Linear>()) ++linear_count;
  EXPECT_EQ(linear_count, 1);

  std::vector<std::string> visited;
  model->apply([&](const std::string& name, nn::Module& m) { visited.push_back(name + ":" + m.name()); });
  EXPECT_EQ(visited.front(), ":torch::nn::SequentialImpl");
  EXPECT_EQ(visited.back(), "3:torch::nn::LinearImpl");
  EXPECT_EQ(model[1]->name(), "torch::nn::ReLUImpl");
}

TEST(NnModulesUsage, TrainEvalModes) {
  torch::manual_seed(0);
  nn::Sequential model(nn::Linear(4, 4), nn::Dropout(0.5), nn::BatchNorm1d(4));
  EXPECT_TRUE(model->is_training());
  auto x = torch::randn({8, 4});
  auto a = model->forward(x);
  auto b = model->forward(x);
  EXPECT_FALSE(a.equal(b));  // dropout draws new masks in training mode
  auto* bn = model[2]->as<nn::BatchNorm1d>();
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 2);
  EXPECT_FALSE(bn->running_mean.eq(0).all().item<bool>());
  model->eval();
  EXPECT_FALSE(model->is_training());
  EXPECT_FALSE(model[1]->is_training());
  auto c = model->forward(x);
  auto d = model->forward(x);
  EXPECT_TRUE(c.equal(d));
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 2);
  model->train(true);
  EXPECT_TRUE(model[2]->is_training());
}

TEST(NnModulesUsage, CloneToDtypeAndFreezing) {
  Block block(3);
  nn::init::constant_(block->lin->weight, 1.0);
  auto copy = std::dynamic_pointer_cast<BlockImpl>(block->clone());
  ASSERT_NE(copy, nullptr);
  EXPECT_NE(copy->lin->weight.data_ptr(), block->lin->weight.data_ptr());
  EXPECT_TRUE(copy->lin->weight.equal(block->lin->weight));
  nn::init::constant_(copy->lin->weight, 2.0);
  EXPECT_FLOAT_EQ(block->lin->weight[0][0].item<float>(), 1.0f);
  EXPECT_EQ(copy->named_parameters().size(), 2u);
  EXPECT_EQ(copy->named_buffers().size(), 1u);

  nn::Linear lin(2, 3);
  lin->to(torch::kDouble);
  EXPECT_EQ(lin->weight.scalar_type(), torch::kDouble);
  EXPECT_EQ(lin(torch::ones({1, 2}, torch::kDouble)).scalar_type(), torch::kDouble);
  EXPECT_THROW(lin(torch::ones({1, 2})), c10::Error);  // float input to a double module
  lin->to(torch::kCPU);
  EXPECT_TRUE(lin->weight.is_cpu());

  Net net(2, 4, 1);
  for (auto& p : net->fc1->parameters()) p.requires_grad_(false);
  auto loss = net(torch::randn({3, 2})).sum();
  loss.backward();
  EXPECT_FALSE(net->fc1->weight.grad().defined());
  EXPECT_TRUE(net->fc2->weight.grad().defined());
  net->zero_grad();
  // 1.13's Module::zero_grad zeroes grads in place (set_to_none defaults to false)
  EXPECT_TRUE(net->fc2->weight.grad().defined());
  EXPECT_EQ(net->fc2->weight.grad().abs().sum().item<float>(), 0.0f);
  net->zero_grad(/*set_to_none=*/true);
  EXPECT_FALSE(net->fc2->weight.grad().defined());
}

TEST(NnModulesUsage, ModuleHolderSemantics) {
  Net empty(nullptr);
  EXPECT_TRUE(empty.is_empty());
  EXPECT_FALSE(static_cast<bool>(empty));
  Net net(2, 3, 1);
  Net alias = net;  // holders share the module
  nn::init::constant_(alias->fc1->weight, 0.25);
  EXPECT_FLOAT_EQ(net->fc1->weight[0][0].item<float>(), 0.25f);
  EXPECT_EQ(alias.ptr().get(), net.ptr().get());
  EXPECT_EQ(&(*net), net.get());

  auto raw = std::make_shared<NetImpl>(2, 3, 1);
  Net wrapped(raw);
  EXPECT_EQ(wrapped.ptr(), raw);
  std::shared_ptr<nn::Module> base = wrapped.ptr();
  EXPECT_NE(std::dynamic_pointer_cast<NetImpl>(base), nullptr);
  EXPECT_EQ(base->as<NetImpl>(), raw.get());
  EXPECT_EQ(base->as<nn::Linear>(), nullptr);

  // replacing a registered submodule
  net->fc2 = net->replace_module("fc2", nn::Linear(3, 5));
  EXPECT_EQ(net->named_parameters()["fc2.weight"].size(0), 5);
  EXPECT_THROW(net->register_module("fc1", nn::Linear(1, 1)), c10::Error);  // name taken
  EXPECT_THROW(net->register_parameter("bad.name", torch::ones({1})), c10::Error);
  net->unregister_module("fc2");
  EXPECT_FALSE(net->named_children().contains("fc2"));
  EXPECT_EQ(net->named_children().size(), 2u);
}

// A Transformer built around a user's own encoder: LibTorch holds encoder and decoder as
// AnyModules and clones TransformerOptions::custom_encoder / custom_decoder into them.
struct DoublingEncoderImpl : torch::nn::Cloneable<DoublingEncoderImpl> {
  DoublingEncoderImpl() { reset(); }
  void reset() override { scale = register_parameter("scale", torch::full({1, 1}, 2.0)); }
  torch::Tensor forward(const torch::Tensor& src, const torch::Tensor& mask = {},
                        const torch::Tensor& key_padding_mask = {}) {
    calls += 1;
    return src * scale;
  }
  torch::Tensor scale;
  int calls = 0;
};
TORCH_MODULE(DoublingEncoder);

TEST(NnModulesUsage, TransformerWithCustomEncoder) {
  torch::manual_seed(2);
  DoublingEncoder custom;
  torch::nn::Transformer model(torch::nn::TransformerOptions(8, 2)
                                   .num_encoder_layers(1)
                                   .num_decoder_layers(1)
                                   .dropout(0.0)
                                   .custom_encoder(torch::nn::AnyModule(custom)));
  EXPECT_TRUE(model->named_parameters().contains("encoder.scale"));
  EXPECT_FALSE(model->named_parameters().contains("encoder.layers.0.linear1.weight"));
  EXPECT_TRUE(model->named_parameters().contains("decoder.layers.0.linear1.weight"));
  // A clone: training the transformer does not touch the module handed in.
  auto* held = model->encoder.ptr<DoublingEncoderImpl>().get();
  ASSERT_NE(held, nullptr);
  EXPECT_NE(held, custom.get());
  auto src = torch::randn({5, 3, 8}), tgt = torch::randn({4, 3, 8});
  auto out = model->forward(src, tgt);
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{4, 3, 8}));
  EXPECT_EQ(held->calls, 1);
  EXPECT_EQ(custom->calls, 0);
  // The decoder sees the custom encoder's output as memory.
  auto memory = src * held->scale;
  auto expected = model->decoder.forward<torch::Tensor>(tgt, memory, torch::Tensor(), torch::Tensor(),
                                                         torch::Tensor(), torch::Tensor());
  EXPECT_TRUE(torch::allclose(out, expected));

  torch::nn::Transformer plain(torch::nn::TransformerOptions(8, 2).num_encoder_layers(1).num_decoder_layers(1));
  EXPECT_TRUE(plain->named_parameters().contains("encoder.layers.0.linear1.weight"));
  EXPECT_TRUE(plain->encoder.ptr<torch::nn::TransformerEncoderImpl>() != nullptr);
}

// clone(device) onto the device the module is already on still copies every parameter and
// buffer (LibTorch clones them; to() alone would share the storage).
TEST(NnModulesUsage, CloneToTheSameDeviceIsDeep) {
  torch::nn::BatchNorm1d bn(3);
  auto copy = std::dynamic_pointer_cast<torch::nn::BatchNorm1dImpl>(bn->clone(torch::Device(torch::kCPU)));
  ASSERT_NE(copy, nullptr);
  EXPECT_NE(copy->weight.data_ptr(), bn->weight.data_ptr());
  EXPECT_NE(copy->running_mean.data_ptr(), bn->running_mean.data_ptr());
  EXPECT_TRUE(torch::equal(copy->weight, bn->weight));
  torch::NoGradGuard no_grad;
  bn->weight.add_(1);
  EXPECT_FALSE(torch::equal(copy->weight, bn->weight));
}
