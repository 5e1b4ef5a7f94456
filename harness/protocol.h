// How the judge (harness/main.cu) and a runner (harness/runner.cu) talk.
//
// The judge owns every byte that decides a verdict: the inputs, the outputs,
// the clock. A runner is a separate process that loads one contestant's code
// (the student's library, or the course's reference and the vendor library)
// and, when told, calls it on device memory the judge shares with it. The
// runner answers with its own CUDA-event time of the call, which the judge
// accepts only where its own clock agrees (see settle.h).
//
// Transport: a SOCK_SEQPACKET socket at descriptor RUNNER_FD in the runner,
// one fixed-size Msg per packet. Device memory travels as file descriptors
// (SCM_RIGHTS) of CUDA virtual-memory allocations: a runner can map only the
// allocations it was handed, never the judge's master copies of the inputs
// or another contestant's outputs.
#pragma once
#include <stdint.h>

#include "counters.h"
#include "harness.h"

enum { RUNNER_FD = 3 };
enum : uint32_t { MSG_MAGIC = 0x52435047u };  // "GPCR"

enum MsgType : uint32_t {
    MSG_READY = 1,  // runner -> judge: loaded, text = sandbox status
    MSG_BIND,       // judge -> runner: slot, narrays, bytes[]; one fd per array attached
    MSG_UNBIND,     // judge -> runner: forget slot
    MSG_RUN,        // judge -> runner: call contestant `who` on slot with dims, scalars, flags
    MSG_DONE,       // runner -> judge: seq, event_ms (a RUN_COUNTERS call: its record's length in bytes[0])
    MSG_FAIL,       // runner -> judge: seq, text = what failed ("cuda: ...", "load: ...")
    MSG_RECORD_BIND,  // judge -> student runner: one fd attached, bytes[0] long: where the record of each
                      // counted call goes (the judge reads it); DONE of a RUN_COUNTERS says its length in bytes[0]
    MSG_MODULES,    // judge -> runner: one fd attached, a pipe's write end: every module the process loaded goes
                    // through it (modules.h), then DONE, or FAIL with text "modules: why"
    MSG_LOAD,       // judge -> student runner: the library is in place, load it (the runner is confined and
                    // its context made by then, maybe while nvcc was still compiling); READY or FAIL follow
};

// Who a RUN is for. The student runner serves only STUDENT; the trusted
// runner serves the others.
enum Contestant { STUDENT, REFERENCE, LIBRARY, COPY, CONTESTANTS };

// RUN flags: collect the hardware counters the runner was started with
// (--counters) around this call (counters.h).
enum : int32_t { RUN_COUNTERS = 1 };

struct Msg {
    uint32_t magic, type;
    uint64_t seq;
    int32_t who, slot, narrays, flags;
    uint64_t bytes[MAX_ARRAYS];  // BIND: bytes of each array as the contestant sees it
    Dims dims;                   // RUN
    Scalars scalars;             // RUN
    double event_ms;             // DONE: the runner's events around call + device sync
    char text[512];              // READY, FAIL
};

// A message of `type` answering or asking `seq`, every other field zero.
Msg msg_init(uint32_t type, uint64_t seq);

// Sends one message with up to MAX_ARRAYS descriptors; 0 or -1 (errno).
int msg_send(int sock, const Msg &m, const int *fds, int nfds);
// Receives one message. Descriptors that came with it are stored in fds (up
// to max_fds, the rest closed) and counted in *nfds. Returns 1, 0 at end of
// stream, -1 on error or a packet that is not a whole Msg with our magic.
int msg_recv(int sock, Msg *m, int *fds, int max_fds, int *nfds);

// Device memory the judge shares with a runner: a CUDA virtual-memory
// allocation that can be exported as a file descriptor.
struct SharedBuf {
    unsigned long long handle;  // CUmemGenericAllocationHandle
    void *ptr;                  // mapped in this process
    size_t bytes;               // what the contestant may use
    size_t size;                // bytes rounded up to the granularity
};

// Judge: allocates, maps read-write here. Returns false with a message in why.
bool shared_alloc(SharedBuf *b, size_t bytes, char *why, size_t why_size);
// Judge: a new descriptor for the runner (the caller closes it after sending).
int shared_export(const SharedBuf &b);
// Runner: maps an allocation received as fd (consumed). false with why.
bool shared_import(SharedBuf *b, int fd, size_t bytes, char *why, size_t why_size);
// Both: unmaps and releases this process's reference.
void shared_free(SharedBuf *b);
