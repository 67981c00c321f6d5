# SPDX-License-Identifier: GPL-2.0
"""The cache's locks: two runs on one tree would corrupt each other.

A lock is flock(2) on CACHE/locks/NAME.lock, taken by this process on a
descriptor no child inherits (Python opens files close-on-exec). A lock
held by a shell's "exec {fd}>" was inherited by every child instead, and
a daemon a child left behind (git's auto gc, detached after the patched
tree's first commit) kept it after the run had ended: the next run was
refused. Here the lock ends with this process, and this process ends
after its command: a finished, failed or interrupted run has released
its locks before its make returns.
"""

import fcntl
import os
import signal
import subprocess
from contextlib import contextmanager
from types import FrameType
from typing import Iterator, List, Optional

from .errors import LockBusy

# The locks a command runs under, for the scripts it calls: a nested
# script does not take a lock its caller holds for it.
HELD_ENV = 'ZSP_LOCKS'


def lock_path(cache: str, name: str) -> str:
	return os.path.join(cache, 'locks', name + '.lock')


@contextmanager
def held(cache: str, names: List[str]) -> Iterator[None]:
	"""Takes every lock or none; raises LockBusy naming the held one."""
	os.makedirs(os.path.join(cache, 'locks'), exist_ok=True)
	fds: List[int] = []
	try:
		for name in names:
			path = lock_path(cache, name)
			fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
			fds.append(fd)
			try:
				fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
			except BlockingIOError:
				raise LockBusy(f'another run holds {path}; '
					       'wait for it to finish') from None
		yield
	finally:
		for fd in fds:
			os.close(fd)


def to_take(names: List[str]) -> List[str]:
	"""The names a caller (run_locked, up the process tree) does not
	already hold for us."""
	by_caller = os.environ.get(HELD_ENV, '').split()
	return [n for n in names if n not in by_caller]


def run_locked(cache: str, names: List[str], cmd: List[str]) -> int:
	"""Runs cmd under the locks; returns its exit status (128 + signal
	when a signal ended it). SIGINT, SIGTERM and SIGHUP are passed on to
	the command, and the locks are released only once it has ended."""
	held_now = os.environ.get(HELD_ENV, '').split()
	env = dict(os.environ, **{HELD_ENV: ' '.join(held_now + names)})
	with held(cache, names):
		child = subprocess.Popen(cmd, env=env)

		def forward(signum: int, _frame: Optional[FrameType]) -> None:
			child.send_signal(signum)

		for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
			signal.signal(s, forward)
		rc = child.wait()
	return 128 - rc if rc < 0 else rc
