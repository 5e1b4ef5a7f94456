/* The student's library kept between gradings of an unchanged file: grading
 * again, watch mode entered, the app restarted. The same file, flags and
 * compiler build the same library, so it is used as it is, with the
 * compiler output of its build (its warnings, ptxas's figures and repairs).
 *
 * The record of a build lives outside the workspace, in the user's cache
 * directory ($XDG_CACHE_HOME/gpucourse/builds, else ~/.cache/...), named
 * after the library's path: a library and a record committed into a
 * repository are never taken for a build of ours (a classroom CI's fresh
 * machine has no record, and compiles). A record also names the library's
 * contents, so a library changed since is built again. A file that
 * #includes anything but the toolkit's and the system's headers is always
 * compiled: a header of the student's may have changed. */
#ifndef GPUCOURSE_LIBCACHE_H
#define GPUCOURSE_LIBCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether `library` is the build of `source` with these inputs (key:
 * toolchain_build_key): then *log is that build's compiler output
 * (malloc'd) and *repairs its repair bits (grade_scan_repairs). */
bool libcache_lookup(const char *source, const char *library, uint64_t key, char **log, unsigned *repairs);

/* Records that `library` was just built from `source` with key, log and
 * repairs; quietly nothing where no record can be kept. */
void libcache_store(const char *source, const char *library, uint64_t key, const char *log, unsigned repairs);

/* The machine code (cuobjdump -sass) kept for `library` as it is now, or
 * NULL; and keeping it (cuobjdump takes over a second even for a small
 * library, most of a grading of an unchanged file). */
char *libcache_sass(const char *library);
void libcache_store_sass(const char *library, const char *sass);

/* The course's parts (the judge, the runners, the harness's objects, the
 * references): whether `output` is what a build with `key` wrote, and
 * recording that it is. The records are in the same directory as the
 * libraries', never beside the output: a build directory committed into a
 * repository (a classroom CI grades it where it was checked out) carries
 * stamps its author can make, and a judge built elsewhere would run
 * unconfined, as the grading user. Named by the key and the output's
 * digest (SHA-256: no other file can be made to match it), not its path: a build directory copied to another machine with its
 * records (tests/gpu.sh's GPU_TEST_CACHE) stays built. */
bool libcache_part_built(const char *output, uint64_t key);
void libcache_store_part(const char *output, uint64_t key);

/* Whether the source text can be reused by its contents alone: every
 * #include names a <header> inside the include path (no "..", no leading
 * '/'), and nothing else pulls a file in (#embed, .incbin, a line splice
 * that could hide a directive). */
bool libcache_self_contained(const char *text, size_t len);

#endif
