// Shared helpers of the iterable DataPipes: traits, deep_copy, NodeMutex, TaskPool, UnaryNode, NaryNode.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/data/datapipes/datapipe.h"

namespace ember::data::datapipes {

namespace detail {
template <class T> struct is_vector : std::false_type {};
template <class U, class A> struct is_vector<std::vector<U, A>> : std::true_type {};
template <class T> struct is_string_map : std::false_type {};
template <class V> struct is_string_map<std::map<std::string, V>> : std::true_type {};

// A deep copy for fork(deep_copy=true): tensors are cloned, containers copied element-wise.
template <class T> T deep_copy(const T& x) {
  if constexpr (std::is_same_v<T, Tensor>) {
    return x.defined() ? x.clone() : x;
  } else if constexpr (is_vector<T>::value) {
    T out;
    out.reserve(x.size());
    for (const auto& e : x) out.push_back(deep_copy(e));
    return out;
  } else {
    return x;
  }
}
void check_positive(const char* op, const char* what, int64_t v);
// A mutex member that copies as a fresh mutex (nodes are copied to clone graphs).
struct NodeMutex {
  std::mutex m;
  NodeMutex() = default;
  NodeMutex(const NodeMutex&) {}
  NodeMutex& operator=(const NodeMutex&) { return *this; }
};
Tensor index_scalar(int64_t i);

// A small pool of threads running tasks (threadpool_map).
class TaskPool {
 public:
  explicit TaskPool(int64_t workers);
  ~TaskPool();
  void submit(std::function<void()> task);

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};
}  // namespace detail

// Base for nodes with one input of type In.
template <class Self, class In, class Out>
class UnaryNode : public IterNodeImpl<Self, Out> {
 public:
  explicit UnaryNode(std::shared_ptr<IterNode<In>> src, bool random = false)
      : IterNodeImpl<Self, Out>(random), src_(std::move(src)) {}
  std::vector<NodeBase*> children() const override { return {src_.get()}; }
  void rebind(CloneContext& ctx) { src_ = ctx.clone(src_); }

 protected:
  std::optional<In> pull_src() { return this->pull(*src_); }
  std::shared_ptr<IterNode<In>> src_;
};

// Base for nodes over several inputs of one type.
template <class Self, class T>
class NaryNode : public IterNodeImpl<Self, T> {
 public:
  explicit NaryNode(std::vector<std::shared_ptr<IterNode<T>>> srcs) : srcs_(std::move(srcs)) {}
  std::vector<NodeBase*> children() const override {
    std::vector<NodeBase*> c;
    for (auto& s : srcs_) c.push_back(s.get());
    return c;
  }
  void rebind(CloneContext& ctx) {
    for (auto& s : srcs_) s = ctx.clone(s);
  }

 protected:
  std::vector<std::shared_ptr<IterNode<T>>> srcs_;
};

}  // namespace ember::data::datapipes
