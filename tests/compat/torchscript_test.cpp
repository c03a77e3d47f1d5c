// TorchScript cannot run on ember: <torch/script.h> compiles, and loading a TorchScript file
// fails with a c10::Error that says what to use instead.
#include <torch/script.h>

#include <gtest/gtest.h>

#include <sstream>

TEST(TorchScript, LoadFailsWithDirections) {
  for (int form = 0; form < 2; ++form) {
    try {
      std::istringstream in("PK\x03\x04 not read");
      torch::jit::script::Module m = form == 0 ? torch::jit::load("model.pt") : torch::jit::load(in);
      FAIL() << "torch::jit::load returned a module";
    } catch (const c10::Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("torch::jit::load"), std::string::npos) << what;
      EXPECT_NE(what.find("TorchScript"), std::string::npos) << what;
      EXPECT_NE(what.find("torch::save"), std::string::npos) << what;
      EXPECT_NE(what.find("safetensors"), std::string::npos) << what;
      EXPECT_NE(what.find("ember::jit"), std::string::npos) << what;
      if (form == 0) EXPECT_NE(what.find("model.pt"), std::string::npos) << what;
    }
  }
  torch::jit::Module empty;
  std::vector<torch::jit::IValue> inputs{torch::ones({2})};
  EXPECT_THROW(empty.forward(inputs), c10::Error);
  EXPECT_TRUE(empty.parameters().empty());
}
