/* The student's runner's syscall filter (harness/seccomp.c), the part of
 * its sandbox (sandbox.h) that binds every thread of the process: what no
 * CUDA solution needs is refused (other processes, new programs, namespaces
 * and mounts, writing files, code from memory, its own memory through
 * /proc, sockets, System V IPC, the terminal, what only an administrator
 * does). Not part of sandbox.h's interface: sandbox_enter enters it. */
#ifndef GPUCOURSE_SECCOMP_H
#define GPUCOURSE_SECCOMP_H

#include <stdbool.h>

#include "sandbox.h"

/* Builds the filter and enters it with TSYNC (every thread, CUDA's
 * included); spec->guarded is the range no mapping call may touch.
 * paths_confined: Landlock binds every thread, so the filter leaves opens
 * for writing to its rules. 0, with st->seccomp set, or a note when this
 * kernel or architecture has no filters; -1 with the note on an error. */
int seccomp_enter(const SandboxSpec *spec, bool paths_confined, SandboxStatus *st);

/* sandbox.c's, shared with seccomp.c: "; what" appended to st's note; the
 * note "what: strerror(errno)" and -1; the threads this process has. */
void sandbox_note(SandboxStatus *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int sandbox_fail(SandboxStatus *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int sandbox_thread_count(void);

#endif
