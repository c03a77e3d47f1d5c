// Checkpoints: safetensors reading/writing (every dtype, files written by the reference
// Python package, hostile files), atomic saves, archives, and torch::save/load of tensors,
// modules and optimizers.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "ember/serialize/json.h"
#include "test_util.h"

namespace ember {
namespace {

namespace fs = std::filesystem;
using serialize::from_safetensors;
using serialize::to_safetensors;

// A fresh directory per test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    std::string t = (fs::temp_directory_path() / "ember-serialize-XXXXXX").string();
    EXPECT_NE(::mkdtemp(t.data()), nullptr);
    path_ = t;
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

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
  TempDir dir;
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
  TempDir dir;
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
  for (const auto& e : fs::directory_iterator(dir.path())) files += e.is_regular_file();
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
  TempDir dir;
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
  TempDir dir;
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
  TempDir dir;
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
  TempDir dir;
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

TEST(Serialize, RngStateRestoresTheStream) {
  manual_seed(42);
  (void)randn({10});
  const Tensor state = get_rng_state();
  const Tensor first = randn({5});
  (void)rand({7});
  set_rng_state(state);
  EXPECT_TENSOR_EQ(randn({5}), first);
  EXPECT_ERROR_WITH(set_rng_state(zeros({3})), "set_rng_state: expected a uint8 tensor of 16 bytes");
}

}  // namespace
}  // namespace ember
