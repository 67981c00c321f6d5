# SPDX-License-Identifier: GPL-2.0
"""cache.py: which inputs key a cell's results, and which results are kept."""

import ast
import contextlib
import dataclasses
import io
import json
import os
import tempfile
import unittest
from unittest import mock

from zsp import cache, qemu, results, runner


def boot(outcome: str, reason: str = '') -> dict:
	return {'boot': 1, 'log': '/old/boot-1.log', 'outcome': outcome,
		'reason': reason, 'seconds': 1.0}


def case(status: str) -> dict:
	return {'suite': 's', 'case': 'c', 'status': status, 'detail': '', 'boot': 1}


class KeyTest(unittest.TestCase):

	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		d = self.tmp.name
		self.kernel, self.initrd = os.path.join(d, 'bzImage'), os.path.join(d, 'cpio')
		self.tool = os.path.join(d, 'kunit', 'kunit.py')
		os.makedirs(os.path.dirname(self.tool))
		for path in (self.kernel, self.initrd, self.tool):
			with open(path, 'w') as f:
				f.write('v1')

	def tearDown(self) -> None:
		self.tmp.cleanup()

	def key(self, modules: str = 'zero_size_test', timeout: float = 300,
		qemu_version: str = 'QEMU emulator version 7.2.22', accel: str = 'tcg') -> str:
		return cache.key(self.kernel, self.initrd, self.tool, modules, timeout, 30,
				 qemu_version=qemu_version, accel=accel)

	def test_same_inputs_same_key(self) -> None:
		self.assertEqual(self.key(), self.key())

	def test_the_emulator_counts(self) -> None:
		"""A result booted under TCG is no result under KVM, which runs a
		guest many times faster against the same limits, nor under another
		QEMU: keys differing only in those must differ."""
		before = self.key()
		self.assertNotEqual(self.key(qemu_version='QEMU emulator version 8.2.2'), before)
		self.assertNotEqual(self.key(accel='kvm'), before)

	def test_harness_is_the_boot_path(self) -> None:
		"""A module the boots import and HARNESS lacks would reuse results
		its change may have altered."""
		here = os.path.dirname(os.path.abspath(cache.__file__))
		seen, todo = set(), ['runner.py']
		while todo:
			name = todo.pop()
			seen.add(name)
			with open(os.path.join(here, name)) as f:
				tree = ast.parse(f.read())
			for node in ast.walk(tree):
				if isinstance(node, ast.ImportFrom) and node.level == 1:
					mods = [node.module] if node.module else [a.name for a in node.names]
					todo += [f'{m}.py' for m in mods if f'{m}.py' not in seen]
		self.assertEqual(seen - {'axes.py'}, set(cache.HARNESS))

	def test_every_input_counts(self) -> None:
		before = self.key()
		self.assertNotEqual(self.key(modules='test_meminit zero_size_test'), before)
		self.assertNotEqual(self.key(timeout=10), before)
		for path in (self.kernel, self.initrd, self.tool):
			with open(path, 'w') as f:
				f.write('v2')
			self.assertNotEqual(self.key(), before, path)
			before = self.key()


class CellKeyTest(unittest.TestCase):
	"""runner.cache_key: a cell's key is of the QEMU and the accelerator
	its boots get (qemu.accelerator(), qemu.version()), not only of what
	the caller passes."""

	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.addCleanup(self.tmp.cleanup)
		paths = [os.path.join(self.tmp.name, n) for n in ('bzImage', 'cpio', 'kunit.py')]
		for path in paths:
			with open(path, 'w') as f:
				f.write('v1')
		self.req = runner.BootRequest(
			kernel_version='6.1', profile='tiny', tree='patched', alloc='slub',
			kernel=paths[0], initrd=paths[1], gen_init_cpio='', kunit_tool=paths[2],
			modules=('zero_size_test',), out='', timeout=300, silence=20, max_boots=1,
			store='s', fresh=False, not_available=(), only=frozenset(),
			distinct_fault=False, series=None, kernel_sha256='')

	def key(self, kvm: bool, version: str) -> str:
		with mock.patch.object(qemu, 'kvm_usable', return_value=kvm), \
		     mock.patch.object(qemu, 'version', return_value=version):
			return runner.cache_key(self.req)

	def test_kvm_or_tcg_and_the_qemu_version_key_the_cell(self) -> None:
		tcg = self.key(False, 'QEMU emulator version 7.2.22')
		self.assertEqual(self.key(False, 'QEMU emulator version 7.2.22'), tcg)
		self.assertNotEqual(self.key(True, 'QEMU emulator version 7.2.22'), tcg)
		self.assertNotEqual(self.key(False, 'QEMU emulator version 8.2.2'), tcg)

	def test_the_accelerator_is_the_boots(self) -> None:
		"""The key's accelerator is the one qemu_command() gives a boot."""
		for kvm in (False, True):
			with mock.patch.object(qemu, 'kvm_usable', return_value=kvm):
				cmd = qemu.qemu_command('k', 'i', 'a')
				self.assertEqual(cmd[cmd.index('-accel') + 1], qemu.accelerator())

	def test_a_reused_cell_records_its_own_inputs(self) -> None:
		"""The verdict is copied (the same image, initramfs, harness and
		QEMU); the series is this cell's: the same image may come from a
		series edited where the kernel does not see it (a commit message)."""
		earlier = os.path.join(self.tmp.name, 'run1', 'patched-slub')
		os.makedirs(earlier)
		old = {'digest': 'a' * 64, 'patchset_hash': 'b' * 64, 'patches': ['0001-old.patch']}
		results.dump_json(os.path.join(earlier, 'cell.json'),
				  {'series': old, 'kernel_image_sha256': 'c' * 64,
				   'boots': [boot('poweroff')], 'cases': [case('pass')]})
		new = {'digest': 'd' * 64, 'patchset_hash': 'e' * 64, 'patches': ['0001-new.patch']}
		out = os.path.join(self.tmp.name, 'run2', 'patched-slub')
		os.makedirs(out)
		store = os.path.join(self.tmp.name, 'store')
		req = dataclasses.replace(self.req, out=out, store=store, series=new,
					  kernel_sha256='f' * 64)
		with mock.patch.object(qemu, 'kvm_usable', return_value=False), \
		     mock.patch.object(qemu, 'version', return_value='QEMU 7.2'), \
		     contextlib.redirect_stderr(io.StringIO()):
			cache.save(store, runner.cache_key(req), earlier)
			self.assertEqual(runner.Cell(req).run(), 0)
		cell = results.load_json(os.path.join(out, 'cell.json'))
		self.assertEqual(cell['reused_from'], '../run1/patched-slub')
		self.assertEqual(results.recorded_series(cell), new)
		self.assertEqual(cell['kernel_image_sha256'], 'f' * 64)

	def test_qemu_version_is_asked_once(self) -> None:
		qemu.version.cache_clear()
		self.addCleanup(qemu.version.cache_clear)
		done = mock.Mock(returncode=0, stdout='QEMU emulator version 7.2.22\n')
		with mock.patch.object(qemu.subprocess, 'run', return_value=done) as run:
			self.assertEqual(qemu.version('qemu-x'), 'QEMU emulator version 7.2.22')
			self.assertEqual(qemu.version('qemu-x'), 'QEMU emulator version 7.2.22')
		self.assertEqual(run.call_count, 1)
		self.assertTrue(qemu.version(os.path.join(self.tmp.name, 'none')).startswith('unknown'))


class StoreTest(unittest.TestCase):

	def test_host_dependent_outcomes_are_not_kept(self) -> None:
		ok = {'boots': [boot('poweroff')], 'cases': [case('pass')]}
		self.assertTrue(cache.storable(ok))
		self.assertTrue(cache.storable({'boots': [boot('crash'), boot('poweroff')],
						'cases': [case('crash')]}))
		self.assertTrue(cache.storable({'boots': [boot('hang', 'watchdog: BUG: soft lockup')],
						'cases': [case('hang')]}))
		self.assertTrue(cache.storable({'boots': [boot('hang', 'no console output for 30 s')],
						'cases': [case('hang')]}))
		for b in (boot('timeout'), boot('qemu-error')):
			self.assertFalse(cache.storable({'boots': [b], 'cases': [case('pass')]}), b)
		self.assertFalse(cache.storable({'boots': [boot('poweroff')], 'cases': [case('error')]}))

	def test_lookup_copy(self) -> None:
		with tempfile.TemporaryDirectory() as d:
			store, old, new = (os.path.join(d, n) for n in ('store', 'old', 'new'))
			os.makedirs(old)
			os.makedirs(new)
			self.assertIsNone(cache.lookup(store, 'ab' * 32))
			cache.save(store, 'ab' * 32, old)
			# An entry whose run dir is gone is no entry.
			self.assertIsNone(cache.lookup(store, 'ab' * 32))
			with open(os.path.join(old, 'cell.json'), 'w') as f:
				json.dump({'boots': [boot('poweroff')], 'cases': [case('pass')]}, f)
			with open(os.path.join(old, 'boot-1.log'), 'w') as f:
				f.write('console\n')
			self.assertEqual(cache.lookup(store, 'ab' * 32), old)
			cell = cache.copy(old, new)
			# Paths relative to the new run directory (d), so that runs move.
			self.assertFalse(os.path.isabs(cell['reused_from']))
			self.assertEqual(os.path.join(d, cell['reused_from']), old)
			self.assertEqual(cell['boots'][0]['log'], 'boot-1.log')
			self.assertTrue(os.path.exists(os.path.join(new, 'boot-1.log')))

	def test_reused_twice_names_the_run_that_booted(self) -> None:
		with tempfile.TemporaryDirectory() as d:
			runs = [os.path.join(d, f'run{n}', 'patched-slub') for n in (1, 2, 3)]
			for r in runs:
				os.makedirs(r)
			with open(os.path.join(runs[0], 'cell.json'), 'w') as f:
				json.dump({'boots': [boot('poweroff')], 'cases': [case('pass')]}, f)
			open(os.path.join(runs[0], 'boot-1.log'), 'w').close()
			cell = cache.copy(runs[0], runs[1])
			self.assertEqual(cell['reused_from'], '../run1/patched-slub')
			with open(os.path.join(runs[1], 'cell.json'), 'w') as f:
				json.dump(cell, f)
			cell = cache.copy(runs[1], runs[2])
			self.assertEqual(cell['reused_from'], '../run1/patched-slub')


if __name__ == '__main__':
	unittest.main()
