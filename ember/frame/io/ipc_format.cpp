// Schema.fbs / Message.fbs / File.fbs read into ember's types and written from them. Field
// ids below are the order of each table's fields in those files (a union takes two ids:
// its type tag, then its value).
#include "ember/frame/io/ipc_format.h"

#include "ember/core/error.h"
#include "ember/frame/array_data.h"

namespace ember::frame::io::detail {

namespace {

// Schema.fbs field ids.
namespace field_id {
constexpr int kFieldName = 0, kFieldNullable = 1, kFieldTypeType = 2, kFieldType = 3, kFieldDictionary = 4,
              kFieldChildren = 5, kFieldMetadata = 6;
constexpr int kSchemaEndianness = 0, kSchemaFields = 1, kSchemaMetadata = 2;
constexpr int kKeyValueKey = 0, kKeyValueValue = 1;
constexpr int kDictId = 0, kDictIndexType = 1, kDictOrdered = 2;
constexpr int kIntBitWidth = 0, kIntSigned = 1;
constexpr int kMessageVersion = 0, kMessageHeaderType = 1, kMessageHeader = 2, kMessageBodyLength = 3;
constexpr int kBatchLength = 0, kBatchNodes = 1, kBatchBuffers = 2, kBatchCompression = 3;
constexpr int kDictBatchId = 0, kDictBatchData = 1, kDictBatchDelta = 2;
constexpr int kFooterVersion = 0, kFooterSchema = 1, kFooterDictionaries = 2, kFooterBatches = 3;
}  // namespace field_id
using namespace field_id;

// ember's own field metadata: the nullable flag of a dictionary's values, which Arrow's
// schema does not carry (readers of other files assume nullable values).
constexpr const char* kDictValuesNullableKey = "ember.dictionary_values_nullable";

constexpr int kMaxDepth = 64;
constexpr int64_t kMaxFields = 1 << 16;

const char* type_tag_name(uint8_t t) {
  static const char* names[] = {"NONE", "Null", "Int", "FloatingPoint", "Binary", "Utf8", "Bool", "Decimal", "Date",
                                "Time", "Timestamp", "Interval", "List", "Struct_", "Union", "FixedSizeBinary",
                                "FixedSizeList", "Map", "Duration", "LargeBinary", "LargeUtf8", "LargeList",
                                "RunEndEncoded", "BinaryView", "Utf8View", "ListView", "LargeListView"};
  return t < sizeof(names) / sizeof(names[0]) ? names[t] : "unknown";
}

DType int_type(int bit_width, bool is_signed, const std::string& path) {
  switch (bit_width) {
    case 8: return DType(is_signed ? TypeId::Int8 : TypeId::UInt8);
    case 16: return DType(is_signed ? TypeId::Int16 : TypeId::UInt16);
    case 32: return DType(is_signed ? TypeId::Int32 : TypeId::UInt32);
    case 64: return DType(is_signed ? TypeId::Int64 : TypeId::UInt64);
    default: EMBER_ERROR("field ", path, ": an Int type of ", bit_width, " bits (expected 8, 16, 32 or 64)");
  }
}

struct SchemaDecoder {
  DecodedSchema& out;
  int64_t fields_seen = 0;

  // Decodes `field` into its DType (and `node`), with its name in *name.
  DType field(const fb::Table& f, SchemaNode& node, int depth, const std::string& parent, std::string* name) {
    EMBER_CHECK(depth <= kMaxDepth, "field ", parent, ": types nest deeper than ", kMaxDepth, " levels");
    EMBER_CHECK(++fields_seen <= kMaxFields, "the schema has more than ", kMaxFields, " fields");
    *name = std::string(f.string(kFieldName));
    const std::string path = parent.empty() ? "'" + *name + "'" : parent + "." + *name;
    const bool nullable = f.scalar<uint8_t>(kFieldNullable, 0) != 0;
    const uint8_t tag = f.scalar<uint8_t>(kFieldTypeType, fbs::kNone);
    const fb::Table t = f.table(kFieldType);

    bool values_nullable = true;
    const fb::Vector md = f.vector(kFieldMetadata, 4);
    for (int64_t i = 0; i < md.size(); ++i) {
      const fb::Table kv = md.table(i);
      if (kv.string(kKeyValueKey) == kDictValuesNullableKey) values_nullable = kv.string(kKeyValueValue) != "false";
    }

    const fb::Vector kids = f.vector(kFieldChildren, 4);
    std::vector<Field> children;
    node.children.resize(size_t(kids.size()));
    for (int64_t i = 0; i < kids.size(); ++i) {
      std::string child_name;
      DType ct = field(kids.table(i), node.children[size_t(i)], depth + 1, path, &child_name);
      children.push_back({std::move(child_name), std::move(ct)});
    }
    auto expect_children = [&](size_t n) {
      EMBER_CHECK(children.size() == n, "field ", path, ": type ", type_tag_name(tag), " needs ", n, " child field",
                  n == 1 ? "" : "s", ", the schema gives ", children.size());
    };
    auto need_table = [&] {
      EMBER_CHECK(t.present(), "field ", path, ": the ", type_tag_name(tag), " type table is missing");
    };

    const fb::Table dict = f.table(kFieldDictionary);
    const bool value_nullable = dict.present() ? values_nullable : nullable;
    DType type{TypeId::Bool};
    switch (tag) {
      case fbs::kBool: type = DType(TypeId::Bool, value_nullable); expect_children(0); break;
      case fbs::kInt:
        need_table();
        type = int_type(t.scalar<int32_t>(kIntBitWidth, 0), t.scalar<uint8_t>(kIntSigned, 0) != 0, path)
                   .with_nullable(value_nullable);
        expect_children(0);
        break;
      case fbs::kFloatingPoint: {
        need_table();
        const int16_t precision = t.scalar<int16_t>(0, 0);
        EMBER_CHECK(precision == 1 || precision == 2, "field ", path, ": floating point precision ",
                    precision == 0 ? std::string("HALF (float16)") : std::to_string(precision),
                    " is not supported by ember::frame (float32 and float64 are)");
        type = DType(precision == 1 ? TypeId::Float32 : TypeId::Float64, value_nullable);
        expect_children(0);
        break;
      }
      case fbs::kUtf8: type = DType(TypeId::String, value_nullable); expect_children(0); break;
      case fbs::kLargeUtf8: type = DType(TypeId::LargeString, value_nullable); expect_children(0); break;
      case fbs::kBinary: type = DType(TypeId::Binary, value_nullable); expect_children(0); break;
      case fbs::kLargeBinary: type = DType(TypeId::LargeBinary, value_nullable); expect_children(0); break;
      case fbs::kDate: {
        need_table();
        const int16_t unit = t.scalar<int16_t>(0, 1);
        EMBER_CHECK(unit == 0, "field ", path, ": date64 (milliseconds) is not supported by ember::frame (date32 is)");
        type = DType(TypeId::Date32, value_nullable);
        expect_children(0);
        break;
      }
      case fbs::kTimestamp: {
        need_table();
        const int16_t unit = t.scalar<int16_t>(0, 0);
        EMBER_CHECK(unit >= 0 && unit <= 3, "field ", path, ": bad timestamp unit ", unit);
        type = dtypes::Timestamp(TimeUnit(unit), std::string(t.string(1)), value_nullable);
        expect_children(0);
        break;
      }
      case fbs::kList:
      case fbs::kLargeList:
        expect_children(1);
        type = tag == fbs::kList ? dtypes::List(children[0].dtype, value_nullable)
                                 : dtypes::LargeList(children[0].dtype, value_nullable);
        break;
      case fbs::kStruct:
        for (size_t i = 0; i < children.size(); ++i)
          for (size_t j = 0; j < i; ++j)
            EMBER_CHECK(children[i].name != children[j].name, "field ", path, ": the struct has two fields named '",
                        children[i].name, "'");
        type = dtypes::Struct(children, value_nullable);
        break;
      case fbs::kMap: {
        need_table();
        expect_children(1);
        const DType& entries = children[0].dtype;
        EMBER_CHECK(entries.id() == TypeId::Struct && entries.fields().size() == 2, "field ", path,
                    ": a map's child must be a struct of two fields (key, value), got ", entries.to_string());
        EMBER_CHECK(node.children[0].dict_id < 0, "field ", path, ": a map's entries cannot be dictionary-encoded");
        // Keys are never null by Arrow's rule, whatever the key field's flag says.
        type = dtypes::Map(entries.fields()[0].dtype.with_nullable(false), entries.fields()[1].dtype, value_nullable,
                           t.scalar<uint8_t>(0, 0) != 0);
        break;
      }
      case fbs::kNone: EMBER_ERROR("field ", path, ": the type is missing");
      default:
        EMBER_ERROR("field ", path, ": Arrow type ", type_tag_name(tag), " (", int(tag), ") is not supported by ember::frame");
    }

    if (!dict.present()) return type;
    EMBER_CHECK(type.id() != TypeId::Dictionary, "field ", path, ": nested dictionaries are not supported");
    DType index{TypeId::Int32};
    const fb::Table it = dict.table(kDictIndexType);
    if (it.present()) index = int_type(it.scalar<int32_t>(kIntBitWidth, 0), it.scalar<uint8_t>(kIntSigned, 0) != 0, path);
    const int64_t id = dict.scalar<int64_t>(kDictId, 0);
    node.dict_id = id;
    EMBER_CHECK(!out.dictionaries.count(id), "field ", path, ": dictionary id ", id, " is used by two fields");
    out.dictionaries[id] = {type, &node, path};
    return dtypes::Dictionary(index, type, nullable, dict.scalar<uint8_t>(kDictOrdered, 0) != 0);
  }
};

// ---- encoding -----------------------------------------------------------------------

void assign_ids(const DType& t, SchemaNode& node, int64_t& next) {
  const DType& shape = t.id() == TypeId::Dictionary ? t.value_type() : t;
  if (t.id() == TypeId::Dictionary) node.dict_id = next++;
  node.children.resize(num_children(shape));
  for (size_t i = 0; i < node.children.size(); ++i) assign_ids(child_type(shape, i), node.children[i], next);
}

fb::Builder::Offset encode_int(fb::Builder& b, const DType& t) {
  b.start_table();
  b.add_scalar<int32_t>(kIntBitWidth, t.bit_width());
  b.add_scalar<uint8_t>(kIntSigned, t.is_signed_integer() ? 1 : 0);
  return b.end_table();
}

fb::Builder::Offset encode_key_values(fb::Builder& b, const KeyValueMetadata& md) {
  std::vector<fb::Builder::Offset> items;
  for (const auto& [k, v] : md) {
    const auto ko = b.create_string(k), vo = b.create_string(v);
    b.start_table();
    b.add_offset(kKeyValueKey, ko);
    b.add_offset(kKeyValueValue, vo);
    items.push_back(b.end_table());
  }
  return b.create_offset_vector(items);
}

fb::Builder::Offset encode_field(fb::Builder& b, const std::string& name, const DType& t, bool nullable,
                                 const SchemaNode& node) {
  const bool is_dict = t.id() == TypeId::Dictionary;
  const DType& v = is_dict ? t.value_type() : t;
  // Children first: a FlatBuffers builder finishes inner objects before outer ones.
  std::vector<fb::Builder::Offset> kids;
  switch (v.id()) {
    case TypeId::List:
    case TypeId::LargeList:
      kids.push_back(encode_field(b, "item", v.value_type(), v.value_type().nullable(), node.children[0]));
      break;
    case TypeId::Map:
      kids.push_back(encode_field(b, "entries", v.map_entries_type(), false, node.children[0]));
      break;
    case TypeId::Struct:
      for (size_t i = 0; i < v.fields().size(); ++i)
        kids.push_back(encode_field(b, v.fields()[i].name, v.fields()[i].dtype, v.fields()[i].dtype.nullable(),
                                    node.children[i]));
      break;
    default: break;
  }
  const auto children = b.create_offset_vector(kids);

  uint8_t tag = fbs::kNone;
  fb::Builder::Offset type_table = 0;
  switch (v.id()) {
    case TypeId::Bool: tag = fbs::kBool; b.start_table(); type_table = b.end_table(); break;
    case TypeId::Int8: case TypeId::Int16: case TypeId::Int32: case TypeId::Int64:
    case TypeId::UInt8: case TypeId::UInt16: case TypeId::UInt32: case TypeId::UInt64:
      tag = fbs::kInt;
      type_table = encode_int(b, v);
      break;
    case TypeId::Float32:
    case TypeId::Float64:
      tag = fbs::kFloatingPoint;
      b.start_table();
      b.add_scalar<int16_t>(0, v.id() == TypeId::Float32 ? 1 : 2);
      type_table = b.end_table();
      break;
    case TypeId::String: tag = fbs::kUtf8; b.start_table(); type_table = b.end_table(); break;
    case TypeId::LargeString: tag = fbs::kLargeUtf8; b.start_table(); type_table = b.end_table(); break;
    case TypeId::Binary: tag = fbs::kBinary; b.start_table(); type_table = b.end_table(); break;
    case TypeId::LargeBinary: tag = fbs::kLargeBinary; b.start_table(); type_table = b.end_table(); break;
    case TypeId::Date32:
      tag = fbs::kDate;
      b.start_table();
      b.add_scalar<int16_t>(0, 0);  // DAY (the default is MILLISECOND)
      type_table = b.end_table();
      break;
    case TypeId::Timestamp: {
      tag = fbs::kTimestamp;
      fb::Builder::Offset tz = 0;
      if (!v.timezone().empty()) tz = b.create_string(v.timezone());
      b.start_table();
      b.add_scalar<int16_t>(0, int16_t(v.unit()));
      if (tz) b.add_offset(1, tz);
      type_table = b.end_table();
      break;
    }
    case TypeId::List: tag = fbs::kList; b.start_table(); type_table = b.end_table(); break;
    case TypeId::LargeList: tag = fbs::kLargeList; b.start_table(); type_table = b.end_table(); break;
    case TypeId::Struct: tag = fbs::kStruct; b.start_table(); type_table = b.end_table(); break;
    case TypeId::Map:
      tag = fbs::kMap;
      b.start_table();
      b.add_scalar<uint8_t>(0, v.keys_sorted() ? 1 : 0);
      type_table = b.end_table();
      break;
    case TypeId::Dictionary: EMBER_ERROR("write_ipc: nested dictionary type ", t.to_string());
  }

  fb::Builder::Offset dict = 0, metadata = 0;
  if (is_dict) {
    const auto index = encode_int(b, t.index_type());
    b.start_table();
    b.add_scalar<int64_t>(kDictId, node.dict_id);
    b.add_offset(kDictIndexType, index);
    b.add_scalar<uint8_t>(kDictOrdered, t.ordered() ? 1 : 0);
    dict = b.end_table();
    if (!v.nullable()) metadata = encode_key_values(b, {{kDictValuesNullableKey, "false"}});
  }
  const auto name_off = b.create_string(name);
  b.start_table();
  b.add_offset(kFieldName, name_off);
  b.add_scalar<uint8_t>(kFieldNullable, nullable ? 1 : 0);
  b.add_scalar<uint8_t>(kFieldTypeType, tag);
  b.add_offset(kFieldType, type_table);
  if (dict) b.add_offset(kFieldDictionary, dict);
  b.add_offset(kFieldChildren, children);
  if (metadata) b.add_offset(kFieldMetadata, metadata);
  return b.end_table();
}

fb::Builder::Offset encode_batch(fb::Builder& b, const BatchMeta& batch) {
  const auto nodes = b.create_vector(batch.nodes, 8);
  const auto buffers = b.create_vector(batch.buffers, 8);
  fb::Builder::Offset compression = 0;
  if (batch.compression != IpcCompression::None) {
    b.start_table();
    b.add_scalar<int8_t>(0, batch.compression == IpcCompression::Lz4Frame ? 0 : 1);  // codec
    b.add_scalar<int8_t>(1, 0);                                                       // method: BUFFER
    compression = b.end_table();
  }
  b.start_table();
  b.add_scalar<int64_t>(kBatchLength, batch.length);
  b.add_offset(kBatchNodes, nodes);
  b.add_offset(kBatchBuffers, buffers);
  if (compression) b.add_offset(kBatchCompression, compression);
  return b.end_table();
}

std::vector<uint8_t> message(fb::Builder& b, uint8_t header_type, fb::Builder::Offset header, int64_t body_length) {
  b.start_table();
  b.add_scalar<int64_t>(kMessageBodyLength, body_length);
  b.add_offset(kMessageHeader, header);
  b.add_scalar<int16_t>(kMessageVersion, fbs::kMetadataV5);
  b.add_scalar<uint8_t>(kMessageHeaderType, header_type);
  return b.finish(b.end_table());
}

}  // namespace

DecodedSchema decode_schema(const fb::Table& schema, const std::string& what) {
  DecodedSchema out;
  EMBER_CHECK(schema.present(), what, ": the schema is missing");
  EMBER_CHECK(schema.scalar<int16_t>(kSchemaEndianness, 0) == 0, what,
              ": the data is big-endian; ember::frame reads little-endian Arrow data only");
  const fb::Vector fields = schema.vector(kSchemaFields, 4);
  SchemaDecoder dec{out};
  std::vector<Field> cols;
  out.columns.resize(size_t(fields.size()));
  for (int64_t i = 0; i < fields.size(); ++i) {
    std::string name;
    DType t = dec.field(fields.table(i), out.columns[size_t(i)], 0, "", &name);
    cols.push_back({std::move(name), std::move(t)});
  }
  out.type = dtypes::Struct(std::move(cols));
  const fb::Vector md = schema.vector(kSchemaMetadata, 4);
  for (int64_t i = 0; i < md.size(); ++i) {
    const fb::Table kv = md.table(i);
    out.metadata.emplace_back(std::string(kv.string(kKeyValueKey)), std::string(kv.string(kKeyValueValue)));
  }
  return out;
}

std::vector<SchemaNode> schema_nodes(const DType& schema) {
  std::vector<SchemaNode> nodes(schema.fields().size());
  int64_t next = 0;
  for (size_t i = 0; i < nodes.size(); ++i) assign_ids(schema.fields()[i].dtype, nodes[i], next);
  return nodes;
}

const SchemaNode* find_dictionary_node(const std::vector<SchemaNode>& nodes, int64_t id) {
  for (const SchemaNode& n : nodes) {
    if (n.dict_id == id) return &n;
    if (const SchemaNode* c = find_dictionary_node(n.children, id)) return c;
  }
  return nullptr;
}

fb::Builder::Offset encode_schema(fb::Builder& b, const DType& schema, const std::vector<SchemaNode>& nodes,
                                  const KeyValueMetadata& metadata) {
  std::vector<fb::Builder::Offset> fields;
  for (size_t i = 0; i < schema.fields().size(); ++i) {
    const Field& f = schema.fields()[i];
    fields.push_back(encode_field(b, f.name, f.dtype, f.dtype.nullable(), nodes[i]));
  }
  const auto fields_vec = b.create_offset_vector(fields);
  const auto md = metadata.empty() ? 0 : encode_key_values(b, metadata);
  b.start_table();
  b.add_scalar<int16_t>(kSchemaEndianness, 0);
  b.add_offset(kSchemaFields, fields_vec);
  if (md) b.add_offset(kSchemaMetadata, md);
  return b.end_table();
}

std::vector<uint8_t> schema_message(const DType& schema, const std::vector<SchemaNode>& nodes,
                                    const KeyValueMetadata& metadata) {
  fb::Builder b;
  const auto s = encode_schema(b, schema, nodes, metadata);
  return message(b, fbs::kSchema, s, 0);
}

std::vector<uint8_t> record_batch_message(const BatchMeta& batch, int64_t body_length) {
  fb::Builder b;
  const auto rb = encode_batch(b, batch);
  return message(b, fbs::kRecordBatch, rb, body_length);
}

std::vector<uint8_t> dictionary_batch_message(int64_t id, bool is_delta, const BatchMeta& batch, int64_t body_length) {
  fb::Builder b;
  const auto rb = encode_batch(b, batch);
  b.start_table();
  b.add_scalar<int64_t>(kDictBatchId, id);
  b.add_offset(kDictBatchData, rb);
  b.add_scalar<uint8_t>(kDictBatchDelta, is_delta ? 1 : 0);
  const auto db = b.end_table();
  return message(b, fbs::kDictionaryBatch, db, body_length);
}

std::vector<uint8_t> footer(const DType& schema, const std::vector<SchemaNode>& nodes, const KeyValueMetadata& metadata,
                            const std::vector<BlockMeta>& dictionaries, const std::vector<BlockMeta>& batches) {
  fb::Builder b;
  const auto s = encode_schema(b, schema, nodes, metadata);
  const auto d = b.create_vector(dictionaries, 8);
  const auto r = b.create_vector(batches, 8);
  b.start_table();
  b.add_offset(kFooterSchema, s);
  b.add_offset(kFooterDictionaries, d);
  b.add_offset(kFooterBatches, r);
  b.add_scalar<int16_t>(kFooterVersion, fbs::kMetadataV5);
  return b.finish(b.end_table());
}

MessageView decode_message(const uint8_t* data, int64_t size, const char* what) {
  const fb::Table m = fb::Table::root(data, size, what);
  MessageView v;
  v.version = m.scalar<int16_t>(kMessageVersion, 0);
  v.header_type = m.scalar<uint8_t>(kMessageHeaderType, 0);
  v.header = m.table(kMessageHeader);
  v.body_length = m.scalar<int64_t>(kMessageBodyLength, 0);
  EMBER_CHECK(v.version >= fbs::kMetadataV4, what, ": metadata version V", v.version + 1,
              " is older than V4 (Arrow 0.8); ember::frame reads V4 and V5");
  EMBER_CHECK(v.header.present(), what, ": the ", message_type_name(v.header_type), " message has no header");
  EMBER_CHECK(v.body_length >= 0 && v.body_length <= kMaxBufferBytes, what, ": bad body length ", v.body_length);
  return v;
}

const char* message_type_name(uint8_t header_type) {
  switch (header_type) {
    case fbs::kSchema: return "Schema";
    case fbs::kDictionaryBatch: return "DictionaryBatch";
    case fbs::kRecordBatch: return "RecordBatch";
    case fbs::kTensor: return "Tensor";
    case fbs::kSparseTensor: return "SparseTensor";
    default: return "unknown";
  }
}

}  // namespace ember::frame::io::detail
