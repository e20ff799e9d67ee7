#include "sim/units/parse.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>

#include <fmt/format.h>

#include "sim/units/error.h"

namespace tgsim {
namespace {

// 128-bit intermediates keep "1.5GiB" or "9223372.036854775807s" exact; __extension__ silences
// -Wpedantic for the GCC/Clang builtin.
__extension__ typedef __int128 Int128;

constexpr Int128 kInt64Max = std::numeric_limits<std::int64_t>::max();

// A unit multiplies the written number by 10^pow10 * 2^pow2 (both prefixes are exact this way).
struct Unit {
  std::string_view name;
  int pow10 = 0;
  int pow2 = 0;
};

// What a parse function accepts, for the units table and the error message.
struct Kind {
  std::string_view what;     // "a size"
  std::string_view example;  // "50MiB"
  std::span<const Unit> units;
  bool bare_number_ok;       // a number without unit means the first unit in `units`
};

constexpr std::array<Unit, 9> kByteUnits{{{"B", 0, 0}, {"kB", 3, 0}, {"MB", 6, 0}, {"GB", 9, 0}, {"TB", 12, 0},
                                          {"KiB", 0, 10}, {"MiB", 0, 20}, {"GiB", 0, 30}, {"TiB", 0, 40}}};
constexpr std::array<Unit, 9> kBandwidthUnits{{{"B/s", 0, 0}, {"kB/s", 3, 0}, {"MB/s", 6, 0}, {"GB/s", 9, 0},
                                               {"TB/s", 12, 0}, {"KiB/s", 0, 10}, {"MiB/s", 0, 20},
                                               {"GiB/s", 0, 30}, {"TiB/s", 0, 40}}};
constexpr std::array<Unit, 4> kFrequencyUnits{{{"Hz", 0, 0}, {"kHz", 3, 0}, {"MHz", 6, 0}, {"GHz", 9, 0}}};
// Picoseconds; "µs" is U+00B5 MICRO SIGN, "μs" U+03BC GREEK SMALL LETTER MU (both are typed).
constexpr std::array<Unit, 7> kDurationUnits{
    {{"ps", 0, 0}, {"ns", 3, 0}, {"us", 6, 0}, {"\u00b5s", 6, 0}, {"\u03bcs", 6, 0}, {"ms", 9, 0}, {"s", 12, 0}}};
constexpr std::array<Unit, 3> kCycleUnits{{{"cycles", 0, 0}, {"cycle", 0, 0}, {"clk", 0, 0}}};
constexpr std::array<Unit, 2> kBytesPerCycleUnits{{{"B/clk", 0, 0}, {"B/cycle", 0, 0}}};

constexpr Kind kBytes{"a size", "50MiB", kByteUnits, true};
constexpr Kind kBandwidth{"a bandwidth", "3.35TB/s", kBandwidthUnits, false};
constexpr Kind kFrequency{"a frequency", "1.98GHz", kFrequencyUnits, false};
constexpr Kind kDuration{"a duration", "2.5us", kDurationUnits, false};
constexpr Kind kCycles{"a cycle count", "656cycles", kCycleUnits, true};
constexpr Kind kBytesPerCycle{"a per-clock bandwidth", "128B/clk", kBytesPerCycleUnits, true};

[[noreturn]] void fail(const Kind& kind, std::string_view text, std::string_view reason = {}) {
  std::string message = fmt::format("expected {} like \"{}\", got \"{}\"", kind.what, kind.example, text);
  if (!reason.empty()) message += fmt::format(" ({})", reason);
  throw InputError(message);
}

// The number as written, exactly: value = digits * 10^exp10 (19 significant digits at most).
struct Decimal {
  std::uint64_t digits = 0;
  int exp10 = 0;
};

struct Quantity {
  Decimal number;
  Unit unit;
};

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t");
  return s.substr(first, last - first + 1);
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Splits "1.5 GiB" into an exact decimal and a unit from the kind's table.
Quantity split_quantity(const Kind& kind, std::string_view text) {
  const std::string_view s = trim(text);
  if (s.empty()) fail(kind, text, "empty");
  if (s.front() == '-') fail(kind, text, "must not be negative");
  Decimal number;
  std::size_t i = 0;
  int significant = 0;
  bool any_digit = false;
  bool after_point = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '.' && !after_point) {
      after_point = true;
      continue;
    }
    if (!is_digit(c)) break;
    any_digit = true;
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (number.digits == 0 && d == 0) {  // leading zero: only moves the decimal point
      if (after_point) --number.exp10;
      continue;
    }
    if (significant < 19) {
      number.digits = number.digits * 10 + d;
      ++significant;
      if (after_point) --number.exp10;
    } else if (d != 0) {
      fail(kind, text, "more than 19 significant digits");
    } else if (!after_point) {
      ++number.exp10;  // a dropped trailing zero of the integer part
    }
  }
  if (!any_digit) fail(kind, text);
  // Exponent: only when digits follow, so a unit starting with 'e' could never be eaten.
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    if (j < s.size() && is_digit(s[j])) {
      int exponent = 0;
      const char* begin = s.data() + (s[i + 1] == '+' ? i + 2 : i + 1);
      const auto [end, ec] = std::from_chars(begin, s.data() + s.size(), exponent);
      if (ec != std::errc{} || exponent > 400 || exponent < -400) fail(kind, text, "exponent out of range");
      number.exp10 += exponent;
      i = static_cast<std::size_t>(end - s.data());
    }
  }
  const std::string_view unit_text = trim(s.substr(i));
  if (unit_text.empty()) {
    if (!kind.bare_number_ok) fail(kind, text, "a unit is required");
    return {number, kind.units.front()};
  }
  for (const Unit& unit : kind.units) {
    if (unit.name == unit_text) return {number, unit};
  }
  if (unit_text.starts_with("KB")) {
    fail(kind, text, "\"KB\" is ambiguous: use \"kB\" for 1000 or \"KiB\" for 1024 bytes");
  }
  std::string valid;
  for (const Unit& unit : kind.units) valid += fmt::format("{}{}", valid.empty() ? "" : ", ", unit.name);
  fail(kind, text, fmt::format("unknown unit \"{}\"; use {}", unit_text, valid));
}

enum class Rounding { exact, nearest };

// The quantity in its base unit (bytes, picoseconds) as an exact int64.
std::int64_t to_integer(const Kind& kind, std::string_view text, const Quantity& q, Rounding rounding) {
  Int128 value = static_cast<Int128>(q.number.digits) << q.unit.pow2;  // < 2^64 * 2^40: fits
  const int exp10 = q.number.exp10 + q.unit.pow10;
  if (value == 0) return 0;
  if (exp10 >= 0) {
    for (int k = 0; k < exp10; ++k) {
      value *= 10;
      if (value > kInt64Max) break;
    }
  } else {
    // value < 2^104 < 10^32, so beyond 10^38 the quotient is 0 and only the remainder matters.
    Int128 remainder = value;
    Int128 divisor = 1;
    if (-exp10 <= 38) {
      for (int k = 0; k < -exp10; ++k) divisor *= 10;
      remainder = value % divisor;
      value /= divisor;
    } else {
      value = 0;
    }
    if (rounding == Rounding::exact && remainder != 0) fail(kind, text, "not a whole number of bytes");
    if (rounding == Rounding::nearest && -exp10 <= 38 && 2 * remainder >= divisor) ++value;
  }
  if (value > kInt64Max) fail(kind, text, "too large");
  return static_cast<std::int64_t>(value);
}

// The quantity in its base unit as the double nearest to the exact decimal value.
double to_double(const Kind& kind, std::string_view text, const Quantity& q) {
  const std::string decimal = fmt::format("{}e{}", q.number.digits, q.number.exp10 + q.unit.pow10);
  double value = 0;
  const auto [end, ec] = std::from_chars(decimal.data(), decimal.data() + decimal.size(), value);
  if (ec != std::errc{} || end != decimal.data() + decimal.size()) fail(kind, text, "out of range");
  value = std::ldexp(value, q.unit.pow2);  // a power of two: exact
  if (!std::isfinite(value)) fail(kind, text, "too large");
  return value;
}

// `value / 10^point` written exactly, without trailing zeros ("2500000", 6 -> "2.5").
std::string decimal_string(Int128 value, int point) {
  const bool negative = value < 0;
  if (negative) value = -value;
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(value % 10)));
    value /= 10;
  } while (value != 0);
  if (static_cast<int>(digits.size()) <= point) digits.insert(0, static_cast<std::size_t>(point) + 1 - digits.size(), '0');
  std::string out = digits.substr(0, digits.size() - static_cast<std::size_t>(point));
  std::string fraction = digits.substr(digits.size() - static_cast<std::size_t>(point));
  while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  if (!fraction.empty()) out += "." + fraction;
  return negative ? "-" + out : out;
}

// The shortest decimal that reads back as `x`: x = digits * 10^exp10.
struct Shortest {
  std::string digits;
  int exp10 = 0;
};

Shortest shortest_decimal(double x) {
  std::array<char, 64> buf{};
  const auto result = std::to_chars(buf.data(), buf.data() + buf.size(), x, std::chars_format::scientific);
  const std::string_view s(buf.data(), static_cast<std::size_t>(result.ptr - buf.data()));  // "3.35e+12"
  const auto e = s.find('e');
  Shortest out;
  for (const char c : s.substr(0, e)) {
    if (is_digit(c)) out.digits += c;
  }
  int exponent = 0;
  const char* begin = s.data() + e + 1 + (s[e + 1] == '+' ? 1 : 0);
  std::from_chars(begin, s.data() + s.size(), exponent);
  out.exp10 = exponent - static_cast<int>(out.digits.size()) + 1;
  return out;
}

// A non-negative double in the largest SI unit (from `units`, ascending) not above its value.
std::string format_si(double x, std::span<const Unit> units) {
  if (!std::isfinite(x) || x < 0) return fmt::format("{}{}", x, units.front().name);
  if (x == 0) return fmt::format("0{}", units.front().name);
  const Shortest s = shortest_decimal(x);
  const int magnitude = s.exp10 + static_cast<int>(s.digits.size()) - 1;
  Unit unit = units.front();
  for (const Unit& u : units) {
    if (u.pow2 == 0 && u.pow10 <= magnitude) unit = u;
  }
  const int shift = s.exp10 - unit.pow10;
  std::string text = s.digits;
  if (shift >= 0) {
    text.append(static_cast<std::size_t>(shift), '0');
  } else {
    const int point = static_cast<int>(text.size()) + shift;
    if (point > 0) {
      text = fmt::format("{}.{}", text.substr(0, static_cast<std::size_t>(point)), text.substr(static_cast<std::size_t>(point)));
    } else {
      text = fmt::format("0.{}{}", std::string(static_cast<std::size_t>(-point), '0'), text);
    }
  }
  return fmt::format("{}{}", text, unit.name);
}

}  // namespace

Bytes parse_bytes(std::string_view text) {
  return Bytes{to_integer(kBytes, text, split_quantity(kBytes, text), Rounding::exact)};
}

BytesPerSecond parse_bandwidth(std::string_view text) {
  return BytesPerSecond{to_double(kBandwidth, text, split_quantity(kBandwidth, text))};
}

Hertz parse_frequency(std::string_view text) {
  return Hertz{to_double(kFrequency, text, split_quantity(kFrequency, text))};
}

Duration parse_duration(std::string_view text) {
  return Duration{to_integer(kDuration, text, split_quantity(kDuration, text), Rounding::nearest)};
}

Cycles parse_cycles(std::string_view text) { return Cycles{to_double(kCycles, text, split_quantity(kCycles, text))}; }

double parse_bytes_per_cycle(std::string_view text) {
  return to_double(kBytesPerCycle, text, split_quantity(kBytesPerCycle, text));
}

std::string format_bytes(Bytes b) {
  if (b.value == 0) return "0B";
  // The shortest exact spelling with at most three decimals; ties go to the larger unit.
  constexpr std::array<Unit, 9> kLargestFirst{{{"TiB", 0, 40}, {"TB", 12, 0}, {"GiB", 0, 30}, {"GB", 9, 0},
                                               {"MiB", 0, 20}, {"MB", 6, 0}, {"KiB", 0, 10}, {"kB", 3, 0},
                                               {"B", 0, 0}}};
  const Int128 scaled = static_cast<Int128>(b.value) * 1000;
  const Int128 magnitude = scaled < 0 ? -scaled : scaled;
  std::string best;
  for (const Unit& unit : kLargestFirst) {
    Int128 factor = static_cast<Int128>(1) << unit.pow2;
    for (int k = 0; k < unit.pow10; ++k) factor *= 10;
    if (magnitude % factor != 0 || magnitude / factor < 1000) continue;
    std::string text = decimal_string(scaled / factor, 3) + std::string(unit.name);
    if (best.empty() || text.size() < best.size()) best = std::move(text);
  }
  return best;
}

std::string format_bandwidth(BytesPerSecond bw) { return format_si(bw.value, kBandwidthUnits); }

std::string format_frequency(Hertz f) { return format_si(f.value, kFrequencyUnits); }

std::string format_duration(Duration d) {
  constexpr std::array<Unit, 5> kOrder{{{"s", 12, 0}, {"ms", 9, 0}, {"us", 6, 0}, {"ns", 3, 0}, {"ps", 0, 0}}};
  const Int128 ps = d.count();
  const Int128 magnitude = ps < 0 ? -ps : ps;
  for (const Unit& unit : kOrder) {
    Int128 factor = 1;
    for (int k = 0; k < unit.pow10; ++k) factor *= 10;
    if (magnitude >= factor || unit.pow10 == 0) return decimal_string(ps, unit.pow10) + std::string(unit.name);
  }
  return "0ps";
}

std::string format_cycles(Cycles c) {
  constexpr std::array<Unit, 1> kPlain{{{"cycles", 0, 0}}};
  return format_si(c.value, kPlain);
}

std::string format_bytes_per_cycle(double bytes_per_cycle) {
  constexpr std::array<Unit, 1> kPlain{{{"B/clk", 0, 0}}};
  return format_si(bytes_per_cycle, kPlain);
}

}  // namespace tgsim
