# SPDX-License-Identifier: GPL-2.0
"""The kernel side's helpers: the one series parser, the one freshness
stamp, and a step's command stopped cleanly when the harness is."""

import os
import re
import signal
import tempfile
import time
import unittest
from types import FrameType
from typing import Optional

from zsp import axes, kernel, series
from zsp.kernel import Tree
from zsp.settings import Settings
from zsp.cache import Stamp, digest
from zsp.errors import SeriesError, TreeError


class SeriesTest(unittest.TestCase):

	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.dir = self.tmp.name
		os.makedirs(os.path.join(self.dir, 'slub'))
		for name in ('a.patch', 'slub/b.patch'):
			with open(os.path.join(self.dir, name), 'w') as f:
				f.write(name)

	def tearDown(self) -> None:
		self.tmp.cleanup()

	def write(self, text: str) -> None:
		with open(os.path.join(self.dir, 'series'), 'w') as f:
			f.write(text)

	def test_comments_anywhere_and_blank_lines(self) -> None:
		self.write('# the series\n\na.patch  # first\n  slub/b.patch\n#x.patch\n')
		self.assertEqual(series.entries(self.dir), ['a.patch', 'slub/b.patch'])
		self.assertEqual(series.files(self.dir)[1], os.path.join(self.dir, 'slub/b.patch'))

	def test_missing_patch_and_missing_series(self) -> None:
		self.write('a.patch\nnope.patch\n')
		with self.assertRaisesRegex(SeriesError, 'names nope.patch, which does not exist'):
			series.entries(self.dir)
		os.unlink(os.path.join(self.dir, 'series'))
		with self.assertRaisesRegex(SeriesError, 'series is missing; PATCHES= must name'):
			series.entries(self.dir)

	def test_digest_follows_content_not_comments_alone(self) -> None:
		self.write('a.patch\nslub/b.patch\n')
		d1 = series.digest(self.dir)
		with open(os.path.join(self.dir, 'slub/b.patch'), 'a') as f:
			f.write('edit')
		self.assertNotEqual(series.digest(self.dir), d1)

	def test_failed_file(self) -> None:
		self.assertEqual(series.failed_file('error: patch failed: mm/slub.c:3749\n'), 'mm/slub.c')
		self.assertEqual(series.failed_file('error: mm/x.c: does not exist in index\n'), 'mm/x.c')
		self.assertEqual(series.failed_file('fatal: other\n'), 'the tree')


class StampTest(unittest.TestCase):

	def test_holds_only_the_key_it_was_set_to(self) -> None:
		with tempfile.TemporaryDirectory() as d:
			s = Stamp(os.path.join(d, 'stamp'))
			k = digest([b'a', b'b'])
			self.assertFalse(s.holds(k))
			s.set(k)
			self.assertTrue(s.holds(k))
			self.assertFalse(s.holds(digest([b'ab'])))	# parts are delimited
			s.clear()
			s.clear()
			self.assertFalse(s.holds(k))


class UpToDateTest(unittest.TestCase):

	def test_another_cells_obj_dir_is_no_source_change(self) -> None:
		"""Configuring a cell creates its O= dir in the tree's top
		directory, which renews that directory's mtime: no source of any
		other cell changed, so their kernels stay built (measured: a warm
		PROFILE="debug leak" ran kbuild for every SLAB and SLUB cell, 119 s
		against 12 s). An edited source file still counts."""
		with tempfile.TemporaryDirectory() as d:
			build = kernel.CellBuild(Settings(cache=d), 'vanilla', 'slub', 'leak')
			os.makedirs(os.path.dirname(build.bzimage))
			os.makedirs(os.path.join(build.tree.src, 'mm'))
			source = os.path.join(build.tree.src, 'mm', 'slub.c')
			for path in (source, build.bzimage):
				with open(path, 'w') as f:
					f.write('')
			past = time.time() - 60
			for path in (source, os.path.join(build.tree.src, 'mm'), build.tree.src):
				os.utime(path, (past, past))
			stamp = Stamp(os.path.join(build.obj, '.zsp-built'))
			stamp.set('k')
			os.utime(stamp.path, (past + 1, past + 1))
			os.makedirs(build.obj.replace('leak', 'debug'))
			self.assertTrue(build.up_to_date(stamp, 'k'))
			os.utime(source)
			self.assertFalse(build.up_to_date(stamp, 'k'))


class RunTest(unittest.TestCase):

	def test_interrupted_step_lets_its_command_clean_up(self) -> None:
		"""Ctrl-C (or SIGTERM, made SystemExit) while a step runs: the
		command gets SIGTERM and is waited for, as make must be to delete
		its half-written targets."""
		with tempfile.TemporaryDirectory() as d:
			done = os.path.join(d, 'cleaned')

			def interrupt(_signum: int, _frame: Optional[FrameType]) -> None:
				raise KeyboardInterrupt

			old = signal.signal(signal.SIGALRM, interrupt)
			try:
				signal.setitimer(signal.ITIMER_REAL, 0.5)
				t0 = time.monotonic()
				with self.assertRaises(KeyboardInterrupt):
					kernel.run(['sh', '-c', 'sleep 30 & pid=$!; trap "kill $pid; '
						    f'sleep 0.3; touch {done}; exit 1" TERM; wait'],
						   log_file=os.path.join(d, 'log'))
			finally:
				signal.setitimer(signal.ITIMER_REAL, 0)
				signal.signal(signal.SIGALRM, old)
			self.assertTrue(os.path.exists(done), 'the command was not given time to clean up')
			self.assertLess(time.monotonic() - t0, 10)

	def test_log_appends_when_asked(self) -> None:
		with tempfile.TemporaryDirectory() as d:
			log = os.path.join(d, 'log')
			kernel.run(['echo', 'one'], log_file=log)
			p = kernel.run(['echo', 'two'], log_file=log, append=True)
			self.assertEqual(p.stdout, 'one\ntwo\n')


if __name__ == '__main__':
	unittest.main()


class HasCommitTest(unittest.TestCase):
	"""Z6's expectation follows the tree's own history, never the git
	repository the cache directory may sit in."""

	def test_only_the_trees_own_history_answers(self) -> None:
		with tempfile.TemporaryDirectory() as cache:
			def git(cwd: str, *args: str) -> None:
				kernel.run(['git', '-C', cwd] + kernel.GIT_ID + list(args))
			# The cache inside a checkout whose history has the subject.
			git(cache, 'init', '-q')
			git(cache, 'commit', '-q', '--allow-empty', '-m', 'x86/mm: the subject')
			s = Settings(cache=cache)
			vanilla, patched = kernel.Tree(s, 'vanilla'), kernel.Tree(s, 'patched')
			for t in (vanilla, patched):
				os.makedirs(t.src)
			git(patched.src, 'init', '-q')
			git(patched.src, 'commit', '-q', '--allow-empty', '-m', 'base')
			self.assertFalse(vanilla.has_commit('x86/mm: the subject'))
			self.assertFalse(patched.has_commit('x86/mm: the subject'))
			git(patched.src, 'commit', '-q', '--allow-empty', '-m', 'x86/mm: the subject')
			self.assertTrue(patched.has_commit('x86/mm: the subject'))
			self.assertFalse(patched.has_commit('x86/mm: the'))


def write_series(patches: str, line: str) -> None:
	"""A one-patch series that adds @line to slub.c."""
	os.makedirs(patches, exist_ok=True)
	with open(os.path.join(patches, 'series'), 'w') as f:
		f.write('0001.patch\n')
	with open(os.path.join(patches, '0001.patch'), 'w') as f:
		f.write('From: z <z@example.org>\nSubject: [PATCH] slub\n\n---\n'
			'diff --git a/slub.c b/slub.c\n--- a/slub.c\n+++ b/slub.c\n'
			f'@@ -1 +1,2 @@\n int x;\n+{line}\n')


class ApplySeriesTest(unittest.TestCase):
	"""Re-applying an edited series rewrites only what it changes: kbuild
	rebuilds by mtime, and a file written anew is a file to recompile."""

	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.addCleanup(self.tmp.cleanup)
		self.patches = os.path.join(self.tmp.name, 'patches')
		self.tree = Tree(Settings(cache=os.path.join(self.tmp.name, 'cache'),
					  patches=self.patches), 'patched')
		os.makedirs(self.tree.src)
		for name in ('untouched.c', 'slub.c'):
			with open(os.path.join(self.tree.src, name), 'w') as f:
				f.write('int x;\n')
		for args in (['init', '-q'], ['add', '-A'], ['commit', '-q', '-m', 'base'],
			     ['tag', 'zsp-base']):
			self.assertEqual(self.tree.git(*args).returncode, 0, args)
		self.write_series('int y;')
		self.tree.apply_series()

	def write_series(self, line: str) -> None:
		write_series(self.patches, line)

	def test_a_hard_linked_copy_does_not_make_every_file_new(self) -> None:
		untouched = os.path.join(self.tree.src, 'untouched.c')
		before = os.stat(untouched).st_mtime_ns
		time.sleep(0.05)
		# What zsp mutants and make bench's peer do: cp -al of the tree.
		copy = os.path.join(self.tmp.name, 'copy')
		os.makedirs(copy)
		os.link(untouched, os.path.join(copy, 'untouched.c'))
		self.write_series('int z;')
		self.tree.apply_series()
		with open(os.path.join(self.tree.src, 'slub.c')) as f:
			self.assertIn('int z;', f.read())
		self.assertEqual(os.stat(untouched).st_mtime_ns, before)


class LinkedTreeTest(unittest.TestCase):
	"""The patched tree is the vanilla tree hard-linked (a kernel tree is
	1.5-2 GiB on a shared disk): applying the series must never write
	through a link into vanilla, and vanilla's O= dirs stay its own."""

	def test_series_leaves_vanilla_as_unpacked(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			patches = os.path.join(tmp, 'patches')
			s = Settings(cache=os.path.join(tmp, 'cache'), patches=patches,
				     tarball=os.path.join(tmp, 'no-such.tar.xz'))
			vanilla, patched = Tree(s, 'vanilla'), Tree(s, 'patched')
			os.makedirs(os.path.join(vanilla.src, 'o-slub'))
			for name in ('untouched.c', 'slub.c', '.zsp-unpacked'):
				with open(os.path.join(vanilla.src, name), 'w') as f:
					f.write('int x;\n' if name.endswith('.c') else '')
			patched.unpack()	# no tarball: it links
			self.assertFalse(os.path.exists(os.path.join(patched.src, 'o-slub')))
			for args in (['init', '-q'], ['add', '-A'], ['commit', '-q', '-m', 'base'],
				     ['tag', 'zsp-base']):
				self.assertEqual(patched.git(*args).returncode, 0, args)
			write_series(patches, 'int y;')
			patched.apply_series()
			with open(os.path.join(patched.src, 'slub.c')) as f:
				self.assertIn('int y;', f.read())
			with open(os.path.join(vanilla.src, 'slub.c')) as f:
				self.assertEqual(f.read(), 'int x;\n')
			self.assertTrue(os.path.samefile(os.path.join(vanilla.src, 'untouched.c'),
							 os.path.join(patched.src, 'untouched.c')))

	def test_without_vanilla_it_needs_the_tarball(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			s = Settings(cache=tmp, tarball=os.path.join(tmp, 'no-such.tar.xz'))
			with self.assertRaisesRegex(TreeError, 'no-such.tar.xz is missing'):
				Tree(s, 'patched').unpack()


class GuestInitTest(unittest.TestCase):

	def test_every_function_it_calls_is_defined(self) -> None:
		"""shellcheck does not see a call of a function that is gone: in
		the guest it is "not found" (rc 127), an error row at best. Its
		functions have an underscore, busybox's applets here have none."""
		with open(os.path.join(axes.MATRIX, 'guest-init')) as f:
			code = '\n'.join(ln for ln in f.read().splitlines()
					 if not ln.lstrip().startswith('#'))
		defined = set(re.findall(r'^(\w+)\(\) \{', code, re.M))
		called = set(re.findall(r'(?:^\s*|&&\s*|\|\|\s*|\(\s*|;\s*|\bthen\s+|\bdo\s+|'
					r'\belse\s+)([a-z]+_[a-z_]+)\b(?!=)', code, re.M))
		self.assertIn('memcg_enter', called)
		self.assertEqual(called - defined, set())
