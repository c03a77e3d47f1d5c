// A DataPipe graph over ~100 MB of CSV against a plain C++ loop doing the same work:
//   pipe:  FileLister -> open_files -> parse_csv -> map(row -> Sample) -> shuffle(10000)
//          -> batch(64) -> collate(Samples -> float [64, 8] + int64 [64] tensors)
//   loop:  io::list_files, io::CsvReader over io::file_stream, the same row -> Sample
//          conversion into a batch of 64, the same collate function (no shuffle).
// Also the pipe without its shuffle, to separate the shuffle buffer's cost from the pipe's.
// Each case runs ROUNDS epochs (files in the page cache after the first); the best counts.
// Prints one line per case and the ratio pipe time / loop time (target <= 1.5).
// Build and run (bench/datapipe_csv_bench.sh does both):
//   g++ -O2 -std=c++20 -I. -Icompat bench/datapipe_csv_bench.cpp -Lbuild -lember -Wl,-rpath,$PWD/build
//   ./a.out [dir, default /tmp/ember-csv-bench] [MB, default 100] [rounds, default 3]
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "ember/core/generator.h"
#include "ember/data/datapipes.h"
#include "ember/data/datapipes/files.h"
#include "ember/data/io/csv.h"
#include "ember/data/io/files.h"
#include "ember/ops/functions.h"

namespace dp = ember::data::datapipes;
namespace io = ember::data::io;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kFeatures = 8;
constexpr int kFiles = 16;
constexpr int64_t kBatch = 64;

struct Sample {
  float x[kFeatures];
  int64_t label;
};

// The per-row conversion both sides use: 8 floats and an integer label.
Sample to_sample(const std::vector<std::string>& row) {
  if (row.size() != kFeatures + 1) {
    std::fprintf(stderr, "bad row of %zu fields\n", row.size());
    std::exit(1);
  }
  Sample s;
  for (int i = 0; i < kFeatures; ++i) std::from_chars(row[i].data(), row[i].data() + row[i].size(), s.x[i]);
  std::from_chars(row[kFeatures].data(), row[kFeatures].data() + row[kFeatures].size(), s.label);
  return s;
}

struct Batch {
  ember::Tensor x, y;
};

Batch collate(const std::vector<Sample>& batch) {
  const int64_t n = int64_t(batch.size());
  Batch b{ember::empty({n, kFeatures}, ember::kFloat), ember::empty({n}, ember::kLong)};
  float* x = b.x.data_ptr<float>();
  int64_t* y = b.y.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    std::copy(batch[i].x, batch[i].x + kFeatures, x + i * kFeatures);
    y[i] = batch[i].label;
  }
  return b;
}

// ~`mb` MB of CSV in kFiles files, a header line each; rows of 8 floats and a label.
void generate(const std::string& dir, int64_t mb) {
  fs::create_directories(dir);
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<float> u(-100.f, 100.f);
  const int64_t per_file = mb * 1000000 / kFiles;
  char buf[64];
  for (int f = 0; f < kFiles; ++f) {
    std::string text = "f0,f1,f2,f3,f4,f5,f6,f7,label\n";
    while (int64_t(text.size()) < per_file) {
      for (int i = 0; i < kFeatures; ++i) {
        auto r = std::to_chars(buf, buf + sizeof buf, u(rng), std::chars_format::fixed, 5);
        text.append(buf, r.ptr);
        text += ',';
      }
      text += std::to_string(rng() % 10);
      text += '\n';
    }
    std::ofstream(dir + "/part-" + std::to_string(100 + f) + ".csv", std::ios::binary) << text;
  }
}

struct Tally {
  int64_t rows = 0;
  double checksum = 0;
  void add(const Batch& b) {
    rows += b.y.size(0);
    checksum += double(b.x.data_ptr<float>()[0]) + double(b.y.data_ptr<int64_t>()[0]);
  }
};

Tally plain_loop(const std::string& dir) {
  Tally t;
  std::vector<Sample> batch;
  batch.reserve(kBatch);
  std::vector<std::string> row;
  for (const std::string& path : io::list_files(dir, {"*.csv"})) {
    io::CsvReader reader(io::file_stream(path), io::CsvOptions().with_skip_lines(1));
    while (reader.next(row)) {
      batch.push_back(to_sample(row));
      if (int64_t(batch.size()) == kBatch) {
        t.add(collate(batch));
        batch.clear();
      }
    }
  }
  if (!batch.empty()) t.add(collate(batch));
  return t;
}

auto make_pipe(const std::string& dir, bool shuffle) {
  auto samples = dp::parse_csv(dp::FileLister(dir, "*.csv").open_files(), io::CsvOptions().with_skip_lines(1))
                     .map([](std::vector<std::string> row) { return to_sample(row); });
  if (shuffle) samples = samples.shuffle(10000);
  return samples.batch(kBatch).collate([](std::vector<Sample> b) { return collate(b); });
}

template <class F>
std::pair<double, Tally> best_of(int rounds, F run) {
  double best = 1e30;
  Tally last;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = Clock::now();
    last = run();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return {best, last};
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "/tmp/ember-csv-bench";
  const int64_t mb = argc > 2 ? std::atoll(argv[2]) : 100;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 3;
  int64_t bytes = 0;
  if (fs::exists(dir))
    for (const auto& p : io::list_files(dir, {"*.csv"})) bytes += int64_t(fs::file_size(p));
  if (bytes < mb * 1000000 * 95 / 100) {
    std::printf("generating %lld MB of CSV in %s ...\n", (long long)mb, dir.c_str());
    fs::remove_all(dir);
    generate(dir, mb);
    bytes = 0;
    for (const auto& p : io::list_files(dir, {"*.csv"})) bytes += int64_t(fs::file_size(p));
  }
  ember::manual_seed(0);
  auto shuffled = make_pipe(dir, true);
  auto plain = make_pipe(dir, false);
  auto pipe_epoch = [](auto& pipe) {
    return [&pipe] {
      Tally t;
      for (auto& b : pipe) t.add(b);
      return t;
    };
  };
  // Alternate the cases within each round so that machine noise spreads over all of them.
  double t_loop = 1e30, t_pipe = 1e30, t_noshuf = 1e30, t_parse = 1e30;
  // The CSV reader alone: rows and fields counted, nothing converted.
  auto parse_only = [&] {
    Tally t;
    std::vector<std::string> row;
    for (const auto& path : io::list_files(dir, {"*.csv"})) {
      io::CsvReader reader(io::file_stream(path));
      while (reader.next(row)) t.rows += !row.empty() && row[0].size() != size_t(-1);
    }
    return t;
  };
  Tally loop_tally, pipe_tally, noshuf_tally;
  for (int r = 0; r < rounds; ++r) {
    auto [a, ta] = best_of(1, [&] { return plain_loop(dir); });
    auto [b, tb] = best_of(1, pipe_epoch(shuffled));
    auto [c, tc] = best_of(1, pipe_epoch(plain));
    t_parse = std::min(t_parse, best_of(1, parse_only).first);
    t_loop = std::min(t_loop, a);
    t_pipe = std::min(t_pipe, b);
    t_noshuf = std::min(t_noshuf, c);
    loop_tally = ta;
    pipe_tally = tb;
    noshuf_tally = tc;
  }
  if (loop_tally.rows != pipe_tally.rows || loop_tally.rows != noshuf_tally.rows ||
      loop_tally.checksum != noshuf_tally.checksum) {
    std::fprintf(stderr, "the cases disagree: %lld / %lld / %lld rows\n", (long long)loop_tally.rows,
                 (long long)pipe_tally.rows, (long long)noshuf_tally.rows);
    return 1;
  }
  const double mbs = double(bytes) / 1e6;
  std::printf("%.1f MB of CSV in %d files, %lld rows, batches of %lld, best of %d epochs\n", mbs, kFiles,
              (long long)loop_tally.rows, (long long)kBatch, rounds);
  std::printf("%-44s %8s %10s %12s\n", "case", "s", "MB/s", "rows/s");
  auto line = [&](const char* name, double s) {
    std::printf("%-44s %8.3f %10.1f %12.0f\n", name, s, mbs / s, double(loop_tally.rows) / s);
  };
  line("CSV reader alone (io::CsvReader::next)", t_parse);
  line("plain loop (parse, convert, batch, collate)", t_loop);
  line("DataPipe graph with shuffle(10000)", t_pipe);
  line("DataPipe graph without shuffle", t_noshuf);
  std::printf("ratio pipe / loop: %.2f with shuffle (target <= 1.5), %.2f without\n", t_pipe / t_loop,
              t_noshuf / t_loop);
  return 0;
}
