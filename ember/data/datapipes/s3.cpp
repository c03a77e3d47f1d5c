#include "ember/data/datapipes/s3.h"

#include <deque>

#include "ember/data/io/files.h"
#include "ember/data/io/stream.h"
#include "ember/data/s3/client.h"
#include "ember/data/s3/object_stream.h"

namespace ember::data::datapipes {

namespace {

using Stream = std::shared_ptr<io::InputStream>;

class S3ListerNode final : public IterNodeImpl<S3ListerNode, std::string> {
 public:
  S3ListerNode(std::shared_ptr<IterNode<std::string>> src, s3::S3Client client, std::vector<std::string> masks)
      : src_(std::move(src)), client_(std::move(client)), masks_(std::move(masks)) {}
  const char* name() const override { return "S3FileLister"; }
  std::vector<NodeBase*> children() const override { return {src_.get()}; }
  void rebind(CloneContext& ctx) { src_ = ctx.clone(src_); }
  void reset() override {
    pending_.clear();
    listing_ = false;
    continuation_.clear();
  }

  std::optional<std::string> next() override {
    while (pending_.empty()) {
      if (!listing_) {
        std::optional<std::string> url = pull(*src_);
        if (!url) return std::nullopt;
        s3::S3Url u = s3::parse_s3_url(*url);
        bucket_ = u.bucket;
        prefix_ = u.key;
        continuation_.clear();
        listing_ = true;
      }
      // One page at a time: memory stays at a page however many keys there are.
      s3::ListPage page = client_.list_objects_v2(bucket_, prefix_, continuation_);
      for (s3::ObjectInfo& o : page.objects) {
        std::string_view base(o.key);
        if (size_t slash = base.rfind('/'); slash != std::string_view::npos) base.remove_prefix(slash + 1);
        if (io::match_masks(base, masks_)) pending_.push_back("s3://" + bucket_ + "/" + o.key);
      }
      listing_ = page.is_truncated;
      EMBER_CHECK(!listing_ || page.next_continuation_token != continuation_, "S3FileLister: ListObjectsV2 s3://", bucket_,
                  "/", prefix_, ": the server returned the same continuation token twice");
      continuation_ = std::move(page.next_continuation_token);
    }
    std::string out = std::move(pending_.front());
    pending_.pop_front();
    return out;
  }

 private:
  std::shared_ptr<IterNode<std::string>> src_;
  s3::S3Client client_;  // a shared handle: clones for workers share its connection pool
  std::vector<std::string> masks_;
  // The listing in progress: its bucket/prefix, the next page's token, keys not yet handed out.
  std::string bucket_, prefix_, continuation_;
  bool listing_ = false;
  std::deque<std::string> pending_;
};

class S3LoaderNode final : public IterNodeImpl<S3LoaderNode, std::pair<std::string, Stream>> {
 public:
  S3LoaderNode(std::shared_ptr<IterNode<std::string>> src, s3::S3Client client)
      : src_(std::move(src)), client_(std::move(client)) {}
  const char* name() const override { return "S3FileLoader"; }
  std::vector<NodeBase*> children() const override { return {src_.get()}; }
  void rebind(CloneContext& ctx) { src_ = ctx.clone(src_); }

  std::optional<std::pair<std::string, Stream>> next() override {
    std::optional<std::string> url = pull(*src_);
    if (!url) return std::nullopt;
    s3::S3Url u = s3::parse_s3_url(*url);
    EMBER_CHECK(!u.key.empty(), "S3FileLoader: '", *url, "' names no object (expected s3://bucket/key)");
    return std::pair<std::string, Stream>(*url, s3::open_object(client_, u.bucket, u.key));
  }

 private:
  std::shared_ptr<IterNode<std::string>> src_;
  s3::S3Client client_;
};

}  // namespace

IterDataPipe<std::string> S3FileLister(const IterDataPipe<std::string>& source_datapipe, const s3::S3Options& options,
                                       std::vector<std::string> masks) {
  EMBER_CHECK(source_datapipe.defined(), "S3FileLister: the source pipe is empty");
  return IterDataPipe<std::string>(
      std::make_shared<S3ListerNode>(source_datapipe.node(), s3::S3Client(options), std::move(masks)));
}

IterDataPipe<std::pair<std::string, Stream>> S3FileLoader(const IterDataPipe<std::string>& source_datapipe,
                                                          const s3::S3Options& options) {
  EMBER_CHECK(source_datapipe.defined(), "S3FileLoader: the source pipe is empty");
  return IterDataPipe<std::pair<std::string, Stream>>(
      std::make_shared<S3LoaderNode>(source_datapipe.node(), s3::S3Client(options)));
}

template <>
IterDataPipe<std::string> IterDataPipe<std::string>::list_files_by_s3(const s3::S3Options& options,
                                                                      std::vector<std::string> masks) const {
  return S3FileLister(*this, options, std::move(masks));
}
template <>
IterDataPipe<std::string> IterDataPipe<std::string>::list_files_by_s3() const {
  return S3FileLister(*this);
}
template <>
IterDataPipe<std::pair<std::string, std::shared_ptr<io::InputStream>>> IterDataPipe<std::string>::load_files_by_s3(
    const s3::S3Options& options) const {
  return S3FileLoader(*this, options);
}
template <>
IterDataPipe<std::pair<std::string, std::shared_ptr<io::InputStream>>> IterDataPipe<std::string>::load_files_by_s3()
    const {
  return S3FileLoader(*this);
}

}  // namespace ember::data::datapipes
