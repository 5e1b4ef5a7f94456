/* The arithmetic a GPU can do at most: dense operations a clock an SM (an
 * FMA is two), by compute capability and the math a kind's work runs on.
 * One table for the judge (harness/judge/setup.cu: its bound on implausible
 * times, which takes a generous figure where this knows none) and the
 * grader's ceilings (grader/ceiling.c: none shown where this knows none).
 * Plain C, for both. */
#ifndef GPUCOURSE_PEAKS_H
#define GPUCOURSE_PEAKS_H

/* The arithmetic ceiling a compute-bound kind is held to. */
enum MathPeak { PEAK_NONE, PEAK_FP32, PEAK_TF32_TENSOR, PEAK_BF16_TENSOR, PEAK_FP8_TENSOR };

/* FP32: 128 lanes an SM (64 on sm_80); BF16/FP16 tensor cores: 4096 on
 * sm_90, 2048 on sm_80, 1024 on sm_86-89; TF32 half of that, FP8 twice
 * (none on sm_80 and sm_86). 0: not known (a newer GPU). */
static inline double peak_ops_per_sm_clock(int cc, enum MathPeak math) {
    double fp32 = cc == 80 ? 128 : cc >= 80 && cc <= 90 ? 256 : 0;
    double bf16 = cc == 80 ? 2048 : cc == 86 || cc == 87 || cc == 89 ? 1024 : cc == 90 ? 4096 : 0;
    switch (math) {
    case PEAK_FP32: return fp32;
    case PEAK_TF32_TENSOR: return bf16 / 2;
    case PEAK_BF16_TENSOR: return bf16;
    case PEAK_FP8_TENSOR: return cc >= 89 ? 2 * bf16 : 0;
    case PEAK_NONE: break;
    }
    return 0;
}

#endif
