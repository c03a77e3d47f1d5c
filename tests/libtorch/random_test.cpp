// A seeded LibTorch program draws PyTorch's numbers: torch::manual_seed, the samplers, explicit
// generators and their state, the modules' default initialization, nn::init and dropout, and a
// short training run. The expected values were printed by LibTorch 1.13 (Debian's
// libtorch-dev) on x86-64 with AVX2; the reference build of this file checks them there.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <vector>

namespace {

// PyTorch's 16-at-a-time normal sampler uses fused multiply-adds where the CPU has AVX2 and FMA
// (x86-64), and the plain formula elsewhere (64-bit Arm, older x86), whose log and cos are also
// other implementations: there the values printed on x86 agree to about 10 units in the last
// place (measured under qemu-aarch64: 9), checked within 32.
bool pytorch_fused_sampling() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

// The tensor's first values exactly (float values printed with 9 significant digits round-trip).
void expect_first_exact(const torch::Tensor& t, const std::vector<double>& expected) {
  const auto flat = t.detach().flatten().to(torch::kDouble);
  ASSERT_GE(flat.numel(), static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) {
    const double v = flat[static_cast<int64_t>(i)].item<double>();
    if (t.scalar_type() == torch::kFloat && !pytorch_fused_sampling()) {
      EXPECT_NEAR(v, expected[i], 32 * FLT_EPSILON * std::max(1.0, std::abs(expected[i]))) << "element " << i;
    } else if (t.scalar_type() == torch::kFloat) {
      EXPECT_EQ(static_cast<float>(v), static_cast<float>(expected[i])) << "element " << i;
    } else {
      EXPECT_NEAR(v, expected[i], 1e-8 * std::abs(expected[i])) << "element " << i;
    }
  }
}

// The sum in double: every element counts (an ordering error changes it beyond rounding).
void expect_sum(const torch::Tensor& t, double expected) {
  EXPECT_NEAR(t.detach().to(torch::kDouble).sum().item<double>(), expected, 1e-12 + 1e-12 * std::abs(expected));
}

TEST(RandomStream, ManualSeedGivesPyTorchsNumbers) {
  torch::manual_seed(0);
  expect_first_exact(torch::randn({3}), {1.54099607, -0.293428898, -2.17878938});
  expect_first_exact(torch::rand({4}), {0.455627978, 0.632306278, 0.348893464, 0.401717305});
  expect_first_exact(torch::randint(0, 10, {5}), {6, 9, 8, 6, 6});
  expect_first_exact(torch::randperm(6), {0, 5, 3, 1, 2, 4});
  // 16 and more contiguous floats take the 16-at-a-time Box-Muller path.
  expect_first_exact(torch::randn({20}),
                     {-0.34136039,  1.85300612,   0.468096405, -0.157712445, 0.562721372,  0.259627402, -0.173960999,
                      -0.678746223, 0.938260734,  0.488869816, -0.673089921, 0.872831225,  -1.2001394,  -0.00478573795,
                      -0.518074811, -0.306704193, -1.58099389, 1.70664334,   -0.446217179, 0.7440207});
  expect_first_exact(torch::bernoulli(torch::full({6}, 0.5)), {1, 1, 0, 0, 1, 0});
  expect_first_exact(torch::multinomial(torch::tensor({0.1, 0.2, 0.3, 0.4}), 6, true), {1, 1, 2, 3, 2, 2});
  expect_first_exact(torch::multinomial(torch::tensor({0.1, 0.2, 0.3, 0.4}), 3, false), {3, 2, 1});
  expect_first_exact(torch::randn({4}, torch::kDouble), {0.568431277, -0.00753730796, -0.914495452, -1.08858365});
}

TEST(RandomStream, DropoutDropsWhatLibTorchDrops) {
  torch::manual_seed(3);
  expect_first_exact(torch::dropout(torch::ones({8}), 0.5, true), {2, 2, 0, 2, 0, 0, 2, 2});
  namespace F = torch::nn::functional;
  expect_first_exact(F::dropout2d(torch::ones({2, 3, 1, 1}), F::Dropout2dFuncOptions().p(0.5)), {2, 0, 2, 0, 2, 2});
}

TEST(RandomStream, ExplicitGenerators) {
  auto g = at::detail::createCPUGenerator(42);
  EXPECT_EQ(g.current_seed(), 42u);
  expect_first_exact(torch::randn({3}, g), {0.336690366, 0.128809407, 0.234462366});

  auto g2 = at::make_generator<at::CPUGeneratorImpl>(42);
  {
    std::lock_guard<std::mutex> lock(g2.mutex());
    EXPECT_EQ(g2.get<at::CPUGeneratorImpl>()->random(), 1608637542u);
    EXPECT_EQ(g2.get<at::CPUGeneratorImpl>()->random64(), 14693624577341391708ull);
  }
  const auto state = g2.get_state();
  EXPECT_EQ(state.numel(), 5056);
  EXPECT_EQ(state.scalar_type(), torch::kByte);
  const auto next = torch::rand({5}, g2);
  g2.set_state(state);
  EXPECT_TRUE(torch::equal(torch::rand({5}, g2), next));
  auto copy = g2.clone();
  EXPECT_TRUE(torch::equal(torch::randn({5}, copy), torch::randn({5}, g2)));
  g2.set_current_seed(7);
  EXPECT_EQ(g2.current_seed(), 7u);

  at::Generator undefined;
  EXPECT_FALSE(undefined.defined());
}

TEST(RandomStream, ModulesInitializeAsLibTorch) {
  namespace nn = torch::nn;
  torch::manual_seed(1);
  nn::Linear lin(4, 3);
  expect_first_exact(lin->weight, {0.2576316, -0.220689118, -0.0969307423, 0.234684467});
  expect_sum(lin->weight, 0.32697844505310059);
  expect_first_exact(lin->bias, {0.182614088, -0.194850504, -0.0364543796});
  nn::Conv2d conv(nn::Conv2dOptions(2, 3, 3));
  expect_first_exact(conv->weight, {-0.0212196466, 0.0341636166, -0.000941588718, 0.206043079});
  expect_sum(conv->weight, 0.48664279031800106);
  expect_first_exact(conv->bias, {-0.167259604, 0.128223106, -0.0552702807});
  nn::ConvTranspose2d convt(nn::ConvTranspose2dOptions(2, 3, 3));
  expect_sum(convt->weight, 0.57967506628483534);
  expect_first_exact(convt->bias, {-0.180944592, -0.0409032777, 0.110884145});
  nn::Conv1d conv1(nn::Conv1dOptions(2, 3, 3));
  expect_sum(conv1->weight, 0.97839934378862381);
  expect_sum(conv1->bias, 0.65612335503101349);
  nn::Embedding emb(5, 3);
  expect_first_exact(emb->weight, {-0.758815646, -0.983217001, 0.235544652, 1.45635498});
  expect_sum(emb->weight, 0.10054294764995575);
  nn::LSTM lstm(nn::LSTMOptions(3, 4).num_layers(2));
  const std::vector<double> lstm_sums = {1.1409936547279358, 0.45024049282073975, -0.99190682172775269,
                                         -0.80313313007354736, -1.7680677771568298, 2.1436268091201782,
                                         -0.086635112762451172, 1.2493837475776672};
  const auto lstm_params = lstm->parameters();
  ASSERT_EQ(lstm_params.size(), lstm_sums.size());
  for (size_t i = 0; i < lstm_sums.size(); ++i) expect_sum(lstm_params[i], lstm_sums[i]);
  nn::GRU gru(nn::GRUOptions(3, 2).bidirectional(true));
  expect_sum(gru->named_parameters()["weight_ih_l0_reverse"], -0.74410492274910212);
  expect_sum(gru->named_parameters()["bias_hh_l0_reverse"], -0.49942912580445409);
  nn::RNN rnn(nn::RNNOptions(3, 2));
  expect_first_exact(rnn->named_parameters()["weight_ih_l0"], {0.500453174, -0.10719461, -0.572828412, -0.522984982});
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(4, 2));
  expect_sum(mha->named_parameters()["in_proj_weight"], 2.7254756684415042);
  expect_sum(mha->named_parameters()["out_proj.weight"], 1.9792271852493286);
  expect_sum(mha->named_parameters()["in_proj_bias"], 0);
  nn::Bilinear bil(2, 3, 4);
  expect_sum(bil->weight, -2.9904890507459641);
  expect_sum(bil->bias, -0.72279444336891174);
  nn::LSTMCell cell(3, 2);
  expect_sum(cell->weight_ih, -2.9120327606797218);
  expect_sum(cell->bias_hh, 1.3429940529167652);
  nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(8));
  auto p = layer->named_parameters();
  expect_sum(p["self_attn.in_proj_weight"], -0.92811804078519344);
  expect_sum(p["self_attn.out_proj.weight"], 0.99320113658905029);
  expect_sum(p["linear1.weight"], 0.7327193021774292);
  expect_sum(p["linear2.bias"], -0.74638419598340988);

  auto w = torch::empty({3, 5});
  nn::init::xavier_uniform_(w);
  expect_sum(w, 3.2673530401661992);
  nn::init::xavier_normal_(w);
  expect_sum(w, 2.6612751521170139);
  nn::init::kaiming_normal_(w);
  expect_sum(w, -1.0491066686809063);
  nn::init::kaiming_uniform_(w, 0.1, torch::kFanOut, torch::kLeakyReLU);
  expect_sum(w, 1.3812658041715622);
  nn::init::orthogonal_(w);
  expect_first_exact(w, {-0.920322776, 0.03982253, -0.233220026, 0.189540058});
  nn::init::sparse_(w, 0.5);
  expect_sum(w, -0.0043168562697246671);
  EXPECT_EQ(w.eq(0).sum().item<int64_t>(), 10);  // ceil(0.5 * 3) zeros in each of 5 columns
  nn::init::normal_(w, 1, 2);
  expect_sum(w, 15.040431901812553);
  nn::init::uniform_(w, -2, 3);
  expect_sum(w, 9.5813401341438293);
}

TEST(RandomStream, ASeededTrainingRunReproducesLibTorchsLosses) {
  namespace nn = torch::nn;
  torch::manual_seed(2);
  // One layer per statement: a call's arguments are evaluated in an unspecified order (GCC
  // makes the last one first, clang the first); these losses were drawn in GCC's order.
  nn::Linear out(8, 2);
  nn::Linear in(6, 8);
  nn::Sequential model(in, nn::ReLU(), nn::Dropout(0.3), out);
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  const std::vector<double> expected = {0.703740537, 0.719732642, 0.651551068, 0.720712066, 0.792382121};
  for (double want : expected) {
    auto x = torch::randn({16, 6});
    auto y = torch::randint(0, 2, {16});
    opt.zero_grad();
    auto loss = torch::nn::functional::cross_entropy(model->forward(x), y);
    loss.backward();
    opt.step();
    // The arithmetic of the network may round differently; the draws must be the same.
    EXPECT_NEAR(loss.item<double>(), want, 2e-6);
  }
}

}  // namespace
