// Checkpoints: safetensors reading/writing (every dtype, files written by the reference
// Python package, hostile files), atomic saves, archives, and torch::save/load of tensors,
// modules and optimizers.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <iterator>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "ember/core/json.h"
#include "temp_files.h"
#include "test_util.h"

namespace ember {
namespace {

namespace fs = std::filesystem;
using serialize::from_safetensors;
using serialize::to_safetensors;
using test::TempDir;  // tests/temp_files.h: a fresh directory per test, removed afterwards

std::string golden(const std::string& name) { return std::string(EMBER_GOLDEN_DIR) + "/" + name; }

TEST(Json, ParsesAndDumps) {
  json::Value v = json::parse(R"( {"a": [1, -2, 3.5e2, true, null], "s": "x\"\u00e9\ud83d\ude00\n", "big": 9007199254740993} )");
  EXPECT_EQ(v.find("a")->as_array()[1].as_int(), -2);
  EXPECT_DOUBLE_EQ(v.find("a")->as_array()[2].as_double(), 350.0);
  EXPECT_EQ(v.find("s")->as_string(), "x\"\xc3\xa9\xf0\x9f\x98\x80\n");
  EXPECT_EQ(v.find("big")->as_int(), 9007199254740993LL);  // exact beyond 2^53
  EXPECT_EQ(json::dump(json::parse(json::dump(v))), json::dump(v));
  for (const char* bad : {"", "{", "[1,]", "{\"a\":1,\"a\":2}", "\"\\x\"", "01", "1.", "\"\xff\"", "\"\\ud800\"",
                          "[1] 2", "tru", "{\"a\" 1}", "\"a\nb\""})
    EXPECT_THROW(json::parse(bad), Error) << bad;
  EXPECT_ERROR_WITH(json::parse(std::string(100, '[') + std::string(100, ']')), "nesting deeper than 64");
  EXPECT_ERROR_WITH(json::parse("[1, x]", "hdr"), "hdr: invalid JSON at byte 4");
  EXPECT_ERROR_WITH(v.find("s")->as_int("field s"), "field s: expected a JSON integer but got string");
}

// json.h promises exact double round trips: the value, its sign (-0.0 had been written "-0",
// which reads back as the integer 0) and its type (1.0 stays a double).
TEST(Json, DoublesRoundTripWithSignAndType) {
  for (double d : {-0.0, 0.0, 1.0, -1.0, 0.1, 1.0 / 3, 1e300, -1e-300, 5e-324, 9007199254740993.0, 1e21, 123456789.0}) {
    const std::string text = json::dump(json::Value(d));
    const json::Value back = json::parse(text);
    ASSERT_FALSE(back.is_int()) << text;
    EXPECT_EQ(std::signbit(back.as_double()), std::signbit(d)) << text;
    EXPECT_EQ(back.as_double(), d) << text;
  }
  EXPECT_EQ(json::dump(json::Value(-0.0)), "-0.0");
  EXPECT_EQ(json::dump(json::Value(0.1)), "0.1");  // the shortest text that reads back exactly
  EXPECT_EQ(json::dump(json::Value(int64_t(-0))), "0");
  EXPECT_TRUE(json::parse("-0").is_int());  // an integer in the text stays one
  // Integers above INT64_MAX stay exact up to UINT64_MAX (uint64 metadata), then become doubles.
  EXPECT_TRUE(json::parse("18446744073709551615").is_uint64());
  EXPECT_EQ(json::dump(json::parse("18446744073709551615")), "18446744073709551615");
  EXPECT_EQ(json::parse("9223372036854775808").as_double(), 9223372036854775808.0);
  EXPECT_ERROR_WITH(json::parse("9223372036854775808").as_int("n"), "n: expected a JSON integer but got integer above INT64_MAX");
  EXPECT_FALSE(json::parse("18446744073709551616").is_uint64());
  EXPECT_FALSE(json::parse("-9223372036854775809").is_uint64());
  EXPECT_TRUE(std::isinf(json::parse("1e400").as_double()));  // out of range: as strtod
  EXPECT_EQ(json::parse("-1e-400").as_double(), 0.0);
  EXPECT_TRUE(std::signbit(json::parse("-1e-400").as_double()));
}

TEST(Safetensors, RoundTripsEveryDtype) {
  std::map<std::string, Tensor> in;
  for (ScalarType t : {kBool, kByte, kChar, kShort, kInt, kLong, kHalf, kBFloat16, kFloat, kDouble, kComplexHalf,
                       kComplexFloat, kComplexDouble})
    in["t" + std::to_string(int(t))] = test::random_tensor({3, 4}, t);
  in["scalar"] = tensor(2.5);
  in["empty"] = zeros({0, 5});
  in["transposed"] = arange(12, kFloat).view({3, 4}).t();  // non-contiguous: stored row-major
  in["channels_last"] = randn({2, 3, 4, 5}).contiguous(MemoryFormat::ChannelsLast);
  in["conj"] = test::random_tensor({3}, kComplexFloat).conj();
  const std::string bytes = to_safetensors(in, {{"k", "v"}});
  EXPECT_EQ(bytes.size() % 8, 0u);  // the header is padded so the data is 8-byte aligned
  const auto out = from_safetensors(bytes.data(), bytes.size());
  ASSERT_EQ(out.tensors.size(), in.size());
  for (const auto& [name, t] : in) {
    const Tensor& r = out.tensors.at(name);
    EXPECT_EQ(r.scalar_type(), t.scalar_type()) << name;
    EXPECT_TRUE(r.is_contiguous()) << name;
    EXPECT_TENSOR_EQ(r, t);
  }
  EXPECT_EQ(out.metadata, (std::map<std::string, std::string>{{"k", "v"}}));
  EXPECT_ERROR_WITH(to_safetensors({{"x", Tensor()}}), "tensor 'x' is undefined");
  EXPECT_ERROR_WITH(to_safetensors({{"x", ones({1})}}, {{"ember.dtype.x", "complex64"}}), "reserved by ember");
}

TEST(Safetensors, ReadsFilesOfTheReferencePackage) {
  // Written by safetensors.torch (tests/golden/gen_safetensors.py).
  const auto f = serialize::load_file(golden("safetensors_dtypes.safetensors"));
  EXPECT_EQ(f.metadata.at("producer"), "gen_safetensors.py");
  EXPECT_TENSOR_EQ(f.tensors.at("bool"), tensor({true, false, true, false, false, true}).view({2, 3}));
  EXPECT_TENSOR_EQ(f.tensors.at("u8"), tensor({0, 50, 100, 150, 200}).to(kByte));
  EXPECT_TENSOR_EQ(f.tensors.at("i8"), tensor({-128, -1, 0, 127}).to(kChar));
  EXPECT_TENSOR_EQ(f.tensors.at("i16"), tensor({-32768, 7, 32767}).to(kShort));
  EXPECT_TENSOR_EQ(f.tensors.at("i32"), tensor({INT32_MIN, 0, 5, INT32_MAX}).to(kInt).view({2, 2}));
  EXPECT_TENSOR_EQ(f.tensors.at("i64"), tensor({INT64_MIN, int64_t(3), INT64_MAX}));
  EXPECT_TENSOR_EQ(f.tensors.at("f16"), tensor({1.5, -0.0, 65504.0, 6e-8}).to(kHalf));
  EXPECT_TENSOR_EQ(f.tensors.at("bf16"), tensor({1.0, -2.5, 3.0e38, 1e-38}).to(kBFloat16).view({2, 2}));
  EXPECT_EQ(f.tensors.at("f32").sizes(), IntArrayRef({2, 3, 4}));
  EXPECT_EQ(f.tensors.at("f64").scalar_type(), kDouble);
  EXPECT_EQ(f.tensors.at("scalar").dim(), 0);
  EXPECT_EQ(f.tensors.at("scalar").item<float>(), 3.25f);
  EXPECT_EQ(f.tensors.at("empty").sizes(), IntArrayRef({0, 3}));
}

TEST(Safetensors, PythonPackageReadsEmberFilesAndEmberReadsItsFiles) {
  TempDir dir("ember-serialize");
  std::map<std::string, Tensor> t{{"a", arange(12, kFloat).view({3, 4})},
                                  {"b", tensor({int64_t(1), int64_t(-2), int64_t(3)})},
                                  {"c", tensor({true, false})},
                                  {"h", (arange(4, kDouble) / 4).to(kHalf)},
                                  {"z", test::from_complex_vector({{1, 2}, {0, -3.5}}, {2}).to(kComplexFloat)}};
  serialize::OutputArchive archive;
  for (const auto& [k, v] : t) archive.write(k, v);
  serialize::OutputArchive nested;
  nested.write("w", full({2, 2}, -1.5, kDouble));
  archive.write("nested", nested);
  // Foreign metadata goes through save_file; archives keep theirs under ember's prefix.
  auto all = archive.tensors();
  serialize::save_file(all, dir / "ember.safetensors", {{"note", "h\xc3\xa9llo \"quoted\""}});
  const std::string cmd = "python3 " + std::string(EMBER_GOLDEN_DIR) + "/../serialize/python_interop.py " +
                          (dir / "ember.safetensors") + " " + (dir / "python.safetensors");
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "the reference safetensors package (installed by "
                                            "scripts/install-deps.sh) rejected ember's file: "
                                         << cmd;
  const auto f = serialize::load_file(dir / "python.safetensors");
  EXPECT_EQ(f.metadata.at("from"), "python");
  EXPECT_TENSOR_EQ(f.tensors.at("x"), arange(10, kDouble).mul(1.0 / 9).view({2, 5}));  // numpy: i * step
  EXPECT_TENSOR_EQ(f.tensors.at("y"), tensor({1, 2, 3, 4}).to(kInt).view({2, 2}));
  EXPECT_TENSOR_EQ(f.tensors.at("u"), tensor({0, 255}).to(kByte));
  EXPECT_TENSOR_EQ(f.tensors.at("s"), tensor(7.5f));
}

// A valid file with a few tensors, for the hostile-input tests.
std::string sample_file() {
  return to_safetensors({{"a", arange(6, kFloat).view({2, 3})}, {"b", tensor({int64_t(1), int64_t(2)})},
                         {"c", tensor({1.0, 2.0}).to(kComplexFloat)}},
                        {{"m", "x"}});
}

// A file with the given header text and `data_bytes` zero bytes of data.
std::string with_header(const std::string& header, size_t data_bytes, uint64_t declared = UINT64_MAX) {
  const uint64_t n = declared == UINT64_MAX ? header.size() : declared;
  std::string out(reinterpret_cast<const char*>(&n), 8);
  return out + header + std::string(data_bytes, '\0');
}

void expect_rejected(const std::string& bytes, const std::string& message) {
  EXPECT_ERROR_WITH(from_safetensors(bytes.data(), bytes.size(), "test file"), message);
}

TEST(Safetensors, RejectsHostileFilesWithClearErrors) {
  expect_rejected("abc", "not a safetensors file: 3 bytes");
  expect_rejected(with_header("{}", 0, 1ull << 40), "exceeds the limit");
  expect_rejected(with_header("{}", 0, 50), "truncated safetensors file: the header needs 50 bytes");
  expect_rejected(with_header("[1]", 0), "expected a JSON object but got array");
  expect_rejected(with_header("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]", 8), "invalid JSON");
  expect_rejected(with_header(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 4), "outside the data section");
  expect_rejected(with_header(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8), "need 12");
  expect_rejected(with_header(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,8]}})", 8), "negative size");
  expect_rejected(with_header(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296,4],"data_offsets":[0,8]}})", 8),
                  "shape overflows");
  expect_rejected(with_header(R"({"a":{"dtype":"U32","shape":[2],"data_offsets":[0,8]}})", 8), "unsupported dtype \"U32\"");
  expect_rejected(with_header(R"({"a":{"dtype":"F32","shape":[2]}})", 8), "expected an object with");
  expect_rejected(with_header(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", 8), "data_offsets [8, 0]");
  expect_rejected(with_header(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                              R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8),
                  "it overlaps the previous tensor");
  expect_rejected(with_header(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8),
                  "bytes before it belong to no tensor");
  expect_rejected(with_header(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 8),
                  "the data section has 8 bytes but the tensors cover 4");
  expect_rejected(with_header(R"({"__metadata__":{"ember.dtype.a":"complex64"},)"
                              R"("a":{"dtype":"F32","shape":[3],"data_offsets":[0,12]}})", 12),
                  "metadata says dtype complex64");
  expect_rejected(with_header(R"({"__metadata__":{"k":1}})", 0), "expected a JSON string but got integer");
  expect_rejected(with_header(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{}})", 4), "duplicate key");
  EXPECT_ERROR_WITH(serialize::load_file("/nonexistent/dir/x.safetensors"), "cannot open '/nonexistent/dir/x.safetensors'");
}

TEST(Safetensors, TruncatedAndMutatedFilesNeverReadOutOfBounds) {
  // Run under AddressSanitizer in CI: every outcome must be a clean load or an ember::Error.
  const std::string good = sample_file();
  for (size_t n = 0; n < good.size(); ++n) {
    const std::string cut = good.substr(0, n);  // its own allocation: overreads are caught
    EXPECT_THROW(from_safetensors(cut.data(), cut.size()), Error) << "truncated to " << n << " bytes";
  }
  std::mt19937_64 rng(1234);
  int loaded = 0, rejected = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string bad = good;
    const int flips = 1 + int(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      // Mostly the header (length field included), where the structure lives.
      const size_t header_end = 8 + size_t(*reinterpret_cast<const uint64_t*>(good.data()));
      const size_t pos = rng() % 4 ? rng() % header_end : rng() % bad.size();
      bad[pos] = char(rng() % 3 ? rng() % 256 : "{}[]\":,0123456789-e"[rng() % 19]);
    }
    try {
      auto r = from_safetensors(bad.data(), bad.size());
      for (auto& kv : r.tensors) (void)kv.second.sum().item<double>();
      ++loaded;
    } catch (const Error&) {
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 1000);  // the mutations do reach the validation paths
  EXPECT_GT(loaded, 0);       // and some (data bytes only) still load
}

TEST(Safetensors, SavesAtomically) {
  TempDir dir("ember-serialize");
  const std::string path = dir / "ckpt.safetensors";
  serialize::save_file({{"w", ones({4})}}, path);
  serialize::save_file({{"w", full({4}, 2.0)}}, path);  // replaces
  EXPECT_TENSOR_EQ(serialize::load_file(path).tensors.at("w"), full({4}, 2.0));
  // A save that fails before writing leaves the previous file as it was.
  EXPECT_ERROR_WITH(serialize::save_file({{"w", Tensor()}}, path), "undefined");
  EXPECT_ERROR_WITH(serialize::save_file({{"w", ones({1})}}, dir / "missing/x.safetensors"),
                    "cannot create a temporary file next to");
  EXPECT_TENSOR_EQ(serialize::load_file(path).tensors.at("w"), full({4}, 2.0));
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir.path)) files += e.is_regular_file();
  EXPECT_EQ(files, 1u);  // no temporary files left behind

  // A process killed in the middle of a large save: the old checkpoint survives intact.
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    for (;;) serialize::save_file({{"w", zeros({64 << 20})}}, path);  // 256 MB per save
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  const Tensor w = serialize::load_file(path).tensors.at("w");
  // Either the old file or a complete new one, never a torn mixture.
  EXPECT_TRUE(w.numel() == 4 ? w.equal(full({4}, 2.0)) : (w.numel() == (64 << 20) && w.abs().max().item<float>() == 0));
}

TEST(Archive, NestedArchivesValuesAndErrors) {
  serialize::OutputArchive out, inner;
  inner.write("t", arange(3, kFloat));
  inner.write("count", IValue(int64_t(7)));
  out.write("inner", inner);
  out.write("pi", IValue(3.141592653589793));
  out.write("tiny", IValue(5e-324));
  out.write("flag", IValue(true));
  out.write("name", IValue(std::string("a \"quoted\", comma")));
  out.write("dims", IValue(std::vector<int64_t>{3, -1, 4}));
  out.write("buf", ones({2}), /*is_buffer=*/true);
  EXPECT_ERROR_WITH(out.write("pi", IValue(1.0)), "key 'pi' written twice");
  std::stringstream stream;
  out.save_to(stream);

  serialize::InputArchive in;
  in.load_from(stream);
  EXPECT_EQ(in.keys(), (std::vector<std::string>{"buf", "dims", "flag", "inner", "name", "pi", "tiny"}));
  IValue v;
  in.read("pi", v);
  EXPECT_EQ(v.toDouble(), 3.141592653589793);  // bit-exact
  in.read("tiny", v);
  EXPECT_EQ(v.toDouble(), 5e-324);
  in.read("flag", v);
  EXPECT_TRUE(v.toBool());
  in.read("name", v);
  EXPECT_EQ(v.toStringRef(), "a \"quoted\", comma");
  in.read("dims", v);
  EXPECT_EQ(v.toIntVector(), (std::vector<int64_t>{3, -1, 4}));
  serialize::InputArchive nested;
  in.read("inner", nested);
  Tensor t = zeros({3});  // same shape: overwritten in place, identity kept
  const void* before = t.data_ptr();
  nested.read("t", t);
  EXPECT_EQ(t.data_ptr(), before);
  EXPECT_TENSOR_EQ(t, arange(3, kFloat));
  nested.read("count", v);
  EXPECT_EQ(v.toInt(), 7);
  Tensor other;
  EXPECT_FALSE(in.try_read("nope", other));
  EXPECT_ERROR_WITH(in.read("nope", other), "has no tensor 'nope'");
  EXPECT_ERROR_WITH(nested.read("missing", other), "has no tensor 'inner.missing'");
  EXPECT_ERROR_WITH(in.read("ghost", nested), "has no nested archive 'ghost'");
}

TEST(Serialize, TensorsAndTensorLists) {
  TempDir dir("ember-serialize");
  const Tensor a = randn({3, 4});
  save(a, dir / "a.safetensors");
  Tensor b;
  load(b, dir / "a.safetensors");
  EXPECT_TENSOR_EQ(b, a);
  std::vector<Tensor> list{randn({2}), arange(5), ones({1, 1}).to(kComplexDouble)};
  save(list, dir / "list.safetensors");
  std::vector<Tensor> back;
  load(back, dir / "list.safetensors");
  ASSERT_EQ(back.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_TENSOR_EQ(back[i], list[i]);
}

nn::Sequential small_net() {
  return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(1, 4, 3).padding(1)), nn::BatchNorm2d(4), nn::ReLU(),
                        nn::MaxPool2d(2), nn::Flatten(), nn::Linear(4 * 4 * 4, 10));
}

TEST(Serialize, LoadsAPyTorchStateDictAndReproducesItsOutput) {
  // tests/golden/gen_safetensors.py saved a torch.nn.Sequential's state_dict with an input
  // and the model's output; ember's module with the same structure has the same names.
  nn::Sequential net = small_net();
  load(net, golden("safetensors_model.safetensors"));
  net->eval();
  const auto f = serialize::load_file(golden("safetensors_model.safetensors"));
  EXPECT_TENSOR_CLOSE(net->forward(f.tensors.at("input")), f.tensors.at("output"), 1e-5, 1e-5);
  EXPECT_EQ(net->named_buffers()["1.num_batches_tracked"].item<int64_t>(), 7);
}

TEST(Serialize, ModulesRoundTripAndMismatchesAreClearErrors) {
  TempDir dir("ember-serialize");
  manual_seed(1);
  nn::Sequential a = small_net();
  a->train();
  (void)a->forward(randn({4, 1, 8, 8}));  // moves the batch-norm running statistics
  save(a, dir / "net.safetensors");
  const auto keys = serialize::load_file(dir / "net.safetensors").tensors;
  for (const char* k : {"0.weight", "0.bias", "1.weight", "1.running_mean", "1.running_var", "1.num_batches_tracked",
                        "5.weight", "5.bias"})
    EXPECT_TRUE(keys.count(k)) << k;

  nn::Sequential b = small_net();
  const Tensor weight_handle = b->named_parameters()["5.weight"];
  load(b, dir / "net.safetensors");
  for (const auto& p : a->named_parameters()) EXPECT_TENSOR_EQ(b->named_parameters()[p.key()], p.value());
  for (const auto& p : a->named_buffers()) EXPECT_TENSOR_EQ(b->named_buffers()[p.key()], p.value());
  EXPECT_TRUE(weight_handle.is_same(b->named_parameters()["5.weight"]));  // loaded in place
  EXPECT_TRUE(b->named_parameters()["5.weight"].requires_grad());

  auto wrong = nn::Sequential(nn::Conv2d(nn::Conv2dOptions(1, 8, 3).padding(1)));
  EXPECT_ERROR_WITH(load(wrong, dir / "net.safetensors"),
                    "parameter '0.weight' has shape [4, 1, 3, 3] in the checkpoint but [8, 1, 3, 3] in the module");
  auto bigger = nn::Sequential(nn::Linear(2, 2), nn::Linear(2, 2));
  save(nn::Sequential(nn::Linear(2, 2)), dir / "one.safetensors");
  EXPECT_ERROR_WITH(load(bigger, dir / "one.safetensors"), "has no nested archive '1'");
}

// Trains `steps` steps of a tiny regression with `opt`.
void train_steps(nn::Linear& model, optim::Optimizer& opt, int steps, uint64_t seed) {
  manual_seed(seed);
  for (int i = 0; i < steps; ++i) {
    const Tensor x = randn({8, 3});
    const Tensor y = x.sum(1, true);
    opt.zero_grad();
    nn::functional::mse_loss(model(x), y).backward();
    opt.step();
  }
}

template <class Opt, class Options>
void check_optimizer_resume(const Options& options) {
  TempDir dir("ember-serialize");
  manual_seed(3);
  nn::Linear straight(3, 1);
  nn::Linear resumed(3, 1);
  {
    NoGradGuard ng;
    for (size_t i = 0; i < 2; ++i) resumed->parameters()[i].copy_(straight->parameters()[i]);
  }
  Opt opt_a(straight->parameters(), options);
  train_steps(straight, opt_a, 3, 10);
  save(straight, dir / "m.safetensors");
  save(opt_a, dir / "o.safetensors");
  train_steps(straight, opt_a, 4, 11);

  auto changed = options;
  changed.lr(12345.0);  // the checkpoint's options must win
  Opt opt_b(resumed->parameters(), changed);
  load(resumed, dir / "m.safetensors");
  load(opt_b, dir / "o.safetensors");
  EXPECT_EQ(opt_b.param_groups()[0].options().get_lr(), options.lr());
  train_steps(resumed, opt_b, 4, 11);
  for (size_t i = 0; i < 2; ++i) EXPECT_TENSOR_EQ(resumed->parameters()[i], straight->parameters()[i]);
}

TEST(Serialize, OptimizersResumeBitIdentically) {
  check_optimizer_resume<optim::SGD>(optim::SGDOptions(0.05).momentum(0.9).nesterov(true));
  check_optimizer_resume<optim::Adam>(optim::AdamOptions(0.01).amsgrad(true).weight_decay(0.1));
  check_optimizer_resume<optim::AdamW>(optim::AdamWOptions(0.01));
  check_optimizer_resume<optim::RMSprop>(optim::RMSpropOptions(0.01).centered(true).momentum(0.5));
  check_optimizer_resume<optim::Adagrad>(optim::AdagradOptions(0.1).lr_decay(0.01));
}

TEST(Serialize, OptimizerMismatchesAreClearErrors) {
  TempDir dir("ember-serialize");
  nn::Linear m(3, 1);
  optim::SGD sgd(m->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  train_steps(m, sgd, 1, 1);
  save(sgd, dir / "sgd.safetensors");
  optim::Adam adam(m->parameters());
  EXPECT_ERROR_WITH(load(adam, dir / "sgd.safetensors"), "has no value 'param_groups.0.options.betas.0'");
  nn::Linear other(5, 1);
  optim::SGD wrong_shapes(other->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  EXPECT_ERROR_WITH(load(wrong_shapes, dir / "sgd.safetensors"), "has shape [1, 3] but the parameter has shape [1, 5]");
  std::vector<optim::OptimizerParamGroup> groups{optim::OptimizerParamGroup({m->weight}),
                                                 optim::OptimizerParamGroup({m->bias})};
  optim::SGD two(groups, optim::SGDOptions(0.1));
  EXPECT_ERROR_WITH(load(two, dir / "sgd.safetensors"), "the checkpoint has 1 parameter groups but the optimizer has 2");
}

// Size claims in a tensor list's "size" are checked against the entries present before any
// allocation: a 147-byte file claiming 150,000,000 tensors had zero-filled 1.2 GB.
TEST(Serialize, TensorListSizeFromTheFileIsChecked) {
  TempDir dir("ember-serialize");
  for (int64_t claim : {int64_t(-1), int64_t(1) << 62, int64_t(150'000'000), int64_t(0), int64_t(2)}) {
    serialize::OutputArchive out;
    out.write("0", ones({2}));
    out.write("size", IValue(claim));
    const std::string path = dir / ("claim" + std::to_string(claim) + ".safetensors");
    out.save_to(path);
    std::vector<Tensor> back{ones({1})};
    SCOPED_TRACE(claim);
    EXPECT_ERROR_WITH(load(back, path), "the tensor list's 'size' is " + std::to_string(claim));
    EXPECT_EQ(back.size(), 1u);  // the target is untouched by a failed load
  }
  serialize::OutputArchive not_int;
  not_int.write("size", IValue(std::string("3")));
  not_int.save_to(dir / "str.safetensors");
  std::vector<Tensor> back;
  EXPECT_ERROR_WITH(load(back, dir / "str.safetensors"), "is not an integer");
}

// Rewrites checkpoint `path` into `out` after `edit` changes its tensors (by full name).
void rewrite_checkpoint(const std::string& path, const std::string& out,
                        const std::function<void(std::map<std::string, Tensor>&)>& edit) {
  serialize::SafetensorsContents c = serialize::load_file(path);
  edit(c.tensors);
  serialize::save_file(c.tensors, out, c.metadata);
}

// Every way a state tensor of a checkpoint can be wrong (renamed by one byte, missing, extra,
// misshapen, integer, complex) makes torch::load(optimizer) throw an error naming the tensor,
// leaves the optimizer as it was, and it trains on.
template <class Opt, class Options>
void check_corrupted_optimizer_state(const Options& options, const char* what) {
  SCOPED_TRACE(what);
  TempDir dir("ember-serialize");
  manual_seed(5);
  nn::Linear m(3, 1);
  Opt opt(m->parameters(), options);
  train_steps(m, opt, 2, 7);
  const std::string good = dir / "good.safetensors";
  save(opt, good);
  const auto keys = serialize::load_file(good).tensors;
  std::vector<std::string> state_keys;
  for (const auto& [k, t] : keys)
    if (k.rfind("state.", 0) == 0) state_keys.push_back(k);
  ASSERT_FALSE(state_keys.empty());
  const optim::OptimizerStateDict before = opt.state_dict();
  int cases = 0;
  auto expect_refused = [&](const std::string& file, const std::string& needle) {
    ++cases;
    SCOPED_TRACE(file + ": " + needle);
    EXPECT_ERROR_WITH(load(opt, file), needle);
  };
  for (const std::string& key : state_keys) {
    const std::string name = key.substr(key.rfind('.') + 1);
    const std::string bad = dir / "bad.safetensors";
    rewrite_checkpoint(good, bad, [&](auto& t) {
      Tensor v = t.at(key);
      t.erase(key);
      t[key.substr(0, key.size() - 1) + "X"] = v;  // one byte changed, as the fuzzer did
    });
    expect_refused(bad, name.substr(0, name.size() - 1) + "X");
    rewrite_checkpoint(good, bad, [&](auto& t) { t.erase(key); });
    const std::string prefix = key.substr(0, key.rfind('.') + 1);
    const auto contents = serialize::load_file(good);
    size_t others = contents.metadata.count("ember.value." + prefix + "step");
    for (const std::string& k : state_keys) others += k != key && k.rfind(prefix, 0) == 0;
    if (others > 0) {
      expect_refused(bad, "'" + name + "' is missing");
    } else {  // its only entry gone: the parameter has no state, which is valid (SGD before a step)
      load(opt, bad);
      load(opt, good);
    }
    rewrite_checkpoint(good, bad, [&](auto& t) { t[key] = zeros({7, 7}); });
    expect_refused(bad, name);
    rewrite_checkpoint(good, bad, [&](auto& t) { t[key] = t.at(key).to(kLong); });
    expect_refused(bad, "'" + name + "' has dtype");
    rewrite_checkpoint(good, bad, [&](auto& t) { t[key.substr(0, key.rfind('.')) + ".unexpected"] = zeros({1}); });
    expect_refused(bad, "unexpected");
  }
  EXPECT_GE(cases, 5);
  // Failed loads changed nothing: the state is as before and training goes on.
  const optim::OptimizerStateDict after = opt.state_dict();
  ASSERT_EQ(after.state.size(), before.state.size());
  for (const auto& [i, ps] : before.state)
    for (const auto& [name, t] : ps.tensors) EXPECT_TENSOR_EQ(after.state.at(i).tensors.at(name), t);
  train_steps(m, opt, 1, 8);
  load(opt, good);  // and the intact file still loads
}

TEST(Serialize, CorruptedOptimizerStateIsRefusedAtLoad) {
  check_corrupted_optimizer_state<optim::Adam>(optim::AdamOptions(0.01), "Adam");
  check_corrupted_optimizer_state<optim::Adam>(optim::AdamOptions(0.01).amsgrad(true), "Adam amsgrad");
  check_corrupted_optimizer_state<optim::AdamW>(optim::AdamWOptions(0.01), "AdamW");
  check_corrupted_optimizer_state<optim::SGD>(optim::SGDOptions(0.1).momentum(0.9), "SGD");
  check_corrupted_optimizer_state<optim::RMSprop>(optim::RMSpropOptions(0.01).centered(true).momentum(0.5),
                                                  "RMSprop");
  check_corrupted_optimizer_state<optim::Adagrad>(optim::AdagradOptions(0.1), "Adagrad");
  check_corrupted_optimizer_state<optim::Adadelta>(optim::AdadeltaOptions(), "Adadelta");
  check_corrupted_optimizer_state<optim::Adamax>(optim::AdamaxOptions(), "Adamax");
  check_corrupted_optimizer_state<optim::NAdam>(optim::NAdamOptions(), "NAdam");
  check_corrupted_optimizer_state<optim::RAdam>(optim::RAdamOptions(), "RAdam");
}

// The defect as found: one byte of "state.0.exp_avg_sq" changed; load throws, naming it.
TEST(Serialize, AdamCheckpointWithOneByteChangedInAStateKey) {
  TempDir dir("ember-serialize");
  nn::Linear m(3, 1);
  optim::Adam adam(m->parameters(), optim::AdamOptions(0.01));
  train_steps(m, adam, 1, 1);
  save(adam, dir / "adam.safetensors");
  std::ifstream in(dir / "adam.safetensors", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t at = bytes.find("state.0.exp_avg_sq");
  ASSERT_NE(at, std::string::npos);
  bytes[at + std::strlen("state.0.exp_avg_s")] = 'X';
  std::ofstream(dir / "bad.safetensors", std::ios::binary) << bytes;
  optim::Adam fresh(m->parameters(), optim::AdamOptions(0.01));
  EXPECT_ERROR_WITH(load(fresh, dir / "bad.safetensors"), "unexpected tensor 'exp_avg_sX'");
  train_steps(m, fresh, 1, 2);  // the failed load left no half state behind
}

TEST(Serialize, CorruptedOptimizerOptionsAndStepsAreRefused) {
  TempDir dir("ember-serialize");
  nn::Linear m(3, 1);
  optim::Adam adam(m->parameters(), optim::AdamOptions(0.01));
  train_steps(m, adam, 1, 1);
  optim::OptimizerStateDict d = adam.state_dict();
  auto bad = d;
  bad.state.begin()->second.step = -3;
  EXPECT_ERROR_WITH(adam.load_state_dict(bad), "step count -3 is negative");
  bad = d;
  bad.state.begin()->second.step = 0;
  EXPECT_ERROR_WITH(adam.load_state_dict(bad), "the step count is missing");
  bad = d;
  static_cast<optim::AdamOptions&>(*bad.param_groups[0].options).lr(std::nan(""));
  EXPECT_ERROR_WITH(adam.load_state_dict(bad), "option 'lr' of parameter group 0 is nan");
  bad = d;
  static_cast<optim::AdamOptions&>(*bad.param_groups[0].options).lr(-1);
  EXPECT_ERROR_WITH(adam.load_state_dict(bad), "learning rate -1");
  bad = d;
  bad.param_groups[0].params = {1, 0};
  EXPECT_ERROR_WITH(adam.load_state_dict(bad), "lists parameter 1 at position 0");
  bad = d;
  bad.state.begin()->second.tensors.at("exp_avg") = Tensor();
  EXPECT_ERROR_WITH(adam.load_state_dict(bad), "'exp_avg' is undefined");
  adam.load_state_dict(d);

  // In a file: a step stored as a double, an options value that is not a number.
  save(adam, dir / "a.safetensors");
  serialize::SafetensorsContents c = serialize::load_file(dir / "a.safetensors");
  auto step_key = std::find_if(c.metadata.begin(), c.metadata.end(),
                               [](const auto& kv) { return kv.first.find(".step") != std::string::npos; });
  ASSERT_NE(step_key, c.metadata.end());
  step_key->second = "double:1.5";
  serialize::save_file(c.tensors, dir / "b.safetensors", c.metadata);
  EXPECT_ERROR_WITH(load(adam, dir / "b.safetensors"), "is not an integer step count");

  // LBFGS: its history pieces are checked as a whole.
  optim::LBFGS lbfgs(m->parameters(), optim::LBFGSOptions(0.1).max_iter(3));
  auto closure = [&] {
    lbfgs.zero_grad();
    Tensor loss = nn::functional::mse_loss(m(ones({4, 3})), zeros({4, 1}));
    loss.backward();
    return loss;
  };
  lbfgs.step(closure);
  optim::OptimizerStateDict l = lbfgs.state_dict();
  auto lb = l;
  lb.state.at(1).tensors.erase("d");
  EXPECT_ERROR_WITH(lbfgs.load_state_dict(lb), "state of parameter 1: tensor 'd' is missing");
  lb = l;
  lb.state.at(0).tensors.erase("n_iter");
  EXPECT_ERROR_WITH(lbfgs.load_state_dict(lb), "scalar 'n_iter' is missing");
  lb = l;
  lb.state.at(0).tensors.at("n_iter") = full({}, 9.2663e+218, TensorOptions().dtype(kDouble));  // found by fuzz/
  EXPECT_ERROR_WITH(lbfgs.load_state_dict(lb), "'n_iter' is 9.2663e+218 (expected a count");
  lb = l;
  lb.state.at(0).tensors.at("func_evals") = full({}, -1.0, TensorOptions().dtype(kDouble));
  EXPECT_ERROR_WITH(lbfgs.load_state_dict(lb), "'func_evals' is -1");
  lb = l;
  lb.state.at(0).tensors["old_dirs_99"] = zeros({1, 3});
  EXPECT_ERROR_WITH(lbfgs.load_state_dict(lb), "unexpected tensor 'old_dirs_99'");
  lbfgs.load_state_dict(l);
  lbfgs.step(closure);
}

TEST(Serialize, RngStateRestoresTheStream) {
  manual_seed(42);
  (void)randn({10});
  const Tensor state = get_rng_state();
  const Tensor first = randn({5});
  (void)rand({7});
  set_rng_state(state);
  EXPECT_TENSOR_EQ(randn({5}), first);
  EXPECT_ERROR_WITH(set_rng_state(zeros({3})), "RNG state must be a torch.ByteTensor");
  EXPECT_ERROR_WITH(set_rng_state(zeros({3}, dtype(kByte))), "but found the input RNG state size to be 3");
  // The scalar normal sampler's cached second value is part of the state.
  (void)randn({1});
  const Tensor mid = get_rng_state();
  const Tensor after = randn({3});
  set_rng_state(mid);
  EXPECT_TENSOR_EQ(randn({3}), after);
}

}  // namespace
}  // namespace ember
