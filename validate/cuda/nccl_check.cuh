// NCCL_CHECK: every NCCL call's result is checked; a failure names the call and exits, like
// CUDA_CHECK in common.cuh (these are stand-alone measurement programs, not library code).
#pragma once

#include <cstdio>
#include <cstdlib>

#include <nccl.h>

#define NCCL_CHECK(call)                                                        \
  do {                                                                          \
    ncclResult_t r_ = (call);                                                   \
    if (r_ != ncclSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                   ncclGetErrorString(r_));                                     \
      std::exit(2);                                                             \
    }                                                                           \
  } while (0)
