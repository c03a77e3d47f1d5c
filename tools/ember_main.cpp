// The `ember` command. `ember train` trains a small convolutional network on the UCI 8x8
// handwritten digits shipped in data/digits (1,797 images; 20% held out for testing) and
// prints the held-out accuracy; `make demo` runs it. Written against the LibTorch API.
//
//   ember train [--epochs N] [--lr X] [--batch-size N] [--seed N] [--threads N]
//               [--channels-last] [--bf16] [--checkpoint FILE] [--resume] [--data FILE]
//               [--no-progress] [--stop-after-epoch N] [--device cpu|cuda[:N]]
//   ember run [--nproc-per-node N] [--nnodes M --node-rank R] [--master-addr A]
//             [--master-port P] [--max-restarts K] program [args...]
//   ember --help, ember train --help, ember run --help, ember --version
//
// --stop-after-epoch N ends the run after epoch N as if it were interrupted there (its
// checkpoint is the one --resume continues from).
// Every epoch ends with a checkpoint (model, optimizer, random-number state, epoch) written
// atomically; --resume continues from it and reproduces the uninterrupted run bit for bit.
// `ember run` starts a distributed job as torchrun does (ember/distributed/launcher.h): N copies
// of the program with RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR and
// MASTER_PORT set, their output prefixed by rank; one failing ends the others.
// --device cuda trains on a GPU (the weights are initialized on the CPU, so a seed gives the
// same initial model on every device; dropout draws from the GPU's generator, reseeded from
// --seed and the epoch).
#include <CLI/CLI.hpp>
#include <torch/torch.h>

#include "ember/distributed/launcher.h"
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#ifndef EMBER_DIGITS_PATHS
#define EMBER_DIGITS_PATHS ""
#endif

namespace {

struct Config {
  int64_t epochs = 10;
  int64_t stop_after = 0;  // 0: run to the end
  double lr = 2e-3;
  int64_t batch_size = 32;
  uint64_t seed = 0;
  int threads = 0;  // 0: ember's default
  bool channels_last = false;
  bool bf16 = false;
  bool progress = true;
  bool resume = false;
  std::string checkpoint = "ember-digits.safetensors";
  std::string data;
  std::string device = "cpu";
};

// A validator for a number of type T that is > 0 (positive) or >= 0: "--lr: expects a
// number > 0, got 'fast'".
template <class T>
CLI::Validator sign_check(bool positive) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        T v{};
        if (CLI::detail::lexical_cast(text, v) && (positive ? v > T(0) : v >= T(0))) return "";
        return std::string("expects a number ") + (positive ? "> 0" : ">= 0") + ", got '" + text + "'";
      },
      positive ? "POSITIVE" : "NONNEGATIVE");
}

// The command line, parsed by CLI11: `ember --help`, `ember train --help`; a usage error
// prints CLI11's message (it names the option and the value) and exits with status 2.
struct CommandLine {
  CLI::App app{"ember: train a small CNN on the UCI 8x8 handwritten digits (data/digits)", "ember"};
  CLI::App* train = nullptr;
  CLI::App* run = nullptr;
  CLI::App* config_cmd = nullptr;
  Config config;
  ember::distributed::LaunchOptions launch;

  CommandLine() {
    app.require_subcommand(1);
    app.set_version_flag("--version", "ember " EMBER_VERSION);
    train = app.add_subcommand("train", "train the digits CNN and print the held-out accuracy");
    Config& c = config;
    train->add_option("--epochs", c.epochs, "epochs to train")->capture_default_str()->check(sign_check<int64_t>(true));
    train->add_option("--lr", c.lr, "Adam's learning rate (cosine-annealed over the epochs)")
        ->capture_default_str()
        ->check(sign_check<double>(true));
    train->add_option("--batch-size", c.batch_size, "examples per step")
        ->capture_default_str()
        ->check(sign_check<int64_t>(true));
    train->add_option("--seed", c.seed, "random seed of the initial weights and the batch order")
        ->capture_default_str();
    train->add_option("--threads", c.threads, "intra-op threads (0: ember's default)")
        ->capture_default_str()
        ->check(sign_check<int>(false));
    train->add_flag("--channels-last", c.channels_last, "train in the channels-last memory format");
    train->add_flag("--bf16", c.bf16, "run forward passes under bfloat16 autocast");
    train->add_option("--checkpoint", c.checkpoint, "checkpoint written atomically after every epoch")
        ->capture_default_str();
    train->add_flag("--resume", c.resume, "continue from --checkpoint (bit-identical to an uninterrupted run)");
    train->add_option("--device", c.device, "where to train: cpu, cuda or cuda:N")->capture_default_str();
    train->add_option("--data", c.data, "the digits as CSV (gzip), 64 pixels 0..16 and a label per line");
    train->add_flag_callback(
        "--no-progress", [&c] { c.progress = false; }, "no progress bar on standard error");
    train
        ->add_option("--stop-after-epoch", c.stop_after,
                     "end after epoch N as if interrupted there (0: run to the end)")
        ->check(sign_check<int64_t>(false));
    run = app.add_subcommand("run", "start a distributed job: N copies of a program, as torchrun");
    auto& l = launch;
    run->add_option("--nproc-per-node", l.nproc_per_node, "processes on this node")
        ->capture_default_str()
        ->check(sign_check<int>(true));
    run->add_option("--nnodes", l.nnodes, "nodes in the job")->capture_default_str()->check(sign_check<int>(true));
    run->add_option("--node-rank", l.node_rank, "this node's rank")->capture_default_str()->check(sign_check<int>(false));
    run->add_option("--master-addr", l.master_addr, "rank 0's address")->capture_default_str();
    run->add_option("--master-port", l.master_port, "rank 0's port")->capture_default_str()->check(CLI::Range(1, 65535));
    run->add_option("--max-restarts", l.max_restarts,
                    "restarts of a failed group (with several nodes, all restart together; their launchers meet at "
                    "--master-port + 1)")
        ->capture_default_str()
        ->check(sign_check<int>(false));
    run->prefix_command();  // the program and its arguments, untouched
    config_cmd = app.add_subcommand("config", "print how this ember was built and the kernel instruction set in use");
  }

  // The parsed configuration, or the exit status of --help, --version or a usage error.
  std::variant<Config, int> parse(int argc, char** argv) {
    if (argc > 1 && argv[1][0] != '-' && std::string(argv[1]) != train->get_name() &&
        std::string(argv[1]) != run->get_name() && std::string(argv[1]) != config_cmd->get_name()) {
      std::cerr << "ember: unknown command '" << argv[1]
                << "' (commands: train, run, config)\nRun 'ember --help' for usage.\n";
      return 2;
    }
    try {
      app.parse(argc, argv);
    } catch (const CLI::Success& e) {  // --help, --version
      return app.exit(e);
    } catch (const CLI::ParseError& e) {
      std::cerr << "ember: " << e.what() << "\nRun 'ember --help' or 'ember train --help' for usage.\n";
      return 2;
    }
    return config;
  }
};

// ---- data ----

struct Digits {
  torch::Tensor images;  // [N, 1, 8, 8] float in [0, 1]
  torch::Tensor labels;  // [N] int64
};

// The data set: --data, else beside an installed program (<prefix>/share/ember), else the
// source tree this program was built from.
std::string find_data(const std::string& requested) {
  if (!requested.empty()) return requested;
  std::vector<std::string> candidates;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back((exe.parent_path().parent_path() / "share/ember/digits.csv.gz").string());
  std::stringstream paths(EMBER_DIGITS_PATHS);
  for (std::string p; std::getline(paths, p, '|');)
    if (!p.empty()) candidates.push_back(p);
  std::string tried;
  for (const std::string& p : candidates) {
    if (std::filesystem::exists(p)) return p;
    tried += (tried.empty() ? "" : ", ") + p;
  }
  throw std::runtime_error("cannot find digits.csv.gz (looked in: " + tried + "); pass --data FILE");
}

Digits load_digits(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open '" + path + "'");
  std::string text;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) text.append(buf, size_t(n));
  const bool failed = n < 0;
  gzclose(f);
  if (failed) throw std::runtime_error("'" + path + "' is not a valid gzip file");
  std::vector<float> pixels;
  std::vector<int64_t> labels;
  std::istringstream lines(text);
  int64_t line_no = 0;
  for (std::string line; std::getline(lines, line);) {
    ++line_no;
    if (line.empty()) continue;
    std::istringstream fields(line);
    std::vector<double> row;
    for (std::string field; std::getline(fields, field, ',');) {
      char* end = nullptr;
      const double v = std::strtod(field.c_str(), &end);
      if (field.empty() || *end != '\0')
        throw std::runtime_error(path + ":" + std::to_string(line_no) + ": '" + field + "' is not a number");
      row.push_back(v);
    }
    if (row.size() != 65)
      throw std::runtime_error(path + ":" + std::to_string(line_no) + ": expected 65 values (64 pixels, label), got " +
                               std::to_string(row.size()));
    for (int i = 0; i < 64; ++i) pixels.push_back(float(row[size_t(i)] / 16.0));
    if (row[64] < 0 || row[64] > 9 || row[64] != std::floor(row[64]))
      throw std::runtime_error(path + ":" + std::to_string(line_no) + ": label must be 0..9");
    labels.push_back(int64_t(row[64]));
  }
  const int64_t count = int64_t(labels.size());
  if (count == 0) throw std::runtime_error("'" + path + "' holds no images");
  return {torch::from_blob(pixels.data(), {count, 1, 8, 8}, torch::kFloat).clone(),
          torch::from_blob(labels.data(), {count}, torch::kLong).clone()};
}

// ---- model ----

torch::nn::Sequential make_model() {
  using namespace torch::nn;
  return Sequential(Conv2d(Conv2dOptions(1, 32, 3).padding(1)), BatchNorm2d(32), ReLU(),
                    Conv2d(Conv2dOptions(32, 64, 3).padding(1)), BatchNorm2d(64), ReLU(), MaxPool2d(2),
                    Flatten(), Dropout(0.25), Linear(64 * 4 * 4, 128), ReLU(), Dropout(0.25), Linear(128, 10));
}

// ---- progress ----

class Progress {
 public:
  Progress(bool enabled, int64_t epoch, int64_t epochs, int64_t total)
      : enabled_(enabled && ::isatty(2)), epoch_(epoch), epochs_(epochs), total_(total),
        start_(std::chrono::steady_clock::now()) {}
  void update(int64_t done, double loss) {
    if (!enabled_) return;
    const double s = seconds();
    const double rate = done / std::max(s, 1e-9);
    const int width = 24, filled = int(width * done / std::max<int64_t>(total_, 1));
    std::fprintf(stderr, "\repoch %lld/%lld [%s%s] %lld/%lld  %.0f batch/s  ETA %.1fs  loss %.4f   ",
                 (long long)epoch_, (long long)epochs_, std::string(size_t(filled), '#').c_str(),
                 std::string(size_t(width - filled), '.').c_str(), (long long)done, (long long)total_, rate,
                 (total_ - done) / std::max(rate, 1e-9), loss);
    std::fflush(stderr);
  }
  void finish() {
    if (enabled_) std::fprintf(stderr, "\r%*s\r", 100, "");
  }
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  bool enabled_;
  int64_t epoch_, epochs_, total_;
  std::chrono::steady_clock::time_point start_;
};

// ---- training ----

double accuracy(torch::nn::Sequential& model, const torch::Tensor& x, const torch::Tensor& y, const Config& c) {
  torch::NoGradGuard no_grad;
  model->eval();
  torch::Tensor logits;
  {
    torch::amp::autocast bf16(x.device().type(), torch::kBFloat16, c.bf16);
    logits = model->forward(x);
  }
  model->train();
  return logits.argmax(1).eq(y).to(torch::kDouble).mean().item<double>();
}

// --device: the CPU, or a CUDA device that this machine has.
torch::Device training_device(const std::string& name) {
  torch::Device dev(torch::kCPU);
  try {
    dev = torch::Device(name);
  } catch (const std::exception&) {
    throw std::runtime_error("--device: expects cpu, cuda or cuda:N, got '" + name + "'");
  }
  if (dev.is_cuda()) {
    if (!torch::cuda::is_available())
      throw std::runtime_error("--device " + name +
                               ": CUDA is not available on this machine (torch::cuda::is_available() is false)");
    if (dev.index() >= int64_t(torch::cuda::device_count()))
      throw std::runtime_error("--device " + name + ": this machine has " + std::to_string(torch::cuda::device_count()) +
                               " CUDA device(s)");
    if (!dev.has_index()) dev = torch::Device(torch::kCUDA, 0);
  } else if (!dev.is_cpu()) {
    throw std::runtime_error("--device: expects cpu, cuda or cuda:N, got '" + name + "'");
  }
  return dev;
}

// Adam's state tensors on `dev` (a checkpoint loads them on the CPU).
void move_optimizer_state(torch::optim::Adam& optimizer, const torch::Device& dev) {
  for (auto& [key, state] : optimizer.state()) {
    auto& s = static_cast<torch::optim::AdamParamState&>(*state);
    s.exp_avg(s.exp_avg().to(dev));
    s.exp_avg_sq(s.exp_avg_sq().to(dev));
    if (s.max_exp_avg_sq().defined()) s.max_exp_avg_sq(s.max_exp_avg_sq().to(dev));
  }
}

int train(const Config& config_in) {
  Config c = config_in;
  const torch::Device dev = training_device(c.device);
  if (c.threads > 0) torch::set_num_threads(c.threads);
  const std::string data_path = find_data(c.data);
  const Digits data = load_digits(data_path);
  const int64_t n = data.images.size(0), n_test = n / 5;
  // A fixed split (independent of --seed): the same held-out images for every run.
  const torch::Tensor order = torch::randperm(n, torch::Generator(20241129), torch::kLong);
  const torch::Tensor test_idx = order.slice(0, 0, n_test), train_idx = order.slice(0, n_test);
  auto memory_format = c.channels_last ? torch::MemoryFormat::ChannelsLast : torch::MemoryFormat::Contiguous;
  const torch::Tensor x_train = data.images.index_select(0, train_idx).contiguous(memory_format).to(dev);
  const torch::Tensor y_train = data.labels.index_select(0, train_idx).to(dev);
  const torch::Tensor x_test = data.images.index_select(0, test_idx).contiguous(memory_format).to(dev);
  const torch::Tensor y_test = data.labels.index_select(0, test_idx).to(dev);

  torch::manual_seed(c.seed);
  auto model = make_model();  // initialized on the CPU (the same weights on every device), then moved
  if (c.channels_last) model->to(torch::MemoryFormat::ChannelsLast);
  model->to(dev);
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(c.lr));
  torch::optim::CosineAnnealingLR schedule(optimizer, c.epochs);  // base lr: --lr, before any checkpoint
  int64_t first_epoch = 1;
  if (c.resume && std::filesystem::exists(c.checkpoint)) {
    torch::serialize::InputArchive archive;
    archive.load_from(c.checkpoint);
    torch::serialize::InputArchive part;
    archive.read("model", part);
    model->load(part);
    archive.read("optimizer", part);
    optimizer.load(part);
    move_optimizer_state(optimizer, dev);
    torch::IValue v;
    archive.read("epoch", v);
    first_epoch = v.toInt() + 1;
    torch::Tensor rng;
    archive.read("rng", rng);
    torch::set_rng_state(rng);
    archive.read("seed", v);
    if (uint64_t(v.toInt()) != c.seed) {
      std::cout << "resuming with the checkpoint's seed " << v.toInt() << "\n";
      c.seed = uint64_t(v.toInt());
    }
    archive.read("batch_size", v);
    c.batch_size = v.toInt();
    std::cout << "resumed from " << c.checkpoint << " after epoch " << first_epoch - 1 << "\n";
  } else if (c.resume) {
    std::cout << "no checkpoint at " << c.checkpoint << "; starting from scratch\n";
  }
  for (int64_t e = 1; e < first_epoch; ++e) schedule.step();

  std::cout << "ember train: " << x_train.size(0) << " training and " << n_test
            << " held-out 8x8 digits, " << c.epochs << " epochs, batch " << c.batch_size << ", "
            << (dev.is_cpu() ? std::to_string(torch::get_num_threads()) + " threads" : "on " + dev.str())
            << (c.channels_last ? ", channels-last" : "")
            << (c.bf16 ? ", bfloat16 autocast" : "") << " (data: " << data_path << ")\n";
  const int64_t batches = (x_train.size(0) + c.batch_size - 1) / c.batch_size;
  const auto start = std::chrono::steady_clock::now();
  for (int64_t epoch = first_epoch; epoch <= c.epochs; ++epoch) {
    // The epoch's order depends only on the seed and the epoch, so a resumed run sees the same.
    const torch::Tensor perm = torch::randperm(x_train.size(0), torch::Generator(c.seed * 1000003 + uint64_t(epoch)),
                                               torch::kLong).to(dev);
    // Dropout on a GPU draws from its CUDA generator: seeded per epoch, as the order is, so
    // that a resumed run draws the same masks.
    if (dev.is_cuda()) torch::cuda::manual_seed_all(c.seed * 1000003 + uint64_t(epoch));  // cuda:N included
    Progress progress(c.progress, epoch, c.epochs, batches);
    double loss_sum = 0;
    for (int64_t b = 0; b < batches; ++b) {
      const torch::Tensor idx = perm.slice(0, b * c.batch_size, std::min((b + 1) * c.batch_size, x_train.size(0)));
      const torch::Tensor x = x_train.index_select(0, idx), y = y_train.index_select(0, idx);
      optimizer.zero_grad();
      torch::Tensor loss;
      {
        torch::amp::autocast bf16(dev.type(), torch::kBFloat16, c.bf16);
        loss = torch::nn::functional::cross_entropy(model->forward(x), y);
      }
      loss.backward();
      optimizer.step();
      loss_sum += loss.item<double>();
      progress.update(b + 1, loss_sum / double(b + 1));
    }
    progress.finish();
    schedule.step();
    const double test_acc = accuracy(model, x_test, y_test, c);
    std::printf("epoch %lld/%lld  loss %.4f  test accuracy %.3f  (%.1f s)\n", (long long)epoch, (long long)c.epochs,
                loss_sum / double(batches), test_acc, progress.seconds());
    std::fflush(stdout);

    torch::serialize::OutputArchive archive, model_part, optimizer_part;
    model->save(model_part);
    optimizer.save(optimizer_part);
    archive.write("model", model_part);
    archive.write("optimizer", optimizer_part);
    archive.write("epoch", torch::IValue(epoch));
    archive.write("seed", torch::IValue(int64_t(c.seed)));
    archive.write("batch_size", torch::IValue(c.batch_size));
    archive.write("rng", torch::get_rng_state());
    archive.save_to(c.checkpoint);
    if (epoch == c.stop_after) {
      std::printf("stopped after epoch %lld; continue with --resume\n", (long long)epoch);
      return 0;
    }
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double test_acc = accuracy(model, x_test, y_test, c);
  std::printf("trained in %.1f s; checkpoint: %s\n", total, c.checkpoint.c_str());
  std::printf("test accuracy: %.3f\n", test_acc);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CommandLine command_line;
  const auto parsed = command_line.parse(argc, argv);
  if (const int* status = std::get_if<int>(&parsed)) return *status;
  if (command_line.config_cmd->parsed()) {  // as python -c 'import torch; print(torch.__config__.show())'
    std::cout << torch::show_config();
    return 0;
  }
  if (command_line.run->parsed()) {
    ember::distributed::LaunchOptions& l = command_line.launch;
    l.command = command_line.run->remaining();
    if (l.command.empty()) {
      std::cerr << "ember run: expected a program to run\nRun 'ember run --help' for usage.\n";
      return 2;
    }
    try {
      return ember::distributed::launch(l, std::cerr);
    } catch (const std::exception& e) {
      std::cerr << "ember run: " << e.what() << "\n";
      return 2;
    }
  }
  try {
    return train(std::get<Config>(parsed));
  } catch (const std::exception& e) {
    std::cerr << "ember train: " << e.what() << "\n";
    return 1;
  }
}
