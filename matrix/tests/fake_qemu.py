#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A stand-in for qemu-system-x86_64 in the harness self-tests.

Writes its pid to $FAKE_QEMU_PID, prints $FAKE_QEMU_CONSOLE line by line,
then acts out $FAKE_QEMU_END: "exit" (status 0, as QEMU quitting on its
own), "fail" (status 1 at once, nothing printed), "status" (status 1 after
the console), "killed" (SIGKILL after the console, as the OOM killer
would), "triple" (status 0 after logging a triple fault to -D's file, as
TCG does with -d cpu_reset), or "hang" (stays silent until killed).

Both may be comma-separated lists, one entry per boot (the last one
repeats), for a cell that boots more than once; boots are counted in
$FAKE_QEMU_PID.count.

A console line "FAKE_QEMU_SLEEP <seconds>" is not printed: the guest
goes quiet that long instead, as a slow case does.
"""

import os
import signal
import sys
import time


def this_boot(env: str, default: str, n: int) -> str:
	items = os.environ.get(env, default).split(',')
	return items[min(n, len(items) - 1)]


pidfile = os.environ['FAKE_QEMU_PID']
with open(pidfile, 'w') as f:
	f.write(str(os.getpid()))
try:
	with open(pidfile + '.count') as f:
		n = int(f.read())
except (OSError, ValueError):
	n = 0
with open(pidfile + '.count', 'w') as f:
	f.write(str(n + 1))
end = this_boot('FAKE_QEMU_END', 'exit', n)
if end == 'fail':
	print('qemu-system-x86_64: -kernel bzImage: could not open kernel file', file=sys.stderr)
	sys.exit(1)
with open(this_boot('FAKE_QEMU_CONSOLE', '', n)) as f:
	for line in f:
		if line.startswith('FAKE_QEMU_SLEEP '):
			time.sleep(float(line.split()[1]))
			continue
		sys.stdout.write(line)
		sys.stdout.flush()
		time.sleep(float(os.environ.get('FAKE_QEMU_DELAY', '0.01')))
if end == 'hang':
	while True:
		time.sleep(1)
if end == 'triple' and '-D' in sys.argv:
	with open(sys.argv[sys.argv.index('-D') + 1], 'w') as f:
		f.write('CPU Reset (CPU 0)\nTriple fault\nCPU Reset (CPU 0)\n')
if end == 'killed':
	os.kill(os.getpid(), signal.SIGKILL)
sys.exit(1 if end == 'status' else 0)
