# SPDX-License-Identifier: GPL-2.0
"""table.py: the Z7 row, what decides the exit status, --count, and the
results.json it writes."""

import contextlib
import io
import json
import os
import tempfile
import unittest
from unittest import mock

from zsp import baseline
from zsp import table
from zsp import __main__ as cli
from zsp import errors
from zsp import results


def cell(tree: str, alloc: str, statuses: dict, details: dict = None) -> dict:
	return {'tree': tree, 'allocator': alloc, 'boots': [],
		'cases': [{'suite': 'zero_size_free', 'case': c, 'status': s,
			   'detail': (details or {}).get(c, ''), 'boot': 1}
			  for c, s in statuses.items()]}


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

	# Defect 11: the Z7 row compares reasons, and a one-allocator run still has the row.

	def test_same_status_different_reason_differs(self) -> None:
		oops = 'BUG: unable to handle page fault for address: {} (Comm: {})'
		cells = [cell('vanilla', 'slab', {'z2_kvfree_rcu_headless': 'crash'},
			      {'z2_kvfree_rcu_headless': oops.format('ffffeba240000008', 'kworker/0:0')}),
			 cell('vanilla', 'slub', {'z2_kvfree_rcu_headless': 'crash'},
			      {'z2_kvfree_rcu_headless': oops.format('ffffebde00000008', 'kworker/1:2')}),
			 cell('vanilla', 'slob', {'z2_kvfree_rcu_headless': 'crash'},
			      {'z2_kvfree_rcu_headless': 'kernel BUG at mm/slob.c:253! (Comm: kunit_try_catch)'})]
		rows = table.z7_rows(cells)
		self.assertEqual({r['status'] for r in rows}, {'fail'})
		self.assertEqual(rows[0]['detail'], 'differ: z2_kvfree_rcu_headless (reason)')
		# Addresses and worker numbers alone are no difference.
		rows = table.z7_rows(cells[:2])
		self.assertEqual({r['status'] for r in rows}, {'pass'})

	def test_single_allocator_patched_is_held_to_the_contract(self) -> None:
		rows = table.z7_rows([cell('patched', 'slub', {'a': 'pass'})])
		self.assertEqual([(r['allocator'], r['status']) for r in rows], [('slub', 'pass')])
		self.assertIn('no other allocator ran', rows[0]['detail'])
		rows = table.z7_rows([cell('patched', 'slub', {'a': 'pass', 'b': 'crash'})])
		self.assertEqual(rows[0]['status'], 'fail')
		self.assertIn('b', rows[0]['detail'].split())

	def test_single_allocator_vanilla_is_not_checked(self) -> None:
		rows = table.z7_rows([cell('vanilla', 'slob', {'a': 'crash'})])
		self.assertEqual([(r['status'], r['detail']) for r in rows],
				 [('skip', 'one allocator in this run')])
		self.assertEqual(table.gate(rows[0], rows), '')

	def test_outside_rows_are_not_contract_cases(self) -> None:
		cells = [cell('patched', a, {'z2_kfree': 'pass'}) for a in table.ALLOCATORS]
		cells[0]['cases'].append({'suite': 'zero_size_test', 'case': 'outside_cases',
					  'status': 'crash', 'detail': 'x', 'boot': 1})
		self.assertEqual({r['status'] for r in table.z7_rows(cells)}, {'pass'})


class GateTest(unittest.TestCase):

	def row(self, tree: str, suite: str, status: str, case: str = 'c',
		detail: str = None) -> dict:
		r = {'tree': tree, 'allocator': 'slob', 'suite': suite, 'case': case,
		     'status': status}
		if detail is not None:
			r['detail'] = detail
		return r

	def test_vanilla_rows_are_baseline(self) -> None:
		r = self.row('vanilla', 'zero_size_free', 'crash')
		self.assertEqual(table.gate(r, [r]), '')

	def test_patched_contract_failure_counts(self) -> None:
		for status in ('fail', 'crash', 'hang', 'error'):
			r = self.row('patched', 'zero_size_free', status)
			self.assertEqual(table.gate(r, [r]), 'fail')

	def test_cell_error_counts_on_vanilla(self) -> None:
		r = self.row('vanilla', 'cell', 'error')
		self.assertEqual(table.gate(r, [r]), 'fail')

	# "known" is the failure baseline-vanilla.txt records, on both trees.
	MEMINIT = {('slob', 'c'): baseline.Expect(['fail'], r'failures: \d+ out of 131'),
		   ('slob', 'test_meminit'): baseline.Expect(['fail'], r'failures: \d+ out of 131')}

	def test_upstream_failure_known_on_vanilla(self) -> None:
		v = self.row('vanilla', 'test_meminit', 'fail', detail='failures: 3 out of 131')
		p = self.row('patched', 'test_meminit', 'fail', detail='failures: 3 out of 131')
		with mock.patch.object(baseline, 'load_baseline', return_value=self.MEMINIT):
			self.assertEqual(table.gate(p, [v, p]), 'known')

	def test_known_is_vanillas_count_not_any_count(self) -> None:
		"""Issue 31 #1: a patched SLOB that fails more of test_meminit
		than vanilla is a regression, though both match the pattern."""
		v = self.row('vanilla', 'test_meminit', 'fail', detail='failures: 3 out of 131')
		p = self.row('patched', 'test_meminit', 'fail', detail='failures: 4 out of 131')
		with mock.patch.object(baseline, 'load_baseline', return_value=self.MEMINIT):
			self.assertEqual(table.gate(p, [v, p]), 'fail')

	def test_the_committed_meminit_line_pins_the_count(self) -> None:
		path = baseline.path_for('6.1')
		want = baseline.load_baseline(path, 'tiny')[('slob', 'test_meminit')]
		self.assertEqual(want.check('fail', 'failures: 29 out of 131'), '')
		self.assertNotEqual(want.check('fail', 'failures: 30 out of 131'), '')

	def test_unlisted_upstream_failure_is_never_known(self) -> None:
		v = self.row('vanilla', 'test_meminit', 'fail', detail='failures: 3 out of 131')
		p = self.row('patched', 'test_meminit', 'fail', detail='failures: 3 out of 131')
		with mock.patch.object(baseline, 'load_baseline', return_value={}):
			self.assertEqual(table.gate(p, [v, p]), 'fail')

	def test_upstream_regression_counts(self) -> None:
		v = self.row('vanilla', 'test_meminit', 'pass')
		p = self.row('patched', 'test_meminit', 'fail')
		self.assertEqual(table.gate(p, [v, p]), 'fail')

	def test_skip_is_not_a_pass(self) -> None:
		# Defect 3: a skip in the patched tree is a failure.
		r = self.row('patched', 'zero_size_free', 'skip')
		self.assertEqual(table.gate(r, [r]), 'fail')
		text = table.table([dict(r, allocator='slab', case='x')])
		self.assertIn('SKIP', text)
		self.assertNotIn('PASS ', text.splitlines()[2])

	def test_upstream_na_is_neither_pass_nor_fail(self) -> None:
		r = self.row('patched', 'kasan', 'n/a', case='kmalloc_uaf3')
		self.assertEqual(table.gate(r, [r]), '')
		# Our own suite has no n/a: whatever says so is a failure.
		r = self.row('patched', 'zero_size_free', 'n/a')
		self.assertEqual(table.gate(r, [r]), 'fail')
		text = table.table([dict(r, suite='kasan')])
		self.assertIn('N/A', text)

	# Defect 3: "known" is the same failure for the same reason.

	def test_known_needs_the_same_reason(self) -> None:
		v = self.row('vanilla', 'test_meminit', 'fail', 'test_meminit', 'failures: 3 out of 131')
		same = self.row('patched', 'test_meminit', 'fail', 'test_meminit', 'failures: 9 out of 131')
		other = self.row('patched', 'test_meminit', 'fail', 'test_meminit', 'insmod rc=1')
		with mock.patch.object(baseline, 'load_baseline', return_value=self.MEMINIT):
			self.assertEqual(table.gate(same, [v, same]), 'fail')	# 3 -> 9: worse
			same['detail'] = v['detail']
			self.assertEqual(table.gate(same, [v, same]), 'known')
			self.assertEqual(table.gate(other, [v, other]), 'fail')
			# Vanilla failing for another reason: not the known failure.
			v['detail'] = 'insmod rc=1'
			self.assertEqual(table.gate(same, [v, same]), 'fail')

	def test_known_ignores_addresses(self) -> None:
		want = {('slob', 'test_clobber_zone'): baseline.Expect(
			['crash'], r'unable to handle page fault for address: [0-9a-f]+')}
		v = self.row('vanilla', 'slub_test', 'crash', 'test_clobber_zone',
			     'BUG: unable to handle page fault for address: ffff888000a28c40')
		p = self.row('patched', 'slub_test', 'crash', 'test_clobber_zone',
			     'BUG: unable to handle page fault for address: ffff888000b31000')
		with mock.patch.object(baseline, 'load_baseline', return_value=want):
			self.assertEqual(table.gate(p, [v, p]), 'known')

	def test_known_from_the_baseline_file_checks_the_reason(self) -> None:
		want = {('slob', 'test_meminit'): baseline.Expect(['fail'], r'failures: \d+ out of 131')}
		p = self.row('patched', 'test_meminit', 'fail', 'test_meminit', 'failures: 3 out of 131')
		with mock.patch.object(baseline, 'load_baseline', return_value=want):
			self.assertEqual(table.gate(p, [p]), 'known')
			p['detail'] = 'insmod rc=1'
			self.assertEqual(table.gate(p, [p]), 'fail')

	def test_where_it_died_is_a_line_of_its_own(self) -> None:
		r = dict(self.row('vanilla', 'zero_size_free', 'crash', detail='BUG: x (Comm: k)'),
			 where='virt_to_folio+0x31/0x3f < kmem_cache_free+0x2d/0xc3')
		self.assertEqual(table.details([r]), 'vanilla/slob c: crash: BUG: x (Comm: k)\n'
				 '    at virt_to_folio+0x31/0x3f < kmem_cache_free+0x2d/0xc3')

	def test_the_answer_comes_first(self) -> None:
		"""Issue 33: verdict and exit status, counts per cell, the patched
		rows that did not pass (or none), in that order."""
		ok = [dict(self.row('vanilla', 'zero_size_free', 'crash'), kernel='6.1', profile='tiny'),
		      dict(self.row('patched', 'zero_size_free', 'pass'), kernel='6.1', profile='tiny')]
		rc, lines = table.verdict(ok)
		self.assertEqual(rc, 0)
		self.assertTrue(lines[0].startswith('verdict: PASS (exit status 0)'))
		self.assertIn('  vanilla-slob (6.1 tiny)            1 crash', lines)
		self.assertEqual(lines[-1], '  none')
		bad = ok + [dict(self.row('patched', 'zero_size_free', 'hang', case='y'),
				 kernel='6.1', profile='tiny')]
		rc, lines = table.verdict(bad)
		self.assertEqual(rc, 1)
		self.assertTrue(lines[0].startswith('verdict: FAIL (exit status 1): 1 patched'))
		self.assertTrue(lines[-1].startswith('  patched/slob (6.1 tiny) zero_size_free.y: hang'))

	def test_cell_rows_are_never_known(self) -> None:
		v = self.row('vanilla', 'cell', 'crash', 'boot', 'crash during boot: x')
		p = self.row('patched', 'cell', 'crash', 'boot', 'crash during boot: x')
		self.assertEqual(table.gate(p, [v, p]), 'fail')


class CountTest(unittest.TestCase):
	"""Defect 3: "PASS FAIL SKIP", the gated rows make test counts."""

	def count(self, rows: list) -> str:
		with tempfile.TemporaryDirectory() as run:
			with open(os.path.join(run, 'results.json'), 'w') as f:
				json.dump(rows, f)
			out = io.StringIO()
			with contextlib.redirect_stdout(out):
				self.assertEqual(cli.main(['internal', 'table', '--count', run]), 0)
		return out.getvalue().strip()

	def test_count(self) -> None:
		def row(tree: str, suite: str, case: str, status: str, detail: str = '') -> dict:
			return {'tree': tree, 'allocator': 'slob', 'suite': suite, 'case': case,
				'status': status, 'detail': detail, 'boot': 1}
		rows = [row('vanilla', 'zero_size_free', 'a', 'crash'),
			row('vanilla', 'zero_size_free', 'b', 'skip'),
			row('vanilla', 'test_meminit', 'test_meminit', 'fail', 'failures: 3 out of 131'),
			row('patched', 'zero_size_free', 'a', 'pass'),
			row('patched', 'zero_size_free', 'b', 'skip'),
			row('patched', 'test_meminit', 'test_meminit', 'fail', 'failures: 3 out of 131')]
		# pass: a and the known test_meminit; fail: the patched skip; no skip.
		want = {('slob', 'test_meminit'): baseline.Expect(['fail'], r'failures: \d+ out of 131')}
		with mock.patch.object(baseline, 'load_baseline', return_value=want):
			self.assertEqual(self.count(rows), '2 1 0')



class ResultsJsonTest(unittest.TestCase):
	"""results.json and cell.json: json.dump, a schema version, no
	absolute path, so a run directory can be moved or merged."""

	def test_written_with_schema_and_relative_paths(self) -> None:
		with tempfile.TemporaryDirectory() as run:
			for tree in ('vanilla', 'patched'):
				os.makedirs(os.path.join(run, f'{tree}-slub'))
				c = cell(tree, 'slub', {'z2_kfree': 'pass'})
				c['boots'] = [{'boot': 1, 'log': 'boot-1.log', 'outcome': 'poweroff'}]
				results.dump_json(os.path.join(run, f'{tree}-slub', 'cell.json'), c)
			with contextlib.redirect_stdout(io.StringIO()):
				self.assertEqual(table.main(run), 0)
			with open(os.path.join(run, 'results.json')) as f:
				data = json.load(f)
			with open(os.path.join(run, 'patched-slub', 'cell.json')) as f:
				text = f.read()
		self.assertEqual(data['schema'], results.SCHEMA)
		self.assertEqual(data['run'], os.path.basename(run))
		self.assertIn({'patched', 'vanilla'}, [{r['tree'] for r in data['rows']}])
		self.assertNotIn(run, json.dumps(data))
		self.assertEqual(json.loads(text)['schema'], results.SCHEMA)

	def test_newer_schema_is_refused(self) -> None:
		with tempfile.TemporaryDirectory() as run:
			path = os.path.join(run, 'results.json')
			with open(path, 'w') as f:
				json.dump({'schema': results.SCHEMA + 1, 'rows': []}, f)
			with self.assertRaises(errors.SchemaError):
				results.load_rows(path)

	def test_bare_list_of_earlier_runs_still_reads(self) -> None:
		with tempfile.TemporaryDirectory() as run:
			path = os.path.join(run, 'results.json')
			with open(path, 'w') as f:
				json.dump([{'tree': 'vanilla'}], f)
			self.assertEqual(results.load_rows(path), [{'tree': 'vanilla'}])


if __name__ == '__main__':
	unittest.main()
