#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A stand-in for qemu-system-x86_64 in the harness self-tests.

Writes its pid to $FAKE_QEMU_PID, prints $FAKE_QEMU_CONSOLE line by line,
then acts out $FAKE_QEMU_END: "exit" (status 0), "fail" (status 1 at
once, nothing printed), or "hang" (stays silent until killed).
"""

import os
import sys
import time

with open(os.environ['FAKE_QEMU_PID'], 'w') as f:
	f.write(str(os.getpid()))
end = os.environ.get('FAKE_QEMU_END', 'exit')
if end == 'fail':
	print('qemu-system-x86_64: -kernel bzImage: could not open kernel file', file=sys.stderr)
	sys.exit(1)
with open(os.environ['FAKE_QEMU_CONSOLE']) as f:
	for line in f:
		sys.stdout.write(line)
		sys.stdout.flush()
		time.sleep(0.01)
if end == 'hang':
	while True:
		time.sleep(1)
sys.exit(0)
