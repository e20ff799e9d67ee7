// `tgsim sweep SPEC.json --out results.csv [--jobs N] [--shard K/N] [--resume | --force]` and
// `tgsim sweep [SPEC.json] --merge a.csv b.csv ... --out all.csv` (docs/sweeps.md).
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include "frontend/sweep/expand.h"
#include "frontend/sweep/results_csv.h"
#include "frontend/sweep/runner.h"
#include "frontend/sweep/sweep_spec.h"
#include "sim/hw/spec_json.h"
#include "sim/units/atomic_file.h"
#include "sim/units/error.h"
#include "tools/tgsim/cli_common.h"

namespace tgsim::cli {
namespace {

// The one piece of static state in tgsim: a signal handler can reach nothing else. It is set by
// SIGINT/SIGTERM while a sweep runs (InterruptGuard) and read by the sweep's workers.
std::atomic<bool> g_interrupted{false};

extern "C" void on_interrupt(int) { g_interrupted.store(true); }

// Installs the handler for the lifetime of a run. SA_RESETHAND: a second Ctrl-C kills at once.
class InterruptGuard {
 public:
  InterruptGuard() {
    g_interrupted.store(false);
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~InterruptGuard() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  const std::atomic<bool>* flag() const { return &g_interrupted; }

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

// Rows appended to the output as they finish: one write() per row, so a killed run leaves at
// most one unfinished line, which --resume drops.
class RowAppender {
 public:
  explicit RowAppender(const std::string& path)
      : path_(path), fd_(::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC)) {
    if (fd_ < 0) throw InputError(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  }
  ~RowAppender() { ::close(fd_); }
  RowAppender(const RowAppender&) = delete;
  RowAppender& operator=(const RowAppender&) = delete;
  void append(const std::string& line) {
    std::size_t off = 0;
    while (off < line.size()) {
      const ssize_t n = ::write(fd_, line.data() + off, line.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw InputError(fmt::format("cannot write {}: {}", path_, std::strerror(errno)));
      off += static_cast<std::size_t>(n);
    }
  }

 private:
  std::string path_;
  int fd_;
};

// "\rsweep: 123/1000 points, 12.3 points/s, ETA 71 s" on stderr, only when stderr is a terminal.
class Progress {
 public:
  explicit Progress(std::int64_t total) : total_(total), tty_(::isatty(STDERR_FILENO) == 1) {}
  void update(std::int64_t done) {
    if (!tty_) return;
    const auto now = std::chrono::steady_clock::now();
    if (done < total_ && now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    const double s = seconds();
    const double rate = s > 0 ? static_cast<double>(done) / s : 0;
    const double eta = rate > 0 ? static_cast<double>(total_ - done) / rate : 0;
    std::cerr << fmt::format("\rsweep: {}/{} points, {:.1f} points/s, ETA {:.0f} s   ", done, total_, rate, eta)
              << std::flush;
    shown_ = true;
  }
  void end() {
    if (shown_) std::cerr << "\n";
    shown_ = false;
  }
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  std::int64_t total_;
  bool tty_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
};

struct Opts {
  std::string spec;
  std::string out;
  int jobs = 0;
  std::string shard;
  bool resume = false;
  bool force = false;
  std::vector<std::string> merge;
  double max_nodes = 2e9;
  std::string max_memory;
};

struct Shard {
  std::int64_t k = 0, n = 1;
  bool has(std::int64_t i) const { return i % n == k; }
};

Shard parse_shard(const std::string& text) {
  Shard s;
  if (text.empty()) return s;
  const auto slash = text.find('/');
  try {
    std::size_t a = 0, b = 0;
    if (slash == std::string::npos) throw std::invalid_argument("");
    s.k = std::stoll(text.substr(0, slash), &a);
    s.n = std::stoll(text.substr(slash + 1), &b);
    if (a != slash || b != text.size() - slash - 1) throw std::invalid_argument("");
  } catch (const std::exception&) {
    throw InputError(fmt::format("--shard: expected K/N such as 0/4, got \"{}\"", text));
  }
  if (s.n < 1 || s.k < 0 || s.k >= s.n)
    throw InputError(fmt::format("--shard {}: need 0 <= K < N (shards are numbered from 0)", text));
  return s;
}

void run_merge(const Context& ctx, const Opts& o, const sweep::EvaluatorRegistry& ops);

// A run killed while rewriting the output leaves write_file_atomically's temporary file
// (".NAME.tmp-XXXXXX" next to it); the next run of the same output removes such leftovers.
void remove_stale_temporaries(const std::string& out) {
  const std::filesystem::path p(out);
  const std::filesystem::path dir = p.parent_path().empty() ? "." : p.parent_path();
  const std::string prefix = "." + p.filename().string() + ".tmp-";
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() == prefix.size() + 6 && name.rfind(prefix, 0) == 0) std::filesystem::remove(e.path(), ec);
  }
}

// The finished rows of an earlier run (--resume), none (new file, --force), or a refusal.
sweep::Rows earlier_rows(const Opts& o, const std::string& header, const sweep::ExpectedKey& expected) {
  if (!std::filesystem::exists(o.out) || o.force) return {};
  if (!o.resume)
    throw InputError(
        fmt::format("--out {}: the file exists; add --resume to finish that run, or --force to overwrite it", o.out));
  sweep::Existing ex = sweep::read_existing(o.out, header, expected);
  for (const auto& n : ex.notes) std::cerr << "sweep: " << n << "\n";
  return std::move(ex.rows);
}

void run_sweep(const Context& ctx, const Opts& o) {
  sweep::EvaluatorRegistry ops;
  sweep::register_builtin_evaluators(ops);
  if (!o.merge.empty()) return run_merge(ctx, o, ops);
  if (o.spec.empty()) throw InputError("sweep: give a spec file (or --merge FILES)");
  const sweep::SweepSpec spec = sweep::read_sweep_spec(o.spec, ops);
  const sweep::Evaluator& ev = ops.get(spec.op, o.spec);
  const Shard shard = parse_shard(o.shard);
  const std::vector<sweep::Point> points = sweep::expand(spec);
  const auto total = static_cast<std::int64_t>(points.size());
  const sweep::ExpectedKey expected = [&](std::int64_t i) -> std::optional<std::string> {
    if (i >= total || !shard.has(i)) return std::nullopt;
    return sweep::resolve_point(spec, points[static_cast<std::size_t>(i)]).key;
  };
  const std::string header = sweep::csv_header(spec);
  remove_stale_temporaries(o.out);
  sweep::Rows rows = earlier_rows(o, header, expected);
  std::vector<std::int64_t> todo;
  std::int64_t mine = 0;
  for (std::int64_t i = shard.k; i < total; i += shard.n, ++mine)
    if (!rows.count(i)) todo.push_back(i);
  const auto kept = static_cast<std::int64_t>(rows.size());
  if (kept > 0)
    std::cerr << fmt::format("sweep: {}: kept {} finished rows, {} points to run\n", o.out, kept, todo.size());
  // The header and the kept rows first (atomically), so a damaged tail is gone before rows are appended.
  write_file_atomically(o.out, sweep::assemble(header, rows));
  const int jobs = o.jobs > 0 ? o.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const sweep::SpecLoader load = [&ctx](const std::string& gpu, const std::vector<std::string>& overrides) {
    return hw::load_gpu_preset(gpu, ctx.config_dir(), overrides);
  };
  Progress progress(static_cast<std::int64_t>(todo.size()));
  sweep::RunStats stats;
  {
    InterruptGuard guard;
    RowAppender out(o.out);
    stats = sweep::run_points(spec, ev, points, todo, load, sweep::RunOptions{jobs, guard.flag(), make_limits(o.max_nodes, o.max_memory)},
                              [&](std::int64_t index, const std::string& line, bool) {
                                out.append(line);
                                rows.emplace(index, line);
                                progress.update(static_cast<std::int64_t>(rows.size()) - kept);
                              });
  }
  progress.end();
  if (stats.stopped)
    throw Interrupted(
        fmt::format("sweep interrupted: {} of {} points are in {}; run the same command with --resume to finish",
                    rows.size(), mine, o.out));
  write_file_atomically(o.out, sweep::assemble(header, rows));
  std::cout << fmt::format(
      "sweep: {} points{} in {:.1f} s ({} run on {} threads, {:.1f} points/s, {} kept), {} errors; wrote {}\n", mine,
      shard.n > 1 ? fmt::format(" (shard {}/{} of {})", shard.k, shard.n, total) : "", progress.seconds(), stats.done,
      jobs, static_cast<double>(stats.done) / std::max(1e-9, progress.seconds()), kept, stats.errors, o.out);
}

void run_merge(const Context&, const Opts& o, const sweep::EvaluatorRegistry& ops) {
  if (std::filesystem::exists(o.out) && !o.force)
    throw InputError(fmt::format("--out {}: the file exists; add --force to overwrite it", o.out));
  sweep::ExpectedKey expected;
  std::vector<sweep::Point> points;
  std::optional<sweep::SweepSpec> spec;
  if (!o.spec.empty()) {
    spec = sweep::read_sweep_spec(o.spec, ops);
    points = sweep::expand(*spec);
    expected = [&](std::int64_t i) -> std::optional<std::string> {
      if (i >= static_cast<std::int64_t>(points.size())) return std::nullopt;
      return sweep::resolve_point(*spec, points[static_cast<std::size_t>(i)]).key;
    };
  }
  const sweep::Merged m = sweep::merge_files(o.merge, expected);
  if (spec && m.header != sweep::csv_header(*spec))
    throw InputError(fmt::format("{}: its header does not match {}", o.merge.front(), o.spec));
  if (spec && m.rows.size() != points.size()) {
    std::int64_t first = 0;
    while (m.rows.count(first)) ++first;
    throw InputError(
        fmt::format("--merge: {} of {} points are missing (the first is point {}); finish every shard first",
                    points.size() - m.rows.size(), points.size(), first));
  }
  write_file_atomically(o.out, sweep::assemble(m.header, m.rows));
  std::cout << fmt::format("sweep: merged {} rows from {} files into {}\n", m.rows.size(), o.merge.size(), o.out);
}

}  // namespace

void register_sweep(CLI::App& app, const Context& ctx) {
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand(
      "sweep", "Run a parameter sweep (grid, cases, random) of gemm or attention; one CSV row per point");
  cmd->add_option("spec", o->spec, "Sweep spec JSON (docs/sweeps.md; examples in configs/sweeps/)");
  cmd->add_option("--out", o->out, "Results CSV (rows appear as points finish; sorted by index at the end)")
      ->required();
  cmd->add_option("--jobs", o->jobs, "Threads (default: the hardware threads)")->check(CLI::NonNegativeNumber);
  add_limit_options(*cmd, o->max_nodes, o->max_memory);
  cmd->add_option("--shard", o->shard, "Run only points i with i % N == K (K from 0), e.g. --shard 0/4");
  auto* resume = cmd->add_flag("--resume", o->resume, "Keep the finished rows of an existing --out and run the rest");
  cmd->add_flag("--force", o->force, "Overwrite an existing --out")->excludes(resume);
  cmd->add_option("--merge", o->merge,
                  "Merge finished shard files into --out (give the spec too to check completeness)")
      ->take_all();
  cmd->footer(
      "Examples:\n"
      "  tgsim sweep configs/sweeps/gemm_tiles_h100.json --out tiles.csv\n"
      "  tgsim sweep configs/sweeps/gemm_llm_shapes_random.json --out llm.csv --jobs 2 --resume\n"
      "  tgsim sweep configs/sweeps/gemm_llm_shapes_random.json --out part0.csv --shard 0/2\n"
      "  tgsim sweep configs/sweeps/gemm_llm_shapes_random.json --merge part0.csv part1.csv --out llm.csv\n"
      "Interrupted (Ctrl-C, kill): rows already written stay; run the same command with --resume.");
  cmd->callback([&ctx, o] { run_sweep(ctx, *o); });
}

}  // namespace tgsim::cli
