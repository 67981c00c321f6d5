# SPDX-License-Identifier: GPL-2.0
"""cache.py: which inputs key a cell's results, and which results are kept."""

import ast
import json
import os
import tempfile
import unittest

from zsp import cache


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

	def key(self, modules: str = 'zero_size_test', timeout: float = 300) -> str:
		return cache.key(self.kernel, self.initrd, self.tool, modules, timeout, 30)

	def test_same_inputs_same_key(self) -> None:
		self.assertEqual(self.key(), self.key())

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
