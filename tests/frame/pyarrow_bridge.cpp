// Test-only shared library that pyarrow_interop.py loads with ctypes: it exports ember's
// fixture columns, frames and streams into caller-provided Arrow C structs, imports what
// pyarrow exports and answers with a JSON digest, and counts every release callback so that
// Python can check the release protocol. Built by pyarrow_test.cpp at test time:
//   c++ -std=c++20 -shared -fPIC -I<repo> -I<repo>/tests pyarrow_bridge.cpp libember.so
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "ember/frame/c_data.h"
#include "ember/frame/factory.h"
#include "frame/frame_fixtures.h"

using namespace ember::frame;

namespace {

std::string g_last_error;
std::string g_result;  // the last digest handed to Python (valid until the next call)

// ---- release counting -------------------------------------------------------------------
int64_t g_export_releases = 0, g_export_violations = 0, g_schema_releases = 0;
int64_t g_stream_releases = 0, g_import_releases = 0, g_import_violations = 0;
int64_t g_owner_frees = 0;
uintptr_t g_owned_address = 0;
void (*g_ember_array_release)(ArrowArray*) = nullptr;
void (*g_ember_schema_release)(ArrowSchema*) = nullptr;

void counting_array_release(ArrowArray* a) {
  g_ember_array_release(a);
  ++g_export_releases;
  if (a->release != nullptr) ++g_export_violations;  // the spec: release marks it released
}
void counting_schema_release(ArrowSchema* s) {
  g_ember_schema_release(s);
  ++g_schema_releases;
  if (s->release != nullptr) ++g_export_violations;
}
void wrap_export(ArrowArray* a, ArrowSchema* s) {
  g_ember_array_release = a->release;
  a->release = &counting_array_release;
  if (s) {
    g_ember_schema_release = s->release;
    s->release = &counting_schema_release;
  }
}

// pyarrow's own release callbacks, by private_data, for the arrays ember imports.
std::map<void*, void (*)(ArrowArray*)> g_foreign_release;
void counting_foreign_release(ArrowArray* a) {
  auto it = g_foreign_release.find(a->private_data);
  void (*orig)(ArrowArray*) = it->second;
  g_foreign_release.erase(it);
  orig(a);
  ++g_import_releases;
  if (a->release != nullptr) ++g_import_violations;
}
void wrap_import(ArrowArray* a) {
  g_foreign_release[a->private_data] = a->release;
  a->release = &counting_foreign_release;
}

// ---- digests ----------------------------------------------------------------------------
void json_string(std::string& out, std::string_view s) {
  out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  out += '"';
}

// A Value as JSON, interpreted by its type: binary as hex, structs as objects, maps as
// [key, value] pairs, dates and timestamps as their integers.
void json_value(std::string& out, const DType& t, const Value& v) {
  if (v.is_null()) {
    out += "null";
    return;
  }
  switch (t.id()) {
    case TypeId::Bool: out += v.as_bool() ? "true" : "false"; return;
    case TypeId::Float32:
    case TypeId::Float64: {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.17g", v.as_double());
      out += buf;
      return;
    }
    case TypeId::String:
    case TypeId::LargeString: json_string(out, v.as_string()); return;
    case TypeId::Binary:
    case TypeId::LargeBinary: {
      std::string hex;
      for (unsigned char c : v.as_string()) {
        char buf[4];
        std::snprintf(buf, sizeof(buf), "%02x", c);
        hex += buf;
      }
      json_string(out, hex);
      return;
    }
    case TypeId::List:
    case TypeId::LargeList: {
      out += '[';
      const auto& items = v.as_list();
      for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += ',';
        json_value(out, t.value_type(), items[i]);
      }
      out += ']';
      return;
    }
    case TypeId::Map: {
      out += '[';
      const auto& items = v.as_list();
      for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += ',';
        out += '[';
        json_value(out, t.key_type(), items[i].as_list()[0]);
        out += ',';
        json_value(out, t.value_type(), items[i].as_list()[1]);
        out += ']';
      }
      out += ']';
      return;
    }
    case TypeId::Struct: {
      out += '{';
      const auto& items = v.as_list();
      for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += ',';
        json_string(out, t.fields()[i].name);
        out += ':';
        json_value(out, t.fields()[i].dtype, items[i]);
      }
      out += '}';
      return;
    }
    case TypeId::Dictionary: json_value(out, t.value_type(), v); return;
    default: out += v.to_string(); return;  // integers, exact (uint64 too)
  }
}

std::string column_digest(const Column& c) {
  std::string out = "{\"type\":";
  json_string(out, c.dtype().to_string());
  out += ",\"length\":" + std::to_string(c.size()) + ",\"offset\":" + std::to_string(c.offset()) +
         ",\"null_count\":" + std::to_string(c.null_count()) + ",\"addresses\":[";
  const auto& bufs = c.data()->buffers;
  for (size_t i = 0; i < bufs.size(); ++i)
    out += (i ? "," : "") + std::to_string(bufs[i].defined() ? reinterpret_cast<uintptr_t>(bufs[i].data()) : 0);
  out += "],\"values\":[";
  for (int64_t i = 0; i < c.size(); ++i) {
    if (i) out += ',';
    json_value(out, c.dtype(), c.get_value(i));
  }
  return out + "]}";
}

std::string frame_digest(const DataFrame& df) {
  std::string out = "{\"rows\":" + std::to_string(df.num_rows()) + ",\"columns\":{";
  for (int64_t i = 0; i < df.num_columns(); ++i) {
    if (i) out += ',';
    json_string(out, df.columns()[size_t(i)]);
    out += ':' + column_digest(df.column(i));
  }
  return out + "}}";
}

std::map<int, Column> g_slots;

template <class F>
const char* answer(F&& f) {
  try {
    g_result = f();
  } catch (const std::exception& e) {
    g_result = std::string("ERROR: ") + e.what();
  }
  return g_result.c_str();
}

Column fixture(const std::string& name) {
  if (name == "owned_int64") {
    // Memory owned outside ember: its owner runs once, when the last user (pyarrow) goes.
    auto* data = new int64_t[4]{11, 22, 33, 44};
    g_owned_address = reinterpret_cast<uintptr_t>(data);
    std::shared_ptr<const void> owner(data, [](const void* p) {
      delete[] static_cast<const int64_t*>(p);
      ++g_owner_frees;
    });
    return Column(ArrayData::make(dtypes::int64, 4, {Buffer(), Buffer::wrap(data, 32, owner)})).slice(1, 3);
  }
  for (auto& [n, c] : test::fixtures())
    if (n == name) return c;
  throw std::runtime_error("no fixture named " + name);
}

DataFrame frame_fixture(int k) {
  return DataFrame{{"id", column(std::vector<int64_t>{k, k + 1, k + 2})},
                   {"name", column({"a", std::nullopt, "c"})},
                   {"score", column({0.5, 1.5, std::nullopt})},
                   {"tags", column(std::vector<std::vector<std::string>>{{"x"}, {}, {"y", "z"}})}};
}

}  // namespace

extern "C" {

const char* ember_last_error() { return g_last_error.c_str(); }
int ember_fixture_count() { return int(test::fixtures().size()); }
const char* ember_fixture_name(int i) {
  static std::vector<std::string> names;
  if (names.empty())
    for (auto& [n, c] : test::fixtures()) names.push_back(n);
  return names.at(size_t(i)).c_str();
}

int ember_export_fixture(const char* name, ArrowArray* out, ArrowSchema* out_schema) {
  try {
    export_column(fixture(name), out, out_schema);
    wrap_export(out, out_schema);
    return 0;
  } catch (const std::exception& e) {
    g_last_error = e.what();
    return -1;
  }
}

int ember_export_frame(int k, ArrowArray* out, ArrowSchema* out_schema) {
  try {
    export_dataframe(frame_fixture(k).slice(1, 2), out, out_schema);
    wrap_export(out, out_schema);
    return 0;
  } catch (const std::exception& e) {
    g_last_error = e.what();
    return -1;
  }
}

// A stream of three frames whose batches and stream release are counted too.
static int (*g_ember_get_next)(ArrowArrayStream*, ArrowArray*) = nullptr;
static void (*g_ember_stream_release)(ArrowArrayStream*) = nullptr;
static int counting_get_next(ArrowArrayStream* s, ArrowArray* out) {
  const int rc = g_ember_get_next(s, out);
  if (rc == 0 && out->release) {
    g_ember_array_release = out->release;
    out->release = &counting_array_release;
  }
  return rc;
}
static void counting_stream_release(ArrowArrayStream* s) {
  g_ember_stream_release(s);
  ++g_stream_releases;
  if (s->release != nullptr) ++g_export_violations;
}

int ember_export_stream(ArrowArrayStream* out) {
  try {
    export_stream({frame_fixture(0), frame_fixture(10), frame_fixture(20).slice(1, 2)}, out);
    g_ember_get_next = out->get_next;
    out->get_next = &counting_get_next;
    g_ember_stream_release = out->release;
    out->release = &counting_stream_release;
    return 0;
  } catch (const std::exception& e) {
    g_last_error = e.what();
    return -1;
  }
}

int64_t ember_export_releases() { return g_export_releases; }
int64_t ember_schema_releases() { return g_schema_releases; }
int64_t ember_stream_releases() { return g_stream_releases; }
int64_t ember_release_violations() { return g_export_violations + g_import_violations; }
int64_t ember_owner_frees() { return g_owner_frees; }
uint64_t ember_owned_address() { return g_owned_address; }
int64_t ember_import_releases() { return g_import_releases; }

// Imports what pyarrow exported (counting pyarrow's release), keeps it in `slot`, and
// answers with its digest (or "ERROR: <message>").
const char* ember_import_digest(ArrowArray* array, ArrowSchema* schema, int slot, int validate_utf8) {
  if (array && array->release) wrap_import(array);
  return answer([&] {
    Column c = import_column(array, schema, ImportOptions{validate_utf8 != 0});
    g_slots[slot] = c;
    return column_digest(c);
  });
}

const char* ember_import_frame_digest(ArrowArray* array, ArrowSchema* schema, int slot) {
  if (array && array->release) wrap_import(array);
  return answer([&] {
    DataFrame df = import_dataframe(array, schema);
    g_slots[slot] = df.to_struct();
    return frame_digest(df);
  });
}

const char* ember_import_stream_digest(ArrowArrayStream* stream) {
  return answer([&] {
    StreamReader reader(stream);
    std::string out = "[";
    int n = 0;
    while (auto df = reader.next()) out += (n++ ? "," : "") + frame_digest(*df);
    return out + "]";
  });
}

// The digest of the column held in `slot`, read again now.
const char* ember_digest_slot(int slot) {
  return answer([&] { return column_digest(g_slots.at(slot)); });
}

void ember_drop_slot(int slot) { g_slots.erase(slot); }

}  // extern "C"
