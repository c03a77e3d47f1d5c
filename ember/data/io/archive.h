// Reading tar and zip archives member by member through libarchive (TorchData's
// TarArchiveLoader / ZipArchiveLoader). Members are streamed: neither the archive nor a
// member is held in memory whole.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "ember/data/io/stream.h"

namespace ember::data::io {

enum class ArchiveType {
  kTar,  // tar (ustar, pax, GNU), plain or compressed with gzip, bzip2, xz or zstd (detected)
  kZip,  // zip, read front to back from its local headers
};

namespace detail {
struct ArchiveState;
}

// Iterates the regular-file members of an archive as ("<archive name>/<member path>",
// stream). Directories, links and other special entries are skipped, as in TorchData.
//
// Note [Archive member lifetime]: a member's stream reads straight from the archive, so it
// is valid only until the next member is requested (or the reader is destroyed); TorchData
// has the same rule. Reading it after that raises an ember::Error; it never returns another
// member's bytes. Read or copy a member (read_all) before moving on.
//
// Zip archives are read as a stream, front to back: an entry stored uncompressed whose sizes
// come only after its data (a zip written to a pipe) cannot be read and raises an error.
// Compressed tars are unwrapped by io::decompress, so a gzip tar's CRC is checked too; a
// checksum sits at the end of the compressed data, so a mismatch surfaces on the read that
// reaches it (possibly a later member's, or the end of the iteration), as in Python.
class ArchiveReader {
 public:
  // `name` replaces the stream's name in member names and errors (a pipe passes the path
  // its element carries).
  ArchiveReader(StreamPtr archive, ArchiveType type, std::string name = "");
  ~ArchiveReader();
  ArchiveReader(const ArchiveReader&) = delete;
  ArchiveReader& operator=(const ArchiveReader&) = delete;

  // The next regular-file member; nullopt after the last one. Corrupt or truncated data
  // raises an error naming the archive and, when known, the member.
  std::optional<std::pair<std::string, StreamPtr>> next();
  const std::string& name() const;

 private:
  std::shared_ptr<detail::ArchiveState> state_;
};

const char* archive_type_name(ArchiveType t);  // "tar", "zip"

}  // namespace ember::data::io
