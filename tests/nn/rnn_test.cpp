// RNN/LSTM/GRU and their cells against PyTorch (tests/golden/gen_rnn_transformer.py): outputs
// and gradients of inputs and parameters; gradcheck in both modes; names, init and errors.
#include <torch/torch.h>

#include <functional>
#include <map>
#include <sstream>

#include "test_util.h"

namespace ember::test {

namespace {
const std::string kGoldenFile = std::string(EMBER_GOLDEN_DIR) + "/rnn_transformer.safetensors";
const serialize::SafetensorsContents& golden_file() {
  static const serialize::SafetensorsContents f = serialize::load_file(kGoldenFile);
  return f;
}
}  // namespace

using GoldenInputs = std::function<Tensor(const std::string&)>;

// Checks case `name` of rnn_transformer.safetensors: loads the PyTorch state_dict into `module`
// (made double, eval mode; null for plain functions) and checks that its parameter names and
// order are PyTorch's, runs `run` on the case's inputs (looked up by name; floating inputs
// other than masks require grad; undefined when absent), and compares the outputs and the
// gradients of sum_i (output_i * r_i) with respect to inputs and parameters.
// (Also used by transformer_test.cpp.)
void expect_matches_pytorch(const std::string& name, const std::shared_ptr<nn::Module>& module,
                            const std::function<std::vector<Tensor>(const GoldenInputs&)>& run) {
  SCOPED_TRACE(name);
  const auto& f = golden_file();
  auto get = [&](const std::string& key) {
    auto it = f.tensors.find(name + "." + key);
    return it == f.tensors.end() ? Tensor() : it->second;
  };
  if (module) {
    module->to(kDouble);
    module->eval();
    serialize::InputArchive root, entry, state;
    root.load_from(kGoldenFile);
    root.read(name, entry);
    entry.read("model", state);
    module->load(state);
    std::string names;
    for (const auto& p : module->named_parameters()) names += (names.empty() ? "" : ",") + p.key();
    EXPECT_EQ(names, f.metadata.at(name + ".params"));
  }
  std::map<std::string, Tensor> inputs;
  GoldenInputs in = [&](const std::string& key) {
    if (!inputs.count(key)) {
      Tensor t = get("in." + key);
      if (t.defined() && t.is_floating_point() && key.find("mask") == std::string::npos)
        t = t.clone().requires_grad_(true);
      inputs[key] = t;
    }
    return inputs[key];
  };
  const std::vector<Tensor> outs = run(in);
  Tensor loss = zeros({}, kDouble);
  for (size_t i = 0; i < outs.size(); ++i) {
    const Tensor expected = get("out." + std::to_string(i));
    ASSERT_TRUE(expected.defined()) << "PyTorch has fewer outputs";
    EXPECT_TENSOR_CLOSE(outs[i], expected, 1e-10, 1e-12);
    loss = loss.add(outs[i].mul(get("r." + std::to_string(i))).sum());
  }
  EXPECT_FALSE(get("out." + std::to_string(outs.size())).defined()) << "PyTorch has more outputs";
  loss.backward();
  for (const auto& [key, t] : inputs)
    if (t.defined() && t.requires_grad()) {
      SCOPED_TRACE("gradient of input " + key);
      EXPECT_TENSOR_CLOSE(t.grad(), get("grad.in." + key), 1e-10, 1e-12);
    }
  if (module)
    for (const auto& p : module->named_parameters()) {
      SCOPED_TRACE("gradient of parameter " + p.key());
      EXPECT_TENSOR_CLOSE(p.value().grad(), get("grad.model." + p.key()), 1e-10, 1e-12);
    }
}

}  // namespace ember::test

namespace {

namespace nn = torch::nn;
using ember::test::expect_matches_pytorch;
using ember::test::GoldenInputs;
using V = std::vector<torch::Tensor>;

V lstm_outputs(const std::tuple<torch::Tensor, std::tuple<torch::Tensor, torch::Tensor>>& r) {
  return {std::get<0>(r), std::get<0>(std::get<1>(r)), std::get<1>(std::get<1>(r))};
}

TEST(RnnGolden, StackedBidirectionalBatchFirstLstmWithProjection) {
  nn::LSTM lstm(nn::LSTMOptions(3, 5).num_layers(2).bidirectional(true).batch_first(true).proj_size(2).dropout(0.3));
  expect_matches_pytorch("lstm", lstm.ptr(), [&](const GoldenInputs& in) {
    return lstm_outputs(lstm(in("x"), std::make_tuple(in("h0"), in("c0"))));
  });
}

TEST(RnnGolden, UnbatchedLstmWithoutBias) {
  nn::LSTM lstm(nn::LSTMOptions(3, 4).bias(false));
  expect_matches_pytorch("lstm_unbatched", lstm.ptr(), [&](const GoldenInputs& in) {
    return lstm_outputs(lstm(in("x"), std::make_tuple(in("h0"), in("c0"))));
  });
}

TEST(RnnGolden, StackedBidirectionalGru) {
  nn::GRU gru(nn::GRUOptions(3, 4).num_layers(2).bidirectional(true).dropout(0.2));
  expect_matches_pytorch("gru", gru.ptr(), [&](const GoldenInputs& in) {
    auto [out, h] = gru(in("x"), in("h0"));
    return V{out, h};
  });
}

TEST(RnnGolden, ReluRnnWithoutBiasOrInitialState) {
  nn::RNN rnn(nn::RNNOptions(3, 4).num_layers(2).nonlinearity(torch::kReLU).bias(false).batch_first(true));
  expect_matches_pytorch("rnn_relu", rnn.ptr(), [&](const GoldenInputs& in) {
    auto [out, h] = rnn(in("x"));
    return V{out, h};
  });
}

TEST(RnnGolden, UnbatchedBidirectionalTanhRnn) {
  nn::RNN rnn(nn::RNNOptions(3, 4).bidirectional(true));
  expect_matches_pytorch("rnn_tanh", rnn.ptr(), [&](const GoldenInputs& in) {
    auto [out, h] = rnn(in("x"), in("h0"));
    return V{out, h};
  });
}

TEST(RnnGolden, Cells) {
  nn::LSTMCell lstm(3, 4);
  expect_matches_pytorch("lstm_cell", lstm.ptr(), [&](const GoldenInputs& in) {
    auto [h, c] = lstm(in("x"), std::make_tuple(in("h0"), in("c0")));
    return V{h, c};
  });
  nn::GRUCell gru(3, 4);  // unbatched, no hidden state given
  expect_matches_pytorch("gru_cell", gru.ptr(), [&](const GoldenInputs& in) { return V{gru(in("x"))}; });
  nn::RNNCell rnn(nn::RNNCellOptions(3, 4).bias(false).nonlinearity(torch::kReLU));
  expect_matches_pytorch("rnn_cell", rnn.ptr(), [&](const GoldenInputs& in) { return V{rnn(in("x"), in("h0"))}; });
}

TEST(RnnModules, ParameterNamesShapesAndInit) {
  nn::LSTM lstm(nn::LSTMOptions(3, 5).num_layers(2).bidirectional(true).proj_size(2));
  std::vector<std::string> names;
  for (int layer = 0; layer < 2; ++layer)
    for (std::string sfx : {"", "_reverse"})
      for (std::string n : {"weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr"})
        names.push_back(n + "_l" + std::to_string(layer) + sfx);
  EXPECT_EQ(lstm->named_parameters().keys(), names);
  auto p = lstm->named_parameters();
  EXPECT_EQ(p["weight_ih_l0"].sizes(), torch::IntArrayRef({20, 3}));
  EXPECT_EQ(p["weight_hh_l0"].sizes(), torch::IntArrayRef({20, 2}));
  EXPECT_EQ(p["weight_ih_l1_reverse"].sizes(), torch::IntArrayRef({20, 4}));  // 2 directions x proj_size
  EXPECT_EQ(p["weight_hr_l1"].sizes(), torch::IntArrayRef({2, 5}));
  EXPECT_EQ(lstm->all_weights().size(), 20u);
  for (const auto& w : lstm->parameters()) EXPECT_LE(w.abs().max().item<float>(), 1 / std::sqrt(5.f) + 1e-6f);

  nn::GRU gru(nn::GRUOptions(2, 3).bias(false));
  EXPECT_EQ(gru->named_parameters().keys(), (std::vector<std::string>{"weight_ih_l0", "weight_hh_l0"}));
  EXPECT_EQ(gru->named_parameters()["weight_ih_l0"].sizes(), torch::IntArrayRef({9, 2}));
  nn::RNNCell cell(nn::RNNCellOptions(2, 3).bias(false));
  EXPECT_EQ(cell->named_parameters().keys(), (std::vector<std::string>{"weight_ih", "weight_hh"}));
  EXPECT_EQ(nn::LSTMCell(2, 3)->named_parameters().keys(),
            (std::vector<std::string>{"weight_ih", "weight_hh", "bias_ih", "bias_hh"}));
  EXPECT_EQ(nn::LSTMCell(2, 3)->weight_ih.sizes(), torch::IntArrayRef({12, 2}));
  std::ostringstream s;
  s << *lstm;
  EXPECT_EQ(s.str(),
            "torch::nn::LSTM(input_size=3, hidden_size=5, num_layers=2, bias=true, batch_first=false, "
            "dropout=0, bidirectional=true, proj_size=2)");
}

TEST(RnnModules, ShapesDefaultsAndClone) {
  torch::manual_seed(0);
  nn::GRU gru(nn::GRUOptions(3, 4).num_layers(3).batch_first(true));
  auto [out, h] = gru(torch::randn({2, 7, 3}));
  EXPECT_EQ(out.sizes(), torch::IntArrayRef({2, 7, 4}));
  EXPECT_EQ(h.sizes(), torch::IntArrayRef({3, 2, 4}));  // hidden states are never batch-first
  EXPECT_TRUE(out.select(1, 6).equal(h[2]));            // the last step's output is the last layer's h_n
  // a zero initial state is the same as none
  torch::Tensor x = torch::randn({5, 2, 3});
  nn::LSTM lstm(3, 4);
  auto [o1, s1] = lstm(x);
  auto [o2, s2] = lstm(x, std::make_tuple(torch::zeros({1, 2, 4}), torch::zeros({1, 2, 4})));
  EXPECT_TRUE(o1.equal(o2));
  // clones are deep and compute the same
  auto copy = std::dynamic_pointer_cast<nn::LSTMImpl>(lstm->clone());
  ASSERT_TRUE(copy);
  EXPECT_TRUE(std::get<0>(copy->forward(x)).equal(o1));
  {
    torch::NoGradGuard g;
    copy->all_weights()[0].fill_(0);
  }
  EXPECT_FALSE(lstm->all_weights()[0].eq(0).all().item<bool>());
  EXPECT_FALSE(std::get<0>(copy->forward(x)).equal(o1));
}

TEST(RnnModules, DropoutBetweenLayersOnlyWhenTraining) {
  torch::manual_seed(1);
  nn::GRU gru(nn::GRUOptions(3, 8).num_layers(2).dropout(0.5));
  torch::Tensor x = torch::randn({4, 2, 3});
  gru->eval();
  torch::Tensor reference = std::get<0>(gru(x));
  EXPECT_TRUE(std::get<0>(gru(x)).equal(reference));
  gru->train();
  torch::Tensor a = std::get<0>(gru(x)), b = std::get<0>(gru(x));
  EXPECT_FALSE(a.equal(reference));
  EXPECT_FALSE(a.equal(b));
  // the last layer's output itself is not dropped: no exact zeros appear
  EXPECT_FALSE(a.eq(0).any().item<bool>());
}

TEST(RnnGradcheck, EveryCellInBothModes) {
  torch::manual_seed(2);
  torch::autograd::GradcheckOptions o;
  o.check_forward_ad = true;
  auto dbl = [](torch::IntArrayRef s) { return torch::randn(s, torch::dtype(torch::kDouble).requires_grad(true)); };
  nn::LSTM lstm(nn::LSTMOptions(2, 3).bidirectional(true).proj_size(1));
  lstm->to(torch::kDouble);
  EXPECT_TRUE(
      torch::autograd::gradcheck([&](const V& v) { return lstm_outputs(lstm(v[0], std::make_tuple(v[1], v[2]))); },
                                 {dbl({3, 2, 2}), dbl({2, 2, 1}), dbl({2, 2, 3})}, o));
  nn::GRU gru(nn::GRUOptions(2, 3).num_layers(2).batch_first(true));
  gru->to(torch::kDouble);
  EXPECT_TRUE(torch::autograd::gradcheck(
      [&](const V& v) {
        auto [out, h] = gru(v[0], v[1]);
        return V{out, h};
      },
      {dbl({2, 3, 2}), dbl({2, 2, 3})}, o));
  nn::RNN rnn(nn::RNNOptions(2, 3).nonlinearity(torch::kTanh));
  rnn->to(torch::kDouble);
  EXPECT_TRUE(torch::autograd::gradcheck(
      [&](const V& v) {
        auto [out, h] = rnn(v[0], v[1]);
        return V{out, h};
      },
      {dbl({3, 2}), dbl({1, 3})}, o));
  nn::LSTMCell cell(2, 3);
  cell->to(torch::kDouble);
  EXPECT_TRUE(torch::autograd::gradcheck(
      [&](const V& v) {
        auto [h, c] = cell(v[0], std::make_tuple(v[1], v[2]));
        return V{h, c};
      },
      {dbl({2, 2}), dbl({2, 3}), dbl({2, 3})}, o));
  nn::GRUCell gcell(2, 3);
  gcell->to(torch::kDouble);
  EXPECT_TRUE(torch::autograd::gradcheck([&](const V& v) { return V{gcell(v[0], v[1])}; }, {dbl({2}), dbl({3})}, o));
  // parameters too: a cell computes with its public weight members
  nn::RNNCell rcell(2, 3);
  rcell->to(torch::kDouble);
  EXPECT_TRUE(torch::autograd::gradcheck(
      [&](const V& v) {
        rcell->weight_ih = v[1];
        rcell->bias_hh = v[2];
        return V{rcell(v[0])};
      },
      {dbl({2, 2}), dbl({3, 2}), dbl({3})}, o));
}

TEST(RnnErrors, MessagesNameTheOpTheShapesAndTheExpectation) {
  nn::LSTM lstm(nn::LSTMOptions(3, 5).num_layers(2).bidirectional(true).proj_size(2));
  EXPECT_ERROR_WITH(lstm(torch::randn({4, 2, 4})),
                    "LSTM: input.size(-1) must be equal to input_size. Expected 3, got 4");
  EXPECT_ERROR_WITH(lstm(torch::randn({1, 4, 2, 3})), "LSTM: Expected input to be 2-D or 3-D but received 4-D tensor");
  EXPECT_ERROR_WITH(lstm(torch::randn({4, 2, 3}), std::make_tuple(torch::zeros({4, 2, 5}), torch::zeros({4, 2, 5}))),
                    "LSTM: Expected hidden[0] size [4, 2, 2], got [4, 2, 5]");
  EXPECT_ERROR_WITH(lstm(torch::randn({4, 2, 3}), std::make_tuple(torch::zeros({4, 2, 2}), torch::zeros({4, 3, 5}))),
                    "LSTM: Expected hidden[1] size [4, 2, 5], got [4, 3, 5]");
  EXPECT_ERROR_WITH(lstm(torch::randn({4, 2, 3}), std::make_tuple(torch::zeros({4, 2}), torch::zeros({4, 5}))),
                    "For batched 3-D input, hx and cx should also be 3-D but got 2-D tensor");
  nn::GRU gru(3, 4);
  EXPECT_ERROR_WITH(gru(torch::randn({5, 3}), torch::zeros({1, 1, 4})),
                    "GRU: For unbatched 2-D input, hx should also be 2-D but got 3-D tensor");
  EXPECT_ERROR_WITH(gru(torch::randn({5, 2, 3}), torch::zeros({2, 2, 4})),
                    "GRU: Expected hidden size [1, 2, 4], got [2, 2, 4]");
  EXPECT_ERROR_WITH(nn::LSTM(nn::LSTMOptions(3, 4).proj_size(4)), "proj_size has to be smaller than hidden_size");
  EXPECT_ERROR_WITH(nn::GRU(nn::GRUOptions(3, 4).dropout(1.5)), "dropout should be a number in range [0, 1]");
  EXPECT_ERROR_WITH(nn::RNN(nn::RNNOptions(3, 4).nonlinearity(torch::kSigmoid)),
                    "expected torch::kTanh or torch::kReLU");
  nn::GRUCell cell(3, 4);
  EXPECT_ERROR_WITH(cell(torch::randn({2, 4})), "GRUCell: input has inconsistent input_size: got 4, expected 3");
  EXPECT_ERROR_WITH(cell(torch::randn({2, 3}), torch::zeros({3, 4})),
                    "GRUCell: Input batch size 2 doesn't match hidden batch size 3");
  EXPECT_ERROR_WITH(cell(torch::randn({2, 3}), torch::zeros({2, 5})),
                    "GRUCell: hidden has inconsistent hidden_size: got 5, expected 4");
  EXPECT_ERROR_WITH(nn::LSTMCell(3, 4)(torch::randn({2, 2, 3})),
                    "LSTMCell: Expected input to be 1-D or 2-D but received 3-D tensor");
}

}  // namespace
