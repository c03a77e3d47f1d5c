// A complete LibTorch 1.13 training workflow as tutorials write it: a custom dataset, a data
// loader, a TORCH_MODULE model, an optimizer with a schedule, a training loop with
// gradient clipping, evaluation under NoGradGuard, and a checkpoint that is saved and restored.
// The checks are on behaviour LibTorch 1.13 shows (losses fall, accuracy, exact round trips).
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Two interleaved classes in the plane: class 1 when x0 * x1 > 0.
class QuadrantDataset : public torch::data::datasets::Dataset<QuadrantDataset> {
 public:
  explicit QuadrantDataset(int64_t n) {
    torch::manual_seed(0);
    points_ = torch::rand({n, 2}) * 2 - 1;
    labels_ = (points_.select(1, 0) * points_.select(1, 1) > 0).to(torch::kLong);
  }
  torch::data::Example<> get(size_t i) override { return {points_[i], labels_[i]}; }
  c10::optional<size_t> size() const override { return points_.size(0); }
  const torch::Tensor& points() const { return points_; }
  const torch::Tensor& labels() const { return labels_; }

 private:
  torch::Tensor points_, labels_;
};

struct ClassifierImpl : torch::nn::Module {
  explicit ClassifierImpl(int64_t hidden) {
    body = register_module("body", torch::nn::Sequential(torch::nn::Linear(2, hidden), torch::nn::Tanh(),
                                                          torch::nn::Linear(hidden, hidden), torch::nn::Tanh()));
    head = register_module("head", torch::nn::Linear(hidden, 2));
  }
  torch::Tensor forward(torch::Tensor x) { return head(body->forward(x)); }
  torch::nn::Sequential body{nullptr};
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(Classifier);

double accuracy(Classifier& model, const torch::Tensor& x, const torch::Tensor& y) {
  torch::NoGradGuard no_grad;
  model->eval();
  auto pred = model(x).argmax(1);
  model->train();
  return pred.eq(y).to(torch::kDouble).mean().item<double>();
}

std::vector<double> train(Classifier& model, QuadrantDataset dataset, int epochs) {
  auto loader = torch::data::make_data_loader<torch::data::samplers::RandomSampler>(
      std::move(dataset).map(torch::data::transforms::Stack<>()), torch::data::DataLoaderOptions().batch_size(32));
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(0.02));
  torch::optim::StepLR scheduler(optimizer, 10, 0.5);
  std::vector<double> epoch_losses;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    double total = 0;
    int64_t batches = 0;
    for (auto& batch : *loader) {
      optimizer.zero_grad();
      auto loss = torch::nn::functional::cross_entropy(model(batch.data), batch.target);
      loss.backward();
      torch::nn::utils::clip_grad_norm_(model->parameters(), 5.0);
      optimizer.step();
      total += loss.item<double>();
      ++batches;
    }
    scheduler.step();
    epoch_losses.push_back(total / batches);
  }
  return epoch_losses;
}

}  // namespace

TEST(TrainingWorkflowUsage, DatasetIsDeterministic) {
  QuadrantDataset a(256), b(256);
  EXPECT_TRUE(a.points().equal(b.points()));
  EXPECT_EQ(a.size().value(), 256u);
  auto ones = a.labels().sum().item<int64_t>();
  EXPECT_GT(ones, 96);
  EXPECT_LT(ones, 160);
  auto ex = a.get(3);
  EXPECT_EQ(ex.data.sizes(), (std::vector<int64_t>{2}));
  EXPECT_EQ(ex.target.dim(), 0);
}

TEST(TrainingWorkflowUsage, LossFallsAndAccuracyRises) {
  QuadrantDataset data(512);
  auto x = data.points();
  auto y = data.labels();
  torch::manual_seed(1);
  Classifier model(16);
  const double before = accuracy(model, x, y);
  auto losses = train(model, data, 30);
  ASSERT_EQ(losses.size(), 30u);
  EXPECT_LT(losses.back(), losses.front() * 0.5);
  EXPECT_GT(accuracy(model, x, y), 0.9);
  EXPECT_GT(accuracy(model, x, y), before);
  EXPECT_TRUE(model->is_training());
}

TEST(TrainingWorkflowUsage, CheckpointRestoresPredictions) {
  QuadrantDataset data(256);
  torch::manual_seed(2);
  Classifier model(8);
  train(model, data, 5);
  const std::string path = ::testing::TempDir() + "training_workflow_checkpoint.pt";
  torch::save(model, path);

  torch::manual_seed(99);
  Classifier restored(8);
  torch::load(restored, path);
  model->eval();
  restored->eval();
  torch::NoGradGuard no_grad;
  auto probe = torch::linspace(-1, 1, 20).view({10, 2});
  EXPECT_TRUE(model(probe).equal(restored(probe)));
  std::remove(path.c_str());
}

TEST(TrainingWorkflowUsage, SameSeedSameTraining) {
  auto run = [] {
    QuadrantDataset data(128);
    torch::manual_seed(5);
    Classifier model(8);
    auto losses = train(model, data, 3);
    return std::make_pair(losses, model->head->weight.clone());
  };
  auto first = run();
  auto second = run();
  EXPECT_EQ(first.first, second.first);
  EXPECT_TRUE(first.second.equal(second.second));
}

TEST(TrainingWorkflowUsage, EvaluationDoesNotBuildGraphs) {
  Classifier model(4);
  auto x = torch::randn({3, 2});
  {
    torch::NoGradGuard guard;
    auto out = model(x);
    EXPECT_FALSE(out.requires_grad());
    EXPECT_EQ(out.grad_fn(), nullptr);
  }
  {
    c10::InferenceMode guard;
    auto out = model(x);
    EXPECT_TRUE(out.is_inference());
  }
  auto out = model(x);
  EXPECT_TRUE(out.requires_grad());
  EXPECT_NE(out.grad_fn(), nullptr);
  auto softmax = torch::softmax(out, 1);
  EXPECT_TRUE(softmax.sum(1).allclose(torch::ones({3})));
}

TEST(TrainingWorkflowUsage, FineTuningOnlyTheHead) {
  QuadrantDataset data(128);
  torch::manual_seed(3);
  Classifier model(8);
  for (auto& p : model->body->parameters()) p.set_requires_grad(false);
  auto body_before = model->body->parameters()[0].clone();
  auto head_before = model->head->weight.clone();
  std::vector<torch::Tensor> trainable;
  for (auto& p : model->parameters())
    if (p.requires_grad()) trainable.push_back(p);
  EXPECT_EQ(trainable.size(), 2u);
  torch::optim::SGD opt(trainable, torch::optim::SGDOptions(0.1));
  auto x = data.points();
  auto y = data.labels();
  for (int i = 0; i < 5; ++i) {
    opt.zero_grad();
    torch::nn::functional::cross_entropy(model(x), y).backward();
    opt.step();
  }
  EXPECT_TRUE(model->body->parameters()[0].equal(body_before));
  EXPECT_FALSE(model->head->weight.equal(head_before));
}

TEST(TrainingWorkflowUsage, ManualSgdUpdateLikeTheTutorial) {
  // the "autograd basics" tutorial: fit y = 2x + 1 with raw tensors
  torch::manual_seed(0);
  auto x = torch::linspace(0, 1, 20).unsqueeze(1);
  auto y = 2 * x + 1;
  auto w = torch::zeros({1, 1}, torch::requires_grad());
  auto b = torch::zeros({1}, torch::requires_grad());
  for (int step = 0; step < 2000; ++step) {
    auto loss = (x.matmul(w) + b - y).pow(2).mean();
    loss.backward();
    {
      torch::NoGradGuard no_grad;
      w -= 0.5 * w.grad();
      b -= 0.5 * b.grad();
      w.grad().zero_();
      b.grad().zero_();
    }
  }
  EXPECT_NEAR(w.item<float>(), 2.0f, 1e-3);
  EXPECT_NEAR(b.item<float>(), 1.0f, 1e-3);
  EXPECT_TRUE(w.requires_grad());
  EXPECT_TRUE(w.is_leaf());
}

TEST(TrainingWorkflowUsage, PrintingProgress) {
  Classifier model(4);
  std::ostringstream log;
  log << "epoch " << 1 << " loss " << torch::tensor(0.5).item<double>();
  EXPECT_EQ(log.str(), "epoch 1 loss 0.5");
  std::ostringstream summary;
  summary << model;
  EXPECT_EQ(summary.str(),
            "(anonymous namespace)::ClassifierImpl(\n"
            "  (body): torch::nn::Sequential(\n"
            "    (0): torch::nn::Linear(in_features=2, out_features=4, bias=true)\n"
            "    (1): torch::nn::Tanh()\n"
            "    (2): torch::nn::Linear(in_features=4, out_features=4, bias=true)\n"
            "    (3): torch::nn::Tanh()\n"
            "  )\n"
            "  (head): torch::nn::Linear(in_features=4, out_features=2, bias=true)\n"
            ")");
}
