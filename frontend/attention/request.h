// What a user asks for (a problem plus a kernel name, a schedule file, a family or nothing) and
// the schedule that answers it. The default rule (docs/attention.md): the kernel the library of
// the chosen family launches for this problem; family fa2 (PyTorch's flash backend) by default.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "frontend/attention/problem.h"
#include "frontend/attention/schedule.h"
#include "sim/hw/gpu_spec.h"

namespace tgsim::attention {

struct Request {
  Problem problem;
  std::string kernel;         // kernel name(s) from a profile
  std::string schedule_file;  // schedule JSON
  std::optional<Family> family;
};

struct Resolved {
  Problem problem;
  Schedule schedule;
  std::string source;  // "kernel name", "schedule file", "default rule (fa2)", ...
  std::vector<std::string> notes;
};

// Throws InputError (unsupported kernel names, unreadable files, invalid problems).
Resolved resolve(const Request& r, const hw::GpuSpec& spec);

// The schedule the library of `family` picks for `p` (documented in docs/attention.md).
Schedule default_schedule(const Problem& p, Family family, const hw::GpuSpec& spec);

std::optional<Family> parse_family(const std::string& name);

}  // namespace tgsim::attention
