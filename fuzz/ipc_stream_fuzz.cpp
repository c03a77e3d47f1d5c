// Fuzzes the Arrow IPC stream reader (ember/frame/io/ipc.h: IpcStreamReader over bytes, and
// read_ipc_stream over a std::istream): every message it accepts must give a frame whose
// every element can be read, and that write_ipc_stream writes and the reader reads back
// equal; anything else must raise ember::Error.
#include <sstream>

#include "ember/frame/frame.h"
#include "frame_fuzz_common.h"
#include "fuzz_util.h"

namespace {

using namespace ember;
using namespace ember::frame;

using fuzz::touch;

// What the reader accepted, written and read again, is the same frame.
void round_trip(const DataFrame& df) {
  std::ostringstream out;
  try {
    write_ipc_stream(df, out);
  } catch (const Error& e) {
    fuzz::fail(std::string("ipc: a frame the reader accepted cannot be written: ") + e.what());
  }
  std::istringstream in(out.str());
  DataFrame back;
  try {
    back = read_ipc_stream(in);
  } catch (const Error& e) {
    fuzz::fail(std::string("ipc: a written frame does not read back: ") + e.what());
  }
  if (!back.equals(df)) fuzz::fail("ipc: a frame written and read back differs: " + df.to_string() + " vs " + back.to_string());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::setup();
  EMBER_FUZZ_TRY({
    IpcStreamReader r(Buffer::wrap(data, int64_t(size), nullptr), "fuzz input");
    (void)r.schema().to_string();
    (void)r.metadata();
    while (auto b = r.next()) {
      touch(*b);
      round_trip(*b);
    }
  });
  EMBER_FUZZ_TRY({
    std::istringstream in(fuzz::as_string(data, size));
    touch(read_ipc_stream(in));
  });
  return 0;
}
