# SPDX-License-Identifier: GPL-2.0
"""zsp/cover.py: the cover letter's computed parts, and make check's test
that the cover letter still names the series."""

import os
import tempfile
import unittest

from zsp import axes, cover

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
