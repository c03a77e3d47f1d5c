// The layer order of cmake/layers.txt, enforced: no file under ember/, compat/ or tools/
// includes a file of a higher layer. The checker is tested on made-up files first, so that a
// checker that finds nothing cannot pass for a clean tree.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const fs::path kRoot = fs::path(EMBER_GOLDEN_DIR).parent_path().parent_path();

struct Layers {
  std::vector<std::string> order;               // lowest first
  std::map<std::string, std::string> prefixes;  // path prefix -> layer

  static Layers parse(std::istream& in) {
    Layers l;
    std::string line;
    while (std::getline(in, line)) {
      line = line.substr(0, line.find('#'));
      std::istringstream words(line);
      std::string name, prefix;
      if (!(words >> name)) continue;
      l.order.push_back(name);
      while (words >> prefix) l.prefixes[prefix] = name;
    }
    return l;
  }
  // The layer of `path` (relative to the repository root): its longest matching prefix.
  std::string layer_of(const std::string& path) const {
    std::string best;
    for (const auto& [prefix, layer] : prefixes)
      if (path.rfind(prefix, 0) == 0 && prefix.size() > best.size()) best = prefix;
    return best.empty() ? "" : prefixes.at(best);
  }
  int rank(const std::string& layer) const {
    for (size_t i = 0; i < order.size(); ++i) if (order[i] == layer) return int(i);
    return -1;
  }
};

// The problems in one file's text: its includes of ember/ files above its own layer, and
// includes or files that no layer claims.
std::vector<std::string> check_file(const Layers& layers, const std::string& path, std::istream& text) {
  std::vector<std::string> problems;
  const std::string own = layers.layer_of(path);
  if (own.empty()) return {path + ": in no layer of cmake/layers.txt"};
  std::string line;
  for (int n = 1; std::getline(text, line); ++n) {
    size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos || line[i] != '#') continue;
    i = line.find_first_not_of(" \t", i + 1);
    if (i == std::string::npos || line.compare(i, 7, "include") != 0) continue;
    const size_t open = line.find_first_of("<\"", i + 7);
    if (open == std::string::npos) continue;
    const size_t close = line.find_first_of(">\"", open + 1);
    const std::string target = line.substr(open + 1, close - open - 1);
    if (target.rfind("ember/", 0) != 0) continue;
    const std::string where = path + ":" + std::to_string(n) + ": ";
    const std::string theirs = layers.layer_of(target);
    if (theirs.empty()) {
      problems.push_back(where + target + " is in no layer");
    } else if (layers.rank(theirs) > layers.rank(own)) {
      problems.push_back(where + own + " includes " + target + " of the higher layer " + theirs);
    }
  }
  return problems;
}

Layers test_layers() {
  std::istringstream manifest(
      "# comment\n"
      "core ember/core/ ember/ops/table.h\n"
      "ops  ember/ops/   # trailing comment\n"
      "top  ember/ops/engine.cpp tools/\n");
  return Layers::parse(manifest);
}

std::vector<std::string> check_text(const std::string& path, const std::string& text) {
  std::istringstream in(text);
  return check_file(test_layers(), path, in);
}

TEST(Layers, ManifestIsReadByLongestPrefix) {
  const Layers l = test_layers();
  EXPECT_EQ(l.order, (std::vector<std::string>{"core", "ops", "top"}));
  EXPECT_EQ(l.layer_of("ember/core/tensor.h"), "core");
  EXPECT_EQ(l.layer_of("ember/ops/table.h"), "core");
  EXPECT_EQ(l.layer_of("ember/ops/engine.cpp"), "top");
  EXPECT_EQ(l.layer_of("ember/ops/add.cpp"), "ops");
  EXPECT_EQ(l.layer_of("ember/nn/linear.h"), "");
}

TEST(Layers, CheckerFindsUpwardIncludes) {
  EXPECT_TRUE(check_text("ember/ops/add.cpp", "#include \"ember/core/tensor.h\"\n#include <vector>\n").empty());
  EXPECT_TRUE(check_text("ember/core/tensor.h", "#include \"ember/ops/table.h\"\n").empty());
  EXPECT_TRUE(check_text("tools/main.cpp", "#include <ember/ops/engine.cpp>\n").empty());

  auto p = check_text("ember/core/tensor.h", "// x\n  #  include \"ember/ops/add.h\"  // why\n");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0], "ember/core/tensor.h:2: core includes ember/ops/add.h of the higher layer ops");
  EXPECT_EQ(check_text("ember/ops/add.cpp", "#include <ember/ops/engine.cpp>\n").size(), 1u);
  EXPECT_EQ(check_text("ember/ops/add.cpp", "#include \"ember/jit/fuser.h\"\n").size(), 1u);
  EXPECT_EQ(check_text("ember/jit/fuser.cpp", "").size(), 1u);
}

TEST(Layers, NoFileIncludesAHigherLayer) {
  std::ifstream manifest(kRoot / "cmake" / "layers.txt");
  ASSERT_TRUE(manifest.good()) << "cannot read " << (kRoot / "cmake" / "layers.txt");
  const Layers layers = Layers::parse(manifest);
  ASSERT_GE(layers.order.size(), 10u);

  size_t files = 0, includes = 0;
  std::vector<std::string> problems;
  for (const char* top : {"ember", "compat", "tools"}) {
    for (const auto& entry : fs::recursive_directory_iterator(kRoot / top)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp" && ext != ".cu" && ext != ".cuh")) continue;
      const std::string rel = fs::relative(entry.path(), kRoot).generic_string();
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      const std::string s = text.str();
      for (size_t at = s.find("#include \"ember/"); at != std::string::npos; at = s.find("#include \"ember/", at + 1))
        ++includes;
      std::istringstream lines(s);
      for (auto& p : check_file(layers, rel, lines)) problems.push_back(std::move(p));
      ++files;
    }
  }
  EXPECT_GT(files, 300u);
  EXPECT_GT(includes, 1000u);
  std::string all;
  for (const auto& p : problems) all += "\n  " + p;
  EXPECT_TRUE(problems.empty()) << problems.size() << " includes break cmake/layers.txt:" << all;
}

}  // namespace
