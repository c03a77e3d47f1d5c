// S3 loader throughput: one object read by the streaming reader (ranged GETs, 8 parts in
// flight) against one sequential GET of the whole object, on servers on 127.0.0.1:
//   moto    python3 -m moto.server (what the tests use; Python, and each ranged GET copies
//           the whole stored object before slicing it)
//   nginx   Debian's nginx serving the same bytes as a static file (honours Range, HEAD,
//           ETag and If-Match; ignores the signature), when /usr/sbin/nginx exists
//   nginx-capped  the same with `limit_rate` per connection, like S3's per-connection
//           throughput (tens of MB/s), which is what parallel parts exist to overcome
// Build and run (bench/s3_bench.sh does both):
//   g++ -O2 -std=c++20 -I. bench/s3_bench.cpp -Lbuild -lember -Wl,-rpath,$PWD/build -o build/bench/s3_bench
//   build/bench/s3_bench [object MB, default 128] [capped MB/s per connection, default 50]
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ember/data/s3/client.h"
#include "ember/data/s3/object_stream.h"

namespace s3 = ember::data::s3;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

pid_t spawn(const std::vector<std::string>& argv) {
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int devnull = open("/dev/null", O_RDWR);
    dup2(devnull, 0);
    dup2(devnull, 1);
    dup2(devnull, 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  return pid;
}

void stop(pid_t pid) {
  if (pid <= 0) return;
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

bool listening(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(fd);
  return ok;
}

bool wait_listening(int port) {
  auto deadline = Clock::now() + std::chrono::seconds(30);
  while (!listening(port)) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Best of `reps` runs of `f` (each reads the whole object), in MB/s.
template <class F>
double best_mb_s(size_t bytes, int reps, F f) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto t0 = Clock::now();
    size_t got = f();
    double s = seconds_since(t0);
    if (got != bytes) {
      std::fprintf(stderr, "read %zu bytes, expected %zu\n", got, bytes);
      std::exit(1);
    }
    best = std::min(best, s);
  }
  return bytes / 1e6 / best;
}

void run(const char* server, const s3::S3Options& base, size_t bytes, int reps) {
  s3::S3Client seq(base);
  // Both readers deliver every byte into the caller's buffer (a consumer's copy), so
  // neither is credited for bytes it never touched.
  std::vector<char> sink_buf(1 << 20);
  double single = best_mb_s(bytes, reps, [&] {
    size_t n = 0;
    seq.get_object("bench", "object.bin", [&](const char* p, size_t k) {
      for (size_t off = 0; off < k; off += sink_buf.size())
        std::memcpy(sink_buf.data(), p + off, std::min(sink_buf.size(), k - off));
      n += k;
    });
    return n;
  });
  std::printf("| %s | single GET | - | %.0f | 1.00 |\n", server, single);
  for (auto [part_mb, in_flight] : {std::pair{8, 1}, std::pair{8, 8}, std::pair{16, 8}}) {
    s3::S3Client c(s3::S3Options(base).part_size(size_t(part_mb) << 20).max_in_flight(in_flight));
    std::vector<char> buf(1 << 20);
    double mb_s = best_mb_s(bytes, reps, [&] {
      auto s = s3::open_object(c, "bench", "object.bin", bytes);
      size_t n = 0;
      while (size_t k = s->read(buf.data(), buf.size())) n += k;
      return n;
    });
    std::printf("| %s | stream, %d MB parts | %d | %.0f | %.2f |\n", server, part_mb, in_flight, mb_s, mb_s / single);
  }
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  size_t mb = argc > 1 ? std::stoul(argv[1]) : 128;
  int cap_mb_s = argc > 2 ? std::stoi(argv[2]) : 50;
  size_t bytes = mb << 20;
  std::string data(bytes, '\0');
  std::mt19937_64 rng(1);
  for (size_t i = 0; i + 8 <= bytes; i += 8) {
    uint64_t v = rng();
    std::memcpy(&data[i], &v, 8);
  }
  auto creds = s3::S3Options().region("us-east-1").access_key_id("bench").secret_access_key("bench-secret");
  std::printf("object: %zu MB; best of 5 runs; MB/s = 1e6 bytes/s\n\n", mb);
  std::printf("| server | reader | parts in flight | MB/s | vs single GET |\n|---|---|---|---|---|\n");

  // moto
  int port = free_port();
  pid_t moto = spawn({"python3", "-m", "moto.server", "-H", "127.0.0.1", "-p", std::to_string(port)});
  if (wait_listening(port)) {
    auto o = s3::S3Options(creds).endpoint_url("http://127.0.0.1:" + std::to_string(port));
    s3::S3Client c(o);
    c.create_bucket("bench");
    c.put_object("bench", "object.bin", data);
    run("moto", o, bytes, 5);
  } else {
    std::printf("| moto | (did not start) | | | |\n");
  }
  stop(moto);

  // nginx over a static copy of the object.
  if (!fs::exists("/usr/sbin/nginx")) {
    std::printf("| nginx | (not installed: apt-get install nginx-light) | | | |\n");
    return 0;
  }
  fs::path dir = fs::temp_directory_path() / ("ember_s3_bench_" + std::to_string(getpid()));
  fs::create_directories(dir / "root" / "bench");
  std::ofstream(dir / "root" / "bench" / "object.bin", std::ios::binary).write(data.data(), data.size());
  data.clear();
  data.shrink_to_fit();
  for (int capped = 0; capped < 2; ++capped) {
    port = free_port();
    std::ofstream(dir / "nginx.conf")
        << "daemon off; master_process off; worker_processes 1; error_log " << (dir / "error.log").string()
        << "; pid " << (dir / "nginx.pid").string() << ";\n"
        << "events { worker_connections 256; }\n"
        << "http { access_log off; sendfile on; keepalive_requests 100000; client_body_temp_path " << dir.string()
        << "; " << (capped ? "limit_rate " + std::to_string(cap_mb_s) + "m; " : "") << "\n"
        << "  server { listen 127.0.0.1:" << port << "; root " << (dir / "root").string() << "; } }\n";
    pid_t nginx = spawn({"/usr/sbin/nginx", "-c", (dir / "nginx.conf").string(), "-p", dir.string()});
    if (wait_listening(port)) {
      auto o = s3::S3Options(creds).endpoint_url("http://127.0.0.1:" + std::to_string(port));
      run(capped ? ("nginx, " + std::to_string(cap_mb_s) + " MB/s per connection").c_str() : "nginx", o, bytes, 5);
    } else {
      std::printf("| nginx | (did not start; see %s) | | | |\n", (dir / "error.log").c_str());
    }
    stop(nginx);
  }
  fs::remove_all(dir);
}
