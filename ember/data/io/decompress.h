// Decompressing streams (TorchData's Decompressor / .decompress()): gzip, bzip2, xz (and
// legacy .lzma) and zstd, read in bounded chunks so a compressed file larger than memory can
// flow through a pipeline. Integrity checks are enforced: corrupt, truncated or mistyped
// data raises an ember::Error naming the source, never returns wrong bytes silently.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "ember/data/io/stream.h"

namespace ember::data::io {

enum class Compression { kGzip, kBz2, kXz, kZstd };

// "gzip"/"gz", "bz2"/"bzip2", "xz"/"lzma", "zstd"/"zst" (TorchData's names and the file
// extensions); anything else raises an error listing these.
Compression compression_from_name(std::string_view name);
// From the file extension: .gz .tgz, .bz2 .tbz2 .tbz, .xz .txz .lzma, .zst .zstd .tzst.
std::optional<Compression> compression_from_path(std::string_view path);
const char* compression_name(Compression c);  // "gzip", "bz2", "xz", "zstd"

// A stream of `source`'s decompressed bytes, with the source's name. gzip follows Python's
// gzip module: concatenated members are read in turn, zero padding after a member is
// ignored, and each member's CRC-32 and length are verified. An empty source gives an empty
// stream (as Python's decompressors do).
StreamPtr decompress(StreamPtr source, Compression type);
// `type` as a name, or "" to infer it from the source name's extension (an unknown
// extension raises an error).
StreamPtr decompress(StreamPtr source, std::string_view type = "");

}  // namespace ember::data::io
