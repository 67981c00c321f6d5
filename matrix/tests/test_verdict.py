# SPDX-License-Identifier: GPL-2.0
"""verdict.py without a process: a recorded console's scan, the statuses
kunit.py would give (written here, not parsed) and the boot's outcome ->
rows. Every test runs with processes and file writes refused."""

import builtins
import os
import subprocess
import unittest
from unittest import mock
from typing import Dict, IO, List, Optional, Sequence, Tuple

from zsp import console, handlers, qemu, verdict
from zsp.results import HOST_FAULT, Outcome

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data')
POWEROFF = qemu.BootResult(Outcome.POWEROFF, 'guest powered off', 1.0)
Statuses = Dict[str, List[Tuple[str, str]]]


def scan(name: str) -> console.Scan:
	with open(os.path.join(DATA, name)) as f:
		return console.scan(f.read().splitlines())


class PureCase(unittest.TestCase):

	def setUp(self) -> None:
		real_open = builtins.open

		def read_only(path: str, mode: str = 'r', *a: object, **kw: object) -> IO[str]:
			if any(c in mode for c in 'wax+'):
				raise AssertionError(f'verdict wrote {path}')
			return real_open(path, mode, *a, **kw)  # type: ignore[call-overload, no-any-return]
		refuse = AssertionError('verdict started a process')
		for patch in (mock.patch.object(subprocess, 'run', side_effect=refuse),
			      mock.patch.object(subprocess, 'Popen', side_effect=refuse),
			      mock.patch.object(builtins, 'open', side_effect=read_only)):
			patch.start()
			self.addCleanup(patch.stop)

	def boot(self, name: str, statuses: Statuses, r: qemu.BootResult = POWEROFF,
		 skip: Sequence[str] = (), distinct: bool = False,
		 rows: Optional[verdict.Rows] = None) -> verdict.Rows:
		"""What handlers.collect does with a KTAP module's segments, with
		@statuses standing for kunit.py's: module -> (case, status)."""
		rows = rows or verdict.Rows()
		sc = scan(name)
		rows.begin_boot()
		for seg in sc.segments:
			rows.saw_segment(seg)
			verdict.ktap_rows(rows, 1, seg, statuses.get(seg.module, []), skip, sc, distinct)
		verdict.after_segments(rows, 1, skip, r, sc)
		return rows


def table(rows: verdict.Rows) -> Dict[str, Tuple[str, str]]:
	return {f'{v.suite}.{v.case}': (v.status, v.detail) for v in rows.results.values()}


class BootTest(PureCase):

	def test_z6_console_windows_amend_kunit(self) -> None:
		ok = {'zero_size_test': [('z6_write_faults', 'PASS'), ('z6_read_faults', 'PASS')]}
		self.assertEqual(table(self.boot('z6-one-oops-each.console', ok)),
				 {'zero_size_fault.z6_write_faults': ('pass', ''),
				  'zero_size_fault.z6_read_faults': ('pass', '')})
		# The tree has the x86 patch: the same oopses now fail both.
		rows = table(self.boot('z6-one-oops-each.console', ok, distinct=True))
		for case in ('z6_write_faults', 'z6_read_faults'):
			status, detail = rows[f'zero_size_fault.{case}']
			self.assertEqual(status, 'fail')
			self.assertIn('does not name ZERO_SIZE_PTR', detail)

	def test_a_skipped_case_keeps_its_earlier_row(self) -> None:
		ok = {'zero_size_test': [('z6_write_faults', 'FAIL'), ('z6_read_faults', 'PASS')]}
		rows = self.boot('z6-one-oops-each.console', ok, skip=['z6_write_faults'])
		self.assertEqual(list(rows.results), ['z6_read_faults'])
		self.assertEqual(rows.suite_cases, {'z6_read_faults'})

	def test_a_lost_ok_line_is_an_error(self) -> None:
		ok = {'zero_size_test': [('z2_kfree', 'PASS'), ('z2_kfree_rcu_rcu_head', 'PASS')]}
		rows = table(self.boot('lost-ok-line.console', ok))
		self.assertEqual(rows['zero_size_free.z2_kvfree_rcu_headless'][0], 'error')
		self.assertIn('started in boot 1, printed no ok/not ok line',
			      rows['zero_size_free.z2_kvfree_rcu_headless'][1])
		self.assertEqual(rows['zero_size_free.z2_kfree'], ('pass', ''))

	def test_silence_after_a_case_is_the_modules_hang(self) -> None:
		r = qemu.BootResult(Outcome.HANG, 'no console output for 30 s', 35.0)
		rows = table(self.boot('silence-after-a-case.console', {}, r))
		self.assertEqual(rows['zero_size_test.outside_cases'],
				 ('hang', 'hang after z2_kfree: no console output for 30 s'))

	def test_a_crash_in_a_window_is_the_running_cases(self) -> None:
		r = qemu.BootResult(Outcome.CRASH, 'Oops: 0000 [#1] SMP', 3.0)
		rows = self.boot('kworker-oops-in-case-window.console', {}, r)
		status, detail = table(rows)['zero_size_free.z2_kvfree_rcu_headless']
		self.assertEqual(status, 'crash')
		self.assertIn('(Comm: kworker/1:0)', detail)
		self.assertIn('z2_kvfree_rcu_headless', rows.suite_cases)

	def test_qemu_killed_mid_case_is_no_kernel_verdict(self) -> None:
		r = qemu.BootResult(Outcome.QEMU_ERROR, 'qemu killed by SIGKILL', 2.0)
		rows = table(self.boot('qemu-killed-mid-case.boot-1.console',
				       {'zero_size_test': [('z2_kfree', 'PASS')]}, r))
		self.assertEqual(rows['zero_size_free.z2_kvfree_rcu_headless'],
				 ('error', f'qemu killed by SIGKILL: {HOST_FAULT}'))
		self.assertEqual(rows['zero_size_free.z2_kfree'], ('pass', ''))

	def test_rows_carry_over_boots(self) -> None:
		"""The second boot resumes: the first boot's rows stand."""
		r = qemu.BootResult(Outcome.QEMU_ERROR, 'qemu killed by SIGKILL', 2.0)
		rows = self.boot('qemu-killed-mid-case.boot-1.console',
				 {'zero_size_test': [('z2_kfree', 'PASS')]}, r)
		skip = sorted(rows.suite_cases)
		rows = self.boot('qemu-killed-mid-case.boot-2.console',
				 {'zero_size_test': [('z2_kfree', 'SKIP'),
						     ('z2_kvfree_rcu_headless', 'SKIP'),
						     ('z2_kfree_rcu_rcu_head', 'PASS')]},
				 skip=skip, rows=rows)
		verdict.finish(rows, [{'boot': 2, 'log': 'boot-2.log', 'outcome': 'poweroff',
				       'reason': ''}], ('zero_size_test',))
		self.assertEqual({k: v[0] for k, v in table(rows).items()},
				 {'zero_size_free.z2_kfree': 'pass',
				  'zero_size_free.z2_kvfree_rcu_headless': 'error',
				  'zero_size_free.z2_kfree_rcu_rcu_head': 'pass'})


class UpstreamPlanTest(PureCase):
	"""Issue 31, finding 11: every case an upstream module's KTAP plan
	announced ends with a row, as every case of the suite's zsp-cases
	lines does."""

	FINISHED = [{'boot': 1, 'log': 'boot-1.log', 'outcome': 'poweroff', 'reason': ''}]

	def scan_boot(self, rows: verdict.Rows, n: int, lines: List[str],
		      statuses: Statuses, r: qemu.BootResult = POWEROFF) -> None:
		sc = console.scan(lines)
		rows.begin_boot()
		for seg in sc.segments:
			rows.saw_segment(seg)
			verdict.ktap_rows(rows, n, seg, statuses.get(seg.module, []), (), sc, False)
		verdict.after_segments(rows, n, (), r, sc)

	def test_unreadable_ktap_leaves_no_case_unjudged(self) -> None:
		"""kunit.py read nothing (statuses empty): the console's result
		lines still name each case, and each is an error, not absent;
		so is the one whose line was lost, and the module's own row."""
		rows = self.boot('upstream-ktap-lost-subtest.console',
				 {'zero_size_test': [('z3_ksize', 'PASS')]})
		verdict.finish(rows, self.FINISHED, ('slub_kunit', 'zero_size_test'))
		got = table(rows)
		slub = {k: v for k, v in got.items() if k.startswith('slub_test.')}
		self.assertEqual(len(slub), 15)
		self.assertEqual({v[0] for v in slub.values()}, {'error'})
		self.assertIn('announced case 15 (test_kvfree_rcu_zero_size_ptr), which gave no '
			      'verdict (0 of 15 did)', slub['slub_test.test_kvfree_rcu_zero_size_ptr'][1])
		self.assertIn('announced case 11, which', slub['slub_test.#11'][1])
		self.assertEqual(got['slub_kunit.slub_kunit'],
				 ('error', 'no case result from slub_kunit (insmod rc=0): KTAP missing '
				  'or unreadable (boot 1)'))
		self.assertEqual(got['zero_size_query.z3_ksize'][0], 'pass')

	def test_a_module_run_again_after_a_crash_fills_its_plan(self) -> None:
		"""An oops stops the guest in slub_kunit's third case; the next
		boot loads the module again. Its plan is met across the boots:
		no error row, unless the case never reports in any boot."""
		head = ['zsp-harness: begin slub_kunit', '    KTAP version 1',
			'    # Subtest: slub_test', '    1..3', '    ok 1 test_clobber_zone',
			'    ok 2 test_next_pointer']
		oops = ['BUG: unable to handle page fault for address: ffffebde00000008',
			'#PF: supervisor read access in kernel mode', 'Oops: 0000 [#1] SMP',
			'CPU: 0 PID: 70 Comm: kunit_try_catch Tainted: G                 N 6.1.192 #1']
		done = ['    ok 3 test_first_word', 'ok 1 slub_test', 'zsp-harness: end slub_kunit rc=0',
			'zsp-harness: done', 'reboot: System halted']
		two = [('test_clobber_zone', 'PASS'), ('test_next_pointer', 'PASS')]
		crash = qemu.BootResult(Outcome.CRASH, 'Oops: 0000 [#1] SMP', 3.0)
		for second, r in ((head + done, POWEROFF), (head + oops, crash)):
			rows = verdict.Rows()
			self.scan_boot(rows, 1, head + oops, {'slub_kunit': two}, crash)
			self.assertNotIn('slub_kunit', rows.modules_done)
			self.scan_boot(rows, 2, second, {'slub_kunit': two + (
				[('test_first_word', 'PASS')] if r is POWEROFF else [])}, r)
			verdict.finish(rows, [{'boot': n, 'log': f'boot-{n}.log', 'outcome': str(b.outcome),
					       'reason': b.reason} for n, b in ((1, crash), (2, r))],
				       ('slub_kunit',))
			got = table(rows)
			self.assertEqual(got['slub_kunit.slub_kunit'][0], 'crash')
			if r is POWEROFF:
				self.assertEqual(rows.results['test_first_word'].status, 'pass')
				self.assertNotIn('slub_test.#3', got)
			else:
				self.assertEqual(got['slub_test.#3'][0], 'error')
				self.assertIn('(2 of 3 did); last boot 2 ended: crash Oops', got['slub_test.#3'][1])

	def test_the_suites_own_plan_is_its_zsp_cases(self) -> None:
		"""zero_size_test skips what earlier boots judged and --only
		plans out: its KTAP plan is no list of what must have a row."""
		rows = self.boot('qemu-killed-mid-case.boot-2.console',
				 {'zero_size_test': [('z2_kfree_rcu_rcu_head', 'PASS')]},
				 skip=['z2_kfree', 'z2_kvfree_rcu_headless'])
		self.assertEqual(rows.plans, {})


class HandlerTest(PureCase):
	"""The table's modules need no kunit.py: handlers.collect judges them
	with processes refused."""

	def collect(self, lines: List[str]) -> Dict[str, Tuple[str, str]]:
		rows = verdict.Rows()
		handlers.collect(rows, handlers.Boot(1, '/nonexistent/boot-1', [], POWEROFF,
						     console.scan(lines), '/nonexistent/kunit.py', False))
		return table(rows)

	def test_table_names_the_modules_without_ktap(self) -> None:
		self.assertEqual(set(handlers.HANDLERS), {'callsites', 'kmemleak', 'test_meminit'})

	def test_meminit_is_its_summary_line(self) -> None:
		rows = self.collect(['zsp-harness: begin test_meminit',
				     'test_meminit: all 131 tests passed!',
				     'zsp-harness: end test_meminit rc=0', 'zsp-harness: done'])
		self.assertEqual(rows['test_meminit.test_meminit'], ('pass', 'all 131 tests passed!'))
		rows = self.collect(['zsp-harness: begin test_meminit',
				     'test_meminit: failures: 2 out of 131',
				     'zsp-harness: end test_meminit rc=0', 'zsp-harness: done'])
		self.assertEqual(rows['test_meminit.test_meminit'],
				 ('fail', 'failures: 2 out of 131'))
		rows = self.collect(['zsp-harness: begin test_meminit',
				     'zsp-harness: end test_meminit rc=1', 'zsp-harness: done'])
		self.assertEqual(rows['test_meminit.test_meminit'], ('fail', 'insmod rc=1'))

	def test_a_failed_kmemleak_scan_is_an_error(self) -> None:
		rows = self.collect(['zsp-harness: begin kmemleak',
				     'zsp-harness: end kmemleak rc=1', 'zsp-harness: done'])
		self.assertEqual(rows['kmemleak.kmemleak'][0], 'error')


class RowsTest(unittest.TestCase):

	def test_merge_worse_wins_and_keeps_every_reason(self) -> None:
		rows = verdict.Rows()
		rows.merge('m', 'm', 'm', 'fail', 'a splat', 1)
		rows.merge('m', 'm', 'm', 'pass', '', 1)
		rows.merge('m', 'm', 'm', 'crash', 'an oops', 2)
		r = rows.results['m']
		self.assertEqual((r.status, r.detail, r.boot), ('crash', 'an oops; a splat', 2))
		rows.merge('n', 'n', 'n', 'fail', 'a splat', 1)
		rows.merge('n', 'n', 'n', 'fail', 'a splat', 2)
		r = rows.results['n']
		self.assertEqual((r.status, r.detail, r.boot), ('fail', 'a splat', 1))

	def test_finish_leaves_no_gap(self) -> None:
		"""A cell whose boots showed nothing: the suite's error row, and one
		for each planned module besides it."""
		rows = verdict.Rows()
		verdict.finish(rows, [], ('zero_size_test', 'kmemleak'))
		got = table(rows)
		self.assertEqual(got['cell.zero_size_test'],
				 ('error', 'no result from the suite (zero_size_test never loaded); '
				  'see -'))
		self.assertEqual(got['kmemleak.kmemleak'][0], 'error')
		self.assertIn('kmemleak never ran to its end', got['kmemleak.kmemleak'][1])

	def test_only_plans_the_other_cases_out(self) -> None:
		rows = verdict.Rows(only=frozenset({'b'}))
		rows.expected.update({'a': 's', 'b': 's'})
		rows.suite_loaded = True
		verdict.finish(rows, [], ('zero_size_test',))
		self.assertNotIn('a', rows.results)
		self.assertEqual(rows.results['b'].status, 'error')


if __name__ == '__main__':
	unittest.main()
