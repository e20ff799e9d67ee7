// GPU and system spec JSON (with and without --set overrides) and LLM model configs.
#include "frontend/llm/model.h"
#include "sim/hw/spec_json.h"
#include "sim/hw/system_json.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto j = tgsim::fuzz::json(data, size);
  if (!j) return 0;
  tgsim::fuzz::expect_only_input_errors([&] { tgsim::hw::parse_gpu_spec(*j, "fuzz"); });
  tgsim::fuzz::expect_only_input_errors([&] { tgsim::hw::parse_gpu_spec(*j, "fuzz", {"sm.count=7", "clock.boost=1GHz"}); });
  tgsim::fuzz::expect_only_input_errors([&] { tgsim::hw::parse_system_spec(*j, "fuzz"); });
  tgsim::fuzz::expect_only_input_errors([&] { tgsim::llm::parse_model(*j, "fuzz"); });
  return 0;
}
