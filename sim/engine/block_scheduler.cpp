// The block scheduler: places CTAs (whole clusters at a time) on SMs with room, in blockIdx order,
// and starts and retires them.
#include <algorithm>
#include <bit>
#include <utility>

#include "sim/engine/simulator_state.h"

namespace tgsim::engine {

bool Simulator::fits(const Sm& sm, const CompiledKernel& ck) const {
  const auto& s = spec_.sm;
  return sm.ctas + 1 <= s.max_ctas && sm.threads + ck.threads <= s.max_threads && sm.warps + ck.warps <= s.max_warps &&
         sm.registers + ck.registers <= s.registers && sm.shared_memory + ck.shared_memory <= s.shared_memory.value;
}

// Picks cluster_size SMs of one GPC (one SM for plain CTAs), preferring the least-loaded SMs so the
// first wave spreads one CTA per SM before doubling up. Plain CTAs: ties go to the lower index, which
// fills one GPC before the next (gpc_of_each_sm). Clusters: ties go to the GPC with the fewest CTAs,
// then the lower GPC, so consecutive clusters land in different GPCs, as the hardware's do
// (calib_placement, traces/h100/calibration_placement.csv: 8-CTA clusters 0, 1, 2, ... in GPCs in turn).
bool Simulator::choose_sms(const CompiledKernel& ck, int gpu, std::vector<int>& chosen) const {
  chosen.clear();
  const int base = gpu * spec_.sm.count;
  if (ck.cluster_size == 1) {
    int best = -1;
    for (int s = 0; s < spec_.sm.count; ++s) {
      const Sm& sm = sms_[static_cast<std::size_t>(base + s)];
      if (fits(sm, ck) && (best < 0 || sm.ctas < sms_[static_cast<std::size_t>(best)].ctas)) best = base + s;
    }
    if (best < 0) return false;
    chosen.push_back(best);
    return true;
  }
  // (the chosen SMs' CTAs, the GPC's CTAs) of the best GPC so far; -1: none
  std::pair<int, int> best_load{-1, -1};
  std::vector<int> candidates;
  for (int gpc = 0; gpc < spec_.gpc.count; ++gpc) {
    candidates.clear();
    int in_gpc = 0;  // CTAs on the GPC's SMs
    for (int s = 0; s < spec_.sm.count; ++s) {
      const Sm& sm = sms_[static_cast<std::size_t>(base + s)];
      if (sm.gpc != gpc) continue;
      in_gpc += sm.ctas;
      if (fits(sm, ck)) candidates.push_back(base + s);
    }
    if (static_cast<int>(candidates.size()) < ck.cluster_size) continue;
    std::stable_sort(candidates.begin(), candidates.end(), [&](int a, int b) {
      return sms_[static_cast<std::size_t>(a)].ctas < sms_[static_cast<std::size_t>(b)].ctas;
    });
    int chosen_ctas = 0;
    for (int i = 0; i < ck.cluster_size; ++i) chosen_ctas += sms_[static_cast<std::size_t>(candidates[static_cast<std::size_t>(i)])].ctas;
    const std::pair<int, int> load{chosen_ctas, in_gpc};  // the chosen SMs' load first, then the GPC's
    if (best_load.first < 0 || load < best_load) {
      best_load = load;
      chosen.assign(candidates.begin(), candidates.begin() + ck.cluster_size);
    }
  }
  return best_load.first >= 0;
}

bool Simulator::place_cluster(KernelRun& kr, TimePoint now) {
  const CompiledKernel& ck = compiled_.kernels[static_cast<std::size_t>(kr.index)];
  const graph::Kernel& src = *ck.source;
  std::vector<int>& chosen = chosen_sms_;
  if (!choose_sms(ck, src.gpu, chosen)) return false;
  for (int sm_index : chosen) {
    while (kr.next_cta >= ck.group_end[kr.next_group]) ++kr.next_group;
    const graph::CtaGroup& grp = src.grid[kr.next_group];
    const std::int64_t group_start = kr.next_group == 0 ? 0 : ck.group_end[kr.next_group - 1];
    std::uint32_t slot;
    if (free_slots_.empty()) {
      slot = static_cast<std::uint32_t>(ctas_.size());
      ctas_.emplace_back();
    } else {
      slot = free_slots_.back();
      free_slots_.pop_back();
    }
    CtaRun& c = ctas_[slot];
    c.active = true;
    c.kernel = kr.index;
    c.kr = &kr;
    c.run = &kr.templates[static_cast<std::size_t>(grp.template_index)];
    c.cta = kr.next_cta;
    c.sm = sm_index;
    c.params = grp.params.empty() ? nullptr : grp.params.data() + (kr.next_cta - group_start) * grp.params_per_cta;
    Sm& sm = sms_[static_cast<std::size_t>(sm_index)];
    sm.threads += ck.threads;
    sm.warps += ck.warps;
    sm.registers += ck.registers;
    sm.shared_memory += ck.shared_memory;
    ++sm.ctas;
    c.lane = std::countr_one(sm.lanes);
    sm.lanes |= 1ULL << (c.lane & 63);
    // A TMA CTA sets up before its first copy; the first wave's tensor-map fetches queue up.
    Duration setup{0};
    if (c.run->tmpl->uses_tma) {
      setup = cycles(c, spec_.tma.cta_setup.value);
      if (kr.next_cta < spec_.sm.count) setup += spec_.tma.descriptor_serialisation * kr.next_cta;
    }
    ++kr.next_cta;
    queue_.push(now + spec_.launch.cta_launch + setup, EventType::cta_start, slot);
  }
  return true;
}

void Simulator::schedule_ctas(TimePoint now) {
  for (auto& kr : kernels_) {
    if (!kr.started || kr.finished) continue;
    const CompiledKernel& ck = compiled_.kernels[static_cast<std::size_t>(kr.index)];
    while (kr.next_cta < ck.ctas) {
      if (!place_cluster(kr, now)) break;
    }
  }
}

void Simulator::start_cta(std::uint32_t slot, TimePoint now) {
  CtaRun& c = ctas_[slot];
  const TemplateRun& tr = *c.run;
  const std::size_t n = tr.initial.size();
  c.start = now;
  c.remaining = static_cast<int>(n);
  c.nodes.assign(tr.initial.begin(), tr.initial.end());  // reuses the slot's buffer
  // Only retired memory nodes' hits are read back (critical path), so stale values need no reset.
  if (detail_) c.hit.resize(n);
  c.last_done = -1;
  if (n == 0) {
    finish_cta(slot, now);
    return;
  }
  for (std::int32_t r : tr.tmpl->roots) {
    c.nodes[static_cast<std::size_t>(r)].ready_at = now;
    dispatch(c, r, now);
  }
}

void Simulator::finish_cta(std::uint32_t slot, TimePoint now) {
  CtaRun& c = ctas_[slot];
  const CompiledKernel& ck = compiled_.kernels[static_cast<std::size_t>(c.kernel)];
  Sm& sm = sms_[static_cast<std::size_t>(c.sm)];
  sm.threads -= ck.threads;
  sm.warps -= ck.warps;
  sm.registers -= ck.registers;
  sm.shared_memory -= ck.shared_memory;
  --sm.ctas;
  sm.lanes &= ~(1ULL << (c.lane & 63));
  if (options_.critical_path && now >= last_cta_end_) {
    last_cta_end_ = now;
    keep_for_critical_path(c);
  }
  if (options_.trace) {
    options_.trace->cta(CtaSlice{sm.gpu, sm.index, c.lane, c.kernel, ck.source->name, c.cta, c.start, now});
  }
  c.active = false;
  free_slots_.push_back(slot);
  KernelRun& kr = kernels_[static_cast<std::size_t>(c.kernel)];
  ++kr.done_ctas;
  finish_kernel_if_done(kr, now);
  schedule_ctas(now);
}

// The CTA finishing last so far: take its node times (by swapping buffers, O(1)); the slot gets
// the previous holder's buffers, which start_cta overwrites. Analysed once, at the end of run().
void Simulator::keep_for_critical_path(CtaRun& c) {
  if (!last_cta_) last_cta_ = std::make_unique<CtaRun>();
  CtaRun& keep = *last_cta_;
  keep.kernel = c.kernel;
  keep.kr = c.kr;
  keep.run = c.run;
  keep.start = c.start;
  keep.last_done = c.last_done;
  keep.nodes.swap(c.nodes);
  keep.hit.swap(c.hit);
}

}  // namespace tgsim::engine
