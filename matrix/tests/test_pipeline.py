# SPDX-License-Identifier: GPL-2.0
"""zsp/pipeline.py: what a cell's boot is told its kernel was built from,
for cell.json to record (results.recorded_series)."""

import hashlib
import os
import tempfile
import unittest
from unittest import mock

from zsp import pipeline, series
from zsp.kernel import Tree
from zsp.pipeline import Limits
from zsp.settings import Settings


def git(tree: Tree, *args: str) -> None:
	p = tree.git(*args)
	assert p.returncode == 0, p.stderr


class TreeSeriesTest(unittest.TestCase):
	"""A patched cell names the series only when its tree is that series
	as applied; anything else would tie a verdict to patches it never ran."""

	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.addCleanup(self.tmp.cleanup)
		self.patches = os.path.join(self.tmp.name, 'patches')
		os.makedirs(self.patches)
		with open(os.path.join(self.patches, '0001-x.patch'), 'w') as f:
			f.write('Subject: [PATCH 1/1] x\n')
		with open(os.path.join(self.patches, 'series'), 'w') as f:
			f.write('0001-x.patch\n')
		self.s = Settings(cache=os.path.join(self.tmp.name, 'cache'), patches=self.patches)
		self.tree = Tree(self.s, 'patched')
		os.makedirs(self.tree.src)
		# The tree as Tree.apply_series leaves it: zsp-base, the series'
		# commit on zsp-series, checked out, and the stamp of its digest.
		git(self.tree, 'init', '-q')
		git(self.tree, 'commit', '-q', '--allow-empty', '-m', 'base')
		git(self.tree, 'tag', 'zsp-base')
		git(self.tree, 'checkout', '-q', '-b', 'zsp-series')
		git(self.tree, 'commit', '-q', '--allow-empty', '-m', 'x')
		with open(os.path.join(self.tree.src, '.git', 'zsp-series'), 'w') as f:
			f.write(series.digest(self.patches) + '\n')

	def test_the_series_as_applied(self) -> None:
		got = pipeline.tree_series(self.tree)
		self.assertEqual(got, series.record(self.patches))
		assert got is not None
		self.assertEqual(got['patches'], ['0001-x.patch'])
		self.assertRegex(got['patchset_hash'], '^[0-9a-f]{64}$')

	def test_vanilla_has_none_a_mutant_an_unknown_one(self) -> None:
		self.assertEqual(pipeline.tree_series(Tree(self.s, 'vanilla')),
				 {'digest': '', 'patchset_hash': '', 'patches': []})
		self.assertIsNone(pipeline.tree_series(Tree(self.s, 'mutant')))

	def test_a_bisect_step_is_no_series(self) -> None:
		git(self.tree, 'checkout', '-q', 'zsp-base')
		self.assertIsNone(pipeline.tree_series(self.tree))

	def test_a_series_edited_since_it_was_applied_is_not_claimed(self) -> None:
		with open(os.path.join(self.patches, '0001-x.patch'), 'a') as f:
			f.write('edited\n')
		self.assertIsNone(pipeline.tree_series(self.tree))

	def test_boot_is_told_the_series_and_the_image(self) -> None:
		build = mock.MagicMock(bzimage=os.path.join(self.tmp.name, 'bzImage'),
				       initramfs='i', gen_init_cpio='g', kunit_tool='k', alloc='slub',
				       not_available=[], tree=self.tree)
		with open(build.bzimage, 'wb') as f:
			f.write(b'image')
		build.s.kernel, build.s.fresh, build.profile.name = '6.1', False, 'tiny'
		inputs = pipeline.inputs_of(build)
		with mock.patch.object(pipeline.subprocess, 'Popen') as popen, \
		     mock.patch.object(pipeline.threading, 'Thread'), \
		     mock.patch.object(Tree, 'has_commit', return_value=False):
			pipeline.Boot(build, 'out', ['zero_size_test'], Limits(), 'store',
				      inputs=inputs)
		cmd = popen.call_args[0][0]
		self.assertEqual(cmd[cmd.index('--kernel-sha256') + 1],
				 hashlib.sha256(b'image').hexdigest())
		self.assertIn(series.digest(self.patches), cmd[cmd.index('--series') + 1])


if __name__ == '__main__':
	unittest.main()
