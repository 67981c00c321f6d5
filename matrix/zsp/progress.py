# SPDX-License-Identifier: GPL-2.0
"""Progress lines on stderr, "[  Ns] message", counted from the run's
start, which every process of a run shares (ZSP_T0, set by lib.sh or the
first zsp process), as lib.sh's log() prints them."""

import os
import sys
import time

T0 = float(os.environ.setdefault('ZSP_T0', str(int(time.time()))))


def log(msg: str) -> None:
	print(f'[{int(time.time() - T0):4d}s] {msg}', file=sys.stderr, flush=True)
