// Module forward hooks (Module::register_forward_pre_hook / register_forward_hook): they run
// around a call through the holder and through AnyModule / Sequential, in registration order,
// see the output's tensors, can be removed (also from inside a hook), and a direct
// impl->forward() call skips them (as module.forward() does in PyTorch).
#include <torch/torch.h>

#include "test_util.h"

namespace ember::test {
namespace module_hooks {  // named: the tests build as one unity file

struct PairImpl : torch::nn::Module {
  std::tuple<torch::Tensor, torch::Tensor> forward(const torch::Tensor& x) { return {x + 1, x * 2}; }
};
TORCH_MODULE(Pair);

TEST(ModuleForwardHooks, RunAroundHolderCallsInOrder) {
  torch::nn::Linear lin(3, 2);
  std::vector<std::string> log;
  std::vector<torch::Tensor> seen;
  const unsigned a = lin->register_forward_pre_hook([&](torch::nn::Module& m) {
    log.push_back("pre1");
    EXPECT_EQ(&m, lin.get());
  });
  lin->register_forward_pre_hook([&](torch::nn::Module&) { log.push_back("pre2"); });
  lin->register_forward_hook([&](torch::nn::Module&, const std::vector<torch::Tensor>& out) {
    log.push_back("post");
    seen = out;
  });
  const torch::Tensor x = torch::randn({4, 3});
  const torch::Tensor y = lin(x);
  EXPECT_EQ(log, (std::vector<std::string>{"pre1", "pre2", "post"}));
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_TRUE(seen[0].is_same(y));
  // A direct forward() skips them.
  log.clear();
  lin->forward(x);
  EXPECT_TRUE(log.empty());
  // Removal.
  EXPECT_TRUE(lin->remove_forward_hook(a));
  EXPECT_FALSE(lin->remove_forward_hook(a));
  lin(x);
  EXPECT_EQ(log, (std::vector<std::string>{"pre2", "post"}));
}

TEST(ModuleForwardHooks, SeeTupleOutputsAndRunInSequential) {
  Pair pair;
  std::vector<torch::Tensor> seen;
  pair->register_forward_hook([&](torch::nn::Module&, const std::vector<torch::Tensor>& out) { seen = out; });
  auto [p, q] = pair(torch::ones({2}));
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_TRUE(seen[0].is_same(p));
  EXPECT_TRUE(seen[1].is_same(q));

  torch::nn::Linear inner(2, 2);
  int pre = 0, post = 0;
  inner->register_forward_pre_hook([&](torch::nn::Module&) { ++pre; });
  inner->register_forward_hook([&](torch::nn::Module&, const std::vector<torch::Tensor>& out) {
    ++post;
    EXPECT_EQ(out.size(), 1u);
  });
  torch::nn::Sequential seq(inner, torch::nn::ReLU(), inner);
  seq->forward(torch::randn({1, 2}));
  EXPECT_EQ(pre, 2);
  EXPECT_EQ(post, 2);
}

TEST(ModuleForwardHooks, AHookMayRemoveItselfOrAddAnother) {
  torch::nn::Linear lin(2, 2);
  int first = 0, added = 0;
  unsigned id = 0;
  id = lin->register_forward_pre_hook([&](torch::nn::Module& m) {
    ++first;
    EXPECT_TRUE(m.remove_forward_hook(id));
    m.register_forward_pre_hook([&](torch::nn::Module&) { ++added; });
  });
  lin(torch::randn({1, 2}));
  lin(torch::randn({1, 2}));
  EXPECT_EQ(first, 1);
  EXPECT_EQ(added, 1);  // registered during the first call, ran in the second
  EXPECT_TRUE(lin->has_forward_hooks());
}

TEST(ModuleForwardHooks, AnEmptyHookIsAnError) {
  torch::nn::Linear lin(2, 2);
  EXPECT_THROW(lin->register_forward_hook(nullptr), ember::Error);
  EXPECT_THROW(lin->register_forward_pre_hook(nullptr), ember::Error);
}

TEST(ModuleForwardHooks, TheCallWrapperOutlivesHookChangesDuringItsCall) {
  // The wrapper registers and removes a hook on its own module while it runs (each replaces
  // the module's hook lists): the running wrapper and what it captured must stay alive (ASan
  // saw a use after free here before the wrapper was shared between the copies).
  torch::nn::Linear lin(3, 2);
  const std::string tag(64, 'w');  // a heap capture, so a freed wrapper is noticed
  int calls = 0;
  lin->set_call_wrapper([&lin, tag, &calls](const auto& run, const std::vector<torch::Tensor>& in) {
    const unsigned h = lin->register_forward_hook([](torch::nn::Module&, const std::vector<torch::Tensor>&) {});
    lin->remove_forward_hook(h);
    calls += tag.size() == 64 ? 1 : 100;
    return run(in);
  });
  const torch::Tensor x = torch::randn({4, 3});
  EXPECT_TRUE(lin(x).equal(lin->forward(x)));
  EXPECT_TRUE(lin(x).equal(lin->forward(x)));
  EXPECT_EQ(calls, 2);
  lin->set_call_wrapper(nullptr);
  EXPECT_FALSE(lin->has_forward_hooks());
}

}  // namespace module_hooks
}  // namespace ember::test
