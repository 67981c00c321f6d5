# SPDX-License-Identifier: GPL-2.0
"""Locks and interrupts: a finished, failed or interrupted run has released
its locks when it returns, and a rerun right after works, with no delay.

The runs are the real pipeline (zsp run, with a fake kernel tarball: the
tree and config steps) and the real boot loop (zsp internal boot-cell, with a fake
QEMU). The
fake tree's Makefile leaves a daemon behind on "make kernelversion", as
git's auto gc did after the patched tree's first commit: a lock a child
inherits would outlive the run in it.
"""

import os
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest
from typing import Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
MATRIX = os.path.dirname(HERE)
BUSY = 'another run holds'

# "make kernelversion" leaves a daemon behind; any other target fails, or,
# while $ZSP_TEST_HANG names a file that does not exist yet, creates it and
# hangs (the build an interrupt lands in).
FAKE_MAKEFILE = '''\
kernelversion:
\t@setsid sh -c 'echo $$$$ >>"$(ZSP_TEST_DAEMONS)"; exec sleep 120' </dev/null >/dev/null 2>&1 &
\t@echo 6.1.0
%:
\t@if [ -n "$(ZSP_TEST_HANG)" ] && [ ! -e "$(ZSP_TEST_HANG)" ]; then \\
\t\ttouch "$(ZSP_TEST_HANG)"; sleep 120; fi; exit 1
'''


def wait_for(path: str, timeout: float = 30) -> None:
	end = time.monotonic() + timeout
	while not os.path.exists(path):
		if time.monotonic() > end:
			raise AssertionError(f'{path} did not appear in {timeout} s')
		time.sleep(0.05)


def ctrl_c_as_in_a_terminal() -> None:
	"""A command started from a background job (nohup, "make test &")
	inherits SIGINT ignored, and Python then installs no handler for it:
	the command the interrupt tests start gets SIGINT as an interactive
	shell would give it, however make test itself was started."""
	signal.signal(signal.SIGINT, signal.SIG_DFL)


def alive(pid: int) -> bool:
	try:
		with open(f'/proc/{pid}/stat') as f:
			return f.read().split()[2] != 'Z'
	except FileNotFoundError:
		return False


class LockTest(unittest.TestCase):

	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.dir = self.tmp.name
		self.cache = os.path.join(self.dir, 'cache')
		self.daemons = os.path.join(self.dir, 'daemons')
		self.hang = os.path.join(self.dir, 'hanging')
		self.flags = ['--cache', self.cache]
		self.env: Dict[str, str] = dict(os.environ, PYTHONPATH=MATRIX,
						ZSP_TEST_DAEMONS=self.daemons)
		self.env.pop('ZSP_LOCKS', None)

	def tearDown(self) -> None:
		if os.path.exists(self.daemons):
			with open(self.daemons) as f:
				for pid in f.read().split():
					try:
						os.kill(int(pid), signal.SIGKILL)
					except ProcessLookupError:
						pass
		self.tmp.cleanup()

	def fake_tree(self) -> None:
		"""A tarball of a "kernel" with FAKE_MAKEFILE, and a series whose
		one patch does not apply."""
		src = os.path.join(self.dir, 'linux')
		os.makedirs(src)
		with open(os.path.join(src, 'Makefile'), 'w') as f:
			f.write(FAKE_MAKEFILE)
		tarball = os.path.join(self.dir, 'linux.tar.xz')
		with tarfile.open(tarball, 'w:xz') as t:
			t.add(src, arcname='linux')
		patches = os.path.join(self.dir, 'patches')
		os.makedirs(patches)
		with open(os.path.join(patches, 'series'), 'w') as f:
			f.write('0001-broken.patch\n')
		with open(os.path.join(patches, '0001-broken.patch'), 'w') as f:
			f.write('From: a <a@b>\nSubject: [PATCH] x: y\n\n---\n'
				'--- a/nonexistent.c\n+++ b/nonexistent.c\n@@ -1 +1 @@\n-a\n+b\n')
		self.flags += ['--tarball', tarball, '--patches', patches]

	def run_zsp(self, name: str) -> subprocess.Popen[str]:
		return subprocess.Popen([sys.executable, '-m', 'zsp', 'run',
					 os.path.join(self.dir, 'results', name),
					 '--trees', 'vanilla patched', '--allocs', 'slub'] + self.flags,
					env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
					text=True, start_new_session=True,
					preexec_fn=ctrl_c_as_in_a_terminal)

	def locked(self, cmd: List[str]) -> subprocess.CompletedProcess[str]:
		return subprocess.run([sys.executable, '-m', 'zsp', 'internal', 'locked', '--cache', self.cache,
				       '--lock', 'src-vanilla', '--lock', 'src-patched', '--'] + cmd,
				      env=self.env, capture_output=True, text=True, timeout=60)

	def assert_rerun_works(self) -> None:
		"""Right after: the same locks are free, and a whole run gets them."""
		r = self.locked(['true'])
		self.assertEqual(r.returncode, 0, r.stderr)
		p = self.run_zsp('rerun')
		out, err = p.communicate(timeout=120)
		self.assertNotIn(BUSY, err)
		# It ran to its table (every cell an error: the tree is fake).
		self.assertIn('run rerun:', out, err)

	def test_finished_then_rerun(self) -> None:
		self.assertEqual(self.locked(['true']).returncode, 0)
		self.assertEqual(self.locked(['true']).returncode, 0)

	def test_busy_lock_refused_in_one_line(self) -> None:
		r = self.locked(['sh', '-c', f'{sys.executable} -m zsp internal locked --cache {self.cache} '
				 '--lock src-vanilla -- true'])
		self.assertEqual(r.returncode, 1)
		self.assertEqual(r.stderr.splitlines(),
				 [f"error: {BUSY} {self.cache}/locks/src-vanilla.lock; "
				  'wait for it to finish'])

	def test_nested_script_keeps_its_callers_locks(self) -> None:
		r = self.locked(['sh', '-c', 'echo "$ZSP_LOCKS"'])
		self.assertEqual(r.stdout.split(), ['src-vanilla', 'src-patched'])

	def test_failed_tree_then_rerun(self) -> None:
		self.fake_tree()
		p = self.run_zsp('failed')
		out, err = p.communicate(timeout=120)
		self.assertIn('patch 0001-broken.patch does not apply', err)
		wait_for(self.daemons)
		self.assert_rerun_works()

	def test_sigint_mid_build_then_rerun(self) -> None:
		self.fake_tree()
		self.env['ZSP_TEST_HANG'] = self.hang
		p = self.run_zsp('interrupted')
		wait_for(self.hang, 60)
		# Ctrl-C: the whole process group.
		os.killpg(p.pid, signal.SIGINT)
		p.communicate(timeout=30)
		self.assertNotEqual(p.returncode, 0)
		self.assert_rerun_works()

	def test_sigint_mid_boot_then_rerun(self) -> None:
		qemu = os.path.join(self.dir, 'qemu-system-x86_64')
		os.symlink(os.path.join(HERE, 'fake_qemu.py'), qemu)
		console = os.path.join(self.dir, 'console')
		with open(console, 'w') as f:
			f.write('booting\n')
		gen = os.path.join(self.dir, 'gen_init_cpio')
		with open(gen, 'w') as f:
			f.write('#!/bin/sh\nprintf plan\n')
		os.chmod(gen, 0o755)
		base = os.path.join(self.dir, 'base.cpio')
		open(base, 'wb').close()
		pidfile = os.path.join(self.dir, 'qemu.pid')
		self.env.update(PATH=self.dir + ':' + os.environ['PATH'], FAKE_QEMU_PID=pidfile,
				FAKE_QEMU_CONSOLE=console, FAKE_QEMU_END='hang')
		p = subprocess.Popen(
			[sys.executable, '-m', 'zsp', 'internal', 'locked', '--cache', self.cache,
			 '--lock', 'src-vanilla', '--lock', 'src-patched', '--',
			 sys.executable, '-m', 'zsp', 'internal', 'boot-cell', '--tree', 'patched',
			 '--alloc', 'slub', '--kernel', 'k', '--initrd', base, '--gen-init-cpio', gen,
			 '--kunit-tool', 'kunit.py', '--modules', 'zero_size_test',
			 '--out', os.path.join(self.dir, 'cell'), '--silence', '60'],
			env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
			start_new_session=True, preexec_fn=ctrl_c_as_in_a_terminal)
		wait_for(pidfile)
		while not os.path.getsize(pidfile):
			time.sleep(0.05)
		with open(pidfile) as f:
			guest = int(f.read())
		os.killpg(p.pid, signal.SIGINT)
		p.communicate(timeout=30)
		self.assertNotEqual(p.returncode, 0)
		self.assertFalse(alive(guest), 'QEMU left running')
		r = self.locked(['true'])
		self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == '__main__':
	unittest.main()
