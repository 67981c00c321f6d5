# SPDX-License-Identifier: GPL-2.0
"""verdict, handlers and runner.Cell: how the console overrides kunit.py's
verdict, and that nothing a boot shows is lost. Consoles come from
tests/data/; kunit.py is replaced by a small KTAP reader that writes the
same JSON shape."""

import argparse
import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest
from unittest import mock
from typing import Dict, List, Tuple

from zsp import console, handlers, ktap, qemu, results, runner, verdict
from zsp.results import Row

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, 'data')

# kunit.py parse --json=OUT LOG, for KTAP as the guests print it: one group
# per "# Subtest:", its nested result lines as test cases.
FAKE_KUNIT = '''import json, re, sys
out = sys.argv[2].split('=', 1)[1]
groups = []
for line in open(sys.argv[3]):
	m = re.match(r'\\s*# Subtest: (\\w+)', line)
	if m:
		groups.append({'name': m.group(1), 'sub_groups': [], 'test_cases': []})
		continue
	m = re.match(r'\\s+(not )?ok \\d+ (\\w[\\w-]*)(.*)', line)
	if m and groups:
		st = 'SKIP' if '# SKIP' in m.group(3) else 'FAIL' if m.group(1) else 'PASS'
		groups[-1]['test_cases'].append({'name': m.group(2), 'status': st})
json.dump({'name': 'KUnit Test Group', 'sub_groups': groups, 'test_cases': []}, open(out, 'w'))
'''

POWEROFF = qemu.BootResult('poweroff', 'guest powered off', 1.0)


def judge(kstatus: str, ev: console.CaseEvents, distinct: bool = False) -> verdict.CaseResult:
	rows = verdict.Rows()
	rows.suite_of['x'] = 'zero_size_fault'
	verdict.judge(rows, 'x', kstatus, ev, 1, distinct=distinct)
	return rows.results['x']


def zsp_oops(comm: str = 'zsp_fault', access: str = 'write',
	     address: str = '0000000000000010') -> console.Event:
	return console.Event('oops', f'BUG: kernel NULL pointer dereference, address: {address}',
			     comm=comm, access=access)


class JudgeTest(unittest.TestCase):

	def test_plain_pass(self) -> None:
		self.assertEqual(judge('PASS', console.CaseEvents(True, True)).status, 'pass')

	def test_pass_with_splat_fails(self) -> None:
		ev = console.CaseEvents(True, True, splats=[console.Event(
			'splat', 'WARNING: CPU: 0 PID: 1 at mm/slab_common.c:1')])
		r = judge('PASS', ev)
		self.assertEqual(r.status, 'fail')
		self.assertIn('WARNING', r.detail)

	def test_expected_oops_must_name_0x10(self) -> None:
		ev = console.CaseEvents(True, True, expects_oops=True, access='write', oopses=[
			zsp_oops(address='ffffebde00000008')])
		self.assertEqual(judge('PASS', ev).status, 'fail')

	def test_expected_oops_at_0x10_passes(self) -> None:
		head = zsp_oops()
		ev = console.CaseEvents(True, True, expects_oops=True, access='write', oopses=[head],
					splats=[console.Event('splat', head.line)])
		self.assertEqual(judge('PASS', ev).status, 'pass')

	def test_expected_oops_missing_fails(self) -> None:
		ev = console.CaseEvents(True, True, expects_oops=True, access='write')
		self.assertEqual(judge('PASS', ev).status, 'fail')

	def test_kunit_skip_stays_skip(self) -> None:
		self.assertEqual(judge('SKIP', console.CaseEvents(True, True)).status, 'skip')

	def test_kunit_failure_stays_failure(self) -> None:
		self.assertEqual(judge('FAIL', console.CaseEvents(True, True)).status, 'fail')

	# Defect 4: exactly one oops, at 0x10, in zsp_fault, of the announced access.

	def test_expected_oops_in_the_wrong_thread_fails(self) -> None:
		ev = console.CaseEvents(True, True, expects_oops=True, access='write',
					oopses=[zsp_oops(comm='kunit_try_catch')])
		r = judge('PASS', ev)
		self.assertEqual(r.status, 'fail')
		self.assertIn('kunit_try_catch', r.detail)

	def test_expected_oops_of_the_other_access_fails(self) -> None:
		ev = console.CaseEvents(True, True, expects_oops=True, access='write',
					oopses=[zsp_oops(access='read')])
		self.assertEqual(judge('PASS', ev).status, 'fail')

	def test_second_oops_fails_an_expected_oops_case(self) -> None:
		other = console.Event('oops', 'BUG: unable to handle page fault for address: '
				      'ffffeba240000008', comm='kworker/1:0')
		ev = console.CaseEvents(True, True, expects_oops=True, access='write',
					oopses=[zsp_oops(), other])
		r = judge('PASS', ev)
		self.assertEqual(r.status, 'fail')
		self.assertIn('2 oopses', r.detail)


class ConsoleCase(unittest.TestCase):
	"""handlers.collect on a recorded console, as runner.Cell calls it
	after a boot: the helpers, no tests."""

	def setUp(self) -> None:
		self.tmp = tempfile.mkdtemp()
		self.kunit = os.path.join(self.tmp, 'kunit.py')
		with open(self.kunit, 'w') as f:
			f.write(FAKE_KUNIT)

	def tearDown(self) -> None:
		shutil.rmtree(self.tmp)

	def collect(self, rows: verdict.Rows, boots: List[Row], name: str,
		    r: qemu.BootResult = POWEROFF, skip: Tuple[str, ...] = (), n: int = 1,
		    distinct: bool = False) -> None:
		with open(os.path.join(DATA, name)) as f:
			sc = console.scan(f.read().splitlines())
		boots.append({'boot': n, 'log': name, **vars(r)})
		handlers.collect(rows, handlers.Boot(n, os.path.join(self.tmp, f'boot-{n}'),
						     list(skip), r, sc, self.kunit, distinct))

	def rows(self, name: str, r: qemu.BootResult = POWEROFF,
		 finish: bool = True, distinct: bool = False) -> Dict[str, Tuple[str, str]]:
		rows, boots = verdict.Rows(), []  # type: verdict.Rows, List[Row]
		self.collect(rows, boots, name, r, distinct=distinct)
		if finish:
			verdict.finish(rows, boots, ())
		return {f'{v.suite}.{v.case}': (v.status, v.detail) for v in rows.results.values()}

	# Defect 1: nothing outside the cases is lost.



class CellTest(ConsoleCase):
	"""A boot's rows from recorded consoles."""

	def test_kworker_oops_after_the_last_case(self) -> None:
		rows = self.rows('stray-kworker-oops-after-last-case.console',
				 qemu.BootResult('crash', 'Oops: 0000 [#3] SMP', 3.0))
		self.assertEqual(rows['zero_size_fault.z6_write_faults'][0], 'pass')
		self.assertEqual(rows['zero_size_fault.z6_read_faults'][0], 'pass')
		status, detail = rows['zero_size_test.outside_cases']
		self.assertEqual(status, 'crash')
		self.assertIn('after z6_read_faults', detail)
		self.assertIn('Comm: kworker/1:0', detail)

	def test_warning_during_module_load(self) -> None:
		rows = self.rows('splat-during-module-load.console')
		status, detail = rows['zero_size_test.outside_cases']
		self.assertEqual(status, 'fail')
		self.assertIn('WARNING: CPU: 0 PID: 62 at mm/slab_common.c:123', detail)
		self.assertEqual(rows['zero_size_free.z2_kfree'][0], 'pass')

	def test_oops_while_the_kernel_boots(self) -> None:
		rows = self.rows('oops-during-kernel-boot.console',
				 qemu.BootResult('panic', 'Kernel panic - not syncing: Attempted '
						 'to kill init! exitcode=0x00000009', 2.0))
		status, detail = rows['cell.boot']
		self.assertEqual(status, 'crash')
		self.assertIn('during boot: BUG: kernel NULL pointer dereference', detail)
		self.assertIn('swapper/0', detail)

	def test_silence_with_no_case_running(self) -> None:
		rows = self.rows('silence-after-a-case.console',
				 qemu.BootResult('hang', 'no console output for 30 s', 35.0),
				 finish=False)
		self.assertEqual(rows['zero_size_test.outside_cases'],
				 ('hang', 'hang after z2_kfree: no console output for 30 s'))

	def test_kworker_oops_in_a_window_names_the_thread(self) -> None:
		rows = self.rows('kworker-oops-in-case-window.console',
				 qemu.BootResult('crash', 'Oops: 0000 [#1] SMP', 3.0), finish=False)
		status, detail = rows['zero_size_free.z2_kvfree_rcu_headless']
		self.assertEqual(status, 'crash')
		self.assertIn('ffffeba240000008 (Comm: kworker/1:0)', detail)
		self.assertNotIn('zero_size_test.outside_cases', rows)

	def test_rcu_stall_hangs_the_case(self) -> None:
		rows = self.rows('rcu-stall-in-case.console',
				 qemu.BootResult('hang', 'rcu: INFO: rcu_sched detected stalls on '
						 'CPUs/tasks:', 12.0), finish=False)
		status, detail = rows['zero_size_cache.z5_cache_plain']
		self.assertEqual(status, 'hang')
		self.assertIn('(Comm: kunit_try_catch)', detail)

	# Defect 2: the expected list, a lost result line, no zsp-cases.

	def test_lost_ok_line_is_an_error(self) -> None:
		rows = self.rows('lost-ok-line.console')
		status, detail = rows['zero_size_free.z2_kvfree_rcu_headless']
		self.assertEqual(status, 'error')
		self.assertIn('no result from the suite', detail)
		self.assertEqual(rows['zero_size_free.z2_kfree_rcu_rcu_head'][0], 'pass')

	def test_listed_case_that_never_ran_is_an_error(self) -> None:
		rows = self.rows('case-never-started.console')
		status, detail = rows['zero_size_free.z2_kfree_rcu_rcu_head']
		self.assertEqual(status, 'error')
		self.assertIn('no result from the suite: never started', detail)

	def test_no_zsp_cases_line_is_an_error(self) -> None:
		rows = self.rows('no-zsp-cases-line.console')
		status, detail = rows['cell.zero_size_test']
		self.assertEqual(status, 'error')
		self.assertIn('no zsp-cases line', detail)

	# Defect 4, on whole consoles.

	def test_next_case_is_not_blamed_for_an_oops_before_it(self) -> None:
		"""Recorded on vanilla 6.12 SLUB (2026-12-06, boot 9): KUnit
		catches the oops of z5_cache_usercopy's thread and goes on, so
		within the harness's grace the next cases start; QEMU is stopped
		in z7_kmalloc_node_atomic. That case did not crash, and
		z7_kmalloc_zero_atomic's pass proves nothing: neither gets a
		result from this boot, both run again in the next one. Also
		6.12's "CPU: 0 UID: 0 PID: ..." line still names the task."""
		r = qemu.BootResult('crash', 'Oops: divide error: 0000 [#1] SMP', 3.4)
		rows = self.rows('real-6.12-oops-then-next-case.console', r, finish=False)
		self.assertEqual(rows['zero_size_cache.z5_cache_usercopy'],
				 ('crash', 'Oops: divide error: 0000 [#1] SMP (Comm: kunit_try_catch)'))
		# Both cases after the oops ran in a kernel it had damaged (the
		# dead thread may hold slab_mutex): no verdict from this boot.
		self.assertNotIn('zero_size_identical.z7_kmalloc_zero_atomic', rows)
		self.assertNotIn('zero_size_identical.z7_kmalloc_node_atomic', rows)

	def test_triple_fault_in_a_case_is_its_crash(self) -> None:
		"""Recorded on vanilla 6.1 SLUB, debug profile (2026-12-06, boot
		16 of make matrix PROFILE="distro debug leak"): the guest resets
		in z2_kmem_cache_free_bulk_zero_sized with no line printed. No
		oops stopped it earlier, so the crash is the running case's, not
		"never started" (which also ended the cell's boots and left 34
		cases without a verdict)."""
		r = qemu.BootResult('crash', 'triple fault: the guest CPU reset itself '
				    '(QEMU -d cpu_reset)', 12.9)
		rows = self.rows('real-vanilla-slub-debug-triple-fault.console', r, finish=False)
		self.assertEqual(rows['zero_size_free.z2_kmem_cache_free_bulk_zero_sized'],
				 ('crash', r.reason))

	def test_kmemleak_that_gave_up_is_the_kernels_failure(self) -> None:
		"""Recorded on vanilla 6.1 SLAB, leak profile (2026-12-07, boot 21
		of make matrix PROFILE=leak): the zero-sized caches' overlapping
		objects make kmemleak stop ("Cannot insert ... (overlaps
		existing)") while the next suite loads, and the scan after the
		suite is refused. The complaint is a splat where it came, and the
		refused scan is the kernel's failure, not a harness error."""
		rows = self.rows('real-vanilla-slab-leak-kmemleak-off.console')
		status, detail = rows['zero_size_test.outside_cases']
		self.assertEqual(status, 'fail')
		self.assertEqual(detail, 'fail after z5_cache_usercopy: kmemleak: Cannot insert '
				 '0xffff888005a67e00 into the object search tree (overlaps existing) '
				 '(Comm: insmod)')
		self.assertEqual(rows['kmemleak.kmemleak'],
				 ('fail', 'kmemleak turned itself off (kmemleak: Cannot insert '
				  '0xffff888005a67e00 into the object search tree (overlaps existing)): '
				  'no scan after the suite'))

	def test_a_stop_between_cases_blames_nothing_more(self) -> None:
		"""Recorded on 6.12 SLUB, series-check prefix 5 (2026-12-06,
		boot 7): z2_kmem_cache_free_bulk_mixed oopses, the kernel runs
		on through 20 more cases, and QEMU is stopped between two of
		them. The oops is that case's; no outside_cases row, and no
		verdict for any case after it."""
		r = qemu.BootResult('crash', 'Oops: Oops: 0000 [#1] SMP', 3.5)
		rows = self.rows('real-6.12-stopped-between-cases.console', r, finish=False)
		self.assertEqual(rows['zero_size_free.z2_kmem_cache_free_bulk_mixed'][0], 'crash')
		self.assertNotIn('zero_size_test.outside_cases', rows)
		self.assertNotIn('zero_size_cache.z5_cache_reclaim_account', rows)
		self.assertNotIn('zero_size_free.z2_kmem_cache_free_bulk_small', rows)

	def test_z6_one_oops_each_passes(self) -> None:
		rows = self.rows('z6-one-oops-each.console')
		self.assertEqual(rows['zero_size_fault.z6_write_faults'], ('pass', ''))
		self.assertEqual(rows['zero_size_fault.z6_read_faults'], ('pass', ''))
		self.assertEqual(len(rows), 2)

	def test_z6_oops_names_the_sentinel_where_the_tree_has_the_x86_patch(self) -> None:
		"""The x86 patch's line after the BUG: line: required when the
		tree's history has the patch, refused when it has not, so that
		neither a lost patch nor a stale expectation passes."""
		with open(os.path.join(DATA, 'z6-one-oops-each.console')) as f:
			text = f.read()
		named = text.replace('address: 0000000000000010\n',
				     'address: 0000000000000010\n#PF: address is ZERO_SIZE_PTR, '
				     'the pointer a zero-size allocation returns\n')
		self.assertEqual(named.count('#PF: address is ZERO_SIZE_PTR'), 2)
		path = os.path.join(self.tmp, 'named.console')
		with open(path, 'w') as f:
			f.write(named)
		for console_file, distinct, want in (
				(path, True, ('pass', '')),
				('z6-one-oops-each.console', False, ('pass', ''))):
			rows = self.rows(console_file, distinct=distinct)
			self.assertEqual(rows['zero_size_fault.z6_write_faults'], want)
			self.assertEqual(rows['zero_size_fault.z6_read_faults'], want)
		status, detail = self.rows('z6-one-oops-each.console', distinct=True)[
			'zero_size_fault.z6_read_faults']
		self.assertEqual(status, 'fail')
		self.assertIn('oops does not name ZERO_SIZE_PTR', detail)
		status, detail = self.rows(path, distinct=False)['zero_size_fault.z6_write_faults']
		self.assertEqual(status, 'fail')
		self.assertIn('oops names ZERO_SIZE_PTR, though the tree lacks', detail)

	def test_z6_a_null_fault_never_names_the_sentinel(self) -> None:
		"""z6_null_read_not_named reads NULL: its oops must not name
		ZERO_SIZE_PTR on any tree (the x86 patch that names every fault
		below PAGE_SIZE is a mutant), and must be at 0x0 (a case that
		faulted at the sentinel instead proves nothing). Synthesized
		from z6-one-oops-each.console as a patched tree prints it."""
		case = 'zero_size_fault.z6_null_read_not_named'
		rows = self.rows('z6-patched-with-null-read.console', distinct=True)
		self.assertEqual(len(rows), 3)
		self.assertTrue(all(v == ('pass', '') for v in rows.values()), rows)
		with open(os.path.join(DATA, 'z6-patched-with-null-read.console')) as f:
			text = f.read()
		null = 'address: 0000000000000000\n'
		named = null + '#PF: address is ZERO_SIZE_PTR, the pointer a zero-size allocation returns\n'
		for edited, distinct, want in (
				(text.replace(null, named), True,
				 'oops names ZERO_SIZE_PTR for a fault at 0x0'),
				(text.replace(null, named), False,
				 'oops names ZERO_SIZE_PTR for a fault at 0x0'),
				(text.replace(null, 'address: 0000000000000010\n'), True,
				 'oops does not name address 0x0')):
			path = os.path.join(self.tmp, 'null.console')
			with open(path, 'w') as f:
				f.write(edited)
			status, detail = self.rows(path, distinct=distinct)[case]
			self.assertEqual(status, 'fail', edited)
			self.assertIn(want, detail)

	def test_z6_under_kasan_passes(self) -> None:
		"""Recorded on the debug profile (KASAN, SLUB, 2026-12-04): KASAN
		reports the write to 0x10 as a null-ptr-deref, then the oops
		comes. That report is the announced fault, not a splat."""
		rows = self.rows('real-kasan-z6.console')
		self.assertEqual(rows['zero_size_fault.z6_write_faults'], ('pass', ''))
		self.assertEqual(rows['zero_size_fault.z6_read_faults'], ('pass', ''))

	def test_z6_kasan_report_of_another_access_fails(self) -> None:
		"""The same report naming a read where a write was announced, or
		another address, is a splat: the case fails."""
		for old, new in (('Write of size 1 at addr 0000000000000010',
				  'Read of size 1 at addr 0000000000000010'),
				 ('Write of size 1 at addr 0000000000000010',
				  'Write of size 1 at addr 0000000000000018')):
			with open(os.path.join(DATA, 'real-kasan-z6.console')) as f:
				text = f.read().replace(old, new)
			path = os.path.join(self.tmp, 'kasan.console')
			with open(path, 'w') as f:
				f.write(text)
			rows = self.rows(path)
			status, detail = rows['zero_size_fault.z6_write_faults']
			self.assertEqual(status, 'fail', new)
			self.assertIn('splat: BUG: KASAN: null-ptr-deref', detail)

	def test_kasan_test_reports_are_its_own(self) -> None:
		"""Recorded on the debug profile (two cases of kasan_test, cut
		and renumbered): the KASAN reports it provokes are no splats, its
		KTAP decides: a case whose report came passes, one whose expected
		report did not come fails with KUnit's line."""
		rows = self.rows('real-kasan-test.console')
		self.assertEqual(rows['kasan.kmalloc_oob_right'], ('pass', ''))
		status, detail = rows['kasan.kasan_global_oob_right']
		self.assertEqual(status, 'fail')
		self.assertIn('KASAN failure expected', detail)

	def test_upstream_case_for_another_config_is_na(self) -> None:
		"""kasan_test's tag-mode cases skip on generic KASAN ("Test
		requires CONFIG_X=n", KTAP lines as recorded): n/a, never a pass;
		any other skip stays a skip (a failure in the patched tree)."""
		with open(os.path.join(DATA, 'real-kasan-test.console')) as f:
			text = f.read()
		text = text.replace('    1..2\n', '    1..5\n').replace(
			'    not ok 2 kasan_global_oob_right\n',
			'    not ok 2 kasan_global_oob_right\n'
			'    ok 3 kmalloc_uaf3 # SKIP Test requires CONFIG_KASAN_GENERIC=n\n'
			'    ok 4 kmalloc_uaf2 # SKIP no reason of that kind\n'
			'    ok 5 kmalloc_perf # SKIP Failed to enable perf event, skipping\n')
		path = os.path.join(self.tmp, 'na.console')
		with open(path, 'w') as f:
			f.write(text)
		rows = self.rows(path)
		self.assertEqual(rows['kasan.kmalloc_uaf3'],
				 ('n/a', 'needs CONFIG_KASAN_GENERIC=n: not this kernel'))
		self.assertEqual(rows['kasan.kmalloc_uaf2'][0], 'skip')
		# slub_kunit's perf case on a guest without a PMU (QEMU TCG).
		self.assertEqual(rows['kasan.kmalloc_perf'],
				 ('n/a', 'needs a CPU cycle counter: QEMU TCG emulates no PMU'))
		self.assertEqual(rows['kasan.kmalloc_oob_right'], ('pass', ''))

	def test_kasan_report_in_another_module_is_a_splat(self) -> None:
		with open(os.path.join(DATA, 'real-kasan-test.console')) as f:
			text = f.read().replace('kasan_test', 'other_test')
		path = os.path.join(self.tmp, 'other.console')
		with open(path, 'w') as f:
			f.write(text)
		status, detail = self.rows(path)['kasan.kmalloc_oob_right']
		self.assertEqual(status, 'fail')
		self.assertIn('splat: BUG: KASAN: slab-out-of-bounds', detail)

	def test_case_names_with_a_dash(self) -> None:
		"""kfence_test's cases come in pairs, "x" and "x-memcache": two
		names, not one reported twice."""
		sc = console.scan(['zsp-harness: begin kfence_test', '    KTAP version 1',
				   '    # Subtest: kfence', '    1..2', '    ok 1 test_double_free',
				   '    ok 2 test_double_free-memcache', 'ok 1 kfence',
				   'zsp-harness: end kfence_test rc=0', 'zsp-harness: done'])
		self.assertEqual(sc.segments[0].results,
				 {'test_double_free': 1, 'test_double_free-memcache': 1})

	def test_z6_kasan_report_in_another_task_or_twice_fails(self) -> None:
		"""The KASAN report must come from zsp_fault, and only one is the
		fault: a second one is a splat."""
		with open(os.path.join(DATA, 'real-kasan-z6.console')) as f:
			text = f.read()
		start = text.index('==================================================================\nBUG: KASAN')
		end = text.index('Disabling lock debugging')
		report = text[start:end]
		for variant in (text.replace('Comm: zsp_fault Tainted: G           O',
					     'Comm: kworker/0:1 Tainted: G           O', 1),
				text[:end] + report + text[end:]):
			path = os.path.join(self.tmp, 'variant.console')
			with open(path, 'w') as f:
				f.write(variant)
			status, detail = self.rows(path)['zero_size_fault.z6_write_faults']
			self.assertEqual(status, 'fail', detail)
			self.assertIn('splat: BUG: KASAN: null-ptr-deref', detail)

	def test_z6_oops_in_the_kunit_thread_fails(self) -> None:
		rows = self.rows('z6-oops-in-kunit-thread.console')
		status, detail = rows['zero_size_fault.z6_write_faults']
		self.assertEqual(status, 'fail')
		self.assertIn('oops in kunit_try_catch, not zsp_fault', detail)
		self.assertEqual(rows['zero_size_fault.z6_read_faults'][0], 'pass')

	def test_z6_oops_of_the_wrong_access_fails(self) -> None:
		rows = self.rows('z6-read-oops-where-write-announced.console')
		status, detail = rows['zero_size_fault.z6_write_faults']
		self.assertEqual(status, 'fail')
		self.assertIn('a read access faulted, the case announced write', detail)

	def test_z6_second_oops_in_the_window(self) -> None:
		rows = self.rows('z6-second-oops-in-window.console',
				 qemu.BootResult('crash', 'Oops: 0000 [#2] SMP', 3.0))
		status, detail = rows['zero_size_fault.z6_write_faults']
		self.assertEqual(status, 'crash')
		self.assertIn('kworker/1:0', detail)
		self.assertEqual(rows['zero_size_fault.z6_read_faults'][0], 'error')

	# Defect 5: a QEMU fault is no kernel verdict.

	def test_qemu_killed_mid_case_is_an_error(self) -> None:
		rows = self.rows('qemu-killed-mid-case.boot-1.console',
				 qemu.BootResult('qemu-error', 'qemu killed by SIGKILL', 2.0),
				 finish=False)
		status, detail = rows['zero_size_free.z2_kvfree_rcu_headless']
		self.assertEqual(status, 'error')
		self.assertIn('SIGKILL', detail)
		self.assertIn('host or QEMU fault, not a kernel verdict', detail)

	# Defect 6: duplicates, SLUB's reports, upstream modules' splats.

	def test_case_reported_twice_in_ktap(self) -> None:
		rows = self.rows('ktap-case-reported-twice.console')
		status, detail = rows['zero_size_free.z2_kvfree_rcu_headless']
		self.assertEqual(status, 'error')
		self.assertIn('twice', detail)

	def test_case_started_twice(self) -> None:
		rows = self.rows('zsp-start-twice.console')
		status, detail = rows['zero_size_free.z2_kfree']
		self.assertEqual(status, 'error')
		self.assertIn('twice', detail)

	def test_slub_debug_report_fails_the_case(self) -> None:
		rows = self.rows('slub-debug-report-in-case.console')
		status, detail = rows['zero_size_free.z2_kvfree_rcu_headless']
		self.assertEqual(status, 'fail')
		self.assertIn('splat: BUG kmalloc-64', detail)
		self.assertIn('Object already free (Comm: kworker/1:0)', detail)

	def test_splats_fail_upstream_modules(self) -> None:
		rows = self.rows('splats-in-upstream-modules.console')
		status, detail = rows['test_meminit.test_meminit']
		self.assertEqual(status, 'fail')
		self.assertIn('WARNING: CPU: 1 PID: 58 at mm/page_alloc.c:5495', detail)
		self.assertEqual(rows['slub_test.test_clobber_zone'][0], 'pass')
		self.assertEqual(rows['slub_test.test_next_pointer'][0], 'fail')
		self.assertIn('mm/slub.c:4785', rows['slub_test.test_next_pointer'][1])
		self.assertEqual(rows['slub_test.test_first_word'][0], 'pass')
		status, detail = rows['slub_kunit.slub_kunit']
		self.assertEqual(status, 'fail')
		self.assertIn('after test_first_word: BUG: sleeping function', detail)
		self.assertEqual(rows['zero_size_query.z3_ksize'][0], 'pass')


	# Issue 31, finding 6: lockdep's reports are splats.

	def test_circular_locking_fails_the_case(self) -> None:
		"""Debug profile (PROVE_LOCKING): lockdep's report of a circular
		dependency in a case's window fails that case, as a WARN()
		does; the cases around it pass."""
		rows = self.rows('lockdep-circular-in-case.console', distinct=True)
		self.assertEqual(rows['zero_size_cache.z5_cache_typesafe_by_rcu'],
				 ('fail', 'splat: WARNING: possible circular locking dependency '
				  'detected (Comm: kunit_try_catch)'))
		self.assertEqual(rows['zero_size_cache.z5_cache_plain'], ('pass', ''))
		self.assertEqual(rows['zero_size_cache.z5_cache_ctor'], ('pass', ''))
		self.assertNotIn('zero_size_test.outside_cases', rows)

	def test_held_lock_freed_fails_the_case(self) -> None:
		rows = self.rows('lockdep-held-lock-freed-in-case.console')
		self.assertEqual(rows['zero_size_free.z2_kmem_cache_free'],
				 ('fail', 'splat: WARNING: held lock freed! (Comm: kunit_try_catch)'))
		self.assertEqual(rows['zero_size_free.z2_kfree'], ('pass', ''))
		self.assertEqual(rows['zero_size_free.z2_kfree_rcu_rcu_head'], ('pass', ''))

	def test_suspicious_rcu_usage_fails_the_upstream_case(self) -> None:
		"""RCU-lockdep's report in slub_kunit is the case whose result
		line follows it, though KUnit passed it."""
		rows = self.rows('lockdep-suspicious-rcu-in-slub-kunit.console')
		self.assertEqual(rows['slub_test.test_kvfree_rcu_zero_size_ptr'],
				 ('fail', 'splat: WARNING: suspicious RCU usage (Comm: kunit_try_catch)'))
		self.assertEqual(rows['slub_test.test_kmalloc_mempool_zero_size'], ('pass', ''))
		self.assertNotIn('slub_kunit.slub_kunit', rows)
		self.assertEqual(rows['zero_size_query.z3_ksize'], ('pass', ''))

	def test_lockdep_report_after_the_cases_fails_the_module(self) -> None:
		"""insmod returns to user space with a lock held, after the
		suite's last case: no case's, the module's own row."""
		rows = self.rows('lockdep-lock-held-at-insmod-exit.console')
		self.assertEqual(rows['zero_size_test.outside_cases'],
				 ('fail', 'fail after z3_kmalloc_size_roundup: WARNING: lock held '
				  'when returning to user space! (Comm: insmod)'))
		self.assertEqual(rows['zero_size_query.z3_ksize'], ('pass', ''))

	# Issue 31, finding 11: an upstream module's lost cases.

	def test_upstream_case_whose_result_was_lost_is_an_error(self) -> None:
		"""slub_kunit's plan says 15 and printk dropped the result line
		of the 11th (one of the series' cases): kunit.py names it '',
		the console's numbers name it #11, and it is an error row."""
		rows = self.rows('upstream-ktap-lost-subtest.console')
		status, detail = rows['slub_test.#11']
		self.assertEqual(status, 'error')
		self.assertIn('no result from slub_kunit: its KTAP plan (1..15) announced case 11, '
			      'which gave no verdict (14 of 15 did)', detail)
		slub = {k: v for k, v in rows.items() if k.startswith('slub_test.')}
		self.assertEqual(len(slub), 15)
		self.assertEqual(rows['slub_test.test_kmem_cache_free_zero_size_ptr'], ('pass', ''))
		self.assertEqual([k for k, v in slub.items() if v[0] != 'pass'], ['slub_test.#11'])

	def test_upstream_module_silent_before_its_end(self) -> None:
		"""slub_kunit goes silent after its 9th case of 15, no oops: the
		module's row is the hang, and each case it never reached is an
		error row, not absent."""
		hang = qemu.BootResult('hang', 'no console output for 20 s', 21.0)
		rows = self.rows('upstream-silent-mid-module.console', hang)
		self.assertEqual(rows['slub_kunit.slub_kunit'],
				 ('hang', 'hang after test_zero_size_cache: no console output for 20 s'))
		self.assertEqual(rows['slub_test.test_zero_size_cache'], ('pass', ''))
		for k in range(10, 16):
			status, detail = rows[f'slub_test.#{k}']
			self.assertEqual(status, 'error', k)
			self.assertIn(f'announced case {k}, which gave no verdict (9 of 15 did); '
				      'last boot 1 ended: hang no console output for 20 s', detail)


class ResumeTest(unittest.TestCase):
	"""Cell.boot_all with a fake QEMU that plays one console per boot."""

	def setUp(self) -> None:
		self.tmp = tempfile.mkdtemp()
		os.symlink(os.path.join(HERE, 'fake_qemu.py'),
			   os.path.join(self.tmp, 'qemu-system-x86_64'))
		self.kunit = os.path.join(self.tmp, 'kunit.py')
		with open(self.kunit, 'w') as f:
			f.write(FAKE_KUNIT)
		self.gen = os.path.join(self.tmp, 'gen_init_cpio')
		with open(self.gen, 'w') as f:
			f.write('#!/bin/sh\nprintf plan\n')
		os.chmod(self.gen, 0o755)
		self.base = os.path.join(self.tmp, 'base.cpio')
		open(self.base, 'wb').close()
		self.env = {'PATH': self.tmp + ':' + os.environ['PATH'],
			    'FAKE_QEMU_PID': os.path.join(self.tmp, 'pid'),
			    'FAKE_QEMU_DELAY': '0.001'}
		# Whatever a test sets in the environment is undone after it.
		env = mock.patch.dict(os.environ)
		env.start()
		self.addCleanup(env.stop)

	def tearDown(self) -> None:
		shutil.rmtree(self.tmp)

	def run_cell(self, consoles: List[str], ends: List[str],
		     modules: str = 'zero_size_test', only: str = '', series: str = '',
		     kernel_sha256: str = '') -> dict:
		os.environ.update(self.env)
		os.environ['FAKE_QEMU_CONSOLE'] = ','.join(os.path.join(DATA, c) for c in consoles)
		os.environ['FAKE_QEMU_END'] = ','.join(ends)
		out = os.path.join(self.tmp, 'out')
		os.makedirs(out)
		args = argparse.Namespace(
			kernel_version='6.1', profile='tiny',
			tree='patched', alloc='slub', kernel='bzImage', initrd=self.base,
			gen_init_cpio=self.gen, kunit_tool=self.kunit, modules=modules,
			out=out, timeout=20, silence=3, max_boots=4, store='', fresh=True,
			not_available='', distinct_fault=False, only=only, series=series,
			kernel_sha256=kernel_sha256)
		# The boots' progress lines are not this test's output.
		with contextlib.redirect_stderr(io.StringIO()):
			self.assertEqual(runner.Cell(runner.BootRequest.of(args)).run(), 0)
		with open(os.path.join(out, 'cell.json')) as f:
			return json.load(f)

	def test_qemu_killed_then_resumed(self) -> None:
		c = self.run_cell(['qemu-killed-mid-case.boot-1.console',
				   'qemu-killed-mid-case.boot-2.console'], ['killed', 'hang'])
		self.assertEqual([b['outcome'] for b in c['boots']], ['qemu-error', 'poweroff'])
		self.assertIn('SIGKILL', c['boots'][0]['reason'])
		got = {r['case']: (r['status'], r['detail']) for r in c['cases']}
		self.assertEqual(got['z2_kfree'][0], 'pass')
		self.assertEqual(got['z2_kfree_rcu_rcu_head'][0], 'pass')
		status, detail = got['z2_kvfree_rcu_headless']
		self.assertEqual(status, 'error')
		self.assertIn('host or QEMU fault', detail)
		self.assertEqual(len(got), 3)

	def test_cell_json_records_what_its_kernel_was_built_from(self) -> None:
		"""A verdict names its inputs: the series (make merge, export and
		cover-letter read it), the image, the kernel."""
		series = {'digest': 'ab' * 32, 'patchset_hash': 'cd' * 32, 'patches': ['0001-x.patch']}
		c = self.run_cell(['qemu-killed-mid-case.boot-2.console'], ['hang'],
				  series=json.dumps(series), kernel_sha256='ef' * 32)
		self.assertEqual(c['schema'], results.SCHEMA)
		self.assertEqual(results.recorded_series(c), series)
		self.assertEqual((c['kernel_image_sha256'], c['kernel']), ('ef' * 32, '6.1'))
		shutil.rmtree(os.path.join(self.tmp, 'out'))
		# Not known (a bisect step's tree): recorded as such, not left out.
		c = self.run_cell(['qemu-killed-mid-case.boot-2.console'], ['hang'])
		self.assertIsNone(c['series'])

	def test_qemu_quits_before_the_guest_powers_off(self) -> None:
		c = self.run_cell(['qemu-killed-mid-case.boot-1.console',
				   'qemu-killed-mid-case.boot-2.console'], ['exit', 'hang'])
		self.assertEqual([b['outcome'] for b in c['boots']], ['qemu-error', 'poweroff'])
		self.assertEqual(c['boots'][0]['reason'], 'qemu exited before the guest powered off')
		got = {r['case']: r['status'] for r in c['cases']}
		self.assertEqual(got, {'z2_kfree': 'pass', 'z2_kvfree_rcu_headless': 'error',
				       'z2_kfree_rcu_rcu_head': 'pass'})


	def test_triple_fault_then_resumed(self) -> None:
		"""A guest that resets mid-case (nothing printed) crashed in
		that case; the next boot runs the rest."""
		c = self.run_cell(['qemu-killed-mid-case.boot-1.console',
				   'qemu-killed-mid-case.boot-2.console'], ['triple', 'hang'])
		self.assertEqual([b['outcome'] for b in c['boots']], ['crash', 'poweroff'])
		got = {r['case']: (r['status'], r['detail']) for r in c['cases']}
		self.assertEqual(got['z2_kvfree_rcu_headless'][0], 'crash')
		self.assertIn('triple fault', got['z2_kvfree_rcu_headless'][1])
		self.assertEqual({k: v[0] for k, v in got.items()},
				 {'z2_kfree': 'pass', 'z2_kvfree_rcu_headless': 'crash',
				  'z2_kfree_rcu_rcu_head': 'pass'})

	def test_only_boots_the_selected_case(self) -> None:
		"""make bisect CASE=: the plan skips every other case of the
		suite from the first boot on, and the cell has the selected
		case's row alone, not an error row for each planned-out one."""
		plans = os.path.join(self.tmp, 'plans')
		with open(self.gen, 'w') as f:
			f.write(f"#!/bin/sh\ncat $(awk '{{print $3}}' \"$1\") >> {plans}\nprintf plan\n")
		c = self.run_cell(['qemu-killed-mid-case.boot-2.console'], ['hang'],
				  only='z2_kfree_rcu_rcu_head')
		self.assertEqual(len(c['boots']), 1)
		self.assertEqual(c['only'], ['z2_kfree_rcu_rcu_head'])
		self.assertEqual({r['case']: r['status'] for r in c['cases']},
				 {'z2_kfree_rcu_rcu_head': 'pass'})
		with open(plans) as f:
			skip = re.search(r"ZSP_SKIP='([^']*)'", f.read()).group(1).split(',')
		self.assertNotIn('z2_kfree_rcu_rcu_head', skip)
		self.assertEqual(set(skip), set(runner.source_cases()) - {'z2_kfree_rcu_rcu_head'})

	def test_without_only_a_skipped_case_is_an_error(self) -> None:
		"""The same console without --only: the cases it skipped were
		never started, and each is an error row, never absent."""
		c = self.run_cell(['qemu-killed-mid-case.boot-2.console'], ['hang'])
		got = {r['case']: r['status'] for r in c['cases']}
		self.assertEqual(got['z2_kfree_rcu_rcu_head'], 'pass')
		self.assertNotEqual(got.get('z2_kfree', 'absent'), 'pass')
		self.assertNotEqual(got.get('z2_kfree', 'absent'), 'absent')

	def test_upstream_cases_a_hang_cut_off_are_errors(self) -> None:
		"""slub_kunit goes silent mid-plan in the first boot; the second
		runs the suite alone. The cell names every case of the plan."""
		c = self.run_cell(['upstream-silent-mid-module.console',
				   'qemu-killed-mid-case.boot-2.console'], ['hang', 'hang'],
				  modules='slub_kunit zero_size_test')
		self.assertEqual([b['outcome'] for b in c['boots']], ['hang', 'poweroff'])
		got = {(r['suite'], r['case']): r['status'] for r in c['cases']}
		self.assertEqual(got['slub_kunit', 'slub_kunit'], 'hang')
		self.assertEqual(sorted(case for (suite, case), st in got.items()
					if suite == 'slub_test' and st == 'error'),
				 [f'#{k}' for k in range(10, 16)])
		self.assertEqual(got['slub_test', 'test_zero_size_cache'], 'pass')

	def test_planned_module_that_never_ran_is_an_error(self) -> None:
		"""kmemleak (or an upstream test) planned after the suite, and the
		boots end before it runs: an error row, never no row."""
		c = self.run_cell(['qemu-killed-mid-case.boot-1.console',
				   'qemu-killed-mid-case.boot-2.console'], ['killed', 'hang'],
				  modules='zero_size_test kmemleak')
		got = {r['case']: (r['status'], r['detail']) for r in c['cases']}
		status, detail = got['kmemleak']
		self.assertEqual(status, 'error')
		self.assertIn('kmemleak never ran to its end', detail)


class KunitParsePathTest(unittest.TestCase):

	def test_paths_given_to_kunit_py_are_absolute(self) -> None:
		"""kunit.py chdirs to its kernel tree first: a relative run
		directory made every case of a cell "never started"."""
		seen = []

		def fake_run(argv: list, **_kw: object) -> subprocess.CompletedProcess:
			seen.extend(argv)
			return subprocess.CompletedProcess(argv, 0)
		with tempfile.TemporaryDirectory() as d:
			cwd = os.getcwd()
			os.chdir(d)
			try:
				with mock.patch.object(ktap.subprocess, 'run', side_effect=fake_run):
					ktap.parse('/k/kunit.py', console.Segment('m', ['ok 1 x']), 'b-1.0.m')
			finally:
				os.chdir(cwd)
		files = [a.split('=', 1)[-1] for a in seen[3:]]
		self.assertTrue(files and all(os.path.isabs(f) for f in files), seen)


if __name__ == '__main__':
	unittest.main()


class RealConsoleTest(ConsoleCase):
	"""Consoles captured from real guests (6.1.192, results of 2026-12-04),
	as the anchors of the hand-written ones above."""

	def real(self, name: str, r: qemu.BootResult = POWEROFF) -> Dict[str, Tuple[str, str]]:
		with open(os.path.join(DATA, name)) as f:
			lines = f.read().splitlines()
		# The cases this boot's plan skipped, as the harness passed them.
		skip = tuple(m.group(1) for m in (re.search(r'ok \d+ (\w+) # SKIP zsp-not-selected', x)
						  for x in lines) if m)
		rows = verdict.Rows()
		self.collect(rows, [], name, r, skip)
		self.wheres = {k: v.where for k, v in rows.results.items()}
		return {k: (v.status, v.detail) for k, v in rows.results.items()}

	def test_patched_slub_all_pass(self) -> None:
		rows = self.real('real-patched-slub-all-pass.console')
		contract = {k: v for k, v in rows.items() if k.startswith('z')}
		self.assertEqual(len(contract), 60)
		self.assertEqual({v[0] for v in contract.values()}, {'pass'}, rows)

	def test_kworker_oops_is_the_rcu_cases(self) -> None:
		crash = qemu.BootResult('crash', 'Oops: 0000 [#1] SMP', 3.0)
		rows = self.real('real-vanilla-slab-kvfree-rcu-kworker-oops.console', crash)
		status, detail = rows['z2_kvfree_rcu_headless']
		self.assertEqual(status, 'crash')
		self.assertRegex(detail, r'unable to handle page fault .*Comm: kworker/')
		self.assertTrue(self.wheres['z2_kvfree_rcu_headless'].startswith(
			'virt_to_folio+0x31/0x3f < kmem_cache_free_bulk+0x30/0x8a'), self.wheres)

	def test_every_z7_splat_is_its_own_cases(self) -> None:
		rows = self.real('real-vanilla-slob-z7-splats.console')
		for case in ('z7_kmalloc_zero_atomic', 'z7_kmalloc_node_atomic',
			     'z7_kzalloc_kcalloc_atomic', 'z7_kvmalloc_atomic'):
			self.assertEqual(rows[case][0], 'fail', case)
			self.assertIn('sleeping function called from invalid context', rows[case][1])
		self.assertEqual(rows['z7_devm_kmalloc_atomic'][0], 'pass')
		self.assertEqual(rows['z6_write_faults'][0], 'pass')

	def test_silent_slob_spin_is_a_hang(self) -> None:
		hang = qemu.BootResult('hang', 'no console output for 20 s', 21.0)
		rows = self.real('real-vanilla-slob-z5-hang.console', hang)
		self.assertEqual(rows['z5_cache_plain'], ('hang', 'no console output for 20 s'))
