// The safetensors file format (https://github.com/huggingface/safetensors): an 8-byte
// little-endian header length, a JSON header mapping each tensor name to its dtype, shape
// and byte range, an optional "__metadata__" map of strings, then the raw row-major
// little-endian data. ember's checkpoints are safetensors files, so the Python package and
// HuggingFace tools read them and ember reads theirs.
//
// safetensors has no complex dtypes: a complex tensor is stored as its real view (a
// trailing dimension of 2) and the metadata entry "ember.dtype.<name>" restores it.
//
// Reading is safe on untrusted files: every length and offset is checked against the file
// before it is used, the byte ranges must tile the data section exactly (as the reference
// implementation requires), and every failure is an ember::Error naming the file.
// Writing is atomic (ember/serialize/atomic_file.h), so an interrupted save leaves the
// previous file intact.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/serialize/atomic_file.h"

namespace ember::serialize {

struct SafetensorsContents {
  std::map<std::string, Tensor> tensors;
  std::map<std::string, std::string> metadata;  // "__metadata__" (without ember's own entries)
};

// The whole file as bytes / parsed from bytes (`what` names the source in errors).
std::string to_safetensors(const std::map<std::string, Tensor>& tensors,
                           const std::map<std::string, std::string>& metadata = {});
SafetensorsContents from_safetensors(const void* data, size_t size, const std::string& what = "safetensors data");

// safetensors.torch's save_file / load_file.
void save_file(const std::map<std::string, Tensor>& tensors, const std::string& path,
               const std::map<std::string, std::string>& metadata = {});
SafetensorsContents load_file(const std::string& path);

}  // namespace ember::serialize
