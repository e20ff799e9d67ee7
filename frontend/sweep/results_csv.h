// The results file of a sweep: one CSV row per point, written as points finish and rewritten in
// index order at the end (docs/sweeps.md). Columns: index, the swept parameters (except gpu),
// latency_us, tflops, bottleneck, gpu, simulated_schedule, error, key. Reading an earlier file back checks it
// line by line, so --resume and --merge never extend or combine a damaged or foreign file silently.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frontend/sweep/evaluator.h"
#include "frontend/sweep/expand.h"

namespace tgsim::sweep {

struct PointResult {
  std::optional<Outcome> outcome;
  std::string error;  // set when outcome is empty
};

std::string csv_header(const SweepSpec& s);  // without the newline
std::string csv_row(const SweepSpec& s, const Point& p, const PointInputs& in, const PointResult& r);  // with it

// Rows by index, each a complete line with its newline.
using Rows = std::map<std::int64_t, std::string>;

// The file's text: header, then rows in index order.
std::string assemble(const std::string& header, const Rows& rows);

// The key a run expects at `index`, or nothing when the index is not part of the run (another shard).
using ExpectedKey = std::function<std::optional<std::string>(std::int64_t index)>;

struct Existing {
  Rows rows;
  std::vector<std::string> notes;  // what was repaired, for the user
};

// An earlier run's output for --resume. An empty file, or one cut inside its header, counts as
// no rows. The last line is dropped (with a note) when it is unterminated or unreadable — that
// is where an interrupted run stops. Throws InputError naming the file (and line) for a header
// that is not `header`, and for any other unreadable row, a key that does not match the spec,
// an index outside the run, or two different rows for one index.
Existing read_existing(const std::string& path, const std::string& header, const ExpectedKey& expected);

// Rows of several finished files with the same header (shards): strict, no repairs. Identical
// duplicate rows are kept once. `expected` may be empty (no key check).
struct Merged {
  std::string header;
  Rows rows;
};
Merged merge_files(const std::vector<std::string>& files, const ExpectedKey& expected);

}  // namespace tgsim::sweep
