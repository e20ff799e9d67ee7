// Helpers shared by the kernel-name import tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "frontend/gemm/kernel_names.h"

namespace tgsim::gemm::test {

inline KernelNameResult parse_ok(std::string_view names, DType dtype = DType::bf16) {
  KernelNameResult r = parse_gemm_kernel_names(names, dtype);
  EXPECT_TRUE(r.supported) << names << "\n  reason: " << r.reason;
  return r;
}

inline void expect_unsupported(std::string_view names, std::string_view reason_part) {
  const KernelNameResult r = parse_gemm_kernel_names(names, DType::bf16);
  EXPECT_FALSE(r.supported) << names;
  EXPECT_NE(r.reason.find(reason_part), std::string::npos) << "reason: " << r.reason;
}

inline bool has_note(const KernelNameResult& r, std::string_view part) {
  return std::any_of(r.notes.begin(), r.notes.end(),
                     [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

}  // namespace tgsim::gemm::test
