// Measured runs in the CSV schema of docs/measurements.md: a header row, any column order,
// unknown columns kept, empty cell = not given, RFC 4180 quoting (kernel names contain commas).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tgsim::validate {

struct Row {
  int line = 0;  // 1-based line in the file, for messages
  std::map<std::string, std::string> cells;

  // The cell, or empty when the column is missing or the cell empty.
  const std::string& get(const std::string& column) const;
  // Numeric cell; throws InputError naming the file line and column when present but not a number.
  std::optional<double> number(const std::string& column, const std::string& origin) const;
};

struct Table {
  std::vector<std::string> columns;  // in file order
  std::vector<Row> rows;
};

// Throws InputError ("file:line: ...") for unreadable files, a missing header, ragged rows or
// unterminated quotes.
Table read_csv(const std::filesystem::path& file);
Table parse_csv(const std::string& text, const std::string& origin);
std::string csv_escape(const std::string& cell);

}  // namespace tgsim::validate
