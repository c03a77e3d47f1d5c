// The model, training and data code of LibTorch's example programs (pytorch/examples
// cpp/mnist and cpp/dcgan), as written there, compiled against <torch/torch.h> and trained
// for a few steps. The examples read MNIST through torch::data (MNIST dataset, Normalize and
// Stack transforms, make_data_loader with a sampler or with worker threads); with no network
// here, each test first writes small synthetic MNIST files in the IDX format (digits drawn
// as one bright bar whose position is the class) for that code to read.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>

namespace {

// Writes {prefix}-images-idx3-ubyte and {prefix}-labels-idx1-ubyte into `dir`: n images of
// 28x28 pixels, image i of class i % 10 showing a bright horizontal bar at rows
// 2 * class + 4 and 2 * class + 5 over faint noise.
void write_synthetic_mnist(const std::filesystem::path& dir, const std::string& prefix, uint32_t n, uint32_t seed) {
  auto be32 = [](std::ofstream& out, uint32_t v) {
    const char b[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
    out.write(b, 4);
  };
  std::mt19937 rng(seed);
  std::ofstream images(dir / (prefix + "-images-idx3-ubyte"), std::ios::binary);
  std::ofstream labels(dir / (prefix + "-labels-idx1-ubyte"), std::ios::binary);
  be32(images, 0x803);
  be32(images, n);
  be32(images, 28);
  be32(images, 28);
  be32(labels, 0x801);
  be32(labels, n);
  for (uint32_t i = 0; i < n; ++i) {
    const int digit = int(i % 10);
    for (int r = 0; r < 28; ++r)
      for (int c = 0; c < 28; ++c) {
        const bool bar = (r == 2 * digit + 4 || r == 2 * digit + 5) && c >= 4 && c < 24;
        images.put(char(bar ? 200 + int(rng() % 56) : int(rng() % 40)));
      }
    labels.put(char(digit));
  }
}

// A temporary data folder with synthetic MNIST training and test files.
struct SyntheticMnist {
  SyntheticMnist(uint32_t train, uint32_t test)
      : dir(std::filesystem::temp_directory_path() / ("ember-mnist-example-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir);
    write_synthetic_mnist(dir, "train", train, 1);
    write_synthetic_mnist(dir, "t10k", test, 2);
  }
  ~SyntheticMnist() { std::filesystem::remove_all(dir); }
  std::filesystem::path dir;
};

// ---- cpp/mnist/mnist.cpp -----------------------------------------------------------------
// (Each example in its own namespace: both define kNumberOfEpochs and kLogInterval.)
namespace mnist_example {

// Where to find the MNIST dataset (the example's "./data"; set to the synthetic files' folder).
std::string kDataRoot = "./data";

// The batch size for training.
const int64_t kTrainBatchSize = 64;

// The batch size for testing.
const int64_t kTestBatchSize = 1000;

// The number of epochs to train.
const int64_t kNumberOfEpochs = 6;

// After how many batches to log a new update with the loss value.
const int64_t kLogInterval = 10;

struct Net : torch::nn::Module {
  Net()
      : conv1(torch::nn::Conv2dOptions(1, 10, /*kernel_size=*/5)),
        conv2(torch::nn::Conv2dOptions(10, 20, /*kernel_size=*/5)),
        fc1(320, 50),
        fc2(50, 10) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv2_drop", conv2_drop);
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }

  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(torch::max_pool2d(conv1->forward(x), 2));
    x = torch::relu(torch::max_pool2d(conv2_drop->forward(conv2->forward(x)), 2));
    x = x.view({-1, 320});
    x = torch::relu(fc1->forward(x));
    x = torch::dropout(x, /*p=*/0.5, /*training=*/is_training());
    x = fc2->forward(x);
    return torch::log_softmax(x, /*dim=*/1);
  }

  torch::nn::Conv2d conv1;
  torch::nn::Conv2d conv2;
  torch::nn::Dropout2d conv2_drop;
  torch::nn::Linear fc1;
  torch::nn::Linear fc2;
};

// (Returns the epoch's mean loss, which the example does not, for the test to check.)
template <typename DataLoader>
double train(size_t epoch, Net& model, torch::Device device, DataLoader& data_loader,
             torch::optim::Optimizer& optimizer, size_t dataset_size) {
  model.train();
  size_t batch_idx = 0;
  double loss_sum = 0;
  for (auto& batch : data_loader) {
    auto data = batch.data.to(device), targets = batch.target.to(device);
    optimizer.zero_grad();
    auto output = model.forward(data);
    auto loss = torch::nll_loss(output, targets);
    AT_ASSERT(!std::isnan(loss.template item<float>()));
    loss.backward();
    optimizer.step();
    loss_sum += loss.template item<float>();

    if (batch_idx++ % kLogInterval == 0) {
      std::printf("\rTrain Epoch: %ld [%5ld/%5ld] Loss: %.4f", long(epoch), long(batch_idx * batch.data.size(0)),
                  long(dataset_size), loss.template item<float>());
    }
  }
  return loss_sum / double(batch_idx);
}

// (Returns the accuracy, which the example prints only.)
template <typename DataLoader>
double test(Net& model, torch::Device device, DataLoader& data_loader, size_t dataset_size) {
  torch::NoGradGuard no_grad;
  model.eval();
  double test_loss = 0;
  int32_t correct = 0;
  for (const auto& batch : data_loader) {
    auto data = batch.data.to(device), targets = batch.target.to(device);
    auto output = model.forward(data);
    test_loss += torch::nll_loss(output, targets, /*weight=*/{}, torch::Reduction::Sum).template item<float>();
    auto pred = output.argmax(1);
    correct += pred.eq(targets).sum().template item<int64_t>();
  }

  test_loss /= dataset_size;
  std::printf("\nTest set: Average loss: %.4f | Accuracy: %.3f\n", test_loss,
              static_cast<double>(correct) / dataset_size);
  return static_cast<double>(correct) / dataset_size;
}

TEST(LibTorchExamples, MnistTrainsUnchanged) {
  SyntheticMnist files(/*train=*/1280, /*test=*/200);
  kDataRoot = files.dir.string();

  // ---- the example's main() from here
  torch::manual_seed(1);

  torch::DeviceType device_type;
  if (torch::cuda::is_available()) {
    std::cout << "CUDA available! Training on GPU." << std::endl;
    device_type = torch::kCUDA;
  } else {
    std::cout << "Training on CPU." << std::endl;
    device_type = torch::kCPU;
  }
  torch::Device device(device_type);

  Net model;
  model.to(device);

  auto train_dataset = torch::data::datasets::MNIST(kDataRoot)
                           .map(torch::data::transforms::Normalize<>(0.1307, 0.3081))
                           .map(torch::data::transforms::Stack<>());
  const size_t train_dataset_size = train_dataset.size().value();
  auto train_loader =
      torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
          std::move(train_dataset), kTrainBatchSize);

  auto test_dataset = torch::data::datasets::MNIST(
                          kDataRoot, torch::data::datasets::MNIST::Mode::kTest)
                          .map(torch::data::transforms::Normalize<>(0.1307, 0.3081))
                          .map(torch::data::transforms::Stack<>());
  const size_t test_dataset_size = test_dataset.size().value();
  auto test_loader =
      torch::data::make_data_loader(std::move(test_dataset), kTestBatchSize);

  torch::optim::SGD optimizer(
      model.parameters(), torch::optim::SGDOptions(0.01).momentum(0.5));

  std::vector<double> losses;
  double accuracy = 0;
  for (size_t epoch = 1; epoch <= kNumberOfEpochs; ++epoch) {
    losses.push_back(train(epoch, model, device, *train_loader, optimizer, train_dataset_size));
    accuracy = test(model, device, *test_loader, test_dataset_size);
  }
  // ---- to here

  EXPECT_EQ(train_dataset_size, 1280u);
  EXPECT_EQ(test_dataset_size, 200u);
  EXPECT_LT(losses.back(), 0.5 * losses.front());  // the loss falls
  EXPECT_GE(accuracy, 0.9);
}

}  // namespace mnist_example

// ---- cpp/dcgan/dcgan.cpp -----------------------------------------------------------------
namespace dcgan_example {

using namespace torch;

// The size of the noise vector fed to the generator.
const int64_t kNoiseSize = 100;

// The batch size for training.
const int64_t kBatchSize = 64;

// The number of epochs to train.
const int64_t kNumberOfEpochs = 1;

// After how many batches to log a new update with the loss value.
const int64_t kLogInterval = 2;

struct DCGANGeneratorImpl : nn::Module {
  DCGANGeneratorImpl(int kNoiseSize)
      : conv1(nn::ConvTranspose2dOptions(kNoiseSize, 256, 4).bias(false)),
        batch_norm1(256),
        conv2(nn::ConvTranspose2dOptions(256, 128, 3).stride(2).padding(1).bias(false)),
        batch_norm2(128),
        conv3(nn::ConvTranspose2dOptions(128, 64, 4).stride(2).padding(1).bias(false)),
        batch_norm3(64),
        conv4(nn::ConvTranspose2dOptions(64, 1, 4).stride(2).padding(1).bias(false)) {
    // register_module() is needed if we want to use the parameters() method later on
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv3", conv3);
    register_module("conv4", conv4);
    register_module("batch_norm1", batch_norm1);
    register_module("batch_norm2", batch_norm2);
    register_module("batch_norm3", batch_norm3);
  }

  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(batch_norm1(conv1(x)));
    x = torch::relu(batch_norm2(conv2(x)));
    x = torch::relu(batch_norm3(conv3(x)));
    x = torch::tanh(conv4(x));
    return x;
  }

  nn::ConvTranspose2d conv1, conv2, conv3, conv4;
  nn::BatchNorm2d batch_norm1, batch_norm2, batch_norm3;
};

TORCH_MODULE(DCGANGenerator);

TEST(LibTorchExamples, DcganTrainsAndCheckpointsUnchanged) {
  SyntheticMnist files(/*train=*/320, /*test=*/10);
  const std::string kDataFolder = files.dir.string();  // (the example's "./data")

  torch::manual_seed(1);
  torch::Device device(torch::kCPU);
  DCGANGenerator generator(kNoiseSize);
  generator->to(device);

  nn::Sequential discriminator(
      // Layer 1
      nn::Conv2d(nn::Conv2dOptions(1, 64, 4).stride(2).padding(1).bias(false)),
      nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)),
      // Layer 2
      nn::Conv2d(nn::Conv2dOptions(64, 128, 4).stride(2).padding(1).bias(false)), nn::BatchNorm2d(128),
      nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)),
      // Layer 3
      nn::Conv2d(nn::Conv2dOptions(128, 256, 4).stride(2).padding(1).bias(false)), nn::BatchNorm2d(256),
      nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)),
      // Layer 4
      nn::Conv2d(nn::Conv2dOptions(256, 1, 3).stride(1).padding(0).bias(false)), nn::Sigmoid());
  discriminator->to(device);

  torch::optim::Adam generator_optimizer(generator->parameters(), torch::optim::AdamOptions(2e-4).betas(std::make_tuple(0.5, 0.5)));
  torch::optim::Adam discriminator_optimizer(discriminator->parameters(), torch::optim::AdamOptions(2e-4).betas(std::make_tuple(0.5, 0.5)));

  // Assume the MNIST dataset is available under `kDataFolder`;
  auto dataset = torch::data::datasets::MNIST(kDataFolder)
                     .map(torch::data::transforms::Normalize<>(0.5, 0.5))
                     .map(torch::data::transforms::Stack<>());
  const int64_t batches_per_epoch =
      std::ceil(dataset.size().value() / static_cast<double>(kBatchSize));

  auto data_loader = torch::data::make_data_loader(
      std::move(dataset),
      torch::data::DataLoaderOptions().batch_size(kBatchSize).workers(2));

  double first_d = 0, last_d = 0;
  int64_t batches_seen = 0;
  for (int64_t epoch = 1; epoch <= kNumberOfEpochs; ++epoch) {
    int64_t batch_index = 0;
    for (torch::data::Example<>& batch : *data_loader) {
      // Train discriminator with real images.
      discriminator->zero_grad();
      torch::Tensor real_images = batch.data.to(device);
      torch::Tensor real_labels = torch::empty(batch.data.size(0), device).uniform_(0.8, 1.0);
      torch::Tensor real_output = discriminator->forward(real_images).reshape(real_labels.sizes());
      torch::Tensor d_loss_real = torch::binary_cross_entropy(real_output, real_labels);
      d_loss_real.backward();

      // Train discriminator with fake images.
      torch::Tensor noise = torch::randn({batch.data.size(0), kNoiseSize, 1, 1}, device);
      torch::Tensor fake_images = generator->forward(noise);
      torch::Tensor fake_labels = torch::zeros(batch.data.size(0), device);
      torch::Tensor fake_output = discriminator->forward(fake_images.detach()).reshape(fake_labels.sizes());
      torch::Tensor d_loss_fake = torch::binary_cross_entropy(fake_output, fake_labels);
      d_loss_fake.backward();

      torch::Tensor d_loss = d_loss_real + d_loss_fake;
      discriminator_optimizer.step();

      // Train generator.
      generator->zero_grad();
      fake_labels.fill_(1);
      fake_output = discriminator->forward(fake_images).reshape(fake_labels.sizes());
      torch::Tensor g_loss = torch::binary_cross_entropy(fake_output, fake_labels);
      g_loss.backward();
      generator_optimizer.step();
      batch_index++;
      if (batch_index % kLogInterval == 0) {
        std::printf("\r[%2ld/%2ld][%3ld/%3ld] D_loss: %.4f | G_loss: %.4f", long(epoch), long(kNumberOfEpochs),
                    long(batch_index), long(batches_per_epoch), d_loss.item<float>(), g_loss.item<float>());
      }

      // (What the test checks.)
      if (batches_seen++ == 0) first_d = d_loss.item<float>();
      last_d = d_loss.item<float>();
      EXPECT_EQ(batch.data.sizes(), torch::IntArrayRef({kBatchSize, 1, 28, 28}));
      EXPECT_GE(batch.data.min().item<float>(), -1.0f);  // Normalize<>(0.5, 0.5) maps [0, 1] to [-1, 1]
      EXPECT_LE(batch.data.max().item<float>(), 1.0f);
      EXPECT_EQ(fake_images.sizes(), torch::IntArrayRef({kBatchSize, 1, 28, 28}));
    }
    EXPECT_EQ(batch_index, batches_per_epoch);
  }
  std::printf("\n");
  EXPECT_TRUE(std::isfinite(first_d) && std::isfinite(last_d));
  EXPECT_LT(last_d, first_d);  // the discriminator learns to tell the synthetic digits from noise

  const auto dir = std::filesystem::temp_directory_path() / ("ember-dcgan-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string gen_ckpt = (dir / "generator-checkpoint.pt").string();
  const std::string opt_ckpt = (dir / "generator-optimizer-checkpoint.pt").string();
  torch::save(generator, gen_ckpt);
  torch::save(generator_optimizer, opt_ckpt);
  generator->eval();  // (the example samples in training mode, which moves the batch-norm statistics)
  torch::Tensor samples = generator->forward(torch::randn({8, kNoiseSize, 1, 1}, device));
  torch::save((samples + 1.0) / 2.0, torch::str((dir / "dcgan-sample-").string(), 1, ".pt"));

  DCGANGenerator restored(kNoiseSize);
  torch::optim::Adam restored_optimizer(restored->parameters(), torch::optim::AdamOptions(2e-4).betas(std::make_tuple(0.5, 0.5)));
  torch::load(restored, gen_ckpt);
  torch::load(restored_optimizer, opt_ckpt);
  restored->eval();
  torch::Tensor z = torch::randn({2, kNoiseSize, 1, 1});
  EXPECT_TRUE(torch::allclose(generator->forward(z), restored->forward(z)));
  std::filesystem::remove_all(dir);
}

}  // namespace dcgan_example

}  // namespace
