#include "frontend/sweep/results_csv.h"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <sstream>

#include "frontend/validate/measurements.h"
#include "sim/units/error.h"

namespace tgsim::sweep {
namespace {

using validate::csv_escape;

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

// Checks one row; returns its index, or an error message.
struct Checked {
  std::int64_t index = -1;
  std::string error;
};

Checked check_row(const std::string& header, const std::string& line, const ExpectedKey& expected) {
  Checked c;
  std::vector<std::string> cells;
  try {
    const auto t = validate::parse_csv(header + "\n" + line + "\n", "");
    if (t.rows.size() != 1) throw InputError("not one row");
    for (const auto& col : t.columns) cells.push_back(t.rows[0].get(col));
  } catch (const InputError&) {
    c.error = "unreadable row (wrong number of cells or an unterminated quote)";
    return c;
  }
  const std::string& idx = cells.front();
  std::int64_t i = -1;
  const auto [ptr, ec] = std::from_chars(idx.data(), idx.data() + idx.size(), i);
  if (ec != std::errc() || ptr != idx.data() + idx.size() || i < 0) {
    c.error = fmt::format("index \"{}\" is not a point index", idx);
    return c;
  }
  if (expected) {
    const auto key = expected(i);
    if (!key) {
      c.error = fmt::format("point {} is not part of this run (another spec or shard?)", i);
      return c;
    }
    if (cells.back() != *key) {
      c.error = fmt::format("point {} has key {} but the spec gives {} (the spec changed since this file was written?)",
                            i, cells.back(), *key);
      return c;
    }
  }
  c.index = i;
  return c;
}

void add_row(Rows& rows, std::int64_t index, const std::string& line, const std::string& where) {
  const auto [it, fresh] = rows.emplace(index, line + "\n");
  if (!fresh && it->second != line + "\n")
    throw InputError(fmt::format("{}: a second, different row for point {}", where, index));
}

}  // namespace

std::string csv_header(const SweepSpec& s) {
  std::string h = "index";
  for (const auto& c : s.columns)
    if (c != "gpu") h += "," + csv_escape(c);
  return h + ",latency_us,tflops,bottleneck,gpu,simulated_schedule,error,key";
}

std::string csv_row(const SweepSpec& s, const Point& p, const PointInputs& in, const PointResult& r) {
  std::string row = std::to_string(p.index);
  for (std::size_t c = 0; c < s.columns.size(); ++c)
    if (s.columns[c] != "gpu") row += "," + csv_escape(value_text(p.values[c]));
  if (r.outcome) {
    const Outcome& o = *r.outcome;
    row += fmt::format(",{:.4f},{},{},{},{},", o.latency_us, o.tflops ? fmt::format("{:.2f}", *o.tflops) : "",
                       csv_escape(o.bottleneck), csv_escape(in.gpu), csv_escape(o.schedule));
  } else {
    row += fmt::format(",,,,{},,{}", csv_escape(in.gpu), csv_escape(one_line(r.error)));
  }
  return row + "," + in.key + "\n";
}

std::string assemble(const std::string& header, const Rows& rows) {
  std::string out = header + "\n";
  for (const auto& [_, line] : rows) out += line;
  return out;
}

Existing read_existing(const std::string& path, const std::string& header, const ExpectedKey& expected) {
  Existing ex;
  const std::string text = read_all(path);
  const auto eol = text.find('\n');
  if (eol == std::string::npos) {
    if (!text.empty())
      ex.notes.push_back(fmt::format("{}: the header line was cut short; starting the file again", path));
    return ex;
  }
  if (text.substr(0, eol) != header)
    throw InputError(
        fmt::format("{}: its header does not match the spec (expected \"{}\", found \"{}\"); use another --out, "
                    "or --force to overwrite it",
                    path, header, text.substr(0, eol)));
  std::vector<std::string> lines;
  std::size_t start = eol + 1;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    if (end == std::string::npos) {
      ex.notes.push_back(fmt::format(
          "{}:{}: dropped an unfinished last line (the run was interrupted while writing it)", path, lines.size() + 2));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string where = fmt::format("{}:{}", path, i + 2);
    const Checked c = check_row(header, lines[i], expected);
    if (c.index < 0) {
      if (i + 1 == lines.size() && ex.notes.empty()) {
        ex.notes.push_back(fmt::format("{}: dropped an unreadable last line ({})", where, c.error));
        break;
      }
      throw InputError(fmt::format(
          "{}: {}; the file is damaged or from another spec: fix it, or use --force to start over", where, c.error));
    }
    add_row(ex.rows, c.index, lines[i], where);
  }
  return ex;
}

Merged merge_files(const std::vector<std::string>& files, const ExpectedKey& expected) {
  Merged m;
  for (const auto& f : files) {
    const std::string text = read_all(f);
    const auto eol = text.find('\n');
    if (eol == std::string::npos) throw InputError(fmt::format("{}: no header line", f));
    const std::string header = text.substr(0, eol);
    if (m.header.empty()) m.header = header;
    if (header != m.header)
      throw InputError(
          fmt::format("{}: its header differs from {}'s; only shards of one sweep can be merged", f, files.front()));
    if (text.back() != '\n')
      throw InputError(fmt::format("{}: ends in an unfinished line; finish it with --resume first", f));
    std::size_t start = eol + 1;
    for (int line = 2; start < text.size(); ++line) {
      const auto end = text.find('\n', start);
      const std::string row = text.substr(start, end - start);
      const Checked c = check_row(header, row, expected);
      if (c.index < 0) throw InputError(fmt::format("{}:{}: {}", f, line, c.error));
      add_row(m.rows, c.index, row, fmt::format("{}:{}", f, line));
      start = end + 1;
    }
  }
  return m;
}

}  // namespace tgsim::sweep
