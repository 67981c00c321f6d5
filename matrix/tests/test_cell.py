# SPDX-License-Identifier: GPL-2.0
"""cell.Cell.judge(): how the console overrides kunit.py's verdict."""

import argparse
import unittest

import cell
import console


def judge(kstatus: str, ev: console.CaseEvents) -> cell.CaseResult:
	c = cell.Cell(argparse.Namespace())
	c.suite_of['x'] = 'zero_size_fault'
	c.judge('x', kstatus, ev, 1)
	return c.results['x']


class JudgeTest(unittest.TestCase):

	def test_plain_pass(self) -> None:
		self.assertEqual(judge('PASS', console.CaseEvents(True, True)).status, 'pass')

	def test_pass_with_splat_fails(self) -> None:
		ev = console.CaseEvents(True, True, splats=['WARNING: CPU: 0 PID: 1 at mm/slab_common.c:1'])
		r = judge('PASS', ev)
		self.assertEqual(r.status, 'fail')
		self.assertIn('WARNING', r.detail)

	def test_expected_oops_must_name_0x10(self) -> None:
		ev = console.CaseEvents(True, True, expects_oops=True,
					oopses=['BUG: unable to handle page fault for address: ffffebde00000008'])
		self.assertEqual(judge('PASS', ev).status, 'fail')

	def test_expected_oops_at_0x10_passes(self) -> None:
		head = 'BUG: kernel NULL pointer dereference, address: 0000000000000010'
		ev = console.CaseEvents(True, True, expects_oops=True, oopses=[head], splats=[head])
		self.assertEqual(judge('PASS', ev).status, 'pass')

	def test_expected_oops_missing_fails(self) -> None:
		ev = console.CaseEvents(True, True, expects_oops=True)
		self.assertEqual(judge('PASS', ev).status, 'fail')

	def test_kunit_skip_stays_skip(self) -> None:
		self.assertEqual(judge('SKIP', console.CaseEvents(True, True)).status, 'skip')

	def test_kunit_failure_stays_failure(self) -> None:
		self.assertEqual(judge('FAIL', console.CaseEvents(True, True)).status, 'fail')


if __name__ == '__main__':
	unittest.main()
