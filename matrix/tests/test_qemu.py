# SPDX-License-Identifier: GPL-2.0
"""qemu.boot() against a fake QEMU: every way a guest can end, and QEMU
never left running."""

import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock
from typing import List

from zsp import console, qemu

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, 'data')

CASE = ['zsp-harness: begin zero_size_test', '    # z2_kfree_bulk_mixed: zsp-start']
# A suite whose first case passed and whose second is being reported.
KTAP_CASE = ['zsp-harness: begin zero_size_test', 'KTAP version 1', '1..1',
	     '    # Subtest: zero_size_free', '    1..2', '    # z2_kfree: zsp-start',
	     '    ok 1 z2_kfree', '    # z2_kfree_bulk_mixed: zsp-start']
OOPS = ['BUG: unable to handle page fault for address: ffffebde00000008',
	'Oops: 0000 [#1] SMP', 'RIP: 0010:virt_to_folio+0x31/0x3f']
ZSP_OOPS = ['BUG: kernel NULL pointer dereference, address: 0000000000000010',
	    'Oops: 0002 [#1] SMP']


def data(name: str) -> List[str]:
	with open(os.path.join(DATA, name)) as f:
		return f.read().splitlines()


def alive(pid: int) -> bool:
	try:
		os.kill(pid, 0)
	except ProcessLookupError:
		return False
	# A zombie is dead for our purpose.
	with open(f'/proc/{pid}/stat') as f:
		return f.read().split()[2] != 'Z'


class FakeQemu(unittest.TestCase):

	def setUp(self) -> None:
		self.tmp = tempfile.TemporaryDirectory()
		self.dir = self.tmp.name
		os.symlink(os.path.join(HERE, 'fake_qemu.py'),
			   os.path.join(self.dir, 'qemu-system-x86_64'))
		self.env = {'PATH': self.dir + ':' + os.environ['PATH'],
			    'FAKE_QEMU_PID': os.path.join(self.dir, 'pid'),
			    'FAKE_QEMU_CONSOLE': os.path.join(self.dir, 'console')}
		env = mock.patch.dict(os.environ, self.env)
		env.start()
		self.addCleanup(env.stop)
		self.log = os.path.join(self.dir, 'log')

	def tearDown(self) -> None:
		self.tmp.cleanup()

	def run_boot(self, lines: List[str], end: str = 'exit', silence: float = 3,
		     timeout: float = 20) -> qemu.BootResult:
		with open(self.env['FAKE_QEMU_CONSOLE'], 'w') as f:
			f.write('\n'.join(lines) + '\n')
		os.environ['FAKE_QEMU_END'] = end
		r = qemu.boot('bzImage', 'initrd', self.log, timeout, silence)
		if os.path.exists(self.env['FAKE_QEMU_PID']):
			with open(self.env['FAKE_QEMU_PID']) as f:
				self.assertFalse(alive(int(f.read())), 'QEMU left running')
		return r

	def test_a_line_cut_by_the_stop_is_never_a_whole_one(self) -> None:
		"""7.3, 2026-12-07: QEMU stopped while the guest printed "ok 9
		z5_cache_account"; the log's "ok 9 z5_ca" made a case that does
		not exist, an error row."""
		with open(self.env['FAKE_QEMU_CONSOLE'], 'w') as f:
			f.write('\n'.join(KTAP_CASE) + '\n    ok 2 z2_kfr')
		os.environ['FAKE_QEMU_END'] = 'hang'
		r = qemu.boot('bzImage', 'initrd', self.log, 20, 2)
		self.assertEqual(r.outcome, 'hang')
		with open(self.log) as f:
			text = f.read().splitlines()
		self.assertEqual(text[-1], console.CUT + '    ok 2 z2_kfr')
		s = console.scan(text)
		self.assertNotIn('z2_kfr', s.cases)
		self.assertTrue(all(not line.endswith('ok 2 z2_kfr') for seg in s.segments
				    for line in seg.lines))

	def test_poweroff_line_ends_the_boot(self) -> None:
		r = self.run_boot(['zsp-harness: done', 'reboot: Power down'], end='hang')
		self.assertEqual(r.outcome, 'poweroff')
		self.assertLess(r.seconds, 2.5)

	def test_oops_in_case_is_a_crash(self) -> None:
		r = self.run_boot(CASE + OOPS, end='hang')
		self.assertEqual(r.outcome, 'crash')
		self.assertIn('[#1]', r.reason)
		with open(self.log) as f:
			self.assertIn('RIP: 0010:virt_to_folio', f.read())

	def test_expected_oops_lets_the_guest_run_on(self) -> None:
		r = self.run_boot(['    # z6_write_faults: zsp-start',
				   '    # z6_write_faults: zsp-expect-oops write'] + ZSP_OOPS +
				  ['    ok 1 z6_write_faults', 'reboot: Power down'], end='hang')
		self.assertEqual(r.outcome, 'poweroff')

	def test_second_oops_after_expected_one_is_a_crash(self) -> None:
		r = self.run_boot(['    # z6_write_faults: zsp-start',
				   '    # z6_write_faults: zsp-expect-oops write'] + ZSP_OOPS +
				  ['    ok 1 z6_write_faults', '    # z7_x: zsp-start'] + OOPS,
				  end='hang')
		self.assertEqual(r.outcome, 'crash')

	def test_panic(self) -> None:
		r = self.run_boot(CASE + ['Kernel panic - not syncing: Fatal exception'])
		self.assertEqual(r.outcome, 'panic')

	def test_soft_lockup_is_a_hang(self) -> None:
		r = self.run_boot(CASE + ['watchdog: BUG: soft lockup - CPU#1 stuck for 11s!'],
				  end='hang')
		self.assertEqual(r.outcome, 'hang')

	def test_rcu_stall_is_a_hang(self) -> None:
		r = self.run_boot(data('rcu-stall-in-case.console'), end='hang', silence=10)
		self.assertEqual(r.outcome, 'hang')
		self.assertIn('detected stalls', r.reason)

	def test_output_then_silence_is_a_hang(self) -> None:
		r = self.run_boot(CASE, end='hang', silence=1)
		self.assertEqual(r.outcome, 'hang')
		self.assertIn('no console output', r.reason)

	def test_profile_slowdown_stretches_the_limits(self) -> None:
		"""A slower profile's guest (axes.Profile.slowdown) gets its
		silence and timeout limits multiplied, and says so."""
		with open(self.env['FAKE_QEMU_CONSOLE'], 'w') as f:
			f.write('\n'.join(CASE) + '\n')
		os.environ['FAKE_QEMU_END'] = 'hang'
		r = qemu.boot('bzImage', 'initrd', self.log, 20, 1,
			      guest=qemu.Guest(slowdown=3.0))
		self.assertEqual((r.outcome, r.reason), ('hang', 'no console output for 3 s'))
		self.assertGreater(r.seconds, 2.5)

	def test_longest_silence_is_measured(self) -> None:
		"""Each boot records its longest quiet stretch, the figure a
		profile's silence limit is set from: a pause under the limit is
		measured, not a hang; a hang's is at least the limit."""
		r = self.run_boot(CASE + ['FAKE_QEMU_SLEEP 1.5', 'zsp-harness: done',
					  'reboot: Power down'], end='hang', silence=3)
		self.assertEqual(r.outcome, 'poweroff')
		self.assertGreaterEqual(r.longest_silence, 1.3)
		self.assertLess(r.longest_silence, 2.5)
		r = self.run_boot(CASE, end='hang', silence=1)
		self.assertEqual(r.outcome, 'hang')
		self.assertGreaterEqual(r.longest_silence, 1.0)

	def test_profile_slowdown_stretches_the_guests_detectors(self) -> None:
		"""The debug guest's lockup and stall detectors stretch with its
		limits, after the harness's values so that they win; tiny's
		command line is the harness's and the kernel's alone, the
		kernel's parameter under its name there."""
		g = qemu.Guest.of('debug')
		self.assertEqual(g.append, 'rcutree.rcu_min_cached_objs=0 kasan_multi_shot '
				 'watchdog_thresh=10 rcupdate.rcu_cpu_stall_timeout=20')
		self.assertEqual(qemu.Guest.of('tiny').append, 'rcutree.rcu_min_cached_objs=0')
		self.assertEqual(qemu.Guest.of('tiny', '7.3').append,
				 'slab_common.rcu_min_cached_objs=0')

	def test_no_output_at_all_is_a_hang(self) -> None:
		r = self.run_boot([], end='hang', silence=1)
		self.assertEqual(r.outcome, 'hang')

	def test_total_timeout(self) -> None:
		lines = [f'line {i}' for i in range(400)]
		r = self.run_boot(lines, end='hang', silence=5, timeout=1)
		self.assertEqual(r.outcome, 'timeout')

	def test_qemu_fails_to_start(self) -> None:
		r = self.run_boot([], end='fail')
		self.assertEqual(r.outcome, 'qemu-error')

	def test_qemu_missing(self) -> None:
		os.environ['PATH'] = self.dir + '/nowhere'
		r = qemu.boot('bzImage', 'initrd', self.log, 5, 5)
		self.assertEqual(r.outcome, 'qemu-error')

	# Defect 2/5: QEMU ending on its own is never a clean poweroff nor a
	# kernel verdict.

	def test_guest_exits_without_poweroff_line(self) -> None:
		r = self.run_boot(CASE)
		self.assertEqual(r.outcome, 'qemu-error')
		self.assertEqual(r.reason, 'qemu exited before the guest powered off')

	def test_triple_fault_is_the_kernels_crash(self) -> None:
		"""QEMU quits with 0 and no word on the console; its -d cpu_reset
		log says the guest triple-faulted: the kernel's crash."""
		r = self.run_boot(CASE, end='triple')
		self.assertEqual(r.outcome, 'crash')
		self.assertIn('triple fault', r.reason)

	def test_qemu_killed_by_a_signal(self) -> None:
		r = self.run_boot(CASE, end='killed')
		self.assertEqual(r.outcome, 'qemu-error')
		self.assertEqual(r.reason, 'qemu killed by SIGKILL')

	def test_qemu_fails_after_output(self) -> None:
		r = self.run_boot(CASE, end='status')
		self.assertEqual(r.outcome, 'qemu-error')
		self.assertEqual(r.reason, 'qemu exited with status 1')

	# Defect 4: one announced oops gets through, nothing else.

	def test_each_z6_case_gets_its_one_oops_through(self) -> None:
		r = self.run_boot(data('z6-one-oops-each.console'), end='hang')
		self.assertEqual(r.outcome, 'poweroff')

	def test_second_oops_in_an_expected_oops_case_is_a_crash(self) -> None:
		r = self.run_boot(data('z6-second-oops-in-window.console'), end='hang')
		self.assertEqual(r.outcome, 'crash')
		self.assertIn('[#2]', r.reason)

	def test_oops_after_the_expected_oops_case_ended_is_a_crash(self) -> None:
		r = self.run_boot(data('stray-kworker-oops-after-last-case.console'), end='hang')
		self.assertEqual(r.outcome, 'crash')
		self.assertIn('[#3]', r.reason)

	def test_sigterm_kills_qemu(self) -> None:
		with open(self.env['FAKE_QEMU_CONSOLE'], 'w') as f:
			f.write('booting\n')
		env = dict(os.environ, FAKE_QEMU_END='hang', PYTHONPATH=os.path.dirname(HERE))
		p = subprocess.Popen([sys.executable, '-m', 'zsp', 'internal', 'boot',
				      '--kernel', 'k', '--initrd', 'i', '--log', self.log,
				      '--silence', '30'], env=env, stdout=subprocess.DEVNULL)
		pidfile = self.env['FAKE_QEMU_PID']
		for _ in range(100):
			if os.path.exists(pidfile) and os.path.getsize(pidfile):
				break
			time.sleep(0.05)
		with open(pidfile) as f:
			qemu = int(f.read())
		p.send_signal(signal.SIGTERM)
		p.wait(10)
		time.sleep(0.2)
		self.assertFalse(alive(qemu))


class QemuCommand(unittest.TestCase):

	def test_no_network_smp_and_no_reboot(self) -> None:
		cmd = qemu.qemu_command('k', 'i', qemu.APPEND)
		self.assertIn('-nic', cmd)
		self.assertEqual(cmd[cmd.index('-nic') + 1], 'none')
		self.assertEqual(cmd[cmd.index('-smp') + 1], '2')
		self.assertIn('-no-reboot', cmd)
		self.assertIn('panic=-1', qemu.APPEND)


if __name__ == '__main__':
	unittest.main()
