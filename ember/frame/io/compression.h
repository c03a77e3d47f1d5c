// Buffer codecs of the Arrow IPC format's body compression: LZ4 frames (lz4frame.h, not the
// raw block format) and Zstandard. Internal to ember/frame/io.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "ember/frame/buffer.h"
#include "ember/frame/io/ipc.h"

namespace ember::frame::io::detail {

// Appends the compressed form of bytes [data, data + n) to `out`.
void compress(IpcCompression codec, std::optional<int> level, const uint8_t* data, int64_t n, BufferBuilder& out);

// Decompresses [src, src + src_len) into exactly `dst_len` bytes at `dst`; anything else
// (corrupt input, a different length) raises ember::Error naming `what`.
void decompress(IpcCompression codec, const uint8_t* src, int64_t src_len, uint8_t* dst, int64_t dst_len,
                const std::string& what);

}  // namespace ember::frame::io::detail
