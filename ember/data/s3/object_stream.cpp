#include "ember/data/s3/object_stream.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace ember::data::s3 {

namespace {

// Note [Part ring]: part p lives in slot p % slots. A worker may start part p only once
// the reader has finished part p - slots (that slot is then free), so no more than
// `slots` parts are ever buffered, and parts are consumed strictly in order. A failed
// part stops new parts from starting; the reader sees every byte before it, then the
// error.
class S3ObjectStream final : public io::InputStream {
 public:
  S3ObjectStream(S3Client client, std::string bucket, std::string key, std::optional<uint64_t> size,
                 std::string etag)
      : client_(std::move(client)),
        bucket_(std::move(bucket)),
        key_(std::move(key)),
        name_("s3://" + bucket_ + "/" + key_),
        etag_(std::move(etag)),
        part_size_(client_.config().part_size) {
    if (size) set_size(*size);
  }

  ~S3ObjectStream() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cancel_.store(true);
    cv_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  const std::string& name() const override { return name_; }

 protected:
  size_t read_some(char* buf, size_t n) override {
    if (!started_) start();
    if (pos_ >= size_ || n == 0) return 0;
    const uint64_t part = pos_ / part_size_;
    Slot& slot = slots_[part % slots_.size()];
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return slot.ready_part == part || (error_ && part >= error_part_); });
    if (slot.ready_part != part) std::rethrow_exception(error_);
    lock.unlock();
    // The slot is ours until we release it: workers never touch a ready slot.
    const uint64_t in_part = pos_ - part * part_size_;
    const uint64_t part_len = std::min<uint64_t>(part_size_, size_ - part * part_size_);
    size_t k = static_cast<size_t>(std::min<uint64_t>(n, part_len - in_part));
    std::memcpy(buf, slot.data.data() + in_part, k);
    pos_ += k;
    if (in_part + k == part_len) {
      lock.lock();
      slot.ready_part = kNone;
      consumed_ = part + 1;
      lock.unlock();
      cv_.notify_all();
    }
    return k;
  }

 private:
  static constexpr uint64_t kNone = ~uint64_t(0);
  struct Slot {
    std::vector<char> data;
    uint64_t ready_part = kNone;  // the part whose bytes `data` holds, or kNone
  };

  void set_size(uint64_t size) {
    size_ = size;
    parts_ = (size + part_size_ - 1) / part_size_;
  }

  void start() {
    if (size_ == kNone) {
      ObjectInfo info = client_.head_object(bucket_, key_);
      set_size(info.size);
      if (etag_.empty()) etag_ = info.etag;
    }
    started_ = true;  // after the HEAD: a failed one is tried again by the next read
    if (parts_ == 0) return;
    size_t slots = static_cast<size_t>(std::min<uint64_t>(client_.config().max_in_flight, parts_));
    slots_.resize(slots);
    for (size_t i = 0; i < slots; ++i) workers_.emplace_back([this] { work(); });
  }

  void work() {
    for (;;) {
      uint64_t part;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || error_ || next_ >= parts_ || next_ < consumed_ + slots_.size(); });
        if (stop_ || error_ || next_ >= parts_) return;
        part = next_++;
      }
      Slot& slot = slots_[part % slots_.size()];
      const uint64_t offset = part * part_size_;
      const uint64_t len = std::min<uint64_t>(part_size_, size_ - offset);
      try {
        slot.data.resize(len);  // allocated once per slot (only the last part is shorter)
        client_.get_object_range(bucket_, key_, offset, len, slot.data.data(), etag_, &cancel_);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu_);
        if (!error_ || part < error_part_) {
          error_ = std::current_exception();
          error_part_ = part;
        }
        cv_.notify_all();
        return;
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        slot.ready_part = part;
      }
      cv_.notify_all();
    }
  }

  S3Client client_;
  const std::string bucket_, key_, name_;
  std::string etag_;
  const uint64_t part_size_;
  uint64_t size_ = kNone, parts_ = 0;
  bool started_ = false;
  uint64_t pos_ = 0;  // reader's offset (reader thread only)
  std::vector<Slot> slots_;
  std::vector<std::thread> workers_;
  std::atomic<bool> cancel_{false};

  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t next_ = 0;      // the next part a worker will fetch
  uint64_t consumed_ = 0;  // parts the reader has finished
  bool stop_ = false;
  std::exception_ptr error_;
  uint64_t error_part_ = kNone;
};

}  // namespace

io::StreamPtr open_object(const S3Client& client, const std::string& bucket, const std::string& key,
                          std::optional<uint64_t> size, const std::string& etag) {
  EMBER_CHECK(!bucket.empty() && !key.empty(), "s3: open_object needs a bucket and a key, got s3://", bucket, "/",
              key);
  return std::make_shared<S3ObjectStream>(client, bucket, key, size, etag);
}

}  // namespace ember::data::s3
