#!/usr/bin/env python3
"""Hostile connections against a daemon (issue 25, #6): 8 connections that
announce a 64 MiB frame and send 1 KB of it, then 100 that send nothing.
Usage: probe-hostile.py PORT HOST. Watch the daemon's VmRSS meanwhile
(grep VmRSS /proc/PID/status); the connections are held 7 s."""
import socket, struct, sys, time

port, host = int(sys.argv[1]), sys.argv[2]
conns = []
for _ in range(8):
    s = socket.create_connection((host, port))
    s.sendall(struct.pack(">I", 64 << 20) + b"x" * 1000)
    conns.append(s)
for i in range(100):
    try:
        conns.append(socket.create_connection((host, port)))
    except OSError as e:
        print("connection", i, "refused:", e)
        break
print("open", len(conns), flush=True)
time.sleep(7)
