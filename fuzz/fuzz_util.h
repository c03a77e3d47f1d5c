// Helpers shared by the libFuzzer targets in fuzz/ (see fuzz/CMakeLists.txt): one-time setup,
// the rule that only ember::Error may escape a reader, and a way to stop on a finding.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ember/core/error.h"
#include "ember/data/io/stream.h"
#include "ember/serialize/archive.h"

namespace ember::fuzz {

// Single-threaded intra-op work (reproducible runs); call once from LLVMFuzzerInitialize
// or the first input.
void setup();

// Stops the process with `what` (a finding the sanitizers cannot see, such as a broken
// round trip or a reader that accepted what it must reject): libFuzzer saves the input.
[[noreturn]] void fail(std::string_view what);

// The input as a string.
inline std::string as_string(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A stream over `bytes` that hands out at most `max_read` bytes per read (>= 1), so that
// readers meet their refill paths at every offset.
data::io::StreamPtr choppy_stream(std::string bytes, size_t max_read, std::string name = "fuzz input");

// The input parsed as a checkpoint archive into `archive`; false when it is not one (the
// archive targets then have nothing to load).
inline bool parse_archive(const uint8_t* data, size_t size, serialize::InputArchive& archive) {
  try {
    archive.load_from(data, size);
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace ember::fuzz

// Runs `body`; an ember::Error is the normal way to reject bad input. Any other exception
// propagates and libFuzzer reports it as a crash (uncaught exception -> abort).
#define EMBER_FUZZ_TRY(body)             \
  do {                                   \
    try {                                \
      body;                              \
    } catch (const ::ember::Error&) {    \
    }                                    \
  } while (0)
