// Fuzzes tar reading through ember/data/io/archive.h (ArchiveReader, kTar: ustar, pax, GNU,
// and tars compressed with gzip, bzip2, xz or zstd): every regular member is read fully.
#include "archive_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ember::fuzz::setup();
  ember::fuzz::read_archive(data, size, ember::data::io::ArchiveType::kTar);
  return 0;
}
