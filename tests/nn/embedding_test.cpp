// Embeddings (ember/nn/modules/embedding.h): Embedding against its definition and from_pretrained;
// EmbeddingBag against PyTorch 1.13 (tests/golden/gen_nn_pool_norm.py) and its options,
// from_pretrained and errors.
#include <torch/torch.h>

#include "test_util.h"

namespace {

using ember::test::tensors_close;

TEST(Layers, EmbeddingLooksUpRowsAndSkipsThePaddingGradient) {
  torch::manual_seed(1);
  torch::nn::Embedding emb(torch::nn::EmbeddingOptions(10, 4).padding_idx(0));
  EXPECT_EQ(emb->weight[0].abs().sum().item<float>(), 0.f);
  torch::Tensor idx = torch::tensor(std::vector<int64_t>{3, 0, 3, 7}).view({2, 2});
  torch::Tensor out = emb(idx);
  EXPECT_EQ(out.sizes(), torch::IntArrayRef({2, 2, 4}));
  EXPECT_TRUE(out[1][1].equal(emb->weight[7]));
  out.sum().backward();
  EXPECT_EQ(emb->weight.grad()[0].abs().sum().item<float>(), 0.f);  // padding row
  EXPECT_TRUE(tensors_close(emb->weight.grad()[3], torch::full({4}, 2.f)));  // used twice
  torch::nn::Embedding capped(torch::nn::EmbeddingOptions(5, 3).max_norm(1.0));
  capped(torch::tensor(std::vector<int64_t>{1, 2}));
  EXPECT_LE(capped->weight[1].norm().item<float>(), 1.0f + 1e-5f);
  EXPECT_ERROR_WITH(emb(torch::tensor({1.0f})), "indices");
}

TEST(Embedding, FromPretrained) {
  const torch::Tensor w = torch::arange(12, torch::kFloat).view({4, 3});
  auto frozen = torch::nn::Embedding::from_pretrained(w);
  EXPECT_FALSE(frozen->weight.requires_grad());
  EXPECT_TRUE(frozen(torch::tensor({int64_t(2), int64_t(0)})).equal(w.index_select(0, torch::tensor({int64_t(2), int64_t(0)}))));
  auto tuned = torch::nn::Embedding::from_pretrained(w, torch::nn::EmbeddingFromPretrainedOptions().freeze(false).padding_idx(1));
  EXPECT_TRUE(tuned->weight.requires_grad());
  tuned(torch::tensor({int64_t(1), int64_t(3)})).sum().backward();
  EXPECT_TRUE(tuned->weight.grad()[1].equal(torch::zeros({3})));  // the padding row gets no gradient
  EXPECT_TRUE(tuned->weight.grad()[3].equal(torch::ones({3})));
}

}  // namespace

namespace ember {
namespace {

namespace F = nn::functional;
using test::Json;

nn::EmbeddingBagMode mode_of(const std::string& m) {
  if (m == "sum") return kSum;
  if (m == "mean") return kMean;
  return kMax;
}

TEST(EmbeddingBagGolden, ValuesAndGradientsMatchPyTorch) {
  const auto file = serialize::load_file(std::string(EMBER_GOLDEN_DIR) + "/nn_pool_norm.safetensors");
  int cases = 0;
  for (const auto& [name, text] : file.metadata) {
    const Json a = Json::parse(text);
    if (a["op"].as_string() != "embedding_bag") continue;
    ++cases;
    auto get = [&, &name = name](const char* k, ScalarType dt) {
      auto it = file.tensors.find(name + "." + k);
      return it == file.tensors.end() ? Tensor() : it->second.to(dt, false, true);
    };
    for (ScalarType dt : {kFloat, kDouble}) {
      SCOPED_TRACE(name + " " + test::torch_name(dt));
      Tensor w = get("w", dt).requires_grad_(), psw = get("psw", dt);
      std::vector<Tensor> inputs{w};
      if (psw.defined()) inputs.push_back(psw.requires_grad_());
      auto o = F::EmbeddingBagFuncOptions()
                   .offsets(get("offsets", kLong))
                   .mode(mode_of(a["mode"].as_string()))
                   .per_sample_weights(psw)
                   .include_last_offset(a["include_last_offset"].as_bool());
      if (!a["padding_idx"].is_null()) o.padding_idx(a["padding_idx"].as_int());
      const Tensor y = F::embedding_bag(get("input", kLong), w, o);
      EXPECT_TENSOR_CLOSE(y, get("y", dt), 1e-5, 1e-5);
      const auto grads = autograd::grad({y}, inputs, {get("gy", dt)});
      EXPECT_TENSOR_CLOSE(grads[0], get("gw", dt), 1e-5, 1e-5);
      if (psw.defined()) EXPECT_TENSOR_CLOSE(grads[1], get("gpsw", dt), 1e-5, 1e-5);
    }
  }
  EXPECT_EQ(cases, 12);
}

TEST(EmbeddingBag, ModuleOptionsAndErrors) {
  manual_seed(0);
  nn::EmbeddingBag bag(nn::EmbeddingBagOptions(10, 3).mode(kSum).padding_idx(-1));
  EXPECT_EQ(bag->weight.sizes(), IntArrayRef({10, 3}));
  EXPECT_TENSOR_EQ(bag->weight[9], zeros({3}));  // the padding row, from -1
  const Tensor input = tensor({1, 2, 9, 4, 3, 2}, kLong), offsets = tensor({0, 2, 2}, kLong);
  const Tensor y = bag(input, offsets);
  EXPECT_TENSOR_CLOSE(y[0], bag->weight[1] + bag->weight[2], 1e-6, 1e-6);
  EXPECT_TENSOR_EQ(y[1], zeros({3}));  // an empty bag
  EXPECT_TENSOR_CLOSE(y[2], bag->weight[9] + bag->weight[4] + bag->weight[3] + bag->weight[2], 1e-6, 1e-6);
  EXPECT_TENSOR_EQ(bag(input.to(kInt), offsets.to(kInt)), y);
  // max with include_last_offset: the input past the last offset is not in any bag
  const Tensor w = randn({10, 3});
  auto max_bag = [&](const Tensor& in, const Tensor& off, bool last) {
    return F::embedding_bag(in, w, F::EmbeddingBagFuncOptions().offsets(off).mode(kMax).include_last_offset(last));
  };
  EXPECT_TENSOR_EQ(max_bag(input, tensor({0, 2, 4}, kLong), true), max_bag(input.narrow(0, 0, 4), tensor({0, 2}, kLong), false));
  // mean with include_last_offset: each bag's own count (PyTorch 1.13 counts the last bag to the end)
  EXPECT_TENSOR_CLOSE(F::embedding_bag(input, w, F::EmbeddingBagFuncOptions().offsets(tensor({0, 1, 4}, kLong)).include_last_offset(true)),
                      stack({w[1], w.index_select(0, input.narrow(0, 1, 3)).mean(0)}), 1e-6, 1e-6);
  // from_pretrained: frozen unless asked
  auto pre = nn::EmbeddingBag::from_pretrained(w, nn::EmbeddingBagFromPretrainedOptions().mode(kMean));
  EXPECT_FALSE(pre->weight.requires_grad());
  EXPECT_TENSOR_CLOSE(pre(input.view({2, 3})), stack({w.index_select(0, input.narrow(0, 0, 3)).mean(0),
                                                      w.index_select(0, input.narrow(0, 3, 3)).mean(0)}), 1e-6, 1e-6);
  EXPECT_TRUE(nn::EmbeddingBag::from_pretrained(w, nn::EmbeddingBagFromPretrainedOptions().freeze(false))
                  ->weight.requires_grad());
  // max_norm renormalizes the rows it reads, in place
  nn::EmbeddingBag renorm(nn::EmbeddingBagOptions(10, 3).max_norm(0.5)._weight(w.mul(10)));
  (void)renorm(input, offsets);
  EXPECT_LE(renorm->weight[1].norm().item<double>(), 0.5 + 1e-5);
  EXPECT_GT(renorm->weight[0].norm().item<double>(), 0.5);  // not read
  // scale_grad_by_freq divides each row's gradient by its count in the input
  nn::EmbeddingBag freq(nn::EmbeddingBagOptions(10, 3).mode(kSum).scale_grad_by_freq(true));
  freq(input, offsets).sum().backward();
  EXPECT_TENSOR_CLOSE(freq->weight.grad()[2], ones({3}), 1e-6, 1e-6);  // used twice, scaled by 1/2
  EXPECT_TENSOR_CLOSE(freq->weight.grad()[1], ones({3}), 1e-6, 1e-6);
  std::ostringstream s;
  s << *bag;
  EXPECT_EQ(s.str(), "torch::nn::EmbeddingBag(num_embeddings=10, embedding_dim=3, mode=kSum, padding_idx=9)");

  auto f = [&](const F::EmbeddingBagFuncOptions& o, const Tensor& in = Tensor()) {
    return F::embedding_bag(in.defined() ? in : input, w, o);
  };
  EXPECT_ERROR_WITH(f(F::EmbeddingBagFuncOptions().offsets(offsets), input.view({2, 3})),
                    "if input is 2D, then offsets has to be None");
  EXPECT_ERROR_WITH(f({}), "offsets has to be a 1D Tensor but got None");
  EXPECT_ERROR_WITH(f({}, input.view({1, 2, 3})), "input has to be 1D or 2D Tensor, but got Tensor of dimension 3");
  EXPECT_ERROR_WITH(f(F::EmbeddingBagFuncOptions().offsets(offsets).per_sample_weights(ones({6}))),
                    "per_sample_weights is only supported for mode='sum' (got mode='mean')");
  EXPECT_ERROR_WITH(f(F::EmbeddingBagFuncOptions().offsets(offsets).mode(kSum).per_sample_weights(ones({5}))),
                    "embedding_bag: If per_sample_weights ([5]) is not None, then it must have the same shape as the "
                    "input ([6])");
  EXPECT_ERROR_WITH(f(F::EmbeddingBagFuncOptions().offsets(offsets).mode(kMax).scale_grad_by_freq(true)),
                    "max mode does not support scaling the gradient by the frequency");
  EXPECT_ERROR_WITH(f(F::EmbeddingBagFuncOptions().offsets(tensor({1, 2}, kLong))),
                    "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. "
                    "However, got 1");
  EXPECT_ERROR_WITH(f(F::EmbeddingBagFuncOptions().offsets(tensor({0, 7}, kLong))),
                    "offsets[-1] can not be greater than input's length 6 but got offsets[-1] of 7");
  EXPECT_ERROR_WITH(f(F::EmbeddingBagFuncOptions().offsets(offsets), tensor({1, 20, 3}, kLong)),
                    "Index 1 is out of bounds: 20, range 0 to 10");
  EXPECT_ERROR_WITH(f(F::EmbeddingBagFuncOptions().offsets(offsets).padding_idx(10)),
                    "padding_idx must be within the number of embeddings, -10 through 9, but got 10");
  EXPECT_ERROR_WITH(f(F::EmbeddingBagFuncOptions().offsets(offsets), input.to(kFloat)),
                    "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int");
}

TEST(EmbeddingBag, Gradcheck) {
  manual_seed(1);
  const Tensor w = randn({6, 3}, kDouble).requires_grad_(), psw = randn({7}, kDouble).requires_grad_();
  const Tensor input = tensor({1, 2, 5, 0, 2, 3, 1}, kLong), offsets = tensor({0, 3, 3, 5}, kLong);
  autograd::GradcheckOptions o;
  o.check_forward_ad = true;
  for (auto mode : {nn::EmbeddingBagMode(kSum), nn::EmbeddingBagMode(kMean), nn::EmbeddingBagMode(kMax)}) {
    SCOPED_TRACE(mode.name());
    const bool sum = mode.kind == nn::EmbeddingBagMode::Sum;
    auto f = [&](const autograd::variable_list& v) {
      auto opts = F::EmbeddingBagFuncOptions().offsets(offsets).mode(mode).padding_idx(3);
      if (sum) opts.per_sample_weights(v[1]);
      return autograd::variable_list{F::embedding_bag(input, v[0], opts)};
    };
    EXPECT_TRUE(autograd::gradcheck(f, sum ? autograd::variable_list{w, psw} : autograd::variable_list{w}, o));
  }
}

}  // namespace
}  // namespace ember
