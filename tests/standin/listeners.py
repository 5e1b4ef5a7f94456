#!/usr/bin/env python3
"""Real listeners for the network probes of tests/standin/hostile.c
(tests/runner_box.sh): what a grading machine has on it.

  listeners.py DIR UNIX_PATH ABSTRACT_NAME UID GID

TCP on 127.0.0.1 (plain connect, Fast Open and MPTCP all reach it: MPTCP
falls back to TCP), UDP on 127.0.0.1 and on [::1], a pathname AF_UNIX socket
like ssh-agent's (in a 0700 directory of UID's) and an abstract one. Writes
`TCP UDP4 UDP6` (the ports; UDP6 0 when this machine has no IPv6 loopback,
with the reason in DIR/udp6-why) to DIR/ports once all listen, then one line
to DIR/arrived for everything that reaches them, until SIGTERM."""
import os
import select
import signal
import socket
import sys

out, unix_path, abstract, uid, gid = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
log = open(os.path.join(out, "arrived"), "a", buffering=1)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))

tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
tcp.bind(("127.0.0.1", 0))
tcp.listen(16)
udp4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
udp4.bind(("127.0.0.1", 0))
udp6 = None
try:
    udp6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    udp6.bind(("::1", 0))
except OSError as e:
    udp6 = None
    open(os.path.join(out, "udp6-why"), "w").write(str(e) + "\n")
# the socket's directory and the socket belong to the user who grades
os.makedirs(os.path.dirname(unix_path), mode=0o700, exist_ok=True)
unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
unix.bind(unix_path)
unix.listen(16)
os.chown(os.path.dirname(unix_path), uid, gid)
os.chown(unix_path, uid, gid)
os.chmod(unix_path, 0o600)
abstract_sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
abstract_sock.bind("\0" + abstract)
abstract_sock.listen(16)

listening = {tcp: "tcp 127.0.0.1", unix: "unix " + unix_path, abstract_sock: "unix @" + abstract}
datagrams = {udp4: "udp 127.0.0.1"}
if udp6:
    datagrams[udp6] = "udp [::1]"
with open(os.path.join(out, "ports.tmp"), "w") as f:
    f.write("%d %d %d\n" % (tcp.getsockname()[1], udp4.getsockname()[1], udp6.getsockname()[1] if udp6 else 0))
os.rename(os.path.join(out, "ports.tmp"), os.path.join(out, "ports"))

conns = {}
while True:
    ready, _, _ = select.select(list(listening) + list(datagrams) + list(conns), [], [])
    for s in ready:
        if s in listening:
            c, _ = s.accept()
            conns[c] = listening[s]
            log.write("%s: a connection\n" % listening[s])
        elif s in datagrams:
            data = s.recv(4096)
            log.write("%s: a datagram: %r\n" % (datagrams[s], data))
        else:
            data = s.recv(4096)
            if data:
                log.write("%s: data: %r\n" % (conns[s], data))
            else:
                s.close()
                del conns[s]
