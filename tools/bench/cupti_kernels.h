// CUPTI kernel activity records for the bench programs (gemm_sweep, nccl_bench, calib_graph):
// the record type of the installed CUPTI, the activity buffers, a program-supplied handler for
// each kernel record, and kernel names cleaned as the captures print them (demangled, without a
// leading "void " and the parameter list). Build with TGSIM_NO_CUPTI defined where CUPTI is
// missing; only clean_kernel_name is available then.
#pragma once

#include <cxxabi.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#ifndef TGSIM_NO_CUPTI
#include <cupti.h>
#endif

namespace bench {

inline std::string clean_kernel_name(const char* raw) {
  if (!raw) return "?";
  std::string s = raw;
  int status = 0;
  if (s.rfind("_Z", 0) == 0) {
    char* d = abi::__cxa_demangle(raw, nullptr, nullptr, &status);
    if (status == 0 && d) {
      s = d;
      std::free(d);
    }
  }
  if (!s.empty() && s.back() == ')') {  // drop the parameter list "(...)"
    int depth = 0;
    for (size_t i = s.size(); i-- > 0;) {
      if (s[i] == ')') ++depth;
      else if (s[i] == '(' && --depth == 0) {
        s.resize(i);
        break;
      }
    }
  }
  if (s.rfind("void ", 0) == 0) s = s.substr(5);
  return s;
}

#ifndef TGSIM_NO_CUPTI
#if CUPTI_API_VERSION >= 130000
typedef CUpti_ActivityKernel10 KernelActivity;
#else
typedef CUpti_ActivityKernel9 KernelActivity;
#endif

// CUPTI calls back through plain function pointers, so the handler is process state: the
// program's function that keeps what it needs of each kernel record (under its own lock).
using KernelRecordHandler = void (*)(const KernelActivity&);
inline KernelRecordHandler& kernel_record_handler() {
  static KernelRecordHandler handler = nullptr;
  return handler;
}

inline void CUPTIAPI cupti_buffer_requested(uint8_t** buf, size_t* size, size_t* max_records) {
  *size = 8 << 20;
  *buf = (uint8_t*)std::aligned_alloc(8, *size);
  *max_records = 0;
}

inline void CUPTIAPI cupti_buffer_completed(CUcontext, uint32_t, uint8_t* buf, size_t, size_t valid) {
  CUpti_Activity* rec = nullptr;
  while (cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS) {
    if ((rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) &&
        kernel_record_handler())
      kernel_record_handler()(*reinterpret_cast<const KernelActivity*>(rec));
  }
  std::free(buf);
}

// Registers the buffers and `handler`; true on success. Enable CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL
// around the work, then cuptiActivityFlushAll to deliver the records.
inline bool register_kernel_records(KernelRecordHandler handler) {
  kernel_record_handler() = handler;
  return cuptiActivityRegisterCallbacks(cupti_buffer_requested, cupti_buffer_completed) == CUPTI_SUCCESS;
}
#endif

}  // namespace bench
