#include "sim/hw/system_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "sim/hw/json_overrides.h"
#include "sim/hw/json_reader.h"
#include "sim/units/error.h"
#include "sim/units/parse.h"

namespace tgsim::hw {
namespace {

constexpr std::string_view kTopologies[] = {"nvswitch"};

SmRemoteSpec read_sm_remote(const ObjectReader& r) {
  SmRemoteSpec s;
  s.max_rate = r.bandwidth("max_rate");
  s.round_trip = r.duration("round_trip");
  if (s.max_rate.value <= 0) r.context().fail(r.child("max_rate"), "must be positive");
  if (s.round_trip.count() <= 0) r.context().fail(r.child("round_trip"), "must be positive");
  return s;
}

NvlinkSpec read_nvlink(const ObjectReader& r) {
  NvlinkSpec n;
  n.bandwidth = r.bandwidth("bandwidth");
  n.sm_efficiency = r.number("sm_efficiency");
  n.latency = r.duration("latency");
  n.sm_store = read_sm_remote(r.section("sm_store", {"max_rate", "round_trip"}));
  n.sm_load = read_sm_remote(r.section("sm_load", {"max_rate", "round_trip"}));
  n.sm_bytes_in_flight_per_thread = r.bytes("sm_bytes_in_flight_per_thread");
  n.topology = r.text("topology");
  if (n.bandwidth.value <= 0) r.context().fail(r.child("bandwidth"), "must be positive");
  if (!(n.sm_efficiency > 0 && n.sm_efficiency <= 1)) r.context().fail(r.child("sm_efficiency"), "must be in (0, 1]");
  if (n.latency.count() < 0) r.context().fail(r.child("latency"), "must not be negative");
  if (n.sm_bytes_in_flight_per_thread.value <= 0) {
    r.context().fail(r.child("sm_bytes_in_flight_per_thread"), "must be positive");
  }
  if (std::find(std::begin(kTopologies), std::end(kTopologies), n.topology) == std::end(kTopologies)) {
    r.context().fail(r.child("topology"),
                     fmt::format("unknown topology \"{}\"; valid: {}", n.topology, fmt::join(kTopologies, ", ")));
  }
  return n;
}

CopyEngineSpec read_copy_engines(const ObjectReader& r) {
  CopyEngineSpec c;
  c.count = r.small_integer("count");
  c.bandwidth = r.bandwidth("bandwidth");
  c.latency = r.duration("latency");
  if (c.count < 1) r.context().fail(r.child("count"), "must be at least 1");
  if (c.bandwidth.value <= 0) r.context().fail(r.child("bandwidth"), "must be positive");
  return c;
}

NcclSpec read_nccl(const ObjectReader& r) {
  NcclSpec n;
  n.p2p_channels = r.small_integer("p2p_channels");
  n.p2p_channels_per_peer = r.small_integer("p2p_channels_per_peer");
  n.threads = r.small_integer("threads");
  const auto pow2 = [](int v) { return v > 0 && (v & (v - 1)) == 0; };
  if (!pow2(n.p2p_channels)) r.context().fail(r.child("p2p_channels"), "must be a power of 2 (NCCL rounds it up)");
  if (!pow2(n.p2p_channels_per_peer) || n.p2p_channels_per_peer > n.p2p_channels) {
    r.context().fail(r.child("p2p_channels_per_peer"), "must be a power of 2, at most p2p_channels");
  }
  if (n.threads < 64 || n.threads % 32 != 0) r.context().fail(r.child("threads"), "must be a multiple of 32, at least 64");
  return n;
}

SystemSpec read_document(const nlohmann::json& doc, ReadContext& ctx) {
  const ObjectReader top(doc, "", ctx,
                         {"name", "full_name", "gpu", "gpu_count", "nvlink", "copy_engines", "signal_latency",
                          "kernel_overhead", "collective_overhead", "nccl", "notes"});
  SystemSpec s;
  s.name = top.text("name");
  s.full_name = top.text("full_name");
  s.gpu = top.text("gpu");
  s.gpu_count = top.small_integer("gpu_count");
  if (s.gpu_count < 2 || s.gpu_count > 64) ctx.fail("/gpu_count", "must be 2..64");
  s.nvlink = read_nvlink(top.section("nvlink", {"bandwidth", "sm_efficiency", "latency", "sm_store", "sm_load",
                                                "sm_bytes_in_flight_per_thread", "topology"}));
  s.copy_engines = read_copy_engines(top.section("copy_engines", {"count", "bandwidth", "latency"}));
  s.signal_latency = top.duration("signal_latency");
  if (top.has("kernel_overhead")) s.kernel_overhead = top.duration("kernel_overhead");
  if (top.has("collective_overhead")) s.collective_overhead = top.duration("collective_overhead");
  if (top.has("nccl")) s.nccl = read_nccl(top.section("nccl", {"p2p_channels", "p2p_channels_per_peer", "threads"}));
  if (top.has("notes")) s.notes = top.text("notes");
  s.sources = ctx.sources();
  return s;
}

std::string read_text_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open file", file.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

SystemSpec parse_system_spec(const nlohmann::json& doc, std::string_view origin,
                             const std::vector<std::string>& overrides) {
  if (overrides.empty()) {
    ReadContext ctx{std::string(origin)};
    return read_document(doc, ctx);
  }
  if (!doc.is_object()) throw InputError(fmt::format("{}: expected a JSON object at the top level", origin));
  nlohmann::json edited = doc;
  ReadContext ctx{std::string(origin), apply_overrides(edited, overrides)};
  return read_document(edited, ctx);
}

SystemSpec load_system_spec(const std::filesystem::path& file, const std::vector<std::string>& overrides) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(read_text_file(file));
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(fmt::format("{}: invalid JSON: {}", file.string(), e.what()));
  }
  return parse_system_spec(doc, file.string(), overrides);
}

std::vector<std::string> list_system_presets(const std::filesystem::path& config_dir) {
  std::vector<std::string> names;
  std::error_code ec;
  const std::filesystem::path dir = config_dir / "systems";
  if (!std::filesystem::is_directory(dir, ec)) return names;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.is_regular_file(ec) && entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

SystemSpec load_system_preset(std::string_view name_or_path, const std::filesystem::path& config_dir,
                              const std::vector<std::string>& overrides) {
  const bool is_path = name_or_path.find('/') != std::string_view::npos || name_or_path.ends_with(".json");
  if (is_path) return load_system_spec(std::filesystem::path(name_or_path), overrides);
  const std::vector<std::string> names = list_system_presets(config_dir);
  if (std::find(names.begin(), names.end(), name_or_path) == names.end()) {
    const std::string dir = (config_dir / "systems").string();
    if (names.empty())
      throw InputError(fmt::format("unknown system \"{}\": no presets found in {}", name_or_path, dir));
    const std::string suggestion = closest_match(name_or_path, names);
    throw InputError(fmt::format(
        "unknown system \"{}\"{}; valid names: {} (in {}), or a path to a .json file", name_or_path,
        suggestion.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", suggestion), fmt::join(names, ", "), dir));
  }
  return load_system_spec(config_dir / "systems" / (std::string(name_or_path) + ".json"), overrides);
}

nlohmann::json to_json(const SystemSpec& s) {
  const auto wrap = [&](const std::string& pointer, nlohmann::json v) -> nlohmann::json {
    const auto it = s.sources.find(pointer);
    if (it == s.sources.end()) return v;
    return {{"value", std::move(v)}, {"source", it->second}};
  };
  const auto remote = [&](const std::string& base, const SmRemoteSpec& r) {
    return nlohmann::json{{"max_rate", wrap(base + "/max_rate", format_bandwidth(r.max_rate))},
                          {"round_trip", wrap(base + "/round_trip", format_duration(r.round_trip))}};
  };
  const NvlinkSpec& n = s.nvlink;
  nlohmann::json j = nlohmann::json::object();
  j["name"] = wrap("/name", s.name);
  j["full_name"] = wrap("/full_name", s.full_name);
  j["gpu"] = wrap("/gpu", s.gpu);
  j["gpu_count"] = wrap("/gpu_count", s.gpu_count);
  j["nvlink"] = {{"bandwidth", wrap("/nvlink/bandwidth", format_bandwidth(n.bandwidth))},
                 {"sm_efficiency", wrap("/nvlink/sm_efficiency", n.sm_efficiency)},
                 {"latency", wrap("/nvlink/latency", format_duration(n.latency))},
                 {"sm_store", remote("/nvlink/sm_store", n.sm_store)},
                 {"sm_load", remote("/nvlink/sm_load", n.sm_load)},
                 {"sm_bytes_in_flight_per_thread",
                  wrap("/nvlink/sm_bytes_in_flight_per_thread", format_bytes(n.sm_bytes_in_flight_per_thread))},
                 {"topology", wrap("/nvlink/topology", n.topology)}};
  j["copy_engines"] = {{"count", wrap("/copy_engines/count", s.copy_engines.count)},
                       {"bandwidth", wrap("/copy_engines/bandwidth", format_bandwidth(s.copy_engines.bandwidth))},
                       {"latency", wrap("/copy_engines/latency", format_duration(s.copy_engines.latency))}};
  j["signal_latency"] = wrap("/signal_latency", format_duration(s.signal_latency));
  if (s.kernel_overhead.count() > 0)
    j["kernel_overhead"] = wrap("/kernel_overhead", format_duration(s.kernel_overhead));
  if (s.collective_overhead.count() > 0) {
    j["collective_overhead"] = wrap("/collective_overhead", format_duration(s.collective_overhead));
  }
  if (s.nccl.p2p_channels > 0) {
    j["nccl"] = {{"p2p_channels", wrap("/nccl/p2p_channels", s.nccl.p2p_channels)},
                 {"p2p_channels_per_peer", wrap("/nccl/p2p_channels_per_peer", s.nccl.p2p_channels_per_peer)},
                 {"threads", wrap("/nccl/threads", s.nccl.threads)}};
  }
  if (!s.notes.empty()) j["notes"] = wrap("/notes", s.notes);
  return j;
}

}  // namespace tgsim::hw
