#include "ember/data/io/archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <locale.h>

#include <algorithm>
#include <cstring>

#include "ember/core/error.h"
#include "ember/data/io/decompress.h"
#include "ember/data/io/libarchive_source.h"

namespace ember::data::io {

namespace detail {

// Passes a stream through, keeping its last bytes (a zip's closing record).
class TailStream final : public InputStream {
 public:
  explicit TailStream(StreamPtr s) : s_(std::move(s)) {}
  const std::string& name() const override { return s_->name(); }
  const std::string& tail() const { return tail_; }

 protected:
  size_t read_some(char* buf, size_t n) override {
    const size_t k = s_->read(buf, n);
    if (k >= kKeep) {
      tail_.assign(buf + k - kKeep, kKeep);
    } else {
      tail_.append(buf, k);
      if (tail_.size() > 2 * kKeep) tail_.erase(0, tail_.size() - kKeep);
    }
    return k;
  }

 private:
  static constexpr size_t kKeep = 65536 + 22;  // the longest comment and the record
  StreamPtr s_;
  std::string tail_;
};

// What the reader and its member streams share. `generation` counts next() calls: a member
// stream remembers the generation it was made in and refuses to read once it has moved on
// (Note [Archive member lifetime]).
struct ArchiveState {
  ArchiveState(StreamPtr s, ArchiveType t) : source(nullptr), type(t) {
    if (t == ArchiveType::kZip) {
      tail = std::make_shared<TailStream>(std::move(s));
      source.stream = tail;
    } else {
      source.stream = std::move(s);
    }
  }
  ~ArchiveState() {
    if (a) archive_read_free(a);
  }
  const std::string& name() const { return display_name.empty() ? source.stream->name() : display_name; }
  const char* op() const { return type == ArchiveType::kTar ? "load_from_tar" : "load_from_zip"; }
  [[noreturn]] void fail(const std::string& what) { source.fail(a, op(), "'" + name() + "': " + what, true); }
  // After the last member: reads what follows to its end, so that a compressed tar's
  // checksums and a zip's closing records are checked too (libarchive stops at the end
  // marker, and Python's tarfile does not check beyond it either).
  void drain();

  ArchiveSource source;
  ArchiveType type;
  std::shared_ptr<TailStream> tail;  // zip only
  std::string display_name;          // overrides the stream's name when set
  struct archive* a = nullptr;
  uint64_t generation = 0;
  bool ended = false;
  std::string member;  // the path of the last member handed out
};

void ArchiveState::drain() {
  std::unique_ptr<char[]> buf(new char[1 << 16]);
  while (source.stream->read(buf.get(), 1 << 16)) {
  }
  if (type != ArchiveType::kZip) return;
  // The end-of-central-directory record: 22 bytes and a comment that ends the file.
  const std::string& t = tail->tail();
  bool found = false;
  for (size_t p = t.size() >= 22 ? t.size() - 22 + 1 : 0; p-- > 0;) {
    if (t.compare(p, 4, "PK\x05\x06") != 0) continue;
    const size_t comment = size_t((unsigned char)t[p + 20]) | size_t((unsigned char)t[p + 21]) << 8;
    found = p + 22 + comment == t.size();
    break;
  }
  EMBER_CHECK(found, op(), ": '", name(),
              "': truncated zip archive (it does not end with an end-of-central-directory record)");
}

}  // namespace detail

namespace {

// Note [Member names are UTF-8]: libarchive converts member names to the charset of the
// current locale, and in the default "C" locale a non-ASCII name (as Python's zipfile and
// tarfile write them) cannot be converted and comes back null. Every libarchive call that
// reads names runs under a thread-local UTF-8 locale instead, so names arrive as the UTF-8
// bytes the archive holds, whatever the process locale.
class Utf8Locale {
 public:
  Utf8Locale() {
    static locale_t utf8 = [] {
      locale_t l = newlocale(LC_CTYPE_MASK, "C.UTF-8", locale_t(0));
      return l ? l : newlocale(LC_CTYPE_MASK, "en_US.UTF-8", locale_t(0));
    }();
    if (utf8) old_ = uselocale(utf8);
  }
  ~Utf8Locale() {
    if (old_) uselocale(old_);
  }
  Utf8Locale(const Utf8Locale&) = delete;
  Utf8Locale& operator=(const Utf8Locale&) = delete;

 private:
  locale_t old_ = locale_t(0);
};

// `prefix` (bytes already read to sniff the format) followed by the rest of `rest`.
class PrefixStream final : public InputStream {
 public:
  PrefixStream(std::string prefix, StreamPtr rest) : prefix_(std::move(prefix)), rest_(std::move(rest)) {}
  const std::string& name() const override { return rest_->name(); }

 protected:
  size_t read_some(char* buf, size_t n) override {
    if (pos_ < prefix_.size()) {
      const size_t k = std::min(n, prefix_.size() - pos_);
      std::memcpy(buf, prefix_.data() + pos_, k);
      pos_ += k;
      return k;
    }
    return rest_->read(buf, n);
  }

 private:
  std::string prefix_;
  size_t pos_ = 0;
  StreamPtr rest_;
};

// Note [Member sizes]: a member holds the bytes stored in the archive, never what a header
// claims beyond them. libarchive honours a tar header's GNU "realsize" field (offset 483)
// even on a regular member and then reports the member as that long, and archive_read_data
// zero-fills the claimed rest: a 10 KB tar streamed zeros without end. Members are read by
// data block instead: the stored blocks are the content, a claim past the last block is
// ignored (as GNU tar does for regular members), and the holes of a genuinely sparse
// member are zero-filled only up to kMaxSparseFill bytes per member.
class MemberStream final : public InputStream {
 public:
  static constexpr int64_t kMaxSparseFill = int64_t(1) << 30;  // documented hard limit: 1 GiB of holes

  MemberStream(std::shared_ptr<detail::ArchiveState> st, std::string name, std::string member)
      : st_(std::move(st)), gen_(st_->generation), name_(std::move(name)), member_(std::move(member)) {}
  const std::string& name() const override { return name_; }

 protected:
  size_t read_some(char* buf, size_t n) override {
    EMBER_CHECK(st_->a && st_->generation == gen_, st_->op(), ": member '", member_, "' of '", st_->name(),
                "' was read after the archive moved on to another member; a member's stream is valid only "
                "until the next member is requested, so read it (or read_all() it) first");
    if (n == 0) return 0;
    while (block_left_ == 0) {
      if (done_) return 0;
      const void* data = nullptr;
      size_t size = 0;
      la_int64_t offset = 0;
      const int r = archive_read_data_block(st_->a, &data, &size, &offset);
      if (r == ARCHIVE_EOF) {
        done_ = true;  // any size claimed past the last stored block is not content
        return 0;
      }
      if (r != ARCHIVE_OK) st_->fail("cannot read member '" + member_ + "'");  // a warning too (a bad CRC)
      EMBER_CHECK(offset >= position_, st_->op(), ": '", st_->name(), "': member '", member_,
                  "' has data blocks out of order (offset ", offset, " after ", position_, ")");
      hole_left_ = offset - position_;
      filled_ += hole_left_;
      EMBER_CHECK(filled_ <= kMaxSparseFill, st_->op(), ": '", st_->name(), "': member '", member_,
                  "' is a sparse file whose holes exceed ", kMaxSparseFill,
                  " bytes (the limit on zeros ember fills in for bytes the archive does not store)");
      block_ = static_cast<const char*>(data);
      block_left_ = size + size_t(hole_left_);
      position_ = offset + la_int64_t(size);
    }
    size_t k = std::min(n, block_left_);
    if (hole_left_ > 0) {
      k = std::min<size_t>(k, size_t(hole_left_));
      std::memset(buf, 0, k);
      hole_left_ -= int64_t(k);
    } else {
      std::memcpy(buf, block_, k);
      block_ += k;
    }
    block_left_ -= k;
    return k;
  }

 private:
  std::shared_ptr<detail::ArchiveState> st_;
  uint64_t gen_;
  std::string name_, member_;
  const char* block_ = nullptr;  // the rest of the current data block (after its hole)
  size_t block_left_ = 0;        // hole + data bytes still to hand out
  int64_t hole_left_ = 0;        // zeros to hand out before block_
  int64_t position_ = 0;         // member offset just past the current block
  int64_t filled_ = 0;           // zeros filled so far
  bool done_ = false;
};

}  // namespace

const char* archive_type_name(ArchiveType t) { return t == ArchiveType::kTar ? "tar" : "zip"; }

ArchiveReader::ArchiveReader(StreamPtr archive, ArchiveType type, std::string name) {
  EMBER_CHECK(archive, type == ArchiveType::kTar ? "load_from_tar" : "load_from_zip", ": null stream");
  if (type == ArchiveType::kTar) {
    // A compressed tar is unwrapped by io::decompress: its gzip reader checks the CRC that
    // libarchive's skips, and draining it at the end verifies the whole compressed stream.
    std::string head(6, '\0');
    size_t got = 0;
    while (got < head.size()) {
      const size_t k = archive->read(head.data() + got, head.size() - got);
      if (k == 0) break;
      got += k;
    }
    head.resize(got);
    archive = std::make_shared<PrefixStream>(head, std::move(archive));
    auto starts = [&](std::string_view magic) { return std::string_view(head).substr(0, magic.size()) == magic; };
    if (starts("\x1f\x8b")) archive = decompress(std::move(archive), Compression::kGzip);
    else if (starts("BZh")) archive = decompress(std::move(archive), Compression::kBz2);
    else if (starts(std::string_view("\xfd" "7zXZ\0", 6))) archive = decompress(std::move(archive), Compression::kXz);
    else if (starts("\x28\xb5\x2f\xfd")) archive = decompress(std::move(archive), Compression::kZstd);
  }
  state_ = std::make_shared<detail::ArchiveState>(std::move(archive), type);
  state_->display_name = std::move(name);
  struct archive* a = archive_read_new();
  EMBER_CHECK(a, state_->op(), ": out of memory");
  state_->a = a;
  if (type == ArchiveType::kTar) {
    archive_read_support_format_tar(a);
    archive_read_support_filter_bzip2(a);
    archive_read_support_filter_xz(a);
    archive_read_support_filter_lzma(a);
    archive_read_support_filter_zstd(a);
  } else {
    archive_read_support_format_zip(a);
  }
  Utf8Locale utf8;
  if (state_->source.open(a) != ARCHIVE_OK) state_->fail(std::string("not a readable ") + archive_type_name(type) + " archive");
}

ArchiveReader::~ArchiveReader() {
  if (state_ && state_->a) {
    archive_read_free(state_->a);
    state_->a = nullptr;  // member streams still held somewhere now refuse to read
  }
}

const std::string& ArchiveReader::name() const { return state_->name(); }

std::optional<std::pair<std::string, StreamPtr>> ArchiveReader::next() {
  detail::ArchiveState& st = *state_;
  ++st.generation;
  if (st.ended) return std::nullopt;
  EMBER_CHECK(st.a, st.op(), ": '", st.name(), "': reading after an earlier error");
  Utf8Locale utf8;
  for (;;) {
    struct archive_entry* e = nullptr;
    const int r = archive_read_next_header(st.a, &e);
    if (r == ARCHIVE_EOF) {
      st.ended = true;
      st.drain();
      return std::nullopt;
    }
    if (r < ARCHIVE_WARN)
      st.fail(st.member.empty() ? std::string("corrupt or truncated archive at its first member")
                                : "corrupt or truncated archive after member '" + st.member + "'");
    if (archive_entry_filetype(e) != AE_IFREG || archive_entry_hardlink(e)) continue;
    const char* path = archive_entry_pathname_utf8(e);
    if (!path) path = archive_entry_pathname(e);
    EMBER_CHECK(path, st.op(), ": '", st.name(), "': a member after '", st.member, "' has an unreadable name");
    st.member = path;
    std::string full = st.name() + "/" + st.member;
    StreamPtr s = std::make_shared<MemberStream>(state_, full, st.member);
    return std::make_pair(std::move(full), std::move(s));
  }
}

}  // namespace ember::data::io
