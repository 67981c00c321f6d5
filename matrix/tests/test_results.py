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

from zsp import commits, results


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


class RecordedSeriesTest(unittest.TestCase):
	"""cell.json's "series" (schema 2): what a verdict was made of. Cells
	of older runs still load; the series they never recorded is not
	known, never assumed."""

	SERIES = {'digest': 'a' * 64, 'patchset_hash': 'b' * 64, 'patches': ['0001-x.patch']}

	def write(self, run: str, name: str, cell: dict) -> None:
		os.makedirs(os.path.join(run, name))
		with open(os.path.join(run, name, 'cell.json'), 'w') as f:
			json.dump(cell, f)

	def test_old_and_new_cells(self) -> None:
		with tempfile.TemporaryDirectory() as run:
			self.write(run, 'patched-slub', {'schema': 1, 'boots': [], 'cases': []})
			self.write(run, 'patched-slab', {'schema': 2, 'series': self.SERIES,
							 'kernel_image_sha256': 'c' * 64,
							 'boots': [], 'cases': []})
			self.write(run, 'vanilla-slab', {'schema': 2, 'series': {'digest': ''}})
			# A bisect step's: known not to be of a series.
			self.write(run, 'patched-slub-distro', {'schema': 2, 'series': None})
			os.makedirs(os.path.join(run, 'patched-slob'))	# did not build
			self.assertEqual(results.run_series(run, '6.1'),
					 {'patched-slab': self.SERIES, 'patched-slub': None,
					  'patched-slub-distro': None})
			self.assertEqual(results.run_series(run, '6.12'), {})
		self.assertEqual(results.recorded_series({'series': {'digest': ''}}), {'digest': ''})
		self.assertIsNone(results.recorded_series({'series': 'a' * 64}))
		self.assertEqual(results.short(self.SERIES), 'series aaaaaaaaaaaa')
		self.assertEqual(results.short(None), 'no recorded series')

	def test_schema_says_cells_record_their_inputs(self) -> None:
		"""A harness that does not check the series must not merge,
		export or cover-letter a run whose cells record one."""
		self.assertGreaterEqual(results.SCHEMA, 2)


class MutantVerdictTest(unittest.TestCase):
	"""A mutant is killed by a case it names (Kills:), never by noise."""

	KILLS = frozenset({'z2_kmem_cache_free'})

	def test_named_case_kills(self) -> None:
		for status in ('fail', 'crash', 'hang'):
			got = results.mutant_verdict([case('z2_kmem_cache_free', status)], self.KILLS)
			self.assertEqual(got[0], 'killed', status)

	def test_noise_is_an_error_not_a_kill(self) -> None:
		for noise in (case('z2_kfree', 'crash'), case('outside_cases', 'hang'),
			      case('suite', 'error', suite='cell')):
			got = results.mutant_verdict([case('z2_kmem_cache_free', 'pass'), noise],
						     self.KILLS)
			self.assertEqual(got[0], 'error', noise)

	def test_named_case_without_result_is_an_error(self) -> None:
		got = results.mutant_verdict([case('z2_kfree', 'pass')], self.KILLS)
		self.assertEqual(got, ('error', 'suite: no result for z2_kmem_cache_free'))

	def test_named_cases_pass_survives(self) -> None:
		got = results.mutant_verdict([case('z2_kmem_cache_free', 'pass')], self.KILLS)
		self.assertEqual(got[0], 'survived')

	def test_control_counts_every_contract_case(self) -> None:
		self.assertEqual(results.mutant_verdict([case('z2_kfree', 'crash')])[0], 'killed')
		self.assertEqual(results.mutant_verdict([case('z2_kfree', 'pass')])[0], 'survived')
