// Unit strings ("50MiB", "3.35TB/s", "1.98GHz", "2.5us", "656cycles", "128B/clk").
#include "sim/units/parse.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string s = tgsim::fuzz::text(data, size);
  tgsim::fuzz::expect_only_input_errors([&] { tgsim::parse_bytes(s); });
  tgsim::fuzz::expect_only_input_errors([&] { tgsim::parse_duration(s); });
  tgsim::fuzz::expect_only_input_errors([&] { tgsim::parse_bandwidth(s); });
  tgsim::fuzz::expect_only_input_errors([&] { tgsim::parse_frequency(s); });
  tgsim::fuzz::expect_only_input_errors([&] { tgsim::parse_cycles(s); });
  tgsim::fuzz::expect_only_input_errors([&] { tgsim::parse_bytes_per_cycle(s); });
  return 0;
}
