// The frame training example (examples/frame_train.h) run with fewer epochs (5): digits.csv.gz
// through read_csv into a DataFrame, frame_batches -> shuffle -> sharding_filter -> tensors
// in two DataLoader2 workers, an MLP with Adam; the held-out accuracy must reach 0.9.
#include "examples/frame_train.h"
#include "test_util.h"

namespace ember::examples {
namespace {

TEST(FrameTrain, DigitsFromAFrameReachNinetyPercent) {
  FrameTrainOptions o;
  o.path = std::string(EMBER_GOLDEN_DIR) + "/../../data/digits/digits.csv.gz";
  o.epochs = 5;
  o.workers = 2;
  o.seed = 1;
  const FrameTrainResult r = train_from_frame(o);
  EXPECT_EQ(r.train_rows + r.test_rows, 1797);  // the data set's size (data/digits/README.md)
  EXPECT_EQ(r.test_rows, 1797 / 5);
  EXPECT_EQ(r.rows_last_epoch, r.train_rows);   // the two workers' shards cover every row once
  EXPECT_LT(r.last_epoch_loss, 0.5);            // log(10) = 2.30 at chance
  EXPECT_GE(r.test_accuracy, 0.9) << "loss " << r.last_epoch_loss;
}

TEST(FrameTrain, MissingFileIsAClearError) {
  FrameTrainOptions o;
  o.path = "/nonexistent/digits.csv.gz";
  EXPECT_ERROR_WITH(train_from_frame(o), "/nonexistent/digits.csv.gz");
}

}  // namespace
}  // namespace ember::examples
