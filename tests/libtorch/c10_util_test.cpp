// c10 utilities that LibTorch programs and their tests use, written against LibTorch 1.13's
// headers: this file compiles unchanged against ember (libtorch_tests) and against Debian's
// LibTorch (libtorch_reference_tests), and passes on both.
#include <c10/util/Exception.h>
#include <c10/util/Optional.h>
#include <c10/util/StringUtil.h>
#include <c10/util/irange.h>
#include <c10/util/tempfile.h>
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <vector>

namespace {

// Collects warnings instead of printing them, as LibTorch's own tests do.
struct CapturingHandler : c10::WarningHandler {
  std::vector<std::string> messages;
  std::vector<c10::SourceLocation> locations;
  void process(const c10::SourceLocation& loc, const std::string& msg, const bool /*verbatim*/) override {
    messages.push_back(msg);
    locations.push_back(loc);
  }
};

void warn_twice_once() {
  for (int i = 0; i < 2; ++i) TORCH_WARN_ONCE("only the first time, i = ", i);
}

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

TEST(C10Util, StrConcatenatesWithStreamOperators) {
  EXPECT_EQ(c10::str("x = ", 3, ", y = ", 2.5, '!'), "x = 3, y = 2.5!");
  EXPECT_EQ(c10::str(), "");
  std::string s = c10::str("sizes ", torch::IntArrayRef({2, 3}));
  EXPECT_EQ(s, "sizes [2, 3]");
}

TEST(C10Util, JoinPutsTheDelimiterBetweenElements) {
  EXPECT_EQ(c10::Join(", ", std::vector<int>{1, 2, 3}), "1, 2, 3");
  EXPECT_EQ(c10::Join("-", std::vector<std::string>{}), "");
  EXPECT_EQ(c10::Join("", std::vector<std::string>{"a", "b"}), "ab");
}

TEST(C10Util, IrangeCountsUpAndIsEmptyBackwards) {
  std::vector<int64_t> seen;
  for (const auto i : c10::irange(4)) seen.push_back(i);
  EXPECT_EQ(seen, (std::vector<int64_t>{0, 1, 2, 3}));
  seen.clear();
  for (const auto i : c10::irange(2, 5)) seen.push_back(i);
  EXPECT_EQ(seen, (std::vector<int64_t>{2, 3, 4}));
  int n = 0;
  for (const auto i : c10::irange(-3)) n += int(i) + 1;
  for (const auto i : c10::irange(5, 2)) n += int(i) + 1;
  EXPECT_EQ(n, 0);
}

TEST(C10Util, OptionalIsUsable) {
  c10::optional<int64_t> none = c10::nullopt;
  EXPECT_FALSE(none.has_value());
  c10::optional<int64_t> some = 4;
  EXPECT_EQ(some.value_or(0), 4);
  torch::optional<double> d = c10::make_optional(1.5);
  EXPECT_EQ(*d, 1.5);
}

TEST(C10Util, ChecksThrowCatchableC10Errors) {
  try {
    TORCH_CHECK(1 + 1 == 3, "arithmetic is broken: ", 1 + 1);
    FAIL() << "TORCH_CHECK did not throw";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("arithmetic is broken: 2"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what_without_backtrace()).find("arithmetic is broken: 2"), 0u)
        << e.what_without_backtrace();
    EXPECT_EQ(e.msg(), "arithmetic is broken: 2");
  }
  try {
    TORCH_CHECK(false);
    FAIL() << "TORCH_CHECK did not throw";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("Expected false to be true, but got false."),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(TORCH_CHECK_INDEX(false, "index"), c10::IndexError);
  EXPECT_THROW(TORCH_CHECK_VALUE(false, "value"), c10::ValueError);
  EXPECT_THROW(TORCH_CHECK_TYPE(false, "type"), c10::TypeError);
  EXPECT_THROW(TORCH_CHECK_NOT_IMPLEMENTED(false, "later"), c10::NotImplementedError);
  EXPECT_THROW(TORCH_CHECK_LINALG(false, "singular"), c10::LinAlgError);
  EXPECT_NO_THROW(TORCH_CHECK(true, "never"));
  // Every subclass is a c10::Error, and a c10::Error is a std::exception.
  EXPECT_THROW(TORCH_CHECK_INDEX(false, "index"), c10::Error);
  EXPECT_THROW(TORCH_CHECK(false, "x"), std::exception);
}

TEST(C10Util, ErrorsFromOpsAreC10Errors) {
  auto a = torch::ones({2, 3});
  auto b = torch::ones({4, 5});
  EXPECT_THROW(torch::mm(a, b), c10::Error);
  // (LibTorch 1.13 throws this one as a plain std::runtime_error, not a c10::Error.)
  try {
    a.view({7});
    FAIL() << "view did not throw";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("shape '[7]' is invalid for input of size 6"), std::string::npos)
        << e.what();
  }
}

TEST(C10Util, RethrowAddsContext) {
  try {
    try {
      TORCH_CHECK(false, "inner");
    } catch (c10::Error& e) {
      TORCH_RETHROW(e, "while doing the outer thing");
    }
    FAIL() << "TORCH_RETHROW did not throw";
  } catch (const c10::Error& e) {
    std::string what = e.what();
    EXPECT_LT(what.find("inner"), what.find("while doing the outer thing")) << what;
    ASSERT_EQ(e.context().size(), 1u);
    EXPECT_EQ(e.context()[0], "while doing the outer thing");
    EXPECT_EQ(e.msg(), "inner");
  }
}

TEST(C10Util, WarningsGoToTheInstalledHandler) {
  CapturingHandler handler;
  {
    c10::Warning::WarningHandlerGuard guard(&handler);
    EXPECT_EQ(c10::Warning::get_warning_handler(), &handler);
    TORCH_WARN("careful: ", 42);
  }
  ASSERT_EQ(handler.messages.size(), 1u);
  EXPECT_EQ(handler.messages[0], "careful: 42");
  EXPECT_NE(std::string(handler.locations[0].file).find("c10_util_test.cpp"), std::string::npos);
  EXPECT_GT(handler.locations[0].line, 0u);
  EXPECT_NE(c10::Warning::get_warning_handler(), &handler);  // the guard put the old one back
  // After the guard, warnings no longer reach the handler.
  TORCH_WARN("to stderr");
  EXPECT_EQ(handler.messages.size(), 1u);
}

TEST(C10Util, WarnOnceWarnsOncePerSiteUnlessWarnAlways) {
  CapturingHandler handler;
  c10::Warning::WarningHandlerGuard guard(&handler);
  warn_twice_once();
  warn_twice_once();
  EXPECT_LE(handler.messages.size(), 1u);  // 0 if an earlier test reached this site
  handler.messages.clear();
  {
    c10::Warning::WarnAlways always(true);
    EXPECT_TRUE(c10::Warning::get_warnAlways());
    warn_twice_once();
  }
  EXPECT_FALSE(c10::Warning::get_warnAlways());
  ASSERT_EQ(handler.messages.size(), 2u);
  EXPECT_EQ(handler.messages[1], "only the first time, i = 1");
}

TEST(C10Util, WarningHandlersArePerThread) {
  CapturingHandler handler;
  c10::Warning::WarningHandlerGuard guard(&handler);
  c10::WarningHandler* other_threads_handler = nullptr;
  std::thread t([&] { other_threads_handler = c10::Warning::get_warning_handler(); });
  t.join();
  EXPECT_NE(other_threads_handler, &handler);
  EXPECT_NE(other_threads_handler, nullptr);
}

TEST(C10Util, TempfileIsRemovedWithItsOwner) {
  std::string name;
  {
    c10::TempFile file = c10::make_tempfile("ember-compat-");
    name = file.name;
    EXPECT_GE(file.fd, 0);
    EXPECT_NE(name.find("ember-compat-"), std::string::npos);
    std::ofstream(name) << "data";
    EXPECT_TRUE(exists(name));
    c10::TempFile moved = std::move(file);
    EXPECT_EQ(moved.name, name);
    EXPECT_TRUE(exists(name));
  }
  EXPECT_FALSE(exists(name));
  auto maybe = c10::try_make_tempfile();
  ASSERT_TRUE(maybe.has_value());
  EXPECT_NE(maybe->name.find("torch-file-"), std::string::npos);
  std::string dir;
  {
    c10::TempDir d = c10::make_tempdir();
    dir = d.name;
    EXPECT_TRUE(exists(dir));
  }
  EXPECT_FALSE(exists(dir));
}
