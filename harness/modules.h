// Machine code the student's process loaded at run time (issue 45).
//
// The grader's static checks read the compiled library: cuobjdump for the
// required and forbidden instructions, nvcc's log for ptxas's repairs. A
// kernel that the library hands to the driver while it runs (PTX compiled
// by the driver's JIT, a cubin kept as bytes, cuModuleLoadData,
// cuLibraryLoadData, cuLinkAddData, reached by name or through
// cuGetProcAddress) passes neither. CUPTI's resource callback for a loaded
// module sees every one of those paths and hands over the cubin the driver
// loaded, after any JIT (gpu-facts.md, "Counters from outside the student's
// process"), so the student's runner subscribes to it before the student's
// library is loaded and keeps each module's bytes. After the student's
// calls the judge asks for them (MSG_MODULES, with the write end of a pipe)
// and writes each to the build directory; the grader then requires every
// one to be byte-identical to a cubin of the student's compiled library,
// the runner or a library the runner may load (grader/modules.h).
//
// This record is made in the student's own process, which could rewrite
// it: it is evidence the student's process reported, not something the
// judge saw (docs/harness.md).
#pragma once
#include <stddef.h>
#include <stdint.h>

#include <string>
#include <vector>

// What a runner keeps: the bytes of at most MODULES_KEPT modules, together
// at most MODULES_CAP_BYTES (the size of library the grader still reads).
// A module past either is still counted and listed without its bytes, so
// that the grader finds it: never dropped in silence.
enum { MODULES_KEPT = 64 };
static const uint64_t MODULES_CAP_BYTES = 128ull << 20;

// Runner, before the student's library is loaded (one CUPTI subscriber per
// process: the runner is it). false when the callback could not be
// installed; modules_send then says why.
bool modules_watch(void);

// Runner: writes what was recorded to fd (the judge's pipe) as one stream:
// a header (magic, modules loaded, records that follow), then each record
// (its size, whether its bytes follow) and its bytes. false with why when
// nothing was recorded (modules_watch failed) or the pipe would not take it.
bool modules_send(int fd, char *why, size_t why_size);

// Judge: one module as received.
struct ModuleSeen {
    uint64_t bytes;    // the cubin's size as the runner said
    std::string path;  // where its bytes were written; empty when the runner kept none
};

// Judge: reads modules_send's stream from fd (the pipe's read end) within
// timeout_s, writing record i's bytes to PREFIX.module-(first + i).cubin.
// *loaded: how many modules the runner said its process loaded. Returns 1
// when read, 0 when the stream was empty (the runner sent nothing: its
// answer says why), -1 with why when it was malformed, too large or late
// (the runner's doing), -2 with why when a file could not be written (the
// judge's machine).
int modules_receive(int fd, const char *prefix, int first, double timeout_s, uint64_t *loaded,
                    std::vector<ModuleSeen> *out, char *why, size_t why_size);
