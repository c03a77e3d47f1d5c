// File DataPipes (TorchData's FileLister, FileOpener, LineReader, CSVParser, CSVDictParser,
// JsonParser, TarArchiveLoader, ZipArchiveLoader, Decompressor, Saver, HashChecker and
// OnDiskCacheHolder), over the plain readers of ember/data/io:
//   auto rows = parse_csv(FileLister("data", "*.csv").sharding_filter().open_files(),
//                         io::CsvOptions().with_skip_lines(1));
// `open_files` is a member (IterDataPipe<std::string>::open_files); the others are free
// functions with TorchData's functional names taking the source pipe first, because
// datapipe.h declares only open_files among the module pipes.
//
// Streams in elements. (path, stream) elements carry live streams: read them in order.
// A member stream of load_from_tar / load_from_zip reads from its archive and is valid
// only until that pipe yields its next member (Note [Archive member lifetime] in
// ember/data/io/archive.h): a pipe that holds elements back (shuffle, batch, prefetch)
// between load_from_tar and the reader makes the read fail with a clear error, so read or
// copy the member first (`.map([](auto e) { return std::pair(e.first, e.second->read_all()); })`).
#pragma once
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ember/data/datapipes/collate.h"
#include "ember/data/datapipes/datapipe.h"
#include "ember/data/io/csv.h"
#include "ember/data/io/stream.h"
#include "ember/core/json.h"

namespace ember::data::datapipes {

using StreamElement = std::pair<std::string, io::StreamPtr>;  // (path or name, stream)

// One string or several (TorchData's `Union[str, List[str]]` arguments).
struct StringList {
  std::vector<std::string> items;
  StringList() = default;
  StringList(const char* s) : items{s} {}                             // NOLINT
  StringList(std::string s) : items{std::move(s)} {}                  // NOLINT
  StringList(std::vector<std::string> v) : items(std::move(v)) {}     // NOLINT
  StringList(std::initializer_list<std::string> v) : items(v) {}      // NOLINT
};

// FileLister: the files under each root (io::list_files: fnmatch masks on the basename,
// sorted, recursive on request), listed when an epoch reaches that root, so files added
// between epochs are seen. A missing root is an error naming it.
IterDataPipe<std::string> FileLister(StringList roots = StringList("."), StringList masks = {},
                                     bool recursive = false, bool abspath = false);
// The roots come from a pipe.
IterDataPipe<std::string> FileLister(const IterDataPipe<std::string>& roots, StringList masks = {},
                                     bool recursive = false, bool abspath = false);

// FileOpener / open_files: (path, stream) per path, opened when the element is pulled.
// mode "b"/"rb" (bytes) or "r"/"t"/"rt" (text: the same bytes; C++ strings are bytes).
IterDataPipe<StreamElement> FileOpener(const IterDataPipe<std::string>& paths, std::string mode = "b");

// readlines (LineReader): (path, line) per line of each stream, lines split after '\n' as
// Python iterates a binary file; strip_newline drops '\r' and '\n' at both ends (Python's
// strip("\r\n")). skip_lines drops the first lines of each stream.
IterDataPipe<std::pair<std::string, std::string>> readlines(const IterDataPipe<StreamElement>& source,
                                                            bool strip_newline = true, int64_t skip_lines = 0);

// parse_csv (CSVParser): the rows of each stream (io::CsvReader; skip_lines and the dialect
// in `options`). Errors name the path and line.
IterDataPipe<std::vector<std::string>> parse_csv(const IterDataPipe<StreamElement>& source,
                                                 io::CsvOptions options = {});
// parse_csv_as_dict (CSVDictParser): rows keyed by each stream's header row. The element is
// io::CsvDictRow: column order is kept (as Python's dict) and the header is shared by the
// rows of a file, so a row costs no copies of its keys; `row["name"]` looks a column up.
IterDataPipe<io::CsvDictRow> parse_csv_as_dict(const IterDataPipe<StreamElement>& source,
                                               io::CsvOptions options = {});

// parse_json_files (JsonParser): (path, value) per stream, each stream one JSON text.
IterDataPipe<std::pair<std::string, json::Value>> parse_json_files(const IterDataPipe<StreamElement>& source);

// load_from_tar / load_from_zip: (path + "/" + member, stream) per regular-file member
// (compression of a tar is detected). See "Streams in elements" above.
IterDataPipe<StreamElement> load_from_tar(const IterDataPipe<StreamElement>& source);
IterDataPipe<StreamElement> load_from_zip(const IterDataPipe<StreamElement>& source);

// decompress (Decompressor): each stream decompressed; `file_type` "gzip"/"gz", "bz2",
// "xz"/"lzma", "zstd"/"zst", or "" to infer it from each path's extension. Paths are kept.
IterDataPipe<StreamElement> decompress(const IterDataPipe<StreamElement>& source, std::string file_type = "");

// save_to_disk (Saver): writes each (path, bytes) atomically to filepath_fn(path) (parent
// directories created) and yields the written path. A stream's bytes are read whole.
using FilepathFn = std::function<std::string(const std::string&)>;
IterDataPipe<std::string> save_to_disk(const IterDataPipe<std::pair<std::string, std::string>>& source,
                                       FilepathFn filepath_fn = nullptr);
IterDataPipe<std::string> save_to_disk(const IterDataPipe<StreamElement>& source, FilepathFn filepath_fn = nullptr);

// check_hash (HashChecker): passes elements through after checking the digest of their
// bytes against hash_dict[path] ("sha256" or "md5"). A path missing from hash_dict, or a
// mismatch, is an error naming the path and both digests. Streams are read to compute the
// digest: with rewind (TorchData's default) the element carries a fresh stream over the
// bytes read; without, the stream is checked as it is read, and the error comes from the
// read that reaches its end (no buffering, for large files).
IterDataPipe<std::pair<std::string, std::string>> check_hash(
    const IterDataPipe<std::pair<std::string, std::string>>& source, std::map<std::string, std::string> hash_dict,
    std::string hash_type = "sha256");
IterDataPipe<StreamElement> check_hash(const IterDataPipe<StreamElement>& source,
                                       std::map<std::string, std::string> hash_dict, std::string hash_type = "sha256",
                                       bool rewind = true);

// on_disk_cache (OnDiskCacheHolder) and end_caching (EndOnDiskCacheHolder):
//   auto cache = on_disk_cache(urls, [](const std::string& url) { return "cache/" + basename(url); });
//   auto files = end_caching(download(cache));   // download: url -> (url, bytes or stream)
// yields the cached file's path for every element of `urls`: elements whose file exists
// (and, with hash_dict, has the right digest) skip the download branch entirely; the others
// flow through it and end_caching writes what it yields (atomically, after checking it
// against hash_dict) to filepath_fn(its path). A null end_caching filepath_fn reuses
// on_disk_cache's (TorchData's same_filepath_fn=True), and with none at all the path is
// used as is. Paths come out in the order elements resolve, cached ones as soon as seen.
IterDataPipe<std::string> on_disk_cache(const IterDataPipe<std::string>& source, FilepathFn filepath_fn = nullptr,
                                        std::map<std::string, std::string> hash_dict = {},
                                        std::string hash_type = "sha256");
IterDataPipe<std::string> end_caching(const IterDataPipe<std::pair<std::string, std::string>>& produced,
                                      FilepathFn filepath_fn = nullptr);
IterDataPipe<std::string> end_caching(const IterDataPipe<StreamElement>& produced, FilepathFn filepath_fn = nullptr);

// collate() of parse_csv_as_dict batches: per column, the batch's values (Python's
// default_collate of dicts of strings: a dict of lists). The rows must share one header.
template <>
struct Collated<io::CsvDictRow> {
  using type = std::map<std::string, std::vector<std::string>>;
  static type collate(std::vector<io::CsvDictRow>&& batch) {
    type out;
    if (batch.empty()) return out;
    const auto& keys = batch[0].keys();
    for (size_t i = 1; i < batch.size(); ++i)
      EMBER_CHECK(batch[i].keys() == keys, "collate: row ", i, " of the batch has different columns than row 0");
    for (size_t c = 0; c < keys.size(); ++c) {
      std::vector<std::string> column;
      column.reserve(batch.size());
      for (auto& row : batch) column.push_back(std::move(row.values()[c]));
      out.emplace(keys[c], std::move(column));
    }
    return out;
  }
};

// IterDataPipe<std::string>::open_files (declared in datapipe.h) is FileOpener(*this, mode).
// The functional forms (declared in datapipe.h): pipe.open_files().parse_csv() ...
template <>
IterDataPipe<StreamElement> IterDataPipe<std::string>::open_files(std::string mode) const;
template <>
IterDataPipe<std::string> IterDataPipe<std::string>::on_disk_cache(FilepathFn, std::map<std::string, std::string>,
                                                                   std::string) const;
template <>
IterDataPipe<std::pair<std::string, std::string>> IterDataPipe<StreamElement>::readlines(bool, int64_t) const;
template <>
IterDataPipe<std::vector<std::string>> IterDataPipe<StreamElement>::parse_csv(const io::CsvOptions&) const;
template <>
IterDataPipe<std::vector<std::string>> IterDataPipe<StreamElement>::parse_csv() const;
template <>
IterDataPipe<io::CsvDictRow> IterDataPipe<StreamElement>::parse_csv_as_dict(const io::CsvOptions&) const;
template <>
IterDataPipe<io::CsvDictRow> IterDataPipe<StreamElement>::parse_csv_as_dict() const;
template <>
IterDataPipe<std::pair<std::string, json::Value>> IterDataPipe<StreamElement>::parse_json_files() const;
template <>
IterDataPipe<StreamElement> IterDataPipe<StreamElement>::load_from_tar() const;
template <>
IterDataPipe<StreamElement> IterDataPipe<StreamElement>::load_from_zip() const;
template <>
IterDataPipe<StreamElement> IterDataPipe<StreamElement>::decompress(std::string) const;
template <>
IterDataPipe<StreamElement> IterDataPipe<StreamElement>::check_hash(std::map<std::string, std::string>, std::string,
                                                                    bool) const;
template <>
IterDataPipe<std::pair<std::string, std::string>> IterDataPipe<std::pair<std::string, std::string>>::check_hash(
    std::map<std::string, std::string>, std::string) const;
template <>
IterDataPipe<std::string> IterDataPipe<StreamElement>::save_to_disk(FilepathFn) const;
template <>
IterDataPipe<std::string> IterDataPipe<std::pair<std::string, std::string>>::save_to_disk(FilepathFn) const;
template <>
IterDataPipe<std::string> IterDataPipe<StreamElement>::end_caching(FilepathFn) const;
template <>
IterDataPipe<std::string> IterDataPipe<std::pair<std::string, std::string>>::end_caching(FilepathFn) const;

}  // namespace ember::data::datapipes
