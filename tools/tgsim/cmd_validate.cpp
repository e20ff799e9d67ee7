// `tgsim validate --measurements FILE.csv`: predict measured runs and report the error
// (docs/measurements.md has the schema and the output fields).
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include <unistd.h>

#include <fmt/format.h>

#include "frontend/attention/problem.h"
#include "frontend/validate/validate.h"
#include "sim/hw/system_json.h"
#include "sim/units/atomic_file.h"
#include "sim/units/error.h"
#include "tools/tgsim/cli_common.h"

namespace tgsim::cli {
namespace {

// The row's problem in a few characters, for the worst-rows list.
std::string shape_of(const validate::Row& row, const std::string& op) {
  if (op == "gemm") return fmt::format("{}x{}x{}", row.get("M"), row.get("N"), row.get("K"));
  if (op == "grouped_gemm") {
    const std::string m = row.get("tokens_per_expert").empty() ? row.get("M") : row.get("tokens_per_expert");
    return fmt::format("{} x {}x{}x{}", row.get("experts"), m, row.get("N"), row.get("K"));
  }
  if (op == "attention")
    return fmt::format("b{} h{}/{} {}x{} d{}{}", row.get("batch"), row.get("heads"), row.get("heads_kv"), row.get("seq_q"),
                       row.get("seq_kv"), row.get("head_dim"),
                       row.get("causal") != "1" ? ""
                       : attention::parse_causal_align(row.get("causal_align")) == attention::CausalAlign::top_left
                           ? " causal top-left"
                           : " causal");
  return "";
}

nlohmann::json stats_json(const validate::Stats& s) {
  return {{"rows", s.rows},
          {"simulated", s.simulated},
          {"skipped", s.skipped},
          {"mape_pct", s.mape_pct},
          {"max_ape_pct", s.max_ape_pct},
          {"pearson_r", s.pearson_r},
          {"rows_over_10us", s.rows_over_10us},
          {"mape_over_10us_pct", s.mape_over_10us_pct},
          {"max_ape_over_10us_pct", s.max_ape_over_10us_pct}};
}

std::string rows_csv(const validate::Table& t, const validate::Report& rep) {
  std::string out;
  for (const auto& c : t.columns) out += validate::csv_escape(c) + ",";
  out += "predicted_us,ape_pct,category,simulated_schedule,skip_reason\n";
  for (const auto& r : rep.rows) {
    for (const auto& c : t.columns) out += validate::csv_escape(r.row->get(c)) + ",";
    if (r.prediction.ok) {
      out += fmt::format("{:.4f},{:.3f},{},{},\n", r.prediction.predicted_us, r.ape_pct, r.prediction.category,
                         validate::csv_escape(r.prediction.schedule));
    } else {
      out += ",,,," + validate::csv_escape(r.prediction.skip_reason) + "\n";
    }
  }
  return out;
}

std::string python() {
  if (const char* p = std::getenv("TGSIM_PYTHON"); p != nullptr && *p != '\0') return p;
  return std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

void print_text(const validate::Report& rep, const std::string& file) {
  auto line = [](const std::string& name, const validate::Stats& s) {
    return fmt::format("  {:<14} {:>5} {:>5} {:>8.2f} {:>8.2f} {:>8.4f} {:>7} {:>9.2f} {:>9.2f}\n", name, s.simulated,
                       s.skipped, s.mape_pct, s.max_ape_pct, s.pearson_r, s.rows_over_10us, s.mape_over_10us_pct,
                       s.max_ape_over_10us_pct);
  };
  std::cout << fmt::format("validation of {}: {} rows, {} simulated, {} skipped\n\n", file, rep.all.rows,
                           rep.all.simulated, rep.all.skipped);
  const std::string header = fmt::format("  {:<14} {:>5} {:>5} {:>8} {:>8} {:>8} {:>7} {:>9} {:>9}\n", "", "sim", "skip",
                                         "MAPE%", "max%", "r", ">10us", "MAPE>10", "max>10");
  std::cout << "by op\n" << header;
  for (const auto& [op, s] : rep.by_op) std::cout << line(op, s);
  std::cout << line("all", rep.all) << "\nby category\n" << header;
  for (const auto& [c, s] : rep.by_category) std::cout << line(c, s);
  std::map<std::string, int> reasons;
  for (const auto& r : rep.rows) {
    if (!r.prediction.ok) ++reasons[r.prediction.skip_reason];
  }
  if (!reasons.empty()) {
    std::cout << "\nskipped rows\n";
    for (const auto& [why, n] : reasons) std::cout << fmt::format("  {:>4} x {}\n", n, why);
  }
  std::vector<const validate::RowResult*> worst;
  for (const auto& r : rep.rows) {
    if (r.prediction.ok) worst.push_back(&r);
  }
  std::stable_sort(worst.begin(), worst.end(), [](auto* a, auto* b) { return a->ape_pct > b->ape_pct; });
  if (!worst.empty()) std::cout << "\nlargest errors (line: op dtype shape measured -> predicted us)\n";
  for (std::size_t i = 0; i < std::min<std::size_t>(8, worst.size()); ++i) {
    const auto* r = worst[i];
    // a mangled CUTLASS name runs to a thousand characters: its head says enough
    const std::string& sched = r->prediction.schedule;
    const std::string shown = sched.size() > 110 ? sched.substr(0, 100) + "..." : sched;
    std::cout << fmt::format("  {:>4}: {} {} {} {:.2f} -> {:.2f} ({:+.1f}%)  {}\n", r->row->line, r->op, r->row->get("dtype"),
                             shape_of(*r->row, r->op), r->measured_us, r->prediction.predicted_us,
                             (r->prediction.predicted_us - r->measured_us) / r->measured_us * 100, shown);
  }
}

}  // namespace

void register_validate(CLI::App& app, const Context& ctx) {
  struct Opts {
    std::string measurements;
    std::string rows_out;
    std::string plot;
    bool json = false;
    int jobs = 0;
    std::vector<std::string> overrides;
    std::string profile;
    std::string gpu = "h200";
    double max_nodes = 2e9;
    std::string max_memory;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("validate", "Predict measured runs (CSV, docs/measurements.md) or replay a PyTorch profile, and report the error");
  auto* meas = cmd->add_option("--measurements", o->measurements,
                               "Measurement CSV, e.g. traces/h200/gemm.csv; ops predicted: gemm, grouped_gemm, attention, "
                               "elementwise, sm_split, all_to_all, all_reduce (others are reported as skipped)");
  auto* prof = cmd->add_option("--profile", o->profile,
                               "PyTorch profiler Chrome trace (record_shapes=True): replay every kernel (docs/profile-replay.md)")
                   ->excludes(meas);
  cmd->add_option("--gpu", o->gpu, "With --profile: the GPU the profile was recorded on")->capture_default_str()->needs(prof);
  add_limit_options(*cmd, o->max_nodes, o->max_memory);
  cmd->add_flag("--json", o->json, "Print one JSON object: rows, simulated, skipped, mape_pct, max_ape_pct, pearson_r, by_op");
  cmd->add_option("--rows-out", o->rows_out,
                  "Write the input rows plus predicted_us and ape_pct (CSV); with --profile the per-kernel rows (a JSON array)");
  cmd->add_option("--plot", o->plot, "Write a scatter plot and error histogram (PNG, needs python3-matplotlib)");
  cmd->add_option("--jobs", o->jobs, "Threads (default: all cores)");
  cmd->add_option("--set", o->overrides, "Override a field of every GPU spec used, e.g. --set clock.model=constant")->take_all();
  cmd->callback([&ctx, o] {
    const int threads = o->jobs > 0 ? o->jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (!o->profile.empty()) {
      if (!o->plot.empty()) throw InputError("--plot: not available with --profile");
      run_profile_validation(ctx, ProfileValidationOptions{o->profile, o->gpu, o->overrides, o->json, o->rows_out, threads,
                                                           make_limits(o->max_nodes, o->max_memory)});
      return;
    }
    if (o->measurements.empty()) throw InputError("validate: give --measurements FILE.csv or --profile TRACE.json");
    const validate::Table table = validate::read_csv(o->measurements);
    std::map<std::string, std::unique_ptr<hw::GpuSpec>> specs;
    std::mutex specs_mutex;
    // Specs are loaded before the parallel part so a bad preset fails fast, with its message.
    for (const auto& row : table.rows) {
      const std::string gpu = row.get("gpu").empty() ? "h100" : row.get("gpu");
      if (!specs.count(gpu)) specs[gpu] = std::make_unique<hw::GpuSpec>(load_gpu(ctx, GpuOptions{gpu, o->overrides}));
    }
    const validate::SpecLoader loader = [&](const std::string& gpu) -> const hw::GpuSpec& {
      std::lock_guard lock(specs_mutex);
      return *specs.at(gpu);
    };
    validate::PredictorRegistry registry;
    validate::register_builtin_predictors(registry);
    // Systems (multi-GPU rows) are loaded on first use; a bad name fails that row with its reason.
    auto systems = std::make_shared<std::map<std::string, std::unique_ptr<hw::SystemSpec>>>();
    auto systems_mutex = std::make_shared<std::mutex>();
    validate::register_multigpu_predictors(registry, [&ctx, systems, systems_mutex](const std::string& name) -> const hw::SystemSpec& {
      std::lock_guard lock(*systems_mutex);
      auto& slot = (*systems)[name];
      if (!slot) slot = std::make_unique<hw::SystemSpec>(hw::load_system_preset(name, ctx.config_dir()));
      return *slot;
    });
    const int jobs = o->jobs > 0 ? o->jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    // Progress only on a terminal: a log or a pipe would get one line per row.
    const bool progress = ::isatty(STDERR_FILENO) != 0;
    const validate::Report rep =
        validate::run_validation(table, o->measurements, registry, loader, jobs, [progress](int d, int n) {
          if (progress) std::cerr << fmt::format("\rvalidate: {}/{} rows", d, n) << (d == n ? "\n" : "") << std::flush;
        });
    const std::string csv = rows_csv(table, rep);
    if (!o->rows_out.empty()) write_file_atomically(o->rows_out, csv);
    if (!o->plot.empty()) {
      const auto tmp = std::filesystem::temp_directory_path() / fmt::format("tgsim_rows_{}.csv", ::getpid());
      write_file_atomically(tmp, csv);
      const std::string cmdline = fmt::format("{} {}/plot/validation_plot.py \"{}\" \"{}\"", python(), TGSIM_TOOLS_DIR,
                                              tmp.string(), o->plot);
      const int rc = std::system(cmdline.c_str());
      std::filesystem::remove(tmp);
      if (rc != 0) throw InputError(fmt::format("--plot {}: the plot script failed (is python3-matplotlib installed?)", o->plot));
    }
    if (o->json) {
      nlohmann::json j = stats_json(rep.all);
      nlohmann::json by_op = nlohmann::json::object(), by_cat = nlohmann::json::object(), skipped = nlohmann::json::array();
      for (const auto& [op, s] : rep.by_op) by_op[op] = stats_json(s);
      for (const auto& [c, s] : rep.by_category) by_cat[c] = stats_json(s);
      for (const auto& r : rep.rows) {
        if (!r.prediction.ok) skipped.push_back({{"line", r.row->line}, {"op", r.op}, {"reason", r.prediction.skip_reason}});
      }
      j["by_op"] = by_op;
      j["by_category"] = by_cat;
      j["skipped_rows"] = skipped;
      j["measurements"] = o->measurements;
      std::cout << j.dump(2) << "\n";
    } else {
      print_text(rep, o->measurements);
    }
  });
}

}  // namespace tgsim::cli
