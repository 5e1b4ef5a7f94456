# tools/trace-runner.sh: summarises an `strace -f` log of a grading: what the student's runner (and its
# threads) did after landlock_restrict_self: files, sockets, IPC, shared and executable mappings, tty ioctls.
import re, sys, collections
log = open(sys.argv[1], errors='replace').read().splitlines()
runner, children = set(), collections.defaultdict(list)
confined = set()
pat = re.compile(r'^(\d+)\s+(?:\d+:\d+:\d+\.\d+\s+)?(.*)$')
files = collections.Counter(); other = collections.Counter()
for line in log:
    m = pat.match(line)
    if not m: continue
    pid, rest = int(m.group(1)), m.group(2)
    if 'execve(' in rest and 'runner-' in rest.split(',')[0] and '--student' in rest:
        runner.add(pid)
    c = re.match(r'(clone3?|fork|vfork)\(.*\)\s+=\s+(\d+)', rest)
    if c and pid in runner:
        runner.add(int(c.group(2)));
        if pid in confined: confined.add(int(c.group(2)))
    if pid not in runner: continue
    if rest.startswith('landlock_restrict_self'): confined.add(pid); continue
    if pid not in confined: continue
    name = rest.split('(')[0]
    res = rest.rsplit('=', 1)[-1].strip() if '=' in rest else '?'
    res = 'ok' if re.match(r'^-?\d|^0x', res) and not res.startswith('-1') else res
    if name in ('openat', 'open', 'stat', 'newfstatat', 'access', 'faccessat', 'faccessat2', 'readlink', 'readlinkat', 'statfs', 'execve', 'mkdir', 'unlink', 'statx', 'lstat', 'inotify_add_watch', 'chdir', 'truncate', 'rename'):
        p = re.search(r'"([^"]*)"', rest)
        path = p.group(1) if p else '?'
        path = re.sub(r'/proc/\d+/', '/proc/PID/', path)
        path = re.sub(r'/task/\d+/', '/task/TID/', path)
        files[(name, path, res[:40])] += 1
    elif name in ('socket', 'socketpair', 'connect', 'bind', 'sendto', 'sendmsg', 'shmget', 'shmat', 'msgget', 'semget', 'memfd_create', 'capset', 'setsid', 'personality', 'prctl', 'listen', 'accept4', 'getsockopt', 'setsockopt', 'mknodat'):
        other[(name, re.sub(r'0x[0-9a-f]{6,}', 'ADDR', rest)[:160])] += 1
    elif name == 'mmap':
        if 'MAP_SHARED' in rest and 'MAP_ANONYMOUS' in rest: other[('mmap shared anon', re.sub(r'0x[0-9a-f]{6,}', 'ADDR', rest)[:140])] += 1
        elif 'PROT_EXEC' in rest: other[('mmap exec', re.sub(r'0x[0-9a-f]{6,}', 'ADDR', rest)[:140])] += 1
        elif 'MAP_SHARED' in rest: other[('mmap shared fd', re.sub(r'0x[0-9a-f]{6,}|, \d+, 0x?\d*\)', '', rest)[:100])] += 1
    elif name == 'ioctl':
        q = re.match(r'ioctl\((\d+), ([A-Z_]+|0x[0-9a-f]+|_IO[A-Z]*\([^)]*\))', rest)
        req = q.group(2) if q else rest[:40]
        if req.startswith('TC') or req.startswith('TIOC') or 'T' in req[:8] and not req.startswith('_IOC'):
            other[('ioctl tty', rest[:100])] += 1
        else: other[('ioctl', req[:60])] += 1
    elif name in ('mprotect',) and 'PROT_EXEC' in rest:
        other[('mprotect exec', re.sub(r'0x[0-9a-f]{6,}', 'ADDR', rest)[:100])] += 1
print('runner tasks', len(runner), 'confined', len(confined))
for (n, p, r), k in sorted(files.items(), key=lambda x: x[0][1]): print(f'F {n} {p} -> {r} x{k}')
for (n, d), k in sorted(other.items()): print(f'O {n}: {d} x{k}')
