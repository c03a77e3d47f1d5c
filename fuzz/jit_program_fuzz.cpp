// Fuzzes jit::load_from_bytes (ember/jit/jit.h, Note [Saved programs]) on arbitrary bytes: it
// must raise ember::Error or give a program whose graph prints, saves and loads again to the
// same graph. (The program is not run: a crafted file may ask for any shape.)
#include "ember/ember.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ember;
  fuzz::setup();
  EMBER_FUZZ_TRY({
    jit::TracedModule m = jit::load_from_bytes(data, size, "fuzz input");
    const std::string text = m.graph().str();
    (void)m.graph().to_dot();
    const std::string again = jit::save_to_bytes(m);
    if (jit::load_from_bytes(again.data(), again.size(), "rewritten").graph().str() != text)
      fuzz::fail("jit program: the graph differs after saving and loading it back");
  });
  return 0;
}
