// FileStore: a key-value log in a shared file, locked with flock(2) so that processes (and
// several stores in one process) take turns. The format is PyTorch's, so a
// torch.distributed.FileStore can share the file: records of
//   u32 key length, key, u32 value length, value        (host byte order)
// appended in order; a later record for a key replaces the earlier one. User keys are
// stored as "/" + key; a record "-/" + key deletes it; "cleanup/" and "refcount/" count the
// stores that finished and that are alive, for removing the file at the end.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "ember/core/error.h"
#include "ember/distributed/store.h"
#include "ember/distributed/store_util.h"

namespace ember::distributed {

namespace {

using detail::Deadline;
using detail::quote;

constexpr const char* kUserPrefix = "/";
constexpr const char* kDeletePrefix = "-";
constexpr const char* kCleanupKey = "cleanup/";
constexpr const char* kRefCountKey = "refcount/";

// The file open and locked for one operation; closing the descriptor drops the lock.
class LockedFile {
 public:
  // Returns false (no file) when `create` is off and the file does not exist.
  bool open(const std::string& path, bool exclusive, bool create) {
    int flags = (exclusive ? O_RDWR : O_RDONLY) | O_CLOEXEC | (create ? O_CREAT : 0);
    while ((fd_ = ::open(path.c_str(), flags, 0644)) < 0 && errno == EINTR) {
    }
    if (fd_ < 0) {
      if (errno == ENOENT && !create) return false;
      EMBER_ERROR("FileStore: cannot open ", quote(path), ": ", std::strerror(errno));
    }
    int rc;
    while ((rc = ::flock(fd_, exclusive ? LOCK_EX : LOCK_SH)) != 0 && errno == EINTR) {
    }
    EMBER_CHECK(rc == 0, "FileStore: cannot lock ", quote(path), ": ", std::strerror(errno));
    return true;
  }
  ~LockedFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
};

void append_field(std::string& out, const void* p, size_t n, const std::string& path) {
  EMBER_CHECK(n <= std::numeric_limits<uint32_t>::max(), "FileStore: a key or value of ", n,
              " bytes is too large for the file format (4 GiB at most) in ", quote(path));
  uint32_t len = uint32_t(n);
  out.append(reinterpret_cast<const char*>(&len), 4);
  out.append(static_cast<const char*>(p), n);
}

}  // namespace

struct FileStore::Impl {
  std::string path;
  int world_size;
  std::mutex mu;  // one operation at a time: pos and cache are shared by the calls
  off_t pos = 0;  // how much of the file `cache` reflects
  std::unordered_map<std::string, std::vector<uint8_t>> cache;  // file keys ("/" + user key, ...)

  // Brings `cache` up to date with the file (locked by the caller).
  void refresh(int fd) {
    struct stat st;
    EMBER_CHECK(::fstat(fd, &st) == 0, "FileStore: cannot stat ", quote(path), ": ", std::strerror(errno));
    off_t size = st.st_size;
    if (size < pos) {  // removed and created again: start over
      cache.clear();
      pos = 0;
    }
    if (size == pos) return;
    std::vector<uint8_t> buf(size_t(size - pos));
    size_t got = 0;
    while (got < buf.size()) {
      ssize_t n = ::pread(fd, buf.data() + got, buf.size() - got, pos + off_t(got));
      if (n < 0 && errno == EINTR) continue;
      EMBER_CHECK(n > 0, "FileStore: cannot read ", quote(path), " at offset ", pos + off_t(got), ": ",
                  n == 0 ? "unexpected end of file" : std::strerror(errno));
      got += size_t(n);
    }
    size_t at = 0;
    auto field = [&](std::string& out) {
      size_t left = buf.size() - at;
      EMBER_CHECK(left >= 4, "FileStore: ", quote(path), " is corrupt at offset ", pos + off_t(at), ": ", left,
                  " bytes left where a 4-byte length was expected");
      uint32_t len;
      std::memcpy(&len, buf.data() + at, 4);
      EMBER_CHECK(len <= left - 4, "FileStore: ", quote(path), " is corrupt at offset ", pos + off_t(at),
                  ": a field of ", len, " bytes runs past the end of the file (", left - 4, " bytes left)");
      out.assign(reinterpret_cast<const char*>(buf.data() + at + 4), len);
      at += 4 + size_t(len);
    };
    std::string key, value;
    while (at < buf.size()) {
      field(key);
      field(value);
      if (key.rfind(kDeletePrefix, 0) == 0)
        cache.erase(key.substr(1));
      else
        cache[key] = std::vector<uint8_t>(value.begin(), value.end());
    }
    pos = size;
  }

  void append(int fd, const std::string& key, const std::vector<uint8_t>& value) {
    std::string rec;
    rec.reserve(8 + key.size() + value.size());
    append_field(rec, key.data(), key.size(), path);
    append_field(rec, value.data(), value.size(), path);
    off_t end = ::lseek(fd, 0, SEEK_END);
    EMBER_CHECK(end >= 0, "FileStore: cannot seek in ", quote(path), ": ", std::strerror(errno));
    size_t done = 0;
    while (done < rec.size()) {
      ssize_t n = ::pwrite(fd, rec.data() + done, rec.size() - done, end + off_t(done));
      if (n < 0 && errno == EINTR) continue;
      EMBER_CHECK(n > 0, "FileStore: cannot write to ", quote(path), ": ", std::strerror(errno));
      done += size_t(n);
    }
  }

  // add() on a file key, under the exclusive lock.
  int64_t add(const std::string& file_key, const std::string& key, int64_t delta) {
    std::lock_guard<std::mutex> lock(mu);
    LockedFile f;
    f.open(path, true, true);
    refresh(f.fd());
    auto it = cache.find(file_key);
    std::vector<uint8_t> value = it == cache.end() ? std::vector<uint8_t>{} : it->second;
    int64_t result = detail::add_to_counter("FileStore.add", key, value, delta);
    append(f.fd(), file_key, value);
    return result;
  }

  // Runs `f` on the refreshed cache under the shared lock; false when there is no file.
  template <class F>
  bool read(F&& f) {
    std::lock_guard<std::mutex> lock(mu);
    LockedFile file;
    if (!file.open(path, false, false)) return false;
    refresh(file.fd());
    f();
    return true;
  }

  bool has_all(const std::vector<std::string>& keys) const {
    for (const std::string& k : keys)
      if (!cache.count(kUserPrefix + k)) return false;
    return true;
  }
};

namespace {
// Between looks at the file while waiting: short at first, then every 10 ms.
void nap(std::chrono::milliseconds& delay, const Deadline& deadline) {
  int64_t left = deadline.remaining_ms();
  std::this_thread::sleep_for(left < 0 ? delay : std::min(delay, std::chrono::milliseconds(left)));
  delay = std::min(delay * 2, std::chrono::milliseconds(10));
}
}  // namespace

FileStore::FileStore(std::string path, int world_size) : impl_(std::make_unique<Impl>()) {
  EMBER_CHECK(!path.empty(), "FileStore: the path is empty");
  EMBER_CHECK(world_size >= -1, "FileStore: world_size must be >= 0, or -1 to keep the file, got ", world_size);
  impl_->path = std::move(path);
  impl_->world_size = world_size;
  impl_->add(kRefCountKey, kRefCountKey, 1);  // creates the file
}

FileStore::~FileStore() {
  if (::access(impl_->path.c_str(), F_OK) != 0) return;  // already removed by someone else
  try {
    int64_t finished = impl_->add(kCleanupKey, kCleanupKey, 1);
    int64_t alive = impl_->add(kRefCountKey, kRefCountKey, -1);
    // The last user of a fixed-size group removes the file.
    if (alive == 0 && impl_->world_size >= 0 && finished >= impl_->world_size) ::unlink(impl_->path.c_str());
  } catch (const std::exception&) {  // a destructor cannot report; the file stays
  }
}

const std::string& FileStore::path() const { return impl_->path; }

void FileStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  LockedFile f;
  f.open(impl_->path, true, true);
  impl_->append(f.fd(), kUserPrefix + key, value);
}

std::vector<uint8_t> FileStore::get(const std::string& key) {
  std::chrono::milliseconds t = timeout();
  Deadline deadline(t);
  auto delay = std::chrono::milliseconds(1);
  const std::string file_key = kUserPrefix + key;
  while (true) {
    std::optional<std::vector<uint8_t>> value;
    impl_->read([&] {
      auto it = impl_->cache.find(file_key);
      if (it != impl_->cache.end()) value = it->second;
    });
    if (value) return std::move(*value);
    if (deadline.passed()) detail::throw_get_timeout("FileStore", key, t);
    nap(delay, deadline);
  }
}

int64_t FileStore::add(const std::string& key, int64_t value) { return impl_->add(kUserPrefix + key, key, value); }

std::vector<uint8_t> FileStore::compare_set(const std::string& key, const std::vector<uint8_t>& expected,
                                            const std::vector<uint8_t>& desired) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  LockedFile f;
  f.open(impl_->path, true, true);
  impl_->refresh(f.fd());
  const std::string file_key = kUserPrefix + key;
  auto it = impl_->cache.find(file_key);
  if (it == impl_->cache.end() ? !expected.empty() : it->second != expected)
    return it == impl_->cache.end() ? expected : it->second;
  impl_->append(f.fd(), file_key, desired);
  return desired;
}

bool FileStore::delete_key(const std::string& key) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  LockedFile f;
  f.open(impl_->path, true, true);
  impl_->refresh(f.fd());
  const std::string file_key = kUserPrefix + key;
  if (!impl_->cache.count(file_key)) return false;
  impl_->append(f.fd(), kDeletePrefix + file_key, {});
  return true;
}

bool FileStore::check(const std::vector<std::string>& keys) {
  bool all = false;
  impl_->read([&] { all = impl_->has_all(keys); });
  return all;
}

int64_t FileStore::num_keys() {
  int64_t n = 0;
  impl_->read([&] {
    for (const auto& [k, v] : impl_->cache) n += k.rfind(kUserPrefix, 0) == 0;
  });
  return n;
}

void FileStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  detail::check_timeout("FileStore.wait", timeout);
  Deadline deadline(timeout);
  auto delay = std::chrono::milliseconds(1);
  while (!check(keys)) {
    if (deadline.passed()) {
      std::vector<std::string> missing;
      bool exists = impl_->read([&] {
        for (const std::string& k : keys)
          if (!impl_->cache.count(kUserPrefix + k)) missing.push_back(k);
      });
      if (!exists) missing = keys;
      detail::throw_wait_timeout("FileStore", keys, missing, timeout);
    }
    nap(delay, deadline);
  }
}

}  // namespace ember::distributed
