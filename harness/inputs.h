// What the judge (main.cu) and a runner's diagnose mode (runner.cu) make
// the same way: random inputs from a seed, the scalars, sizes as text.
// Static, so that the judge's binary, which holds both files, has one copy
// per file and no clash.
#pragma once
#include "harness.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>

__host__ __device__ static inline uint64_t mix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// uniform in [0, 1) from the top 24 bits: exact in float
__host__ __device__ static inline float unit_float(uint64_t h) {
    return (float)(h >> 40) * (1.0f / 16777216.0f);
}

// Uniform in [lo, hi]; integers (inclusive) for ints and whole_numbers.
static __global__ void fill_kernel(void *p, size_t n, int type, int whole, uint64_t key, double lo, double hi) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {
        uint64_t h = mix64(key ^ mix64(i));
        long long span = (long long)hi - (long long)lo + 1;
        long long whole_value = (long long)lo + (long long)(h % (uint64_t)(span > 0 ? span : 1));
        float f = whole ? (float)whole_value : (float)lo + (float)(hi - lo) * unit_float(h);
        switch (type) {
        case ELEM_I32: ((int *)p)[i] = (int)whole_value; break;
        case ELEM_BF16: ((__nv_bfloat16 *)p)[i] = __float2bfloat16(f); break;
        case ELEM_F16: ((__half *)p)[i] = __float2half(f); break;
        case ELEM_E4M3: ((__nv_fp8_e4m3 *)p)[i] = __nv_fp8_e4m3(f); break;  // rounded to nearest, saturated
        default: ((float *)p)[i] = f;
        }
    }
}

static inline size_t elem_size(ElemType t) { return t == ELEM_E4M3 ? 1 : t == ELEM_BF16 || t == ELEM_F16 ? 2 : 4; }

// Array i of a problem filled from seed: each (seed, array) pair is its own stream.
static inline void fill_array(void *p, const ArraySpec &a, int i, size_t n, uint64_t seed) {
    if (!p || n == 0) return;
    uint64_t key = mix64(seed * 0x100 + (uint64_t)i);
    fill_kernel<<<grid_for(n), 256>>>(p, n, (int)a.type, a.whole_numbers, key, a.lo, a.hi);
}

// Every array of the kind at sizes d in this process's own memory, each
// filled from seed, for a call nothing checks or times (the warm-ups before
// a runner or the judge is ready). False when memory is short; free with
// arrays_free either way.
static inline bool arrays_filled(const Dims &d, uint64_t seed, void *arrays[MAX_ARRAYS]) {
    for (int i = 0; i < MAX_ARRAYS; i++) arrays[i] = NULL;
    for (int i = 0; i < kind.narrays; i++) {
        const ArraySpec &a = kind.arrays[i];
        size_t n = a.length(d);
        if (cudaMalloc(&arrays[i], std::max<size_t>(n * elem_size(a.type), 16)) != cudaSuccess) return false;
        fill_array(arrays[i], a, i, n, seed);
    }
    return true;
}

static inline void arrays_free(void *arrays[MAX_ARRAYS]) {
    for (int i = 0; i < MAX_ARRAYS; i++) cudaFree(arrays[i]);
}

static inline Scalars scalars_for(uint64_t seed) {
    Scalars s;
    for (int k = 0; k < 4; k++) {
        uint64_t h = mix64(seed ^ (0xabcdull + (uint64_t)k));
        float mag = 0.25f + 1.75f * unit_float(h);
        s.f[k] = (h & 1) ? -mag : mag;
    }
    return s;
}

static inline void dims_text(const Dims &d, char *buf, size_t size) {
    int n = 0;
    buf[0] = '\0';
    for (int k = 0; k < d.count; k++) n += snprintf(buf + n, size - (size_t)n, "%s%lld", k ? "x" : "", d.d[k]);
}

// "4096x4096x64" or "1000,7" into d; false unless it has ndims sizes.
static inline bool parse_dims(const char *text, int ndims, Dims *d) {
    *d = Dims();
    const char *s = text;
    while (*s) {
        if (d->count == 3) return false;
        char *end;
        long long v = strtoll(s, &end, 10);
        if (end == s || v < 0) return false;
        d->d[d->count++] = v;
        if (*end == ',' || *end == 'x') end++;
        else if (*end) return false;
        s = end;
    }
    return d->count == ndims;
}
