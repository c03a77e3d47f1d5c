// Combining DataPipes (TorchData's iter/combining): Zipper, ZipLongest, Concater, Multiplexer, fork/demux.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/data/datapipes/datapipe.h"
#include "ember/data/datapipes/iter/detail.h"

namespace ember::data::datapipes {

template <class... Ts>
class ZipperNode final : public IterNodeImpl<ZipperNode<Ts...>, std::tuple<Ts...>> {
 public:
  explicit ZipperNode(std::shared_ptr<IterNode<Ts>>... srcs) : srcs_(std::move(srcs)...) {}
  const char* name() const override { return "Zipper"; }
  std::vector<NodeBase*> children() const override {
    return std::apply([](auto&... s) { return std::vector<NodeBase*>{s.get()...}; }, srcs_);
  }
  void rebind(CloneContext& ctx) {
    std::apply([&](auto&... s) { ((s = ctx.clone(s)), ...); }, srcs_);
  }
  std::optional<std::tuple<Ts...>> next() override {
    auto parts = std::apply([&](auto&... s) { return std::tuple<std::optional<Ts>...>{this->pull(*s)...}; }, srcs_);
    bool all = std::apply([](auto&... p) { return (p.has_value() && ...); }, parts);
    if (!all) return std::nullopt;
    return std::apply([](auto&... p) { return std::tuple<Ts...>{std::move(*p)...}; }, parts);
  }

 private:
  std::tuple<std::shared_ptr<IterNode<Ts>>...> srcs_;
};

template <class... Ts>
class ZipLongestNode final : public IterNodeImpl<ZipLongestNode<Ts...>, std::tuple<std::optional<Ts>...>> {
 public:
  explicit ZipLongestNode(std::shared_ptr<IterNode<Ts>>... srcs) : srcs_(std::move(srcs)...) {}
  const char* name() const override { return "ZipperLongest"; }
  std::vector<NodeBase*> children() const override {
    return std::apply([](auto&... s) { return std::vector<NodeBase*>{s.get()...}; }, srcs_);
  }
  void rebind(CloneContext& ctx) {
    std::apply([&](auto&... s) { ((s = ctx.clone(s)), ...); }, srcs_);
  }
  void reset() override { done_.fill(false); }
  std::optional<std::tuple<std::optional<Ts>...>> next() override {
    auto parts = pull_all(std::index_sequence_for<Ts...>{});
    bool any = std::apply([](auto&... p) { return (p.has_value() || ...); }, parts);
    if (!any) return std::nullopt;
    return parts;
  }

 private:
  template <size_t... I>
  std::tuple<std::optional<Ts>...> pull_all(std::index_sequence<I...>) {
    return {pull_one<I>()...};
  }
  template <size_t I>
  auto pull_one() {
    using U = std::tuple_element_t<I, std::tuple<Ts...>>;
    if (done_[I]) return std::optional<U>();
    auto x = this->pull(*std::get<I>(srcs_));
    if (!x) done_[I] = true;
    return x;
  }
  std::tuple<std::shared_ptr<IterNode<Ts>>...> srcs_;
  std::array<bool, sizeof...(Ts)> done_{};
};

template <class T>
class ConcaterNode final : public NaryNode<ConcaterNode<T>, T> {
 public:
  using NaryNode<ConcaterNode, T>::NaryNode;
  const char* name() const override { return "Concater"; }
  void reset() override { i_ = 0; }
  std::optional<T> next() override {
    for (; i_ < this->srcs_.size(); ++i_)
      if (auto x = this->pull(*this->srcs_[i_])) return x;
    return std::nullopt;
  }

 private:
  size_t i_ = 0;
};

// One element from each input in turn; ends with the first input that ends (the
// incomplete last round is dropped), or, `longest`, continues with those left.
template <class T>
class MultiplexerNode final : public NaryNode<MultiplexerNode<T>, T> {
 public:
  MultiplexerNode(std::vector<std::shared_ptr<IterNode<T>>> srcs, bool longest)
      : NaryNode<MultiplexerNode, T>(std::move(srcs)), longest_(longest) {}
  const char* name() const override { return longest_ ? "MultiplexerLongest" : "Multiplexer"; }
  void reset() override {
    round_.clear();
    live_.assign(this->srcs_.size(), true);
    i_ = 0;
    ended_ = false;
  }
  std::optional<T> next() override {
    if (longest_) {
      for (size_t tries = 0; tries < this->srcs_.size(); ++tries, i_ = (i_ + 1) % this->srcs_.size()) {
        if (!live_[i_]) continue;
        if (auto x = this->pull(*this->srcs_[i_])) {
          i_ = (i_ + 1) % this->srcs_.size();
          return x;
        }
        live_[i_] = false;
      }
      return std::nullopt;
    }
    if (round_.empty() && !ended_) {
      for (auto& s : this->srcs_) {
        auto x = this->pull(*s);
        if (!x) {
          ended_ = true;
          round_.clear();
          break;
        }
        round_.push_back(std::move(*x));
      }
    }
    if (round_.empty()) return std::nullopt;
    T x = std::move(round_.front());
    round_.pop_front();
    return x;
  }

 private:
  bool longest_;
  std::deque<T> round_;
  std::vector<bool> live_;
  size_t i_ = 0;
  bool ended_ = false;
};

// fork(): one input read once, buffered until every output has taken each element.
template <class T>
class ForkBufferNode final : public NodeImpl<ForkBufferNode<T>, NodeBase> {
 public:
  ForkBufferNode(std::shared_ptr<IterNode<T>> src, int64_t n, int64_t buffer_size, bool deep)
      : src_(std::move(src)), n_(n), buffer_size_(buffer_size), deep_(deep) {}
  const char* name() const override { return "Forker"; }
  bool shareable() const override { return true; }
  std::vector<NodeBase*> children() const override { return {src_.get()}; }
  void rebind(CloneContext& ctx) { src_ = ctx.clone(src_); }
  void reset() override {
    buf_.clear();
    base_ = 0;
    pos_.assign(size_t(n_), 0);
    done_ = false;
  }
  // Outputs may be read from different threads (a prefetch() on one of them).
  std::optional<T> get(int64_t child) {
    std::lock_guard<std::mutex> lock(mutex_.m);
    int64_t& p = pos_[size_t(child)];
    if (p - base_ >= int64_t(buf_.size())) {
      if (done_) return std::nullopt;
      auto x = this->pull(*src_);
      if (!x) {
        done_ = true;
        return std::nullopt;
      }
      EMBER_CHECK(buffer_size_ < 0 || int64_t(buf_.size()) < buffer_size_, "fork: output ", child, " is ",
                  buf_.size(), " elements ahead of the slowest output and the buffer holds ", buffer_size_,
                  " (consume the outputs together, e.g. zip or mux them, or raise buffer_size; -1 is unbounded)");
      buf_.push_back(std::move(*x));
    }
    size_t at = size_t(p - base_);
    ++p;
    std::optional<T> out = deep_ ? detail::deep_copy(buf_[at]) : buf_[at];
    // Drop what every output has taken.
    int64_t slowest = *std::min_element(pos_.begin(), pos_.end());
    while (base_ < slowest) {
      buf_.pop_front();
      ++base_;
    }
    return out;
  }

 private:
  std::shared_ptr<IterNode<T>> src_;
  int64_t n_, buffer_size_;
  bool deep_;
  detail::NodeMutex mutex_;
  std::deque<T> buf_;
  int64_t base_ = 0;
  std::vector<int64_t> pos_;
  bool done_ = false;
};

// demux(): one input routed by a classifier, each output's share buffered until taken.
template <class T, class F>
class DemuxBufferNode final : public NodeImpl<DemuxBufferNode<T, F>, NodeBase> {
 public:
  DemuxBufferNode(std::shared_ptr<IterNode<T>> src, int64_t n, F fn, bool drop_none, int64_t buffer_size)
      : src_(std::move(src)), n_(n), fn_(std::move(fn)), drop_none_(drop_none), buffer_size_(buffer_size) {}
  const char* name() const override { return "Demultiplexer"; }
  bool shareable() const override { return true; }
  std::vector<NodeBase*> children() const override { return {src_.get()}; }
  void rebind(CloneContext& ctx) { src_ = ctx.clone(src_); }
  void reset() override {
    bufs_.assign(size_t(n_), {});
    done_ = false;
  }
  std::optional<T> get(int64_t child) {
    std::lock_guard<std::mutex> lock(mutex_.m);
    auto& mine = bufs_[size_t(child)];
    while (mine.empty()) {
      if (done_) return std::nullopt;
      auto x = this->pull(*src_);
      if (!x) {
        done_ = true;
        return std::nullopt;
      }
      std::optional<int64_t> k = classify(*x);
      if (!k) {
        EMBER_CHECK(drop_none_, "demux: the classifier returned none for an element (set drop_none to drop such elements)");
        continue;
      }
      EMBER_CHECK(*k >= 0 && *k < n_, "demux: the classifier returned ", *k, ", expected an output in [0, ", n_, ")");
      auto& dst = bufs_[size_t(*k)];
      EMBER_CHECK(*k == child || buffer_size_ < 0 || int64_t(dst.size()) < buffer_size_, "demux: output ", *k,
                  " has ", dst.size(), " elements waiting while output ", child,
                  " is read, and the buffer holds ", buffer_size_,
                  " (consume the outputs together, e.g. mux them, or raise buffer_size; -1 is unbounded)");
      dst.push_back(std::move(*x));
    }
    T x = std::move(mine.front());
    mine.pop_front();
    return x;
  }

 private:
  std::optional<int64_t> classify(const T& x) {
    auto r = fn_(x);
    if constexpr (std::is_integral_v<decltype(r)>) {
      return int64_t(r);
    } else {
      return r ? std::optional<int64_t>(int64_t(*r)) : std::nullopt;
    }
  }
  std::shared_ptr<IterNode<T>> src_;
  int64_t n_;
  F fn_;
  bool drop_none_;
  int64_t buffer_size_;
  detail::NodeMutex mutex_;
  std::vector<std::deque<T>> bufs_;
  bool done_ = false;
};

// An output of fork() or demux().
template <class T, class Buffer>
class BufferChildNode final : public IterNodeImpl<BufferChildNode<T, Buffer>, T> {
 public:
  BufferChildNode(std::shared_ptr<Buffer> buf, int64_t index) : buf_(std::move(buf)), index_(index) {}
  const char* name() const override { return buf_->name(); }
  std::vector<NodeBase*> children() const override { return {buf_.get()}; }
  void rebind(CloneContext& ctx) { buf_ = ctx.clone(buf_); }
  std::optional<T> next() override {
    if (buf_->token() != this->token()) this->invalidated(*buf_);
    return buf_->get(index_);
  }

 private:
  std::shared_ptr<Buffer> buf_;
  int64_t index_;
};

}  // namespace ember::data::datapipes
