// Fuzzes checkpoint archives of tensors: serialize::InputArchive::load_from(data, size), then
// torch::load's readers for a std::vector<Tensor> (its "size" value comes from the file), a
// single Tensor, and every key through the generic read/try_read API (ember/serialize/).
#include "ember/ember.h"
#include "fuzz_util.h"

namespace {

using namespace ember;

// Reads whatever each key holds, recursing into nested archives (bounded depth).
void walk(serialize::InputArchive& a, int depth) {
  for (const std::string& k : a.keys()) {
    Tensor t;
    if (a.try_read(k, t)) {
      (void)t.clone();
      continue;
    }
    IValue v;
    if (a.try_read(k, v)) continue;
    serialize::InputArchive nested;
    if (depth < 8 && a.try_read(k, nested)) walk(nested, depth + 1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::setup();
  serialize::InputArchive archive;
  if (!fuzz::parse_archive(data, size, archive)) return 0;
  EMBER_FUZZ_TRY({
    std::vector<Tensor> list;
    archive >> list;
    for (const Tensor& t : list) (void)t.clone();
  });
  EMBER_FUZZ_TRY({
    Tensor t;
    archive >> t;
    (void)t.clone();
  });
  EMBER_FUZZ_TRY(walk(archive, 0));
  return 0;
}
