// The Arrow IPC metadata in ember's terms: the ids of Schema.fbs / Message.fbs / File.fbs,
// schemas to and from DTypes, and the messages the writers emit. Internal to ember/frame/io.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ember/frame/io/flatbuf.h"
#include "ember/frame/io/ipc.h"

namespace ember::frame::io::detail {

// Union tags and enums, numbered as in the .fbs files.
namespace fbs {
enum MessageHeader : uint8_t { kNoHeader = 0, kSchema = 1, kDictionaryBatch = 2, kRecordBatch = 3, kTensor = 4, kSparseTensor = 5 };
enum Type : uint8_t {
  kNone = 0, kNull, kInt, kFloatingPoint, kBinary, kUtf8, kBool, kDecimal, kDate, kTime, kTimestamp, kInterval,
  kList, kStruct, kUnion, kFixedSizeBinary, kFixedSizeList, kMap, kDuration, kLargeBinary, kLargeUtf8, kLargeList,
  kRunEndEncoded, kBinaryView, kUtf8View, kListView, kLargeListView,
};
constexpr int16_t kMetadataV4 = 3, kMetadataV5 = 4;
constexpr uint32_t kContinuation = 0xFFFFFFFFu;
}  // namespace fbs

// The structs of the metadata, laid out as FlatBuffers lays them out.
struct FieldNodeMeta {
  int64_t length;
  int64_t null_count;
};
struct BufferMeta {
  int64_t offset;
  int64_t length;
};
struct BlockMeta {
  int64_t offset;
  int32_t metadata_length;
  int32_t padding;
  int64_t body_length;
};
static_assert(sizeof(FieldNodeMeta) == 16 && sizeof(BufferMeta) == 16 && sizeof(BlockMeta) == 24);

// A field of the schema as the record batches lay it out: the dictionary id of a
// dictionary-encoded field, and the nodes of its children (for a dictionary field, the
// children of its value type). Mirrors the DType tree.
struct SchemaNode {
  int64_t dict_id = -1;
  std::vector<SchemaNode> children;
};

struct DecodedSchema {
  DecodedSchema() = default;
  DecodedSchema(DecodedSchema&&) = default;
  DecodedSchema(const DecodedSchema&) = delete;  // `dictionaries` points into `columns`
  DType type{TypeId::Bool};        // a struct: one field per column
  std::vector<SchemaNode> columns;  // one per column
  KeyValueMetadata metadata;
  struct Dictionary {
    DType value_type{TypeId::Bool};
    const SchemaNode* node;  // into `columns` (stable: built once)
    std::string path;        // the column path, for errors
  };
  std::map<int64_t, Dictionary> dictionaries;
};

// Reads a Schema table; `what` names the source for errors.
DecodedSchema decode_schema(const fb::Table& schema, const std::string& what);

// Assigns dictionary ids 0, 1, ... in pre-order, as the writers do.
std::vector<SchemaNode> schema_nodes(const DType& schema);
// The node of dictionary `id` (nullptr when none has it).
const SchemaNode* find_dictionary_node(const std::vector<SchemaNode>& nodes, int64_t id);
// A Schema table for a struct type (its fields are the columns).
fb::Builder::Offset encode_schema(fb::Builder& b, const DType& schema, const std::vector<SchemaNode>& nodes,
                                  const KeyValueMetadata& metadata);

// The body of a record batch or dictionary batch: nodes, buffer locations, and the
// compression codec (None when absent).
struct BatchMeta {
  int64_t length = 0;
  std::vector<FieldNodeMeta> nodes;
  std::vector<BufferMeta> buffers;
  IpcCompression compression = IpcCompression::None;
};

// A Message's flatbuffer bytes (unpadded).
std::vector<uint8_t> schema_message(const DType& schema, const std::vector<SchemaNode>& nodes,
                                    const KeyValueMetadata& metadata);
std::vector<uint8_t> record_batch_message(const BatchMeta& batch, int64_t body_length);
std::vector<uint8_t> dictionary_batch_message(int64_t id, bool is_delta, const BatchMeta& batch, int64_t body_length);
std::vector<uint8_t> footer(const DType& schema, const std::vector<SchemaNode>& nodes, const KeyValueMetadata& metadata,
                            const std::vector<BlockMeta>& dictionaries, const std::vector<BlockMeta>& batches);

// A decoded Message table.
struct MessageView {
  int16_t version = 0;
  uint8_t header_type = 0;
  fb::Table header;
  int64_t body_length = 0;
};
MessageView decode_message(const uint8_t* data, int64_t size, const char* what);
const char* message_type_name(uint8_t header_type);

}  // namespace ember::frame::io::detail
