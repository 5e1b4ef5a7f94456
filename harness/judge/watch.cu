// The neighbours' watch: which other processes used the GPU (NVML, through
// neighbours.c), so that a timing shared with them is done again or called
// busy, never counted against the student.
// (main.cu #includes this after the parts it uses: the judge is one translation unit.)

// A timing is fair only when no other process used the GPU meanwhile: time
// slicing gives each context turns, and both contestants' times stretch by
// amounts that do not cancel in their ratio. The per-GPU lock keeps other
// gradings away (grader/gpulock.c); NVML shows everything else.
static bool watching_neighbours = false;

// The student's first runner, once the second run started another
// (same_bits_in_a_new_runner): NVML's samples still name it for a while.
static pid_t retired_student_runner = -1;

// The judge's own processes: it and its runners.
enum { OWN_PIDS = 4 };
static void own_pids(int own[OWN_PIDS]) {
    own[0] = getpid(), own[1] = student_runner.pid, own[2] = trusted_runner.pid, own[3] = retired_student_runner;
}

static void watch_neighbours(const cudaDeviceProp &prop) {
    char why[256];
    if (!neighbours_open((const unsigned char *)prop.uuid.bytes, why, sizeof why)) {
        result("neighbours: unwatched: %s", why);
        return;
    }
    int pids[256];
    int n = neighbours_contexts(pids, 256), listed = n < 0 ? -1 : 0;
    for (int i = 0; i < n; i++) listed |= pids[i] == getpid();  // this process has a context by now
    if (listed < 0) result("neighbours: unwatched: NVML cannot list the GPU's processes");
    else if (listed == 0)
        result("neighbours: unwatched: NVML's process ids are not this machine's (another PID namespace: a "
               "container?), so other processes cannot be told from ours");
    watching_neighbours = listed == 1;
}

// Whether a process other than ours holds a context on the GPU now (when
// NVML cannot say: as if one did).
static bool strangers_now(void) {
    int pids[256], own[OWN_PIDS];
    int n = neighbours_contexts(pids, 256);
    own_pids(own);
    for (int i = 0; i < n; i++) {
        bool ours = false;
        for (int k = 0; k < OWN_PIDS; k++) ours |= pids[i] == own[k];
        if (!ours) return true;
    }
    return n < 0;
}

// Names the other processes that used the GPU since `since_us` (NVML's
// clock) in text; false when none did (or when they cannot be watched).
// NVML's samples are ~200 ms apart, each of one process, so the look starts
// a period early and, when another process held a context meanwhile
// (`strangers`), waits for the period still to come.
static bool neighbours_since(unsigned long long since_us, bool strangers, char *text, size_t size) {
    static const unsigned long long PERIOD_US = 250 * 1000;
    static GpuUse use[1024];
    int own[OWN_PIDS];
    GpuUse other[4];
    char why[256];
    text[0] = '\0';
    if (!watching_neighbours) return false;
    own_pids(own);
    int n = neighbours_samples(since_us - PERIOD_US, use, 1024, why, sizeof why);
    int found = n < 0 ? 0 : rules_neighbours(use, n, own, OWN_PIDS, other, 4);
    if (n >= 0 && !found && strangers) {
        usleep(PERIOD_US);
        n = neighbours_samples(since_us - PERIOD_US, use, 1024, why, sizeof why);
        found = n < 0 ? 0 : rules_neighbours(use, n, own, OWN_PIDS, other, 4);
    }
    if (n < 0) {
        result("neighbours: unwatched: %s", why);
        watching_neighbours = false;
        return false;
    }
    size_t used = 0;
    for (int i = 0; i < found && used < size; i++) {
        char comm_path[64], name[64] = "";
        snprintf(comm_path, sizeof comm_path, "/proc/%u/comm", other[i].pid);
        FILE *f = fopen(comm_path, "r");
        if (f) {
            if (fgets(name, sizeof name, f)) name[strcspn(name, "\n")] = '\0';
            fclose(f);
        }
        used += (size_t)snprintf(text + used, size - used, "%spid %u%s%s%s: %u%% of the SMs, %u%% of memory",
                                 i ? "; " : "", other[i].pid, name[0] ? " (" : "", name, name[0] ? ")" : "",
                                 other[i].sm_percent, other[i].memory_percent);
    }
    return found > 0;
}

// Waits, up to NEIGHBOUR_WAIT_S, for a second in which no other process
// used the GPU.
static void wait_for_quiet_gpu(void) {
    char text[512];
    double start = now_us();
    while (neighbours_since(neighbours_clock_us() - 1000000ull, false, text, sizeof text) &&
           now_us() - start < NEIGHBOUR_WAIT_S * 1e6)
        usleep(250 * 1000);
}
