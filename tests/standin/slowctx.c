/* Preloaded into the judge by tests/gpus.sh: its CUDA context takes as
 * long as the test likes. cudaGetDeviceCount, the judge's first call of the
 * runtime, notes that it was made (the file $SLOWCTX_MARK) and then never
 * returns, so that a judge started beside nvcc is still starting when the
 * compile ends or is interrupted: the grader must stop it. Nothing else of
 * gpucourse's calls it (gpucourse itself reaches the driver by dlopen). */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int cudaGetDeviceCount(int *count) {
    const char *mark = getenv("SLOWCTX_MARK");
    if (mark) close(open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
    for (;;) pause();
    *count = 0;
    return 0;
}
