// Fuzzing import_column: exported arrays of every type are copied into blocks that end
// exactly at a PROT_NONE guard page (so any read past a buffer faults, with or without
// valgrind), mutated (lengths, offsets, null counts, buffer pointers, offsets contents,
// dictionary indices, bytes, formats, flags), and imported. Every import must either raise
// ember::Error or give a column whose every element can be read; the harness's release
// must run exactly once per attempt.
//
// The C Data Interface carries no buffer sizes, so a consumer must trust that buffers hold
// what length + offset (and a binary array's last offset) say. The mutations therefore
// never claim more memory than the harness allocated: lengths only shrink, offsets shift
// within the original range, and a binary array's last offset stays within its bytes.
// Everything else is fair game.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>

#include "ember/frame/frame.h"
#include "frame/frame_fixtures.h"
#include "test_util.h"

namespace ember::frame {
namespace {

namespace dt = dtypes;

// A block of `size` bytes that ends where a PROT_NONE page begins.
class GuardedBlock {
 public:
  GuardedBlock(const void* src, int64_t size, int64_t slack = 0) {
    const size_t page = size_t(::sysconf(_SC_PAGESIZE));
    const size_t need = size_t(size + slack);
    pages_ = (need + page - 1) / page + 1;
    base_ = static_cast<uint8_t*>(::mmap(nullptr, pages_ * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    EXPECT_NE(base_, MAP_FAILED);
    uint8_t* guard = base_ + (pages_ - 1) * page;
    EXPECT_EQ(::mprotect(guard, page, PROT_NONE), 0);
    data_ = guard - size - slack;
    if (size > 0) std::memcpy(data_, src, size_t(size));
    bytes_ = size_t(pages_ * page);
  }
  ~GuardedBlock() { ::munmap(base_, bytes_); }
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
  // i == 2: a binary-like array's bytes end at its last offset.
  return osize == 8 ? static_cast<const int64_t*>(a.buffers[1])[end] : static_cast<const int32_t*>(a.buffers[1])[end];
}

// The harness's copy of an exported array tree.
struct Node {
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
  auto n = std::make_unique<Node>(Node{t});
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

struct Fuzzer {
  std::mt19937_64 rng{0x5eed};
  int64_t rand(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); }

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
        if (n.type.id() == TypeId::Dictionary && n.buffers[1] && n.sizes[1] > 0) {
          auto* p = static_cast<uint8_t*>(const_cast<void*>(n.buffers[1]));
          p[rand(0, n.sizes[1] - 1)] = uint8_t(rand(0, 255));
        }
        break;
      case 9: {
        // Random bytes anywhere: validity bits, values, string bytes.
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
  void clamp_last(Node& n) {
    const ArrowArray& a = n.arr;
    if (n.buffers.size() < 3 || n.buffers[1] == nullptr) return;
    const int64_t end = a.offset + a.length;
    if (end < 0 || (end + 1) * int64_t(sizeof(O)) > n.sizes[1]) return;
    O* o = static_cast<O*>(const_cast<void*>(n.buffers[1]));
    if (int64_t(o[end]) > n.sizes[2]) o[end] = O(n.sizes[2]);
  }

  void fix_up(Node& n) {
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

TEST(FrameCDataFuzz, ImportNeverReadsOutOfBounds) {
  Fuzzer fz;
  const auto fixtures = test::fixtures();
  int64_t attempts = 0, imported = 0;
  const int rounds = std::getenv("EMBER_FUZZ_ROUNDS") ? std::atoi(std::getenv("EMBER_FUZZ_ROUNDS")) : 120;
  g_releases = g_schema_releases = 0;
  for (int round = 0; round < rounds; ++round) {
    for (const auto& [name, col] : fixtures) {
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
      const int64_t n_mut = fz.rand(1, 3);
      for (int64_t m = 0; m < n_mut; ++m) fz.mutate(*nodes[size_t(fz.rand(0, int64_t(nodes.size()) - 1))]);
      // Now and then a schema mutation: a format, or a nullable flag.
      std::vector<ArrowSchema*> schemas;
      collect_schemas(&schema, schemas);
      std::vector<DType> node_types;
      if (fz.rand(0, 3) == 0) {
        const size_t k = size_t(fz.rand(0, int64_t(schemas.size()) - 1));
        if (fz.rand(0, 1)) {
          schemas[k]->flags ^= ARROW_FLAG_NULLABLE;
        } else if (k == 0) {
          const auto swaps = format_swaps(col.dtype());
          schemas[k]->format = swaps[size_t(fz.rand(0, int64_t(swaps.size()) - 1))];
        } else {
          // Child schemas: only formats that cannot widen any layout.
          const char* garbage[] = {"", "q", "+", "ts", "e", "+w:2", "n", "tdm"};
          schemas[k]->format = garbage[fz.rand(0, 7)];
        }
      }
      for (Node* n : nodes) n->arr.buffers = n->buffers.data();
      fz.fix_up(*root_ptr);

      ++attempts;
      const bool utf8 = fz.rand(0, 1) == 1;
      try {
        Column c = import_column(&root_ptr->arr, &schema, ImportOptions{utf8});
        ++imported;
        // Read every element, through every path a user has.
        (void)c.to_values();
        (void)c.to_string(1000);
        for (int64_t i = 0; i < c.size(); ++i) (void)c.get_value(i);
        if (c.dtype().id() == TypeId::Struct)
          for (int64_t k = 0; k < c.num_fields(); ++k) (void)c.field(k).to_values();
        EXPECT_NO_THROW(c.data()->validate({utf8})) << name;
      } catch (const Error&) {
      }
      ASSERT_EQ(g_releases, attempts) << name << ": the array was not released exactly once";
      ASSERT_EQ(g_schema_releases, attempts) << name << ": the schema was not released exactly once";
    }
  }
  // Both outcomes happen often enough to mean something.
  EXPECT_GT(imported, attempts / 10);
  EXPECT_LT(imported, attempts * 9 / 10);
  std::printf("fuzz: %lld imports attempted, %lld accepted\n", static_cast<long long>(attempts),
              static_cast<long long>(imported));
}

TEST(FrameCDataFuzz, SpecificHostileArraysAreRejected) {
  // Targeted cases the fuzzer may or may not hit: each must fail with its own message.
  auto attempt = [](const Column& col, const std::function<void(Node&)>& mutate, const std::string& msg) {
    ArrowArray exported;
    export_column(col, &exported);
    auto root = copy_tree(exported, col.dtype());
    exported.release(&exported);
    mutate(*root);
    root->arr.buffers = root->buffers.data();
    Node* raw = root.get();
    raw->arr.release = &release_root;
    raw->arr.private_data = root.release();
    const int before = g_releases;
    EXPECT_ERROR_WITH(import_column(&raw->arr, col.dtype()), msg);
    EXPECT_EQ(g_releases, before + 1);
  };
  const Column s = column({"ab", "c", "def"});
  attempt(s, [](Node& n) { static_cast<int32_t*>(const_cast<void*>(n.buffers[1]))[2] = 1; },
          "offsets decrease at element 1 (2 then 1)");
  attempt(s, [](Node& n) { static_cast<int32_t*>(const_cast<void*>(n.buffers[1]))[0] = -2; }, "offset 0 is negative (-2)");
  attempt(s, [](Node& n) { static_cast<uint8_t*>(const_cast<void*>(n.buffers[2]))[1] = 0xff; },
          "element 0 is not valid UTF-8 (byte 1 of 2)");
  attempt(s, [](Node& n) { n.buffers[2] = nullptr; }, "the data buffer (buffer 2) is NULL");
  attempt(s, [](Node& n) { n.buffers[1] = nullptr; }, "the offsets buffer (buffer 1) is NULL");
  attempt(s, [](Node& n) { n.arr.n_buffers = 2; }, "has 2 buffers; its Arrow layout has 3");
  attempt(s, [](Node& n) { n.arr.length = -1; }, "bad length -1");
  attempt(s, [](Node& n) { n.arr.null_count = 4; }, "bad null_count 4");
  const Column l = column(std::vector<std::vector<int64_t>>{{1}, {2, 3}});
  attempt(l, [](Node& n) { n.children[0]->arr.length = 2; }, "the last offset 3 is past the end of the child array (2)");
  attempt(l, [](Node& n) { n.arr.n_children = 0; }, "has 0 children; the schema says 1");
  const Column d = column({"x", "y", "x"}).dictionary_encode();
  attempt(d, [](Node& n) { static_cast<int32_t*>(const_cast<void*>(n.buffers[1]))[1] = 5; },
          "dictionary index 5 at element 1 is outside the dictionary of length 2");
  attempt(d, [](Node& n) { n.arr.dictionary = nullptr; }, "the dictionary is NULL");
  const Column st = struct_column({{"a", column({1, 2})}});
  attempt(st, [](Node& n) { n.children[0]->arr.length = 1; }, "field 'a' has length 1; offset + length needs 2");
  const Column nn = column({1, std::nullopt});
  attempt(nn, [](Node& n) { n.buffers[0] = nullptr; }, "null_count is 1 but the validity bitmap is NULL");
  attempt(nn, [](Node& n) { n.arr.null_count = 2; }, "null_count is 2 but the validity bitmap has 1 nulls");
}

}  // namespace
}  // namespace ember::frame
