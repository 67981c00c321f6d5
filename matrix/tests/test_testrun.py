# SPDX-License-Identifier: GPL-2.0
"""make test's counting (zsp/testrun.py): nothing counted is a failure,
a stage that breaks is a failure, skips are shown only when real."""

import contextlib
import io
import os
import shlex
import tempfile
import unittest
from typing import Any, List
from unittest import mock

from zsp import commits, testrun
from zsp.errors import DiskError
from zsp.settings import Settings


class CountTest(unittest.TestCase):

	def setUp(self) -> None:
		# The disk check is RequireTest's (test_disk.py): here, room.
		free = mock.patch.object(testrun.disk, 'free_gib', return_value=1000.0)
		free.start()
		self.addCleanup(free.stop)

	def test_a_full_disk_refuses_before_any_stage(self) -> None:
		with mock.patch.object(testrun.disk, 'free_gib', return_value=0.5), \
		     mock.patch.object(testrun.Stages, 'selftest') as selftest, \
		     self.assertRaisesRegex(DiskError, 'make test needs about'):
			self.run_main('selftest')
		selftest.assert_not_called()

	def test_no_verdict_is_a_failure(self) -> None:
		self.assertEqual(str(testrun.of([])), '0 passed, 1 failed')
		self.assertEqual(str(testrun.of([True, False, True])), '2 passed, 1 failed')

	def test_skips_shown_only_when_real(self) -> None:
		self.assertEqual(str(testrun.Count(3, 0, 1)), '3 passed, 0 failed, 1 skipped')

	def run_main(self, stages: str) -> str:
		with tempfile.TemporaryDirectory() as d:
			req = testrun.TestRequest(results=d, stages=stages)
			out = io.StringIO()
			with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
				rc = testrun.main(Settings(cache=d), req)
		return f'{rc} {out.getvalue().strip()}'.strip()

	def test_a_broken_stage_is_a_failure(self) -> None:
		with mock.patch.object(testrun.Stages, 'check', side_effect=OSError('gone')), \
		     mock.patch.object(testrun.Stages, 'baseline',
				       return_value=testrun.Count(passed=2)):
			self.assertEqual(self.run_main('check,baseline'), '1 2 passed, 1 failed')

	def test_stdout_is_the_summary_alone(self) -> None:
		def noisy() -> testrun.Count:
			print('ok   something')
			return testrun.Count(passed=1)
		with mock.patch.object(testrun.Stages, 'check', side_effect=noisy):
			self.assertEqual(self.run_main('check'), '0 1 passed, 0 failed')

	def test_matrix_with_no_gated_row_is_a_failure(self) -> None:
		with tempfile.TemporaryDirectory() as d:
			stages = testrun.Stages(Settings(cache=d), testrun.TestRequest(results=d))
			os.makedirs(stages.matrix_run)
			open(os.path.join(stages.matrix_run, 'results.json'), 'w').close()
			zero = {'pass': 0, 'fail': 0, 'skip': 0, 'known': 0}
			with mock.patch.object(testrun.pipeline, 'run'), \
			     mock.patch.object(testrun.table, 'count', return_value=zero), \
			     contextlib.redirect_stderr(io.StringIO()):
				self.assertEqual(str(stages.matrix()), '0 passed, 1 failed')

	def test_matrix_runs_the_patched_profiles(self) -> None:
		calls = []
		with tempfile.TemporaryDirectory() as d:
			req = testrun.TestRequest(results=d, profile='tiny')
			stages = testrun.Stages(Settings(cache=d), req)
			with mock.patch.object(testrun.pipeline, 'run',
					       side_effect=lambda _s, a: calls.append(a)), \
			     mock.patch.object(testrun, 'PATCHED_PROFILES',
					       (('distro', 'slub'), ('debug', 'slab slob'))), \
			     contextlib.redirect_stderr(io.StringIO()):
				stages.matrix()
		self.assertEqual([(a.trees, a.profiles, a.allocs) for a in calls],
				 [('', '', ''), ('patched', 'distro', 'slub'),
				  ('patched', 'debug', 'slab slob')])
		self.assertEqual({a.run for a in calls}, {stages.matrix_run}, 'one table')

	def test_matrix_gives_run_every_flag_of_zsp_run(self) -> None:
		"""The stage calls pipeline.run() with a RunRequest of its own:
		it must be the one "zsp run" makes of the same flags (a flag of
		zsp test that did not reach it would be lost at the matrix
		stage, in CI only)."""
		from zsp import __main__
		calls = []
		with tempfile.TemporaryDirectory() as d:
			parser = __main__.build_parser()
			flags = ['--cache', d, '--profile', 'debug', '--patches', d, '--timeout', '7',
				 '--silence', '3', '--max-boots', '5']
			req = __main__.test_request(parser.parse_args(['test', d] + flags))
			stages = testrun.Stages(Settings(cache=d), req)
			want = __main__.run_request(parser.parse_args(['run', stages.matrix_run] + flags))
			with mock.patch.object(testrun.pipeline, 'run',
					       side_effect=lambda _s, a: calls.append(a)), \
			     contextlib.redirect_stderr(io.StringIO()):
				stages.matrix()
		self.assertTrue(calls)
		self.assertEqual(calls[0], want)

	def test_matrix_runs_its_kernels_unless_one_is_given(self) -> None:
		calls: List[Any] = []
		with tempfile.TemporaryDirectory() as d, \
		     mock.patch.object(testrun.pipeline, 'run', side_effect=lambda _s, a: calls.append(a)), \
		     contextlib.redirect_stderr(io.StringIO()):
			req = testrun.TestRequest(results=d)
			testrun.Stages(Settings(cache=d), req).matrix()
			testrun.Stages(Settings(cache=d, kernel='6.12'), req).matrix()
		self.assertEqual([c.kernels for c in calls], [' '.join(testrun.KERNELS), ''])
		self.assertIn('7.3', testrun.KERNELS)

	def test_bisect_stage_reads_the_answers_of_a_case_bisect(self) -> None:
		"""The self-test bisects with CASE=: its answers name the case, and
		only the planted patch on SLUB and nothing on SLAB pass."""
		slub = (f'first bad patch on slub for {commits.BAD_CASE}: slub/{commits.BAD_NAME} '
			'(mm/slub: drop the sentinel test); logs: x')
		slab = (f'nothing in slub/0005-x.patch..the tip is bad on slab for {commits.BAD_CASE}: '
			'BAD passes; logs: y')
		wrong = f'first bad patch on slub for {commits.BAD_CASE}: slub/0006-x.patch (x); logs: x'
		for answers, want in (((slub, slab), (2, 0)), ((wrong, slab), (1, 1))):
			with tempfile.TemporaryDirectory() as d, \
			     mock.patch.object(testrun.commits, 'plant_bad', return_value='slub/0005-x.patch'), \
			     mock.patch.object(testrun.commits, 'find_first_bad', side_effect=answers) as f, \
			     contextlib.redirect_stderr(io.StringIO()):
				n = testrun.Stages(Settings(cache=d), testrun.TestRequest(results=d)).bisect()
			self.assertEqual((n.passed, n.failed), want, answers[0])
			self.assertTrue(all(c.args[1].case == commits.BAD_CASE for c in f.call_args_list))

	def test_faults_get_the_runs_settings(self) -> None:
		seen = []

		def faults(_pattern: str) -> testrun.Count:
			seen.append(os.environ[testrun.SETTINGS_ENV])
			return testrun.Count(passed=1)
		with tempfile.TemporaryDirectory() as d:
			s = Settings(cache=d, patches=os.path.join(d, 'my patches'), jobs=3)
			stages = testrun.Stages(s, testrun.TestRequest(results=d))
			with mock.patch.object(testrun, 'unittests', side_effect=faults):
				stages.faults()
		argv = shlex.split(seen[0])
		self.assertEqual(argv[argv.index('--patches') + 1], os.path.join(d, 'my patches'))
		self.assertEqual(argv[argv.index('--jobs') + 1], '3')
		self.assertNotIn(testrun.SETTINGS_ENV, os.environ, 'left behind')


	def test_unknown_stage(self) -> None:
		self.assertEqual(self.run_main('matrix,nope'), '2')

class CountingResultTest(unittest.TestCase):
	"""Passes are counted one by one, not as testsRun minus failures."""

	def test_subtests_and_class_errors(self) -> None:
		class T(unittest.TestCase):
			def test_two_failed_subtests(self) -> None:
				for i in range(2):
					with self.subTest(i=i):
						self.fail('no')

			def test_passes(self) -> None:
				pass

		class Broken(unittest.TestCase):
			@classmethod
			def setUpClass(cls) -> None:
				raise OSError('no fixture')

			def test_never_runs(self) -> None:
				pass
		load = unittest.defaultTestLoader.loadTestsFromTestCase
		suite = unittest.TestSuite([load(T), load(Broken)])
		r = unittest.TextTestRunner(stream=io.StringIO(),
					    resultclass=testrun.CountingResult).run(suite)
		assert isinstance(r, testrun.CountingResult)
		self.assertEqual(str(r.count()), '1 passed, 3 failed')

	def test_nothing_ran_is_a_failure(self) -> None:
		r = unittest.TextTestRunner(stream=io.StringIO(),
					    resultclass=testrun.CountingResult).run(unittest.TestSuite())
		assert isinstance(r, testrun.CountingResult)
		self.assertEqual(str(r.count()), '0 passed, 1 failed')


if __name__ == '__main__':
	unittest.main()
