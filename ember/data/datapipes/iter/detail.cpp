#include "ember/data/datapipes/iter/detail.h"

#include "ember/ops/functions.h"

namespace ember::data::datapipes::detail {

void check_positive(const char* op, const char* what, int64_t v) {
  EMBER_CHECK(v > 0, op, ": expected ", what, " > 0, got ", v);
}

Tensor index_scalar(int64_t i) { return full({}, Scalar(i), TensorOptions().dtype(kLong)); }

TaskPool::TaskPool(int64_t workers) {
  for (int64_t i = 0; i < workers; ++i) {
    threads_.emplace_back([this] {
      for (;;) {
        std::function<void()> task;
        {
          std::unique_lock<std::mutex> lock(m_);
          cv_.wait(lock, [&] { return stop_ || !tasks_.empty(); });
          if (tasks_.empty()) return;  // stop_ and nothing left
          task = std::move(tasks_.front());
          tasks_.pop_front();
        }
        task();  // packaged tasks keep their exceptions for the future
      }
    });
  }
}

TaskPool::~TaskPool() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void TaskPool::submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(m_);
    tasks_.push_back(std::move(task));
  }
  cv_.notify_one();
}

}  // namespace ember::data::datapipes::detail
