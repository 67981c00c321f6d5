# SPDX-License-Identifier: GPL-2.0
"""zsp/commits.py, zsp/mutants.py and zsp/check.py on small fake trees:
what GOOD/BAD name, the series checked out again after a bisect or
series-check, a mutant applied to the copy and put back, a patch unfit to
send."""

import os
import subprocess
import tempfile
import unittest
from unittest import mock

from zsp import axes, check, commits, mutants, series
from zsp.kernel import Settings, Tree


def git(src: str, *args: str) -> str:
	return subprocess.run(['git', '-C', src, '-c', 'user.name=t', '-c', 'user.email=t@t'] +
			      list(args), check=True, capture_output=True, text=True).stdout.strip()


class FakeSeries(unittest.TestCase):
	"""A patched tree: zsp-base, then one commit per patch of a series of two."""

	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		d = self.tmp.name
		self.patches = os.path.join(d, 'patches')
		os.makedirs(os.path.join(self.patches, 'slub'))
		with open(os.path.join(self.patches, 'series'), 'w') as f:
			f.write('# the series\nslub/0001-one.patch\nslub/0002-two.patch\n')
		for n in ('0001-one', '0002-two'):
			open(os.path.join(self.patches, 'slub', n + '.patch'), 'w').close()
		self.s = Settings(cache=os.path.join(d, 'cache'), patches=self.patches)
		self.tree = Tree(self.s, 'patched')
		src = self.tree.src
		os.makedirs(src)
		git(src, 'init', '-q')
		with open(os.path.join(src, 'slub.c'), 'w') as f:
			f.write('base\n')
		git(src, 'add', '-A')
		git(src, 'commit', '-q', '-m', 'base')
		git(src, 'tag', 'zsp-base')
		git(src, 'checkout', '-q', '-b', 'zsp-series')
		for n in ('one', 'two'):
			with open(os.path.join(src, 'slub.c'), 'a') as f:
				f.write(n + '\n')
			git(src, 'commit', '-q', '-am', f'mm/slub: {n}')
		self.commits = commits.series_commits(self.tree)

	def tearDown(self) -> None:
		self.tmp.cleanup()

	def test_series_commits(self) -> None:
		self.assertEqual(len(self.commits), 3)
		self.assertEqual(commits.subject(self.tree, self.commits[2]), 'mm/slub: two')

	def test_resolve_names(self) -> None:
		r = lambda name: commits.resolve(self.s, self.tree, name)	# noqa: E731
		self.assertEqual(r('base'), self.commits[0])
		for name in ('slub/0001-one.patch', '0001-one.patch', '0001-one'):
			self.assertEqual(r(name), self.commits[1], name)
		self.assertEqual(r('0002-two'), self.commits[2])
		self.assertEqual(r(self.commits[1][:10]), self.commits[1])
		with self.assertRaisesRegex(commits.BisectError, "'0003-x' is neither a patch"):
			r('0003-x')

	def test_describe(self) -> None:
		self.assertEqual(commits.describe(self.s, self.tree, self.commits[2]),
				 'slub/0002-two.patch (mm/slub: two)')

	def test_series_checked_out_again_however_it_ends(self) -> None:
		# prepare() is the tree step: here the fake tree is already "made".
		with self.assertRaises(RuntimeError), \
		     mock.patch.object(commits.Tree, 'prepare', return_value=self.tree.src):
			with commits.patched_tree(self.s) as tree:
				tree.git('checkout', '-q', self.commits[0])
				raise RuntimeError('a step failed')
		self.assertEqual(git(self.tree.src, 'rev-parse', '--abbrev-ref', 'HEAD'),
				 'zsp-series')

	def test_unknown_case(self) -> None:
		self.assertIn('z2_kfree', commits.suite_cases())


class MutantsTest(unittest.TestCase):

	def test_every_mutant_names_an_allocator_and_a_patch(self) -> None:
		names = series.entries(os.path.join(axes.ROOT, 'patches'))
		every = mutants.load_all()
		self.assertGreater(len(every), 0)
		for m in every:
			self.assertIn(m.allocator, axes.allocators(), m.name)
			self.assertTrue(m.what, m.name)
			with open(m.path) as f:
				mutates = mutants.field(f.read(), 'Mutates')
			self.assertTrue(any(n.startswith(mutates) for n in names), (m.name, mutates))

	def test_apply_and_restore(self) -> None:
		with tempfile.TemporaryDirectory() as d:
			s = Settings(cache=d)
			src, dst = Tree(s, 'patched').src, Tree(s, 'mutant').src
			os.makedirs(os.path.join(src, '.git'))
			os.makedirs(os.path.join(src, 'mm'))
			with open(os.path.join(src, '.git', 'zsp-series'), 'w') as f:
				f.write('key\n')
			with open(os.path.join(src, 'mm', 'slub.c'), 'w') as f:
				f.write('a\nb\nc\n')
			os.makedirs(os.path.join(dst, 'o-slub'))
			self.assertTrue(mutants.link_copy(src, dst))
			self.assertFalse(mutants.link_copy(src, dst))
			self.assertTrue(os.path.isdir(os.path.join(dst, 'o-slub')), 'O= dir kept')
			patch = os.path.join(d, 'm.patch')
			with open(patch, 'w') as f:
				f.write('Mutant: b goes\nAllocator: slub\n\n--- a/mm/slub.c\n+++ b/mm/slub.c\n'
					'@@ -1,3 +1,2 @@\n a\n-b\n c\n')
			copy = mutants.Copy(s)
			copy.apply(mutants.Mutant('m', patch, 'slub', 'b goes'))
			with open(os.path.join(dst, 'mm', 'slub.c')) as f:
				self.assertEqual(f.read(), 'a\nc\n')
			with open(os.path.join(src, 'mm', 'slub.c')) as f:
				self.assertEqual(f.read(), 'a\nb\nc\n', 'written through a link')
			copy.restore()
			with open(os.path.join(dst, 'mm', 'slub.c')) as f:
				self.assertEqual(f.read(), 'a\nb\nc\n')


class CheckTest(unittest.TestCase):

	def why(self, text: str) -> str:
		with tempfile.NamedTemporaryFile('w', suffix='.patch') as f:
			f.write(text)
			f.flush()
			return check.check_patch(f.name, 'x.patch', '/nonexistent')

	def test_subject_and_sign_off(self) -> None:
		self.assertIn("lacks a 'subsystem: ' prefix", self.why('Subject: [PATCH 1/2] fix it\n'))
		self.assertEqual(self.why('Subject: [PATCH 1/2] mm/slub: fix it\n'), 'no Signed-off-by')

	def test_shell_files_exist(self) -> None:
		for f in check.shell_files():
			self.assertTrue(os.path.isfile(f), f)


if __name__ == '__main__':
	unittest.main()
