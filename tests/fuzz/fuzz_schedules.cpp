// GEMM and attention schedule JSON; a schedule that parses is also lowered on a small problem.
#include "frontend/attention/lower.h"
#include "frontend/attention/schedule.h"
#include "frontend/gemm/lower.h"
#include "frontend/gemm/schedule_json.h"
#include "sim/hw/spec_json.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const tgsim::hw::GpuSpec spec = tgsim::hw::load_gpu_preset("h100", TGSIM_SOURCE_DIR "/configs");
  const auto j = tgsim::fuzz::json(data, size);
  if (!j) return 0;
  tgsim::fuzz::expect_only_input_errors([&] {
    const auto s = tgsim::gemm::parse_schedule(*j, "fuzz");
    tgsim::gemm::lower_gemm(tgsim::gemm::Problem{512, 384, 1024, 1, tgsim::DType::bf16, tgsim::DType::bf16, tgsim::DType::bf16}, s, spec);
  });
  tgsim::fuzz::expect_only_input_errors([&] {
    const auto s = tgsim::attention::schedule_from_json(*j, "fuzz");
    tgsim::attention::Problem p{2, 8, 2, 256, 300, 64, true, tgsim::DType::bf16};
    tgsim::attention::lower_attention(p, s, spec);
  });
  return 0;
}
