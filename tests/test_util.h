// Helpers shared by the tests: golden-file reading and tensor comparison.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "ember/ember.h"

namespace ember::test {

// Asserts that `actual` matches `expected` in shape, dtype and values (within tolerances
// scaled for the dtype unless given). NaNs must match NaNs.
::testing::AssertionResult tensors_close(const Tensor& actual, const Tensor& expected, double rtol = -1,
                                         double atol = -1);
#define EXPECT_TENSOR_CLOSE(a, b, ...) EXPECT_TRUE(::ember::test::tensors_close(a, b, ##__VA_ARGS__))
#define EXPECT_TENSOR_EQ(a, b) EXPECT_TRUE(::ember::test::tensors_close(a, b, 0, 0))

// Expects `stmt` to throw ember::Error whose message contains `substr`.
#define EXPECT_ERROR_WITH(stmt, substr)                                                   \
  do {                                                                                    \
    try {                                                                                 \
      stmt;                                                                               \
      ADD_FAILURE() << "expected an ember::Error containing \"" << (substr) << "\"";     \
    } catch (const ::ember::Error& e) {                                                   \
      EXPECT_NE(std::string(e.what()).find(substr), std::string::npos)                    \
          << "message was: " << e.what();                                                 \
    }                                                                                     \
  } while (0)

}  // namespace ember::test
