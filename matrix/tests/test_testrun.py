# SPDX-License-Identifier: GPL-2.0
"""make test's counting (zsp/testrun.py): nothing counted is a failure,
a stage that breaks is a failure, skips are shown only when real."""

import argparse
import contextlib
import io
import tempfile
import unittest
from unittest import mock

from zsp import testrun
from zsp.kernel import Settings


class CountTest(unittest.TestCase):

	def test_no_verdict_is_a_failure(self) -> None:
		self.assertEqual(str(testrun.of([])), '0 passed, 1 failed')
		self.assertEqual(str(testrun.of([True, False, True])), '2 passed, 1 failed')

	def test_skips_shown_only_when_real(self) -> None:
		self.assertEqual(str(testrun.Count(3, 0, 1)), '3 passed, 0 failed, 1 skipped')

	def run_main(self, stages: str) -> str:
		with tempfile.TemporaryDirectory() as d:
			args = argparse.Namespace(results=d, stages=stages)
			out = io.StringIO()
			with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
				rc = testrun.main(Settings(cache=d), args)
		return f'{rc} {out.getvalue().strip()}'.strip()

	def test_a_broken_stage_is_a_failure(self) -> None:
		with mock.patch.object(testrun.Stages, 'check', side_effect=OSError('gone')), \
		     mock.patch.object(testrun.Stages, 'baseline',
				       return_value=testrun.Count(passed=2)):
			self.assertEqual(self.run_main('check,baseline'), '1 2 passed, 1 failed')

	def test_unknown_stage(self) -> None:
		self.assertEqual(self.run_main('matrix,nope'), '2')


if __name__ == '__main__':
	unittest.main()
