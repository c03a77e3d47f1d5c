// Fuzzes the Arrow C Data Interface import (ember/frame/c_data.h): valid arrays (a fixture
// column of every type, or a column the IPC stream reader decoded from fuzz bytes) are copied
// into blocks that end at a PROT_NONE guard page and mutated as the fuzz bytes say, as in
// tests/frame/c_data_fuzz_test.cpp; schemas are also built from fuzz bytes for import_type.
//
// The interface carries no buffer sizes, so a consumer must trust that buffers hold what
// length + offset (and a binary array's last offset) say: the mutations never claim more memory
// than the harness allocated (lengths only shrink, offsets shift within the original range, a
// binary array's last offset stays within its bytes). Every import must raise ember::Error or
// give a column whose every element can be read, and release each struct exactly once.
//
// Input: byte 0 picks the mode (0 fixture, 1 IPC, 2 schema); a fixture's index follows, or
// an IPC stream as a 2-byte little-endian length and its bytes; the rest drives the mutations.
#include <fuzzer/FuzzedDataProvider.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <vector>

#include "ember/frame/frame.h"
#include "frame/frame_fixtures.h"
#include "fuzz_util.h"

namespace {

using namespace ember;
using namespace ember::frame;

// A block of `size` bytes that ends where a PROT_NONE page begins.
class GuardedBlock {
 public:
  GuardedBlock(const void* src, int64_t size, int64_t slack = 0) {
    const size_t page = size_t(::sysconf(_SC_PAGESIZE));
    const size_t need = size_t(size + slack);
    pages_ = (need + page - 1) / page + 1;
    base_ = static_cast<uint8_t*>(
        ::mmap(nullptr, pages_ * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (base_ == MAP_FAILED) fuzz::fail("c_data harness: mmap failed");
    uint8_t* guard = base_ + (pages_ - 1) * page;
    if (::mprotect(guard, page, PROT_NONE) != 0) fuzz::fail("c_data harness: mprotect failed");
    data_ = guard - size - slack;
    if (size > 0) std::memcpy(data_, src, size_t(size));
    bytes_ = pages_ * page;
  }
  ~GuardedBlock() { ::munmap(base_, bytes_); }
  GuardedBlock(const GuardedBlock&) = delete;
  GuardedBlock& operator=(const GuardedBlock&) = delete;
  uint8_t* data() const { return data_; }

 private:
  uint8_t* base_ = nullptr;
  uint8_t* data_ = nullptr;
  size_t pages_ = 0, bytes_ = 0;
};

// The bytes each buffer of a valid array spans (computed here, independently of ember).
int64_t extent(const DType& t, size_t i, const ArrowArray& a) {
  const int64_t end = a.offset + a.length;
  if (a.buffers[i] == nullptr) return 0;
  if (i == 0) return (end + 7) / 8;
  if (t.id() == TypeId::Bool) return (end + 7) / 8;
  if (t.id() == TypeId::Dictionary) return end * t.index_type().byte_width();
  if (t.is_fixed_width()) return end * t.byte_width();
  const int osize = t.has_large_offsets() ? 8 : 4;
  if (i == 1) return (end + 1) * osize;
  return osize == 8 ? static_cast<const int64_t*>(a.buffers[1])[end] : static_cast<const int32_t*>(a.buffers[1])[end];
}

// The harness's copy of an exported array tree.
struct Node {
  explicit Node(DType t) : type(std::move(t)) {}
  DType type;
  ArrowArray arr{};
  std::vector<std::unique_ptr<GuardedBlock>> blocks;
  std::vector<int64_t> sizes;  // bytes behind each buffer pointer as first copied
  std::vector<const void*> buffers;
  std::vector<std::unique_ptr<Node>> children;
  std::vector<ArrowArray*> child_ptrs;
  std::unique_ptr<Node> dict;
};

int g_releases = 0;
void release_root(ArrowArray* a) {
  delete static_cast<Node*>(a->private_data);
  a->release = nullptr;
  ++g_releases;
}
void release_child(ArrowArray* a) { a->release = nullptr; }  // owned by the root

std::unique_ptr<Node> copy_tree(const ArrowArray& src, const DType& t) {
  auto n = std::make_unique<Node>(t);
  n->arr = src;
  for (int64_t i = 0; i < src.n_buffers; ++i) {
    const int64_t size = extent(t, size_t(i), src);
    if (src.buffers[i] == nullptr) {
      n->buffers.push_back(nullptr);
    } else {
      n->blocks.push_back(std::make_unique<GuardedBlock>(src.buffers[i], size));
      n->buffers.push_back(n->blocks.back()->data());
    }
    n->sizes.push_back(size);
  }
  for (int64_t i = 0; i < src.n_children; ++i) {
    n->children.push_back(copy_tree(*src.children[i], child_type(t, size_t(i))));
    n->child_ptrs.push_back(&n->children.back()->arr);
  }
  if (src.dictionary) n->dict = copy_tree(*src.dictionary, t.value_type());
  n->arr.buffers = n->buffers.data();
  n->arr.children = n->child_ptrs.empty() ? nullptr : n->child_ptrs.data();
  n->arr.dictionary = n->dict ? &n->dict->arr : nullptr;
  n->arr.release = &release_child;
  n->arr.private_data = nullptr;
  return n;
}

void collect(Node* n, std::vector<Node*>& out) {
  out.push_back(n);
  for (auto& c : n->children) collect(c.get(), out);
  if (n->dict) collect(n->dict.get(), out);
}

struct Mutator {
  FuzzedDataProvider& fdp;
  int64_t rand(int64_t lo, int64_t hi) { return lo >= hi ? lo : fdp.ConsumeIntegralInRange<int64_t>(lo, hi); }

  template <class O>
  void poke_offsets(Node& n) {
    if (n.buffers[1] == nullptr || n.sizes[1] < int64_t(sizeof(O))) return;
    O* o = static_cast<O*>(const_cast<void*>(n.buffers[1]));
    const int64_t count = n.sizes[1] / int64_t(sizeof(O));
    const int64_t hi = int64_t(o[count - 1]);
    o[rand(0, count - 1)] = O(rand(-3, hi + 3));
  }

  void mutate(Node& n) {
    ArrowArray& a = n.arr;
    switch (rand(0, 10)) {
      case 0: a.length = rand(0, a.length); break;
      case 1: {
        const int64_t k = rand(0, a.length);
        a.offset += k;
        a.length -= k;
        break;
      }
      case 2: {
        const int64_t choices[] = {-1, 0, 1, a.length, a.length + 1, -7, rand(0, a.length)};
        a.null_count = choices[rand(0, 6)];
        break;
      }
      case 3:
        if (!n.buffers.empty()) n.buffers[size_t(rand(0, int64_t(n.buffers.size()) - 1))] = nullptr;
        break;
      case 4: {
        // A misaligned copy (one byte of slack after it).
        if (n.buffers.empty()) break;
        const size_t i = size_t(rand(0, int64_t(n.buffers.size()) - 1));
        if (n.buffers[i] == nullptr || n.sizes[i] == 0) break;
        n.blocks.push_back(std::make_unique<GuardedBlock>(n.buffers[i], n.sizes[i], 1));
        std::memmove(n.blocks.back()->data() + 1, n.blocks.back()->data(), size_t(n.sizes[i]));
        n.buffers[i] = n.blocks.back()->data() + 1;
        break;
      }
      case 5: a.n_buffers += rand(0, 1) ? 1 : -1; break;
      case 6: a.n_children += rand(0, 1) ? 1 : -1; break;
      case 7:
        if (n.type.is_binary_like() || n.type.is_list_like()) {
          if (n.type.has_large_offsets()) poke_offsets<int64_t>(n);
          else poke_offsets<int32_t>(n);
        }
        break;
      case 8:
        if (n.type.id() == TypeId::Dictionary && n.buffers.size() > 1 && n.buffers[1] && n.sizes[1] > 0) {
          auto* p = static_cast<uint8_t*>(const_cast<void*>(n.buffers[1]));
          p[rand(0, n.sizes[1] - 1)] = uint8_t(rand(0, 255));
        }
        break;
      case 9: {
        // Bytes anywhere: validity bits, values, string bytes.
        if (n.buffers.empty()) break;
        const size_t i = size_t(rand(0, int64_t(n.buffers.size()) - 1));
        if (n.buffers[i] == nullptr || n.sizes[i] == 0) break;
        if (n.type.is_binary_like() && i == 1) break;  // offsets: case 7
        auto* p = static_cast<uint8_t*>(const_cast<void*>(n.buffers[i]));
        p[rand(0, n.sizes[i] - 1)] ^= uint8_t(1 << rand(0, 7));
        break;
      }
      default: a.dictionary = nullptr; break;
    }
  }

  // Keeps a binary array's last offset (the only size the interface gives) within its bytes.
  template <class O>
  static void clamp_last(Node& n) {
    const ArrowArray& a = n.arr;
    if (n.buffers.size() < 3 || n.buffers[1] == nullptr) return;
    const int64_t end = a.offset + a.length;
    if (end < 0 || (end + 1) * int64_t(sizeof(O)) > n.sizes[1]) return;
    O* o = static_cast<O*>(const_cast<void*>(n.buffers[1]));
    if (int64_t(o[end]) > n.sizes[2]) o[end] = O(n.sizes[2]);
  }

  static void fix_up(Node& n) {
    if (n.type.is_binary_like()) {
      if (n.type.has_large_offsets()) clamp_last<int64_t>(n);
      else clamp_last<int32_t>(n);
    }
    for (auto& c : n.children) fix_up(*c);
    if (n.dict) fix_up(*n.dict);
  }
};

// Formats that read no more bytes than the original format's layout provides.
std::vector<const char*> format_swaps(const DType& t) {
  std::vector<const char*> out = {"", "q", "+", "ts", "tsu", "tdm", "e", "d:10,2", "w:4", "+w:2", "+s", "+l", "+m", "n"};
  const int w = t.bit_width();
  if (t.is_fixed_width() && t.id() != TypeId::Bool) {
    for (const char* f : {"b", "c", "C"}) out.push_back(f);
    if (w >= 16) for (const char* f : {"s", "S"}) out.push_back(f);
    if (w >= 32) for (const char* f : {"i", "I", "f", "tdD"}) out.push_back(f);
    if (w >= 64) for (const char* f : {"l", "L", "g", "tsn:", "tss:UTC"}) out.push_back(f);
  }
  if (t.id() == TypeId::String || t.id() == TypeId::Binary) for (const char* f : {"u", "z"}) out.push_back(f);
  if (t.id() == TypeId::LargeString || t.id() == TypeId::LargeBinary) for (const char* f : {"U", "Z"}) out.push_back(f);
  if (t.id() == TypeId::List || t.id() == TypeId::Map) for (const char* f : {"+l", "+m"}) out.push_back(f);
  return out;
}

void collect_schemas(ArrowSchema* s, std::vector<ArrowSchema*>& out) {
  out.push_back(s);
  for (int64_t i = 0; i < s->n_children; ++i) collect_schemas(s->children[i], out);
  if (s->dictionary) collect_schemas(s->dictionary, out);
}

int g_schema_releases = 0;
void (*g_ember_schema_release)(ArrowSchema*) = nullptr;
void counting_schema_release(ArrowSchema* s) {
  g_ember_schema_release(s);
  ++g_schema_releases;
}

void touch(const Column& c, bool utf8) {
  (void)c.to_values();
  (void)c.to_string(1000);
  for (int64_t i = 0; i < c.size(); ++i) (void)c.get_value(i);
  if (c.dtype().id() == TypeId::Struct)
    for (int64_t k = 0; k < c.num_fields(); ++k) (void)c.field(k).to_values();
  try {
    c.data()->validate({utf8});
  } catch (const Error& e) {
    fuzz::fail(std::string("c_data: an imported column fails validate(): ") + e.what());
  }
}

// Exports `col`, copies it into guarded memory, mutates it and imports it.
void import_mutated(const Column& col, FuzzedDataProvider& fdp) {
  Mutator m{fdp};
  ArrowArray exported;
  export_column(col, &exported);
  auto root = copy_tree(exported, col.dtype());
  exported.release(&exported);
  Node* root_ptr = root.get();
  root_ptr->arr.release = &release_root;
  root_ptr->arr.private_data = root.release();

  ArrowSchema schema;
  export_type(col.dtype(), &schema);
  g_ember_schema_release = schema.release;
  schema.release = &counting_schema_release;

  std::vector<Node*> nodes;
  collect(root_ptr, nodes);
  const int64_t n_mut = m.rand(0, 4);
  for (int64_t i = 0; i < n_mut; ++i) m.mutate(*nodes[size_t(m.rand(0, int64_t(nodes.size()) - 1))]);
  std::vector<ArrowSchema*> schemas;
  collect_schemas(&schema, schemas);
  switch (m.rand(0, 3)) {
    case 1: schemas[size_t(m.rand(0, int64_t(schemas.size()) - 1))]->flags ^= ARROW_FLAG_NULLABLE; break;
    case 2: {
      const auto swaps = format_swaps(col.dtype());
      schemas[0]->format = swaps[size_t(m.rand(0, int64_t(swaps.size()) - 1))];
      break;
    }
    case 3: {
      // Child schemas: only formats that cannot widen any layout.
      static const char* garbage[] = {"", "q", "+", "ts", "e", "+w:2", "n", "tdm"};
      if (schemas.size() > 1) schemas[size_t(m.rand(1, int64_t(schemas.size()) - 1))]->format = garbage[m.rand(0, 7)];
      break;
    }
    default: break;
  }
  for (Node* n : nodes) n->arr.buffers = n->buffers.data();
  Mutator::fix_up(*root_ptr);

  const int releases = g_releases, schema_releases = g_schema_releases;
  const bool utf8 = m.rand(0, 1) == 1;
  try {
    touch(import_column(&root_ptr->arr, &schema, ImportOptions{utf8}), utf8);
  } catch (const Error&) {
  }
  if (g_releases != releases + 1) fuzz::fail("c_data: the array was not released exactly once");
  if (g_schema_releases != schema_releases + 1) fuzz::fail("c_data: the schema was not released exactly once");
}

// ---- schemas from fuzz bytes (import_type reads only strings and the tree) --------------
struct SchemaNode {
  std::string format, name;
  ArrowSchema s{};
  std::vector<std::unique_ptr<SchemaNode>> children;
  std::vector<ArrowSchema*> child_ptrs;
  std::unique_ptr<SchemaNode> dict;
};

int g_built_schema_releases = 0;
void release_built_schema(ArrowSchema* s) {
  auto* root = static_cast<SchemaNode*>(s->private_data);
  s->release = nullptr;  // `s` lives in `root`
  delete root;
  ++g_built_schema_releases;
}
void release_built_child(ArrowSchema* s) { s->release = nullptr; }

std::unique_ptr<SchemaNode> build_schema(FuzzedDataProvider& fdp, int depth) {
  static const char* formats[] = {"b", "c", "C", "s", "S", "i", "I", "l", "L", "f", "g", "u", "U", "z", "Z",
                                  "tdD", "tsu:", "tsn:UTC", "tss:", "tsm:Asia/Tokyo", "+l", "+L", "+s", "+m",
                                  "n", "e", "+w:2", "d:10,2", "w:4", "tdm", "+ud:0,1", "vu"};
  auto n = std::make_unique<SchemaNode>();
  if (fdp.ConsumeBool()) n->format = formats[fdp.ConsumeIntegralInRange<size_t>(0, std::size(formats) - 1)];
  else n->format = fdp.ConsumeRandomLengthString(12);
  n->name = fdp.ConsumeRandomLengthString(6);
  n->s.format = n->format.c_str();
  n->s.name = fdp.ConsumeBool() ? nullptr : n->name.c_str();
  n->s.metadata = nullptr;
  n->s.flags = fdp.ConsumeIntegralInRange<int64_t>(0, 7);
  const int64_t kids = depth < 4 ? fdp.ConsumeIntegralInRange<int64_t>(0, 3) : 0;
  for (int64_t i = 0; i < kids; ++i) {
    n->children.push_back(build_schema(fdp, depth + 1));
    n->child_ptrs.push_back(&n->children.back()->s);
  }
  n->s.n_children = kids;
  n->s.children = kids ? n->child_ptrs.data() : nullptr;
  if (depth < 4 && fdp.ConsumeIntegralInRange<int>(0, 5) == 0) n->dict = build_schema(fdp, depth + 1);
  n->s.dictionary = n->dict ? &n->dict->s : nullptr;
  n->s.release = &release_built_child;
  n->s.private_data = nullptr;
  return n;
}

void import_built_schema(FuzzedDataProvider& fdp) {
  std::unique_ptr<SchemaNode> root = build_schema(fdp, 0);
  ArrowSchema* s = &root->s;
  s->release = &release_built_schema;
  s->private_data = root.release();
  const int before = g_built_schema_releases;
  try {
    std::string name;
    const DType t = import_type(s, &name);
    (void)t.to_string();
  } catch (const Error&) {
  }
  if (g_built_schema_releases != before + 1) fuzz::fail("c_data: a built schema was not released exactly once");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::setup();
  if (size < 2) return 0;
  static const auto fixtures = frame::test::fixtures();
  switch (data[0] % 3) {
    case 0: {
      FuzzedDataProvider fdp(data + 2, size - 2);
      import_mutated(fixtures[data[1] % fixtures.size()].second, fdp);
      break;
    }
    case 1: {
      if (size < 3) return 0;
      const size_t len = std::min<size_t>(size - 3, size_t(data[1]) | size_t(data[2]) << 8);
      FuzzedDataProvider fdp(data + 3 + len, size - 3 - len);
      std::vector<Column> columns;
      try {
        IpcStreamReader r(Buffer::copy_of(data + 3, int64_t(len)), "fuzz input");
        while (auto b = r.next())
          for (int64_t c = 0; c < b->num_columns() && columns.size() < 8; ++c) columns.push_back(b->column(c));
      } catch (const Error&) {
      }
      for (const Column& c : columns) import_mutated(c, fdp);
      break;
    }
    default: {
      FuzzedDataProvider fdp(data + 1, size - 1);
      import_built_schema(fdp);
      break;
    }
  }
  return 0;
}
