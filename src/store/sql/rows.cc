#include <cassert>
#include <charconv>

#include "store/sql/driver.h"

namespace docwright::sql {

Rows::Rows(std::vector<std::string> columns, std::vector<std::optional<std::string>> cells,
           int64_t affected)
    : columns_(std::move(columns)), cells_(std::move(cells)), affected_(affected) {}

int Rows::size() const {
  return columns_.empty() ? 0 : static_cast<int>(cells_.size() / columns_.size());
}

int Rows::Col(std::string_view name) const {
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (columns_[i] == name) return static_cast<int>(i);
  }
  assert(false && "no such column in the statement");
  return -1;
}

const std::string* Rows::Cell(int col) const {
  if (col < 0 || static_cast<size_t>(col) >= columns_.size() || row_ < 0 || row_ >= size()) {
    return nullptr;
  }
  const auto& cell = cells_[static_cast<size_t>(row_) * columns_.size() + col];
  return cell ? &*cell : nullptr;
}

std::string Rows::Text(int col) const {
  const std::string* cell = Cell(col);
  return cell ? *cell : std::string();
}

int64_t Rows::Int(int col) const {
  const std::string* cell = Cell(col);
  int64_t value = 0;
  if (cell) std::from_chars(cell->data(), cell->data() + cell->size(), value);
  return value;
}

std::optional<std::string> Rows::OptText(int col) const {
  const std::string* cell = Cell(col);
  if (!cell) return std::nullopt;
  return *cell;
}

std::optional<int64_t> Rows::OptInt(int col) const {
  if (IsNull(col)) return std::nullopt;
  return Int(col);
}

}  // namespace docwright::sql
