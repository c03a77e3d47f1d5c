// Streaming reads of S3 objects: an io::InputStream that fetches an object with ranged GETs
// of part_size bytes, max_in_flight of them at once, and hands the bytes out in order.
// It holds at most part_size * max_in_flight bytes, so objects larger than memory stream.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "ember/data/io/stream.h"
#include "ember/data/s3/client.h"

namespace ember::data::s3 {

// Opens s3://bucket/key for reading with `client`'s part_size and max_in_flight. Nothing
// is fetched until the first read. `size` (and `etag`), when known from a listing, save
// the HEAD request that otherwise finds them; every part GET is pinned to the ETag, so an
// object overwritten mid-read fails (HTTP 412) instead of mixing two versions.
io::StreamPtr open_object(const S3Client& client, const std::string& bucket, const std::string& key,
                          std::optional<uint64_t> size = std::nullopt, const std::string& etag = "");

}  // namespace ember::data::s3
