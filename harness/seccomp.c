/* The student's runner's syscall filter (seccomp.h): what it refuses and
 * why (the rules, each with its reason), the BPF program made of them, and
 * entering it on every thread.
 *
 * Plain C11, as sandbox.c. Nothing here prints; sandbox_note and
 * sandbox_fail put what happened into the status. */
#define _GNU_SOURCE
#include "seccomp.h"
#include "seccomp_calls.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS 0x80000000U
#endif
#ifndef SECCOMP_SET_MODE_FILTER
#define SECCOMP_SET_MODE_FILTER 1
#endif
#ifndef SECCOMP_FILTER_FLAG_TSYNC
#define SECCOMP_FILTER_FLAG_TSYNC (1UL << 0)
#endif
#ifndef PR_SET_PTRACER
#define PR_SET_PTRACER 0x59616d61
#endif
#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif

#if defined(__x86_64__) && !defined(__ILP32__)
#define SB_AUDIT_ARCH AUDIT_ARCH_X86_64
#define SB_X32_BIT 0x40000000U
#elif defined(__aarch64__)
#define SB_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef SB_AUDIT_ARCH

enum verdict {
    ALLOW,         /* an open rule where Landlock decides (build_filter) */
    DENY,          /* EPERM */
    NOSYS,         /* ENOSYS: the caller falls back to an older call we check */
    THREADS_ONLY,  /* clone: EPERM unless it makes a thread (arg0 = flags on both archs) */
    SELF_ONLY,     /* EPERM unless arg0 is this process's pid */
    SELF_OR_ZERO,  /* EPERM unless arg0 is 0 (= self) or this process's pid */
    PRCTL_OPTIONS, /* EPERM for the prctl options below, others allowed */
    OPEN_READ_ARG1, /* open: EPERM when the flags (arg1) ask to write or create */
    MMAP_CHECKED,   /* mmap: EPERM for memory both writable and executable (prot in arg2) and
                       for shared anonymous memory, which RLIMIT_DATA does not count (flags in arg3),
                       but where the driver places it (SB_DRIVER_WINDOW_HI) */
    PROT_NOT_X,     /* mprotect: EPERM when it makes memory executable (prot in arg2) */
    OPEN_READ_ARG2, /* openat: the same with the flags in arg2 */
    NOT_A_TTY,      /* ioctl: ENOTTY for every terminal request ('T' in arg1's type byte); EPERM
                       for FIOSETOWN and SIOCSPGRP, which name a descriptor's signal owner */
    OWNER_SELF,     /* fcntl: EPERM for F_SETOWN (arg1) unless to 0 or this process (arg2), and for
                       F_SETOWN_EX; other commands allowed */
    UNIX_PAIR_ONLY, /* socketpair: EPERM unless the family (arg0) is AF_UNIX */
    QUERY_ONLY,     /* personality: EPERM unless arg0 is 0xffffffff (a query) */
    SEEK_LOW,       /* lseek: EPERM unless to an offset below 4 GiB, or a query (0 from the position or the end) */
    OFFSET_LOW,     /* pwrite64, pwritev, pwritev2: EPERM unless the offset (arg3) is below 4 GiB */
};

struct rule {
    int nr;
    enum verdict verdict;
};

/* Refused, or allowed only with conditions, each with its reason. What is
 * allowed outright is `allowed` below; everything else answers ENOSYS. */
static const struct rule rules[] = {
/* reaching into other processes: debugging, memory, handles, signals, limits */
#ifdef SYS_ptrace
    {SYS_ptrace, DENY},
#endif
#ifdef SYS_process_vm_readv
    {SYS_process_vm_readv, DENY},
#endif
#ifdef SYS_process_vm_writev
    {SYS_process_vm_writev, DENY},
#endif
#ifdef SYS_kcmp
    {SYS_kcmp, DENY},
#endif
#ifdef SYS_pidfd_open
    {SYS_pidfd_open, DENY},
#endif
#ifdef SYS_pidfd_send_signal
    {SYS_pidfd_send_signal, DENY},
#endif
#ifdef SYS_pidfd_getfd
    {SYS_pidfd_getfd, DENY},
#endif
#ifdef SYS_kill
    {SYS_kill, SELF_ONLY}, /* also refuses kill(0, ..) and kill(-1, ..) */
#endif
#ifdef SYS_tgkill
    {SYS_tgkill, SELF_ONLY}, /* arg0 is the thread group: raise() and abort() still work */
#endif
#ifdef SYS_tkill
    {SYS_tkill, DENY},
#endif
#ifdef SYS_rt_sigqueueinfo
    {SYS_rt_sigqueueinfo, SELF_ONLY},
#endif
#ifdef SYS_rt_tgsigqueueinfo
    {SYS_rt_tgsigqueueinfo, SELF_ONLY},
#endif
#ifdef SYS_prlimit64
    {SYS_prlimit64, SELF_OR_ZERO}, /* the grader's limits are not ours to lower */
#endif
/* where and how processes run: the judge places both runners on one CPU near the GPU (the
 * reference's calls on a farther or sleepier core were measured 50-100 us slower each), and
 * the student's library must not move, renice or reschedule the reference's runner, the
 * judge, or itself */
#ifdef SYS_setpriority
    {SYS_setpriority, DENY},
#endif
#ifdef SYS_sched_setaffinity
    {SYS_sched_setaffinity, DENY},
#endif
#ifdef SYS_sched_setscheduler
    {SYS_sched_setscheduler, DENY},
#endif
#ifdef SYS_sched_setparam
    {SYS_sched_setparam, DENY},
#endif
#ifdef SYS_sched_setattr
    {SYS_sched_setattr, DENY},
#endif
#ifdef SYS_ioprio_set
    {SYS_ioprio_set, DENY},
#endif
#ifdef SYS_migrate_pages
    {SYS_migrate_pages, SELF_OR_ZERO}, /* another process's memory to another NUMA node */
#endif
#ifdef SYS_move_pages
    {SYS_move_pages, SELF_OR_ZERO},
#endif
/* new processes and programs: threads only */
#ifdef SYS_execve
    {SYS_execve, DENY},
#endif
#ifdef SYS_execveat
    {SYS_execveat, DENY},
#endif
#ifdef SYS_fork
    {SYS_fork, DENY},
#endif
#ifdef SYS_vfork
    {SYS_vfork, DENY},
#endif
#ifdef SYS_clone
    {SYS_clone, THREADS_ONLY},
#endif
#ifdef SYS_clone3
    {SYS_clone3, NOSYS}, /* its flags are in memory, out of the filter's reach; glibc falls back to clone */
#endif
/* leaving the process group that the grader kills on a timeout */
#ifdef SYS_setsid
    {SYS_setsid, DENY},
#endif
#ifdef SYS_setpgid
    {SYS_setpgid, DENY},
#endif
/* namespaces and mounts */
#ifdef SYS_unshare
    {SYS_unshare, DENY},
#endif
#ifdef SYS_setns
    {SYS_setns, DENY},
#endif
#ifdef SYS_mount
    {SYS_mount, DENY},
#endif
#ifdef SYS_umount2
    {SYS_umount2, DENY},
#endif
#ifdef SYS_open_tree
    {SYS_open_tree, DENY},
    {SYS_move_mount, DENY},
    {SYS_fsopen, DENY},
    {SYS_fsconfig, DENY},
    {SYS_fsmount, DENY},
    {SYS_fspick, DENY},
#endif
#ifdef SYS_mount_setattr
    {SYS_mount_setattr, DENY},
#endif
/* kernel interfaces with a history of bugs, and no use in a CUDA solution */
#ifdef SYS_io_uring_setup
    {SYS_io_uring_setup, DENY},
    {SYS_io_uring_enter, DENY},
    {SYS_io_uring_register, DENY},
#endif
#ifdef SYS_bpf
    {SYS_bpf, DENY},
#endif
#ifdef SYS_perf_event_open
    {SYS_perf_event_open, DENY},
#endif
#ifdef SYS_userfaultfd
    {SYS_userfaultfd, DENY},
#endif
#ifdef SYS_keyctl
    {SYS_keyctl, DENY},
#endif
#ifdef SYS_add_key
    {SYS_add_key, DENY},
#endif
#ifdef SYS_request_key
    {SYS_request_key, DENY},
#endif
/* Writing files: Landlock already allows none, but on Landlock ABI < 8 its
 * rules bind only the thread that entered the sandbox and its new threads,
 * not the CUDA driver's threads started before. The filter binds every
 * thread, so no thread can create, change or remove a file (a planted judge
 * binary or a rewritten build cache would outlive this run). */
#ifdef SYS_open
    {SYS_open, OPEN_READ_ARG1},
#endif
#ifdef SYS_openat
    {SYS_openat, OPEN_READ_ARG2},
#endif
#ifdef SYS_openat2
    {SYS_openat2, NOSYS}, /* flags in memory; glibc's open() does not use it */
#endif
#ifdef SYS_creat
    {SYS_creat, DENY},
#endif
#ifdef SYS_truncate
    {SYS_truncate, DENY},
#endif
#ifdef SYS_rename
    {SYS_rename, DENY},
#endif
#ifdef SYS_renameat
    {SYS_renameat, DENY},
#endif
#ifdef SYS_renameat2
    {SYS_renameat2, DENY},
#endif
#ifdef SYS_unlink
    {SYS_unlink, DENY},
#endif
#ifdef SYS_unlinkat
    {SYS_unlinkat, DENY},
#endif
#ifdef SYS_link
    {SYS_link, DENY},
#endif
#ifdef SYS_linkat
    {SYS_linkat, DENY},
#endif
#ifdef SYS_symlink
    {SYS_symlink, DENY},
#endif
#ifdef SYS_symlinkat
    {SYS_symlinkat, DENY},
#endif
#ifdef SYS_mkdir
    {SYS_mkdir, DENY},
#endif
#ifdef SYS_mkdirat
    {SYS_mkdirat, DENY},
#endif
#ifdef SYS_rmdir
    {SYS_rmdir, DENY},
#endif
#ifdef SYS_mknod
    {SYS_mknod, DENY},
#endif
#ifdef SYS_mknodat
    {SYS_mknodat, DENY},
#endif
/* File metadata: modes, owners, times, extended attributes. Landlock has no
 * rights for them; chmod 000 on the judge's binary would break later runs. */
#ifdef SYS_chmod
    {SYS_chmod, DENY},
#endif
#ifdef SYS_fchmod
    {SYS_fchmod, DENY},
#endif
#ifdef SYS_fchmodat
    {SYS_fchmodat, DENY},
#endif
    {452 /* fchmodat2 */, DENY},
#ifdef SYS_chown
    {SYS_chown, DENY},
#endif
#ifdef SYS_fchown
    {SYS_fchown, DENY},
#endif
#ifdef SYS_lchown
    {SYS_lchown, DENY},
#endif
#ifdef SYS_fchownat
    {SYS_fchownat, DENY},
#endif
#ifdef SYS_utime
    {SYS_utime, DENY},
#endif
#ifdef SYS_utimes
    {SYS_utimes, DENY},
#endif
#ifdef SYS_utimensat
    {SYS_utimensat, DENY},
#endif
#ifdef SYS_futimesat
    {SYS_futimesat, DENY},
#endif
#ifdef SYS_setxattr
    {SYS_setxattr, DENY},
    {SYS_lsetxattr, DENY},
    {SYS_fsetxattr, DENY},
    {SYS_removexattr, DENY},
    {SYS_lremovexattr, DENY},
    {SYS_fremovexattr, DENY},
#endif
    {463 /* setxattrat */, DENY},
    {466 /* removexattrat */, DENY},
/* Code from memory: once the runner is up, no memory becomes executable
 * unless it is mapped from a file (the student's library), which the
 * judge then sees in the runner's maps. Copying the reference's code into
 * anonymous memory to hide it from that check is refused here. */
#ifdef SYS_mmap
    {SYS_mmap, MMAP_CHECKED},
#endif
#ifdef SYS_mprotect
    {SYS_mprotect, PROT_NOT_X},
#endif
#ifdef SYS_pkey_mprotect
    {SYS_pkey_mprotect, PROT_NOT_X},
#endif
#ifdef SYS_memfd_create
    {SYS_memfd_create, DENY}, /* a file with no path: code the maps check could not place */
#endif
/* This process's memory through its files: the driver must name its threads
 * in /proc/self/task/TID/comm, so Landlock lets the runner write beneath
 * /proc/self/task, where each thread's `mem` also is, and a write there
 * goes through any page's protection (the CUPTI table made read-only, the
 * runner's code). The program, the heap and the libraries lie above 4 GiB
 * (position-independent, sandbox_enter says when not): no write at an offset
 * that high, and no seek there, step by step or at once; the offsets that
 * splice and copy_file_range take are in memory, out of the filter's reach. */
#ifdef SYS_lseek
    {SYS_lseek, SEEK_LOW},
#endif
#ifdef SYS_pwrite64
    {SYS_pwrite64, OFFSET_LOW},
#endif
#ifdef SYS_pwritev
    {SYS_pwritev, OFFSET_LOW},
#endif
#ifdef SYS_pwritev2
    {SYS_pwritev2, OFFSET_LOW},
#endif
#ifdef SYS_splice
    {SYS_splice, DENY},
#endif
#ifdef SYS_copy_file_range
    {SYS_copy_file_range, DENY},
#endif
    {447 /* memfd_secret */, DENY},
/* personality(READ_IMPLIES_EXEC) would make every readable mapping executable */
#ifdef SYS_personality
    {SYS_personality, QUERY_ONLY},
#endif
/* The network and other programs' sockets: no socket at all. The runner
 * talks to the judge on the socket it inherited; CUDA opened what it needs
 * before this filter. Refusing socket() closes every family and protocol
 * (TCP, Fast Open, MPTCP, UDP, raw, netlink, pathname and abstract Unix
 * sockets such as ssh-agent's or D-Bus's), whatever the Landlock ABI. */
#ifdef SYS_socket
    {SYS_socket, DENY},
#endif
#ifdef SYS_socketpair
    {SYS_socketpair, UNIX_PAIR_ONLY},
#endif
/* System V IPC: its objects outlive the process (a later runner could read
 * an earlier one's results) and its memory is counted by no rlimit */
#ifdef SYS_shmget
    {SYS_shmget, DENY},
    {SYS_shmat, DENY},
    {SYS_shmctl, DENY},
    {SYS_shmdt, DENY},
#endif
#ifdef SYS_msgget
    {SYS_msgget, DENY},
    {SYS_msgsnd, DENY},
    {SYS_msgrcv, DENY},
    {SYS_msgctl, DENY},
#endif
#ifdef SYS_semget
    {SYS_semget, DENY},
    {SYS_semop, DENY},
    {SYS_semctl, DENY},
#endif
#ifdef SYS_semtimedop
    {SYS_semtimedop, DENY},
#endif
/* POSIX message queues, for the same reason: a queue lives on under its name until unlinked, for
 * any later process of the user to open (a first run's outputs kept for the determinism re-run,
 * one student's results left for another's runner in a class grade). Landlock refuses opening
 * one (EACCES) only on the threads it binds: before ABI 8 not CUDA's own, started before it,
 * where a host function the student enqueues (cudaLaunchHostFunc) runs */
#ifdef SYS_mq_open
    {SYS_mq_open, DENY},
#endif
#ifdef SYS_mq_unlink
    {SYS_mq_unlink, DENY},
#endif
#ifdef SYS_mq_timedsend
    {SYS_mq_timedsend, DENY},
#endif
#ifdef SYS_mq_timedreceive
    {SYS_mq_timedreceive, DENY},
#endif
#ifdef SYS_mq_notify
    {SYS_mq_notify, DENY},
#endif
#ifdef SYS_mq_getsetattr
    {SYS_mq_getsetattr, DENY},
#endif
/* The terminal: no request to any tty (TIOCSTI would type into the grading
 * user's shell), answered as if the descriptor were not a terminal */
#ifdef SYS_ioctl
    {SYS_ioctl, NOT_A_TTY},
#endif
/* A descriptor's signal owner: when I/O is ready on it the kernel sends SIGIO, or the signal
 * F_SETSIG names (SIGSTOP too), to the owner, with the setter's right to signal. Owned by the
 * judge or the reference's runner, a byte written to the runner's own socketpair would stop
 * them mid-timing. Landlock's signal scope (ABI 6) refuses the delivery where the kernel has
 * it; this holds on older kernels too */
#ifdef SYS_fcntl
    {SYS_fcntl, OWNER_SELF},
#endif
/* What only an administrator does (a runner started by root keeps no
 * capability, and these are refused even so) */
#ifdef SYS_reboot
    {SYS_reboot, DENY},
#endif
#ifdef SYS_kexec_load
    {SYS_kexec_load, DENY},
#endif
#ifdef SYS_kexec_file_load
    {SYS_kexec_file_load, DENY},
#endif
#ifdef SYS_init_module
    {SYS_init_module, DENY},
#endif
#ifdef SYS_finit_module
    {SYS_finit_module, DENY},
#endif
#ifdef SYS_delete_module
    {SYS_delete_module, DENY},
#endif
#ifdef SYS_iopl
    {SYS_iopl, DENY},
#endif
#ifdef SYS_ioperm
    {SYS_ioperm, DENY},
#endif
#ifdef SYS_swapon
    {SYS_swapon, DENY},
    {SYS_swapoff, DENY},
#endif
#ifdef SYS_acct
    {SYS_acct, DENY},
#endif
#ifdef SYS_chroot
    {SYS_chroot, DENY},
#endif
#ifdef SYS_pivot_root
    {SYS_pivot_root, DENY},
#endif
#ifdef SYS_settimeofday
    {SYS_settimeofday, DENY},
#endif
#ifdef SYS_clock_settime
    {SYS_clock_settime, DENY},
#endif
#ifdef SYS_clock_adjtime
    {SYS_clock_adjtime, DENY},
#endif
#ifdef SYS_adjtimex
    {SYS_adjtimex, DENY},
#endif
#ifdef SYS_sethostname
    {SYS_sethostname, DENY},
    {SYS_setdomainname, DENY},
#endif
#ifdef SYS_syslog
    {SYS_syslog, DENY},
#endif
#ifdef SYS_quotactl
    {SYS_quotactl, DENY},
#endif
#ifdef SYS_vhangup
    {SYS_vhangup, DENY},
#endif
#ifdef SYS_name_to_handle_at
    {SYS_name_to_handle_at, DENY},
    {SYS_open_by_handle_at, DENY}, /* opens by inode, past any path rule */
#endif
#ifdef SYS_fanotify_init
    {SYS_fanotify_init, DENY},
#endif
/* prctl: dumpable (hides from the grader), parent-death signal, ptracer */
#ifdef SYS_prctl
    {SYS_prctl, PRCTL_OPTIONS},
#endif
};

/* What a CUDA solution, the runtime, the driver and CUPTI may do besides the
 * rules above: every other syscall answers ENOSYS (build_filter), those the
 * kernel adds later included, so that the runner is confined by what it may
 * do, not by a list of what it may not (the rules above keep their reasons
 * and their conditions). ENOSYS, as a kernel without the call would say: a
 * library that has a fallback takes it. The calls CUDA 13.0's libcudart and
 * libcupti make through syscall() (objdump: gettid, mbind, set_mempolicy,
 * get_mempolicy, move_pages, write, statx, mmap, munmap, futex) are all here
 * or under a rule; the driver's are listed by .probe/s56/sys.sh on a GPU. */
static const int allowed[] = {
    /* descriptors it holds: read, write, wait on, duplicate, close (which files it may open
     * is Landlock's call and the open rules') */
    SYS_read, SYS_write, SYS_readv, SYS_writev, SYS_pread64, SYS_preadv, SYS_preadv2, SYS_close,
    SYS_close_range, SYS_dup, SYS_dup2, SYS_dup3, SYS_flock, SYS_fsync, SYS_fdatasync,
    SYS_ftruncate, SYS_fallocate, SYS_fadvise64, SYS_readahead, SYS_pipe, SYS_pipe2, SYS_poll,
    SYS_ppoll, SYS_select, SYS_pselect6, SYS_epoll_create, SYS_epoll_create1, SYS_epoll_ctl,
    SYS_epoll_wait, SYS_epoll_pwait, SYS_epoll_pwait2, SYS_eventfd, SYS_eventfd2, SYS_signalfd,
    SYS_signalfd4, SYS_timerfd_create, SYS_timerfd_settime, SYS_timerfd_gettime, SYS_inotify_init,
    SYS_inotify_init1, SYS_inotify_add_watch, SYS_inotify_rm_watch,
    /* the sockets it was given (the judge's, socketpair's): with no socket of its own, nothing
     * to bind, listen on or connect */
    SYS_sendto, SYS_recvfrom, SYS_sendmsg, SYS_recvmsg, SYS_sendmmsg, SYS_recvmmsg, SYS_shutdown,
    SYS_getsockname, SYS_getpeername, SYS_getsockopt, SYS_setsockopt,
    /* files, read only: what Landlock lets it see */
    SYS_stat, SYS_fstat, SYS_lstat, SYS_newfstatat, SYS_fstatat64, SYS_statx, SYS_statfs,
    SYS_fstatfs, SYS_access, SYS_faccessat, SYS_faccessat2, SYS_readlink, SYS_readlinkat,
    SYS_getdents, SYS_getdents64, SYS_getcwd, SYS_chdir, SYS_fchdir, SYS_getxattr, SYS_lgetxattr,
    SYS_fgetxattr, SYS_listxattr, SYS_llistxattr, SYS_flistxattr, SYS_umask,
    /* memory of its own (mmap and mprotect have rules above) */
    SYS_brk, SYS_munmap, SYS_mremap, SYS_msync, SYS_mincore, SYS_madvise, SYS_mlock, SYS_mlock2,
    SYS_munlock, SYS_mlockall, SYS_munlockall, SYS_mbind, SYS_set_mempolicy, SYS_get_mempolicy,
    SYS_set_mempolicy_home_node, SYS_pkey_alloc, SYS_pkey_free, SYS_membarrier,
    /* threads and their synchronisation (clone has a rule above), and leaving */
    SYS_futex, SYS_futex_waitv, SYS_set_robust_list, SYS_get_robust_list, SYS_set_tid_address,
    SYS_rseq, SYS_arch_prctl, SYS_sched_yield, SYS_sched_getaffinity, SYS_sched_getparam,
    SYS_sched_getscheduler, SYS_sched_getattr, SYS_sched_get_priority_max,
    SYS_sched_get_priority_min, SYS_sched_rr_get_interval, SYS_getcpu, SYS_exit, SYS_exit_group,
    SYS_restart_syscall,
    /* signals to itself, and timers */
    SYS_rt_sigaction, SYS_rt_sigprocmask, SYS_rt_sigreturn, SYS_rt_sigpending, SYS_rt_sigtimedwait,
    SYS_rt_sigsuspend, SYS_sigaltstack, SYS_pause, SYS_alarm, SYS_getitimer, SYS_setitimer,
    SYS_timer_create, SYS_timer_settime, SYS_timer_gettime, SYS_timer_getoverrun, SYS_timer_delete,
    /* clocks, read */
    SYS_nanosleep, SYS_clock_nanosleep, SYS_clock_gettime, SYS_clock_getres, SYS_gettimeofday,
    SYS_time, SYS_times,
    /* who and where it is, and its own limits (prlimit64 has a rule above) */
    SYS_getpid, SYS_getppid, SYS_gettid, SYS_getuid, SYS_geteuid, SYS_getgid, SYS_getegid,
    SYS_getresuid, SYS_getresgid, SYS_getgroups, SYS_getpgrp, SYS_getpgid, SYS_getsid,
    SYS_getpriority, SYS_ioprio_get, SYS_getrlimit, SYS_setrlimit, SYS_getrusage, SYS_sysinfo,
    SYS_uname, SYS_capget, SYS_wait4, SYS_waitid, SYS_getrandom,
    /* confining itself further */
    SYS_seccomp, SYS_landlock_create_ruleset, SYS_landlock_add_rule, SYS_landlock_restrict_self,
#if defined(__x86_64__)
    453, /* map_shadow_stack: glibc may give a new thread a shadow stack (no header names it yet) */
#endif
};

/* clone flags that make a new namespace: a thread has no business with them */
#define SB_CLONE_NEWNS_FLAGS                                                                             \
    (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | \
     CLONE_NEWNET)

/* The low 32 bits of args[0]: the kernel reads pids, prctl options and clone
 * flags from them and ignores the rest. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define SB_ARG0_LO (offsetof(struct seccomp_data, args) + 4)
#else
#define SB_ARG0_LO (offsetof(struct seccomp_data, args))
#endif

/* The low 32 bits of args[1] and args[2] (open and openat flags). */
#define SB_ARG_LO(i) (SB_ARG0_LO + 8 * (i))
/* The high 32 bits of args[0] (an address's upper half) */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define SB_ARG0_HI (offsetof(struct seccomp_data, args))
#else
#define SB_ARG0_HI (offsetof(struct seccomp_data, args) + 4)
#endif
#define SB_ARG_HI(i) (SB_ARG0_HI + 8 * (i))
/* Shared anonymous memory the CUDA driver places itself, with MAP_FIXED
 * inside the virtual range it reserves at 8 GiB (CUPTI's counter buffer,
 * mapped again each time a counted call enables the profiler: 2 MiB at
 * 0x206000000 on the H100): allowed only where it starts in
 * [SB_DRIVER_WINDOW_HI << 32, + 4 GiB) and is shorter than 4 GiB, so that
 * everything mapped that way lies within 8 GiB (a mapping placed over
 * another replaces it). mremap is not filtered: it can grow a shared
 * mapping, this one or the driver's own made before the filter. */
#define SB_DRIVER_WINDOW_HI 0x2u
/* open flags that write, create or empty a file */
#define SB_WRITE_FLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)


/* MAP_SHARED (1) and MAP_SHARED_VALIDATE (3) both have bit 0; MAP_PRIVATE (2) not */
#define SB_MAP_SHARED_BIT 0x01

#define SB_ALLOW SECCOMP_RET_ALLOW
#define SB_EPERM (SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))
#define SB_ENOSYS (SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA))
#define SB_NOTTY (SECCOMP_RET_ERRNO | (ENOTTY & SECCOMP_RET_DATA))

typedef struct {
    struct sock_filter ins[1024];
    unsigned n;
} Bpf;

static void emit(Bpf *b, unsigned short code, uint32_t k, unsigned char jt, unsigned char jf) {
    if (b->n < sizeof b->ins / sizeof *b->ins) b->ins[b->n] = (struct sock_filter){code, jt, jf, k};
    b->n++;
}

static void ret(Bpf *b, uint32_t what) { emit(b, BPF_RET | BPF_K, what, 0, 0); }

/* Allowed when arg0's low 32 bits are `value`, else EPERM. */
static void allow_if_arg0(Bpf *b, uint32_t value) {
    emit(b, BPF_LD | BPF_W | BPF_ABS, SB_ARG0_LO, 0, 0);
    emit(b, BPF_JMP | BPF_JEQ | BPF_K, value, 0, 1);
    ret(b, SB_ALLOW);
    ret(b, SB_EPERM);
}

/* The instructions after "nr matched": each path ends in a return. */
static void emit_verdict(Bpf *b, enum verdict v, uint32_t pid) {
    switch (v) {
    case ALLOW: ret(b, SB_ALLOW); break;
    case DENY: ret(b, SB_EPERM); break;
    case NOSYS: ret(b, SB_ENOSYS); break;
    case THREADS_ONLY:
        emit(b, BPF_LD | BPF_W | BPF_ABS, SB_ARG0_LO, 0, 0);
        emit(b, BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 2);         /* no CLONE_THREAD: EPERM */
        emit(b, BPF_JMP | BPF_JSET | BPF_K, SB_CLONE_NEWNS_FLAGS, 1, 0); /* new namespace: EPERM */
        ret(b, SB_ALLOW);
        ret(b, SB_EPERM);
        break;
    case SELF_ONLY: allow_if_arg0(b, pid); break;
    case SELF_OR_ZERO:
        emit(b, BPF_LD | BPF_W | BPF_ABS, SB_ARG0_LO, 0, 0);
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, pid, 1, 0);
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1);
        ret(b, SB_ALLOW);
        ret(b, SB_EPERM);
        break;
    case OPEN_READ_ARG1:
    case OPEN_READ_ARG2:
        emit(b, BPF_LD | BPF_W | BPF_ABS, SB_ARG_LO(v == OPEN_READ_ARG1 ? 1 : 2), 0, 0);
        emit(b, BPF_JMP | BPF_JSET | BPF_K, SB_WRITE_FLAGS, 0, 1);
        ret(b, SB_EPERM);
        ret(b, SB_ALLOW);
        break;
    case MMAP_CHECKED:
        emit(b, BPF_LD | BPF_W | BPF_ABS, SB_ARG_LO(2), 0, 0);
        emit(b, BPF_ALU | BPF_AND | BPF_K, PROT_WRITE | PROT_EXEC, 0, 0);
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, PROT_WRITE | PROT_EXEC, 11, 0);         /* -> EPERM */
        emit(b, BPF_LD | BPF_W | BPF_ABS, SB_ARG_LO(3), 0, 0);
        emit(b, BPF_ALU | BPF_AND | BPF_K, MAP_ANONYMOUS | SB_MAP_SHARED_BIT, 0, 0);
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, MAP_ANONYMOUS | SB_MAP_SHARED_BIT, 1, 0); /* shared anonymous */
        ret(b, SB_ALLOW);
        emit(b, BPF_LD | BPF_W | BPF_ABS, SB_ARG_LO(3), 0, 0);
        emit(b, BPF_JMP | BPF_JSET | BPF_K, MAP_FIXED, 0, 5);                        /* not fixed -> EPERM */
        emit(b, BPF_LD | BPF_W | BPF_ABS, SB_ARG0_HI, 0, 0);
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, SB_DRIVER_WINDOW_HI, 0, 3);               /* outside -> EPERM */
        emit(b, BPF_LD | BPF_W | BPF_ABS, SB_ARG0_HI + 8, 0, 0);                     /* the length's upper half */
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1);                                 /* 4 GiB or more -> EPERM */
        ret(b, SB_ALLOW);
        ret(b, SB_EPERM);
        break;
    case PROT_NOT_X:
        emit(b, BPF_LD | BPF_W | BPF_ABS, SB_ARG_LO(2), 0, 0);
        emit(b, BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 1);
        ret(b, SB_EPERM);
        ret(b, SB_ALLOW);
        break;
    case NOT_A_TTY: /* the request's type byte: 'T' for every terminal ioctl (TCGETS 0x5401,
                       TIOCSTI 0x5412), also for FIONBIO and the other requests on any
                       descriptor, which stay allowed */
        emit(b, BPF_LD | BPF_W | BPF_ABS, SB_ARG_LO(1), 0, 0);
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, FIOSETOWN, 0, 1);
        ret(b, SB_EPERM);
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, SIOCSPGRP, 0, 1);
        ret(b, SB_EPERM);
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, FIONBIO, 6, 0);
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, FIONREAD, 5, 0);
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, FIOCLEX, 4, 0);
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, FIONCLEX, 3, 0);
        emit(b, BPF_ALU | BPF_AND | BPF_K, 0xff00, 0, 0);
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, 'T' << 8, 0, 1);
        ret(b, SB_NOTTY);
        ret(b, SB_ALLOW);
        break;
    case OWNER_SELF:
        emit(b, BPF_LD | BPF_W | BPF_ABS, SB_ARG_LO(1), 0, 0);
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, F_SETOWN_EX, 5, 0);      /* -> EPERM */
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, F_SETOWN, 0, 3);         /* other commands -> allow */
        emit(b, BPF_LD | BPF_W | BPF_ABS, SB_ARG_LO(2), 0, 0);
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, pid, 1, 0);
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1);
        ret(b, SB_ALLOW);
        ret(b, SB_EPERM);
        break;
    case SEEK_LOW:
        emit(b, BPF_LD | BPF_W | BPF_ABS, SB_ARG_HI(1), 0, 0);
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 5);        /* 4 GiB or more, or back: EPERM */
        emit(b, BPF_LD | BPF_W | BPF_ABS, SB_ARG_LO(2), 0, 0);
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, SEEK_SET, 2, 0); /* to an offset below 4 GiB */
        emit(b, BPF_LD | BPF_W | BPF_ABS, SB_ARG_LO(1), 0, 0);
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1);        /* from the position or the end: 0 only */
        ret(b, SB_ALLOW);
        ret(b, SB_EPERM);
        break;
    case OFFSET_LOW:
        emit(b, BPF_LD | BPF_W | BPF_ABS, SB_ARG_HI(3), 0, 0);
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1);
        ret(b, SB_ALLOW);
        ret(b, SB_EPERM);
        break;
    case UNIX_PAIR_ONLY: allow_if_arg0(b, AF_UNIX); break;
    case QUERY_ONLY: allow_if_arg0(b, 0xffffffffU); break;
    case PRCTL_OPTIONS:
        emit(b, BPF_LD | BPF_W | BPF_ABS, SB_ARG0_LO, 0, 0);
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, PR_SET_DUMPABLE, 3, 0);
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, PR_SET_PDEATHSIG, 2, 0);
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, PR_SET_PTRACER, 1, 0);
        ret(b, SB_ALLOW);
        ret(b, SB_EPERM);
        break;
    }
}


/* The guarded range [lo, hi) of SandboxSpec.guarded, as the filter compares it. */
typedef struct {
    uint64_t lo, hi;
} Guard;

static void emit_k(Bpf *b, unsigned short code, uint32_t k) { emit(b, code, k, 0, 0); }

enum { GUARD_BLOCK = 30 }; /* emit_guard's instructions */

/* EPERM when [arg a, arg a + arg l) overlaps the guard, else on to the
 * instruction after this block. Unsigned 64-bit arithmetic on 32-bit
 * halves: a < hi, then a + l (with the carry) > lo. Uses M[0..2]. */
static void emit_guard(Bpf *b, int a, int l, Guard g) {
    uint32_t lo_hi = (uint32_t)(g.lo >> 32), lo_lo = (uint32_t)g.lo;
    uint32_t hi_hi = (uint32_t)(g.hi >> 32), hi_lo = (uint32_t)g.hi;
    /* a < hi: else no overlap (to the end: 30 instructions from the start) */
    emit_k(b, BPF_LD | BPF_W | BPF_ABS, SB_ARG_HI(a));                 /* 0 */
    emit(b, BPF_JMP | BPF_JGT | BPF_K, hi_hi, 28, 0);                     /* 1: -> 30 */
    emit(b, BPF_JMP | BPF_JEQ | BPF_K, hi_hi, 0, 2);                      /* 2: below: -> 5 */
    emit_k(b, BPF_LD | BPF_W | BPF_ABS, SB_ARG_LO(a));                 /* 3 */
    emit(b, BPF_JMP | BPF_JGE | BPF_K, hi_lo, 25, 0);                     /* 4: -> 30 */
    /* the end's low half, and whether it carried */
    emit_k(b, BPF_LD | BPF_W | BPF_ABS, SB_ARG_LO(a));                 /* 5 */
    emit_k(b, BPF_ST, 0);                                                 /* 6: M[0] = a's low half */
    emit_k(b, BPF_LD | BPF_W | BPF_ABS, SB_ARG_LO(l));                 /* 7 */
    emit_k(b, BPF_MISC | BPF_TAX, 0);                                     /* 8 */
    emit_k(b, BPF_LD | BPF_MEM, 0);                                       /* 9 */
    emit_k(b, BPF_ALU | BPF_ADD | BPF_X, 0);                              /* 10 */
    emit_k(b, BPF_ST, 1);                                                 /* 11: M[1] = the end's low half */
    emit_k(b, BPF_LDX | BPF_MEM, 0);                                      /* 12 */
    emit(b, BPF_JMP | BPF_JGE | BPF_X, 0, 0, 2);                          /* 13: wrapped: -> 16 */
    emit_k(b, BPF_LD | BPF_IMM, 0);                                       /* 14 */
    emit_k(b, BPF_JMP | BPF_JA, 1);                                       /* 15: -> 17 */
    emit_k(b, BPF_LD | BPF_IMM, 1);                                       /* 16 */
    emit_k(b, BPF_ST, 2);                                                 /* 17: M[2] = the carry */
    /* the end's high half */
    emit_k(b, BPF_LD | BPF_W | BPF_ABS, SB_ARG_HI(l));                 /* 18 */
    emit_k(b, BPF_MISC | BPF_TAX, 0);                                     /* 19 */
    emit_k(b, BPF_LD | BPF_W | BPF_ABS, SB_ARG_HI(a));                 /* 20 */
    emit_k(b, BPF_ALU | BPF_ADD | BPF_X, 0);                              /* 21 */
    emit_k(b, BPF_MISC | BPF_TAX, 0);                                     /* 22 */
    emit_k(b, BPF_LD | BPF_MEM, 2);                                       /* 23 */
    emit_k(b, BPF_ALU | BPF_ADD | BPF_X, 0);                              /* 24 */
    /* the end > lo: overlap */
    emit(b, BPF_JMP | BPF_JGT | BPF_K, lo_hi, 3, 0);                      /* 25: -> 29 */
    emit(b, BPF_JMP | BPF_JEQ | BPF_K, lo_hi, 0, 3);                      /* 26: below: -> 30 */
    emit_k(b, BPF_LD | BPF_MEM, 1);                                       /* 27 */
    emit(b, BPF_JMP | BPF_JGT | BPF_K, lo_lo, 0, 1);                      /* 28: -> 29, else -> 30 */
    ret(b, SB_EPERM);                                                     /* 29 */
}                                                                         /* 30: the end (GUARD_BLOCK) */

/* The calls that could make the guarded range writable or put other memory
 * there, and where their ranges are (address, length). mremap's second is
 * where MREMAP_FIXED moves a mapping to. */
static const struct {
    int nr, addr, len;
} guarded_calls[] = {
#ifdef SYS_mprotect
    {SYS_mprotect, 0, 1},
#endif
#ifdef SYS_pkey_mprotect
    {SYS_pkey_mprotect, 0, 1},
#endif
#ifdef SYS_munmap
    {SYS_munmap, 0, 1},
#endif
#ifdef SYS_mmap
    {SYS_mmap, 0, 1},
#endif
#ifdef SYS_mremap
    {SYS_mremap, 0, 1},
    {SYS_mremap, 4, 2},
#endif
};

/* paths_confined: Landlock decides which files open for writing (the
 * runner's device files, its own tasks' names), so the filter leaves opens
 * to it: the driver opens a device file again when a profiler is enabled a
 * second time (a counted call), which a blanket refusal made fail. */
static void build_filter(Bpf *b, uint32_t pid, bool paths_confined, const Guard *guard, bool no_new_threads) {
    b->n = 0;
    /* A syscall of another ABI (i386 int 0x80, arm32) has other numbers: kill. */
    emit(b, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch), 0, 0);
    emit(b, BPF_JMP | BPF_JEQ | BPF_K, SB_AUDIT_ARCH, 1, 0);
    ret(b, SECCOMP_RET_KILL_PROCESS);
    emit(b, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
#ifdef SB_X32_BIT
    /* x32 numbers alias the x86_64 ones with bit 30 set: refuse them all
     * (this also answers syscall(-1) with ENOSYS, as the kernel would) */
    emit(b, BPF_JMP | BPF_JGE | BPF_K, SB_X32_BIT, 0, 1);
    ret(b, SB_ENOSYS);
#endif
    /* the guarded range first: these calls have verdicts of their own below */
    for (size_t i = 0; guard && i < sizeof guarded_calls / sizeof *guarded_calls; i++) {
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)guarded_calls[i].nr, 0, GUARD_BLOCK + 1);
        emit_guard(b, guarded_calls[i].addr, guarded_calls[i].len, *guard);
        emit(b, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
    }
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++) {
        enum verdict v = rules[i].verdict;
        if (paths_confined && (v == OPEN_READ_ARG1 || v == OPEN_READ_ARG2)) v = ALLOW;
        if (no_new_threads && v == THREADS_ONLY) v = DENY;
        unsigned at = b->n;
        emit(b, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)rules[i].nr, 0, 0);
        emit_verdict(b, v, pid);
        if (at < sizeof b->ins / sizeof *b->ins) b->ins[at].jf = (unsigned char)(b->n - at - 1); /* past the verdict */
    }
    /* the allowed calls jump to one ALLOW after them, past the ENOSYS that ends the list */
    _Static_assert(sizeof allowed / sizeof *allowed < 255, "a jump of the allowed list must fit in 8 bits");
    unsigned left = 0; /* the calls of this architecture (-1: not here, seccomp_calls.h) */
    for (size_t i = 0; i < sizeof allowed / sizeof *allowed; i++) left += allowed[i] >= 0;
    for (size_t i = 0; i < sizeof allowed / sizeof *allowed; i++)
        if (allowed[i] >= 0) emit(b, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)allowed[i], (unsigned char)left--, 0);
    ret(b, SB_ENOSYS);
    ret(b, SB_ALLOW);
}

int seccomp_enter(const SandboxSpec *spec, bool paths_confined, SandboxStatus *st) {
    /* Probe: with filters built in, a NULL program is EFAULT; without, EINVAL. */
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, NULL, 0, 0) != 0 && errno != EFAULT) {
        if (errno == EINVAL) {
            sandbox_note(st, "no seccomp filters on this kernel: syscalls not filtered");
            return 0;
        }
        return sandbox_fail(st, "seccomp probe");
    }
    static Bpf b; /* 8 KB: not on a thread's stack */
    Guard guard = {(uint64_t)(uintptr_t)spec->guarded, (uint64_t)(uintptr_t)spec->guarded + spec->guarded_bytes};
    build_filter(&b, (uint32_t)getpid(), paths_confined, spec->guarded ? &guard : NULL, spec->no_new_threads);
    if (b.n > sizeof b.ins / sizeof b.ins[0]) {
        errno = E2BIG;
        return sandbox_fail(st, "seccomp filter of %u instructions", b.n);
    }
    struct sock_fprog prog = {.len = (unsigned short)b.n, .filter = b.ins};
    /* TSYNC: every thread of the process, CUDA's included, gets the filter */
    long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog);
    if (r > 0) {
        errno = EBUSY;
        return sandbox_fail(st, "seccomp: thread %ld has a filter of its own", r);
    }
    if (r < 0 && errno != ENOSYS) return sandbox_fail(st, "seccomp");
    if (r < 0) { /* before Linux 3.17: no seccomp(2), no TSYNC */
        if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) return sandbox_fail(st, "prctl(PR_SET_SECCOMP)");
        int others = sandbox_thread_count() - 1;
        if (others > 0) sandbox_note(st, "seccomp filter on this thread only: no seccomp(2) on this kernel");
    }
    st->seccomp = true;
    return 0;
}

#else

int seccomp_enter(const SandboxSpec *spec, bool paths_confined, SandboxStatus *st) {
    (void)spec, (void)paths_confined;
    sandbox_note(st, "no seccomp filter for this architecture: syscalls not filtered");
    return 0;
}

#endif
