#include "ember/data/datapipes/runner.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ember/core/parallel.h"
#include "ember/ops/functions.h"

namespace ember::data::datapipes::detail {

void rethrow_worker(int64_t worker, std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    EMBER_CHECK(false, "DataLoader worker ", worker, " raised an error: ", e.what());
  } catch (...) {
    EMBER_CHECK(false, "DataLoader worker ", worker, " raised a non-standard exception");
  }
  std::abort();
}

void worker_timeout(int64_t worker, std::chrono::milliseconds timeout) {
  if (worker >= 0)
    EMBER_CHECK(false, "DataLoader: timed out after ", timeout.count(), " ms waiting for worker ", worker,
                " (raise the timeout, or check the pipe for a stall)");
  EMBER_CHECK(false, "DataLoader: timed out after ", timeout.count(),
              " ms waiting for any worker (raise the timeout, or check the pipe for a stall)");
  std::abort();
}

void check_sharded(int64_t found, int64_t instances, const char* root) {
  EMBER_CHECK(found > 0, "DataLoader: the pipe (", root, ") has no sharding_filter, so each of the ", instances,
              " workers/ranks would yield every element; add .sharding_filter() after the source (before "
              "expensive maps) so that each element is read once per epoch");
}

uint64_t parse_seed(const json::Value& v) {
  const std::string& s = v.as_string("seed");
  char* end = nullptr;
  uint64_t seed = std::strtoull(s.c_str(), &end, 10);
  EMBER_CHECK(!s.empty() && *end == 0, "DataLoader::load_state_dict: bad seed '", s, "'");
  return seed;
}

void no_wire(const char* type) {
  EMBER_CHECK(false, "MultiProcessingReadingService: worker processes send elements through a pipe, and this "
              "pipe's element type (", type, ") has no Wire<T> encoding; use worker threads, or specialize "
              "ember::data::datapipes::Wire for it");
  std::abort();
}

ChildProcess spawn_worker(const std::function<void(int fd)>& body) {
  int fds[2];
  EMBER_CHECK(::pipe(fds) == 0, "DataLoader: cannot create a pipe for a worker process: ", std::strerror(errno));
  pid_t pid = ::fork();
  if (pid < 0) {
    int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    EMBER_CHECK(false, "DataLoader: cannot fork a worker process: ", std::strerror(err));
  }
  if (pid == 0) {
    // The child: one thread (the forking one). Tensor ops run single-threaded here, as
    // PyTorch's workers do; a parent that went away closes the pipe (EPIPE, not SIGPIPE).
    ::close(fds[0]);
    ::signal(SIGPIPE, SIG_IGN);
    set_num_threads(1);
    try {
      body(fds[1]);
    } catch (...) {
    }
    ::close(fds[1]);
    ::_exit(0);
  }
  ::close(fds[1]);
  return ChildProcess{int(pid), fds[0]};
}

static bool write_all(int fd, const char* p, size_t n) {
  while (n) {
    ssize_t k = ::write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= size_t(k);
  }
  return true;
}

static bool read_all(int fd, char* p, size_t n) {
  while (n) {
    ssize_t k = ::read(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= size_t(k);
  }
  return true;
}

void write_frame(int fd, char kind, const std::string& bytes) {
  char header[9];
  header[0] = kind;
  uint64_t n = bytes.size();
  std::memcpy(header + 1, &n, 8);
  if (!write_all(fd, header, 9) || !write_all(fd, bytes.data(), bytes.size())) ::_exit(0);  // the parent left
}

bool read_frame(int fd, char& kind, std::string& bytes) {
  char header[9];
  if (!read_all(fd, header, 9)) return false;
  kind = header[0];
  uint64_t n;
  std::memcpy(&n, header + 1, 8);
  EMBER_CHECK(kind == 'I' || kind == 'E' || kind == 'X', "worker process: corrupt frame");
  EMBER_CHECK(n < (uint64_t(1) << 40), "worker process: corrupt frame length ", n);
  bytes.resize(n);
  return read_all(fd, bytes.data(), n);
}

std::string reap_worker(int pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return "could not be waited for";
  }
  if (WIFSIGNALED(status))
    return ::ember::detail::str_cat("was killed by signal ", WTERMSIG(status), " (", ::strsignal(WTERMSIG(status)), ")");
  return ::ember::detail::str_cat("exited with status ", WEXITSTATUS(status));
}

void kill_worker(int pid) { ::kill(pid, SIGKILL); }
void close_fd(int fd) { ::close(fd); }

void encode_tensor(const Tensor& t, std::string& out) {
  Tensor c = t.contiguous();
  int32_t dtype = int32_t(c.scalar_type());
  uint64_t dim = uint64_t(c.dim());
  out.append(reinterpret_cast<const char*>(&dtype), 4);
  out.append(reinterpret_cast<const char*>(&dim), 8);
  for (int64_t s : c.sizes()) out.append(reinterpret_cast<const char*>(&s), 8);
  out.append(static_cast<const char*>(c.data_ptr()), c.nbytes());
}

Tensor decode_tensor(WireReader& r) {
  int32_t dtype = r.pod<int32_t>();
  EMBER_CHECK(dtype >= 0 && dtype < int32_t(ScalarType::NumOptions), "worker process: corrupt tensor dtype ", dtype);
  uint64_t dim = r.pod<uint64_t>();
  EMBER_CHECK(dim <= 64, "worker process: corrupt tensor rank ", dim);
  std::vector<int64_t> sizes(dim);
  for (auto& s : sizes) {
    s = r.pod<int64_t>();
    EMBER_CHECK(s >= 0, "worker process: corrupt tensor size ", s);
  }
  uint64_t numel = 1;
  for (int64_t s : sizes) {
    EMBER_CHECK(s == 0 || numel <= r.remaining() / uint64_t(s), "worker process: corrupt tensor shape");
    numel *= uint64_t(s);
  }
  Tensor t = empty(sizes, TensorOptions().dtype(ScalarType(dtype)));
  EMBER_CHECK(t.nbytes() <= r.remaining(), "worker process: truncated tensor data");
  r.read(t.data_ptr(), t.nbytes());
  return t;
}

}  // namespace ember::data::datapipes::detail
