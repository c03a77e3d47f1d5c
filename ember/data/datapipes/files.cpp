// The file DataPipes' nodes. Each holds its per-epoch readers in a PerEpoch slot, so that a
// clone (a worker's copy of the graph) starts with none and the node stays copyable.
#include "ember/data/datapipes/files.h"

#include <deque>
#include <filesystem>

#include "ember/data/io/archive.h"
#include "ember/data/io/decompress.h"
#include "ember/data/io/files.h"
#include "ember/data/io/hash.h"
#include "ember/data/io/json_file.h"
#include "ember/data/io/lines.h"

namespace ember::data::datapipes {

namespace {

// A per-epoch object: copies start empty (a clone begins its own epoch).
template <class T>
struct PerEpoch {
  std::unique_ptr<T> p;
  PerEpoch() = default;
  PerEpoch(const PerEpoch&) {}
  PerEpoch& operator=(const PerEpoch&) {
    p.reset();
    return *this;
  }
  T* operator->() const { return p.get(); }
  explicit operator bool() const { return p != nullptr; }
};

// A node with one input.
template <class Self, class In, class Out>
class OneInput : public IterNodeImpl<Self, Out> {
 public:
  explicit OneInput(std::shared_ptr<IterNode<In>> src) : src_(std::move(src)) {
    EMBER_CHECK(src_, "DataPipe: null source pipe");
  }
  std::vector<NodeBase*> children() const override { return {src_.get()}; }
  void rebind(CloneContext& ctx) { src_ = ctx.clone(src_); }

 protected:
  std::optional<In> pull_src() { return this->pull(*src_); }
  std::shared_ptr<IterNode<In>> src_;
};

// ---- FileLister ----------------------------------------------------------------------

class FileListerNode final : public IterNodeImpl<FileListerNode, std::string> {
 public:
  FileListerNode(std::vector<std::string> roots, std::shared_ptr<IterNode<std::string>> src,
                 std::vector<std::string> masks, bool recursive, bool abspath)
      : roots_(std::move(roots)), src_(std::move(src)), masks_(std::move(masks)), recursive_(recursive),
        abspath_(abspath) {}
  const char* name() const override { return "FileLister"; }
  std::vector<NodeBase*> children() const override {
    if (src_) return {src_.get()};
    return {};
  }
  void rebind(CloneContext& ctx) { src_ = ctx.clone(src_); }
  void reset() override {
    next_root_ = 0;
    listing_.clear();
    pos_ = 0;
  }
  std::optional<std::string> next() override {
    while (pos_ >= listing_.size()) {
      std::optional<std::string> root;
      if (src_) {
        root = pull(*src_);
      } else if (next_root_ < roots_.size()) {
        root = roots_[next_root_++];
      }
      if (!root) return std::nullopt;
      listing_ = io::list_files(*root, masks_, recursive_, abspath_);
      pos_ = 0;
    }
    return std::move(listing_[pos_++]);
  }

 private:
  std::vector<std::string> roots_;
  std::shared_ptr<IterNode<std::string>> src_;
  std::vector<std::string> masks_;
  bool recursive_, abspath_;
  size_t next_root_ = 0;
  std::vector<std::string> listing_;
  size_t pos_ = 0;
};

// ---- FileOpener ----------------------------------------------------------------------

class FileOpenerNode final : public OneInput<FileOpenerNode, std::string, StreamElement> {
 public:
  using OneInput::OneInput;
  const char* name() const override { return "FileOpener"; }
  std::optional<StreamElement> next() override {
    auto path = pull_src();
    if (!path) return std::nullopt;
    io::StreamPtr s = io::file_stream(*path);
    return StreamElement(std::move(*path), std::move(s));
  }
};

// ---- readlines -----------------------------------------------------------------------

class LineReaderNode final : public OneInput<LineReaderNode, StreamElement, std::pair<std::string, std::string>> {
 public:
  LineReaderNode(std::shared_ptr<IterNode<StreamElement>> src, bool strip, int64_t skip)
      : OneInput(std::move(src)), strip_(strip), skip_(skip) {
    EMBER_CHECK(skip >= 0, "readlines: skip_lines must be >= 0, got ", skip);
  }
  const char* name() const override { return "LineReader"; }
  void reset() override { reader_.p.reset(); }
  std::optional<std::pair<std::string, std::string>> next() override {
    std::string line;
    for (;;) {
      if (!reader_) {
        auto e = pull_src();
        if (!e) return std::nullopt;
        path_ = std::move(e->first);
        reader_.p = std::make_unique<io::LineReader>(std::move(e->second));
        for (int64_t i = 0; i < skip_ && reader_->next(line); ++i) {
        }
      }
      if (reader_->next(line)) {
        if (strip_) io::strip_newlines(line);
        return std::pair<std::string, std::string>(path_, std::move(line));
      }
      reader_.p.reset();
    }
  }

 private:
  bool strip_;
  int64_t skip_;
  std::string path_;
  PerEpoch<io::LineReader> reader_;
};

// ---- parse_csv / parse_csv_as_dict ---------------------------------------------------

class CsvParserNode final : public OneInput<CsvParserNode, StreamElement, std::vector<std::string>> {
 public:
  CsvParserNode(std::shared_ptr<IterNode<StreamElement>> src, io::CsvOptions opt)
      : OneInput(std::move(src)), opt_(opt) {}
  const char* name() const override { return "CSVParser"; }
  void reset() override { reader_.p.reset(); }
  std::optional<std::vector<std::string>> next() override {
    for (;;) {
      if (!reader_) {
        auto e = pull_src();
        if (!e) return std::nullopt;
        reader_.p = std::make_unique<io::CsvReader>(std::move(e->second), opt_);
      }
      // Rows leave by value: give each one the previous row's width up front, so that
      // filling it costs one allocation (short fields live inside their strings).
      std::vector<std::string> row;
      row.reserve(width_ + 1);
      if (reader_->next(row)) {
        width_ = row.size();
        return row;
      }
      reader_.p.reset();
    }
  }

 private:
  io::CsvOptions opt_;
  PerEpoch<io::CsvReader> reader_;
  size_t width_ = 0;
};

class CsvDictParserNode final : public OneInput<CsvDictParserNode, StreamElement, io::CsvDictRow> {
 public:
  CsvDictParserNode(std::shared_ptr<IterNode<StreamElement>> src, io::CsvOptions opt)
      : OneInput(std::move(src)), opt_(opt) {}
  const char* name() const override { return "CSVDictParser"; }
  void reset() override { reader_.p.reset(); }
  std::optional<io::CsvDictRow> next() override {
    for (;;) {
      if (!reader_) {
        auto e = pull_src();
        if (!e) return std::nullopt;
        reader_.p = std::make_unique<io::CsvDictReader>(std::move(e->second), opt_);
      }
      io::CsvDictRow row;
      if (reader_->next(row)) return row;
      reader_.p.reset();
    }
  }

 private:
  io::CsvOptions opt_;
  PerEpoch<io::CsvDictReader> reader_;
};

// ---- parse_json_files ----------------------------------------------------------------

class JsonParserNode final
    : public OneInput<JsonParserNode, StreamElement, std::pair<std::string, json::Value>> {
 public:
  using OneInput::OneInput;
  const char* name() const override { return "JsonParser"; }
  std::optional<std::pair<std::string, json::Value>> next() override {
    auto e = pull_src();
    if (!e) return std::nullopt;
    EMBER_CHECK(e->second, "parse_json_files: '", e->first, "' has no stream");
    json::Value v = io::parse_json_stream(*e->second);
    return std::pair<std::string, json::Value>(std::move(e->first), std::move(v));
  }
};

// ---- load_from_tar / load_from_zip ---------------------------------------------------

class ArchiveLoaderNode final : public OneInput<ArchiveLoaderNode, StreamElement, StreamElement> {
 public:
  ArchiveLoaderNode(std::shared_ptr<IterNode<StreamElement>> src, io::ArchiveType type)
      : OneInput(std::move(src)), type_(type) {}
  const char* name() const override { return type_ == io::ArchiveType::kTar ? "TarArchiveLoader" : "ZipArchiveLoader"; }
  void reset() override { reader_.p.reset(); }
  std::optional<StreamElement> next() override {
    for (;;) {
      if (!reader_) {
        auto e = pull_src();
        if (!e) return std::nullopt;
        reader_.p = std::make_unique<io::ArchiveReader>(std::move(e->second), type_, std::move(e->first));
      }
      if (auto m = reader_->next()) return std::move(*m);
      reader_.p.reset();
    }
  }

 private:
  io::ArchiveType type_;
  PerEpoch<io::ArchiveReader> reader_;
};

// ---- decompress ----------------------------------------------------------------------

class DecompressorNode final : public OneInput<DecompressorNode, StreamElement, StreamElement> {
 public:
  DecompressorNode(std::shared_ptr<IterNode<StreamElement>> src, std::string type)
      : OneInput(std::move(src)), type_(std::move(type)) {
    if (!type_.empty()) io::compression_from_name(type_);  // an unknown name fails here
  }
  const char* name() const override { return "Decompressor"; }
  std::optional<StreamElement> next() override {
    auto e = pull_src();
    if (!e) return std::nullopt;
    io::Compression c;
    if (type_.empty()) {
      const auto inferred = io::compression_from_path(e->first);
      EMBER_CHECK(inferred, "decompress: cannot infer the compression of '", e->first,
                  "' from its extension (expected .gz, .bz2, .xz, .lzma or .zst); pass file_type");
      c = *inferred;
    } else {
      c = io::compression_from_name(type_);
    }
    e->second = io::decompress(std::move(e->second), c);
    return e;
  }

 private:
  std::string type_;
};

// ---- save_to_disk ----------------------------------------------------------------------

std::string bytes_of(std::string&& s) { return std::move(s); }
std::string bytes_of(io::StreamPtr&& s) {
  EMBER_CHECK(s, "save_to_disk: null stream");
  return s->read_all();
}

template <class X>
class SaverNode final : public OneInput<SaverNode<X>, std::pair<std::string, X>, std::string> {
 public:
  SaverNode(std::shared_ptr<IterNode<std::pair<std::string, X>>> src, FilepathFn fn)
      : OneInput<SaverNode<X>, std::pair<std::string, X>, std::string>(std::move(src)), fn_(std::move(fn)) {}
  const char* name() const override { return "Saver"; }
  std::optional<std::string> next() override {
    auto e = this->pull_src();
    if (!e) return std::nullopt;
    std::string path = fn_ ? fn_(e->first) : e->first;
    io::write_file(path, bytes_of(std::move(e->second)));
    return path;
  }

 private:
  FilepathFn fn_;
};

// ---- check_hash ------------------------------------------------------------------------

[[noreturn]] void hash_mismatch(const std::string& path, const std::string& type, const std::string& got,
                                const std::string& want) {
  EMBER_ERROR("check_hash: the ", type, " digest of '", path, "' is ", got, " but ", want,
              " was expected (delete the file and retry if it is a cached download)");
}

const std::string& expected_hash(const std::map<std::string, std::string>& dict, const std::string& path) {
  auto it = dict.find(path);
  EMBER_CHECK(it != dict.end(), "check_hash: no hash given for '", path, "' (hash_dict has ", dict.size(),
              " entries)");
  return it->second;
}

// Hashes what passes through and checks it when the end is read.
class VerifyingStream final : public io::InputStream {
 public:
  VerifyingStream(io::StreamPtr s, std::string path, std::string type, std::string want)
      : s_(std::move(s)), path_(std::move(path)), want_(std::move(want)), hasher_(type) {}
  const std::string& name() const override { return s_->name(); }

 protected:
  size_t read_some(char* buf, size_t n) override {
    const size_t k = s_->read(buf, n);
    if (k > 0) {
      hasher_.update(buf, k);
    } else if (n > 0 && !checked_) {
      checked_ = true;
      const std::string got = hasher_.hexdigest();
      if (got != want_) hash_mismatch(path_, hasher_.type(), got, want_);
    }
    return k;
  }

 private:
  io::StreamPtr s_;
  std::string path_, want_;
  io::Hasher hasher_;
  bool checked_ = false;
};

template <class X>
class HashCheckerNode final
    : public OneInput<HashCheckerNode<X>, std::pair<std::string, X>, std::pair<std::string, X>> {
  using Elem = std::pair<std::string, X>;

 public:
  HashCheckerNode(std::shared_ptr<IterNode<Elem>> src, std::map<std::string, std::string> dict, std::string type,
                  bool rewind)
      : OneInput<HashCheckerNode<X>, Elem, Elem>(std::move(src)),
        dict_(std::make_shared<const std::map<std::string, std::string>>(std::move(dict))),
        type_(std::move(type)),
        rewind_(rewind) {
    io::Hasher check(type_);  // an unknown hash_type fails here
  }
  const char* name() const override { return "HashChecker"; }
  std::optional<Elem> next() override {
    auto e = this->pull_src();
    if (!e) return std::nullopt;
    const std::string& want = expected_hash(*dict_, e->first);
    if constexpr (std::is_same_v<X, std::string>) {
      const std::string got = io::hash_bytes(e->second, type_);
      if (got != want) hash_mismatch(e->first, type_, got, want);
    } else {
      EMBER_CHECK(e->second, "check_hash: '", e->first, "' has no stream");
      if (rewind_) {
        std::string bytes = e->second->read_all();
        const std::string got = io::hash_bytes(bytes, type_);
        if (got != want) hash_mismatch(e->first, type_, got, want);
        e->second = io::memory_stream(std::move(bytes), e->second->name());
      } else {
        e->second = std::make_shared<VerifyingStream>(std::move(e->second), e->first, type_, want);
      }
    }
    return e;
  }

 private:
  std::shared_ptr<const std::map<std::string, std::string>> dict_;
  std::string type_;
  bool rewind_;
};

// ---- on_disk_cache / end_caching -------------------------------------------------------

bool file_exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

// Elements whose cached file is missing (or fails its hash) go downstream to be produced;
// the paths of the others queue up for end_caching, which yields them directly.
class OnDiskCacheHolderNode final : public OneInput<OnDiskCacheHolderNode, std::string, std::string>,
                                    public std::enable_shared_from_this<OnDiskCacheHolderNode> {
 public:
  OnDiskCacheHolderNode(std::shared_ptr<IterNode<std::string>> src, FilepathFn fn,
                        std::map<std::string, std::string> dict, std::string type)
      : OneInput(std::move(src)),
        fn_(std::move(fn)),
        dict_(std::make_shared<const std::map<std::string, std::string>>(std::move(dict))),
        type_(std::move(type)) {
    io::Hasher check(type_);
  }
  const char* name() const override { return "OnDiskCacheHolder"; }
  void reset() override { cached_.clear(); }
  std::optional<std::string> next() override {
    while (auto x = pull_src()) {
      const std::string path = cache_path(*x);
      if (is_cached(path)) {
        cached_.push_back(path);
        continue;
      }
      return x;
    }
    return std::nullopt;
  }
  std::string cache_path(const std::string& x) const { return fn_ ? fn_(x) : x; }
  const FilepathFn& filepath_fn() const { return fn_; }
  // The expected digest of a cached path, or nullptr when none is given.
  const std::string* expected(const std::string& path) const {
    auto it = dict_->find(path);
    return it == dict_->end() ? nullptr : &it->second;
  }
  const std::string& hash_type() const { return type_; }
  std::deque<std::string>& cached() { return cached_; }

 private:
  bool is_cached(const std::string& path) const {
    if (!file_exists(path)) return false;
    const std::string* want = expected(path);
    if (!want) return true;
    auto s = io::file_stream(path);
    return io::hash_stream(*s, type_) == *want;  // a stale or corrupt file is produced again
  }

  FilepathFn fn_;
  std::shared_ptr<const std::map<std::string, std::string>> dict_;
  std::string type_;
  std::deque<std::string> cached_;
};

template <class X>
class EndOnDiskCacheNode final : public OneInput<EndOnDiskCacheNode<X>, std::pair<std::string, X>, std::string> {
  using Elem = std::pair<std::string, X>;

 public:
  EndOnDiskCacheNode(std::shared_ptr<IterNode<Elem>> src, std::shared_ptr<OnDiskCacheHolderNode> holder,
                     FilepathFn fn)
      : OneInput<EndOnDiskCacheNode<X>, Elem, std::string>(std::move(src)), holder_(std::move(holder)),
        fn_(std::move(fn)) {}
  const char* name() const override { return "EndOnDiskCacheHolder"; }
  void rebind(CloneContext& ctx) {
    OneInput<EndOnDiskCacheNode<X>, Elem, std::string>::rebind(ctx);
    holder_ = ctx.clone(holder_);
  }
  std::optional<std::string> next() override {
    auto& cached = holder_->cached();
    if (cached.empty()) {
      // Pulling the produce branch runs the holder, which may queue cached paths before it
      // finds an element to produce.
      if (auto e = this->pull_src()) {
        std::string path = fn_ ? fn_(e->first) : holder_->filepath_fn() ? holder_->cache_path(e->first) : e->first;
        std::string bytes = bytes_of(std::move(e->second));
        if (const std::string* want = holder_->expected(path)) {
          const std::string got = io::hash_bytes(bytes, holder_->hash_type());
          if (got != *want) hash_mismatch(path, holder_->hash_type(), got, *want);
        }
        io::write_file(path, bytes);
        if (cached.empty()) return path;
        cached.push_back(std::move(path));  // keep the order in which elements resolved
      }
    }
    if (cached.empty()) return std::nullopt;
    std::string p = std::move(cached.front());
    cached.pop_front();
    return p;
  }

 private:
  std::shared_ptr<OnDiskCacheHolderNode> holder_;
  FilepathFn fn_;
};

template <class X>
IterDataPipe<std::string> make_end_caching(const IterDataPipe<std::pair<std::string, X>>& produced, FilepathFn fn) {
  EMBER_CHECK(produced.defined(), "end_caching: empty pipe");
  std::shared_ptr<OnDiskCacheHolderNode> holder;
  // The nearest on_disk_cache upstream of the produce branch (TorchData finds it the same way).
  for (NodeBase* n : traverse(*produced.node())) {
    if (auto* h = dynamic_cast<OnDiskCacheHolderNode*>(n)) {
      holder = h->shared_from_this();
      break;
    }
  }
  EMBER_CHECK(holder, "end_caching: no on_disk_cache() upstream of this pipe (the produce branch must start from "
              "the pipe that on_disk_cache returned)");
  return IterDataPipe<std::string>(
      std::make_shared<EndOnDiskCacheNode<X>>(produced.node(), std::move(holder), std::move(fn)));
}

}  // namespace

// ---- the functional forms ----------------------------------------------------------------

IterDataPipe<std::string> FileLister(StringList roots, StringList masks, bool recursive, bool abspath) {
  return IterDataPipe<std::string>(
      std::make_shared<FileListerNode>(std::move(roots.items), nullptr, std::move(masks.items), recursive, abspath));
}

IterDataPipe<std::string> FileLister(const IterDataPipe<std::string>& roots, StringList masks, bool recursive,
                                     bool abspath) {
  EMBER_CHECK(roots.defined(), "FileLister: empty roots pipe");
  return IterDataPipe<std::string>(
      std::make_shared<FileListerNode>(std::vector<std::string>{}, roots.node(), std::move(masks.items), recursive,
                                       abspath));
}

IterDataPipe<StreamElement> FileOpener(const IterDataPipe<std::string>& paths, std::string mode) {
  EMBER_CHECK(mode == "b" || mode == "rb" || mode == "r" || mode == "t" || mode == "rt",
              "FileOpener: mode must be \"b\" or \"r\"/\"t\" (reading), got \"", mode, "\"");
  return IterDataPipe<StreamElement>(std::make_shared<FileOpenerNode>(paths.node()));
}

template <>
IterDataPipe<StreamElement> IterDataPipe<std::string>::open_files(std::string mode) const {
  return FileOpener(*this, std::move(mode));
}

IterDataPipe<std::pair<std::string, std::string>> readlines(const IterDataPipe<StreamElement>& source,
                                                            bool strip_newline, int64_t skip_lines) {
  return IterDataPipe<std::pair<std::string, std::string>>(
      std::make_shared<LineReaderNode>(source.node(), strip_newline, skip_lines));
}

IterDataPipe<std::vector<std::string>> parse_csv(const IterDataPipe<StreamElement>& source, io::CsvOptions options) {
  return IterDataPipe<std::vector<std::string>>(std::make_shared<CsvParserNode>(source.node(), options));
}

IterDataPipe<io::CsvDictRow> parse_csv_as_dict(const IterDataPipe<StreamElement>& source, io::CsvOptions options) {
  return IterDataPipe<io::CsvDictRow>(std::make_shared<CsvDictParserNode>(source.node(), options));
}

IterDataPipe<std::pair<std::string, json::Value>> parse_json_files(const IterDataPipe<StreamElement>& source) {
  return IterDataPipe<std::pair<std::string, json::Value>>(std::make_shared<JsonParserNode>(source.node()));
}

IterDataPipe<StreamElement> load_from_tar(const IterDataPipe<StreamElement>& source) {
  return IterDataPipe<StreamElement>(std::make_shared<ArchiveLoaderNode>(source.node(), io::ArchiveType::kTar));
}

IterDataPipe<StreamElement> load_from_zip(const IterDataPipe<StreamElement>& source) {
  return IterDataPipe<StreamElement>(std::make_shared<ArchiveLoaderNode>(source.node(), io::ArchiveType::kZip));
}

IterDataPipe<StreamElement> decompress(const IterDataPipe<StreamElement>& source, std::string file_type) {
  return IterDataPipe<StreamElement>(std::make_shared<DecompressorNode>(source.node(), std::move(file_type)));
}

IterDataPipe<std::string> save_to_disk(const IterDataPipe<std::pair<std::string, std::string>>& source,
                                       FilepathFn filepath_fn) {
  return IterDataPipe<std::string>(std::make_shared<SaverNode<std::string>>(source.node(), std::move(filepath_fn)));
}

IterDataPipe<std::string> save_to_disk(const IterDataPipe<StreamElement>& source, FilepathFn filepath_fn) {
  return IterDataPipe<std::string>(std::make_shared<SaverNode<io::StreamPtr>>(source.node(), std::move(filepath_fn)));
}

IterDataPipe<std::pair<std::string, std::string>> check_hash(
    const IterDataPipe<std::pair<std::string, std::string>>& source, std::map<std::string, std::string> hash_dict,
    std::string hash_type) {
  return IterDataPipe<std::pair<std::string, std::string>>(std::make_shared<HashCheckerNode<std::string>>(
      source.node(), std::move(hash_dict), std::move(hash_type), true));
}

IterDataPipe<StreamElement> check_hash(const IterDataPipe<StreamElement>& source,
                                       std::map<std::string, std::string> hash_dict, std::string hash_type,
                                       bool rewind) {
  return IterDataPipe<StreamElement>(std::make_shared<HashCheckerNode<io::StreamPtr>>(
      source.node(), std::move(hash_dict), std::move(hash_type), rewind));
}

IterDataPipe<std::string> on_disk_cache(const IterDataPipe<std::string>& source, FilepathFn filepath_fn,
                                        std::map<std::string, std::string> hash_dict, std::string hash_type) {
  return IterDataPipe<std::string>(std::make_shared<OnDiskCacheHolderNode>(
      source.node(), std::move(filepath_fn), std::move(hash_dict), std::move(hash_type)));
}

IterDataPipe<std::string> end_caching(const IterDataPipe<std::pair<std::string, std::string>>& produced,
                                      FilepathFn filepath_fn) {
  return make_end_caching(produced, std::move(filepath_fn));
}

IterDataPipe<std::string> end_caching(const IterDataPipe<StreamElement>& produced, FilepathFn filepath_fn) {
  return make_end_caching(produced, std::move(filepath_fn));
}

// ---- functional forms ----------------------------------------------------------------------
using BytesElement = std::pair<std::string, std::string>;

template <>
IterDataPipe<std::string> IterDataPipe<std::string>::on_disk_cache(FilepathFn fn, std::map<std::string, std::string> h,
                                                                   std::string type) const {
  return datapipes::on_disk_cache(*this, std::move(fn), std::move(h), std::move(type));
}
template <>
IterDataPipe<BytesElement> IterDataPipe<StreamElement>::readlines(bool strip_newline, int64_t skip_lines) const {
  return datapipes::readlines(*this, strip_newline, skip_lines);
}
template <>
IterDataPipe<std::vector<std::string>> IterDataPipe<StreamElement>::parse_csv(const io::CsvOptions& o) const {
  return datapipes::parse_csv(*this, o);
}
template <>
IterDataPipe<std::vector<std::string>> IterDataPipe<StreamElement>::parse_csv() const {
  return datapipes::parse_csv(*this);
}
template <>
IterDataPipe<io::CsvDictRow> IterDataPipe<StreamElement>::parse_csv_as_dict(const io::CsvOptions& o) const {
  return datapipes::parse_csv_as_dict(*this, o);
}
template <>
IterDataPipe<io::CsvDictRow> IterDataPipe<StreamElement>::parse_csv_as_dict() const {
  return datapipes::parse_csv_as_dict(*this);
}
template <>
IterDataPipe<std::pair<std::string, json::Value>> IterDataPipe<StreamElement>::parse_json_files() const {
  return datapipes::parse_json_files(*this);
}
template <>
IterDataPipe<StreamElement> IterDataPipe<StreamElement>::load_from_tar() const {
  return datapipes::load_from_tar(*this);
}
template <>
IterDataPipe<StreamElement> IterDataPipe<StreamElement>::load_from_zip() const {
  return datapipes::load_from_zip(*this);
}
template <>
IterDataPipe<StreamElement> IterDataPipe<StreamElement>::decompress(std::string file_type) const {
  return datapipes::decompress(*this, std::move(file_type));
}
template <>
IterDataPipe<StreamElement> IterDataPipe<StreamElement>::check_hash(std::map<std::string, std::string> h,
                                                                    std::string type, bool rewind) const {
  return datapipes::check_hash(*this, std::move(h), std::move(type), rewind);
}
template <>
IterDataPipe<BytesElement> IterDataPipe<BytesElement>::check_hash(std::map<std::string, std::string> h,
                                                                  std::string type) const {
  return datapipes::check_hash(*this, std::move(h), std::move(type));
}
template <>
IterDataPipe<std::string> IterDataPipe<StreamElement>::save_to_disk(FilepathFn fn) const {
  return datapipes::save_to_disk(*this, std::move(fn));
}
template <>
IterDataPipe<std::string> IterDataPipe<BytesElement>::save_to_disk(FilepathFn fn) const {
  return datapipes::save_to_disk(*this, std::move(fn));
}
template <>
IterDataPipe<std::string> IterDataPipe<StreamElement>::end_caching(FilepathFn fn) const {
  return datapipes::end_caching(*this, std::move(fn));
}
template <>
IterDataPipe<std::string> IterDataPipe<BytesElement>::end_caching(FilepathFn fn) const {
  return datapipes::end_caching(*this, std::move(fn));
}

}  // namespace ember::data::datapipes
