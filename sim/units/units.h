// Typed units used across tgsim. Unit strings ("3.35TB/s", "1.98GHz") are parsed only at the JSON
// boundary (sim/units/parse.h); inside the simulator every quantity carries its type.
#pragma once

#include <chrono>
#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>

namespace tgsim {

// Simulated time: integer picoseconds, so event ordering is exact and runs are deterministic.
using Duration = std::chrono::duration<std::int64_t, std::pico>;
// A point in simulated time, measured from the start of the run.
using TimePoint = Duration;

inline constexpr Duration kZeroTime{0};
inline constexpr Duration kNever{std::numeric_limits<std::int64_t>::max()};

constexpr double to_us(Duration d) { return static_cast<double>(d.count()) * 1e-6; }
constexpr double to_ns(Duration d) { return static_cast<double>(d.count()) * 1e-3; }
constexpr double to_seconds(Duration d) { return static_cast<double>(d.count()) * 1e-12; }
inline Duration from_seconds(double s) { return Duration{static_cast<std::int64_t>(std::llround(s * 1e12))}; }
inline Duration from_us(double us) { return Duration{static_cast<std::int64_t>(std::llround(us * 1e6))}; }
inline Duration from_ns(double ns) { return Duration{static_cast<std::int64_t>(std::llround(ns * 1e3))}; }

struct Bytes {
  std::int64_t value = 0;
  constexpr auto operator<=>(const Bytes&) const = default;
  constexpr Bytes operator+(Bytes o) const { return {value + o.value}; }
  constexpr Bytes operator-(Bytes o) const { return {value - o.value}; }
  constexpr Bytes operator*(std::int64_t k) const { return {value * k}; }
};

struct BytesPerSecond {
  double value = 0.0;
  constexpr auto operator<=>(const BytesPerSecond&) const = default;
  constexpr BytesPerSecond operator*(double k) const { return {value * k}; }
};

struct Hertz {
  double value = 0.0;
  constexpr auto operator<=>(const Hertz&) const = default;
  constexpr double period_ps() const { return 1e12 / value; }
};

// A count of clock cycles (may be fractional: throughput-derived costs).
struct Cycles {
  double value = 0.0;
  constexpr auto operator<=>(const Cycles&) const = default;
};

// Time for `cycles` at clock `f`, rounded to the nearest picosecond.
inline Duration cycles_to_time(Cycles cycles, Hertz f) {
  return Duration{static_cast<std::int64_t>(std::llround(cycles.value * f.period_ps()))};
}

// Time to move `b` at rate `r`, rounded up so a transfer never takes zero time.
inline Duration transfer_time(Bytes b, BytesPerSecond r) {
  return Duration{static_cast<std::int64_t>(std::ceil(static_cast<double>(b.value) / r.value * 1e12))};
}

}  // namespace tgsim
