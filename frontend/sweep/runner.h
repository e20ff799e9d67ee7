// Running a sweep's points on several threads. Each point is simulated on its own (own Simulator,
// own GpuSpec copy from a shared cache), so results do not depend on the number of threads or the
// order in which points finish; a failing point becomes a row with its error, never a crash.
#pragma once

#include "sim/graph/graph_size.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "frontend/sweep/evaluator.h"
#include "frontend/sweep/expand.h"
#include "sim/hw/gpu_spec.h"

namespace tgsim::sweep {

// A GPU preset name (or spec file) with --set style overrides → the spec; throws InputError.
using SpecLoader = std::function<hw::GpuSpec(const std::string& gpu, const std::vector<std::string>& overrides)>;

struct RunOptions {
  int jobs = 1;
  // Set from outside (a signal handler): no new point starts; points in flight finish and are
  // reported. May be null.
  const std::atomic<bool>* stop = nullptr;
  graph::Limits limits = graph::default_limits();  // --max-nodes / --max-memory per point
};

struct RunStats {
  std::int64_t done = 0;    // rows reported
  std::int64_t errors = 0;  // of which error rows
  bool stopped = false;     // `stop` was seen before every point ran
};

// Runs points[i] for every i in `todo` and calls on_row(index, csv line, is_error) for each, one
// call at a time, in the order points finish. An exception from on_row stops the run (points in
// flight finish, their rows are not reported) and is rethrown.
RunStats run_points(const SweepSpec& spec, const Evaluator& ev, const std::vector<Point>& points,
                    const std::vector<std::int64_t>& todo, const SpecLoader& load, const RunOptions& opts,
                    const std::function<void(std::int64_t, const std::string&, bool)>& on_row);

}  // namespace tgsim::sweep
