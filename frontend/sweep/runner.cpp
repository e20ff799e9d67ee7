#include "frontend/sweep/runner.h"

#include <fmt/format.h>

#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "frontend/sweep/results_csv.h"
#include "sim/units/error.h"

namespace tgsim::sweep {
namespace {

// GPU specs by (gpu, overrides), loaded once; a spec that fails to load is remembered as its error.
class SpecCache {
 public:
  explicit SpecCache(const SpecLoader& load) : load_(load) {}

  std::shared_ptr<const hw::GpuSpec> get(const std::string& gpu, const std::vector<std::string>& overrides) {
    std::string key = gpu;
    for (const auto& o : overrides) key += '\n' + o;
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = cache_.find(key);
    if (it == cache_.end()) {
      Entry e;
      try {
        e.spec = std::make_shared<const hw::GpuSpec>(load_(gpu, overrides));
      } catch (const InputError& err) {
        e.error = err.what();
      }
      it = cache_.emplace(key, std::move(e)).first;
    }
    if (!it->second.spec) throw InputError(it->second.error);
    return it->second.spec;
  }

 private:
  struct Entry {
    std::shared_ptr<const hw::GpuSpec> spec;
    std::string error;
  };
  const SpecLoader& load_;
  std::mutex mutex_;
  std::map<std::string, Entry> cache_;
};

PointResult evaluate(const SweepSpec& spec, const Evaluator& ev, const PointInputs& in, SpecCache& specs,
                     const graph::Limits& limits) {
  PointResult r;
  try {
    const auto gpu = specs.get(in.gpu, in.overrides);
    r.outcome = ev.evaluate(in.params, *gpu, EvalContext{spec.dir, limits});
  } catch (const InputError& e) {
    r.error = e.what();
  } catch (const SimulationError& e) {
    r.error = fmt::format("simulation failed: {}", e.what());
  } catch (const std::exception& e) {
    r.error = fmt::format("internal error: {}", e.what());
  }
  return r;
}

}  // namespace

RunStats run_points(const SweepSpec& spec, const Evaluator& ev, const std::vector<Point>& points,
                    const std::vector<std::int64_t>& todo, const SpecLoader& load, const RunOptions& opts,
                    const std::function<void(std::int64_t, const std::string&, bool)>& on_row) {
  SpecCache specs(load);
  RunStats stats;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex out_mutex;
  std::exception_ptr first_error;
  const auto stopping = [&] { return failed.load() || (opts.stop != nullptr && opts.stop->load()); };
  const auto worker = [&] {
    for (;;) {
      if (stopping()) return;
      const std::size_t t = next.fetch_add(1);
      if (t >= todo.size()) return;
      const Point& p = points[static_cast<std::size_t>(todo[t])];
      const PointInputs in = resolve_point(spec, p);
      const PointResult r = evaluate(spec, ev, in, specs, opts.limits);
      const std::string line = csv_row(spec, p, in, r);
      std::lock_guard<std::mutex> lock(out_mutex);
      if (failed.load()) return;
      try {
        on_row(p.index, line, !r.outcome);
        ++stats.done;
        if (!r.outcome) ++stats.errors;
      } catch (...) {
        first_error = std::current_exception();
        failed.store(true);
        return;
      }
    }
  };
  const int jobs = std::max(1, std::min<int>(opts.jobs, static_cast<int>(std::max<std::size_t>(1, todo.size()))));
  std::vector<std::thread> threads;
  for (int j = 1; j < jobs; ++j) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  if (first_error) std::rethrow_exception(first_error);
  stats.stopped = stats.done < static_cast<std::int64_t>(todo.size());
  return stats;
}

}  // namespace tgsim::sweep
