// Writes the fuzz targets' seed corpora with ember's own writers (checkpoints of modules,
// optimizers and schedulers, CSV, Arrow IPC, IDX, loader states) and libarchive's (tar, zip and
// compressed streams, which ember only reads):  fuzz_seeds <dir>  fills <dir>/<target>/.
//   fuzz_seeds --regressions <dir>  writes the hand-made inputs of tests/fuzz/regressions/.
#include <archive.h>
#include <archive_entry.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <numeric>
#include <sstream>

#include "ember/data/datapipes.h"
#include "ember/ember.h"
#include "ember/frame/frame.h"
#include "frame/frame_fixtures.h"

namespace {

using namespace ember;
namespace fs = std::filesystem;

fs::path g_root;
int g_files = 0;

void put(const std::string& target, const std::string& name, const std::string& bytes) {
  const fs::path dir = g_root / target;
  fs::create_directories(dir);
  std::ofstream out(dir / name, std::ios::binary);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  EMBER_CHECK(out.good(), "fuzz_seeds: cannot write ", (dir / name).string());
  ++g_files;
}

std::string bytes_of(std::initializer_list<int> prefix, std::string_view rest = {}) {
  std::string s;
  for (int b : prefix) s.push_back(char(b));
  s.append(rest);
  return s;
}

// ---- checkpoints --------------------------------------------------------------------
std::string archive_bytes(const std::function<void(serialize::OutputArchive&)>& fill) {
  serialize::OutputArchive a;
  fill(a);
  return a.to_bytes();
}

void safetensors_seeds() {
  manual_seed(1);
  std::map<std::string, Tensor> t = {
      {"f32", randn({2, 3})},
      {"f64", arange(4, TensorOptions().dtype(kDouble))},
      {"i64", scalar_tensor(7, TensorOptions().dtype(kLong))},
      {"i32", arange(3, TensorOptions().dtype(kInt))},
      {"i16", arange(2, TensorOptions().dtype(kShort))},
      {"i8", arange(2, TensorOptions().dtype(kChar))},
      {"u8", arange(5, TensorOptions().dtype(kByte))},
      {"bool", ones({3}, TensorOptions().dtype(kBool))},
      {"f16", randn({2}).to(kHalf)},
      {"bf16", randn({2}).to(kBFloat16)},
      {"c64", randn({2}).to(kComplexFloat)},
      {"empty", zeros({0, 3})},
  };
  put("safetensors", "dtypes.safetensors", serialize::to_safetensors(t, {{"format", "pt"}, {"note", "seed"}}));
  put("safetensors", "empty.safetensors", serialize::to_safetensors({}));
  put("safetensors", "one.safetensors", serialize::to_safetensors({{"w", ones({1})}}));
}

nn::Sequential fuzz_net() { return nn::Sequential(nn::Linear(4, 3), nn::BatchNorm1d(3), nn::Linear(3, 2)); }

void module_seeds() {
  manual_seed(2);
  nn::Sequential net = fuzz_net();
  put("archive_module", "fresh.safetensors", archive_bytes([&](auto& a) { a << net; }));
  net->train();
  (void)net->forward(randn({6, 4}));  // moves the batch-norm statistics
  put("archive_module", "trained.safetensors", archive_bytes([&](auto& a) { a << net; }));
  nn::Sequential other(nn::Linear(4, 5), nn::BatchNorm1d(5));
  put("archive_module", "other_shapes.safetensors", archive_bytes([&](auto& a) { a << other; }));
}

void train_step(nn::Linear& model, optim::Optimizer& opt) {
  const Tensor x = arange(12, TensorOptions().dtype(kFloat)).reshape({4, 3}).div(7);
  const Tensor y = x.sum(1, true);
  opt.step([&] {
    opt.zero_grad();
    Tensor loss = nn::functional::mse_loss(model(x), y);
    loss.backward();
    return loss;
  });
}

std::string optimizer_bytes(const std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)>& make, int steps) {
  manual_seed(3);
  nn::Linear model(3, 1);
  auto opt = make(model->parameters());
  for (int i = 0; i < steps; ++i) train_step(model, *opt);
  return archive_bytes([&](auto& a) { a << *opt; });
}

std::string adam_bytes() {
  return optimizer_bytes([](auto p) { return std::make_unique<optim::Adam>(std::move(p), optim::AdamOptions(0.01)); }, 2);
}

void optimizer_seeds() {
  put("archive_optimizer", "adam.safetensors", adam_bytes());
  put("archive_optimizer", "adam_fresh.safetensors",
      optimizer_bytes([](auto p) { return std::make_unique<optim::Adam>(std::move(p), optim::AdamOptions(0.01)); }, 0));
  put("archive_optimizer", "adam_amsgrad.safetensors", optimizer_bytes([](auto p) {
        return std::make_unique<optim::Adam>(std::move(p), optim::AdamOptions(0.01).amsgrad(true).weight_decay(0.1));
      }, 2));
  put("archive_optimizer", "sgd_momentum.safetensors", optimizer_bytes([](auto p) {
        return std::make_unique<optim::SGD>(std::move(p), optim::SGDOptions(0.05).momentum(0.9));
      }, 2));
  put("archive_optimizer", "lbfgs.safetensors", optimizer_bytes([](auto p) {
        return std::make_unique<optim::LBFGS>(std::move(p), optim::LBFGSOptions(0.5).max_iter(3).history_size(4));
      }, 2));
  put("archive_optimizer", "lbfgs_wolfe.safetensors", optimizer_bytes([](auto p) {
        return std::make_unique<optim::LBFGS>(std::move(p),
                                              optim::LBFGSOptions(1).max_iter(4).history_size(2).line_search_fn("strong_wolfe"));
      }, 3));
}

void scheduler_seeds() {
  using namespace ember::optim;
  const Tensor w = zeros({2}).requires_grad_(true);
  auto save = [&](const std::string& name, const std::function<std::shared_ptr<LRScheduler>(Optimizer&)>& make, int steps) {
    SGD opt({w}, SGDOptions(0.1).momentum(0.9));
    auto s = make(opt);
    for (int i = 0; i < steps; ++i) s->step();
    put("archive_scheduler", name, archive_bytes([&](auto& a) { s->save(a); }));
  };
  save("step.safetensors", [](Optimizer& o) { return std::make_shared<StepLR>(o, 3, 0.5); }, 4);
  save("multistep.safetensors", [](Optimizer& o) { return std::make_shared<MultiStepLR>(o, std::vector<int64_t>{2, 5}); }, 3);
  save("warm_restarts.safetensors", [](Optimizer& o) { return std::make_shared<CosineAnnealingWarmRestarts>(o, 3, 2); }, 7);
  save("one_cycle.safetensors",
       [](Optimizer& o) { return std::make_shared<OneCycleLR>(o, 0.1, OneCycleLROptions().total_steps(20)); }, 5);
  save("sequential.safetensors", [](Optimizer& o) {
    std::vector<std::shared_ptr<LRScheduler>> parts{std::make_shared<ConstantLR>(o, 0.5, 2),
                                                    std::make_shared<ExponentialLR>(o, 0.9)};
    return std::make_shared<SequentialLR>(o, parts, std::vector<int64_t>{2});
  }, 3);
  SGD opt({w}, SGDOptions(0.1).momentum(0.9));
  ReduceLROnPlateau plateau(opt, ReduceLROnPlateau::min, 0.5, 1);
  for (double m : {1.0, 2.0, 3.0}) plateau.step(m);
  put("archive_scheduler", "plateau.safetensors",
      archive_bytes([&](auto& a) { a.write("scheduler_state", IValue(json::dump(plateau.state_dict()))); }));
  ReduceLROnPlateau fresh(opt);  // best is +inf: stored as a string
  put("archive_scheduler", "plateau_inf.safetensors",
      archive_bytes([&](auto& a) { a.write("scheduler_state", IValue(json::dump(fresh.state_dict()))); }));
}

void tensor_archive_seeds() {
  manual_seed(4);
  std::vector<Tensor> three{randn({2}), arange(5), ones({1, 1}).to(kComplexDouble)};
  put("archive_tensors", "list3.safetensors", archive_bytes([&](auto& a) { a << three; }));
  put("archive_tensors", "list0.safetensors", archive_bytes([&](auto& a) { a << std::vector<Tensor>{}; }));
  put("archive_tensors", "tensor.safetensors", archive_bytes([&](auto& a) { a << randn({3, 2}); }));
  put("archive_tensors", "values.safetensors", archive_bytes([&](auto& a) {
        a.write("b", IValue(true));
        a.write("i", IValue(int64_t(-3)));
        a.write("d", IValue(0.25));
        a.write("s", IValue("text"));
        a.write("l", IValue(std::vector<int64_t>{1, 2, 3}));
        serialize::OutputArchive nested;
        nested.write("t", ones({2}));
        nested.write("n", IValue(int64_t(5)));
        a.write("nested", nested);
      }));
}

// ---- CSV ----------------------------------------------------------------------------
void csv_seeds() {
  using namespace ember::frame;
  namespace dt = dtypes;
  const DataFrame df{
      {"id", column({1, 2, std::nullopt, 4})},
      {"x", column({0.5, std::nullopt, -1e300, 3.0})},
      {"name", column({"a", "b,c", "say \"hi\"", std::nullopt})},
      {"flag", column({true, false, std::nullopt, true})},
      {"day", column({0, 19358, std::nullopt, -1}, dt::Date32(true))},
      {"when", column(std::vector<int64_t>{0, 1'000'000, -5, 1'700'000'000'000'000}, dt::Timestamp(TimeUnit::Micro))},
  };
  const std::string csv = to_csv(df);
  // frame_csv: 8 option bytes (fuzz/frame_csv_fuzz.cpp), then the text.
  put("frame_csv", "inferred.csv", bytes_of({1, 0, 0, 0, 0, 0, 0, 0}, csv));
  put("frame_csv", "given.csv", bytes_of({1, 0, 5, 11, 12, 1, 16, 17}, csv));
  put("frame_csv", "given_nullable.csv", bytes_of({1, 0, 0x84, 0x8a, 0x95, 0x81, 0x90, 0x92}, csv));
  put("frame_csv", "chunked.csv", bytes_of({0x81, 0, 0, 0, 0, 0, 0, 0}, csv));
  put("frame_csv", "no_header.csv", bytes_of({0, 0, 2, 0, 0, 0, 0, 0}, "1,x\n-3,\"y\nz\"\n\n7,w\r\n"));
  put("frame_csv", "tsv.csv", bytes_of({0x43, 0x32, 0, 0, 0, 0, 0, 0}, "skip me\na\tb\n1\t \\\"q\n2\tNA\n"));
  put("frame_csv", "bools.csv", bytes_of({1, 0, 1, 1, 0, 0, 0, 0}, "a,b\nTrue,false\nFALSE,true\n"));
  put("frame_csv", "dict.csv", bytes_of({1, 0x80, 21, 0, 0, 0, 0, 0}, "\xef\xbb\xbfk,v\nred,1\nblue,2\nred,3\n"));
  put("frame_csv", "timestamps.csv",
      bytes_of({1, 0, 18, 19, 20, 0, 0, 0}, "t,s,p,d\n2024-01-02T03:04:05.123456789Z,1970-01-01 00:00:01,"
                                            "2024-03-31T02:30:00+01:00,2024-02-29\n"));
  // data_csv: 2 option bytes (fuzz/data_csv_fuzz.cpp), then the text.
  put("data_csv", "rows.csv", bytes_of({0, 3 << 2}, csv));
  put("data_csv", "dict.csv", bytes_of({0, 0x80 | (5 << 2)}, csv));
  put("data_csv", "escapes.csv", bytes_of({0x10 | 0x20, 1 << 2}, "a,\"b\\\"c\",d\\,e\r\n\"multi\nline\",x\rlast"));
  put("data_csv", "semicolon.csv", bytes_of({1 | 0x40, 0x01 | (63 << 2)}, "# comment\nx; y;\"z\"\n1;2;3\n\n"));
}

// ---- Arrow IPC and the C Data Interface -----------------------------------------------
std::vector<std::pair<std::string, frame::DataFrame>> ipc_frames() {
  using namespace ember::frame;
  namespace dt = dtypes;
  std::vector<std::pair<std::string, Column>> cols;
  for (auto& [name, col] : test::fixtures())
    if (col.size() >= 2) cols.push_back({name, col.slice(0, 2)});
  DataFrame all(std::move(cols));
  std::vector<std::optional<int64_t>> ints;
  std::vector<std::optional<std::string>> strs;
  for (int i = 0; i < 100; ++i) {
    ints.push_back(i % 7 == 0 ? std::nullopt : std::optional<int64_t>(i * 31 % 101));
    strs.push_back(i % 5 == 0 ? std::nullopt : std::optional<std::string>("v" + std::to_string(i % 11)));
  }
  Column s = column(strs);
  DataFrame many{{"i", column(ints)}, {"s", s}, {"d", s.dictionary_encode()},
                 {"l", column_from_values(std::vector<Value>(100, Value::List{1, Value()}), dt::List(dt::Int64(true)))}};
  DataFrame small{{"a", column({1, 2})}, {"b", column({"x", std::nullopt})}};
  return {{"fixtures", all}, {"batches", many}, {"small", small}};
}

void ipc_seeds() {
  using namespace ember::frame;
  for (const auto& [name, df] : ipc_frames()) {
    for (IpcCompression c : {IpcCompression::None, IpcCompression::Lz4Frame, IpcCompression::Zstd}) {
      const IpcWriteOptions o = IpcWriteOptions()
                                    .with_compression(c)
                                    .with_max_rows_per_batch(name == "batches" ? 32 : 0)
                                    .with_metadata({{"k", "v"}});
      std::ostringstream f, s;
      write_feather(df, f, o);
      write_ipc_stream(df, s, o);
      put("ipc_file", name + "_" + to_string(c) + ".arrow", f.str());
      put("ipc_stream", name + "_" + to_string(c) + ".arrows", s.str());
      if (name != "fixtures" && s.str().size() < 65535) {
        // c_data's IPC mode: byte 1, a 2-byte length, the stream, then mutation bytes.
        const std::string st = s.str();
        put("c_data", "ipc_" + name + "_" + to_string(c),
            bytes_of({1, int(st.size() & 255), int(st.size() >> 8)}, st) + std::string("\x05\x01\x02\x07\x03", 5));
      }
    }
  }
  // c_data's fixture mode: byte 0, the fixture, then mutation bytes (none: a valid import).
  const size_t n = test::fixtures().size();
  for (size_t i = 0; i < n; ++i) {
    put("c_data", "fixture_" + std::to_string(i), bytes_of({0, int(i)}));
    put("c_data", "fixture_" + std::to_string(i) + "_mutated", bytes_of({0, int(i), 0x13, 0x37, 0x42, 0x99, 0x01, 0xfe}));
  }
  put("c_data", "schema", bytes_of({2}, std::string("\x01\x05" "abc\x00\x02\x01\x01\x03" "+s\x00x\x00", 16)));
}

// ---- IDX ----------------------------------------------------------------------------
std::string be32(uint32_t v) { return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)}; }

void idx_seeds() {
  const std::string images = be32(0x803) + be32(2) + be32(2) + be32(2) + std::string("\x00\x40\x80\xff\x01\x02\x03\x04", 8);
  const std::string labels = be32(0x801) + be32(2) + std::string("\x07\x01", 2);
  put("idx", "images", images);
  put("idx", "labels", labels);
  // MNIST: byte 0 * 4 is the images file's length.
  put("idx", "mnist", bytes_of({int(images.size() / 4)}) + images + labels);
  const std::string mnist_like = be32(0x803) + be32(1) + be32(28) + be32(28) + std::string(784, '\x10');
  put("idx", "mnist_28x28", bytes_of({int(mnist_like.size() / 4)}) + mnist_like + be32(0x801) + be32(1) + "\x03");
}

// ---- archives and compressed streams (libarchive's writers) --------------------------
struct Member {
  Member(std::string p, std::string d, int t = AE_IFREG, std::string l = "")
      : path(std::move(p)), data(std::move(d)), type(t), link(std::move(l)) {}
  std::string path;
  std::string data;
  int type;
  std::string link;
};

la_ssize_t append_cb(struct archive*, void* out, const void* buf, size_t n) {
  static_cast<std::string*>(out)->append(static_cast<const char*>(buf), n);
  return la_ssize_t(n);
}

void la_check(struct archive* a, int r, const char* what) {
  EMBER_CHECK(r >= ARCHIVE_WARN, "fuzz_seeds: libarchive ", what, ": ", archive_error_string(a) ? archive_error_string(a) : "");
}

// An archive in `format` (an archive_write_set_format_* function) through `filter` (or none).
std::string write_archive(int (*format)(struct archive*), int (*filter)(struct archive*), const std::vector<Member>& members,
                          const char* option = nullptr) {
  std::string out;
  struct archive* a = archive_write_new();
  la_check(a, format(a), "format");
  if (filter) la_check(a, filter(a), "filter");
  if (option) la_check(a, archive_write_set_options(a, option), "options");
  archive_write_set_bytes_in_last_block(a, 1);
  la_check(a, archive_write_open(a, &out, nullptr, &append_cb, nullptr), "open");
  for (const Member& m : members) {
    struct archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, m.path.c_str());
    archive_entry_set_filetype(e, unsigned(m.type));
    archive_entry_set_perm(e, m.type == AE_IFDIR ? 0755 : 0644);
    archive_entry_set_mtime(e, 1700000000, 0);
    if (m.type == AE_IFLNK) archive_entry_set_symlink(e, m.link.c_str());
    if (m.type == AE_IFREG) archive_entry_set_size(e, la_int64_t(m.data.size()));
    la_check(a, archive_write_header(a, e), "header");
    if (m.type == AE_IFREG && !m.data.empty())
      EMBER_CHECK(archive_write_data(a, m.data.data(), m.data.size()) == la_ssize_t(m.data.size()), "fuzz_seeds: short write");
    archive_entry_free(e);
  }
  la_check(a, archive_write_close(a), "close");
  archive_write_free(a);
  return out;
}

std::string compress(int (*filter)(struct archive*), const std::string& data) {
  return write_archive(&archive_write_set_format_raw, filter, {{"data", data}});
}

std::vector<Member> sample_members() {
  std::string big;
  for (int i = 0; i < 700; ++i) big.push_back(char('a' + i % 26));
  return {{"dir", "", AE_IFDIR},
          {"dir/hello.txt", "hello world\n"},
          {"dir/empty", ""},
          {"dir/big.bin", big},
          {"dir/link", "", AE_IFLNK, "hello.txt"},
          {std::string(120, 'n') + "/long_name.csv", "a,b\n1,2\n"}};
}

void archive_seeds() {
  const auto members = sample_members();
  const std::vector<Member> one{{"x.txt", "x"}};
  put("tar", "ustar.tar", write_archive(&archive_write_set_format_ustar, nullptr, one));
  put("tar", "gnu.tar", write_archive(&archive_write_set_format_gnutar, nullptr, members));
  put("tar", "pax.tar", write_archive(&archive_write_set_format_pax, nullptr, members));
  put("tar", "v7.tar", write_archive(&archive_write_set_format_v7tar, nullptr, one));
  put("tar", "tar.gz", write_archive(&archive_write_set_format_pax_restricted, &archive_write_add_filter_gzip, members));
  put("tar", "tar.bz2", write_archive(&archive_write_set_format_ustar, &archive_write_add_filter_bzip2, one));
  put("tar", "tar.xz", write_archive(&archive_write_set_format_ustar, &archive_write_add_filter_xz, one));
  put("tar", "tar.zst", write_archive(&archive_write_set_format_ustar, &archive_write_add_filter_zstd, one));
  put("zip", "deflate.zip", write_archive(&archive_write_set_format_zip, nullptr, members));
  put("zip", "store.zip", write_archive(&archive_write_set_format_zip, nullptr, members, "zip:compression=store"));
  put("zip", "one.zip", write_archive(&archive_write_set_format_zip, nullptr, one, "zip:compression=store"));
  put("zip", "zip64.zip", write_archive(&archive_write_set_format_zip, nullptr, one, "zip:zip64"));

  // decompress: byte 0 is the format (0 gzip, 1 bz2, 2 xz, 3 zstd) and the read size.
  const std::string text = "The quick brown fox jumps over the lazy dog. 0123456789\n";
  const std::string gz = compress(&archive_write_add_filter_gzip, text);
  put("decompress", "text.gz", bytes_of({0}) + gz);
  put("decompress", "two_members.gz", bytes_of({0 | (3 << 2)}) + gz + gz + std::string(8, '\0'));
  put("decompress", "text.bz2", bytes_of({1}) + compress(&archive_write_add_filter_bzip2, text));
  put("decompress", "text.xz", bytes_of({2 | (1 << 2)}) + compress(&archive_write_add_filter_xz, text));
  put("decompress", "text.lzma", bytes_of({2}) + compress(&archive_write_add_filter_lzma, text));
  put("decompress", "text.zst", bytes_of({3 | (9 << 2)}) + compress(&archive_write_add_filter_zstd, text));
  put("decompress", "empty.gz", bytes_of({0}) + compress(&archive_write_add_filter_gzip, ""));
  // The tar target reads compressed tars too; the raw streams above seed it as well.
  put("tar", "raw.gz", gz);
}

// ---- loader states, S3 bodies, JSON ---------------------------------------------------
void loader_state_seeds() {
  using namespace ember::data;
  using namespace ember::data::datapipes;
  auto pipe = [] {
    std::vector<int> v(60);
    std::iota(v.begin(), v.end(), 0);
    return IterableWrapper(v).shuffle(16).sharding_filter().map([](int x) { return x * 2; }).batch(4);
  };
  for (int workers : {0, 2}) {
    DataLoader2 loader(pipe(), std::make_shared<MultiProcessingReadingService>(workers));
    loader.seed(5);
    int n = 0;
    for (auto it = loader.begin(); it != loader.end(); ++it) {
      if (++n == 3) put("loader_state", "workers" + std::to_string(workers) + "_mid.json", json::dump(loader.state_dict()));
    }
    put("loader_state", "workers" + std::to_string(workers) + "_end.json", json::dump(loader.state_dict()));
  }
  manual_seed(6);
  auto p = pipe();
  int n = 0;
  for (auto it = p.begin(); it != p.end(); ++it)
    if (++n == 4) put("loader_state", "pipe_mid.json", json::dump(p.state()));
}

void s3_seeds() {
  put("s3_xml", "list.xml", R"(<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>bucket</Name><Prefix>data/</Prefix>
<KeyCount>2</KeyCount><MaxKeys>1000</MaxKeys><EncodingType>url</EncodingType><IsTruncated>true</IsTruncated>
<NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
<Contents><Key>data/a%20b.csv</Key><LastModified>2024-01-02T03:04:05.000Z</LastModified>
<ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag><Size>1234</Size><StorageClass>STANDARD</StorageClass></Contents>
<Contents><Key><![CDATA[data/<odd>&.bin]]></Key><Size>0</Size></Contents></ListBucketResult>)");
  put("s3_xml", "empty_list.xml", "<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>");
  put("s3_xml", "error.xml", R"(<?xml version="1.0" encoding="UTF-8"?>
<!-- a comment --><!DOCTYPE Error><Error><Code>NoSuchKey</Code><Message>The resource &lt;x&gt; &#65;&#x42; does not exist.</Message>
<Resource>/bucket/key</Resource><RequestId>4442587FB7D0A2F9</RequestId></Error>)");
  put("s3_xml", "html.xml", "<html><body><h1>502 Bad Gateway</h1></body></html>");
}

void json_seeds() {
  put("json", "object.json", R"({"a":1,"b":[true,false,null],"c":{"d":-1.5e-3,"e":"x\u00e9\n\"y\""},"f":9223372036854775807})");
  put("json", "numbers.json", "[0,-0,1e308,-1e-308,18446744073709551616,1.0,3.14159265358979,-9223372036854775808]");
  put("json", "strings.json", R"(["", "\ud83d\ude00", "\\/\b\f\r\t", "\u0000"])");
  put("json", "nested.json", "[[[[[[[[{}]]]]]]]]");
  // A safetensors header, as the reader parses it.
  const std::string st = serialize::to_safetensors({{"w", ones({2, 2})}}, {{"format", "pt"}});
  uint64_t n = 0;
  std::memcpy(&n, st.data(), 8);
  put("json", "safetensors_header.json", st.substr(8, size_t(n)));
}

// ---- the regression inputs of tests/fuzz/regressions/ ---------------------------------
// (a) A tar whose first regular member's GNU header has a huge 'realsize' (offset 483, 12
// bytes octal) with 19 bytes stored: reading it must not stream zeros without end.
std::string tar_huge_realsize() {
  std::string h(512, '\0');
  auto field = [&](size_t off, const std::string& v) { std::memcpy(&h[off], v.data(), v.size()); };
  field(0, "realsize.txt");
  field(100, "0000644");
  field(108, "0001750");
  field(116, "0001750");
  field(124, "00000000023");  // 19 bytes stored
  field(136, "14530000000");
  h[156] = '0';
  field(257, std::string("ustar  ", 8));  // GNU magic and version ("ustar  \0")
  field(265, "user");
  field(297, "group");
  field(483, "77777777777");  // realsize: 8 GiB
  field(148, "        ");
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  char chk[8];
  std::snprintf(chk, sizeof chk, "%06o", sum);
  std::memcpy(&h[148], chk, 7);  // six digits, NUL, then the space already there
  std::string data = "nineteen bytes here";
  data.resize(512, '\0');
  return h + data + std::string(1024, '\0');
}

std::string tensor_list_claiming(int64_t size) {
  return archive_bytes([&](serialize::OutputArchive& a) {
    a.write("0", ones({2}));
    a.write("1", arange(3));
    a.write("size", IValue(size));
  });
}

void regressions() {
  put("tar", "gnu_huge_realsize.tar", tar_huge_realsize());
  put("archive_tensors", "list_size_minus_1.safetensors", tensor_list_claiming(-1));
  put("archive_tensors", "list_size_2p62.safetensors", tensor_list_claiming(int64_t(1) << 62));
  put("archive_tensors", "list_size_150000000.safetensors", tensor_list_claiming(150000000));
  // (c) An Adam checkpoint whose "state.0.exp_avg_sq" is renamed "state.0.exp_avg_sX".
  std::string adam = adam_bytes();
  const std::string from = "state.0.exp_avg_sq\"", to = "state.0.exp_avg_sX\"";
  const size_t at = adam.find(from);
  EMBER_CHECK(at != std::string::npos, "fuzz_seeds: no ", from, " in the Adam checkpoint");
  adam.replace(at, from.size(), to);
  put("archive_optimizer", "adam_exp_avg_sX.safetensors", adam);
  // (d) read_csv_string("id,b\n") with b given as a (non-nullable) Boolean column.
  put("frame_csv", "header_only_bool.csv", bytes_of({1, 0, 0, 1, 0, 0, 0, 0}, "id,b\n"));
  // CDATA before the root element: parse_xml appended it to the top of an empty stack.
  put("s3_xml", "cdata_before_root.xml", "<![CDATA[x]]>");
  // " -1" as a <Size>: strtoull took it as 2^64 - 1.
  put("s3_xml", "size_minus_1.xml", "<ListBucketResult><Contents><Key>k</Key><Size> -1</Size></Contents></ListBucketResult>");
}

// ---- saved JIT programs ---------------------------------------------------------------
void jit_program_seeds() {
  manual_seed(4);
  auto mlp = nn::Sequential(nn::Linear(4, 8), nn::ReLU(), nn::LayerNorm(nn::LayerNormOptions({8})), nn::Linear(8, 2));
  put("jit_program", "mlp.ember", jit::save_to_bytes(jit::trace(mlp, {randn({3, 4})})));
  const Tensor c = arange(6.0).reshape({2, 3});
  auto fn = jit::trace(
      [&](const std::vector<Tensor>& in) {
        Tensor y = in[0].transpose(0, 1).matmul(c).softmax(1) * 2;
        y.add_(1);
        return std::vector<Tensor>{y.sum({0}, true), in[0].narrow(1, 0, 1).clone()};
      },
      {randn({2, 2})});
  put("jit_program", "function.ember", jit::save_to_bytes(fn));
  // Size-generic (Note [Dynamic sizes]): size symbols, size uses and twin sizes.
  auto lin = nn::Linear(12, 5);
  auto generic = jit::trace_module(
      lin.ptr(),
      [&](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{gelu(lin->forward(in[0].reshape({in[0].size(0), 12}))).view({in[0].size(0) * 5})};
      },
      {randn({4, 3, 4})});
  (void)generic.forward(std::vector<Tensor>{randn({6, 3, 4})});
  put("jit_program", "generic.ember", jit::save_to_bytes(generic));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--regressions") {
    g_root = argv[2];
    regressions();
  } else if (argc == 2) {
    g_root = argv[1];
    safetensors_seeds();
    module_seeds();
    optimizer_seeds();
    scheduler_seeds();
    tensor_archive_seeds();
    csv_seeds();
    ipc_seeds();
    idx_seeds();
    archive_seeds();
    loader_state_seeds();
    s3_seeds();
    json_seeds();
    jit_program_seeds();
    // Checkpoints are safetensors files: they seed the tensor readers too.
    for (const char* from : {"archive_module", "archive_optimizer", "archive_scheduler", "archive_tensors"})
      for (const auto& e : fs::directory_iterator(g_root / from)) {
        fs::create_directories(g_root / "safetensors");
        fs::copy_file(e.path(), g_root / "safetensors" / (std::string(from) + "_" + e.path().filename().string()),
                      fs::copy_options::overwrite_existing);
      }
  } else {
    std::cerr << "usage: fuzz_seeds <dir> | fuzz_seeds --regressions <dir>\n";
    return 2;
  }
  std::cout << "fuzz_seeds: wrote " << g_files << " files under " << g_root.string() << "\n";
  return 0;
}
