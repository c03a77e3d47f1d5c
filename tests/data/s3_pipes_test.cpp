// The S3 DataPipes (S3FileLister, S3FileLoader) against moto's S3 server: listing, loading, resume, sharding.
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ember/data/datapipes/loader.h"
#include "ember/data/datapipes/ops.h"
#include "ember/data/datapipes/s3.h"
#include "ember/data/s3/client.h"
#include "s3_test_util.h"
#include "test_util.h"

namespace s3 = ember::data::s3;

using ember::test::S3Moto;

// ---- DataPipes: S3FileLister and S3FileLoader --------------------------------------------

TEST_F(S3Moto, FileListerAndLoaderPipes) {
  namespace dp = ember::data::datapipes;
  s3::S3Client c = client();
  c.create_bucket("pipes");
  std::map<std::string, std::string> files;  // url -> content
  for (int i = 0; i < 30; ++i) {
    std::string key = "train/" + std::string(i % 2 ? "a/" : "b/") + "part-" + std::to_string(100 + i) + ".csv";
    files["s3://pipes/" + key] = "x,y\n" + std::to_string(i) + "," + std::to_string(i * i) + "\n";
    c.put_object("pipes", key, files["s3://pipes/" + key]);
  }
  c.put_object("pipes", "train/README.md", "not data");
  c.put_object("pipes", "val/part-0.csv", "x,y\n0,0\n");
  files["s3://pipes/val/part-0.csv"] = "x,y\n0,0\n";

  auto opts = options().max_keys(7).part_size(5).max_in_flight(2);  // pages of 7 keys, 5-byte parts
  auto prefixes = dp::IterableWrapper<std::string>({"s3://pipes/train/", "s3://pipes/val/"});
  auto lister = dp::list_files_by_s3(prefixes, opts, {"*.csv"});
  std::vector<std::string> urls;
  for (const std::string& u : lister) urls.push_back(u);
  std::vector<std::string> want;
  for (const auto& kv : files) want.push_back(kv.first);  // std::map order is S3's key order
  EXPECT_EQ(urls, want);

  auto loader = dp::load_files_by_s3(lister, opts);
  size_t n = 0;
  for (auto& [url, stream] : loader) {
    EXPECT_EQ(stream->name(), url);
    EXPECT_EQ(stream->read_all(), files.at(url)) << url;
    ++n;
  }
  EXPECT_EQ(n, files.size());

  // Checkpoint after 5 elements and resume: the same remaining URLs, in order.
  auto it = lister.begin();
  for (int i = 0; i < 4; ++i) ++it;
  auto state = lister.state();
  std::vector<std::string> rest;
  for (++it; it != lister.end(); ++it) rest.push_back(*it);
  lister.load_state(state);
  std::vector<std::string> resumed;
  for (const std::string& u : lister) resumed.push_back(u);
  EXPECT_EQ(resumed, rest);
  EXPECT_EQ(resumed.size(), want.size() - 5);

  // Sharded across two worker threads, then two worker processes (forked after this
  // process's client has live connections: each child opens its own): every object once.
  c.put_object("pipes", "train/probe.csv", "p");  // keep the pool's connections warm
  for (bool processes : {false, true}) {
    auto contents = lister.sharding_filter().load_files_by_s3(opts).map([](std::pair<std::string, std::shared_ptr<ember::data::io::InputStream>> p) {
      return p.first + "=" + p.second->read_all();
    });
    ember::data::DataLoader2 dl(contents, std::make_shared<ember::data::MultiProcessingReadingService>(
                                              2, 2, nullptr, true, std::nullopt, processes));
    std::multiset<std::string> got;
    for (const std::string& x : dl) got.insert(x);
    std::multiset<std::string> expect;
    for (const std::string& u : lister) expect.insert(u + "=" + (u == "s3://pipes/train/probe.csv" ? "p" : files.at(u)));
    EXPECT_EQ(got, expect) << (processes ? "worker processes" : "worker threads");
  }

  // Errors name what failed: a missing object when its stream is read, a bad URL, a
  // missing bucket.
  auto missing = dp::S3FileLoader(dp::IterableWrapper<std::string>({"s3://pipes/no/such.csv"}), opts);
  for (auto& [url, stream] : missing) EXPECT_ERROR_WITH(stream->read_all(), "s3://pipes/no/such.csv");
  auto bad = dp::S3FileLoader(dp::IterableWrapper<std::string>({"pipes/x.csv"}), opts);
  EXPECT_ERROR_WITH(bad.begin(), "expected a URL like s3://bucket/key");
  auto nobucket = dp::S3FileLister(dp::IterableWrapper<std::string>({"s3://nope/x/"}), opts);
  EXPECT_ERROR_WITH(nobucket.begin(), "NoSuchBucket");
  EXPECT_ERROR_WITH(dp::S3FileLister(prefixes, s3::S3Options().endpoint_url("ftp://x")), "http://");
}
