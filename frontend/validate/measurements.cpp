#include "frontend/validate/measurements.h"

#include <charconv>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sim/units/error.h"

namespace tgsim::validate {

const std::string& Row::get(const std::string& column) const {
  static const std::string kEmpty;
  const auto it = cells.find(column);
  return it == cells.end() ? kEmpty : it->second;
}

std::optional<double> Row::number(const std::string& column, const std::string& origin) const {
  const std::string& s = get(column);
  if (s.empty()) return std::nullopt;
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size())
    throw InputError(fmt::format("{}:{}: column {}: expected a number, got \"{}\"", origin, line, column, s));
  return v;
}

Table parse_csv(const std::string& text, const std::string& origin) {
  std::vector<std::vector<std::string>> records;
  std::vector<int> record_line;
  std::vector<std::string> record;
  std::string cell;
  bool quoted = false;
  bool cell_started = false;
  int line = 1;
  int start_line = 1;
  auto end_cell = [&] {
    record.push_back(cell);
    cell.clear();
    cell_started = false;
  };
  auto end_record = [&] {
    end_cell();
    if (!(record.size() == 1 && record[0].empty())) {
      records.push_back(record);
      record_line.push_back(start_line);
    }
    record.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          cell += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        cell += c;
      }
      continue;
    }
    if (c == '"' && !cell_started) {
      quoted = true;
      cell_started = true;
    } else if (c == ',') {
      end_cell();
    } else if (c == '\n') {
      end_record();
      ++line;
      start_line = line;
    } else if (c != '\r') {
      cell += c;
      cell_started = true;
    }
  }
  if (quoted) throw InputError(fmt::format("{}:{}: unterminated quoted cell", origin, start_line));
  if (!cell.empty() || !record.empty()) end_record();
  if (records.empty()) throw InputError(fmt::format("{}: empty file: expected a header row", origin));
  Table t;
  t.columns = records[0];
  for (std::size_t r = 1; r < records.size(); ++r) {
    if (records[r].size() != t.columns.size())
      throw InputError(fmt::format("{}:{}: {} cells, but the header has {} columns", origin, record_line[r],
                                   records[r].size(), t.columns.size()));
    Row row;
    row.line = record_line[r];
    for (std::size_t c = 0; c < t.columns.size(); ++c) row.cells[t.columns[c]] = records[r][c];
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table read_csv(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open", file.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_csv(ss.str(), file.string());
}

std::string csv_escape(const std::string& cell) {
  if (cell.find_first_of(",\"\n") == std::string::npos) return cell;
  std::string out = "\"";
  for (char c : cell) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace tgsim::validate
