// Fuzzes ember::json::parse (ember/core/json.h), the reader of safetensors headers,
// checkpoint values and DataLoader2 states: any text must parse or raise ember::Error, and
// what parses must dump and parse back to the same value.
#include <string>

#include "ember/core/error.h"
#include "ember/core/json.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ember::fuzz::setup();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  EMBER_FUZZ_TRY({
    const ember::json::Value v = ember::json::parse(text, "fuzz input", 32);
    const std::string once = ember::json::dump(v);
    const std::string twice = ember::json::dump(ember::json::parse(once, "dumped JSON", 32));
    if (once != twice) ember::fuzz::fail("json: dump(parse(dump(v))) != dump(v): " + once + " vs " + twice);
  });
  return 0;
}
