// Saving and loading with torch::save / torch::load the way LibTorch 1.13 programs checkpoint:
// tensors, vectors of tensors, modules, optimizers, streams, and OutputArchive/InputArchive
// written by hand. Only round trips through the same library are checked.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string temp_path(const std::string& name) { return ::testing::TempDir() + "serialization_usage_" + name + ".pt"; }

struct MlpImpl : torch::nn::Module {
  MlpImpl() {
    fc1 = register_module("fc1", torch::nn::Linear(4, 8));
    bn = register_module("bn", torch::nn::BatchNorm1d(8));
    fc2 = register_module("fc2", torch::nn::Linear(8, 3));
    register_buffer("calls", torch::zeros({1}, torch::kLong));
  }
  torch::Tensor forward(torch::Tensor x) { return fc2(torch::relu(bn(fc1(x)))); }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  torch::nn::BatchNorm1d bn{nullptr};
};
TORCH_MODULE(Mlp);

void expect_same_parameters(torch::nn::Module& a, torch::nn::Module& b) {
  auto pa = a.named_parameters();
  auto pb = b.named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (const auto& item : pa) EXPECT_TRUE(item.value().equal(pb[item.key()])) << item.key();
  auto ba = a.named_buffers();
  auto bb = b.named_buffers();
  ASSERT_EQ(ba.size(), bb.size());
  for (const auto& item : ba) EXPECT_TRUE(item.value().equal(bb[item.key()])) << item.key();
}

}  // namespace

TEST(SerializationUsage, TensorRoundTripThroughFile) {
  const auto path = temp_path("tensor");
  auto t = torch::randn({3, 4});
  torch::save(t, path);
  torch::Tensor loaded;
  torch::load(loaded, path);
  EXPECT_TRUE(loaded.equal(t));
  EXPECT_EQ(loaded.scalar_type(), torch::kFloat);
  EXPECT_EQ(loaded.sizes(), t.sizes());
  std::remove(path.c_str());
}

TEST(SerializationUsage, DtypesAndNonContiguousTensors) {
  std::vector<torch::Tensor> tensors{torch::arange(10, torch::kLong), torch::tensor({true, false, true}),
                                     torch::rand({2, 2}, torch::kDouble), torch::ones({3}, torch::kInt8),
                                     torch::arange(6, torch::kFloat).view({2, 3}).t(), torch::tensor(3.5)};
  for (const auto& t : tensors) {
    std::stringstream ss;
    torch::save(t, ss);
    torch::Tensor back;
    torch::load(back, ss);
    EXPECT_EQ(back.scalar_type(), t.scalar_type());
    EXPECT_EQ(back.sizes(), t.sizes());
    EXPECT_TRUE(back.equal(t));
  }
  // requires_grad survives a round trip
  std::stringstream ss;
  torch::save(torch::ones({2}, torch::requires_grad()), ss);
  torch::Tensor g;
  torch::load(g, ss);
  EXPECT_TRUE(g.requires_grad());
}

TEST(SerializationUsage, VectorOfTensors) {
  const auto path = temp_path("vector");
  std::vector<torch::Tensor> saved{torch::ones({2}), torch::zeros({3, 3}), torch::arange(4)};
  torch::save(saved, path);
  std::vector<torch::Tensor> loaded;
  torch::load(loaded, path);
  ASSERT_EQ(loaded.size(), 3u);
  for (size_t i = 0; i < saved.size(); ++i) EXPECT_TRUE(loaded[i].equal(saved[i]));
  std::remove(path.c_str());
}

TEST(SerializationUsage, ModuleCheckpoint) {
  const auto path = temp_path("module");
  Mlp model;
  model->train();
  model(torch::randn({16, 4}));  // moves the batch-norm running statistics
  torch::save(model, path);

  Mlp restored;
  EXPECT_FALSE(restored->fc1->weight.equal(model->fc1->weight));
  torch::load(restored, path);
  expect_same_parameters(*model, *restored);
  model->eval();
  restored->eval();
  auto x = torch::randn({2, 4});
  EXPECT_TRUE(model(x).equal(restored(x)));
  std::remove(path.c_str());
}

TEST(SerializationUsage, SequentialAndBuiltinModules) {
  torch::nn::Sequential net(torch::nn::Conv2d(1, 2, 3), torch::nn::ReLU(), torch::nn::Flatten(), torch::nn::Linear(8, 2));
  std::stringstream stream;
  torch::save(net, stream);
  torch::nn::Sequential other(torch::nn::Conv2d(1, 2, 3), torch::nn::ReLU(), torch::nn::Flatten(), torch::nn::Linear(8, 2));
  torch::load(other, stream);
  expect_same_parameters(*net, *other);

  torch::nn::Linear lin(3, 3);
  std::stringstream s2;
  torch::save(lin, s2);
  torch::nn::Linear lin2(3, 3);
  torch::load(lin2, s2);
  EXPECT_TRUE(lin2->weight.equal(lin->weight));

  // (LibTorch 1.13 loads a parameter of another shape by Tensor::set_, so the module's shapes
  // silently follow the file; ember rejects it with an error naming the parameter, the
  // validation a corrupted or mismatched checkpoint needs. Not compared here.)
  // The parameter names must match.
  std::stringstream s4;
  torch::save(lin, s4);
  torch::nn::Sequential mismatched(torch::nn::Linear(3, 3));
  EXPECT_THROW(torch::load(mismatched, s4), c10::Error);
}

TEST(SerializationUsage, OptimizerStateRoundTrip) {
  const auto path = temp_path("optim");
  torch::nn::Linear model(3, 1);
  torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(0.01));
  for (int i = 0; i < 3; ++i) {
    opt.zero_grad();
    model(torch::ones({2, 3})).sum().backward();
    opt.step();
  }
  torch::save(opt, path);

  torch::optim::Adam restored(model->parameters(), torch::optim::AdamOptions(0.5));
  torch::load(restored, path);
  // (LibTorch 1.13 reads the saved group options but never applies them, so lr stays 0.5
  // there; ember restores them as PyTorch's load_state_dict does. Not compared here.)
  ASSERT_EQ(restored.state().size(), opt.state().size());
  for (const auto& p : model->parameters()) {
    auto key = c10::guts::to_string(p.unsafeGetTensorImpl());
    auto& a = static_cast<torch::optim::AdamParamState&>(*opt.state().at(key));
    auto& b = static_cast<torch::optim::AdamParamState&>(*restored.state().at(key));
    EXPECT_EQ(a.step(), b.step());
    EXPECT_TRUE(a.exp_avg().equal(b.exp_avg()));
    EXPECT_TRUE(a.exp_avg_sq().equal(b.exp_avg_sq()));
  }

  torch::optim::SGD sgd(model->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  model(torch::ones({1, 3})).sum().backward();
  sgd.step();
  std::stringstream ss;
  torch::save(sgd, ss);
  torch::optim::SGD sgd2(model->parameters(), torch::optim::SGDOptions(0.3));
  torch::load(sgd2, ss);
  auto key = c10::guts::to_string(model->weight.unsafeGetTensorImpl());
  auto& buf = static_cast<torch::optim::SGDParamState&>(*sgd2.state().at(key));
  EXPECT_TRUE(buf.momentum_buffer().equal(static_cast<torch::optim::SGDParamState&>(*sgd.state().at(key)).momentum_buffer()));
  std::remove(path.c_str());
}

TEST(SerializationUsage, ArchivesWrittenByHand) {
  const auto path = temp_path("archive");
  {
    torch::serialize::OutputArchive archive;
    archive.write("weights", torch::arange(5, torch::kFloat));
    archive.write("epoch", c10::IValue(static_cast<int64_t>(7)));
    archive.write("lr", c10::IValue(0.125));
    archive.write("running", torch::ones({2}), /*is_buffer=*/true);
    torch::serialize::OutputArchive nested;
    nested.write("bias", torch::zeros({3}));
    archive.write("head", nested);
    archive.save_to(path);
  }
  torch::serialize::InputArchive in;
  in.load_from(path);
  torch::Tensor w;
  in.read("weights", w);
  EXPECT_TRUE(w.equal(torch::arange(5, torch::kFloat)));
  c10::IValue epoch, lr;
  in.read("epoch", epoch);
  in.read("lr", lr);
  EXPECT_EQ(epoch.toInt(), 7);
  EXPECT_DOUBLE_EQ(lr.toDouble(), 0.125);
  torch::Tensor running;
  in.read("running", running, /*is_buffer=*/true);
  EXPECT_TRUE(running.equal(torch::ones({2})));
  torch::serialize::InputArchive head;
  ASSERT_TRUE(in.try_read("head", head));
  torch::Tensor bias;
  head.read("bias", bias);
  EXPECT_EQ(bias.numel(), 3);
  torch::Tensor missing;
  EXPECT_FALSE(in.try_read("nope", missing));
  EXPECT_THROW(in.read("nope", missing), c10::Error);
  std::vector<std::string> keys = in.keys();
  EXPECT_NE(std::find(keys.begin(), keys.end(), "weights"), keys.end());
  std::remove(path.c_str());
}

TEST(SerializationUsage, ModuleSaveAndLoadThroughArchives) {
  Mlp model;
  torch::serialize::OutputArchive out;
  model->save(out);
  out.write("step", c10::IValue(static_cast<int64_t>(1000)));
  std::ostringstream os;
  out.save_to(os);

  std::istringstream is(os.str());
  torch::serialize::InputArchive in;
  in.load_from(is);
  Mlp restored;
  restored->load(in);
  c10::IValue step;
  in.read("step", step);
  EXPECT_EQ(step.toInt(), 1000);
  expect_same_parameters(*model, *restored);
}

TEST(SerializationUsage, LoadingIntoExistingTensorKeepsIdentityOfParameters) {
  // the usual "copy weights into a model" pattern with NoGradGuard
  torch::nn::Linear src(2, 2), dst(2, 2);
  std::stringstream ss;
  torch::save(src->weight, ss);
  torch::Tensor w;
  torch::load(w, ss);
  auto* before = dst->weight.data_ptr<float>();
  {
    torch::NoGradGuard guard;
    dst->weight.copy_(w);
  }
  EXPECT_EQ(dst->weight.data_ptr<float>(), before);
  EXPECT_TRUE(dst->weight.equal(src->weight));
  EXPECT_TRUE(dst->weight.requires_grad());
  EXPECT_THROW(torch::load(w, "/nonexistent/dir/file.pt"), c10::Error);
}
