// S3 DataPipes (TorchData's S3FileLister and S3FileLoader): list the objects under
// "s3://bucket/prefix" URLs, and open "s3://bucket/key" URLs as streams read in parts
// (ember/data/s3/object_stream.h), so objects larger than memory flow through a pipeline.
//   auto pipe = load_files_by_s3(list_files_by_s3(IterableWrapper<std::string>({"s3://b/train/"}), opts)
//                                    .sharding_filter(), opts);
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/data/datapipes/datapipe.h"
#include "ember/data/s3/config.h"

namespace ember::data::datapipes {

// Every object under each input URL "s3://bucket/prefix" (recursively: no delimiter), as
// "s3://bucket/key", in S3's key order, one ListObjectsV2 page held at a time. `masks`
// (fnmatch patterns, as FileLister's) filter on the key's last path component. The
// client (credentials, region, endpoint) is resolved when the pipe is built, so
// configuration errors surface there; listing errors name the bucket and prefix.
IterDataPipe<std::string> S3FileLister(const IterDataPipe<std::string>& source_datapipe,
                                       const s3::S3Options& options = s3::S3Options(),
                                       std::vector<std::string> masks = {});

// (url, stream) for each input URL "s3://bucket/key". Streams are lazy: the first read
// sends the requests (HEAD, then ranged GETs of options.part_size() bytes with
// options.max_in_flight() outstanding), and errors such as a missing key come from that
// read, naming the URL. A stream may be read after the pipe has moved on.
IterDataPipe<std::pair<std::string, std::shared_ptr<io::InputStream>>> S3FileLoader(
    const IterDataPipe<std::string>& source_datapipe, const s3::S3Options& options = s3::S3Options());

// Functional forms (TorchData's names): urls.list_files_by_s3(options).load_files_by_s3(options),
// or as free functions.
template <>
IterDataPipe<std::string> IterDataPipe<std::string>::list_files_by_s3(const s3::S3Options&, std::vector<std::string>) const;
template <>
IterDataPipe<std::string> IterDataPipe<std::string>::list_files_by_s3() const;
template <>
IterDataPipe<std::pair<std::string, std::shared_ptr<io::InputStream>>> IterDataPipe<std::string>::load_files_by_s3(
    const s3::S3Options&) const;
template <>
IterDataPipe<std::pair<std::string, std::shared_ptr<io::InputStream>>> IterDataPipe<std::string>::load_files_by_s3() const;
inline IterDataPipe<std::string> list_files_by_s3(const IterDataPipe<std::string>& source_datapipe,
                                                  const s3::S3Options& options = s3::S3Options(),
                                                  std::vector<std::string> masks = {}) {
  return S3FileLister(source_datapipe, options, std::move(masks));
}
inline IterDataPipe<std::pair<std::string, std::shared_ptr<io::InputStream>>> load_files_by_s3(
    const IterDataPipe<std::string>& source_datapipe, const s3::S3Options& options = s3::S3Options()) {
  return S3FileLoader(source_datapipe, options);
}

}  // namespace ember::data::datapipes
