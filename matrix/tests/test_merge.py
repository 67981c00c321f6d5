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
from typing import Dict, List, Optional

from zsp import errors, merge, results, table

# Two cells agree on every contract case, the third differs: Z7 across
# the merged cells must see that, as it does in one run. Each allocator
# has both trees: a whole matrix run's cells.
CASES: Dict[str, List[str]] = {
	'patched-slab': ['pass', 'pass'],
	'patched-slub': ['pass', 'pass'],
	'patched-slob': ['pass', 'crash'],
	'vanilla-slab': ['crash', 'pass'],
	'vanilla-slub': ['crash', 'hang'],
	'vanilla-slob': ['hang', 'crash'],
}


def series(digest: str) -> Dict[str, object]:
	return {'digest': digest, 'patchset_hash': 'f' * 64, 'patches': ['0001-x.patch']}


SERIES = series('a' * 64)
OTHER = series('b' * 64)


def write_cell(run: str, name: str, statuses: List[str], reused_from: str = '',
	       recorded: Optional[Dict[str, object]] = None) -> None:
	"""A cell; @recorded: the series its cell.json records (none: a
	cell.json from before schema 2)."""
	os.makedirs(os.path.join(run, name))
	cell = {'boots': [{'boot': 1, 'log': 'boot-1.log', 'outcome': 'poweroff', 'reason': '',
			   'seconds': 1.0}],
		'cases': [{'suite': 'zero_size_free', 'case': f'z2_case{i}', 'status': st,
			   'detail': 'BUG: oops' if st == 'crash' else '', 'boot': 1}
			  for i, st in enumerate(statuses)]}
	if reused_from:
		cell['reused_from'] = reused_from
	if recorded is not None:
		cell['series'] = recorded
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
			write_cell(self.path('one'), name, st, recorded=SERIES)
		# Each cell in a run of its own, as CI jobs would leave them.
		runs = []
		for name, st in CASES.items():
			write_cell(self.path(f'job-{name}'), name, st, recorded=SERIES)
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

	def refused(self, runs: List[str], *want: str) -> None:
		"""merge.main refuses @runs with one line holding each of @want,
		and creates nothing."""
		with self.assertRaises(errors.MergeError) as e:
			quiet(merge.main, self.path('out'), [self.path(r) for r in runs])
		for w in want:
			self.assertIn(w, str(e.exception))
		self.assertNotIn('\n', str(e.exception))
		self.assertFalse(os.path.exists(self.path('out')))

	def test_cells_of_two_series_are_refused(self) -> None:
		"""The table would count two series' verdicts as one run's."""
		write_cell(self.path('a'), 'patched-slub', ['pass'], recorded=SERIES)
		write_cell(self.path('b'), 'patched-slab', ['pass'], recorded=OTHER)
		self.refused(['a', 'b'], 'cells patched-slub', 'patched-slab', 'of kernel 6.1',
			     'series aaaaaaaaaaaa', 'series bbbbbbbbbbbb', 'different series')
		# A cell that recorded none (before schema 2) is not of the series either.
		write_cell(self.path('c'), 'patched-slob', ['pass'])
		self.refused(['a', 'c'], 'no recorded series', 'different series')
		# Another profile, the same kernel: one series still.
		write_cell(self.path('d'), 'patched-slub-distro', ['pass'], recorded=OTHER)
		self.refused(['a', 'd'], 'patched-slub-distro', 'different series')

	def test_one_series_merges(self) -> None:
		write_cell(self.path('a'), 'patched-slub', ['pass'], recorded=SERIES)
		write_cell(self.path('b'), 'patched-slab', ['pass'], recorded=SERIES)
		# Vanilla records no series; a cell that did not build, nothing.
		write_cell(self.path('b'), 'vanilla-slab', ['pass'], recorded=series(''))
		write_cell(self.path('c'), 'vanilla-slub', ['pass'])
		os.makedirs(self.path('c/patched-slob'))
		os.makedirs(self.path('c/vanilla-slob'))
		# Merged; 1 for the slob cells' error rows (no results), as in one run.
		self.assertEqual(quiet(merge.main, self.path('out'),
				       [self.path(r) for r in ('a', 'b', 'c')]), 1)

	def test_a_missing_twin_is_named(self) -> None:
		"""A group with both trees is a whole matrix run's: a cell without
		its twin is a lost job, named."""
		write_cell(self.path('a'), 'patched-slub', ['pass'], recorded=SERIES)
		write_cell(self.path('a'), 'patched-slab', ['pass'], recorded=SERIES)
		write_cell(self.path('b'), 'vanilla-slub', ['pass'], recorded=series(''))
		self.refused(['a', 'b'], 'cell vanilla-slab is missing', 'patched-slab',
			     self.path('a'))
		write_cell(self.path('c'), 'vanilla-slab', ['pass'], recorded=series(''))
		write_cell(self.path('c'), 'vanilla-slob', ['pass'], recorded=series(''))
		self.refused(['a', 'b', 'c'], 'cell patched-slob is missing', 'vanilla-slob')

	def test_one_tree_runs_merge(self) -> None:
		"""make run TREE=patched in two jobs: no vanilla cell is expected
		(the table then judges against the recorded baseline), nor, in
		another profile, the tiny cells' twins."""
		write_cell(self.path('a'), 'patched-slub', ['pass'], recorded=SERIES)
		write_cell(self.path('b'), 'patched-slab', ['pass'], recorded=SERIES)
		write_cell(self.path('b'), 'vanilla-slub-distro', ['pass'], recorded=series(''))
		write_cell(self.path('b'), 'patched-slub-distro', ['pass'], recorded=SERIES)
		self.assertEqual(quiet(merge.main, self.path('out'),
				       [self.path('a'), self.path('b')]), 0)


if __name__ == '__main__':
	unittest.main()
