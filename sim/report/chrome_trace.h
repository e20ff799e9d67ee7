// A Chrome/Perfetto trace (JSON "traceEvents") of a run, open in ui.perfetto.dev or chrome://tracing.
// Tracks: one process per GPU; per SM a "CTAs" track with one slice per CTA (always, every SM),
// and per SM, resident CTA and warp role a track with one slice per tile op (node) — sampled:
// only the first `node_sms` SMs of each GPU record nodes, and at most `max_node_slices` are kept;
// the trace's metadata says what was sampled or cut.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/engine/trace_sink.h"

namespace tgsim::report {

struct ChromeTraceOptions {
  int node_sms = 4;                      // SMs per GPU whose tile ops are traced (-1: all)
  std::int64_t max_node_slices = 400'000;
};

class ChromeTrace final : public engine::TraceSink {
 public:
  explicit ChromeTrace(ChromeTraceOptions options = {}) : options_(options) {}
  bool wants_nodes(int gpu, int sm) const override;
  void node(const engine::NodeSlice& s) override;
  void cta(const engine::CtaSlice& s) override;
  // The whole trace as JSON text (slices sorted by start; overlapping ops of one role go to
  // numbered sub-tracks so every track nests properly).
  std::string to_json_text(const std::string& title) const;

 private:
  struct Slice {
    int gpu, sm, lane, kernel;
    std::int64_t cta;
    std::string role, name, kind;
    std::int64_t start_ps, end_ps;
  };
  ChromeTraceOptions options_;
  std::vector<Slice> nodes_;
  std::vector<Slice> ctas_;
  std::int64_t dropped_ = 0;
};

}  // namespace tgsim::report
