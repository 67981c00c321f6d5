# SPDX-License-Identifier: GPL-2.0
"""zsp/cover.py: the cover letter's computed parts, and make check's test
that the cover letter still names the series."""

import os
import tempfile
import unittest
from typing import Any, Dict, Optional

from zsp import axes, cover, errors, results, series
from zsp.settings import Settings

PATCH = '''From 1 Mon Sep 17 00:00:00 2001
From: Zero-size series <zsp@example.org>
Subject: [PATCH 6.1.y {n}/2] mm/slub: a subject long enough to be folded by
 git format-patch at the header width

Body.
'''


def row(alloc: str, tree: str, status: str) -> dict:
	return {'kernel': '6.1', 'profile': 'tiny', 'allocator': alloc, 'tree': tree,
		'status': status}


class CoverTest(unittest.TestCase):
	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.dir = self.tmp.name
		for n in (1, 2):
			with open(os.path.join(self.dir, f'000{n}-x.patch'), 'w') as f:
				f.write(PATCH.format(n=n))
		with open(os.path.join(self.dir, 'series'), 'w') as f:
			f.write('# order\n0001-x.patch\n0002-x.patch\n')

	def tearDown(self) -> None:
		self.tmp.cleanup()

	def write_cover(self, text: str) -> None:
		with open(os.path.join(self.dir, cover.OUTPUT), 'w') as f:
			f.write(text)

	def make_run(self, recorded: Optional[Dict[str, Any]], name: str = 'patched-slub') -> str:
		"""A finished run whose cell @name recorded @recorded as its series
		(None: a cell.json from before schema 2)."""
		run = os.path.join(self.dir, 'run')
		os.makedirs(os.path.join(run, name))
		cell: Dict[str, Any] = {'boots': [], 'cases': []}
		if recorded is not None:
			cell['series'] = recorded
		results.dump_json(os.path.join(run, name, 'cell.json'), cell)
		results.dump_json(os.path.join(run, 'results.json'), {'rows': [row('slub', 'patched',
										    'pass')]})
		return run

	def refused(self, run: str, *want: str) -> None:
		with self.assertRaises(errors.CoverError) as e:
			cover.check_run_series(run, self.dir, '6.1')
		for w in want:
			self.assertIn(w, str(e.exception))
		self.assertNotIn('\n', str(e.exception))

	def test_a_run_of_this_series(self) -> None:
		cover.check_run_series(self.make_run(series.record(self.dir)), self.dir, '6.1')

	def test_a_run_of_another_series_is_refused(self) -> None:
		"""Its results would vouch for patches that were never booted."""
		run = self.make_run(series.record(self.dir))
		with open(os.path.join(self.dir, '0002-x.patch'), 'a') as f:
			f.write('an edit after the run\n')
		self.refused(run, f'{run} was made with another series', 'patched-slub',
			     'give RUN= a run of this series')

	def test_a_run_that_recorded_no_series_is_refused(self) -> None:
		self.refused(self.make_run(None), 'recorded no series', 'give RUN= a run of this series')

	def test_a_run_without_a_patched_cell_is_refused(self) -> None:
		run = self.make_run(series.no_series(), name='vanilla-slub')
		self.refused(run, 'no patched cell of kernel 6.1', 'give RUN= a run of this series')

	def test_main_refuses_before_it_touches_a_tree(self) -> None:
		run = self.make_run(dict(series.record(self.dir), digest='b' * 64))
		s = Settings(cache=os.path.join(self.dir, 'cache'), patches=self.dir)
		with self.assertRaisesRegex(errors.CoverError, 'was made with another series'):
			cover.main(s, run)
		self.assertFalse(os.path.exists(s.cache))

	def test_subject_unfolded_without_prefix(self) -> None:
		self.assertEqual(cover.subject(os.path.join(self.dir, '0001-x.patch')),
				 'mm/slub: a subject long enough to be folded by git format-patch '
				 'at the header width')

	def test_summary_counts_each_cell_by_verdict(self) -> None:
		rows = [row('slub', 'patched', 'pass')] * 3 + [row('slub', 'vanilla', 'crash'),
							       row('slub', 'vanilla', 'pass')]
		lines = cover.summary(rows).splitlines()
		self.assertEqual(lines[0].split(), ['kernel', 'profile', 'alloc', 'tree', 'pass',
						    'crash'])
		self.assertEqual(lines[2].split(), ['6.1', 'tiny', 'slub', 'patched', '3'])
		self.assertEqual(lines[3].split(), ['6.1', 'tiny', 'slub', 'vanilla', '1', '1'])

	def test_current_cover_letter_passes(self) -> None:
		paths = [os.path.join(self.dir, f'000{n}-x.patch') for n in (1, 2)]
		self.write_cover('Subject: [PATCH 6.1.y 0/2] x\n\n' + cover.shortlog(paths) + '\n')
		self.assertEqual(cover.check_current(self.dir), '')

	def test_missing_or_stale_cover_letter_fails(self) -> None:
		self.assertIn('missing', cover.check_current(self.dir))
		paths = [os.path.join(self.dir, '0001-x.patch')]
		self.write_cover('Subject: [PATCH 6.1.y 0/2] x\n\n' + cover.shortlog(paths) + '\n')
		self.assertIn('shortlog', cover.check_current(self.dir))
		paths.append(os.path.join(self.dir, '0002-x.patch'))
		self.write_cover('Subject: [PATCH 6.1.y 0/3] x\n\n' + cover.shortlog(paths) + '\n')
		self.assertIn('0/2', cover.check_current(self.dir))

	def test_stable_tag_is_the_kernel_but_for_mainline(self) -> None:
		self.assertEqual(cover.stable_tag('6.1'), '6.1.y')
		self.assertEqual(cover.stable_tag('6.12'), '6.12.y')
		self.assertEqual(cover.stable_tag(axes.MAINLINE_KERNEL), '')

	def test_prefix_carries_the_kernels_tag(self) -> None:
		text = PATCH.format(n='02').replace('/2]', '/10]')
		self.assertEqual(cover.check_prefix(text, '6.1', 2, 10), '')
		self.assertIn('does not say 3/10', cover.check_prefix(text, '6.1', 3, 10))
		self.assertIn('wants [PATCH 6.12.y 2/10]', cover.check_prefix(text, '6.12', 2, 10))
		self.assertIn('no .y tag', cover.check_prefix(text, axes.MAINLINE_KERNEL, 2, 10))
		mainline = 'Subject: [PATCH v2 1/9] mm/slab: x\n'
		self.assertEqual(cover.check_prefix(mainline, axes.MAINLINE_KERNEL, 1, 9), '')
		self.assertIn('tagged for mainline; 6.12 wants [PATCH 6.12.y 1/9]',
			      cover.check_prefix(mainline, '6.12', 1, 9))
		self.assertIn('no [PATCH', cover.check_prefix('Subject: mm: x\n', '6.1', 1, 1))

	def test_cover_letter_subject_tag_is_checked_for_the_kernel(self) -> None:
		paths = [os.path.join(self.dir, f'000{n}-x.patch') for n in (1, 2)]
		self.write_cover('Subject: [PATCH 6.1.y 0/2] x\n\n' + cover.shortlog(paths) + '\n')
		self.assertEqual(cover.check_current(self.dir, '6.1'), '')
		self.assertIn('6.12 wants [PATCH 6.12.y 0/2]', cover.check_current(self.dir, '6.12'))


if __name__ == '__main__':
	unittest.main()
