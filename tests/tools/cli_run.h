// Runs the `ember` command as a user does (tests/tools): its exit status and its output.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace ember::test {

struct CliOutcome {
  int status;
  std::string output;  // stdout and stderr
};

// `ember <args>` through the shell.
inline CliOutcome run_cli(const std::string& args) {
  const std::string cmd = std::string(EMBER_CLI) + " " + args + " 2>&1";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  EXPECT_NE(pipe, nullptr) << cmd;
  std::string out;
  if (!pipe) return {-1, out};
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace ember::test
