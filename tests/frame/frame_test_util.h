// Shared by the frame tests: a column's values, and a path quoted for the shell (the tests
// that run Python scripts).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "ember/frame/frame.h"

namespace ember::frame::test {

inline std::vector<Value> vals(const Column& c) { return c.to_values(); }

inline std::string quote(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

}  // namespace ember::frame::test
