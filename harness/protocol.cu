// The judge-runner messages and the device memory they share (protocol.h).
#include "protocol.h"

#include <cuda.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

Msg msg_init(uint32_t type, uint64_t seq) {
    Msg m;
    memset(&m, 0, sizeof m);
    m.magic = MSG_MAGIC;
    m.type = type;
    m.seq = seq;
    return m;
}

int msg_send(int sock, const Msg &m, const int *fds, int nfds) {
    struct msghdr h;
    memset(&h, 0, sizeof h);
    struct iovec io = {(void *)&m, sizeof m};
    h.msg_iov = &io;
    h.msg_iovlen = 1;
    union {
        char buf[CMSG_SPACE(sizeof(int) * MAX_ARRAYS)];
        struct cmsghdr align;
    } ctl;
    if (nfds > 0) {
        memset(&ctl, 0, sizeof ctl);
        h.msg_control = ctl.buf;
        h.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
        struct cmsghdr *c = CMSG_FIRSTHDR(&h);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
    }
    for (;;) {
        ssize_t n = sendmsg(sock, &h, MSG_NOSIGNAL);
        if (n == (ssize_t)sizeof m) return 0;
        if (n < 0 && errno == EINTR) continue;
        if (n >= 0) errno = EMSGSIZE;
        return -1;
    }
}

int msg_recv(int sock, Msg *m, int *fds, int max_fds, int *nfds) {
    *nfds = 0;
    struct msghdr h;
    memset(&h, 0, sizeof h);
    struct iovec io = {m, sizeof *m};
    h.msg_iov = &io;
    h.msg_iovlen = 1;
    union {
        char buf[CMSG_SPACE(sizeof(int) * MAX_ARRAYS * 2)];
        struct cmsghdr align;
    } ctl;
    h.msg_control = ctl.buf;
    h.msg_controllen = sizeof ctl.buf;
    ssize_t n;
    do n = recvmsg(sock, &h, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    // Descriptors are taken (or closed) whatever the packet says: a runner
    // must not be able to leave descriptors in the judge.
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(&h, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        int count = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        for (int i = 0; i < count; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
            if (fds && *nfds < max_fds) fds[(*nfds)++] = fd;
            else close(fd);
        }
    }
    if (n == 0) return 0;
    if (n < 0) return -1;
    if (n != (ssize_t)sizeof *m || (h.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || m->magic != MSG_MAGIC) {
        errno = EPROTO;
        return -1;
    }
    // The text goes into result lines: no line breaks or terminal controls
    // from a runner may reach them.
    m->text[sizeof m->text - 1] = '\0';
    for (char *c = m->text; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    return 1;
}

static CUmemAllocationProp shared_prop(void) {
    CUmemAllocationProp p;
    memset(&p, 0, sizeof p);
    p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = 0;
    p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    return p;
}

// The allocation granularity that every shared buffer is rounded up to.
static size_t shared_granularity(void) {
    static size_t g;
    if (!g) {
        CUmemAllocationProp p = shared_prop();
        if (cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS || !g)
            g = 2u << 20;
    }
    return g;
}

static bool cu_failed(CUresult rc, const char *what, char *why, size_t why_size) {
    if (rc == CUDA_SUCCESS) return false;
    const char *name = NULL;
    cuGetErrorString(rc, &name);
    snprintf(why, why_size, "%s: %s", what, name ? name : "unknown CUDA driver error");
    return true;
}

// The alignment of a buffer's addresses: the smallest power of two that
// holds it, up to 1 GiB. The GPU's MMU maps aligned memory with larger
// pages; at the granularity alone (2 MiB) a kernel that writes to many
// distant pages at once ran 2% slower on the H100 than on cudaMalloc's
// memory, which is aligned like this.
static size_t address_alignment(size_t size) {
    size_t a = shared_granularity();
    while (a < size && a < ((size_t)1 << 30)) a *= 2;
    return a;
}

// Maps b->handle at a fresh address, read-write for device 0.
static bool map_here(SharedBuf *b, char *why, size_t why_size) {
    CUdeviceptr p = 0;
    if (cu_failed(cuMemAddressReserve(&p, b->size, address_alignment(b->size), 0, 0), "cuMemAddressReserve", why,
                  why_size))
        return false;
    if (cu_failed(cuMemMap(p, b->size, 0, (CUmemGenericAllocationHandle)b->handle, 0), "cuMemMap", why, why_size)) {
        cuMemAddressFree(p, b->size);
        return false;
    }
    CUmemAccessDesc a;
    memset(&a, 0, sizeof a);
    a.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    a.location.id = 0;
    a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    if (cu_failed(cuMemSetAccess(p, b->size, &a, 1), "cuMemSetAccess", why, why_size)) {
        cuMemUnmap(p, b->size);
        cuMemAddressFree(p, b->size);
        return false;
    }
    b->ptr = (void *)p;
    return true;
}

static size_t rounded(size_t bytes) {
    size_t g = shared_granularity();
    return (bytes + g - 1) / g * g + (bytes % g == 0 ? g : 0);  // always some room past the end
}

bool shared_alloc(SharedBuf *b, size_t bytes, char *why, size_t why_size) {
    memset(b, 0, sizeof *b);
    b->bytes = bytes;
    b->size = rounded(bytes);
    CUmemAllocationProp p = shared_prop();
    CUmemGenericAllocationHandle h;
    if (cu_failed(cuMemCreate(&h, b->size, &p, 0), "cuMemCreate", why, why_size)) return false;
    b->handle = h;
    if (!map_here(b, why, why_size)) {
        cuMemRelease(h);
        return false;
    }
    return true;
}

int shared_export(const SharedBuf &b) {
    int fd = -1;
    if (cuMemExportToShareableHandle(&fd, (CUmemGenericAllocationHandle)b.handle,
                                     CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) != CUDA_SUCCESS)
        return -1;
    return fd;
}

bool shared_import(SharedBuf *b, int fd, size_t bytes, char *why, size_t why_size) {
    memset(b, 0, sizeof *b);
    b->bytes = bytes;
    b->size = rounded(bytes);
    CUmemGenericAllocationHandle h;
    CUresult rc = cuMemImportFromShareableHandle(&h, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    close(fd);
    if (cu_failed(rc, "cuMemImportFromShareableHandle", why, why_size)) return false;
    b->handle = h;
    if (!map_here(b, why, why_size)) {
        cuMemRelease(h);
        return false;
    }
    return true;
}

void shared_free(SharedBuf *b) {
    if (b->ptr) {
        cuMemUnmap((CUdeviceptr)b->ptr, b->size);
        cuMemAddressFree((CUdeviceptr)b->ptr, b->size);
    }
    if (b->handle) cuMemRelease((CUmemGenericAllocationHandle)b->handle);
    memset(b, 0, sizeof *b);
}
