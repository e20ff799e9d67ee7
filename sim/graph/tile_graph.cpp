#include "sim/graph/tile_graph.h"

namespace tgsim::graph {

// These names are the JSON spellings (docs/tile-graph-format.md); changing one breaks files.

std::string_view to_string(NodeKind k) {
  switch (k) {
    case NodeKind::load: return "load";
    case NodeKind::store: return "store";
    case NodeKind::mma: return "mma";
    case NodeKind::simt: return "simt";
    case NodeKind::smem: return "smem";
    case NodeKind::remote_put: return "remote_put";
    case NodeKind::remote_get: return "remote_get";
    case NodeKind::signal: return "signal";
    case NodeKind::wait: return "wait";
    case NodeKind::delay: return "delay";
  }
  return "?";
}

std::string_view to_string(MemEngine e) {
  switch (e) {
    case MemEngine::tma: return "tma";
    case MemEngine::cp_async: return "cp_async";
    case MemEngine::plain: return "plain";
    case MemEngine::copy_engine: return "copy_engine";
  }
  return "?";
}

std::string_view to_string(SimtPipe p) {
  switch (p) {
    case SimtPipe::fp32: return "fp32";
    case SimtPipe::int32: return "int32";
    case SimtPipe::sfu: return "sfu";
    case SimtPipe::fetch: return "fetch";
    case SimtPipe::uniform: return "uniform";
  }
  return "?";
}

std::string_view to_string(EdgeKind k) {
  switch (k) {
    case EdgeKind::data: return "data";
    case EdgeKind::order: return "order";
  }
  return "?";
}

std::string_view to_string(FlagScope s) {
  switch (s) {
    case FlagScope::cta: return "cta";
    case FlagScope::gpu: return "gpu";
    case FlagScope::system: return "system";
  }
  return "?";
}

}  // namespace tgsim::graph
