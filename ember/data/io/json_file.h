// JSON documents read from streams (TorchData's parse_json_files): the whole stream is one
// JSON text, parsed by ember's reader (ember/core/json.h) with the stream's name in
// every error.
#pragma once
#include "ember/data/io/stream.h"
#include "ember/core/json.h"

namespace ember::data::io {

// Reads `stream` to its end and parses it; a syntax error names the stream and the byte
// offset, as "parse_json_files: 'data/a.json': ...".
json::Value parse_json_stream(InputStream& stream, int max_depth = 64);

}  // namespace ember::data::io
