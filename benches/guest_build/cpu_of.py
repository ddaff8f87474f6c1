#!/usr/bin/env python3
"""cpu_of.py OUTFILE CMD...: run CMD (stdout/stderr passed through), write the child's user+sys
CPU seconds (getrusage via wait4, microsecond resolution) to OUTFILE; exit with its status."""
import os, sys
out, cmd = sys.argv[1], sys.argv[2:]
pid = os.fork()
if pid == 0:
    os.execvp(cmd[0], cmd)
_, status, ru = os.wait4(pid, 0)
with open(out, "w") as f:
    f.write(f"CPU {ru.ru_utime + ru.ru_stime:.6f}\n")
sys.exit(os.waitstatus_to_exitcode(status))
