#include "sim/units/parse.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/units/error.h"

namespace tgsim {
namespace {

// The InputError message of `f()`, or "" if it did not throw.
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ParseBytes, AllForms) {
  EXPECT_EQ(parse_bytes("50MiB").value, 50LL * 1024 * 1024);
  EXPECT_EQ(parse_bytes("40MB").value, 40'000'000);
  EXPECT_EQ(parse_bytes("227KiB").value, 227 * 1024);
  EXPECT_EQ(parse_bytes("128B").value, 128);
  EXPECT_EQ(parse_bytes("1.5GB").value, 1'500'000'000);
  EXPECT_EQ(parse_bytes("4096").value, 4096);
  EXPECT_EQ(parse_bytes(" 64 KiB ").value, 65536);
  EXPECT_EQ(parse_bytes("1kB").value, 1000);
  EXPECT_EQ(parse_bytes("2TB").value, 2'000'000'000'000);
  EXPECT_EQ(parse_bytes("1TiB").value, 1LL << 40);
  EXPECT_EQ(parse_bytes("1GiB").value, 1LL << 30);
  EXPECT_EQ(parse_bytes("126.5MiB").value, 132'644'864);
  EXPECT_EQ(parse_bytes("0.5KiB").value, 512);
  EXPECT_EQ(parse_bytes("1e3B").value, 1000);
  EXPECT_EQ(parse_bytes("0B").value, 0);
  EXPECT_EQ(parse_bytes(".5kB").value, 500);
  EXPECT_EQ(parse_bytes("9223372036854775807").value, std::numeric_limits<std::int64_t>::max());
}

TEST(ParseBytes, Errors) {
  EXPECT_EQ(error_of([] { parse_bytes("fast"); }), "expected a size like \"50MiB\", got \"fast\"");
  EXPECT_NE(error_of([] { parse_bytes(""); }).find("(empty)"), std::string::npos);
  EXPECT_NE(error_of([] { parse_bytes("   "); }).find("(empty)"), std::string::npos);
  EXPECT_NE(error_of([] { parse_bytes("-5MB"); }).find("negative"), std::string::npos);
  EXPECT_NE(error_of([] { parse_bytes("5XB"); }).find("unknown unit \"XB\"; use B, kB"), std::string::npos);
  EXPECT_NE(error_of([] { parse_bytes("5KB"); }).find("ambiguous"), std::string::npos);
  EXPECT_NE(error_of([] { parse_bytes("1.5B"); }).find("not a whole number"), std::string::npos);
  EXPECT_NE(error_of([] { parse_bytes("0.3KiB"); }).find("not a whole number"), std::string::npos);
  EXPECT_NE(error_of([] { parse_bytes("9223372036854775808"); }).find("too large"), std::string::npos);
  EXPECT_NE(error_of([] { parse_bytes("10000000TB"); }).find("too large"), std::string::npos);
  EXPECT_NE(error_of([] { parse_bytes("1e400B"); }).find("too large"), std::string::npos);
  EXPECT_NE(error_of([] { parse_bytes("1e401B"); }).find("exponent out of range"), std::string::npos);
  EXPECT_NE(error_of([] { parse_bytes("0.000000000000000000001TB"); }).find("not a whole number"), std::string::npos);
  EXPECT_NE(error_of([] { parse_bytes("12345678901234567891B"); }).find("significant digits"), std::string::npos);
  for (const char* bad : {"nan", "NaN", "inf", "-inf", "+5B", "5 M B", "MB", "0x10", "5MiB/s", "1..5MB"}) {
    EXPECT_THROW(parse_bytes(bad), InputError) << bad;
  }
}

TEST(ParseBandwidth, AllForms) {
  EXPECT_EQ(parse_bandwidth("3.35TB/s").value, 3.35e12);
  EXPECT_EQ(parse_bandwidth("900GB/s").value, 900e9);
  EXPECT_EQ(parse_bandwidth("450 GB/s").value, 450e9);
  EXPECT_EQ(parse_bandwidth("1.2TiB/s").value, 1.2 * 1099511627776.0);
  EXPECT_EQ(parse_bandwidth("64kB/s").value, 64e3);
  EXPECT_EQ(parse_bandwidth("2MiB/s").value, 2.0 * 1024 * 1024);
  EXPECT_EQ(parse_bandwidth("10B/s").value, 10.0);
  EXPECT_EQ(parse_bandwidth("2.039TB/s").value, 2.039e12);
}

TEST(ParseBandwidth, Errors) {
  EXPECT_EQ(error_of([] { parse_bandwidth("fast"); }), "expected a bandwidth like \"3.35TB/s\", got \"fast\"");
  EXPECT_NE(error_of([] { parse_bandwidth("3350"); }).find("a unit is required"), std::string::npos);
  EXPECT_NE(error_of([] { parse_bandwidth("3.35TB"); }).find("unknown unit"), std::string::npos);
  EXPECT_NE(error_of([] { parse_bandwidth("1e400TB/s"); }).find("out of range"), std::string::npos);
  EXPECT_NE(error_of([] { parse_bandwidth("1e300TB/s"); }).find("out of range"), std::string::npos);
  EXPECT_THROW(parse_bandwidth("-1GB/s"), InputError);
  EXPECT_THROW(parse_bandwidth("nan GB/s"), InputError);
  EXPECT_THROW(parse_bandwidth("5KB/s"), InputError);
}

TEST(ParseFrequency, AllForms) {
  EXPECT_EQ(parse_frequency("1.98GHz").value, 1.98e9);
  EXPECT_EQ(parse_frequency("1980MHz").value, 1.98e9);
  EXPECT_EQ(parse_frequency("1980 MHz").value, 1.98e9);
  EXPECT_EQ(parse_frequency("500kHz").value, 5e5);
  EXPECT_EQ(parse_frequency("60Hz").value, 60.0);
  EXPECT_EQ(parse_frequency("0Hz").value, 0.0);
}

TEST(ParseFrequency, Errors) {
  EXPECT_EQ(error_of([] { parse_frequency("fast"); }), "expected a frequency like \"1.98GHz\", got \"fast\"");
  EXPECT_NE(error_of([] { parse_frequency("1980"); }).find("a unit is required"), std::string::npos);
  EXPECT_NE(error_of([] { parse_frequency("1.98Ghz"); }).find("unknown unit \"Ghz\""), std::string::npos);
  EXPECT_THROW(parse_frequency("-1GHz"), InputError);
}

TEST(ParseDuration, AllForms) {
  EXPECT_EQ(parse_duration("2.5us"), Duration{2'500'000});
  EXPECT_EQ(parse_duration("800ns"), Duration{800'000});
  EXPECT_EQ(parse_duration("1.3\u00b5s"), Duration{1'300'000});  // micro sign
  EXPECT_EQ(parse_duration("1.3\u03bcs"), Duration{1'300'000});  // Greek mu
  EXPECT_EQ(parse_duration("3ms"), Duration{3'000'000'000});
  EXPECT_EQ(parse_duration("10ps"), Duration{10});
  EXPECT_EQ(parse_duration("1s"), Duration{1'000'000'000'000});
  EXPECT_EQ(parse_duration("1.5 ns"), Duration{1'500});
  // Sub-picosecond parts round to the nearest picosecond.
  EXPECT_EQ(parse_duration("0.4ps"), Duration{0});
  EXPECT_EQ(parse_duration("0.5ps"), Duration{1});
  EXPECT_EQ(parse_duration("1.0004ns"), Duration{1'000});
  EXPECT_EQ(parse_duration("0.000000000000000000001s"), Duration{0});
}

TEST(ParseDuration, Errors) {
  EXPECT_EQ(error_of([] { parse_duration("soon"); }), "expected a duration like \"2.5us\", got \"soon\"");
  EXPECT_NE(error_of([] { parse_duration("10"); }).find("a unit is required"), std::string::npos);
  EXPECT_NE(error_of([] { parse_duration("10m"); }).find("unknown unit \"m\""), std::string::npos);
  EXPECT_NE(error_of([] { parse_duration("10000000s"); }).find("too large"), std::string::npos);
  EXPECT_THROW(parse_duration("-1ns"), InputError);
}

TEST(ParseCycles, AllForms) {
  EXPECT_EQ(parse_cycles("656cycles").value, 656.0);
  EXPECT_EQ(parse_cycles("656 cycles").value, 656.0);
  EXPECT_EQ(parse_cycles("656clk").value, 656.0);
  EXPECT_EQ(parse_cycles("1cycle").value, 1.0);
  EXPECT_EQ(parse_cycles("656").value, 656.0);
  EXPECT_EQ(parse_cycles("12.5").value, 12.5);
}

TEST(ParseCycles, Errors) {
  EXPECT_EQ(error_of([] { parse_cycles("many"); }), "expected a cycle count like \"656cycles\", got \"many\"");
  EXPECT_NE(error_of([] { parse_cycles("656 clocks"); }).find("unknown unit"), std::string::npos);
  EXPECT_THROW(parse_cycles("-3"), InputError);
}

TEST(ParseBytesPerCycle, AllForms) {
  EXPECT_EQ(parse_bytes_per_cycle("128B/clk"), 128.0);
  EXPECT_EQ(parse_bytes_per_cycle("64 B/cycle"), 64.0);
  EXPECT_EQ(parse_bytes_per_cycle("32"), 32.0);
  EXPECT_EQ(error_of([] { parse_bytes_per_cycle("128B/s"); }).rfind("expected a per-clock bandwidth like \"128B/clk\"", 0),
            0u);
}

TEST(Format, CanonicalStrings) {
  EXPECT_EQ(format_bytes(Bytes{50LL * 1024 * 1024}), "50MiB");
  EXPECT_EQ(format_bytes(Bytes{40'000'000}), "40MB");
  EXPECT_EQ(format_bytes(Bytes{227 * 1024}), "227KiB");
  EXPECT_EQ(format_bytes(Bytes{128}), "128B");
  EXPECT_EQ(format_bytes(Bytes{1'500'000'000}), "1.5GB");
  EXPECT_EQ(format_bytes(Bytes{132'644'864}), "126.5MiB");
  EXPECT_EQ(format_bytes(Bytes{0}), "0B");
  EXPECT_EQ(format_bandwidth(BytesPerSecond{3.35e12}), "3.35TB/s");
  EXPECT_EQ(format_bandwidth(BytesPerSecond{900e9}), "900GB/s");
  EXPECT_EQ(format_bandwidth(BytesPerSecond{0}), "0B/s");
  EXPECT_EQ(format_frequency(Hertz{1.98e9}), "1.98GHz");
  EXPECT_EQ(format_frequency(Hertz{1.755e9}), "1.755GHz");
  EXPECT_EQ(format_frequency(Hertz{999}), "999Hz");
  EXPECT_EQ(format_duration(Duration{2'500'000}), "2.5us");
  EXPECT_EQ(format_duration(Duration{800'000}), "800ns");
  EXPECT_EQ(format_duration(Duration{10}), "10ps");
  EXPECT_EQ(format_duration(Duration{0}), "0ps");
  EXPECT_EQ(format_duration(Duration{3'000'000'000}), "3ms");
  EXPECT_EQ(format_cycles(Cycles{656}), "656cycles");
  EXPECT_EQ(format_cycles(Cycles{2580.48}), "2580.48cycles");
  EXPECT_EQ(format_bytes_per_cycle(128), "128B/clk");
}

// Deterministic pseudo-random doubles spread over many magnitudes.
std::vector<double> sample_doubles() {
  std::vector<double> out{0.1, 1.0 / 3.0, 1.2 * 1099511627776.0, 3.35e12, 4472 * 1.98e9, 1e-3, 123.456e9,
                          std::nextafter(1e9, 2e9)};
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 2000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double mantissa = static_cast<double>(state >> 11) / static_cast<double>(1ull << 53);
    const int exponent = static_cast<int>((state >> 3) % 40) - 10;
    out.push_back((mantissa + 0.01) * std::pow(10.0, exponent));
  }
  return out;
}

TEST(RoundTrip, Bytes) {
  std::vector<std::int64_t> values{0, 1, 999, 1000, 1024, 1536, 52'428'800, 40'000'000, 232'448, 132'644'864,
                                   123'456'789, 1'500'000'000, std::numeric_limits<std::int64_t>::max()};
  std::uint64_t state = 12345;
  for (int i = 0; i < 2000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    values.push_back(static_cast<std::int64_t>(state >> (1 + i % 60)));
  }
  for (const std::int64_t v : values) EXPECT_EQ(parse_bytes(format_bytes(Bytes{v})).value, v) << format_bytes(Bytes{v});
}

TEST(RoundTrip, Doubles) {
  for (const double v : sample_doubles()) {
    EXPECT_EQ(parse_bandwidth(format_bandwidth(BytesPerSecond{v})).value, v) << format_bandwidth(BytesPerSecond{v});
    EXPECT_EQ(parse_frequency(format_frequency(Hertz{v})).value, v) << format_frequency(Hertz{v});
    EXPECT_EQ(parse_cycles(format_cycles(Cycles{v})).value, v) << format_cycles(Cycles{v});
    EXPECT_EQ(parse_bytes_per_cycle(format_bytes_per_cycle(v)), v) << format_bytes_per_cycle(v);
  }
}

TEST(RoundTrip, Durations) {
  std::vector<std::int64_t> values{0, 1, 10, 999, 1000, 2'500'000, 1'234'567, 3'000'000'000, kNever.count()};
  std::uint64_t state = 777;
  for (int i = 0; i < 2000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    values.push_back(static_cast<std::int64_t>(state >> (1 + i % 60)));
  }
  for (const std::int64_t v : values) {
    EXPECT_EQ(parse_duration(format_duration(Duration{v})), Duration{v}) << format_duration(Duration{v});
  }
}

}  // namespace
}  // namespace tgsim
