// The model and training code of LibTorch's example programs (pytorch/examples cpp/mnist and
// cpp/dcgan), as written there, compiled against <torch/torch.h> and trained for a few steps.
// The examples read MNIST through torch::data; here synthetic batches stand in for the data
// loader (torch::data belongs to the data-loading work).
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

namespace {

// ---- cpp/mnist/mnist.cpp -----------------------------------------------------------------
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

// A batch as the MNIST data loader yields it (data, target), images of two fixed patterns.
struct Batch {
  torch::Tensor data, target;
};
Batch synthetic_mnist_batch(int64_t n) {
  auto target = torch::randint(0, 2, {n}, torch::kLong);
  auto data = torch::randn({n, 1, 28, 28}).mul(0.1);
  data.narrow(2, 0, 14).add_(target.to(torch::kFloat).view({n, 1, 1, 1}));  // class 1: bright top half
  return {data, target};
}

template <typename DataLoader>
void train(size_t epoch, Net& model, torch::Device device, DataLoader& data_loader, torch::optim::Optimizer& optimizer,
           size_t dataset_size) {
  model.train();
  size_t batch_idx = 0;
  for (auto& batch : data_loader) {
    auto data = batch.data.to(device), targets = batch.target.to(device);
    optimizer.zero_grad();
    auto output = model.forward(data);
    auto loss = torch::nll_loss(output, targets);
    AT_ASSERT(!std::isnan(loss.template item<float>()));
    loss.backward();
    optimizer.step();
    if (batch_idx++ % 10 == 0) {
      std::printf("\rTrain Epoch: %ld [%5ld/%5ld] Loss: %.4f", long(epoch), long(batch_idx * batch.data.size(0)),
                  long(dataset_size), loss.template item<float>());
    }
  }
}

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
  torch::manual_seed(1);
  torch::DeviceType device_type;
  if (torch::cuda::is_available()) {
    device_type = torch::kCUDA;
  } else {
    device_type = torch::kCPU;
  }
  torch::Device device(device_type);
  Net model;
  model.to(device);
  std::vector<Batch> train_loader, test_loader;
  for (int i = 0; i < 30; ++i) train_loader.push_back(synthetic_mnist_batch(32));
  for (int i = 0; i < 4; ++i) test_loader.push_back(synthetic_mnist_batch(64));
  torch::optim::SGD optimizer(model.parameters(), torch::optim::SGDOptions(0.01).momentum(0.5));
  for (size_t epoch = 1; epoch <= 3; ++epoch) train(epoch, model, device, train_loader, optimizer, 30 * 32);
  EXPECT_GE(test(model, device, test_loader, 4 * 64), 0.9);
}

// ---- cpp/dcgan/dcgan.cpp -----------------------------------------------------------------
using namespace torch;

const int64_t kNoiseSize = 100;

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

  double first_d = 0, last_d = 0;
  for (int64_t batch_index = 0; batch_index < 6; ++batch_index) {
    Batch batch = synthetic_mnist_batch(16);
    batch.data = batch.data.tanh();
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

    std::printf("\r[%2ld/%2ld][%3ld/%3ld] D_loss: %.4f | G_loss: %.4f", long(1), long(1), long(batch_index), long(6),
                d_loss.item<float>(), g_loss.item<float>());
    if (batch_index == 0) first_d = d_loss.item<float>();
    last_d = d_loss.item<float>();
    EXPECT_EQ(fake_images.sizes(), torch::IntArrayRef({16, 1, 28, 28}));
  }
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

}  // namespace
