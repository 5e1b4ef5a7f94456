// CPU pinning: the judge on one core and both runners on another, near the
// GPU, so that neither runner's calls are slowed by where the kernel put it.
// (main.cu #includes this after the parts it uses: the judge is one translation unit.)

// A CPU's physical core, as a number no other core of the host shares (the
// CPU's own number where sysfs does not say).
static int physical_core(int cpu) {
    int ids[2] = {-1, -1};
    const char *files[2] = {"physical_package_id", "core_id"};
    for (int i = 0; i < 2; i++) {
        char path[128];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, files[i]);
        FILE *f = fopen(path, "re");
        if (!f || fscanf(f, "%d", &ids[i]) != 1) ids[0] = -1;
        if (f) fclose(f);
    }
    return ids[0] < 0 || ids[1] < 0 ? -1 - cpu : ids[0] * 65536 + ids[1];
}

// The runners' CPU (pin_cpus), for a student's runner started again.
static cpu_set_t runner_cpus;
static bool runners_pinned;

// Every thread of a runner onto one CPU (threads it starts later inherit it).
static void pin_runner(const Runner &r, const cpu_set_t *set) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)r.pid);
    DIR *d = opendir(path);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (e->d_name[0] != '.') sched_setaffinity((pid_t)atoi(e->d_name), sizeof *set, set);
    closedir(d);
}

// The judge and its runners on CPUs of their own (rules_pick_cpus), those
// nearest the GPU where NVML names them. Left to the kernel's placement, one
// grading in ten found the student's runner 50-100 us slower per call than
// the trusted one from its first call to its last (woken on a farther or
// sleepier core), which judged a reference at 0.73-0.81x itself at 0.2 ms
// calls (docs/benchmarks.md). With one core to use, nothing is pinned.
static void pin_cpus(const cudaDeviceProp &prop) {
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
    static int near_gpu[CPU_SETSIZE], cpus[CPU_SETSIZE], core[CPU_SETSIZE];
    int n_near = 0, n = 0;
    unsigned slot;
    if (!neighbours_gpu_place(&slot, near_gpu, CPU_SETSIZE, &n_near)) slot = (unsigned)prop.pciBusID;
    for (int i = 0; i < n_near; i++)
        if (CPU_ISSET(near_gpu[i], &allowed)) cpus[n++] = near_gpu[i];
    if (n < 2)
        for (int cpu = n = 0; cpu < CPU_SETSIZE; cpu++)
            if (CPU_ISSET(cpu, &allowed)) cpus[n++] = cpu;
    for (int i = 0; i < n; i++) core[i] = physical_core(cpus[i]);
    int judge_cpu, runner_cpu;
    if (!rules_pick_cpus(cpus, core, n, slot, &judge_cpu, &runner_cpu)) {
        trace("CPUs: fewer than two cores to use, nothing pinned");
        return;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(judge_cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
    CPU_ZERO(&set);
    CPU_SET(runner_cpu, &set);
    pin_runner(trusted_runner, &set);
    pin_runner(student_runner, &set);
    runner_cpus = set, runners_pinned = true;
    // the witness's drain (pmwitness.h): the CPUs of neither the judge nor the runners' cores
    cpu_set_t spare = allowed;
    int runner_core = physical_core(runner_cpu);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &spare) && (cpu == judge_cpu || physical_core(cpu) == runner_core)) CPU_CLR(cpu, &spare);
    if (CPU_COUNT(&spare) > 0) pm_drain_cpus(&spare);
    trace("CPUs: the judge on %d, both runners on %d (slot %u, %d CPUs to choose from)", judge_cpu, runner_cpu, slot, n);
}
