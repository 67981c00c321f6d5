# SPDX-License-Identifier: GPL-2.0
"""Fault injection against the real scripts, on the trees a matrix run left
in the cache (so "make test" runs these after the matrix). Each fault must
end in one clear line or a per-cell status, never touch the host kernel,
and leave the cache usable.

Run: cd matrix && python3 -m unittest discover -s tests -t . -p 'faults_*.py'
"""

import argparse
import dataclasses
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from typing import Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
MATRIX = os.path.dirname(HERE)
ROOT = os.path.dirname(MATRIX)
sys.path.insert(0, MATRIX)
from zsp import settings  # noqa: E402
from zsp.settings import Settings  # noqa: E402
from zsp.testrun import SETTINGS_ENV  # noqa: E402

ZSP = [sys.executable, '-m', 'zsp']


def run_settings() -> Settings:
	"""The settings of the run (make test passes its flags, as a shell
	line, in ZSP_TEST_SETTINGS: unittest has no argv of its own), else
	zsp's defaults. Every cell these tests start must really build and
	boot (zsp/cache.py): --fresh."""
	p = argparse.ArgumentParser()
	settings.add_arguments(p)
	s = settings.from_args(p.parse_args(shlex.split(os.environ.get(SETTINGS_ENV, ''))))
	return dataclasses.replace(s, fresh=True)


RUN_SETTINGS = run_settings()
SETTINGS = settings.argv(RUN_SETTINGS)
CACHE = RUN_SETTINGS.cache
PATCHED = os.path.join(CACHE, 'src', 'patched')


def zsp(command: str, *argv: str) -> List[str]:
	"""A zsp command ('run', or 'internal cell' for the plumbing) with the
	run's settings; flags in argv override them."""
	return ZSP + command.split() + SETTINGS + list(argv)


os.environ['PYTHONPATH'] = MATRIX


def run(cmd: List[str], env: Dict[str, str] = None, timeout: float = 600,
	**kw) -> subprocess.CompletedProcess:
	return subprocess.run(cmd, env=dict(os.environ, **(env or {})), text=True,
			      capture_output=True, timeout=timeout, **kw)


def error_lines(text: str) -> List[str]:
	return [l for l in text.splitlines() if l.startswith('error:') or '***' in l]


def qemu_running(kernel_part: str) -> bool:
	out = run(['pgrep', '-f', f'qemu-system-x86_64.*{kernel_part}'])
	return bool(out.stdout.strip())


@unittest.skipUnless(os.path.isdir(os.path.join(PATCHED, '.git')),
		     'needs the patched tree of a matrix run')
class BadInput(unittest.TestCase):

	def make(self, *args: str) -> subprocess.CompletedProcess:
		return run(['make', '-s', '-C', ROOT] + list(args))

	def one_line(self, r: subprocess.CompletedProcess, text: str) -> None:
		self.assertNotEqual(r.returncode, 0)
		lines = [l for l in (r.stdout + r.stderr).splitlines() if l.strip()]
		self.assertEqual(len(lines), 1, lines)
		self.assertIn(text, lines[0])

	def test_unknown_alloc(self) -> None:
		self.one_line(self.make('run', 'ALLOC=slob2'), "unknown ALLOC 'slob2'")

	def test_unknown_tree(self) -> None:
		self.one_line(self.make('run', 'TREE=stable'), "unknown TREE 'stable'")

	def test_bisect_needs_one_alloc(self) -> None:
		self.one_line(self.make('bisect'), 'needs one ALLOC=')

	def test_host_module_targets_refused(self) -> None:
		for target in ('insmod', 'modprobe', 'modules_install'):
			self.one_line(self.make(target), 'only in QEMU guests')

	def test_unknown_case(self) -> None:
		r = run(zsp('bisect', tempfile.mkdtemp(), '--alloc', 'slub',
			    '--case', 'z9_nonsense'))
		self.assertNotEqual(r.returncode, 0)
		self.assertIn("unknown CASE 'z9_nonsense'", error_lines(r.stderr)[0])

	def test_good_that_does_not_exist(self) -> None:
		r = run(zsp('bisect', tempfile.mkdtemp(), '--alloc', 'slub',
			    '--good', 'no-such-patch.patch'))
		self.assertNotEqual(r.returncode, 0)
		self.assertIn("'no-such-patch.patch' is neither a patch", error_lines(r.stderr)[-1])

	def test_missing_tarball(self) -> None:
		with tempfile.TemporaryDirectory() as cache:
			r = run(ZSP + ['internal', 'tree', 'vanilla', '--cache', cache,
				       '--tarball', '/nonexistent.tar.xz'])
		self.assertNotEqual(r.returncode, 0)
		self.assertEqual(error_lines(r.stderr),
				 ['error: /nonexistent.tar.xz is missing; install it: '
				  'apt-get install linux-source-6.1'])

	@unittest.skipUnless(os.getuid() == 0 and shutil.which('setpriv'), 'needs root and setpriv')
	def test_missing_package_as_non_root(self) -> None:
		r = run(['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups',
			 os.path.join(MATRIX, 'deps.sh'), 'zsp-no-such-package'],
			env={'HOME': '/tmp'})
		self.assertNotEqual(r.returncode, 0)
		self.assertEqual(error_lines(r.stderr),
				 ['error: missing packages; run: sudo apt-get install -y '
				  'zsp-no-such-package'])


@unittest.skipUnless(os.path.isdir(os.path.join(PATCHED, '.git')),
		     'needs the patched tree of a matrix run')
class BadSeriesAndConfig(unittest.TestCase):

	def setUp(self) -> None:
		self.tmp = tempfile.mkdtemp()
		shutil.copytree(RUN_SETTINGS.patches, os.path.join(self.tmp, 'patches'))
		self.patches = os.path.join(self.tmp, 'patches')
		with open(os.path.join(self.patches, 'series')) as f:
			self.slub = next(l.strip() for l in f if l.startswith('slub/'))

	def tearDown(self) -> None:
		shutil.rmtree(self.tmp)

	def edit_slub_patch(self, old: str, new: str) -> None:
		path = os.path.join(self.patches, self.slub)
		with open(path) as f:
			text = f.read()
		self.assertIn(old, text)
		with open(path, 'w') as f:
			f.write(text.replace(old, new, 1))

	def test_patch_that_does_not_apply(self) -> None:
		head = run(['git', '-C', PATCHED, 'rev-parse', 'HEAD']).stdout
		# Context that is not in mm/slub.c.
		self.edit_slub_patch(' void kmem_cache_free(struct kmem_cache *s, void *x)',
				     ' void kmem_cache_free(struct kmem_cache *s, void *object)')
		r = run(zsp('internal tree', 'patched', '--patches', self.patches))
		self.assertNotEqual(r.returncode, 0)
		errs = error_lines(r.stderr)
		self.assertEqual(len(errs), 1, errs)
		self.assertIn(f'patch {self.slub} does not apply to mm/slub.c', errs[0])
		# Checked on a scratch index: the tree was not touched.
		self.assertEqual(run(['git', '-C', PATCHED, 'rev-parse', 'HEAD']).stdout, head)
		self.assertEqual(run(['git', '-C', PATCHED, 'status', '--porcelain',
				      '--untracked-files=no']).stdout, '')

	def test_dropped_config_option(self) -> None:
		configs = os.path.join(self.tmp, 'configs')
		shutil.copytree(os.path.join(ROOT, 'configs'), configs)
		with open(os.path.join(configs, 'slab.config'), 'a') as f:
			f.write('CONFIG_SLUB_KUNIT_TEST=m\n')	# needs SLUB
		r = run(zsp('internal step', 'config', '--tree', 'vanilla', '--alloc', 'slab',
			    '--configs', configs, '--obj-prefix', 'o-faulttest-'))
		shutil.rmtree(os.path.join(CACHE, 'src', 'vanilla', 'o-faulttest-slab'),
			      ignore_errors=True)
		self.assertNotEqual(r.returncode, 0)
		self.assertEqual(len(error_lines(r.stderr)), 1)
		self.assertIn('olddefconfig dropped or changed: CONFIG_SLUB_KUNIT_TEST=m',
			      r.stderr)

	def test_build_failure_is_the_cells_error(self) -> None:
		self.edit_slub_patch('+\t/* Like kfree(): NULL and ZERO_SIZE_PTR own no slab memory. */',
				     '+\tthis is not C;')
		out = os.path.join(self.tmp, 'run')
		r = run(zsp('run', out, '--trees', 'patched', '--allocs', 'slub slab',
			    '--patches', self.patches), timeout=1800)
		self.assertNotEqual(r.returncode, 0)
		with open(os.path.join(out, 'patched-slub', 'error')) as f:
			err = f.read()
		self.assertRegex(err, r'^build of patched/slub failed: .*mm/slub\.c:\d+.*error: .*log: ')
		# The other allocator still ran.
		self.assertTrue(os.path.exists(os.path.join(out, 'patched-slab', 'cell.json')))
		with open(os.path.join(out, 'table.txt')) as f:
			self.assertRegex(f.read(), r'cell\.build_and_boot\s+-?\s*ERROR')


@unittest.skipUnless(os.path.exists(os.path.join(PATCHED, 'o-slab', 'zsp-initramfs.cpio')),
		     'needs the built patched-slab cell of a matrix run')
class Interrupted(unittest.TestCase):

	def start_cell(self, out: str) -> subprocess.Popen:
		return subprocess.Popen(zsp('internal cell', '--tree', 'patched', '--alloc', 'slab',
					    '--out', out),
					stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
					start_new_session=True)

	def wait_for(self, path: str, timeout: float = 300) -> None:
		end = time.monotonic() + timeout
		while not os.path.exists(path):
			self.assertLess(time.monotonic(), end, f'{path} never appeared')
			time.sleep(0.2)

	def test_sigterm_mid_boot(self) -> None:
		out = tempfile.mkdtemp()
		p = self.start_cell(out)
		self.wait_for(os.path.join(out, 'boot-1.log'))
		# A patched guest runs ~5 s: stop it while the kernel still boots.
		time.sleep(0.5)
		os.killpg(p.pid, signal.SIGTERM)
		p.wait(60)
		time.sleep(1)
		self.assertFalse(qemu_running('patched/o-slab'), 'QEMU left running')
		self.assertEqual([f for f in os.listdir(out) if f.endswith('.tmp')], [])
		self.assertFalse(os.path.exists(os.path.join(out, 'cell.json')))
		# The next run works without make clean.
		r = run(zsp('internal cell', '--tree', 'patched', '--alloc', 'slab', '--out', out),
			timeout=900)
		self.assertEqual(r.returncode, 0, r.stderr[-500:])
		self.assertTrue(os.path.exists(os.path.join(out, 'cell.json')))

	def test_sigterm_mid_build(self) -> None:
		out = tempfile.mkdtemp()
		os.utime(os.path.join(PATCHED, 'mm', 'slab_common.c'))
		p = self.start_cell(out)
		self.wait_for(os.path.join(out, 'build.log'))
		time.sleep(3)
		os.killpg(p.pid, signal.SIGTERM)
		p.wait(60)
		r = run(zsp('internal step', 'kernel', '--tree', 'patched', '--alloc', 'slab',
			    '--log', os.path.join(out, 'build2.log')), timeout=1800)
		self.assertEqual(r.returncode, 0, r.stderr[-500:])

	def test_two_runs_at_once(self) -> None:
		out = tempfile.mkdtemp()
		first = subprocess.Popen(zsp('run', out + '/a', '--trees', 'patched',
					     '--allocs', 'slab'),
					 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
					 start_new_session=True)
		try:
			self.wait_for(os.path.join(out, 'a', 'patched-slab'))
			r = run(zsp('run', out + '/b', '--trees', 'patched', '--allocs', 'slab'))
			self.assertNotEqual(r.returncode, 0)
			errs = error_lines(r.stderr)
			self.assertEqual(len(errs), 1, errs)
			self.assertIn('another run holds', errs[0])
		finally:
			os.killpg(first.pid, signal.SIGTERM)
			first.wait(60)


@unittest.skipUnless(os.path.exists(os.path.join(PATCHED, 'tools/testing/kunit/kunit.py')),
		     'needs the kernel tree for kunit.py')
class GarbageConsole(unittest.TestCase):
	"""python3 -m zsp internal boot-cell with a fake QEMU whose console carries broken KTAP."""

	def run_cell(self, console: List[str]) -> dict:
		import json
		tmp = tempfile.mkdtemp()
		os.symlink(os.path.join(HERE, 'fake_qemu.py'), os.path.join(tmp, 'qemu-system-x86_64'))
		with open(os.path.join(tmp, 'console'), 'w') as f:
			f.write('\n'.join(console) + '\n')
		base = os.path.join(tmp, 'base.cpio')
		open(base, 'wb').close()
		gen = os.path.join(tmp, 'gen_init_cpio')
		with open(gen, 'w') as f:
			f.write('#!/bin/sh\nprintf plan\n')
		os.chmod(gen, 0o755)
		out = os.path.join(tmp, 'out')
		r = run(ZSP + ['internal', 'boot-cell', '--tree', 'patched',
			 '--alloc', 'slab', '--kernel', 'k', '--initrd', base,
			 '--gen-init-cpio', gen, '--kunit-tool',
			 os.path.join(PATCHED, 'tools/testing/kunit/kunit.py'),
			 '--modules', 'zero_size_test', '--out', out, '--silence', '3',
			 '--max-boots', '3'],
			env={'PATH': tmp + ':' + os.environ['PATH'], 'PYTHONPATH': MATRIX,
			     'FAKE_QEMU_PID': os.path.join(tmp, 'pid'),
			     'FAKE_QEMU_CONSOLE': os.path.join(tmp, 'console'),
			     'FAKE_QEMU_END': 'hang'})
		self.assertEqual(r.returncode, 0, r.stderr)
		with open(os.path.join(out, 'cell.json')) as f:
			return json.load(f)

	def test_garbage_ktap_is_an_error_not_a_pass(self) -> None:
		cell = self.run_cell(['zsp-harness: begin zero_size_test', 'KTAP version 1',
				      '1..7', '  garbage \x00\x7f line', 'ok ok ok',
				      'zsp-harness: end zero_size_test rc=0', 'zsp-harness: done',
				      'reboot: Power down'])
		statuses = {c['case']: c['status'] for c in cell['cases']}
		self.assertNotIn('pass', statuses.values())
		self.assertEqual(statuses.get('zero_size_test'), 'error')

	def test_truncated_ktap_then_silence_is_a_hang(self) -> None:
		cell = self.run_cell(['zsp-harness: begin zero_size_test', 'KTAP version 1',
				      '1..1', '    KTAP version 1', '    # Subtest: zero_size_free',
				      '    1..2', '    # z2_kfree: zsp-start', '    ok 1 z2_kfree',
				      '    # z2_kvfree: zsp-start'])
		statuses = {c['case']: c['status'] for c in cell['cases']}
		self.assertEqual(statuses['z2_kfree'], 'pass')
		self.assertEqual(statuses['z2_kvfree'], 'hang')


if __name__ == '__main__':
	unittest.main()
