// Trains an MLP on the digits data set read into a DataFrame, with DataLoader2 and two
// worker threads (see frame_train.h). Usage: frame_train [digits.csv.gz] [epochs]
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "examples/frame_train.h"

int main(int argc, char** argv) {
  ember::examples::FrameTrainOptions o;
  o.path = argc > 1 ? argv[1] : EMBER_DIGITS_CSV;
  if (argc > 2) o.epochs = std::atoll(argv[2]);
  o.verbose = true;
  try {
    const auto r = ember::examples::train_from_frame(o);
    std::printf("train rows %lld, held-out rows %lld, held-out accuracy %.4f\n", (long long)r.train_rows,
                (long long)r.test_rows, r.test_accuracy);
    return r.test_accuracy >= 0.9 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "frame_train: %s\n", e.what());
    return 2;
  }
}
