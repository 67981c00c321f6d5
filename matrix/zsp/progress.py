# SPDX-License-Identifier: GPL-2.0
""""[  Ns] ..." progress lines, and the live object count of a kernel build.

Progress lines on stderr, "[  Ns] message", counted from the run's
start, which every process of a run shares (ZSP_T0, set by lib.sh or the
first zsp process), as lib.sh's log() prints them; and the live count of
a kernel build's objects, so that minutes of kbuild are not minutes of
silence."""

import os
import re
import sys
import threading
import time
from typing import Optional

T0 = float(os.environ.setdefault('ZSP_T0', str(int(time.time()))))
# kbuild's quiet lines for an object it compiles or assembles.
COMPILED = re.compile(r'^\s+(CC|CC \[M\]|AS|AS \[M\])\s', re.M)
# How often a build's progress is printed (and its log read).
EVERY_S = 30.0


def log(msg: str) -> None:
	print(f'[{int(time.time() - T0):4d}s] {msg}', file=sys.stderr, flush=True)


def compiled(log_file: str) -> int:
	"""Objects compiled so far, from kbuild's log."""
	try:
		with open(log_file, errors='replace') as f:
			return len(COMPILED.findall(f.read()))
	except FileNotFoundError:
		return 0


class BuildProgress:
	"""with BuildProgress(name, log_file, total): every EVERY_S, while
	kbuild writes log_file, "name: kernel N/TOTAL objects (P%), Ms" (or
	"N objects" with no total to go by: the first build of its kind)."""

	def __init__(self, name: str, log_file: str, total: Optional[int],
		     every: float = EVERY_S) -> None:
		self.name, self.log_file, self.total, self.every = name, log_file, total, every
		self.done = threading.Event()
		self.thread = threading.Thread(target=self._watch, daemon=True)
		self.t0 = time.monotonic()

	def line(self, n: int) -> str:
		secs = int(time.monotonic() - self.t0)
		if self.total:
			pct = min(100, 100 * n // self.total)
			return f'{self.name}: kernel {n}/~{self.total} objects ({pct}%), {secs}s'
		return f'{self.name}: kernel {n} objects, {secs}s'

	def _watch(self) -> None:
		last = -1
		while not self.done.wait(self.every):
			n = compiled(self.log_file)
			if n != last:
				log(self.line(n))
				last = n

	def __enter__(self) -> 'BuildProgress':
		self.thread.start()
		return self

	def __exit__(self, *exc: object) -> None:
		self.done.set()
		self.thread.join()
