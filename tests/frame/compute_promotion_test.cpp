// The result dtypes of column arithmetic against PyTorch's own type promotion
// (torch.result_type, from Debian's /usr/bin/python3 with torch), for every pair of the
// dtypes PyTorch has, columns with columns and with Python scalars. ember departs from
// PyTorch in three documented places (Note [Compute semantics]): bool + bool is int64 (as
// Python's True + True), a float scalar with an integer column gives float64 (pandas, not
// PyTorch's default float32), and int / int gives float64.
#include <unistd.h>

#include <cstdio>
#include <map>
#include <sstream>

#include "ember/frame/compute/compute.h"
#include "ember/frame/frame.h"
#include "test_util.h"

namespace ember::frame {
namespace {

const char* kTorchScript = R"(
import torch
names = ['bool', 'uint8', 'int8', 'int16', 'int32', 'int64', 'float32', 'float64']
ts = {n: getattr(torch, n) for n in names}
name = {v: k for k, v in ts.items()}
for a in names:
    for b in names:
        print('col', a, b, name[torch.result_type(torch.zeros(1, dtype=ts[a]), torch.zeros(1, dtype=ts[b]))])
    for s, k in [(3, 'int'), (2.5, 'float'), (True, 'bool')]:
        print('scalar', a, k, name[torch.result_type(torch.zeros(1, dtype=ts[a]), s)])
)";

std::map<std::string, std::string> torch_promotions(std::string* skip) {
  std::map<std::string, std::string> out;
  if (std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") != 0) {
    *skip = "/usr/bin/python3 has no torch (Debian's python3-torch)";
    return out;
  }
  const std::string path = ::testing::TempDir() + "/ember_promotion." + std::to_string(getpid()) + ".py";
  FILE* f = std::fopen(path.c_str(), "w");
  std::fputs(kTorchScript, f);
  std::fclose(f);
  FILE* p = popen(("/usr/bin/python3 " + path).c_str(), "r");
  char line[256];
  while (std::fgets(line, sizeof(line), p)) {
    std::istringstream ss(line);
    std::string kind, a, b, r;
    ss >> kind >> a >> b >> r;
    out[kind + " " + a + " " + b] = r;
  }
  EXPECT_EQ(pclose(p), 0);
  std::remove(path.c_str());
  return out;
}

DType dtype_of(const std::string& n) {
  static const std::map<std::string, DType> m = {
      {"bool", dtypes::boolean}, {"uint8", dtypes::uint8}, {"int8", dtypes::int8},     {"int16", dtypes::int16},
      {"int32", dtypes::int32},  {"int64", dtypes::int64}, {"float32", dtypes::float32}, {"float64", dtypes::float64}};
  return m.at(n);
}

Column ones(const DType& t) {
  if (t.id() == TypeId::Bool) return column({true});
  return column({1}).cast(t);
}

TEST(ComputePromotion, MatchesTorchResultType) {
  std::string skip;
  const auto torch = torch_promotions(&skip);
  if (!skip.empty()) GTEST_SKIP() << skip;
  ASSERT_EQ(torch.size(), 8u * 8u + 8u * 3u);
  int compared = 0;
  for (const auto& [key, want] : torch) {
    std::istringstream ss(key);
    std::string kind, a, b;
    ss >> kind >> a >> b;
    SCOPED_TRACE(key);
    Column r;
    std::string expected = want;
    if (kind == "col") {
      r = add(ones(dtype_of(a)), ones(dtype_of(b)));
      if (a == "bool" && b == "bool") expected = "int64";  // documented: Python's True + True
    } else {
      const Value s = b == "int" ? Value(3) : b == "float" ? Value(2.5) : Value(true);
      r = add(ones(dtype_of(a)), s);
      if (a == "bool" && b == "bool") expected = "int64";
      if (b == "float" && (a == "bool" || dtype_of(a).is_integer())) expected = "float64";  // documented: pandas
    }
    EXPECT_EQ(r.dtype().to_string(), expected);
    ++compared;
  }
  EXPECT_EQ(compared, 88);
}

TEST(ComputePromotion, UnsignedBeyondTorch) {
  // Types PyTorch 1.13 lacks, by the rules of Note [Compute semantics].
  EXPECT_EQ(add(ones(dtypes::uint16), ones(dtypes::int16)).dtype(), dtypes::int32);
  EXPECT_EQ(add(ones(dtypes::uint32), ones(dtypes::int8)).dtype(), dtypes::int64);
  EXPECT_EQ(add(ones(dtypes::uint64), ones(dtypes::int64)).dtype(), dtypes::int64);
  EXPECT_EQ(add(ones(dtypes::uint16), ones(dtypes::int64)).dtype(), dtypes::int64);
  EXPECT_EQ(add(ones(dtypes::uint64), ones(dtypes::uint8)).dtype(), dtypes::uint64);
  EXPECT_EQ(add(ones(dtypes::uint32), ones(dtypes::float32)).dtype(), dtypes::float32);
  EXPECT_EQ(truediv(ones(dtypes::uint8), ones(dtypes::int8)).dtype(), dtypes::float64);
  EXPECT_EQ(truediv(ones(dtypes::float32), Value(2)).dtype(), dtypes::float32);
  EXPECT_EQ(floordiv(ones(dtypes::int8), Value(2)).dtype(), dtypes::int8);
  EXPECT_EQ(mul(ones(dtypes::uint8), Value(true)).dtype(), dtypes::uint8);
}

}  // namespace
}  // namespace ember::frame
