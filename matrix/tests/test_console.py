# SPDX-License-Identifier: GPL-2.0
"""console.scan() on hand-made console logs: attribution of oopses and
splats to the running case, module segments, the end of the run."""

import unittest

import console

KTAP_HEAD = ['zsp-harness: begin zero_size_test', 'KTAP version 1', '1..1',
	     '    KTAP version 1', '    # Subtest: zero_size_free', '    1..3']

OOPS_ZSP = ['BUG: kernel NULL pointer dereference, address: 0000000000000010',
	    '#PF: supervisor write access in kernel mode',
	    'Oops: 0002 [#1] SMP', 'CPU: 1 PID: 60 Comm: zsp_fault']


class ScanTest(unittest.TestCase):

	def test_clean_run(self) -> None:
		s = console.scan(KTAP_HEAD + [
			'    # z2_kfree: zsp-start', '    ok 1 z2_kfree',
			'zsp-harness: end zero_size_test rc=0', 'zsp-harness: done'])
		self.assertTrue(s.done)
		self.assertIsNone(s.running)
		self.assertTrue(s.cases['z2_kfree'].finished)
		self.assertEqual(s.segments[0].rc, 0)

	def test_oops_is_attributed_to_running_case(self) -> None:
		s = console.scan(KTAP_HEAD + [
			'    # z2_kfree: zsp-start', '    ok 1 z2_kfree',
			'    # z2_kfree_bulk_mixed: zsp-start',
			'BUG: unable to handle page fault for address: ffffebde00000008',
			'Oops: 0000 [#1] SMP', 'RIP: 0010:virt_to_folio+0x31/0x3f'])
		self.assertEqual(s.running, 'z2_kfree_bulk_mixed')
		ev = s.cases['z2_kfree_bulk_mixed']
		self.assertFalse(ev.finished)
		self.assertEqual(ev.oopses, ['BUG: unable to handle page fault for '
					     'address: ffffebde00000008'])
		self.assertEqual(s.cases['z2_kfree'].oopses, [])
		self.assertIsNone(s.segments[0].rc)

	def test_expected_oops(self) -> None:
		s = console.scan(KTAP_HEAD + ['    # z6_write_faults: zsp-start',
			'    # z6_write_faults: zsp-expect-oops'] + OOPS_ZSP +
			['    ok 1 z6_write_faults'])
		ev = s.cases['z6_write_faults']
		self.assertTrue(ev.expects_oops and ev.finished)
		self.assertRegex(ev.oopses[0], console.ZSP_FAULT)

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
		self.assertIn('soft lockup', s.cases['z5_cache_hwcache_align'].oopses[0])

	def test_stray_oops_outside_cases(self) -> None:
		s = console.scan(['Oops: 0000 [#1] SMP'])
		self.assertEqual(len(s.stray), 1)
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


if __name__ == '__main__':
	unittest.main()
