# SPDX-License-Identifier: GPL-2.0
"""zsp/merge.py: cells run apart, merged, give what one run of the same
cells gives (the table, results.json, the Z7 row across allocators), and
what cannot be merged is refused with a one-line reason."""

import contextlib
import io
import json
import os
import tempfile
import unittest
from typing import Dict, List

from zsp import errors, merge, results, table

# Two cells agree on every contract case, the third differs: Z7 across
# the merged cells must see that, as it does in one run.
CASES: Dict[str, List[str]] = {
	'patched-slab': ['pass', 'pass'],
	'patched-slub': ['pass', 'pass'],
	'patched-slob': ['pass', 'crash'],
	'vanilla-slub': ['crash', 'hang'],
}


def write_cell(run: str, name: str, statuses: List[str], reused_from: str = '') -> None:
	os.makedirs(os.path.join(run, name))
	cell = {'boots': [{'boot': 1, 'log': 'boot-1.log', 'outcome': 'poweroff', 'reason': '',
			   'seconds': 1.0}],
		'cases': [{'suite': 'zero_size_free', 'case': f'z2_case{i}', 'status': st,
			   'detail': 'BUG: oops' if st == 'crash' else '', 'boot': 1}
			  for i, st in enumerate(statuses)]}
	if reused_from:
		cell['reused_from'] = reused_from
	results.dump_json(os.path.join(run, name, 'cell.json'), cell)
	with open(os.path.join(run, name, 'boot-1.log'), 'w') as f:
		f.write('console\n')


def rows_without_run(run: str) -> List[dict]:
	with open(os.path.join(run, 'results.json')) as f:
		return [{k: v for k, v in r.items() if k != 'run'} for r in json.load(f)['rows']]


def quiet(fn, *args):  # type: ignore[no-untyped-def]
	with contextlib.redirect_stdout(io.StringIO()):
		return fn(*args)


class MergeTest(unittest.TestCase):
	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.addCleanup(self.tmp.cleanup)
		self.top = self.tmp.name

	def path(self, name: str) -> str:
		return os.path.join(self.top, name)

	def test_merge_equals_one_run(self) -> None:
		for name, st in CASES.items():
			write_cell(self.path('one'), name, st)
		# Each cell in a run of its own, as CI jobs would leave them.
		runs = []
		for name, st in CASES.items():
			write_cell(self.path(f'job-{name}'), name, st)
			runs.append(self.path(f'job-{name}'))
		rc_one = quiet(table.main, self.path('one'))
		rc_merged = quiet(merge.main, self.path('merged'), runs)
		self.assertEqual(rc_merged, rc_one)
		self.assertEqual(rc_merged, 1)	# patched SLOB's crash
		self.assertEqual(rows_without_run(self.path('merged')),
				 rows_without_run(self.path('one')))
		with open(self.path('one/table.txt')) as a, open(self.path('merged/table.txt')) as b:
			self.assertEqual(b.read(), a.read())
		z7 = {r['allocator']: r['status'] for r in rows_without_run(self.path('merged'))
		      if r['case'] == 'same_on_all_allocators' and r['tree'] == 'patched'}
		self.assertEqual(z7, {'slab': 'fail', 'slub': 'fail', 'slob': 'fail'})
		self.assertTrue(os.path.exists(self.path('merged/patched-slob/boot-1.log')))

	def test_reused_cell_keeps_pointing_at_its_first_run(self) -> None:
		write_cell(self.path('first'), 'patched-slub', ['pass'])
		write_cell(self.path('jobs/a'), 'patched-slub', ['pass'],
			   reused_from='../../first/patched-slub')
		quiet(merge.main, self.path('out/merged'), [self.path('jobs/a')])
		cell = results.load_json(self.path('out/merged/patched-slub/cell.json'))
		self.assertEqual(os.path.normpath(os.path.join(self.path('out/merged'),
							       cell['reused_from'])),
				 self.path('first/patched-slub'))

	def test_refusals(self) -> None:
		write_cell(self.path('a'), 'patched-slub', ['pass'])
		write_cell(self.path('b'), 'patched-slub', ['pass'])
		os.makedirs(self.path('empty'))
		for runs, want in (([], 'no runs to merge'),
				   ([self.path('nope')], 'no such run directory'),
				   ([self.path('empty')], 'has no cell directories'),
				   ([self.path('a'), self.path('b')], 'cell patched-slub is in both')):
			with self.assertRaisesRegex(errors.MergeError, want):
				merge.main(self.path('out'), runs)
			self.assertFalse(os.path.exists(self.path('out')), want)
		with self.assertRaisesRegex(errors.MergeError, 'exists; merge into a new directory'):
			merge.main(self.path('a'), [self.path('b')])


if __name__ == '__main__':
	unittest.main()
