// Export and import of arrays and schemas through the Arrow C Data Interface.
#include "ember/frame/c_data.h"

#include <cstring>
#include <string_view>

#include "ember/core/error.h"
#include "ember/frame/array_data.h"

namespace ember::frame {

namespace {

constexpr int kMaxImportDepth = 64;                       // nesting deeper than this is refused
constexpr int64_t kMaxChildren = int64_t(1) << 20;  // struct fields

// Pointed to for empty buffers ember has no memory for (consumers differ on NULL).
alignas(64) const uint8_t kZeros[64] = {};

// ---- export: schemas ------------------------------------------------------------------

struct SchemaPrivate {
  std::string format, name;
  std::unique_ptr<ArrowSchema[]> children;  // zeroed: release == NULL until filled
  std::vector<ArrowSchema*> child_ptrs;
  std::unique_ptr<ArrowSchema> dictionary;
  ~SchemaPrivate() {
    // Children a consumer moved out have release == NULL here and are theirs to release.
    for (ArrowSchema* c : child_ptrs)
      if (c->release) c->release(c);
    if (dictionary && dictionary->release) dictionary->release(dictionary.get());
  }
};

void release_schema(ArrowSchema* s) {
  if (s == nullptr || s->release == nullptr) return;
  delete static_cast<SchemaPrivate*>(s->private_data);
  s->release = nullptr;
  s->private_data = nullptr;
}

void fill_schema(ArrowSchema* out, const DType& t, const std::string& name) {
  auto p = std::make_unique<SchemaPrivate>();
  p->format = t.arrow_format();
  p->name = name;
  int64_t flags = t.nullable() ? ARROW_FLAG_NULLABLE : 0;
  std::vector<std::pair<std::string, DType>> kids;
  switch (t.id()) {
    case TypeId::List:
    case TypeId::LargeList: kids.push_back({"item", t.value_type()}); break;
    case TypeId::Map:
      kids.push_back({"entries", t.map_entries_type()});
      if (t.keys_sorted()) flags |= ARROW_FLAG_MAP_KEYS_SORTED;
      break;
    case TypeId::Struct:
      for (const Field& f : t.fields()) kids.push_back({f.name, f.dtype});
      break;
    case TypeId::Dictionary:
      if (t.ordered()) flags |= ARROW_FLAG_DICTIONARY_ORDERED;
      p->dictionary = std::make_unique<ArrowSchema>();
      std::memset(p->dictionary.get(), 0, sizeof(ArrowSchema));
      fill_schema(p->dictionary.get(), t.value_type(), "");
      break;
    default: break;
  }
  if (!kids.empty()) {
    p->children.reset(new ArrowSchema[kids.size()]);
    std::memset(p->children.get(), 0, kids.size() * sizeof(ArrowSchema));
    for (size_t i = 0; i < kids.size(); ++i) {
      p->child_ptrs.push_back(&p->children[i]);
      fill_schema(&p->children[i], kids[i].second, kids[i].first);
    }
  }
  out->format = p->format.c_str();
  out->name = p->name.c_str();
  out->metadata = nullptr;
  out->flags = flags;
  out->n_children = int64_t(kids.size());
  out->children = kids.empty() ? nullptr : p->child_ptrs.data();
  out->dictionary = p->dictionary.get();
  out->release = &release_schema;
  out->private_data = p.release();
}

// ---- export: arrays -------------------------------------------------------------------

struct ArrayPrivate {
  ArrayDataPtr data;  // keeps every buffer of this node alive
  std::vector<const void*> buffers;
  std::unique_ptr<ArrowArray[]> children;  // zeroed: release == NULL until filled
  std::vector<ArrowArray*> child_ptrs;
  std::unique_ptr<ArrowArray> dictionary;
  ~ArrayPrivate() {
    for (ArrowArray* c : child_ptrs)
      if (c->release) c->release(c);
    if (dictionary && dictionary->release) dictionary->release(dictionary.get());
  }
};

void release_array(ArrowArray* a) {
  if (a == nullptr || a->release == nullptr) return;
  delete static_cast<ArrayPrivate*>(a->private_data);
  a->release = nullptr;
  a->private_data = nullptr;
}

void fill_array(ArrowArray* out, const ArrayDataPtr& d) {
  auto p = std::make_unique<ArrayPrivate>();
  p->data = d;
  int64_t offset = d->offset;
  const DType& t = d->type;
  for (size_t i = 0; i < d->buffers.size(); ++i) {
    const Buffer& b = d->buffers[i];
    if (b.defined()) p->buffers.push_back(b.data());
    else if (i == 0) p->buffers.push_back(nullptr);  // no validity bitmap: no nulls
    else p->buffers.push_back(kZeros);
  }
  // An empty binary or list array without an offsets buffer: offsets [0] at offset 0.
  if ((t.is_binary_like() || t.is_list_like()) && !d->buffers[1].defined()) offset = 0;
  if (!d->children.empty()) {
    p->children.reset(new ArrowArray[d->children.size()]);
    std::memset(p->children.get(), 0, d->children.size() * sizeof(ArrowArray));
    for (size_t i = 0; i < d->children.size(); ++i) {
      p->child_ptrs.push_back(&p->children[i]);
      fill_array(&p->children[i], d->children[i]);
    }
  }
  if (d->dictionary) {
    p->dictionary = std::make_unique<ArrowArray>();
    std::memset(p->dictionary.get(), 0, sizeof(ArrowArray));
    fill_array(p->dictionary.get(), d->dictionary);
  }
  out->length = d->length;
  out->null_count = d->null_count();
  out->offset = offset;
  out->n_buffers = int64_t(p->buffers.size());
  out->n_children = int64_t(p->child_ptrs.size());
  out->buffers = p->buffers.data();
  out->children = p->child_ptrs.empty() ? nullptr : p->child_ptrs.data();
  out->dictionary = p->dictionary.get();
  out->release = &release_array;
  out->private_data = p.release();
}

// ---- import: schemas ------------------------------------------------------------------

const char* unsupported_format_name(std::string_view f) {
  if (f == "n") return "null";
  if (f == "e") return "float16";
  if (f == "tdm") return "date64";
  if (f.starts_with("tt")) return "time";
  if (f.starts_with("tD")) return "duration";
  if (f.starts_with("ti")) return "interval";
  if (f.starts_with("d:")) return "decimal";
  if (f.starts_with("w:")) return "fixed_size_binary";
  if (f.starts_with("+w:")) return "fixed_size_list";
  if (f.starts_with("+u")) return "union";
  if (f.starts_with("+r")) return "run_end_encoded";
  if (f == "vu" || f == "vz") return "string_view/binary_view";
  if (f == "+vl" || f == "+vL") return "list_view";
  return nullptr;
}

// A type without children from its format, or nullopt.
std::optional<DType> primitive_type(std::string_view f, bool nullable) {
  static constexpr std::pair<std::string_view, TypeId> kTable[] = {
      {"b", TypeId::Bool},    {"c", TypeId::Int8},     {"s", TypeId::Int16},       {"i", TypeId::Int32},
      {"l", TypeId::Int64},   {"C", TypeId::UInt8},    {"S", TypeId::UInt16},      {"I", TypeId::UInt32},
      {"L", TypeId::UInt64},  {"f", TypeId::Float32},  {"g", TypeId::Float64},     {"u", TypeId::String},
      {"U", TypeId::LargeString}, {"z", TypeId::Binary}, {"Z", TypeId::LargeBinary}, {"tdD", TypeId::Date32},
  };
  for (const auto& [fmt, id] : kTable)
    if (f == fmt) return DType(id, nullable);
  if (f.size() >= 4 && f.starts_with("ts") && f[3] == ':') {
    TimeUnit unit;
    switch (f[2]) {
      case 's': unit = TimeUnit::Second; break;
      case 'm': unit = TimeUnit::Milli; break;
      case 'u': unit = TimeUnit::Micro; break;
      case 'n': unit = TimeUnit::Nano; break;
      default: return std::nullopt;
    }
    return dtypes::Timestamp(unit, std::string(f.substr(4)), nullable);
  }
  return std::nullopt;
}

DType parse_schema(const ArrowSchema* s, int depth, const std::string& path) {
  EMBER_CHECK(depth <= kMaxImportDepth, "import: ", path, ": types nest deeper than ", kMaxImportDepth, " levels");
  EMBER_CHECK(s != nullptr, "import: ", path, ": null ArrowSchema pointer");
  EMBER_CHECK(s->format != nullptr, "import: ", path, ": the schema's format is NULL");
  const std::string_view f(s->format, ::strnlen(s->format, 256));
  const bool nullable = (s->flags & ARROW_FLAG_NULLABLE) != 0;
  EMBER_CHECK(s->n_children >= 0 && s->n_children <= kMaxChildren, "import: ", path, ": bad n_children ",
              s->n_children);
  EMBER_CHECK(s->n_children == 0 || s->children != nullptr, "import: ", path, ": n_children is ", s->n_children,
              " but children is NULL");
  for (int64_t i = 0; i < s->n_children; ++i)
    EMBER_CHECK(s->children[i] != nullptr, "import: ", path, ": child schema ", i, " is NULL");
  auto child_name = [&](int64_t i) { return std::string(s->children[i]->name ? s->children[i]->name : ""); };
  auto expect_children = [&](int64_t n) {
    EMBER_CHECK(s->n_children == n, "import: ", path, ": format '", f, "' needs ", n, " child schema", n == 1 ? "" : "s",
                ", got ", s->n_children);
  };

  if (s->dictionary != nullptr) {
    std::optional<DType> index = primitive_type(f, false);
    EMBER_CHECK(index && index->is_integer(), "import: ", path, ": a dictionary's index format must be an integer type, got '",
                f, "'");
    expect_children(0);
    DType value = parse_schema(s->dictionary, depth + 1, path + ".dictionary");
    EMBER_CHECK(value.id() != TypeId::Dictionary, "import: ", path, ": nested dictionaries are not supported");
    return dtypes::Dictionary(*index, value, nullable, (s->flags & ARROW_FLAG_DICTIONARY_ORDERED) != 0);
  }
  if (std::optional<DType> t = primitive_type(f, nullable)) {
    expect_children(0);
    return *t;
  }
  if (f == "+l" || f == "+L") {
    expect_children(1);
    DType item = parse_schema(s->children[0], depth + 1, path + "." + child_name(0));
    return f == "+l" ? dtypes::List(item, nullable) : dtypes::LargeList(item, nullable);
  }
  if (f == "+s") {
    std::vector<Field> fields;
    for (int64_t i = 0; i < s->n_children; ++i)
      fields.push_back({child_name(i), parse_schema(s->children[i], depth + 1, path + "." + child_name(i))});
    return dtypes::Struct(std::move(fields), nullable);
  }
  if (f == "+m") {
    expect_children(1);
    const ArrowSchema* entries = s->children[0];
    EMBER_CHECK(entries->format != nullptr && std::string_view(entries->format) == "+s" && entries->n_children == 2 &&
                    entries->children != nullptr && entries->children[0] != nullptr && entries->children[1] != nullptr,
                "import: ", path, ": a map's child must be a struct of two fields (key, value)");
    EMBER_CHECK(depth + 2 <= kMaxImportDepth, "import: ", path, ": types nest deeper than ", kMaxImportDepth, " levels");
    // Keys are never null by Arrow's rule, whatever the key field's flag says; validate()
    // rejects an array whose keys hold nulls.
    DType key = parse_schema(entries->children[0], depth + 2, path + ".key").with_nullable(false);
    DType value = parse_schema(entries->children[1], depth + 2, path + ".value");
    return dtypes::Map(key, value, nullable, (s->flags & ARROW_FLAG_MAP_KEYS_SORTED) != 0);
  }
  if (const char* what = unsupported_format_name(f))
    EMBER_ERROR("import: ", path, ": Arrow format '", f, "' (", what, ") is not supported by ember::frame");
  EMBER_ERROR("import: ", path, ": unknown Arrow format '", f, "'");
}

// ---- import: arrays -------------------------------------------------------------------

// The imported root: release runs when the last buffer referring to it goes.
struct ImportedArray {
  ArrowArray array;
  ~ImportedArray() {
    if (array.release) array.release(&array);
  }
};

std::shared_ptr<ImportedArray> take_array(ArrowArray* array, const char* op) {
  EMBER_CHECK(array != nullptr, op, ": null ArrowArray pointer");
  EMBER_CHECK(array->release != nullptr, op, ": the ArrowArray is already released");
  auto owner = std::make_shared<ImportedArray>();
  owner->array = *array;  // move, as the spec defines it
  array->release = nullptr;
  return owner;
}

struct Importer {
  std::shared_ptr<const void> owner;

  [[noreturn]] static void fail(const std::string& path, const DType& t, const std::string& msg) {
    EMBER_ERROR("import: ", path, " (", t.to_string(), "): ", msg);
  }

  // A buffer of `size` bytes at `p`, zero-copy when `p` is aligned to `align`.
  Buffer wrap(const void* p, int64_t size, int align) const {
    if (size == 0) return Buffer::wrap(p, 0, owner);
    if (reinterpret_cast<uintptr_t>(p) % uintptr_t(align) != 0) return Buffer::copy_of(p, size);
    return Buffer::wrap(p, size, owner);
  }

  template <class O>
  Buffer offsets(const ArrowArray* a, const DType& t, const std::string& path, int64_t* last) {
    const void* p = a->buffers[1];
    const int64_t end = a->offset + a->length;
    *last = 0;
    if (p == nullptr) {
      if (a->length == 0) return Buffer();
      fail(path, t, "the offsets buffer (buffer 1) is NULL");
    }
    Buffer b = wrap(p, (end + 1) * int64_t(sizeof(O)), int(sizeof(O)));
    *last = int64_t(b.data_as<O>()[end]);
    return b;
  }

  ArrayDataPtr run(const ArrowArray* a, const DType& t, int depth, const std::string& path) {
    if (depth > kMaxImportDepth) fail(path, t, "arrays nest deeper than " + std::to_string(kMaxImportDepth) + " levels");
    if (a == nullptr) fail(path, t, "null ArrowArray pointer");
    if (a->length < 0 || a->offset < 0 || a->length > kMaxArrayElements || a->offset > kMaxArrayElements - a->length)
      fail(path, t, "bad length " + std::to_string(a->length) + " or offset " + std::to_string(a->offset));
    if (a->n_buffers != t.num_buffers())
      fail(path, t, "has " + std::to_string(a->n_buffers) + " buffers; its Arrow layout has " + std::to_string(t.num_buffers()));
    if (a->n_children != int64_t(num_children(t)))
      fail(path, t, "has " + std::to_string(a->n_children) + " children; the schema says " + std::to_string(num_children(t)));
    if (a->buffers == nullptr) fail(path, t, "the buffers pointer is NULL");
    if (a->n_children > 0 && a->children == nullptr) fail(path, t, "the children pointer is NULL");
    for (int64_t i = 0; i < a->n_children; ++i)
      if (a->children[i] == nullptr) fail(path, t, "child " + std::to_string(i) + " is NULL");
    if ((t.id() == TypeId::Dictionary) != (a->dictionary != nullptr))
      fail(path, t, a->dictionary ? "has a dictionary but the schema is not a dictionary type" : "the dictionary is NULL");
    if (a->null_count < -1 || a->null_count > a->length)
      fail(path, t, "bad null_count " + std::to_string(a->null_count));

    const int64_t end = a->offset + a->length;
    int64_t null_count = a->null_count;
    std::vector<Buffer> buffers;
    // Validity: with null_count 0 the bitmap is ignored (it may be absent or stale).
    if (null_count == 0) {
      buffers.emplace_back();
    } else if (a->buffers[0] == nullptr) {
      if (null_count > 0) fail(path, t, "null_count is " + std::to_string(null_count) + " but the validity bitmap is NULL");
      null_count = 0;
      buffers.emplace_back();
    } else {
      buffers.push_back(wrap(a->buffers[0], bits::bytes_for(end), 1));
    }

    std::vector<ArrayDataPtr> children;
    ArrayDataPtr dictionary;
    auto need_data = [&](int64_t bytes, int align) {
      if (bytes > 0 && a->buffers[1] == nullptr) fail(path, t, "the data buffer (buffer 1) is NULL");
      buffers.push_back(wrap(a->buffers[1], bytes, align));
    };
    if (t.is_fixed_width()) {
      if (t.id() == TypeId::Bool) need_data(bits::bytes_for(end), 1);
      else need_data(end * t.byte_width(), t.byte_width());
    } else if (t.is_binary_like() || t.is_list_like()) {
      int64_t last = 0;
      buffers.push_back(t.has_large_offsets() ? offsets<int64_t>(a, t, path, &last) : offsets<int32_t>(a, t, path, &last));
      if (t.is_binary_like()) {
        // The only size the interface gives for the bytes is the last offset (checked by
        // validate() to bound every other offset).
        if (last < 0 || last > kMaxBufferBytes) fail(path, t, "bad last offset " + std::to_string(last));
        if (last > 0 && a->buffers[2] == nullptr) fail(path, t, "the data buffer (buffer 2) is NULL");
        buffers.push_back(Buffer::wrap(last > 0 ? a->buffers[2] : nullptr, last, owner));
      } else {
        children.push_back(run(a->children[0], child_type(t, 0), depth + 1, path + (t.id() == TypeId::Map ? ".entries" : ".item")));
      }
    } else if (t.id() == TypeId::Struct) {
      for (size_t i = 0; i < t.fields().size(); ++i)
        children.push_back(run(a->children[i], t.fields()[i].dtype, depth + 1, path + "." + t.fields()[i].name));
    } else if (t.id() == TypeId::Dictionary) {
      const int w = t.index_type().byte_width();
      need_data(end * w, w);
      dictionary = run(a->dictionary, t.value_type(), depth + 1, path + ".dictionary");
    }
    return ArrayData::make(t, a->length, std::move(buffers), std::move(children),
                           null_count < 0 ? kUnknownNullCount : null_count, a->offset, std::move(dictionary));
  }
};

Column import_owned(const std::shared_ptr<ImportedArray>& owner, const DType& type, const ImportOptions& options) {
  Importer imp{std::shared_ptr<const void>(owner, owner.get())};
  ArrayDataPtr d = imp.run(&owner->array, type, 0, "array");
  d->validate(ValidateOptions{options.validate_utf8});
  return Column::from_data_unchecked(std::move(d));
}

}  // namespace

// ---- public API -----------------------------------------------------------------------

void export_type(const DType& type, ArrowSchema* out, const std::string& name) {
  EMBER_CHECK(out != nullptr, "export_type: null ArrowSchema pointer");
  fill_schema(out, type, name);
}

void export_column(const Column& column, ArrowArray* out_array, ArrowSchema* out_schema) {
  EMBER_CHECK(out_array != nullptr, "export_column: null ArrowArray pointer");
  const ArrayDataPtr& d = column.data();
  ArrowSchema schema;
  if (out_schema) fill_schema(&schema, d->type, "");
  try {
    fill_array(out_array, d);
  } catch (...) {
    if (out_schema) schema.release(&schema);
    throw;
  }
  if (out_schema) *out_schema = schema;
}

void export_dataframe(const DataFrame& df, ArrowArray* out_array, ArrowSchema* out_schema) {
  export_column(df.to_struct(), out_array, out_schema);
}

DType import_type(ArrowSchema* schema, std::string* name) {
  EMBER_CHECK(schema != nullptr, "import_type: null ArrowSchema pointer");
  EMBER_CHECK(schema->release != nullptr, "import_type: the ArrowSchema is already released");
  struct Release {
    ArrowSchema* s;
    ~Release() {
      if (s->release) s->release(s);
    }
  } release{schema};
  if (name) *name = schema->name ? schema->name : "";
  return parse_schema(schema, 0, "schema");
}

Column import_column(ArrowArray* array, ArrowSchema* schema, const ImportOptions& options) {
  std::shared_ptr<ImportedArray> owner;
  try {
    owner = take_array(array, "import_column");
  } catch (...) {
    if (schema && schema->release) schema->release(schema);
    throw;
  }
  const DType type = import_type(schema);
  return import_owned(owner, type, options);
}

Column import_column(ArrowArray* array, const DType& type, const ImportOptions& options) {
  return import_owned(take_array(array, "import_column"), type, options);
}

DataFrame import_dataframe(ArrowArray* array, ArrowSchema* schema, const ImportOptions& options) {
  Column c = import_column(array, schema, options);
  EMBER_CHECK_TYPE(c.dtype().id() == TypeId::Struct, "import_dataframe: the array is a ", c.dtype().to_string(),
                   ", not a struct array (record batch)");
  return DataFrame::from_struct(c);
}

DataFrame import_dataframe(ArrowArray* array, const DType& struct_type, const ImportOptions& options) {
  EMBER_CHECK_TYPE(struct_type.id() == TypeId::Struct, "import_dataframe: the type is ", struct_type.to_string(),
                   ", not a struct type");
  return DataFrame::from_struct(import_column(array, struct_type, options));
}

}  // namespace ember::frame
