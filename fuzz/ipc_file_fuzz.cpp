// Fuzzes the Arrow IPC file (Feather v2) reader (ember/frame/io/ipc.h: IpcFileReader over
// bytes): the footer, every record batch it indexes, and read_table's concatenation; each
// frame it gives must be readable element by element; anything else must raise ember::Error.
#include "ember/frame/frame.h"
#include "frame_fuzz_common.h"
#include "fuzz_util.h"

namespace {

using namespace ember;
using namespace ember::frame;

using fuzz::touch;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::setup();
  EMBER_FUZZ_TRY({
    IpcFileReader r(Buffer::wrap(data, int64_t(size), nullptr), "fuzz input");
    (void)r.schema().to_string();
    (void)r.metadata();
    const int64_t n = r.num_record_batches();
    for (int64_t i = 0; i < n && i < 64; ++i) EMBER_FUZZ_TRY(touch(r.read_record_batch(i)));
    touch(r.read_table());
  });
  return 0;
}
