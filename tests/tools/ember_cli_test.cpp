// `ember train`, run as a user runs it: accuracy on the held-out digits, the last line's
// format, bit-identical --resume, bfloat16 and channels-last runs, and usage errors.
#include <sys/wait.h>
#if defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>

#include "cli_run.h"
#include "ember/cuda/cuda.h"
#include "ember/ops/config.h"
#include "test_util.h"

namespace {

using Outcome = ember::test::CliOutcome;
Outcome run(const std::string& args) { return ember::test::run_cli(args); }

std::string last_line(const std::string& s) {
  std::string t = s;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  return t.substr(t.find_last_of('\n') + 1);
}

double accuracy_of(const Outcome& r) {
  std::smatch m;
  const std::string line = last_line(r.output);
  EXPECT_TRUE(std::regex_match(line, m, std::regex(R"(test accuracy: (0\.\d{3}|1\.000))"))) << r.output;
  return m.empty() ? 0 : std::stod(m[1]);
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

class EmberCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("ember-cli-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

TEST_F(EmberCli, TrainsToTheTargetAccuracyAndResumesBitIdentically) {
  const Outcome full = run("train --epochs 3 --threads 2 --no-progress --checkpoint " + path("full.safetensors"));
  ASSERT_EQ(full.status, 0) << full.output;
  EXPECT_GE(accuracy_of(full), 0.97);
  EXPECT_NE(full.output.find("epoch 3/3"), std::string::npos) << full.output;

  const Outcome first = run("train --epochs 3 --threads 2 --no-progress --stop-after-epoch 1 --checkpoint " +
                        path("split.safetensors"));
  ASSERT_EQ(first.status, 0) << first.output;
  EXPECT_EQ(last_line(first.output), "stopped after epoch 1; continue with --resume");
  const Outcome rest = run("train --epochs 3 --threads 2 --no-progress --resume --checkpoint " + path("split.safetensors"));
  ASSERT_EQ(rest.status, 0) << rest.output;
  EXPECT_NE(rest.output.find("resumed from"), std::string::npos);
  EXPECT_EQ(last_line(rest.output), last_line(full.output));
  // Model, optimizer state, random-number state and epoch: the same bytes.
  EXPECT_TRUE(slurp(path("split.safetensors")) == slurp(path("full.safetensors")));
}

TEST_F(EmberCli, Bfloat16AndChannelsLastRunsLearn) {
  // The sanitizer build trains one epoch of each (every code path, 55 s of 88 under ASan with
  // three) and asks only that it learned: chance is 0.1.
  const bool brief = ember::test::kSanitizerBuild;
  const std::string epochs = brief ? "1" : "3";
  const Outcome bf16 = run("train --epochs " + epochs + " --bf16 --no-progress --checkpoint " + path("bf16.safetensors"));
  ASSERT_EQ(bf16.status, 0) << bf16.output;
  EXPECT_NE(bf16.output.find("bfloat16 autocast"), std::string::npos);
  EXPECT_GE(accuracy_of(bf16), brief ? 0.5 : 0.95);
  const Outcome cl = run("train --epochs " + epochs + " --channels-last --no-progress --checkpoint " + path("cl.safetensors"));
  ASSERT_EQ(cl.status, 0) << cl.output;
  EXPECT_GE(accuracy_of(cl), brief ? 0.5 : 0.97);
}

TEST_F(EmberCli, TrainsOnAGpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA GPU on this machine";
  const Outcome r = run("train --epochs 3 --no-progress --device cuda --checkpoint " + path("gpu.safetensors"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("on cuda:0"), std::string::npos) << r.output;
  EXPECT_GE(accuracy_of(r), 0.9) << r.output;
}

TEST_F(EmberCli, HelpListsTheCommandAndItsOptions) {
  Outcome r = run("--help");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("Usage: ember [OPTIONS] SUBCOMMAND"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("train"), std::string::npos) << r.output;
  r = run("train --help");
  EXPECT_EQ(r.status, 0) << r.output;
  for (const char* option : {"--epochs INT:POSITIVE=10", "--lr FLOAT:POSITIVE=0.002", "--batch-size", "--seed",
                             "--threads", "--channels-last", "--bf16", "--checkpoint", "--resume", "--data",
                             "--no-progress", "--stop-after-epoch", "--device TEXT=cpu"})
    EXPECT_NE(r.output.find(option), std::string::npos) << option << " missing from:\n" << r.output;
  r = run("--version");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.rfind("ember ", 0), 0u) << r.output;
}

// `ember config` (at::show_config): the kernel instruction set in use is the wide one (AVX-512 on
// x86-64, SVE on AArch64) exactly when the CPU reports it (read here from its own feature bits)
// and this build compiled it (the "compiled" line), and the baseline when an environment variable
// asks for it (EMBER_CPU_CAPABILITY=default, or PyTorch's ATEN_CPU_CAPABILITY=default).
TEST_F(EmberCli, ConfigNamesTheKernelSetInUse) {
#if defined(__x86_64__)
  const std::string wide = "avx512", wide_name = "AVX512";
  __builtin_cpu_init();
  const bool cpu_has_it = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
#elif defined(__aarch64__)
  const std::string wide = "sve", wide_name = "SVE";
  const bool cpu_has_it = (::getauxval(AT_HWCAP) & HWCAP_SVE) != 0;
#else
  GTEST_SKIP() << "no wide kernel instruction set on this architecture";
#endif
  bool forced_here = false;  // this process was started with the baseline asked for
  for (const char* var : {"EMBER_CPU_CAPABILITY", "ATEN_CPU_CAPABILITY"}) {
    const char* v = std::getenv(var);
    forced_here = forced_here || (v && std::string(v) == "default");
    ::unsetenv(var);
  }
  Outcome r = run("config");
  ASSERT_EQ(r.status, 0) << r.output;
  const size_t at = r.output.find("Kernel instruction sets compiled: ");
  ASSERT_NE(at, std::string::npos) << r.output;
  const std::string compiled = r.output.substr(at, r.output.find('\n', at) - at);
  const bool built = compiled.find(wide + " (") != std::string::npos;
  const std::string expected = cpu_has_it && built ? wide_name : "DEFAULT";
  EXPECT_NE(r.output.find("\n  - CPU capability usage: " + expected + "\n"), std::string::npos)
      << "expected " << expected << " (CPU has " << wide << ": " << cpu_has_it << ", compiled: " << built << ")\n"
      << r.output;
  EXPECT_EQ(ember::get_cpu_capability(), forced_here ? "DEFAULT" : expected);  // the library in this process
  if (!forced_here) EXPECT_EQ(r.output, ember::show_config());
#if defined(__aarch64__)
  // The BF16 extension's paths (ops/arm_bf16.h): exactly where the kernel reports the extension.
  const bool bf16 = (::getauxval(AT_HWCAP2) & HWCAP2_BF16) != 0;
  EXPECT_NE(r.output.find(std::string("\n  - Arm BF16 extension (BFCVT, BFMMLA): ") + (bf16 ? "in use" : "not in use")),
            std::string::npos)
      << "CPU has BF16: " << bf16 << "\n" << r.output;
#endif
  for (const char* var : {"EMBER_CPU_CAPABILITY", "ATEN_CPU_CAPABILITY"}) {
    ::setenv(var, "default", 1);
    r = run("config");
    ::unsetenv(var);
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("\n  - CPU capability usage: DEFAULT\n"), std::string::npos) << var << "\n" << r.output;
#if defined(__aarch64__)
    EXPECT_NE(r.output.find("\n  - Arm BF16 extension (BFCVT, BFMMLA): not in use\n"), std::string::npos) << var;
#endif
  }
}

TEST_F(EmberCli, BadArgumentsAndDataAreClearErrors) {
  Outcome r = run("train --epochs");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("--epochs: 1 required INT:POSITIVE missing"), std::string::npos) << r.output;
  r = run("train --lr fast");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("--lr: expects a number > 0, got 'fast'"), std::string::npos) << r.output;
  r = run("train --threads -1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("--threads: expects a number >= 0, got '-1'"), std::string::npos) << r.output;
  r = run("train --epochs 3 --bogus");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("--bogus"), std::string::npos) << r.output;
  r = run("fly");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("unknown command 'fly'"), std::string::npos) << r.output;
  r = run("");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("A subcommand is required"), std::string::npos) << r.output;
  r = run("train --data " + path("missing.csv.gz"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("cannot open"), std::string::npos) << r.output;
  std::ofstream(path("ragged.csv")) << "1,2,3\n";
  r = run("train --data " + path("ragged.csv"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("ragged.csv:1: expected 65 values (64 pixels, label), got 3"), std::string::npos)
      << r.output;
  r = run("train --device tpu");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("--device: expects cpu, cuda or cuda:N, got 'tpu'"), std::string::npos) << r.output;
  if (!ember::cuda::is_available()) {
    r = run("train --device cuda");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.output.find("--device cuda: CUDA is not available on this machine"), std::string::npos) << r.output;
  } else {
    r = run("train --device cuda:" + std::to_string(ember::cuda::device_count()));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.output.find("CUDA device(s)"), std::string::npos) << r.output;
  }
  std::ofstream(path("bad.safetensors")) << "garbage";
  r = run("train --resume --no-progress --checkpoint " + path("bad.safetensors"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("not a safetensors file"), std::string::npos) << r.output;
}

}  // namespace
