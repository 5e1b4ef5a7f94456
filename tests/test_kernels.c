/* What ptxas says of each kernel it compiled (grader/kernels.c): registers,
 * spills, shared memory, stack, a wgmma it serialized, the log shown without
 * its info lines, readable kernel names; and why's measures read from them. */
#include "test_util.h"

#include "../grader/diagnose.h"
#include "../grader/kernels.h"

/* ptxas's figures (nvcc --resource-usage) per kernel, and the log without them. */
static void test_kernel_figures(void **state) {
    (void)state;
    char *log = read_file("tests/data/ptxas_resources.txt", NULL);
    KernelInfo k[MAX_KERNELS];
    assert_int_equal(kernels_parse(log, k, MAX_KERNELS), 2);
    assert_string_equal(k[0].name, "ns::spill");
    assert_int_equal(k[0].registers, 32);
    assert_int_equal(k[0].stack, 256);
    assert_int_equal(k[0].spill_stores, 8);
    assert_int_equal(k[0].spill_loads, 12);
    assert_string_equal(k[1].name, "tk<128>");
    assert_int_equal(k[1].shared, 512);
    assert_int_equal(k[1].barriers, 1);
    char text[256];
    kernel_text(&k[0], text, sizeof text);
    assert_string_equal(text, "ns::spill: 32 registers, 0 B shared, SPILLS 8 B stored, 12 B loaded, 256 B stack");
    kernel_text(&k[1], text, sizeof text);
    assert_string_equal(text, "tk<128>: 10 registers, 512 B shared, no spills");
    char *shown = kernels_strip_log(log);
    assert_string_equal(shown, "ex38.cu(12): warning #177-D: variable \"unused\" was declared but never referenced\n");
    free(shown);
    free(log);
    assert_string_equal(k[0].serialized, ""); /* no wgmma here */
    /* ptxas serialized a kernel's wgmma (ex45 with the next block's issue
     * under a condition, nvcc 13.0): an info line before the function's
     * own, which the log shown leaves out, so the card says it */
    log = read_file("tests/data/ptxas_serialized.txt", NULL);
    assert_int_equal(kernels_parse(log, k, MAX_KERNELS), 1);
    assert_string_equal(k[0].name, "gemm_fp8");
    assert_string_equal(k[0].serialized, "C7514");
    kernel_text(&k[0], text, sizeof text);
    assert_string_equal(text, "gemm_fp8: 168 registers, 0 B shared, no spills, WGMMA SERIALIZED (ptxas C7514)");
    double serialized = -1; /* why's measure: how many kernels were serialized */
    assert_true(diagnose_measure("wgmma_serialized", NULL, k, 1, &serialized));
    assert_true(serialized == 1);
    k[0].serialized[0] = '\0';
    assert_true(diagnose_measure("wgmma_serialized", NULL, k, 1, &serialized));
    assert_true(serialized == 0);
    free(log);
    /* damaged lines (a student's file can print text into nvcc's output): read as nothing */
    const char *damaged = "ptxas info    : (C7514) wgmma serialized in the function '\n"
                          "ptxas info    : (C75\n"
                          "ptxas info    : (C7514) wgmma serialized in the function '_Z1fv'\n"
                          "ptxas info    : Compiling entry function '_Z1gv' for 'sm_90a'\n";
    assert_int_equal(kernels_parse(damaged, k, MAX_KERNELS), 1);
    assert_string_equal(k[0].name, "g");
    assert_string_equal(k[0].serialized, ""); /* f's line names no kernel that was compiled */
    kernel_name("_ZN48_GLOBAL__N__d8389f5a_18_ex01_vector_add_cu_solve17vector_add_kernelEPKfS1_Pfi", text, sizeof text);
    assert_string_equal(text, "vector_add_kernel");
    kernel_name("_Z4gemmILi64ELin2EEvv", text, sizeof text);
    assert_string_equal(text, "gemm<64, -2>");
    kernel_name("_Z9", text, sizeof text); /* cut short: as given */
    assert_string_equal(text, "_Z9");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_figures),
    };
    return cmocka_run_group_tests_name("kernels", tests, NULL, NULL);
}
