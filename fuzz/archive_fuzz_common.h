// What the tar and zip fuzz targets share: every member of an archive read to its end with
// read_all, and the lifetime rule of ember/data/io/archive.h checked (a member's stream
// gives no more bytes once the next member was requested).
#pragma once
#include <memory>

#include "ember/data/io/archive.h"
#include "fuzz_util.h"

namespace ember::fuzz {

inline void read_archive(const uint8_t* data, size_t size, data::io::ArchiveType type) {
  using namespace ember::data::io;
  EMBER_FUZZ_TRY({
    ArchiveReader reader(memory_stream(as_string(data, size), "fuzz input"), type);
    StreamPtr previous;
    for (int members = 0; members < 10000; ++members) {
      auto m = reader.next();
      if (previous) {
        char c;
        size_t n = 0;
        try {
          n = previous->read(&c, 1);
        } catch (const Error&) {
        }
        if (n != 0) fail("archive: a member's stream gave bytes after the next member was requested");
      }
      if (!m) break;
      (void)m->second->read_all();
      previous = m->second;
    }
  });
}

}  // namespace ember::fuzz
