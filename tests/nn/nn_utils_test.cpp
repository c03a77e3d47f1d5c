// torch::nn::utils (ember/nn/utils.h): clip_grad_norm_ against PyTorch 1.13
// (tests/golden/nn_utils.json, written by tests/golden/gen_optim_extra.py), clip_grad_value_,
// parameters_to_vector / vector_to_parameters.
#include <torch/torch.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "test_util.h"

namespace {

namespace utils = torch::nn::utils;
using ember::test::Json;

const Json& utils_golden() { return Json::golden("nn_utils.json"); }

std::vector<double> values(const torch::Tensor& t) {
  torch::Tensor flat = t.reshape({-1});
  std::vector<double> r;
  for (int64_t i = 0; i < flat.numel(); ++i) r.push_back(flat[i].item<double>());
  return r;
}

// Parameters (2x3), (3), (2) with the golden gradients (the last has none).
std::vector<torch::Tensor> params_with_grads() {
  std::vector<torch::Tensor> params{torch::zeros({2, 3}, torch::dtype(torch::kDouble).requires_grad(true)),
                                    torch::zeros({3}, torch::dtype(torch::kDouble).requires_grad(true)),
                                    torch::zeros({2}, torch::dtype(torch::kDouble).requires_grad(true))};
  const Json& grads = utils_golden()["grads"];
  for (size_t i = 0; i < 2; ++i) {
    std::vector<double> flat;
    for (const Json& row : grads[i].items()) {
      if (row.type() == Json::Type::Array) {
        for (const Json& x : row.items()) flat.push_back(x.as_double());
      } else {
        flat.push_back(row.as_double());
      }
    }
    params[i].mutable_grad() = torch::tensor(flat, torch::kDouble).reshape(params[i].sizes());
  }
  return params;
}

TEST(NnUtils, ClipGradNormMatchesPyTorch) {
  for (const Json& c : utils_golden()["clip_grad_norm"].items()) {
    const double norm_type = c["norm_type"].type() == Json::Type::String ? std::numeric_limits<double>::infinity()
                                                                         : c["norm_type"].as_double();
    const double max_norm = c["max_norm"].as_double();
    SCOPED_TRACE("norm_type " + std::to_string(norm_type) + " max_norm " + std::to_string(max_norm));
    auto params = params_with_grads();
    const double total = utils::clip_grad_norm_(params, max_norm, norm_type);
    const double want = c["total_norm"].as_double();
    EXPECT_NEAR(total, want, 1e-6 * want);
    for (size_t i = 0; i < 2; ++i) {
      const std::vector<double> got = values(params[i].grad());
      for (size_t k = 0; k < got.size(); ++k) {
        const double w = c["grads"][i][k].as_double();
        EXPECT_NEAR(got[k], w, 1e-6 * std::abs(w) + 1e-12) << "grad " << i << "[" << k << "]";
      }
    }
    EXPECT_FALSE(params[2].grad().defined());
  }
}

TEST(NnUtils, ClipGradNormSingleTensorAndEdgeCases) {
  torch::Tensor p = torch::zeros({2}, torch::dtype(torch::kDouble).requires_grad(true));
  EXPECT_EQ(utils::clip_grad_norm_(p, 1.0), 0.0);  // no gradient at all
  p.mutable_grad() = torch::tensor({3.0, 4.0}, torch::kDouble);
  EXPECT_NEAR(utils::clip_grad_norm_(p, 1.0), 5.0, 1e-12);
  EXPECT_NEAR(p.grad()[0].item<double>(), 3.0 / (5.0 + 1e-6), 1e-12);
  EXPECT_NEAR(p.grad()[1].item<double>(), 4.0 / (5.0 + 1e-6), 1e-12);

  // A non-finite total norm throws when asked to, and otherwise scales by it (inf * 0: NaN).
  const double inf = std::numeric_limits<double>::infinity();
  p.mutable_grad() = torch::tensor({inf, 1.0}, torch::kDouble);
  EXPECT_ERROR_WITH(utils::clip_grad_norm_(p, 1.0, 2.0, true),
                    "The total norm of order 2 for gradients from `parameters` is non-finite");
  EXPECT_EQ(p.grad()[1].item<double>(), 1.0);  // untouched
  EXPECT_TRUE(std::isinf(utils::clip_grad_norm_(p, 1.0)));
  EXPECT_TRUE(std::isnan(p.grad()[0].item<double>()));
  EXPECT_EQ(p.grad()[1].item<double>(), 0.0);
  p.mutable_grad() = torch::tensor({std::nan(""), 1.0}, torch::kDouble);
  EXPECT_ERROR_WITH(utils::clip_grad_norm_({p}, 1.0, inf, true), "is non-finite");
}

TEST(NnUtils, ClipGradValue) {
  auto params = params_with_grads();
  utils::clip_grad_value_(params, 1.0);
  EXPECT_EQ(values(params[0].grad()), (std::vector<double>{0.5, -1.0, 1.0, 1.0, -0.25, 0.0}));
  EXPECT_EQ(values(params[1].grad()), (std::vector<double>{1.0, -1.0, 1.0}));
  EXPECT_FALSE(params[2].grad().defined());
  utils::clip_grad_value_(params[0], 0.3);
  EXPECT_EQ(values(params[0].grad()), (std::vector<double>{0.3, -0.3, 0.3, 0.3, -0.25, 0.0}));
}

TEST(NnUtils, ParametersToVectorAndBack) {
  std::vector<torch::Tensor> params{torch::arange(6, torch::kDouble).reshape({2, 3}).requires_grad_(),
                                    torch::tensor({10.0, 11.0}, torch::kDouble).requires_grad_()};
  torch::Tensor vec = utils::parameters_to_vector(params);
  EXPECT_EQ(values(vec), (std::vector<double>{0, 1, 2, 3, 4, 5, 10, 11}));
  // Differentiable: the gradient of the vector flows back to each parameter.
  (vec * torch::arange(8, torch::kDouble)).sum().backward();
  EXPECT_EQ(values(params[0].grad()), (std::vector<double>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(values(params[1].grad()), (std::vector<double>{6, 7}));

  utils::vector_to_parameters(torch::arange(8, torch::kDouble).neg(), params);
  EXPECT_EQ(values(params[0]), (std::vector<double>{-0.0, -1, -2, -3, -4, -5}));
  EXPECT_EQ(values(params[1]), (std::vector<double>{-6, -7}));
  EXPECT_TRUE(params[0].requires_grad() && params[0].is_leaf());
  EXPECT_ERROR_WITH(utils::vector_to_parameters(torch::zeros({7}, torch::kDouble), params),
                    "expected a 1-D vector of 8 elements (the parameters' total size), got shape [7]");
  EXPECT_ERROR_WITH(utils::vector_to_parameters(torch::zeros({2, 4}, torch::kDouble), params), "a 1-D vector");
}

}  // namespace
