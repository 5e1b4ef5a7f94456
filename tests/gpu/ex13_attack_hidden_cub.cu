// expect: 5 requirement_not_met -- calls cub::DeviceScan::InclusiveSum from functions with hidden visibility (and CUB included under #pragma GCC visibility push(hidden))
// Attack: cub::DeviceScan::InclusiveSum in hidden-visibility functions (CUB included under #pragma GCC visibility
// push(hidden)), temp storage from `work`: nothing exported names CUB. Stopped: libscan reads every string of the
// object, including the kernel names nvcc registers whatever the visibility (cub::...::DeviceScanKernel<...>):
// requirement_not_met before anything runs.
#include <cuda_runtime.h>
// The C library first: under the pragma its functions would be declared hidden and the link would fail.
#include <assert.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC visibility push(hidden)
#include <cub/device/device_scan.cuh>

namespace scan_impl {

__attribute__((visibility("hidden"))) void* temp_storage(void* work, size_t work_bytes, size_t need) {
    static void* own;
    static size_t own_bytes;
    if (need <= work_bytes) return work;
    if (need > own_bytes) {
        cudaFree(own);
        cudaMalloc(&own, need);
        own_bytes = need;
    }
    return own;
}

__attribute__((visibility("hidden"))) void library_scan(const int* x, int* out, void* work, int n) {
    const size_t work_bytes = 4 * ((size_t)n / 64 + 4096);  // what ex13 promises
    size_t need = 0;
    cub::DeviceScan::InclusiveSum(nullptr, need, x, out, n);
    void* temp = temp_storage(work, work_bytes, need);
    cub::DeviceScan::InclusiveSum(temp, need, x, out, n);
}

}  // namespace scan_impl
#pragma GCC visibility pop

extern "C" __attribute__((visibility("default"))) void solve(const int* x, int* out, void* work, int n) {
    if (n <= 0) return;
    scan_impl::library_scan(x, out, work, n);
}
