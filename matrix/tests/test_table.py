# SPDX-License-Identifier: GPL-2.0
"""table.py: the Z7 row and what decides the exit status."""

import unittest

import table


def cell(tree: str, alloc: str, statuses: dict) -> dict:
	return {'tree': tree, 'allocator': alloc, 'boots': [],
		'cases': [{'suite': 'zero_size_free', 'case': c, 'status': s,
			   'detail': '', 'boot': 1} for c, s in statuses.items()]}


class Z7Test(unittest.TestCase):

	def test_identical_allocators_pass(self) -> None:
		cells = [cell('patched', a, {'z2_kfree': 'pass'}) for a in table.ALLOCATORS]
		rows = table.z7_rows(cells)
		self.assertEqual([r['status'] for r in rows], ['pass'] * 3)

	def test_one_allocator_differs(self) -> None:
		cells = [cell('vanilla', 'slab', {'z2_kfree_bulk_mixed': 'crash'}),
			 cell('vanilla', 'slub', {'z2_kfree_bulk_mixed': 'crash'}),
			 cell('vanilla', 'slob', {'z2_kfree_bulk_mixed': 'pass'})]
		rows = table.z7_rows(cells)
		self.assertEqual({r['status'] for r in rows}, {'fail'})
		self.assertIn('z2_kfree_bulk_mixed', rows[0]['detail'])

	def test_single_allocator_has_no_z7_row(self) -> None:
		self.assertEqual(table.z7_rows([cell('patched', 'slub', {'a': 'pass'})]), [])


class GateTest(unittest.TestCase):

	def row(self, tree: str, suite: str, status: str) -> dict:
		return {'tree': tree, 'suite': suite, 'status': status}

	def test_vanilla_contract_failure_is_baseline(self) -> None:
		self.assertFalse(table.counts_as_failure(self.row('vanilla', 'zero_size_free', 'crash')))

	def test_patched_contract_failure_counts(self) -> None:
		for status in ('fail', 'crash', 'hang', 'error'):
			self.assertTrue(table.counts_as_failure(self.row('patched', 'zero_size_free', status)))

	def test_upstream_failure_counts_on_vanilla(self) -> None:
		self.assertTrue(table.counts_as_failure(self.row('vanilla', 'test_meminit', 'fail')))

	def test_skip_is_not_a_pass_in_the_table(self) -> None:
		text = table.table([{'tree': 'patched', 'allocator': 'slab',
				     'suite': 'zero_size_free', 'case': 'x', 'status': 'skip'}])
		self.assertIn('SKIP', text)
		self.assertNotIn('PASS ', text.splitlines()[2])


if __name__ == '__main__':
	unittest.main()
