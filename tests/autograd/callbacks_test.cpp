// The engine's end-of-pass callbacks and post-accumulate hooks (ember/autograd/callbacks.h):
// queue_callback runs after every node of the pass, in order, and only inside a pass;
// a post-accumulate hook sees the leaf's .grad after accumulation (and after the leaf's own
// gradient hooks), and is removed by its id.
#include <vector>

#include "ember/autograd/callbacks.h"
#include "test_util.h"

namespace ember::test {
namespace engine_callbacks {  // named: the tests build as one unity file

TEST(EngineCallbacks, QueuedCallbacksRunAtTheEndOfThePass) {
  Tensor x = ones({3}).requires_grad_(), y = ones({3}).requires_grad_();
  std::vector<std::string> order;
  x.register_hook([&](const Tensor&) {
    order.push_back("hook x");
    autograd::queue_callback([&] {
      order.push_back("callback 1");
      // Both leaves have their gradients by now.
      EXPECT_TRUE(x.grad().defined() && y.grad().defined());
      autograd::queue_callback([&] { order.push_back("callback 2"); });  // queued by a callback
    });
  });
  y.register_hook([&](const Tensor&) { order.push_back("hook y"); });
  x.mul(y).sum().backward();
  ASSERT_EQ(order.size(), 4u);
  EXPECT_EQ(order[2], "callback 1");
  EXPECT_EQ(order[3], "callback 2");
  EXPECT_FALSE(autograd::in_backward_pass());
  EXPECT_ERROR_WITH(autograd::queue_callback([] {}), "no backward pass is running");
}

TEST(EngineCallbacks, PostAccumulateHooksSeeTheAccumulatedGrad) {
  Tensor w = full({2}, 3.0).requires_grad_();
  std::vector<Tensor> seen;
  w.register_hook([](const Tensor& g) { return g.mul(10); });  // the leaf's own hook runs first
  const unsigned id = autograd::register_post_accumulate_grad_hook(w, [&](const Tensor& leaf) {
    seen.push_back(leaf.grad().clone());
  });
  w.mul(2).sum().backward();  // grad 2, times 10 by the hook
  w.mul(1).sum().backward();  // accumulates 10 more
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_TENSOR_EQ(seen[0], full({2}, 20.0));
  EXPECT_TENSOR_EQ(seen[1], full({2}, 30.0));
  autograd::remove_post_accumulate_grad_hook(w, id);
  w.sum().backward();
  EXPECT_EQ(seen.size(), 2u);
  EXPECT_ERROR_WITH(autograd::register_post_accumulate_grad_hook(ones({2}), [](const Tensor&) {}),
                    "expected a leaf tensor that requires grad");
}

}  // namespace engine_callbacks
}  // namespace ember::test
