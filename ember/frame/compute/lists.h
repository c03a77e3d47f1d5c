// The .list() accessor of list columns and the .struct_() accessor of struct columns
// (TorchArrow's ListMethods and StructMethods). Null elements give nulls.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ember/frame/column.h"

namespace ember::frame {

class ListMethods {
 public:
  // A list or large_list column (length() also takes maps).
  explicit ListMethods(const Column& c);

  const Column& column() const { return c_; }

  Column length() const;  // int64 number of items
  // Item i of each list (negative counts from the end); out of range gives null.
  Column get(int64_t i) const;
  // Items [start, stop) of each list with Python's slice rules (step 1).
  Column slice(std::optional<int64_t> start, std::optional<int64_t> stop = std::nullopt) const;
  // list<string> -> string: items joined by `sep`; a null item makes the row null (pyarrow).
  Column join(std::string_view sep) const;
  // All items of all lists, in order (the child restricted to this column's rows).
  Column flatten() const;
  // fn applied to flatten(), re-wrapped into lists of the same shape: fn must return a
  // column of the same length (TorchArrow's vmap).
  Column vmap(const std::function<Column(const Column&)>& fn) const;

 private:
  Column c_;
};

class StructMethods {
 public:
  explicit StructMethods(const Column& c);

  const Column& column() const { return c_; }
  // Field `name` / i, aligned with the column (see Column::field); a null struct element
  // gives a null field value here (unlike Column::field, which keeps the child's own nulls).
  Column field(std::string_view name) const;
  Column field(int64_t i) const;
  std::vector<std::string> names() const;

 private:
  Column c_;
};

}  // namespace ember::frame
