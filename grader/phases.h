#ifndef GPUCOURSE_PHASES_H
#define GPUCOURSE_PHASES_H

/* nvcc runs its phases one after the other, but the host's front end (the
 * preprocessor, then cudafe++) and the device's (the preprocessor, cicc,
 * ptxas, fatbinary) read the same source and share only the module id
 * (the name the translation unit's anonymous namespace mangles to), which
 * cudafe++ makes and cicc reads: given that id beforehand, the two chains
 * run at once, and only the host compile after them includes the device's
 * fatbinary. A library is therefore built by nvcc's own commands (`nvcc
 * -dryrun`: the same command lines, but for the id) with the two front ends
 * at once: a compile of ex01 0.7 s -> 0.5, of ex33 1.4 -> 1.0 on a 2-core
 * machine (docs/benchmarks.md, issue 47). The id differs from the one nvcc would
 * make, as nvcc's differs from one build directory to the next. The device
 * chain's messages are held (in memory: on a full disk a file would lose
 * the message that says so) until the host chain has ended, nvcc's order:
 * a syntax error both front ends find is said once, by the host's. NULL
 * when the dry run is not one this knows (another shape of toolkit,
 * several architectures): nvcc then runs as it is.
 * dryrun: nvcc's output with -dryrun ("#$ " lines); module_id: the id
 * written beforehand, a plain word. The script is malloc'd, for /bin/sh -c
 * in nvcc's directory. */
char *phases_script(const char *dryrun, const char *module_id);

#endif
