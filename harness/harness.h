// The harness: what a kind of problem declares so that harness/main.cu can
// check and time a student's `solve` against the reference's.
//
// A kind is one file in harness/kinds/ that fills in a KindDef: the arrays
// the problem uses (inputs, outputs, read-write), how long each is for given
// sizes, the CPU reference, the bytes that must move, and a function that
// calls `solve` with the right arguments. Everything else (random inputs,
// poisoning, checking, timing, L2 flushing, the result channel) lives in
// main.cu and is shared by every kind.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "peaks.h"  // enum MathPeak: the arithmetic a compute-bound kind is held to

// BF16 and F16 are the tensor cores' inputs (2 bytes, from cuda_bf16.h and
// cuda_fp16.h), E4M3 their 8-bit float (1 byte, cuda_fp8.h); their outputs
// are F32.
enum ElemType { ELEM_F32, ELEM_I32, ELEM_BF16, ELEM_F16, ELEM_E4M3 };
// ROLE_SCRATCH: device memory a solution may use as it likes (tile flags,
// block partial sums), its length set by the kind; poisoned like an output
// before every run, never checked, not counted in the bytes that must move.
enum ArrayRole { ROLE_IN, ROLE_OUT, ROLE_INOUT, ROLE_SCRATCH };

// How the absolute tolerance of a float output grows: sums of many terms
// carry rounding error that grows like the square root of their count.
enum TolScale {
    TOL_FLAT,         // abs as given
    TOL_SQRT_INDEX,   // abs * sqrt(i + 1): element i of a prefix sum
    TOL_SQRT_LENGTH,  // abs * sqrt(d[0]): a sum over all d[0] inputs
};

// The kind's size arguments as given in the exercise's YAML (n, or rows and cols).
struct Dims {
    int count;
    long long d[3];
};

// The shape of a 2D array, for messages and the picture (ArraySpec.row_major_2d).
enum { ROWS_COLS = 1, COLS_ROWS = 2 };

struct ArraySpec {
    const char *name;                  // as in the signature, used in messages
    ElemType type;
    ArrayRole role;
    size_t (*length)(const Dims &);    // elements for these sizes
    double lo, hi;                     // inputs are uniform in [lo, hi] (ints inclusive)
    int row_major_2d;                  // ROWS_COLS: name[r][c] with d[1] columns (mismatches and the
                                       // picture); COLS_ROWS: the transpose, d[0] columns; 0: 1D
    TolScale tol_scale;                // float outputs only
    int whole_numbers;                 // float inputs: integers in [lo, hi], so that products
                                       // and sums stay exact and a check can be exact
};

// Scalars passed to solve (alpha, a, b, ...) are chosen by the kind from the
// seed, so a solution cannot bake them in.
struct Scalars {
    float f[4];
};

enum { MAX_ARRAYS = 6 };

// How the timed size's outputs are checked.
enum CheckMode {
    CHECK_ELEMENTS,  // each element against the reference's, within the tolerance
    CHECK_REL_NORM,  // ||out - exact|| / ||exact|| (Frobenius) against exact values the
                     // judge computes in float64 (KindDef::exact); the tolerance's rel
                     // is the bound; NaN never passes
};

struct KindDef {
    const char *name;
    const char *signature;             // shown when a size list has the wrong arity
    int ndims;                         // how many size arguments
    int narrays;
    ArraySpec arrays[MAX_ARRAYS];
    // Fewest bytes any correct solution must move through device memory.
    double (*bytes)(const Dims &);
    // Calls the student's or the reference's solve. `arrays` are device pointers.
    void (*call)(void *solve, void *const *arrays, const Dims &, const Scalars &);
    // Computes the outputs (ROLE_OUT and ROLE_INOUT) on the host from host copies
    // of the inputs; INOUT arrays hold their input values on entry.
    // CHECK_ELEMENTS kinds only: CHECK_REL_NORM kinds are checked against
    // `exact` at every size and leave it null.
    void (*reference)(void *const *arrays, const Dims &, const Scalars &);
    // Optional: the vendor library doing the same job (CUB, cuBLAS), timed in
    // the same run as a second baseline. Same arrays as `call`. May allocate
    // its scratch space on the first call (the first calls are untimed).
    const char *library_name;
    void (*library)(void *const *arrays, const Dims &, const Scalars &);
    // Optional, for compute-bound kinds (GEMMs): the floating-point operations
    // a call must do. When set, throughput is FLOP/s, there is no copy
    // baseline, and work faster than `peak` allows is rejected.
    double (*flops)(const Dims &);
    MathPeak peak;
    CheckMode check;
    // CHECK_REL_NORM: computes, on the GPU, output `out` (index into arrays)
    // exactly in float64 from the inputs (device pointers; INOUT arrays hold
    // their input values), and each element's magnitude: the sum of the
    // absolute values of the terms it adds (|alpha| sum |a b| + |beta c| for
    // a GEMM), which bounds the rounding of any order of summation. Both
    // have the output's length. The magnitude only scales each element's
    // bound: it may be above that sum (a GEMM's, by up to 0.6% at K = 8192), never
    // below.
    void (*exact)(void *const *arrays, int out, double *exact, double *magnitude, const Dims &, const Scalars &);
    // Optional, for kinds timed by bytes whose work is matrix products (tile
    // products): the FLOPs of those products, which the evidence checks take
    // tensor-core shares of (compute-bound kinds use `flops`).
    double (*product_flops)(const Dims &);
};

// Every kind file defines exactly this object.
extern const KindDef kind;

// The vendor library is built into the judge's trusted runner only. The
// student's runner is built with GPUCOURSE_STUDENT_RUNNER and holds no copy
// of it, so student code cannot find it in its own process and call it. A
// kind file wraps its library function in `#if KIND_WITH_LIBRARY` and names
// it with KIND_LIBRARY("what it is", function) as the KindDef's last fields.
// A kind whose library this toolkit lacks names why with
// KIND_NO_LIBRARY("no library baseline: ..."): the judge says so
// ("nolibrary:") and the grader then passes no exercise with a library floor.
#define KIND_NO_LIBRARY(why) why, nullptr
#ifdef GPUCOURSE_STUDENT_RUNNER
#define KIND_WITH_LIBRARY 0
#define KIND_LIBRARY(name, fn) nullptr, nullptr
#else
#define KIND_WITH_LIBRARY 1
#define KIND_LIBRARY(name, fn) name, fn
#endif

// Blocks of 256 threads for a grid-stride loop over n elements: at least one, at most 4096.
static inline int grid_for(size_t n) {
    size_t blocks = (n + 255) / 256;
    return (int)(blocks < 1 ? 1 : blocks > 4096 ? 4096 : blocks);
}

// A kind file's helpers: the number of elements in common shapes.
static inline size_t dims_n(const Dims &d) { return (size_t)d.d[0]; }
static inline size_t dims_rows_cols(const Dims &d) { return (size_t)d.d[0] * (size_t)d.d[1]; }
static inline size_t dims_cols(const Dims &d) { return (size_t)d.d[1]; }
static inline size_t dims_groups32(const Dims &d) { return ((size_t)d.d[0] + 31) / 32; }
