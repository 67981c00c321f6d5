# SPDX-License-Identifier: GPL-2.0
"""The bisect step's verdict (zsp/commits.py, for git bisect run): only
pass passes, and rows outside the cases always count."""

import contextlib
import io
import json
import os
import tempfile
import unittest
from typing import List

from zsp import commits


def case(name: str, status: str, suite: str = 'zero_size_free') -> dict:
	return {'suite': suite, 'case': name, 'status': status, 'detail': 'd', 'boot': 1}


class VerdictTest(unittest.TestCase):

	def verdict(self, cases: List[dict], want: str = '') -> int:
		with tempfile.TemporaryDirectory() as d:
			path = os.path.join(d, 'cell.json')
			with open(path, 'w') as f:
				json.dump({'cases': cases}, f)
			with contextlib.redirect_stderr(io.StringIO()):
				return commits.verdict_of(path, want)

	def test_all_pass(self) -> None:
		self.assertEqual(self.verdict([case('z2_kfree', 'pass')]), 0)
		self.assertEqual(self.verdict([case('z2_kfree', 'pass')], 'z2_kfree'), 0)

	def test_skip_and_error_are_not_pass(self) -> None:
		for status in ('skip', 'error'):
			self.assertEqual(self.verdict([case('z2_kfree', status)]), 1, status)
			self.assertEqual(self.verdict([case('z2_kfree', status)], 'z2_kfree'), 1, status)

	def test_outside_cases_row_fails_even_for_one_case(self) -> None:
		cases = [case('z2_kfree', 'pass'),
			 case('outside_cases', 'crash', suite='zero_size_test')]
		self.assertEqual(self.verdict(cases), 1)
		self.assertEqual(self.verdict(cases, 'z2_kfree'), 1)

	def test_cell_rows_and_errors_count_for_one_case(self) -> None:
		self.assertEqual(self.verdict([case('z2_kfree', 'pass'),
					       case('boot', 'crash', suite='cell')], 'z2_kfree'), 1)
		self.assertEqual(self.verdict([case('z2_kfree', 'pass'),
					       case('z2_kvfree', 'error')], 'z2_kfree'), 1)
		# Another case's plain failure is not CASE's.
		self.assertEqual(self.verdict([case('z2_kfree', 'pass'),
					       case('z2_kvfree', 'crash')], 'z2_kfree'), 0)

	def test_case_without_result(self) -> None:
		self.assertEqual(self.verdict([case('z2_kfree', 'pass')], 'z2_kvfree'), 1)


if __name__ == '__main__':
	unittest.main()
