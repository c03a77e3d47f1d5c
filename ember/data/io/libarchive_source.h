// Internal to ember/data/io: feeding libarchive from an InputStream. libarchive is C, so an
// ember::Error raised by the source stream (a bad file, a corrupt inner layer) must not
// unwind through it: the read callback stores it and reports a fatal error, and the caller
// rethrows it once libarchive has returned. Not installed as public API.
#pragma once
#include <archive.h>

#include <exception>
#include <memory>
#include <string>

#include "ember/data/io/stream.h"

namespace ember::data::io::detail {

struct ArchiveSource {
  StreamPtr stream;
  std::unique_ptr<char[]> buf;
  std::exception_ptr error;  // what the stream raised, rethrown by check()

  explicit ArchiveSource(StreamPtr s);
  // archive_read_open() over this source (the reader must have its formats and filters set).
  int open(struct archive* a);
  // Raises "<op>: <what>: <libarchive's message>", or, when the stream's own error stopped
  // libarchive, that error: as it was, or with "<op>: <what>: " in front when `context`.
  [[noreturn]] void fail(struct archive* a, const std::string& op, const std::string& what, bool context = false);
};

// libarchive's message for the last failure (never null).
std::string archive_message(struct archive* a);

}  // namespace ember::data::io::detail
