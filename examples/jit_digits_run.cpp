// Loads a program saved by jit_digits_train and runs it on the held-out digits: no model source
// here, only the file (graph + weights).
//
//   build/examples/jit_digits_run digits.ember [digits.csv.gz]
#include <torch/torch.h>

#include <cstdio>
#include <exception>
#include <string>

#include "ember/jit/jit.h"
#include "digits_data.h"

int main(int argc, char** argv) {
  try {
    if (argc < 2) {
      std::fprintf(stderr, "usage: jit_digits_run <program.ember> [digits.csv.gz]\n");
      return 2;
    }
    const digits::Split data = digits::split(digits::load(argc > 2 ? argv[2] : EMBER_DIGITS_CSV));
    ember::jit::TracedModule program = ember::jit::load(argv[1]);
    torch::NoGradGuard no_grad;
    digits::report("loaded", program.forward(data.test_x), data.test_y);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jit_digits_run: %s\n", e.what());
    return 1;
  }
}
