// ArrayRef, SmallVector and OptionalArrayRef (ember/core/array_ref.h).
#include <gtest/gtest.h>

#include "ember/core/array_ref.h"

namespace ember {
namespace {

int64_t first_or_minus_one(OptionalIntArrayRef d) { return d ? (*d)[0] : -1; }
size_t size_or_zero(OptionalIntArrayRef d) { return d ? d->size() : 0; }

TEST(OptionalArrayRef, BuiltFromASingleIntAtTheCallSite) {
  // An int argument converts to int64_t at the call site; the ref must point at that
  // temporary (alive for the whole call), not at one inside a converting constructor.
  // Under ASan the old std::optional<ArrayRef> version reads a dead stack slot here.
  EXPECT_EQ(first_or_minus_one(1), 1);
  EXPECT_EQ(first_or_minus_one(-3), -3);
  EXPECT_EQ(first_or_minus_one(std::nullopt), -1);
  EXPECT_EQ(first_or_minus_one({}), -1);
  EXPECT_EQ(size_or_zero({2, 3, 4}), 3u);
  std::vector<int64_t> v{5, 6};
  EXPECT_EQ(first_or_minus_one(v), 5);
  EXPECT_EQ(first_or_minus_one(IntArrayRef(v)), 5);
  EXPECT_THROW(OptionalIntArrayRef().value(), Error);
}

TEST(ArrayRef, ViewsAndComparisons) {
  std::vector<int64_t> v{1, 2, 3};
  IntArrayRef a(v);
  EXPECT_EQ(a.size(), 3u);
  EXPECT_EQ(a.slice(1).vec(), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(a == IntArrayRef({1, 2, 3}));
  EXPECT_FALSE(a == IntArrayRef({1, 2}));
  EXPECT_THROW(a.at(3), IndexError);
}

TEST(SmallVector, InlineThenHeap) {
  SmallVector<int64_t, 2> s;
  for (int i = 0; i < 10; ++i) s.push_back(i);
  EXPECT_EQ(s.size(), 10u);
  EXPECT_EQ(s[9], 9);
  SmallVector<int64_t, 2> t = s;  // copy from heap storage
  s[0] = 42;
  EXPECT_EQ(t[0], 0);
  SmallVector<int64_t, 2> u = std::move(t);
  EXPECT_EQ(u.size(), 10u);
  u.erase(u.begin());
  EXPECT_EQ(u[0], 1);
  u.insert(u.begin(), 7);
  EXPECT_EQ(u[0], 7);
  EXPECT_EQ(u.size(), 10u);
}

}  // namespace
}  // namespace ember
