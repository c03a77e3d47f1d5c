// Shared by the data tests that check against Python: a shell command, or a Python script
// written to a TempDir, run to completion; a non-zero exit status fails the test.
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "temp_files.h"

namespace ember::test {

inline void run(const std::string& cmd) { ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd; }

// Writes `script` to `dir`/script.py and runs it with `args` (by default the directory).
inline void run_python(const TempDir& dir, const std::string& script, const std::string& args) {
  write_bytes(dir / "script.py", script);
  run("python3 " + (dir / "script.py") + " " + args);
}
inline void run_python(const TempDir& dir, const std::string& script) { run_python(dir, script, dir.path.string()); }

}  // namespace ember::test
