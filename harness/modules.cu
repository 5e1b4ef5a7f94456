// The modules the student's process loaded at run time (modules.h): the
// runner's record of them through CUPTI's resource callback, and the
// judge's reading of that record.
#include "modules.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mutex>

// The stream's first word: "GPCMOD1\0".
static const uint64_t STREAM_MAGIC = 0x0031444f4d435047ull;

struct StreamHeader {
    uint64_t magic, loaded, records;
};
struct StreamRecord {
    uint64_t bytes, kept;  // kept: 1 when `bytes` bytes follow
};

// ---------------------------------------------------------------- runner

#if __has_include(<cupti_callbacks.h>)
#include <cupti_callbacks.h>
#include <dlfcn.h>

static struct {
    decltype(&::cuptiSubscribe) subscribe;
    decltype(&::cuptiEnableCallback) enable;
    decltype(&::cuptiGetResultString) result_string;
} cupti;

struct Record {
    uint64_t bytes;
    std::vector<char> cubin;  // empty: past the cap, not kept
};

// Written by the callback, on whichever thread loads a module (the
// student's threads too), read when the judge asks.
static std::mutex lock;
static bool watching;
static char watch_why[400] = "the runner was not asked to record modules (--counters)";
static uint64_t loaded, kept_bytes;
static std::vector<Record> records;

static void CUPTIAPI on_resource(void *, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void *data) {
    if (domain != CUPTI_CB_DOMAIN_RESOURCE || id != CUPTI_CBID_RESOURCE_MODULE_LOADED) return;
    const CUpti_ResourceData *rd = (const CUpti_ResourceData *)data;
    const CUpti_ModuleResourceData *md = rd ? (const CUpti_ModuleResourceData *)rd->resourceDescriptor : NULL;
    std::lock_guard<std::mutex> hold(lock);
    loaded++;
    if (records.size() >= MODULES_KEPT) return;  // counted: the judge sees more loaded than listed
    Record r;
    r.bytes = md ? (uint64_t)md->cubinSize : 0;
    // A module without bytes is listed without them, as one past the cap:
    // the grader cannot compare it, so it never passes.
    if (md && md->pCubin && r.bytes > 0 && kept_bytes + r.bytes <= MODULES_CAP_BYTES) {
        r.cubin.assign(md->pCubin, md->pCubin + r.bytes);
        kept_bytes += r.bytes;
    }
    records.push_back(std::move(r));
}

static bool cupti_failed(CUptiResult r, const char *what) {
    const char *text = NULL;
    if (cupti.result_string) cupti.result_string(r, &text);
    snprintf(watch_why, sizeof watch_why, "%s: %s (CUPTI error %d)", what, text ? text : "unknown error", (int)r);
    return false;
}

bool modules_watch(void) {
    // the toolkit's lib64 is on the runner's run path, as for the counters
    const char *candidates[] = {"libcupti.so", "libcupti.so.13", "libcupti.so.12"};
    void *lib = NULL;
    for (const char *c : candidates)
        if ((lib = dlopen(c, RTLD_NOW | RTLD_LOCAL))) break;
    if (!lib) {
        snprintf(watch_why, sizeof watch_why, "CUPTI (libcupti.so, part of the CUDA Toolkit) cannot be loaded: %s",
                 dlerror());
        return false;
    }
    cupti.subscribe = (decltype(cupti.subscribe))dlsym(lib, "cuptiSubscribe");
    cupti.enable = (decltype(cupti.enable))dlsym(lib, "cuptiEnableCallback");
    cupti.result_string = (decltype(cupti.result_string))dlsym(lib, "cuptiGetResultString");
    if (!cupti.subscribe || !cupti.enable) {
        snprintf(watch_why, sizeof watch_why, "this CUPTI has no cuptiSubscribe or cuptiEnableCallback");
        return false;
    }
    CUpti_SubscriberHandle subscriber;
    CUptiResult r = cupti.subscribe(&subscriber, (CUpti_CallbackFunc)on_resource, NULL);
    if (r != CUPTI_SUCCESS) return cupti_failed(r, "subscribing to CUPTI's callbacks");
    r = cupti.enable(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED);
    if (r != CUPTI_SUCCESS) return cupti_failed(r, "enabling the module-loaded callback");
    watching = true;
    return true;
}

static bool write_all(int fd, const void *p, size_t n) {
    const char *c = (const char *)p;
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        c += w;
        n -= (size_t)w;
    }
    return true;
}

bool modules_send(int fd, char *why, size_t why_size) {
    std::lock_guard<std::mutex> hold(lock);
    if (!watching) {
        snprintf(why, why_size, "%s", watch_why);
        return false;
    }
    StreamHeader h = {STREAM_MAGIC, loaded, (uint64_t)records.size()};
    bool ok = write_all(fd, &h, sizeof h);
    for (size_t i = 0; ok && i < records.size(); i++) {
        const Record &r = records[i];
        StreamRecord sr = {r.bytes, r.cubin.empty() ? 0u : 1u};
        ok = write_all(fd, &sr, sizeof sr) && (!sr.kept || write_all(fd, r.cubin.data(), r.cubin.size()));
    }
    if (!ok) snprintf(why, why_size, "the judge's pipe took no more: %s", strerror(errno));
    return ok;
}
#else
bool modules_watch(void) { return false; }
bool modules_send(int, char *why, size_t why_size) {
    snprintf(why, why_size, "this CUDA Toolkit has no CUPTI headers (cupti_callbacks.h)");
    return false;
}
#endif

// ---------------------------------------------------------------- judge

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

// Reads up to n bytes before `deadline`; returns how many (fewer only at
// the end of the stream), or -1 when the deadline passed or reading failed.
static ssize_t read_until(int fd, void *p, size_t n, double deadline) {
    size_t got = 0;
    while (got < n) {
        int left_ms = (int)((deadline - seconds_now()) * 1000);
        struct pollfd pf = {fd, POLLIN, 0};
        if (left_ms <= 0 || poll(&pf, 1, left_ms) == 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        ssize_t r = read(fd, (char *)p + got, n - got);
        if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (r < 0) return -1;
        if (r == 0) break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

static int malformed(char *why, size_t why_size, const char *what) {
    snprintf(why, why_size, "%s", what);
    return -1;
}

int modules_receive(int fd, const char *prefix, int first, double timeout_s, uint64_t *loaded_out,
                    std::vector<ModuleSeen> *out, char *why, size_t why_size) {
    double deadline = seconds_now() + timeout_s;
    StreamHeader h;
    ssize_t got = read_until(fd, &h, sizeof h, deadline);
    if (got == 0) return 0;
    if (got < 0 && errno == ETIMEDOUT) return malformed(why, why_size, "no record within the time allowed");
    if (got != (ssize_t)sizeof h || h.magic != STREAM_MAGIC) return malformed(why, why_size, "not a record of modules");
    if (h.records > MODULES_KEPT || h.records > h.loaded)
        return malformed(why, why_size, "more records than a runner keeps, or than it loaded");
    *loaded_out = h.loaded;
    uint64_t kept = 0;
    std::vector<char> buf(1 << 20);
    for (uint64_t i = 0; i < h.records; i++) {
        StreamRecord r;
        if (read_until(fd, &r, sizeof r, deadline) != (ssize_t)sizeof r || r.kept > 1)
            return malformed(why, why_size, "a record cut short or malformed");
        ModuleSeen seen = {r.bytes, ""};
        if (r.kept) {
            if (r.bytes == 0 || r.bytes > MODULES_CAP_BYTES - kept)
                return malformed(why, why_size, "more bytes than a runner keeps");
            kept += r.bytes;
            char path[4200];
            snprintf(path, sizeof path, "%s.module-%d.cubin", prefix, first + (int)i);
            int file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
            if (file < 0) {
                snprintf(why, why_size, "cannot write %s: %s", path, strerror(errno));
                return -2;
            }
            bool written = true;
            for (uint64_t left = r.bytes; left > 0 && written;) {
                size_t n = (size_t)(left < buf.size() ? left : buf.size());
                if (read_until(fd, buf.data(), n, deadline) != (ssize_t)n) {
                    close(file);
                    return malformed(why, why_size, "a module's bytes cut short");
                }
                written = write(file, buf.data(), n) == (ssize_t)n;
                left -= n;
            }
            if (close(file) < 0 || !written) {
                snprintf(why, why_size, "cannot write %s: %s", path, strerror(errno));
                return -2;
            }
            seen.path = path;
        }
        out->push_back(seen);
    }
    return 1;
}
