# SPDX-License-Identifier: GPL-2.0
"""console.scan() on hand-made console logs: attribution of oopses and
splats to the running case, module segments, the end of the run, and
what falls outside every case. Whole consoles are in tests/data/."""

import os
import unittest
from typing import List

from zsp import console, verdict

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data')
# DEBUG_SLAB's red zone report, as vanilla debug SLAB printed it (2026-12-07).
SLAB_REPORT = ("slab error in cache_alloc_debugcheck_after(): cache `zsp_empty': "
	       'double free, or memory outside object was overwritten')

KTAP_HEAD = ['zsp-harness: begin zero_size_test', 'KTAP version 1', '1..1',
	     '    KTAP version 1', '    # Subtest: zero_size_free', '    1..3']

OOPS_ZSP = ['BUG: kernel NULL pointer dereference, address: 0000000000000010',
	    '#PF: supervisor write access in kernel mode',
	    'Oops: 0002 [#1] SMP', 'CPU: 1 PID: 60 Comm: zsp_fault']


def data(name: str) -> List[str]:
	with open(os.path.join(DATA, name)) as f:
		return f.read().splitlines()


def lines(events: List[console.Event]) -> List[str]:
	return [e.line for e in events]


class ScanTest(unittest.TestCase):

	def test_clean_run(self) -> None:
		s = console.scan(KTAP_HEAD + [
			'    # z2_kfree: zsp-start', '    ok 1 z2_kfree',
			'zsp-harness: end zero_size_test rc=0', 'zsp-harness: done'])
		self.assertTrue(s.done)
		self.assertIsNone(s.running)
		self.assertTrue(s.cases['z2_kfree'].finished)
		self.assertEqual(s.segments[0].rc, 0)
		self.assertEqual(s.outside, [])

	def test_oops_is_attributed_to_running_case(self) -> None:
		s = console.scan(KTAP_HEAD + [
			'    # z2_kfree: zsp-start', '    ok 1 z2_kfree',
			'    # z2_kfree_bulk_mixed: zsp-start',
			'BUG: unable to handle page fault for address: ffffebde00000008',
			'Oops: 0000 [#1] SMP', 'RIP: 0010:virt_to_folio+0x31/0x3f'])
		self.assertEqual(s.running, 'z2_kfree_bulk_mixed')
		ev = s.cases['z2_kfree_bulk_mixed']
		self.assertFalse(ev.finished)
		self.assertEqual(lines(ev.oopses), ['BUG: unable to handle page fault for '
						    'address: ffffebde00000008'])
		self.assertEqual(s.cases['z2_kfree'].oopses, [])
		self.assertIsNone(s.segments[0].rc)
		# The oops head is the oops, not also a splat.
		self.assertEqual(ev.splats, [])

	def test_expected_oops(self) -> None:
		s = console.scan(KTAP_HEAD + ['    # z6_write_faults: zsp-start',
			'    # z6_write_faults: zsp-expect-oops write'] + OOPS_ZSP +
			['    ok 1 z6_write_faults'])
		ev = s.cases['z6_write_faults']
		self.assertTrue(ev.expects_oops and ev.finished)
		self.assertRegex(ev.oopses[0].line, console.FAULT_ADDRESS)
		self.assertEqual((ev.access, ev.oopses[0].access, ev.oopses[0].comm),
				 ('write', 'write', 'zsp_fault'))

	def test_splat_without_oops(self) -> None:
		s = console.scan(KTAP_HEAD + ['    # z7_kmalloc_zero_atomic: zsp-start',
			'BUG: sleeping function called from invalid context at mm/slob.c:488',
			'    ok 1 z7_kmalloc_zero_atomic'])
		ev = s.cases['z7_kmalloc_zero_atomic']
		self.assertEqual(ev.oopses, [])
		self.assertEqual(len(ev.splats), 1)

	def test_soft_lockup_is_a_hang_line(self) -> None:
		s = console.scan(KTAP_HEAD + ['    # z5_cache_hwcache_align: zsp-start',
			'watchdog: BUG: soft lockup - CPU#1 stuck for 11s! [kunit_try_catch:70]'])
		ev = s.cases['z5_cache_hwcache_align'].oopses[0]
		self.assertIn('soft lockup', ev.line)
		self.assertEqual(ev.kind, 'lockup')

	def test_rcu_stall_is_a_hang_line(self) -> None:
		s = console.scan(data('rcu-stall-in-case.console'))
		ev = s.cases['z5_cache_plain'].oopses
		self.assertEqual([(e.kind, e.comm) for e in ev], [('lockup', 'kunit_try_catch')])

	def test_stray_oops_outside_cases(self) -> None:
		s = console.scan(['Oops: 0000 [#1] SMP'])
		self.assertEqual(len(s.outside), 1)
		self.assertIsNone(s.running)

	def test_meminit_line(self) -> None:
		s = console.scan(['zsp-harness: begin test_meminit',
				  'test_meminit: all 131 tests passed!',
				  'zsp-harness: end test_meminit rc=0'])
		self.assertEqual(s.meminit, 'all 131 tests passed!')
		self.assertEqual(s.segments[0].module, 'test_meminit')

	def test_console_text_is_not_trusted(self) -> None:
		# A marker-looking line inside a case does not end the module.
		s = console.scan(KTAP_HEAD + ['    # z1_kmalloc: zsp-start',
			'zsp-harness: end zero_size_test rc=$(reboot)'])
		self.assertIsNone(s.segments[0].rc)
		self.assertEqual(s.running, 'z1_kmalloc')

	def test_timestamped_lines(self) -> None:
		s = console.scan(['zsp-harness: begin zero_size_test',
			'[    1.200000] zsp-cases zero_size_query: z3_ksize z3_kmalloc_size_roundup',
			'[    1.200100]     # z3_ksize: zsp-start',
			'[    1.200200]     ok 1 z3_ksize'])
		self.assertEqual(s.expected(), {'z3_ksize': 'zero_size_query',
						'z3_kmalloc_size_roundup': 'zero_size_query'})
		self.assertTrue(s.cases['z3_ksize'].finished)


class WhereTest(unittest.TestCase):
	"""Issue 33: where a report died, its RIP and call chain, apart from
	the line the verdict compares."""

	def test_the_chain_up_to_the_test_module(self) -> None:
		s = console.scan(KTAP_HEAD + [
			'    # z2_kmem_cache_free: zsp-start',
			'BUG: unable to handle page fault for address: ffffebde00000008',
			'Oops: 0000 [#1] SMP',
			'CPU: 0 PID: 52 Comm: kunit_try_catch Tainted: G O N 6.1.192 #1',
			'RIP: 0010:virt_to_folio+0x31/0x3f', 'RSP: 0018:ffffc900000afdb8',
			'Call Trace:', ' <TASK>', ' virt_to_slab+0x5/0x15', ' kmem_cache_free+0x2d/0xc3',
			' ? free_into_cache_round+0x8a/0x12d [zero_size_test]',
			' free_into_cache_round+0x8a/0x12d [zero_size_test]',
			' z2_kmem_cache_free+0x21/0x23 [zero_size_test]', ' </TASK>',
			'Modules linked in: zero_size_test(O+)',
			'RIP: 0010:virt_to_folio+0x31/0x3f'])
		oops, = s.cases['z2_kmem_cache_free'].oopses
		self.assertEqual(oops.where, 'virt_to_folio+0x31/0x3f < virt_to_slab+0x5/0x15 < '
				 'kmem_cache_free+0x2d/0xc3 < free_into_cache_round+0x8a/0x12d '
				 '[zero_size_test]')
		self.assertNotIn('RIP', oops.describe())

	def test_a_kworkers_chain_is_cut_short(self) -> None:
		s = console.scan(data('real-vanilla-slab-kvfree-rcu-kworker-oops.console'))
		oops = [o for c in s.cases.values() for o in c.oopses] + \
		       [o.event for o in s.outside]
		self.assertTrue(oops)
		self.assertEqual(oops[0].where, 'virt_to_folio+0x31/0x3f < kmem_cache_free_bulk+0x30/0x8a'
				 ' < kfree_rcu_work+0x8c/0x189 < process_one_work+0x153/0x1fc < '
				 'worker_thread+0x182/0x245 < kthread+0xc4/0xcc < ret_from_fork+0x1f/0x30')

	def test_no_trace_no_where(self) -> None:
		self.assertEqual(console.Event('oops', 'x').where, '')


class OutsideTest(unittest.TestCase):
	"""Defect 1: what happens outside every case window is kept."""

	def test_kworker_oops_after_the_last_case(self) -> None:
		s = console.scan(data('stray-kworker-oops-after-last-case.console'))
		self.assertIsNone(s.running)
		self.assertEqual(len(s.outside), 1)
		o = s.outside[0]
		self.assertEqual((o.module, o.where), ('zero_size_test', 'after z6_read_faults'))
		self.assertEqual((o.event.kind, o.event.comm), ('oops', 'kworker/1:0'))
		self.assertIn('ffffeba240000008', o.event.line)

	def test_warning_during_module_load(self) -> None:
		s = console.scan(data('splat-during-module-load.console'))
		self.assertEqual(len(s.outside), 1)
		o = s.outside[0]
		self.assertEqual(o.module, 'zero_size_test')
		self.assertIn('before any case', o.where)
		self.assertEqual((o.event.kind, o.event.comm), ('splat', 'insmod'))

	def test_oops_while_the_kernel_boots(self) -> None:
		s = console.scan(data('oops-during-kernel-boot.console'))
		kinds = [(o.module, o.where, o.event.kind) for o in s.outside]
		self.assertEqual(kinds, [(None, 'during boot', 'oops'), (None, 'during boot', 'panic')])

	def test_kworker_oops_in_a_window_stays_the_cases(self) -> None:
		s = console.scan(data('kworker-oops-in-case-window.console'))
		self.assertEqual(s.outside, [])
		self.assertEqual(s.running, 'z2_kvfree_rcu_headless')
		ev = s.cases['z2_kvfree_rcu_headless'].oopses
		self.assertEqual([(e.kind, e.comm) for e in ev], [('oops', 'kworker/1:0')])


class ReportTest(unittest.TestCase):
	"""Defect 6: SLUB's reports and BUG_ON are splats/oopses; duplicates."""

	def test_slub_debug_report_is_a_splat(self) -> None:
		s = console.scan(data('slub-debug-report-in-case.console'))
		ev = s.cases['z2_kvfree_rcu_headless']
		self.assertEqual([(e.line, e.comm) for e in ev.splats],
				 [('BUG kmalloc-64 (Tainted: G           O     N): Object already free',
				   'kworker/1:0')])
		self.assertRegex('BUG zsp_small (Tainted: G    B   ): Poison overwritten',
				 console.SPLAT)

	def test_kmemleaks_complaints_are_splats(self) -> None:
		"""kmemleak_warn()'s lines are the kernel's complaints (seen on
		vanilla leak SLAB: kvfree_rcu() of the sentinel tells kmemleak to
		ignore 0x10); its reports and progress lines are not."""
		for line in ('kmemleak: Trying to color unknown object at 0x00000010 as Black',
			     'kmemleak: Cannot insert 0xffff888005a67e00 into the object search '
			     'tree (overlaps existing)',
			     'kmemleak: Freeing unknown object at 0xffff888005a67e00',
			     'kmemleak: Cannot allocate a kmemleak_object structure'):
			self.assertRegex(line, console.SPLAT)
		for line in ('kmemleak: Kernel memory leak detector initialized (mem pool available: 15898)',
			     'kmemleak: 3 new suspected memory leaks (see /sys/kernel/debug/kmemleak)',
			     'kmemleak: Automatic memory scanning thread started',
			     'kmemleak: Cannot allocate a scan area, scanning the full object',
			     'kmemleak: Object 0xffff888005a67e80 (size 0):',
			     'kmemleak: Kernel memory leak detector disabled'):
			self.assertNotRegex(line, console.SPLAT)

	def test_slab_debug_reports_are_splats_once_each(self) -> None:
		"""DEBUG_SLAB's reports (seen on vanilla debug SLAB, 2026-12-07,
		z5_cache_ctor) are splats; the same report repeated is one."""
		report = SLAB_REPORT
		for line in (report, 'Slab corruption (Tainted: G O N): zsp_small start=ffff888004d2b000, len=64',
			     "slab: double free detected in cache 'zsp_small', objp ffff888004d2b000"):
			self.assertRegex(line, console.SPLAT)
		log = ['zsp-harness: begin zero_size_test', '    # z5_cache_ctor: zsp-start']
		log += [report, 'ffff888004d2b000: redzone 1:0x9f911029d74e35b, redzone 2:0x0'] * 3
		log += ['    ok 4 z5_cache_ctor']
		ev = console.scan(log).cases['z5_cache_ctor']
		self.assertEqual(lines(ev.splats), [report])
		self.assertEqual(verdict.console_verdict('pass', '', ev, 'zero_size_test')[0], 'fail')

	def test_slab_debug_floods_are_one_splat_anywhere(self) -> None:
		"""Between cases and during an upstream module's run the same
		report repeated is one event too; other splats still count."""
		report = SLAB_REPORT
		kasan = 'BUG: KASAN: slab-out-of-bounds in zsp_touch+0x1/0x2'
		log = ['zsp-harness: begin zero_size_test', '    # z5_cache_ctor: zsp-start',
		       '    ok 1 z5_cache_ctor']
		log += [report] * 3 + [kasan] * 2
		log += ['zsp-harness: end zero_size_test rc=0', 'zsp-harness: begin slub_kunit']
		log += [report] * 3 + ['    ok 1 test_clobber_zone']
		s = console.scan(log)
		self.assertEqual([(o.where, o.event.line) for o in s.outside],
				 [('after z5_cache_ctor', report), ('after z5_cache_ctor', kasan),
				  ('after z5_cache_ctor', kasan)])
		self.assertEqual(lines(s.cases['test_clobber_zone'].splats), [report])

	def test_kmemleak_off_keeps_its_reason(self) -> None:
		s = console.scan(data('real-vanilla-slab-leak-kmemleak-off.console'))
		self.assertEqual(s.kmemleak_off, 'kmemleak: Cannot insert 0xffff888005a67e00 '
				 'into the object search tree (overlaps existing)')
		self.assertIsNone(console.scan(data('real-patched-slub-all-pass.console')).kmemleak_off)

	def test_kernel_bug_names_the_oops(self) -> None:
		s = console.scan(data('slob-kernel-bug-in-case.console'))
		ev = s.cases['z5_cache_plain']
		self.assertEqual(lines(ev.oopses), ['kernel BUG at mm/slob.c:253!'])
		self.assertEqual(ev.splats, [])

	def test_zsp_start_twice(self) -> None:
		s = console.scan(data('zsp-start-twice.console'))
		self.assertEqual(s.duplicates, ['z2_kfree'])

	def test_ktap_result_twice(self) -> None:
		s = console.scan(data('ktap-case-reported-twice.console'))
		self.assertEqual(s.segments[0].results['z2_kvfree_rcu_headless'], 2)
		self.assertEqual(s.segments[0].results['z2_kfree'], 1)

	def test_upstream_splats_go_to_the_case_or_module(self) -> None:
		s = console.scan(data('splats-in-upstream-modules.console'))
		self.assertEqual([e.comm for e in s.cases['test_next_pointer'].splats],
				 ['kunit_try_catch'])
		self.assertEqual(s.cases['test_clobber_zone'].splats, [])
		where = [(o.module, o.where, o.event.comm) for o in s.outside]
		self.assertEqual(where, [('test_meminit', 'in test_meminit, before any case result',
					  'insmod'),
					 ('slub_kunit', 'after test_first_word', 'insmod')])


class LockdepTest(unittest.TestCase):
	"""Issue 31, finding 6: lockdep's and RCU-lockdep's reports are
	splats of the case they came in, as WARN()'s are."""

	# Each report's first line, as kernel/locking/lockdep.c prints it (6.1,
	# 6.12 and 7.3 alike; "suspicious RCU usage" is lockdep_rcu_suspicious()),
	# and the report's line after the ident and rule.
	REPORTS = [
		('WARNING: possible circular locking dependency detected',
		 'kunit_try_catch/74 is trying to acquire lock:'),
		('WARNING: possible recursive locking detected',
		 'kunit_try_catch/74 is trying to acquire lock:'),
		('WARNING: inconsistent lock state',
		 'inconsistent {SOFTIRQ-ON-W} -> {IN-SOFTIRQ-W} usage.'),
		('WARNING: possible irq lock inversion dependency detected',
		 'kunit_try_catch/74 just changed the state of lock:'),
		('WARNING: SOFTIRQ-safe -> SOFTIRQ-unsafe lock order detected',
		 'kunit_try_catch/74 [HC0[0]:SC0[0]:HE1:SE1] is trying to acquire:'),
		('WARNING: bad unlock balance detected!',
		 'kunit_try_catch/74 is trying to release lock (slab_mutex) at:'),
		('WARNING: bad contention detected!',
		 'kunit_try_catch/74 is trying to contend lock (slab_mutex) at:'),
		('WARNING: held lock freed!',
		 'kunit_try_catch/74 is freeing memory ffff888005a67e00-ffff888005a67e3f, '
		 'with a lock still held there!'),
		('WARNING: kunit_try_catch/74 still has locks held!',
		 '1 lock held by kunit_try_catch/74:'),
		('WARNING: lock held when returning to user space!',
		 'kunit_try_catch/74 is leaving the kernel with locks still held!'),
		('WARNING: suspicious RCU usage',
		 'mm/slab_common.c:1436 suspicious rcu_dereference_check() usage!'),
		('WARNING: chain_key collision', 'kunit_try_catch/74: '),
		('WARNING: Nested lock was not taken', 'kunit_try_catch/74 is trying to lock:'),
	]

	def window(self, report: List[str]) -> console.CaseEvents:
		s = console.scan(KTAP_HEAD + ['    # z2_kfree: zsp-start'] + report +
				 ['    ok 1 z2_kfree', '    # z2_kvfree: zsp-start', '    ok 2 z2_kvfree'])
		self.assertEqual(s.cases['z2_kvfree'].splats, [])
		self.assertEqual(s.outside, [])
		return s.cases['z2_kfree']

	def test_each_lockdep_report_is_a_splat_of_its_case(self) -> None:
		for head, task in self.REPORTS:
			for stamp in ('', '[   12.345678] '):
				report = [stamp, stamp + '=' * len(head), stamp + head,
					  stamp + '6.1.192+ #1 Tainted: G           O     N',
					  stamp + '-' * len(head), stamp + task]
				ev = self.window(report)
				self.assertEqual(lines(ev.splats), [head], report)
				self.assertEqual(ev.oopses, [])
				r = verdict.console_verdict('pass', '', ev, 'zero_size_test')
				self.assertEqual(r[0], 'fail', head)
				self.assertIn(head, r[1])

	def test_the_report_names_its_task(self) -> None:
		"""From the line that names it, or the stack dump's "Comm:"
		when no such line comes first; the report at a return to user
		space has no stack dump."""
		head = 'WARNING: lock held when returning to user space!'
		ev = self.window(['=' * 48, head, '6.1.192+ #1 Tainted: G           O     N',
				  '-' * 48, 'insmod/62 is leaving the kernel with locks still held!',
				  '1 lock held by insmod/62:'])
		self.assertEqual([e.comm for e in ev.splats], ['insmod'])
		ev = self.window(['=' * 29, 'WARNING: suspicious RCU usage', '6.12.118+ #1 Not tainted',
				  '-' * 29, 'mm/slab_common.c:1436 suspicious rcu_dereference_check() usage!',
				  'no locks held by kunit_try_catch/83.', 'stack backtrace:',
				  'CPU: 0 UID: 0 PID: 83 Comm: kunit_try_catch Not tainted 6.12.118+ #1'])
		self.assertEqual([e.comm for e in ev.splats], ['kunit_try_catch'])

	def test_sleeping_in_atomic_was_a_splat_already(self) -> None:
		ev = self.window(['BUG: sleeping function called from invalid context at mm/slub.c:3240',
				  'in_atomic(): 1, irqs_disabled(): 0, non_block: 0, pid: 74, name: kunit_try_catch',
				  '[ BUG: Invalid wait context ]'])
		self.assertEqual(len(ev.splats), 2)

	def test_nothing_else_is_a_lockdep_report(self) -> None:
		"""lockdep's banner at boot, its report's other lines, lines that
		quote a report's head (a KUnit log line, the harness's) and
		lockdep turning itself off are no splats."""
		quiet = ['Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar',
			 '... MAX_LOCKDEP_SUBCLASSES:  8', ' memory used by lock dependency info: 6493 kB',
			 'rcu: \tRCU lockdep checking is enabled.', 'INFO: lockdep is turned off.',
			 'Disabling lock debugging due to kernel taint',
			 '======================================================',
			 '6.1.192+ #1 Tainted: G           O     N',
			 '1 lock held by kunit_try_catch/74:',
			 ' #0: ffffffff82b1e5d0 (slab_mutex){+.+.}-{3:3}, at: kmem_cache_destroy+0x1c/0x150',
			 '-> #1 (slab_mutex){+.+.}-{3:3}:', ' *** DEADLOCK ***',
			 '    # z2_kfree: WARNING: suspicious RCU usage',
			 '    # z2_kfree: EXPECTATION FAILED at kunit/zero_size_free.c:12',
			 '    Expected WARNING: possible recursive locking detected',
			 'zsp-harness: WARNING: held lock freed!',
			 'WARNING: possible circular locking dependency detected, or not',
			 'guest-init: WARNING: lock held when returning to user space!']
		for line in quiet:
			self.assertNotRegex(line, console.LOCKDEP)
		self.assertEqual(self.window(quiet).splats, [])

	def test_a_report_between_cases_is_the_modules(self) -> None:
		s = console.scan(data('lockdep-lock-held-at-insmod-exit.console'))
		self.assertEqual([(o.module, o.where, o.event.line, o.event.comm) for o in s.outside],
				 [('zero_size_test', 'after z3_kmalloc_size_roundup',
				   'WARNING: lock held when returning to user space!', 'insmod')])


class KtapPlanTest(unittest.TestCase):
	"""Issue 31, finding 11: an upstream module's KTAP plan and numbered
	result lines, which say which case never reported."""

	def test_plan_and_numbers(self) -> None:
		seg = console.scan(data('upstream-ktap-lost-subtest.console')).segments[0]
		self.assertEqual((seg.module, seg.plans), ('slub_kunit', {'slub_test': 15}))
		numbered = seg.numbered['slub_test']
		self.assertEqual(sorted(set(range(1, 16)) - set(numbered)), [11])
		self.assertEqual(numbered[15], 'test_kvfree_rcu_zero_size_ptr')

	def test_parameters_and_the_suites_own_line_are_no_cases(self) -> None:
		"""A parameterised case's results are nested in it, and the
		suite's own "ok 1 slub_test" is one level out; timestamps and
		6.1's KTAP without "# module:" alike."""
		seg = console.scan(['zsp-harness: begin kfence_test', '[    3.100000]     KTAP version 1',
				    '[    3.100001]     # Subtest: kfence', '[    3.100002]     1..2',
				    '[    3.100003]     ok 1 test_out_of_bounds_read',
				    '[    3.100004]         KTAP version 1',
				    '[    3.100005]         # Subtest: test_param',
				    '[    3.100006]         ok 1 param-0', '[    3.100007]         ok 2 param-1',
				    '[    3.100008]     ok 2 test_param', '[    3.100009] ok 1 kfence',
				    'zsp-harness: end kfence_test rc=0']).segments[0]
		self.assertEqual(seg.plans, {'kfence': 2})
		self.assertEqual(seg.numbered, {'kfence': {1: 'test_out_of_bounds_read',
							   2: 'test_param'}})


class ExpectedTest(unittest.TestCase):
	"""Defect 2: the module's own list of cases."""

	def test_zsp_cases_lines(self) -> None:
		s = console.scan(data('lost-ok-line.console'))
		self.assertEqual(list(s.expected()), ['z2_kfree', 'z2_kvfree_rcu_headless',
						      'z2_kfree_rcu_rcu_head'])
		self.assertTrue(s.cases['z2_kvfree_rcu_headless'].started)
		self.assertFalse(s.cases['z2_kvfree_rcu_headless'].finished)


if __name__ == '__main__':
	unittest.main()
