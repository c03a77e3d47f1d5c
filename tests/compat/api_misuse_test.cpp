// API misuse through <torch/torch.h>, as user code makes it: undefined tensors handed to ops,
// wrong shapes, out-of-range indices and dims. Every case must throw c10::Error (ember::Error),
// never crash or throw another type, and its message must name the op (error.h's promise):
// "index out of range in self" alone does not tell a user which of fifty calls failed.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace {

namespace F = torch::nn::functional;

struct Misuse {
  std::string call;  // the code, for the report
  std::string op;    // what the message must contain
  std::function<void()> run;
};

// Runs every case and reports all failures at once (one per line).
void expect_all_named(const std::vector<Misuse>& cases) {
  std::string failures;
  for (const Misuse& m : cases) {
    try {
      m.run();
      failures += m.call + ": did not throw\n";
    } catch (const c10::Error& e) {
      const std::string what = e.what();
      if (what.find(m.op) == std::string::npos) failures += m.call + ": message does not name '" + m.op + "': " + what + "\n";
    } catch (const std::exception& e) {
      failures += m.call + ": threw a non-ember exception: " + e.what() + "\n";
    }
  }
  EXPECT_TRUE(failures.empty()) << failures;
}

#define MISUSE(op, ...) Misuse{#__VA_ARGS__, op, [&] { (void)(__VA_ARGS__); }}

TEST(ApiMisuse, UndefinedTensorsNameTheOp) {
  torch::Tensor u;  // undefined
  torch::Tensor x = torch::ones({2, 3});
  torch::Tensor idx = torch::tensor({0}, torch::kLong);
  torch::Tensor w = torch::ones({4, 3});
  expect_all_named({
      MISUSE("mul_", u.mul_(2.0)),
      MISUSE("mul_", x.clone().mul_(u)),
      MISUSE("add_", u.add_(x)),
      MISUSE("add_", x.clone().add_(u)),
      MISUSE("sub_", u.sub_(1)),
      MISUSE("div_", u.div_(2)),
      MISUSE("sum", u.sum()),
      MISUSE("sum", u.sum(0)),
      MISUSE("mean", u.mean()),
      MISUSE("prod", u.prod()),
      MISUSE("add", u + x),
      MISUSE("add", x + u),
      MISUSE("mul", u * 2),
      MISUSE("exp", u.exp()),
      MISUSE("exp", u.exp_()),
      MISUSE("neg", -u),
      MISUSE("abs", u.abs()),
      MISUSE("sqrt", torch::sqrt(u)),
      MISUSE("pow", u.pow(2)),
      MISUSE("relu", u.relu()),
      MISUSE("relu", F::relu(u)),
      MISUSE("sigmoid", torch::sigmoid(u)),
      MISUSE("clamp", u.clamp(0, 1)),
      MISUSE("eq", u.eq(x)),
      MISUSE("max", u.max()),
      MISUSE("min", u.min()),
      MISUSE("argmax", u.argmax()),
      MISUSE("softmax", u.softmax(0)),
      MISUSE("log_softmax", torch::log_softmax(u, 0)),
      MISUSE("cumsum", u.cumsum(0)),
      MISUSE("norm", u.norm()),
      MISUSE("std", u.std()),
      MISUSE("var", u.var()),
      MISUSE("all", u.all()),
      MISUSE("any", u.any()),
      MISUSE("sort", u.sort()),
      MISUSE("topk", u.topk(1)),
      MISUSE("view", u.view({-1})),
      MISUSE("reshape", u.reshape({-1})),
      MISUSE("flatten", u.flatten()),
      MISUSE("transpose", u.transpose(0, 1)),
      MISUSE("permute", u.permute({1, 0})),
      MISUSE("squeeze", u.squeeze()),
      MISUSE("unsqueeze", u.unsqueeze(0)),
      MISUSE("expand", u.expand({2, 3})),
      MISUSE("select", u.select(0, 0)),
      MISUSE("narrow", u.narrow(0, 0, 1)),
      MISUSE("contiguous", u.contiguous()),
      MISUSE("clone", u.clone()),
      MISUSE("to", u.to(torch::kDouble)),
      MISUSE("item", u.item()),
      MISUSE("fill_", u.fill_(1)),
      MISUSE("zero_", u.zero_()),
      MISUSE("copy_", u.copy_(x)),
      MISUSE("copy_", x.clone().copy_(u)),
      MISUSE("matmul", u.matmul(x)),
      MISUSE("matmul", torch::matmul(x, u)),
      MISUSE("mm", torch::mm(u, x)),
      MISUSE("bmm", torch::bmm(u, u)),
      MISUSE("cat", torch::cat({x, u})),
      MISUSE("stack", torch::stack({x, u})),
      MISUSE("index_select", u.index_select(0, idx)),
      MISUSE("index_select", x.index_select(0, u)),
      MISUSE("gather", u.gather(0, idx)),
      MISUSE("masked_fill", u.masked_fill(x > 0, 0)),
      MISUSE("where", torch::where(x > 0, u, x)),
      MISUSE("index", u.index({0})),
      MISUSE("zeros_like", torch::zeros_like(u)),
      MISUSE("linear", F::linear(u, w)),
      MISUSE("linear", F::linear(x, u)),
      MISUSE("dropout", F::dropout(u, F::DropoutFuncOptions().p(0.5).training(true))),
      MISUSE("mse_loss", F::mse_loss(u, x)),
      MISUSE("cross_entropy", F::cross_entropy(u, idx)),
      MISUSE("embedding", F::embedding(idx, u)),
      MISUSE("max_pool2d", F::max_pool2d(u, F::MaxPool2dFuncOptions(2))),
      MISUSE("conv2d", F::conv2d(u, torch::ones({1, 1, 1, 1}))),
      MISUSE("backward", u.backward()),
      MISUSE("requires_grad_", u.requires_grad_()),
      MISUSE("detach", u.detach()),
      MISUSE("sizes", u.sizes()),
      MISUSE("dim", u.dim()),
      MISUSE("numel", u.numel()),
      MISUSE("size", u.size(0)),
      MISUSE("data_ptr", u.data_ptr<float>()),
  });
}

TEST(ApiMisuse, WrongArgumentsNameTheOp) {
  torch::Tensor x = torch::ones({2, 3});
  expect_all_named({
      MISUSE("index_select", x.index_select(0, torch::tensor({5}, torch::kLong))),
      MISUSE("index_select", x.index_select(0, torch::tensor({-1}, torch::kLong))),
      MISUSE("matmul", torch::matmul(torch::ones({2, 3}), torch::ones({4, 5}))),
      MISUSE("matmul", torch::matmul(torch::ones({7, 2, 3}), torch::ones({4, 5}))),
      MISUSE("mm", torch::mm(torch::ones({2, 3}), torch::ones({4, 5}))),
      MISUSE("mm", torch::mm(torch::ones({2, 3, 1}), torch::ones({4, 5}))),
      MISUSE("bmm", torch::bmm(torch::ones({2, 2, 3}), torch::ones({2, 4, 5}))),
      MISUSE("bmm", torch::bmm(torch::ones({2, 2, 3}), torch::ones({3, 3, 5}))),
      MISUSE("cat", torch::cat({torch::ones({2, 3}), torch::ones({2, 4})}, 0)),
      MISUSE("cat", torch::cat({torch::ones({2, 3}), torch::ones({2})}, 0)),
      MISUSE("cat", torch::cat(std::vector<torch::Tensor>{}, 0)),
      MISUSE("view", x.view({7})),
      MISUSE("view", x.t().view({6})),
      MISUSE("view", x.view({-1, -1})),
      MISUSE("reshape", x.reshape({7})),
      MISUSE("reshape", x.reshape({-1, -1})),
      MISUSE("gather", x.gather(1, torch::tensor({{5}}, torch::kLong))),
      MISUSE("gather", x.gather(1, torch::tensor({{0.0}}))),  // float index
      MISUSE("gather", x.gather(3, torch::tensor({{0}}, torch::kLong))),
      MISUSE("scatter", x.scatter(1, torch::tensor({{5}}, torch::kLong), torch::ones({1, 1}))),
      MISUSE("scatter", x.scatter(1, torch::tensor({{0}}, torch::kLong), torch::ones({1, 1}, torch::kDouble))),
      MISUSE("scatter_add", x.scatter_add(1, torch::tensor({{5}}, torch::kLong), torch::ones({1, 1}))),
      MISUSE("index_put", x.clone().index_put_({torch::tensor({5}, torch::kLong)}, torch::ones({3}))),
      MISUSE("index_put", x.clone().index_put_({torch::tensor({0}, torch::kLong)}, torch::ones({4}))),
      MISUSE("embedding", F::embedding(torch::tensor({10}, torch::kLong), torch::ones({5, 3}))),
      MISUSE("embedding", F::embedding(torch::tensor({-1}, torch::kLong), torch::ones({5, 3}))),
      MISUSE("embedding", F::embedding(torch::tensor({1.0}), torch::ones({5, 3}))),
      MISUSE("max_pool2d", F::max_pool2d(torch::ones({1, 1, 2, 2}), F::MaxPool2dFuncOptions(3))),
      MISUSE("max_pool2d", F::max_pool2d(torch::ones({2, 2}), F::MaxPool2dFuncOptions(1))),
      MISUSE("max_pool2d", F::max_pool2d(torch::ones({1, 1, 4, 4}), F::MaxPool2dFuncOptions(2).padding(2))),
      MISUSE("avg_pool2d", F::avg_pool2d(torch::ones({1, 1, 2, 2}), F::AvgPool2dFuncOptions(3))),
      MISUSE("conv2d", F::conv2d(torch::ones({1, 2, 4, 4}), torch::ones({1, 3, 1, 1}))),
      MISUSE("conv2d", F::conv2d(torch::ones({1, 1, 2, 2}), torch::ones({1, 1, 3, 3}))),
      MISUSE("linear", F::linear(torch::ones({2, 3}), torch::ones({4, 5}))),
      MISUSE("cross_entropy", F::cross_entropy(torch::ones({2, 3}), torch::tensor({0, 5}, torch::kLong))),
      MISUSE("cross_entropy", F::cross_entropy(torch::ones({2, 3}), torch::tensor({0, 1, 2}, torch::kLong))),
      MISUSE("nll_loss", F::nll_loss(torch::ones({2, 3}), torch::tensor({0, 3}, torch::kLong))),
      MISUSE("mse_loss", F::mse_loss(torch::ones({2, 3}), torch::ones({4}))),
      MISUSE("batch_norm", F::batch_norm(torch::ones({2, 3}), torch::zeros({4}), torch::ones({4}))),
      MISUSE("layer_norm", F::layer_norm(torch::ones({2, 3}), F::LayerNormFuncOptions({4}))),
      MISUSE("expand", x.expand({3, 3})),
      MISUSE("permute", x.permute({0})),
      MISUSE("permute", x.permute({0, 0})),
      MISUSE("transpose", x.transpose(0, 5)),
      MISUSE("narrow", x.narrow(0, 1, 5)),
      MISUSE("select", x.select(0, 5)),
      MISUSE("select", x.select(4, 0)),
      MISUSE("squeeze", x.squeeze(5)),
      MISUSE("unsqueeze", x.unsqueeze(5)),
      MISUSE("stack", torch::stack({torch::ones({2, 3}), torch::ones({3, 2})})),
      MISUSE("chunk", x.chunk(0)),
      MISUSE("split", x.split(0)),
      MISUSE("repeat", x.repeat({2})),
      MISUSE("flatten", x.flatten(1, 0)),
      MISUSE("sum", x.sum(5)),
      MISUSE("mean", x.mean(5)),
      MISUSE("softmax", x.softmax(5)),
      MISUSE("topk", x.topk(10)),
      MISUSE("masked_fill", x.masked_fill(torch::ones({4}) > 0, 0)),
      MISUSE("add_", x.clone().add_(torch::ones({4}))),
      MISUSE("copy_", x.clone().copy_(torch::ones({4}))),
      MISUSE("item", x.item()),
      MISUSE("arange", torch::arange(0, 10, 0)),
      MISUSE("zeros", torch::zeros({-1})),
      MISUSE("einsum", torch::einsum("ij,jk->ik", {x})),
      MISUSE("index", x.index({5})),
      MISUSE("index", x.index({0, 0, 0})),
      MISUSE("data_ptr", x.data_ptr<double>()),
  });
}

#undef MISUSE

}  // namespace
