// ember::frame against the real pyarrow, through the Arrow C Data and Stream Interfaces in
// both directions. The test builds pyarrow_bridge.cpp into a shared library (next to this
// binary, rebuilt when it or libember changes), runs pyarrow_interop.py on it, and turns each
// "OK"/"FAIL" line the script prints into a check of the matching section below.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "ember/frame/c_data.h"
#include "frame_test_util.h"
#include "temp_files.h"
#include "test_util.h"

namespace ember::frame {
// The sanitizer builds: GCC's (-DEMBER_SANITIZE=ON) and clang's (make test's, build-fuzz).
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EMBER_TEST_CLANG_ASAN 1
#endif
#endif
#if defined(EMBER_TEST_CLANG_ASAN)
constexpr const char* kSanitizeFlags = " -fsanitize=address,undefined";
constexpr const char* kSanitizerRuntimes[] = {"libclang_rt.asan-x86_64.so"};  // UBSan's runtime is inside
#elif defined(__SANITIZE_ADDRESS__)
constexpr const char* kSanitizeFlags = " -fsanitize=address,undefined";
constexpr const char* kSanitizerRuntimes[] = {"libasan.so", "libubsan.so"};
#else
constexpr const char* kSanitizeFlags = "";
constexpr const char* kSanitizerRuntimes[] = {""};
#endif
// The compiler that built the tests builds the bridge (EMBER_CXX overrides it).
#ifndef EMBER_TEST_CXX
#define EMBER_TEST_CXX "c++"
#endif

namespace {

namespace fs = std::filesystem;
using ember::test::read_bytes;
using test::quote;  // frame_test_util.h

struct Report {
  std::string skip;   // why the script could not run, when it could not
  std::string error;  // a build or run failure
  std::map<std::string, std::vector<std::string>> ok, fail;  // by section
  bool done = false;
  std::string output;
};

fs::file_time_type newest(const std::vector<fs::path>& files) {
  fs::file_time_type t{};
  for (const auto& f : files)
    if (fs::exists(f)) t = std::max(t, fs::last_write_time(f));
  return t;
}

Report run_interop() {
  Report r;
#ifdef EMBER_TEST_CROSS
  r.skip = "cross-built for another architecture (make test-arm64): the host's python3 cannot load this build's libember";
  return r;
#endif
  if (std::system("python3 -c 'import pyarrow' >/dev/null 2>&1") != 0) {
    r.skip = "pyarrow is not installed for python3 (scripts/install-deps.sh installs it)";
    return r;
  }
  const fs::path tests = fs::path(EMBER_GOLDEN_DIR).parent_path();
  const fs::path repo = tests.parent_path();
  const fs::path src = tests / "frame" / "pyarrow_bridge.cpp";
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&export_column), &info) == 0 || info.dli_fname == nullptr) {
    r.error = "cannot locate libember";
    return r;
  }
  const fs::path lib = fs::canonical(info.dli_fname);
  const fs::path out_dir = fs::read_symlink("/proc/self/exe").parent_path();
  const fs::path bridge = out_dir / "frame_pyarrow_bridge.so";

  std::vector<fs::path> inputs{src, tests / "frame" / "frame_fixtures.h", lib};
  for (const auto& dir : {repo / "ember" / "frame", repo / "ember" / "frame" / "detail"})
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".h") inputs.push_back(e.path());
  if (!fs::exists(bridge) || fs::last_write_time(bridge) < newest(inputs)) {
    // Under a lock: CTest may run several of these tests at once.
    const fs::path log = out_dir / "frame_pyarrow_bridge.log";
    const std::string cxx = std::getenv("EMBER_CXX") ? std::getenv("EMBER_CXX") : EMBER_TEST_CXX;
    const std::string cmd = "flock " + quote(out_dir / "frame_pyarrow_bridge.lock") + " sh -c \"" + cxx +
                            " -std=c++20 -O1 -fPIC -shared" + kSanitizeFlags + " -I" + quote(repo) + " -I" + quote(tests) + " " + quote(src) +
                            " " + quote(lib) + " -Wl,-rpath," + quote(lib.parent_path()) + " -o " +
                            quote(bridge.string() + ".tmp") + " && mv " + quote(bridge.string() + ".tmp") + " " +
                            quote(bridge) + "\" >" + quote(log) + " 2>&1";
    if (std::system(cmd.c_str()) != 0) {
      r.error = "building the bridge failed:\n" + cmd + "\n" + read_bytes(log);
      return r;
    }
  }

  char tmpl[] = "/tmp/ember-pyarrow-XXXXXX";
  const int fd = ::mkstemp(tmpl);
  if (fd < 0) {
    r.error = "mkstemp failed";
    return r;
  }
  ::close(fd);
  // Under the sanitizer build, libember needs the ASan/UBSan runtimes loaded first: python
  // gets them preloaded (leak checking off: python's own allocations are not ours).
  std::string env;
  if (*kSanitizeFlags) {
    const std::string cxx = std::getenv("EMBER_CXX") ? std::getenv("EMBER_CXX") : EMBER_TEST_CXX;
    std::string preload;
    for (const char* rt : kSanitizerRuntimes) preload += (preload.empty() ? "" : " ") + ("$(" + cxx + " -print-file-name=" + rt + ")");
    env = "LD_PRELOAD=\"" + preload + "\" ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 ";
  }
  const std::string cmd = env + "python3 " + quote(tests / "frame" / "pyarrow_interop.py") + " " + quote(bridge) +
                          " >" + std::string(tmpl) + " 2>&1";
  const int rc = std::system(cmd.c_str());
  r.output = read_bytes(tmpl);
  fs::remove(tmpl);
  std::istringstream lines(r.output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("DONE ", 0) == 0) r.done = true;
    const bool ok = line.rfind("OK ", 0) == 0, fail = line.rfind("FAIL ", 0) == 0;
    if (!ok && !fail) continue;
    const std::string rest = line.substr(ok ? 3 : 5);
    const std::string section = rest.substr(0, rest.find(':'));
    (ok ? r.ok : r.fail)[section].push_back(rest);
  }
  if (rc != 0 || !r.done) r.error = "the script did not finish (exit status " + std::to_string(rc) + "):\n" + r.output;
  return r;
}

const Report& report() {
  static const Report r = run_interop();
  return r;
}

// Every check of `sections` passed, and at least `min_checks` of each ran.
void expect_sections(const std::vector<std::pair<std::string, size_t>>& sections) {
  const Report& r = report();
  if (!r.skip.empty()) GTEST_SKIP() << r.skip;
  ASSERT_TRUE(r.error.empty()) << r.error;
  for (const auto& [section, min_checks] : sections) {
    auto ok = r.ok.find(section);
    auto fail = r.fail.find(section);
    const size_t n_ok = ok == r.ok.end() ? 0 : ok->second.size();
    if (fail != r.fail.end())
      for (const std::string& f : fail->second) ADD_FAILURE() << f;
    EXPECT_GE(n_ok, min_checks) << "too few checks ran in section " << section << ":\n" << r.output;
  }
}

// (Each test runs the script once in its process; CTest runs tests as separate processes,
// so the checks are grouped into three tests rather than one per section.)

// ember's fixtures of every type, read by pyarrow: types (nullability included), values,
// null counts, offsets of slices, pyarrow's full validation; then the release protocol:
// one release per export, only after pyarrow's last reference; memory owned outside ember
// outlives ember's own references; pyarrow sees ember's bytes (zero copy).
TEST(FramePyarrow, EmberToPyarrow) { expect_sections({{"export", 35 * 6}, {"release", 10}}); }

// pyarrow's arrays read by ember: types, values, offsets, null counts, zero-copy buffers,
// one release per import; pyarrow's memory lives on until ember's last column goes;
// unsupported types and corrupt arrays give clear errors and are still released once.
TEST(FramePyarrow, PyarrowToEmber) { expect_sections({{"import", 29 * 8}, {"lifetime", 6}, {"import_error", 13}}); }

// Frames as record batches and streams of frames, both ways.
TEST(FramePyarrow, RecordBatchesAndStreams) { expect_sections({{"frame", 8}, {"stream", 12}}); }

}  // namespace
}  // namespace ember::frame
