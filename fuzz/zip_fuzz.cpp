// Fuzzes zip reading through ember/data/io/archive.h (ArchiveReader, kZip, read front to back
// from the local headers): every regular member is read fully.
#include "archive_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ember::fuzz::setup();
  ember::fuzz::read_archive(data, size, ember::data::io::ArchiveType::kZip);
  return 0;
}
