/* The syscall names of the runner's allow-list (seccomp.c `allowed`) that an
 * architecture lacks (aarch64 has no open, stat, poll, ...: their *at and p*
 * successors are in the list too) or that older kernel headers do not name yet:
 * -1 there, which build_filter leaves out. Included by seccomp.c only. */
#ifndef GPUCOURSE_SECCOMP_CALLS_H
#define GPUCOURSE_SECCOMP_CALLS_H

#include <sys/syscall.h>

#ifndef SYS_setrlimit
#define SYS_setrlimit (-1)
#endif
#ifndef SYS_getrlimit
#define SYS_getrlimit (-1)
#endif
#ifndef SYS_preadv2
#define SYS_preadv2 (-1)
#endif
#ifndef SYS_close_range
#define SYS_close_range (-1)
#endif
#ifndef SYS_dup2
#define SYS_dup2 (-1)
#endif
#ifndef SYS_pipe
#define SYS_pipe (-1)
#endif
#ifndef SYS_poll
#define SYS_poll (-1)
#endif
#ifndef SYS_select
#define SYS_select (-1)
#endif
#ifndef SYS_epoll_create
#define SYS_epoll_create (-1)
#endif
#ifndef SYS_epoll_wait
#define SYS_epoll_wait (-1)
#endif
#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 (-1)
#endif
#ifndef SYS_eventfd
#define SYS_eventfd (-1)
#endif
#ifndef SYS_signalfd
#define SYS_signalfd (-1)
#endif
#ifndef SYS_inotify_init
#define SYS_inotify_init (-1)
#endif
#ifndef SYS_stat
#define SYS_stat (-1)
#endif
#ifndef SYS_lstat
#define SYS_lstat (-1)
#endif
#ifndef SYS_newfstatat
#define SYS_newfstatat (-1)
#endif
#ifndef SYS_fstatat64
#define SYS_fstatat64 (-1)
#endif
#ifndef SYS_statx
#define SYS_statx (-1)
#endif
#ifndef SYS_access
#define SYS_access (-1)
#endif
#ifndef SYS_faccessat2
#define SYS_faccessat2 (-1)
#endif
#ifndef SYS_readlink
#define SYS_readlink (-1)
#endif
#ifndef SYS_getdents
#define SYS_getdents (-1)
#endif
#ifndef SYS_mlock2
#define SYS_mlock2 (-1)
#endif
#ifndef SYS_set_mempolicy_home_node
#define SYS_set_mempolicy_home_node (-1)
#endif
#ifndef SYS_pkey_alloc
#define SYS_pkey_alloc (-1)
#endif
#ifndef SYS_pkey_free
#define SYS_pkey_free (-1)
#endif
#ifndef SYS_membarrier
#define SYS_membarrier (-1)
#endif
#ifndef SYS_futex_waitv
#define SYS_futex_waitv (-1)
#endif
#ifndef SYS_rseq
#define SYS_rseq (-1)
#endif
#ifndef SYS_arch_prctl
#define SYS_arch_prctl (-1)
#endif
#ifndef SYS_sched_getattr
#define SYS_sched_getattr (-1)
#endif
#ifndef SYS_pause
#define SYS_pause (-1)
#endif
#ifndef SYS_alarm
#define SYS_alarm (-1)
#endif
#ifndef SYS_time
#define SYS_time (-1)
#endif
#ifndef SYS_getpgrp
#define SYS_getpgrp (-1)
#endif
#ifndef SYS_getrandom
#define SYS_getrandom (-1)
#endif
#ifndef SYS_seccomp
#define SYS_seccomp (-1)
#endif
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset (-1)
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule (-1)
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self (-1)
#endif

#endif
