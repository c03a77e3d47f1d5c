// The ember side of the ember::frame benchmark (issue 6, "Speed"): the cases of
// bench/frame_bench.py on the same data, printed the same way (name, best seconds, result
// rows, checksum), so bench/frame_bench.sh can check that the three did equal work.
//
//   bench/frame_bench.sh builds and runs it; by hand:
//   g++ -O3 -march=native -std=c++20 -fopenmp -I. -Icompat bench/frame_bench.cpp -Lbuild -lember \
//       -Wl,-rpath,$PWD/build -o build/bench/frame_bench
//   OMP_NUM_THREADS=2 build/bench/frame_bench DIR [REPEATS] [FILTER]   (env MIN_SECONDS=1)
// DIR holds the files `frame_bench.py gen DIR` writes; the in-memory cases start from columns
// built from its binary files (no parsing timed), read_csv parses DIR/data.csv.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "ember/core/parallel.h"
#include "ember/frame/compute/compute.h"
#include "ember/frame/frame.h"
#include "ember/frame/io/csv.h"

using namespace ember::frame;

namespace {

constexpr int64_t kKeys = 1000;
constexpr int64_t kLowerRows = 1'000'000;

template <class T>
std::vector<T> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) {
    std::fprintf(stderr, "frame_bench: cannot open %s (run frame_bench.py gen first)\n", path.c_str());
    std::exit(2);
  }
  const auto bytes = int64_t(f.tellg());
  std::vector<T> out(size_t(bytes) / sizeof(T));
  f.seekg(0);
  f.read(reinterpret_cast<char*>(out.data()), std::streamsize(out.size() * sizeof(T)));
  return out;
}

std::string g(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", x);
  return buf;
}

struct Case {
  std::string name;
  std::function<void()> run;             // keeps its result for `check`
  std::function<std::string()> check;    // "rows\tchecksum" of the last result
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: frame_bench DIR [REPEATS] [FILTER]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
  const std::string filter = argc > 3 ? argv[3] : "";
  const double min_seconds = std::getenv("MIN_SECONDS") ? std::atof(std::getenv("MIN_SECONDS")) : 1.0;
  if (const char* t = std::getenv("OMP_NUM_THREADS")) ember::set_num_threads(std::atoi(t));

  const auto k = read_file<int64_t>(dir + "/k.i64");
  const auto v = read_file<double>(dir + "/v.f64");
  const auto off = read_file<int32_t>(dir + "/s.off");
  const auto bytes = read_file<char>(dir + "/s.bytes");
  const int64_t n = int64_t(k.size());
  if (int64_t(v.size()) != n || int64_t(off.size()) != n + 1 || int64_t(bytes.size()) != off.back()) {
    std::fprintf(stderr, "frame_bench: the files in %s disagree in length\n", dir.c_str());
    return 2;
  }
  StringBuilder sb;
  sb.reserve(n);
  for (int64_t i = 0; i < n; ++i) sb.append(std::string_view(bytes.data() + off[size_t(i)], size_t(off[size_t(i) + 1] - off[size_t(i)])));
  const DataFrame df{{"k", column(k)}, {"v", column(v)}, {"s", sb.finish()}};
  std::vector<int64_t> rk(kKeys);
  std::vector<double> rw(kKeys);
  for (int64_t i = 0; i < kKeys; ++i) rk[size_t(i)] = i, rw[size_t(i)] = double(i) * 0.25;
  const DataFrame right{{"k", column(rk)}, {"w", column(rw)}};
  const Column s1m = df["s"].slice(0, std::min(n, kLowerRows));

  DataFrame out;
  Column out_col;
  auto sum_k = [&] { return std::to_string(out["k"].sum().as_int()); };
  auto rows = [&] { return std::to_string(out.num_rows()); };
  std::vector<Case> cases = {
      {"filter", [&] { out = df.where(df["v"] > 0.5); }, [&] { return rows() + "\tsum_k=" + sum_k(); }},
      {"groupby_mean", [&] { out = df.groupby({"k"}).agg({{"v", {"mean"}}}); },
       [&] {
         const Column& m = out["v.mean"];
         return rows() + "\tsum_mean=" + g(m.sum().as_double()) + " mean[7]=" +
                g(out["k"].get<int64_t>(7) == 7 ? *m.get<double>(7) : std::numeric_limits<double>::quiet_NaN());
       }},
      {"sort", [&] { out = df.sort({"v"}); },
       [&] {
         const int64_t h = out.num_rows() / 2;
         return rows() + "\tk[n/2]=" + std::to_string(*out["k"].get<int64_t>(h)) + " v[n/2]=" +
                g(*out["v"].get<double>(h)) + " s[n/2]=" + std::string(*out["s"].get_string(h));
       }},
      {"join", [&] { out = df.join(right, {"k"}, "inner"); },
       [&] {
         return rows() + "\tsum_w=" + g(out["w"].sum().as_double()) + " k[1]=" +
                std::to_string(*out["k"].get<int64_t>(1));
       }},
      {"str_lower_1M", [&] { out_col = s1m.str().lower(); },
       [&] {
         int64_t total = 0;
         for (int64_t i = 0; i < out_col.size(); ++i) total += int64_t(out_col.get_string(i)->size());
         return std::to_string(out_col.size()) + "\tbytes=" + std::to_string(total) + " s[3]=" +
                std::string(*out_col.get_string(3));
       }},
      {"read_csv", [&] { out = read_csv(dir + "/data.csv"); },
       [&] { return rows() + "\tsum_k=" + sum_k() + " s[3]=" + std::string(*out["s"].get_string(3)); }},
  };
  for (const Case& c : cases) {
    if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
    // At least `repeats` runs and, for fast cases, until min_seconds have passed (at most
    // 100 runs): on a shared machine the best of a few runs of a 20 ms case is mostly noise.
    double best = std::numeric_limits<double>::infinity(), total = 0;
    for (int r = 0; r < repeats || (total < min_seconds && r < 100); ++r) {
      out = DataFrame();  // the previous result's memory is freed outside the timing, as in Python
      out_col = Column();
      const auto t0 = std::chrono::steady_clock::now();
      c.run();
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      best = std::min(best, t);
      total += t;
    }
    std::printf("%s\t%.6f\t%s\n", c.name.c_str(), best, c.check().c_str());
    std::fflush(stdout);
    out = DataFrame();
    out_col = Column();
  }
  return 0;
}
