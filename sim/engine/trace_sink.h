// Contract: the engine reports node executions and CTA lifetimes to a trace sink while it runs.
// A sink decides what to keep (sim/report/chrome_trace.h samples SMs to keep files small).
#pragma once

#include <cstdint>
#include <string_view>

#include "sim/units/units.h"

namespace tgsim::engine {

struct NodeSlice {
  int gpu = 0;
  int sm = 0;          // SM index within its GPU
  int lane = 0;        // residency slot of the CTA on its SM (co-resident CTAs differ)
  int kernel = 0;
  std::int64_t cta = 0;
  std::string_view role;
  std::string_view node;
  std::string_view kind;
  TimePoint start{0};  // resource granted
  TimePoint end{0};    // result usable
};

struct CtaSlice {
  int gpu = 0;
  int sm = 0;
  int lane = 0;
  int kernel = 0;
  std::string_view kernel_name;
  std::int64_t cta = 0;
  TimePoint start{0};
  TimePoint end{0};
};

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  // Whether node slices on this SM are wanted (the engine skips the work otherwise).
  virtual bool wants_nodes(int gpu, int sm) const = 0;
  virtual void node(const NodeSlice& s) = 0;
  virtual void cta(const CtaSlice& s) = 0;
};

}  // namespace tgsim::engine
