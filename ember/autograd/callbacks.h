// Callbacks at the end of a backward pass (PyTorch's Variable._execution_engine.queue_callback):
// what DistributedDataParallel uses to wait for its gradient all-reduces once every gradient
// of the pass has been computed.
#pragma once
#include <functional>

#include "ember/core/tensor.h"

namespace ember::autograd {

// Queues `callback` to run on this thread when the backward pass running on it has finished
// computing gradients (after every node, in queueing order; a callback may queue more).
// Only valid while a backward pass runs (from a hook or a node): an error otherwise.
void queue_callback(std::function<void()> callback);

// Whether a backward pass is running on this thread.
bool in_backward_pass();

// PyTorch's Tensor.register_post_accumulate_grad_hook: `hook(leaf)` runs after a backward pass
// has accumulated a gradient into the leaf's .grad (after the leaf's own gradient hooks), so it
// sees the final .grad. Returns an id for remove_post_accumulate_grad_hook; the owner removes
// its hooks before the leaf goes away.
unsigned register_post_accumulate_grad_hook(const Tensor& leaf, std::function<void(const Tensor&)> hook);
void remove_post_accumulate_grad_hook(const Tensor& leaf, unsigned id);

}  // namespace ember::autograd
