#include "sim/report/chrome_trace.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <nlohmann/json.hpp>

namespace tgsim::report {
namespace {

double us(std::int64_t ps) { return static_cast<double>(ps) * 1e-6; }

}  // namespace

bool ChromeTrace::wants_nodes(int /*gpu*/, int sm) const {
  return options_.node_sms < 0 || sm < options_.node_sms;
}

void ChromeTrace::node(const engine::NodeSlice& s) {
  if (static_cast<std::int64_t>(nodes_.size()) >= options_.max_node_slices) {
    ++dropped_;
    return;
  }
  nodes_.push_back(Slice{s.gpu, s.sm, s.lane, s.kernel, s.cta, std::string(s.role), std::string(s.node),
                         std::string(s.kind), s.start.count(), s.end.count()});
}

void ChromeTrace::cta(const engine::CtaSlice& s) {
  ctas_.push_back(Slice{s.gpu, s.sm, s.lane, s.kernel, s.cta, "", std::string(s.kernel_name), "cta",
                        s.start.count(), s.end.count()});
}

std::string ChromeTrace::to_json_text(const std::string& title) const {
  using nlohmann::json;
  json events = json::array();
  std::map<int, bool> gpus;
  // Thread ids: SM s, lane l, role track r, sub-track k -> readable names via metadata.
  std::map<std::tuple<int, int>, std::string> thread_names;  // (pid, tid) -> name
  auto add_slice = [&](const Slice& s, int tid, const json& args) {
    events.push_back({{"name", s.name}, {"cat", s.kind}, {"ph", "X"}, {"ts", us(s.start_ps)},
                      {"dur", us(std::max<std::int64_t>(s.end_ps - s.start_ps, 0))}, {"pid", s.gpu}, {"tid", tid},
                      {"args", args}});
  };
  std::vector<Slice> ctas = ctas_;
  std::stable_sort(ctas.begin(), ctas.end(), [](const Slice& a, const Slice& b) { return a.start_ps < b.start_ps; });
  for (const auto& s : ctas) {
    gpus[s.gpu] = true;
    const int tid = s.sm * 10000;
    thread_names[{s.gpu, tid}] = "SM " + std::to_string(s.sm) + " CTAs";
    add_slice(s, tid, {{"cta", s.cta}, {"kernel", s.kernel}, {"lane", s.lane}});
  }
  // Node slices: greedy interval partitioning per (SM, lane, role) into non-overlapping sub-tracks.
  std::vector<Slice> nodes = nodes_;
  std::stable_sort(nodes.begin(), nodes.end(), [](const Slice& a, const Slice& b) { return a.start_ps < b.start_ps; });
  std::map<std::tuple<int, int, int, std::string>, std::vector<std::int64_t>> sub_end;
  std::map<std::tuple<int, int, int, std::string>, int> role_index;
  for (const auto& s : nodes) {
    const auto key = std::make_tuple(s.gpu, s.sm, s.lane, s.role);
    auto& ends = sub_end[key];
    std::size_t k = 0;
    while (k < ends.size() && ends[k] > s.start_ps) ++k;
    if (k == ends.size()) ends.push_back(0);
    ends[k] = s.end_ps;
    auto [it, inserted] = role_index.try_emplace(key, static_cast<int>(role_index.size()));
    (void)inserted;
    const int sub = static_cast<int>(std::min<std::size_t>(k, 7));
    const int tid = s.sm * 10000 + 1 + (s.lane * 16 + it->second % 16) * 8 + sub;
    thread_names[{s.gpu, tid}] = "SM " + std::to_string(s.sm) + " CTA lane " + std::to_string(s.lane) + " " + s.role +
                                 (sub > 0 ? " #" + std::to_string(sub) : "");
    add_slice(s, tid, {{"cta", s.cta}, {"kernel", s.kernel}});
  }
  for (const auto& [gpu, _] : gpus) {
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", gpu}, {"args", {{"name", "GPU " + std::to_string(gpu)}}}});
  }
  for (const auto& [key, name] : thread_names) {
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", std::get<0>(key)}, {"tid", std::get<1>(key)},
                      {"args", {{"name", name}}}});
    events.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", std::get<0>(key)}, {"tid", std::get<1>(key)},
                      {"args", {{"sort_index", std::get<1>(key)}}}});
  }
  json doc;
  doc["traceEvents"] = std::move(events);
  doc["displayTimeUnit"] = "ns";
  doc["metadata"] = {
      {"title", title},
      {"cta_slices", "every CTA on every SM"},
      {"node_slices", options_.node_sms < 0 ? "every SM" : "first " + std::to_string(options_.node_sms) + " SMs of each GPU"},
      {"node_slices_kept", nodes_.size()},
      {"node_slices_dropped_over_limit", dropped_},
  };
  return doc.dump();
}

}  // namespace tgsim::report
