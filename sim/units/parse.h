// Unit strings at the JSON/command-line boundary: "50MiB", "3.35TB/s", "1.98GHz", "2.5us",
// "656cycles", "128B/clk". Parsing is exact where the target is an integer (bytes, picoseconds) and
// correctly rounded where it is a double, so format_*(x) parses back to exactly x.
//
// Prefixes: SI k/M/G/T = 1000^n, binary Ki/Mi/Gi/Ti = 1024^n. "KB" is rejected as ambiguous.
// A space may separate number and unit ("450 GB/s"). A bare number is accepted only where the unit
// cannot be misread (bytes, cycles, bytes per cycle); bandwidths, frequencies and durations need a
// unit, so "1980" is never silently 1980 Hz. Negative, NaN, infinite and out-of-range values and
// unknown units throw InputError('expected a bandwidth like "3.35TB/s", got "fast"').
#pragma once

#include <string>
#include <string_view>

#include "sim/units/units.h"

namespace tgsim {

Bytes parse_bytes(std::string_view text);               // "50MiB", "40MB", "128B", "1.5GB", "4096"
BytesPerSecond parse_bandwidth(std::string_view text);  // "3.35TB/s", "450 GB/s", "1.2TiB/s"
Hertz parse_frequency(std::string_view text);           // "1.98GHz", "1980MHz"
Duration parse_duration(std::string_view text);         // "2.5us", "1.3µs", "800ns", "10ps"; rounded to 1 ps
Cycles parse_cycles(std::string_view text);             // "656cycles", "656 cycles", "656clk", "656"
// Bytes per SM clock ("128B/clk", "128B/cycle", "128"). Returns a plain double so units/ does not
// depend on hw/; callers wrap it in hw::BytesPerCycle.
double parse_bytes_per_cycle(std::string_view text);

// Canonical strings; each parses back to the same value with the matching parse_* function.
std::string format_bytes(Bytes b);                // "50MiB", "40MB", "126.5MiB", "128B"
std::string format_bandwidth(BytesPerSecond bw);  // "3.35TB/s" (SI prefixes)
std::string format_frequency(Hertz f);            // "1.98GHz"
std::string format_duration(Duration d);          // "2.5us", "800ns", "10ps"
std::string format_cycles(Cycles c);              // "656cycles"
std::string format_bytes_per_cycle(double bytes_per_cycle);  // "128B/clk"

}  // namespace tgsim
