# SPDX-License-Identifier: GPL-2.0
"""zsp/commits.py and zsp/mutants.py on small fake trees: what GOOD/BAD
name, the series checked out again after a bisect or series-check, a
mutant applied to the copy and put back."""

import contextlib
import dataclasses
import io
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

from zsp import __main__, axes, commits, errors, mutants, runner, series
from zsp.kernel import GIT_ID, Tree
from zsp.pipeline import CellRequest, Limits
from zsp.settings import Settings


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
		with self.assertRaisesRegex(errors.BisectError, "'0003-x' is neither a patch"):
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
		self.assertIn('z2_kfree', runner.source_cases())

	def bisect_then_sigterm(self, step: str, ready: str) -> subprocess.Popen:
		"""A bisect (in a child process) whose git bisect run step is the
		shell line step; SIGTERM'd once the step has created ready."""
		script = f"""
import os
from unittest import mock
from zsp import commits
from zsp.settings import Settings
s = Settings(cache={self.s.cache!r}, patches={self.patches!r})
with mock.patch.object(commits.Tree, 'prepare', return_value=''):
	with commits.patched_tree(s) as tree:
		tree.git('bisect', 'start', {self.commits[2]!r}, {self.commits[0]!r})
		commits.bisect_run(tree, ['sh', '-c', {step!r}], dict(os.environ),
				   {os.path.join(self.tmp.name, 'bisect.log')!r})
"""
		p = subprocess.Popen([sys.executable, '-c', script], env=dict(
			os.environ, PYTHONPATH=axes.MATRIX), stderr=subprocess.DEVNULL)
		for _ in range(200):
			if os.path.exists(ready):
				break
			time.sleep(0.05)
		self.assertTrue(os.path.exists(ready), 'the step never started')
		self.assertEqual(git(self.tree.src, 'rev-parse', 'HEAD'), self.commits[1])
		p.send_signal(signal.SIGTERM)
		return p

	def test_sigterm_checks_the_series_out_again(self) -> None:
		"""A bisect stopped by SIGTERM mid-step: the step's process group
		is stopped and the series is checked out again (not left on the
		bisect's commit with the series' stamp still valid)."""
		d = self.tmp.name
		pidfile, ready = os.path.join(d, 'step.pid'), os.path.join(d, 'ready')
		p = self.bisect_then_sigterm(f'echo $$ > {pidfile}; touch {ready}; exec sleep 120',
					     ready)
		self.assertEqual(p.wait(30), 128 + signal.SIGTERM)
		self.assertEqual(git(self.tree.src, 'rev-parse', '--abbrev-ref', 'HEAD'),
				 'zsp-series')
		with open(pidfile) as f:
			pid = int(f.read())
		for _ in range(100):
			if not alive(pid):
				break
			time.sleep(0.05)
		self.assertFalse(alive(pid), 'the step outlived its bisect')

	def test_sigterm_waits_for_the_steps_clean_up(self) -> None:
		"""A step that takes a while to clean up (kbuild, QEMU) is done
		before the bisect checks the series out and returns."""
		d = self.tmp.name
		ready, cleaned = os.path.join(d, 'ready'), os.path.join(d, 'cleaned')
		p = self.bisect_then_sigterm(f"trap 'sleep 1; touch {cleaned}; exit 1' TERM; "
					     f'touch {ready}; while :; do sleep 0.1; done', ready)
		p.wait(30)
		self.assertTrue(os.path.exists(cleaned), 'returned before the step cleaned up')
		self.assertEqual(git(self.tree.src, 'rev-parse', '--abbrev-ref', 'HEAD'),
				 'zsp-series')

	def test_relative_run_dir_is_made_absolute(self) -> None:
		"""git bisect run runs the step in the tree: a relative run dir
		must not land there."""
		req = commits.BisectRequest(alloc='slub', case='', run='rel/run', good='base', bad='')
		cwd = os.getcwd()
		os.chdir(self.tmp.name)
		try:
			# The request is frozen: the run dir the bisect goes on with
			# is the one it makes.
			with mock.patch.object(commits, 'patched_tree', side_effect=RuntimeError('stop')), \
			     mock.patch.object(commits.os, 'makedirs', wraps=os.makedirs) as makedirs, \
			     self.assertRaises(RuntimeError):
				commits.find_first_bad(self.s, req)
		finally:
			os.chdir(cwd)
		self.assertEqual(makedirs.call_args_list[0],
				 mock.call(os.path.join(self.tmp.name, 'rel', 'run'), exist_ok=True))


class PlantBadTest(unittest.TestCase):

	def test_the_bad_patch_follows_the_slub_fix_in_a_copy(self) -> None:
		"""make test's bisect stage and make bench plant the same patch:
		right after the SLUB fix it takes back, the real series untouched."""
		src = Settings(cache='c').patches
		with open(os.path.join(src, 'series')) as f:
			before = f.read()
		with tempfile.TemporaryDirectory() as d:
			good = commits.plant_bad(src, d)
			entries = series.entries(d)
			self.assertTrue(good.startswith('slub/'))
			self.assertEqual(entries[entries.index(good) + 1], f'slub/{commits.BAD_NAME}')
			self.assertEqual(len(entries), len(series.entries(src)) + 1)
			with open(os.path.join(d, 'slub', commits.BAD_NAME)) as f:
				self.assertIn('build_detached_freelist', f.read())
		with open(os.path.join(src, 'series')) as f:
			self.assertEqual(f.read(), before)
		self.assertIn(commits.BAD_CASE, runner.source_cases())


class BisectStepTest(unittest.TestCase):

	def test_a_step_with_case_boots_that_case_only(self) -> None:
		"""CASE= reaches the boot as --only: a step's verdict is that
		case's, so the cases the plan would run besides it are waste
		(vanilla SLOB's crashes and hangs cost a boot each)."""
		seen = []

		def cell(_s: Settings, a: CellRequest) -> int:
			seen.append(a.only)
			return 0
		with tempfile.TemporaryDirectory() as d, \
		     mock.patch.object(commits.pipeline, 'cell', side_effect=cell):
			for case in ('z2_kfree', ''):
				req = commits.BisectRequest(run=d, alloc='slob', case=case, profile='tiny')
				commits.step_cell(Settings(cache=d), req, d)
		self.assertEqual(seen, ['z2_kfree', ''])

	def test_boot_all_boots_the_suite_and_reaches_the_step(self) -> None:
		"""--boot-all (make bench's before) keeps the case's verdict but
		boots every case, at each step git bisect run calls."""
		seen = []

		def cell(_s: Settings, a: CellRequest) -> int:
			seen.append(a.only)
			return 0
		req = commits.BisectRequest(alloc='slob', case='z2_kfree', profile='tiny', boot_all=True,
					    run='r', limits=Limits(timeout=1, silence=1, max_boots=1))
		with tempfile.TemporaryDirectory() as d, \
		     mock.patch.object(commits.pipeline, 'cell', side_effect=cell):
			commits.step_cell(Settings(cache=d), req, d)
			argv = commits.step_argv(Settings(cache=d), req)
		self.assertEqual(seen, [''])
		self.assertIn('--boot-all', argv)
		self.assertEqual(argv[argv.index('--case') + 1], 'z2_kfree')
		req = dataclasses.replace(req, boot_all=False)
		self.assertNotIn('--boot-all', commits.step_argv(Settings(cache='c'), req))

	def test_boot_passes_only_to_the_runner(self) -> None:
		build = mock.MagicMock(bzimage='bz', initramfs='i', gen_init_cpio='g',
				       kunit_tool='k', alloc='slob', not_available=[])
		build.s.kernel, build.s.fresh = '6.1', False
		build.profile.name, build.tree.name = 'tiny', 'patched'
		build.tree.has_commit.return_value = False
		limits = Limits(timeout=1, silence=1, max_boots=1)
		with mock.patch.object(commits.pipeline.subprocess, 'Popen') as popen, \
		     mock.patch.object(commits.pipeline.threading, 'Thread'):
			commits.pipeline.Boot(build, 'out', ['zero_size_test'], limits, 'store',
					      only='z2_kfree')
		cmd = popen.call_args[0][0]
		self.assertEqual(cmd[cmd.index('--only') + 1], 'z2_kfree')


def alive(pid: int) -> bool:
	"""Running, not a zombie waiting for a reaper that may never come."""
	try:
		with open(f'/proc/{pid}/stat') as f:
			return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
	except OSError:
		return False


class MutantsTest(unittest.TestCase):

	def test_max_boots_is_honoured(self) -> None:
		seen = []

		def cell(_s: Settings, a: CellRequest) -> int:
			seen.append(a.limits.max_boots)
			return 0
		parse = __main__.build_parser().parse_args
		with tempfile.TemporaryDirectory() as d, \
		     mock.patch.object(mutants.pipeline, 'cell', side_effect=cell), \
		     mock.patch.object(mutants, 'judge', return_value=['crash', '']), \
		     contextlib.redirect_stdout(io.StringIO()):
			for argv, want in (([], mutants.MUTANT_BOOTS), (['--max-boots', '7'], 7)):
				req = __main__.mutants_request(parse(['mutants', d] + argv))
				mutants.run_one(Settings(cache=d), req, 'm', 'slub', 'crash')
				self.assertEqual(seen[-1], want, argv)

	def test_a_mistyped_header_is_an_error(self) -> None:
		"""A mutant is never dropped or judged by a header it lacks."""
		good = ('Mutant: m\nKernel: 6.1\nProfile: tiny\nAllocator: slub\nMutates: slub/0005\n'
			'Kills: z2_kmem_cache_free,\n z2_kfree_bulk_small\n\ndiff\n')
		with tempfile.TemporaryDirectory() as d:
			path = os.path.join(d, '01-m.patch')
			with open(path, 'w') as f:
				f.write(good)
			m, = mutants.load_all(d)
			self.assertEqual(m.kills, {'z2_kmem_cache_free', 'z2_kfree_bulk_small'})
			self.assertEqual((m.kernel, m.profile), ('6.1', 'tiny'))
			for bad, why in ((good.replace('slub\n', 'slbu\n', 1), "Allocator: 'slbu'"),
					 (good.replace('6.1', '6.l'), "Kernel: '6.l'"),
					 (good.replace('Kernel: 6.1\n', ''), "Kernel: ''"),
					 (good.replace('tiny', 'tinny'), "Profile: 'tinny'"),
					 (good.replace('6.1', '7.3').replace('slub\n', 'slab\n', 1),
					  "Allocator: 'slab' is none of kernel 7.3's"),
					 (good.replace('Kills', 'Kils'), 'no Mutant: or Kills:'),
					 (good.replace('small', 'smal'), 'z2_kfree_bulk_smal, not a case')):
				with open(path, 'w') as f:
					f.write(bad)
				with self.assertRaisesRegex(errors.MutantError, why):
					mutants.load_all(d)

	def test_a_run_takes_its_kernels_and_profiles_mutants(self) -> None:
		m = [mutants.Mutant('a', 'a', 'slub', 'x', frozenset({'c'})),
		     mutants.Mutant('b', 'b', 'slub', 'x', frozenset({'c'}), kernel='7.3'),
		     mutants.Mutant('c', 'c', 'slub', 'x', frozenset({'c'}), profile='distro')]
		self.assertEqual([x.name for x in mutants.select(m, '6.1', 'tiny')], ['a'])
		self.assertEqual([x.name for x in mutants.select(m, '7.3', 'tiny')], ['b'])
		self.assertEqual([x.name for x in mutants.select(m, '6.1', 'distro', ('c',))], ['c'])
		for args, why in ((('6.1', 'tiny', ('b',)), 'for KERNEL=7.3 PROFILE=tiny'),
				  (('6.1', 'tiny', ('z',)), "unknown MUTANT 'z'"),
				  (('6.12', 'tiny', ()), 'no mutant for KERNEL=6.12 PROFILE=tiny')):
			with self.assertRaisesRegex(errors.MutantError, why):
				mutants.select(m, *args)

	def test_every_mutant_names_an_allocator_and_a_patch(self) -> None:
		every = mutants.load_all()
		self.assertGreater(len(every), 0)
		for m in every:
			names = series.entries(os.path.join(axes.ROOT, axes.KERNELS[m.kernel].patches))
			self.assertIn(m.allocator, axes.allocators(m.kernel), m.name)
			self.assertTrue(m.what, m.name)
			with open(m.path) as f:
				mutates = mutants.field(f.read(), 'Mutates')
			self.assertTrue(any(n.startswith(mutates) for n in names), (m.name, mutates))

	def test_apply_and_restore(self) -> None:
		with tempfile.TemporaryDirectory() as d:
			s = Settings(cache=d)
			src, dst = Tree(s, 'patched').src, Tree(s, 'mutant').src
			os.makedirs(os.path.join(src, 'mm'))
			subprocess.run(['git', '-C', src, 'init', '-q'], check=True)
			subprocess.run(['git', '-C', src, *GIT_ID, 'commit', '-q', '--allow-empty',
					'-m', 'x86/mm: a patch'], check=True)
			with open(os.path.join(src, '.git', 'zsp-series'), 'w') as f:
				f.write('key\n')
			with open(os.path.join(src, 'mm', 'slub.c'), 'w') as f:
				f.write('a\nb\nc\n')
			os.makedirs(os.path.join(dst, 'o-slub'))
			self.assertTrue(mutants.link_copy(src, dst))
			self.assertFalse(mutants.link_copy(src, dst))
			self.assertTrue(os.path.isdir(os.path.join(dst, 'o-slub')), 'O= dir kept')
			# No .git in the copy, but Z6 expects what the patched tree would.
			self.assertFalse(os.path.exists(os.path.join(dst, '.git')))
			self.assertTrue(Tree(s, 'mutant').has_commit('x86/mm: a patch'))
			self.assertFalse(Tree(s, 'mutant').has_commit('x86/mm: another'))
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


if __name__ == '__main__':
	unittest.main()
