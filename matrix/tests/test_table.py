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

	def test_no_results_is_no_pass(self) -> None:
		cells = [cell('patched', a, {}) for a in table.ALLOCATORS]
		self.assertEqual({r['status'] for r in table.z7_rows(cells)}, {'fail'})

	def test_single_allocator_has_no_z7_row(self) -> None:
		self.assertEqual(table.z7_rows([cell('patched', 'slub', {'a': 'pass'})]), [])


class GateTest(unittest.TestCase):

	def row(self, tree: str, suite: str, status: str, case: str = 'c') -> dict:
		return {'tree': tree, 'allocator': 'slob', 'suite': suite, 'case': case,
			'status': status}

	def test_vanilla_rows_are_baseline(self) -> None:
		r = self.row('vanilla', 'zero_size_free', 'crash')
		self.assertEqual(table.verdict(r, [r]), '')

	def test_patched_contract_failure_counts(self) -> None:
		for status in ('fail', 'crash', 'hang', 'error'):
			r = self.row('patched', 'zero_size_free', status)
			self.assertEqual(table.verdict(r, [r]), 'fail')

	def test_cell_error_counts_on_vanilla(self) -> None:
		r = self.row('vanilla', 'cell', 'error')
		self.assertEqual(table.verdict(r, [r]), 'fail')

	def test_upstream_failure_known_on_vanilla(self) -> None:
		v = self.row('vanilla', 'test_meminit', 'fail')
		p = self.row('patched', 'test_meminit', 'fail')
		self.assertEqual(table.verdict(p, [v, p]), 'known')

	def test_upstream_regression_counts(self) -> None:
		v = self.row('vanilla', 'test_meminit', 'pass')
		p = self.row('patched', 'test_meminit', 'fail')
		self.assertEqual(table.verdict(p, [v, p]), 'fail')

	def test_skip_is_not_a_pass(self) -> None:
		r = self.row('patched', 'zero_size_free', 'skip')
		self.assertEqual(table.verdict(r, [r]), 'skip')
		text = table.table([dict(r, allocator='slab', case='x')])
		self.assertIn('SKIP', text)
		self.assertNotIn('PASS ', text.splitlines()[2])


if __name__ == '__main__':
	unittest.main()
