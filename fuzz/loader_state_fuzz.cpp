// Fuzzes resuming data loading from a checkpointed state (JSON text, as saved): DataLoader2's
// load_state_dict in the calling thread and with two worker threads, and
// IterDataPipe::load_state, over a shuffled, sharded, batched pipe; then the resumed epoch
// is read to its end. Bad states raise ember::Error, never crash or hang.
#include <numeric>

#include "ember/data/datapipes.h"
#include "ember/core/json.h"
#include "fuzz_util.h"

namespace {

using namespace ember;
using namespace ember::data;
using namespace ember::data::datapipes;

IterDataPipe<std::vector<int>> make_pipe() {
  std::vector<int> v(60);
  std::iota(v.begin(), v.end(), 0);
  return IterableWrapper(v).shuffle(16).sharding_filter().map([](int x) { return x * 2; }).batch(4);
}

// Reads an epoch; a resumed one never has more batches than a whole one (16 with two workers).
template <class Range>
void drain(Range& r) {
  size_t n = 0;
  for (auto it = r.begin(); it != r.end(); ++it) {
    (void)*it;
    if (++n > 16) fuzz::fail("loader state: a resumed epoch gave more batches than the pipe holds");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::setup();
  json::Value state;
  try {
    state = json::parse(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz input");
  } catch (const Error&) {
    return 0;
  }
  for (int workers : {0, 2}) {
    EMBER_FUZZ_TRY({
      DataLoader2 loader(make_pipe(), std::make_shared<MultiProcessingReadingService>(workers));
      loader.load_state_dict(state);
      drain(loader);
    });
  }
  EMBER_FUZZ_TRY({
    IterDataPipe<std::vector<int>> pipe = make_pipe();
    pipe.load_state(state);
    drain(pipe);
  });
  return 0;
}
